"""Generate the rule pages ``docs/rules/TFLxxx.md`` from the rule classes.

The class is the single source: its docstring (ruff's shape) gives the prose, its
``VALID`` / ``INVALID`` examples give the "not flagged" / "flagged" sections, so a page
cannot drift from what the rule does. ``tests/test_docs.py`` fails when a committed page
is stale; regenerate with::

    python -m tflint.docs          # write docs/rules/
    python -m tflint.docs --check  # exit 1 and list the stale pages
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import sys
from pathlib import Path
from typing import Sequence

from tflint.rule import Rule

#: sections every rule docstring must have, in this order
REQUIRED_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "References")
#: sections a docstring may add; ``Fix safety`` goes between ``Use instead`` and ``References``
OPTIONAL_SECTIONS = ("Fix safety",)
_ORDER = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "References")

_HEADING = re.compile(r"^## (.+?)\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")

#: the codes the engine emits itself (no Rule class): hand-written pages
ENGINE_PAGES = {
    "TFL001": (
        "syntax-error",
        "error",
        """The file cannot be decoded or parsed.

## What it does
Reports a file that tflint cannot read as Python 3: a syntax error (with the parser's
reason and position), Python 2 code, bytes that do not decode in the file's encoding
(at the first such byte), a NUL byte, or nesting too deep for the parser. Every
checked file gets this check, whether it mentions TensorFlow or not. Code written for a
newer Python than the one tflint runs on (Python 3.12's `type` statements, generic
`def f[T]()`, f-strings that reuse their quotes) is read with that grammar and linted, not
reported. Under flake8 a file that does not parse is flake8's own E999 instead.

## Why is this bad?
A file that does not parse is not linted at all, so every other rule is silent on it.
The run goes on with the other files; this finding makes sure the gap is visible.

## Example
```python
def f(x)
    return x
```

## Use instead
```python
def f(x):
    return x
```

