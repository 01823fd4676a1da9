"""flake8-compatible ``# noqa`` handling for the ``tflint check`` front-end.

The engine never applies noqa (the flake8 plugin lets flake8 do it), so the CLI must
reproduce flake8's behaviour exactly, or the parity test between the two front-ends
breaks. What flake8 does, and so what this module does:

* the inline regex is flake8's own (``defaults.NOQA_INLINE_REGEXP``), case-insensitive:
  ``# noqa``, ``# noqa: TFL101,TFL105``, ``#noqa:TFL101 TFL105`` (the ``#`` must be
  followed by one space in flake8's regex; ``#noqa`` without a space is not a noqa);
* a bare ``# noqa`` silences every code on the line; a list silences the codes listed
  and the codes that start with a listed prefix (``# noqa: TFL1``); a noqa naming only
  other codes (``# noqa: E501``) does not silence ours;
* the "line" searched is the whole logical line that flake8 builds from the token stream:
  every physical line of a statement joined by a backslash or by a multi-line string
  counts as one line. A finding is looked up by its *first* line, so a finding on a node
  spanning several lines is silenced by a noqa on its first line;
* ``# flake8: noqa`` (or ``# flake8= noqa``) alone on a line turns the whole file off;
  after code on the same line it does not, as in flake8.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Iterable

from tflint.diagnostics import Diagnostic

#: copied from flake8.defaults (flake8 7.x) so the CLI need not import flake8 at start-up
NOQA_INLINE_REGEXP = re.compile(
    r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?",
    re.IGNORECASE,
)
NOQA_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.I)
_CODE_SPLIT = re.compile(r"[,\s]")


def source_lines(text: str) -> list[str]:
    """Physical lines with their endings, split the way flake8 reads a file (universal
    newlines: ``\\r\\n`` and ``\\r`` end a line, form feeds and ``\\u2028`` do not)."""
    return io.StringIO(text, newline=None).readlines()


def noqa_line_mapping(lines: list[str]) -> dict[int, str]:
    """Map each line number to the text flake8 searches for a noqa on that line.

    A port of ``flake8.processor.FileProcessor._noqa_line_mapping``: lines between two
    NL/NEWLINE tokens are joined. When the file cannot be tokenized the mapping is empty
    and the caller falls back to the physical line, as flake8 does (via linecache).
    """
    ret: dict[int, str] = {}
    it = iter(lines)
    try:
        tokens = list(tokenize.generate_tokens(lambda: next(it, "")))
    except (tokenize.TokenError, SyntaxError):
        return {}
    min_line = len(lines) + 2
    max_line = -1
    for tok in tokens:
        if tok.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        min_line = min(min_line, tok.start[0])
        max_line = max(max_line, tok.end[0])
        if tok.type in (tokenize.NL, tokenize.NEWLINE):
            joined = "".join(lines[min_line - 1 : max_line])
            for n in range(min_line, max_line + 1):
                ret[n] = joined
            min_line = len(lines) + 2
            max_line = -1
    return ret


def file_is_noqa(lines: Iterable[str]) -> bool:
    """True when a line is ``# flake8: noqa``: flake8 then skips the whole file."""
    return any(NOQA_FILE.match(line) for line in lines)


def is_suppressed(code: str, logical_line: str) -> bool:
    """Does the noqa comment on ``logical_line`` (if any) silence ``code``?"""
    m = NOQA_INLINE_REGEXP.search(logical_line)
    if m is None:
        return False
    codes_str = m.group("codes")
    if codes_str is None:
        return True
    codes = tuple(c.strip() for c in _CODE_SPLIT.split(codes_str) if c.strip())
    return code in codes or code.startswith(codes)


def apply_noqa(diagnostics: list[Diagnostic], text: str) -> list[Diagnostic]:
    """Drop the diagnostics that a noqa comment in ``text`` silences.

    ``text`` is the decoded source the diagnostics were computed from (BOM removed).
    """
    if not diagnostics:
        return diagnostics
    lines = source_lines(text)
    if file_is_noqa(lines):
        return []
    if "noqa" not in text.lower():  # the common case: no comment to honour
        return diagnostics
    mapping = noqa_line_mapping(lines)
    kept = []
    for d in diagnostics:
        logical = mapping.get(d.line)
        if logical is None:
            logical = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
        if not is_suppressed(d.code, logical):
            kept.append(d)
    return kept


