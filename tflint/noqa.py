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