## References
- [Python grammar](https://docs.python.org/3/reference/grammar.html)
""",
    ),
    "TFL002": (
        "internal-error",
        "error",
        """A rule failed on this file.

## What it does
Reports that a rule (or tflint's analysis of the file) raised an exception. The other
rules still run on the file and the run goes on with the other files; the message names
the rule and the exception.

## Why is this bad?
It is a bug in tflint, not in your code: the rule that failed says nothing about this
file, so findings may be missing. Please report it with the file (or a small piece of it
that shows the failure).

## Example
Any file can trigger it; there is no pattern to avoid.

## Use instead
Report the bug. Until it is fixed, `--ignore TFL002` or a per-file ignore hides the
finding (the failing rule stays silent on that file either way).

## References
- [tflint issue tracker](https://github.com/tflint-dev/tflint/issues)
""",
    ),
}


def rule_docstring(rule_cls: type[Rule]) -> str:
    return inspect.cleandoc(rule_cls.__doc__ or "")


def split_docstring(doc: str) -> tuple[str, list[tuple[str, str]]]:
    """``(summary, [(section title, body), ...])``; headings inside fenced code blocks
    (``# comment`` lines of an example) are not headings."""
    summary_lines: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    in_fence = False
    for line in doc.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        m = None if in_fence else _HEADING.match(line)
        if m:
            sections.append((m.group(1), []))
        elif sections:
            sections[-1][1].append(line)
        else:
            summary_lines.append(line)
    summary = "\n".join(summary_lines).strip()
    return summary, [(title, "\n".join(body).strip()) for title, body in sections]


def docstring_problems(doc: str) -> list[str]:
    """What is wrong with a rule docstring's shape (empty list: nothing)."""
    problems: list[str] = []
    summary, sections = split_docstring(doc)
    if not summary:
        problems.append("no summary line before the first section")
    elif "\n" in summary:
        problems.append("the summary must be a single line")
    titles = [t for t, _ in sections]
    for t in REQUIRED_SECTIONS:
        if t not in titles:
            problems.append(f"missing section '## {t}'")
    for t in titles:
        if t not in _ORDER:
            problems.append(f"unknown section '## {t}' (allowed: {', '.join(_ORDER)})")
    for t, body in sections:
        if not body:
            problems.append(f"section '## {t}' is empty")
    if len(set(titles)) != len(titles):
        problems.append("a section appears twice")
    known = [t for t in titles if t in _ORDER]
    if known != sorted(known, key=_ORDER.index):
        problems.append(f"sections out of order: {', '.join(known)} (expected order: {', '.join(_ORDER)})")
    return problems


def _header(code: str, name: str, severity: str, default_on: bool, pitfalls: Sequence[str]) -> list[str]:
    meta = f"**Severity:** {severity} · **Default:** {'on' if default_on else 'off'}"
    if pitfalls:
        meta += f" · **Pitfalls:** {', '.join(pitfalls)}"
    return [f"# {code}: {name}", "", meta, ""]


def _examples(title: str, examples: Sequence[str]) -> list[str]:
    out = [f"## {title}", ""]
    for ex in examples:
        out += ["```python", ex.strip("\n"), "```", ""]
    return out


def render_rule(rule_cls: type[Rule]) -> str:
    """The Markdown page of one rule."""
    doc = rule_docstring(rule_cls)
    out = _header(rule_cls.CODE, rule_cls.NAME, rule_cls.SEVERITY.value, rule_cls.DEFAULT_ON,
                  rule_cls.PITFALLS)
    out += [doc.strip(), ""]
    out += _examples("Examples flagged", rule_cls.INVALID)
    out += _examples("Examples not flagged", rule_cls.VALID)
    return "\n".join(out).rstrip("\n") + "\n"


def render_engine_code(code: str) -> str:
    name, severity, doc = ENGINE_PAGES[code]
    out = _header(code, name, severity, True, ())
    out += [doc.strip(), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _summary(doc: str) -> str:
    return split_docstring(doc)[0].replace("|", "\\|").replace("\n", " ")


def render_index() -> str:
    from tflint.registry import all_rules

    rows: list[tuple[str, str, str, bool, str, str]] = []
    for code, (name, severity, doc) in ENGINE_PAGES.items():
        rows.append((code, name, severity, True, "–", _summary(doc)))
    for r in all_rules():
        rows.append((r.CODE, r.NAME, r.SEVERITY.value, r.DEFAULT_ON, ", ".join(r.PITFALLS) or "–",
                     _summary(rule_docstring(r))))
    rows.sort()
    out = [
        "# Rules",
        "",
        "Generated by `python -m tflint.docs` from the rule classes; do not edit by hand.",
        "",
        "Severity: **error** = TensorFlow rejects it at trace time; **warning** = silently",
        "wrong results; **perf** = retracing or graph blow-up; **info** = worth knowing,",
        "often intended. Rules that are off by default run only when selected",
        "(`--extend-select CODE`). See [configuration](../configuration.md) and",
        "[the code table](codes.md).",
        "",
        "Pitfalls: the entries of the project's catalogue of graph-mode pitfalls (P01 to P38,",
        "each checked against TensorFlow 2.21) that a rule covers; the rule's page explains",
        "each one under \"Why is this bad?\". Families: TFL1 Python side effects and state,",
        "TFL2 tensor-to-Python conversions, TFL3 state created in traced code, TFL4",
        "retracing, TFL5 AutoGraph control flow, TFL6 Keras 3.",
        "",
        "| code | name | severity | default | pitfalls | summary |",
        "|---|---|---|---|---|---|",
    ]
    for code, name, severity, on, pitfalls, summary in rows:
        out.append(f"| [{code}]({code}.md) | {name} | {severity} | {'on' if on else 'off'} | "
                   f"{pitfalls} | {summary} |")
    return "\n".join(out) + "\n"


def render_code_table() -> str:
    """``codes.md``: the code table of ``tflint/codes.toml``, every code with what it
    flags, generated so that the docs never drift from the data."""
    from tflint.codes import table

    out = [
        "# The code table",
        "",
        "Generated by `python -m tflint.docs` from `tflint/codes.toml`, the source of truth for",
        "codes, names, severities and defaults; do not edit by hand. Codes are never",
        "renumbered or reused: a new rule takes a free slot of its family (TFL0 the engine, TFL1",
        "Python side effects and state, TFL2 tensor-to-Python conversions, TFL3 state created",
        "in traced code, TFL4 retracing, TFL5 AutoGraph control flow, TFL6 Keras 3, TFL9",
        "opinionated rules that are off by default).",
        "",
        "| code | name | pitfalls | severity | default | what it flags |",
        "|---|---|---|---|---|---|",
    ]
    for e in table():
        out.append(f"| [{e.code}]({e.code}.md) | {e.name} | {', '.join(e.pitfalls) or '–'} | {e.severity} | "
                   f"{'on' if e.default else 'off'} | {e.flags} |")
    return "\n".join(out) + "\n"


def expected_pages() -> dict[str, str]:
    """File name (relative to ``docs/rules``) -> content, for every code and the index."""
    from tflint.registry import all_rules

    pages = {f"{code}.md": render_engine_code(code) for code in ENGINE_PAGES}
    for r in all_rules():
        pages[f"{r.CODE}.md"] = render_rule(r)
    pages["index.md"] = render_index()
    pages["codes.md"] = render_code_table()
    return pages


def default_rules_dir() -> Path:
    """``docs/rules`` of the source checkout this module lives in."""
    return Path(__file__).resolve().parent.parent / "docs" / "rules"


def stale_pages(rules_dir: Path) -> list[str]:
    """Pages that are missing or differ from what the rules generate, and generated-looking
    pages (``TFL*.md``) of codes that no longer exist."""
    want = expected_pages()
    stale = []
    for name, text in want.items():
        p = rules_dir / name
        if not p.is_file() or p.read_text(encoding="utf-8") != text:
            stale.append(name)
    if rules_dir.is_dir():
        stale += sorted(p.name for p in rules_dir.glob("TFL*.md") if p.name not in want)
    return sorted(stale)


def write_pages(rules_dir: Path) -> list[str]:
    """Write every page that changed, delete pages of unknown codes; return the names."""
    rules_dir.mkdir(parents=True, exist_ok=True)
    want = expected_pages()
    changed = []
    for name in stale_pages(rules_dir):
        p = rules_dir / name
        if name in want:
            p.write_text(want[name], encoding="utf-8", newline="\n")
        else:
            p.unlink()
        changed.append(name)
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tflint.docs",
                                     description="Generate docs/rules/ from the rule classes.")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 and list the pages that are stale or missing")
    parser.add_argument("--dir", type=Path, default=None,
                        help="the docs/rules folder (default: the one of this checkout)")
    args = parser.parse_args(argv)
    rules_dir = args.dir or default_rules_dir()

    from tflint.registry import all_rules

    bad = 0
    for r in all_rules():
        for problem in docstring_problems(rule_docstring(r)):
            print(f"{r.CODE} ({r.__module__}.{r.__name__}): docstring: {problem}", file=sys.stderr)
            bad += 1
    if args.check:
        stale = stale_pages(rules_dir)
        for name in stale:
            print(f"{os.path.join(str(rules_dir), name)}: stale or missing; run `python -m tflint.docs`")
        return 1 if stale or bad else 0
    for name in write_pages(rules_dir):
        print(f"wrote {os.path.join(str(rules_dir), name)}")
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