# ---------------------------------------------------------------------------- --add-noqa

#: findings about the file itself, which ``--add-noqa`` reports instead of silencing
NOT_SILENCED = ("TFL001", "TFL002")


def logical_ranges(lines: list[str]) -> dict[int, tuple[int, int]]:
    """Line number -> (first, last) physical line of the logical line it is in; empty
    when the text does not tokenize (each line then stands alone)."""
    ret: dict[int, tuple[int, int]] = {}
    it = iter(lines)
    try:
        tokens = list(tokenize.generate_tokens(lambda: next(it, "")))
    except (tokenize.TokenError, SyntaxError):
        return {}
    lo, hi = len(lines) + 2, -1
    for tok in tokens:
        if tok.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        lo, hi = min(lo, tok.start[0]), max(hi, tok.end[0])
        if tok.type in (tokenize.NL, tokenize.NEWLINE):
            for n in range(lo, hi + 1):
                ret[n] = (lo, hi)
            lo, hi = len(lines) + 2, -1
    return ret


def add_noqa_text(text: str, diagnostics: Iterable[Diagnostic]) -> tuple[str, int]:
    """``text`` with a ``# noqa: CODE`` for each finding: an existing noqa comment on
    the finding's logical line gets the code added (its codes are kept); otherwise the
    comment goes at the end of the logical line's last physical line (never inside a
    multi-line string). Returns the new text and how many findings it silences."""
    lines = source_lines(text)
    ranges = logical_ranges(lines)
    wanted: dict[tuple[int, int], list[str]] = {}
    count = 0
    for d in diagnostics:
        if d.code in NOT_SILENCED or not 0 < d.line <= len(lines):
            continue
        span = ranges.get(d.line, (d.line, d.line))
        codes = wanted.setdefault(span, [])
        count += 1
        if d.code not in codes:
            codes.append(d.code)
    for (lo, hi), codes in wanted.items():
        for n in range(lo, hi + 1):
            body = lines[n - 1].rstrip("\r\n")
            m = NOQA_INLINE_REGEXP.search(body)
            if m is None:
                continue
            old = [c for c in _CODE_SPLIT.split(m.group("codes") or "") if c]
            new = old + [c for c in codes if c not in old]
            comment = "# noqa: " + ", ".join(new)
            lines[n - 1] = body[: m.start()] + comment + body[m.end():] + lines[n - 1][len(body):]
            break
        else:
            body = lines[hi - 1].rstrip("\r\n")
            ending = lines[hi - 1][len(body):] or ""
            lines[hi - 1] = body.rstrip(" \t") + "  # noqa: " + ", ".join(codes) + ending
    return "".join(lines), count


def add_noqa_source(data: bytes, path: str, settings: object = None) -> tuple[bytes, int, list[Diagnostic]]:
    """``--add-noqa`` on a Python file's bytes: the new bytes (same encoding, BOM and
    newlines), how many findings got a comment, and the findings a comment does not
    silence (TFL001, TFL002)."""
    from tflint.engine import lint_source
    from tflint.fixes import _split_encoding

    try:
        text, encoding, bom = _split_encoding(data)
    except (UnicodeDecodeError, LookupError, SyntaxError):
        return data, 0, lint_source(data, path, settings)  # type: ignore[arg-type]
    diags = apply_noqa(lint_source(text, path, settings), text)  # type: ignore[arg-type]
    kept = [d for d in diags if d.code in NOT_SILENCED]
    new, count = add_noqa_text(text, diags)
    if new == text:
        return data, 0, kept
    assert encoding is not None
    out = new.encode(encoding)
    if bom and not out.startswith(b"\xef\xbb\xbf"):
        out = b"\xef\xbb\xbf" + out
    return out, count, kept
