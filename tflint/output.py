"""Turn diagnostics into text, JSON, SARIF 2.1.0 or GitHub workflow commands.

Every format here is 1-based in both line and column (the Diagnostic's column is 0-based,
as flake8's plugin API wants it), and end positions are exclusive, as ruff writes them.
Columns count characters (Unicode code points), which SARIF is told explicitly.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from tflint.diagnostics import Diagnostic, Severity

FORMATS = ("text", "json", "sarif", "github", "junit", "gitlab")

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/tflint-dev/tflint"

_SARIF_LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.PERF: "warning",
    Severity.INFO: "note",
}
_GITHUB_LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.PERF: "warning",
    Severity.INFO: "notice",
}


def rule_url(code: str) -> str:
    """The docs page of a code (engine codes TFL001/TFL002 have pages too)."""
    from tflint import DOCS_URL

    return f"{DOCS_URL}/rules/{code}.md"


# ---------------------------------------------------------------- text


def use_color(choice: str, stream: Any) -> bool:
    """``--color``: always, never, or auto: on a terminal unless ``NO_COLOR`` is set
    (https://no-color.org) or ``TERM`` is ``dumb``."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


_BOLD, _RED, _CYAN, _DIM, _RESET = "\x1b[1m", "\x1b[31m", "\x1b[36m", "\x1b[2m", "\x1b[0m"


def format_text(
    diagnostics: Iterable[Diagnostic],
    sources: dict[str, list[str]] | None = None,
    fixable: Callable[[Diagnostic], bool] | None = None,
    show_fixes: bool = False,
    color: bool = False,
) -> str:
    """flake8's default format, ``path:line:col: CODE message``. With ``sources``
    (path -> lines), each finding is followed by its source line and a caret, as
    flake8's ``--show-source`` prints it. Findings ``fixable`` accepts (a safe fix, or
    any fix with ``--unsafe-fixes``) get ruff's ``[*]`` mark after the code; with
    ``show_fixes`` each fix's title and safety follow its finding.
    A finding in a notebook reads ``path:cell N:line:col: CODE message`` (ruff's form),
    and ``sources`` is keyed by ``path:cell N`` for it."""
    out: list[str] = []
    for d in diagnostics:
        can_fix = fixable is not None and fixable(d)
        mark = "[*] " if can_fix else ""
        if color:
            mark = f"{_CYAN}[*]{_RESET} " if can_fix else ""
            out.append(f"{_BOLD}{where(d)}{_RESET}:{d.line}:{d.column + 1}: "
                       f"{_BOLD}{_RED}{d.code}{_RESET} {mark}{d.message}")
        else:
            out.append(f"{where(d)}:{d.line}:{d.column + 1}: {d.code} {mark}{d.message}")
        if show_fixes and d.fix is not None and d.fix.edits:
            line = f"  fix ({d.fix.applicability.value}): {d.fix.title}"
            out.append(f"{_DIM}{line}{_RESET}" if color else line)
        if sources is not None:
            lines = sources.get(where(d)) or []
            if 0 < d.line <= len(lines):
                line = lines[d.line - 1].rstrip("\r\n")
                # keep tabs so that the caret lines up under the same indentation
                indent = "".join(c if c.isspace() else " " for c in line[: d.column])
                out.append(line)
                out.append(f"{indent}^")
    return "".join(s + "\n" for s in out)


def where(d: Diagnostic) -> str:
    """The path, with the cell for a finding in a notebook (``nb.ipynb:cell 3``)."""
    return d.path if d.cell is None else f"{d.path}:cell {d.cell}"


def format_statistics(diagnostics: Sequence[Diagnostic]) -> str:
    """flake8's ``--statistics``: ``count code first-message`` per code, sorted by code."""
    counts = Counter(d.code for d in diagnostics)
    first: dict[str, str] = {}
    for d in diagnostics:
        first.setdefault(d.code, d.message)
    return "".join(f"{counts[c]:<5} {c} {first[c]}\n" for c in sorted(counts))


# ---------------------------------------------------------------- JSON


def _loc(line: int, column: int) -> dict[str, int]:
    return {"row": line, "column": column + 1}


def diagnostic_to_json(d: Diagnostic) -> dict[str, Any]:
    fix: dict[str, Any] | None = None
    if d.fix is not None:
        fix = {
            "title": d.fix.title,
            "applicability": d.fix.applicability.value,
            "edits": [
                {
                    "content": e.content,
                    "location": _loc(e.line, e.column),
                    "end_location": _loc(e.end_line, e.end_column),
                    **({"cell": e.cell} if e.cell is not None else {}),
                }
                for e in d.fix.edits
            ],
        }
    return {
        "code": d.code,
        "name": d.name,
        "message": d.message,
        "severity": d.severity.value,
        "filename": d.path,
        "location": _loc(d.line, d.column),
        "end_location": _loc(d.end_line, d.end_column),
        "url": rule_url(d.code),
        "fix": fix,
        # a notebook finding: locations are in this cell (1-based among all cells)
        "cell": d.cell,
    }


def format_json(diagnostics: Iterable[Diagnostic]) -> str:
    return json.dumps([diagnostic_to_json(d) for d in diagnostics], indent=2) + "\n"


# ---------------------------------------------------------------- SARIF


def _rule_descriptors() -> list[dict[str, Any]]:
    """Every known code, so a SARIF viewer can describe a rule even with no result."""
    from tflint.registry import ENGINE_CODES, all_rules

    out: list[dict[str, Any]] = []
    for code, (name, sev) in sorted(ENGINE_CODES.items()):
        out.append(_descriptor(code, name, _engine_summary(code), Severity(sev), True))
    for rule in all_rules():
        summary = rule.MESSAGE or _first_doc_line(rule.__doc__) or rule.NAME
        out.append(_descriptor(rule.CODE, rule.NAME, summary, rule.SEVERITY, rule.DEFAULT_ON))
    out.sort(key=lambda r: r["id"])
    return out


def _engine_summary(code: str) -> str:
    return {
        "TFL001": "The file cannot be decoded or parsed; the run goes on with other files.",
        "TFL002": "A rule failed on this file; reported, never raised.",
    }.get(code, code)


def _first_doc_line(doc: str | None) -> str:
    if not doc:
        return ""
    for line in doc.strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


def _descriptor(
    code: str, name: str, summary: str, severity: Severity, enabled: bool
) -> dict[str, Any]:
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary},
        "helpUri": rule_url(code),
        "defaultConfiguration": {"level": _SARIF_LEVEL[severity], "enabled": enabled},
        "properties": {"severity": severity.value},
    }


def _artifact_uri(path: str) -> dict[str, str]:
    """A relative path stays relative (resolved against the checkout root by GitHub code
    scanning, hence ``%SRCROOT%``); an absolute one becomes a file URI."""
    if os.path.isabs(path):
        return {"uri": "file://" + urllib.parse.quote(path.replace(os.sep, "/"), errors="surrogateescape")}
    return {"uri": urllib.parse.quote(path.replace(os.sep, "/"), errors="surrogateescape"), "uriBaseId": "%SRCROOT%"}


def _sarif_fix(d: Diagnostic) -> dict[str, Any]:
    """A SARIF ``fix``: one artifact change with a replacement per edit (1-based
    columns; an insertion is an empty deleted region). SARIF has no notion of fix
    safety: it goes in the fix's property bag."""
    assert d.fix is not None
    return {
        "description": {"text": d.fix.title},
        "artifactChanges": [
            {
                "artifactLocation": _artifact_uri(d.path),
                "replacements": [
                    {
                        "deletedRegion": {
                            "startLine": e.line,
                            "startColumn": e.column + 1,
                            "endLine": e.end_line,
                            "endColumn": e.end_column + 1,
                        },
                        "insertedContent": {"text": e.content},
                    }
                    for e in d.fix.edits
                ],
            }
        ],
        "properties": {"applicability": d.fix.applicability.value},
    }


def format_sarif(
    diagnostics: Sequence[Diagnostic],
    errors: Sequence[tuple[str, str]] = (),
) -> str:
    """One SARIF 2.1.0 log with one run. ``errors`` (path, message) are files that could
    not be read: they become tool execution notifications, and the run is marked as not
    fully successful."""
    from tflint import __version__

    rules = _rule_descriptors()
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    for d in diagnostics:
        region = {
            "startLine": d.line,
            "startColumn": d.column + 1,
            "endLine": max(d.end_line, d.line),
            "endColumn": d.end_column + 1,
        }
        physical: dict[str, Any] = {"artifactLocation": _artifact_uri(d.path), "region": region}
        message = d.message
        if d.cell is not None:
            # a notebook: lines of a cell are not lines of the .ipynb file, so the result
            # points at the notebook and names the cell (no region a viewer would misplace)
            del physical["region"]
            message = f"cell {d.cell}, line {d.line}, column {d.column + 1}: {d.message}"
        result: dict[str, Any] = {
            "ruleId": d.code,
            "level": _SARIF_LEVEL[d.severity],
            "message": {"text": message},
            "locations": [{"physicalLocation": physical}],
        }
        if d.cell is not None:
            result["properties"] = {"cell": d.cell, "cellLine": d.line, "cellColumn": d.column + 1}
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        if d.fix is not None and d.fix.edits and d.cell is None:
            result["fixes"] = [_sarif_fix(d)]
        results.append(result)
    invocation: dict[str, Any] = {"executionSuccessful": not errors}
    if errors:
        invocation["toolExecutionNotifications"] = [
            {
                "level": "error",
                "message": {"text": message},
                "locations": [{"physicalLocation": {"artifactLocation": _artifact_uri(path)}}],
            }
            for path, message in errors
        ]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "tflint",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "invocations": [invocation],
                # relative paths are relative to where tflint ran (SARIF 3.14.14)
                "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri().rstrip("/") + "/"}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


# ---------------------------------------------------------------- GitHub


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def format_github(diagnostics: Iterable[Diagnostic], errors: Sequence[tuple[str, str]] = ()) -> str:
    """GitHub Actions workflow commands, one annotation per finding, and an error
    annotation per file that could not be read (the run is incomplete there)."""
    out = [f"::error file={_escape_property(path)},title=tflint::{_escape_data(message)}\n"
           for path, message in errors]
    for d in diagnostics:
        if d.cell is not None:  # a notebook: a file annotation that names the cell
            props = ",".join([
                f"file={_escape_property(d.path)}",
                f"title={_escape_property(f'{d.code} {d.name} (cell {d.cell}, line {d.line})')}",
            ])
            message = f"cell {d.cell}, line {d.line}, column {d.column + 1}: {d.message}"
            out.append(f"::{_GITHUB_LEVEL[d.severity]} {props}::{_escape_data(message)}\n")
            continue
        props = ",".join(
            [
                f"file={_escape_property(d.path)}",
                f"line={d.line}",
                f"col={d.column + 1}",
                f"endLine={max(d.end_line, d.line)}",
                f"endColumn={d.end_column + 1}",
                f"title={_escape_property(f'{d.code} {d.name}')}",
            ]
        )
        out.append(f"::{_GITHUB_LEVEL[d.severity]} {props}::{_escape_data(d.message)}\n")
    return "".join(out)


# ---------------------------------------------------------------- JUnit


def format_junit(diagnostics: Sequence[Diagnostic], errors: Sequence[tuple[str, str]] = ()) -> str:
    """JUnit XML, as CI systems read test reports: one test suite per file with
    findings, one failing test case per finding (``TFL101 at line:col``); a file that
    could not be read is a test case with an ``error``. With nothing to report, one
    passing test case, so the report is never empty."""
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites", name="tflint", tests=str(len(diagnostics) + len(errors)),
                      failures=str(len(diagnostics)), errors=str(len(errors)))
    by_file: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_file.setdefault(d.path, []).append(d)
    for path, ds in by_file.items():
        suite = ET.SubElement(root, "testsuite", name=path, tests=str(len(ds)), failures=str(len(ds)),
                              errors="0", skipped="0")
        for d in ds:
            at = f"{where(d)}:{d.line}:{d.column + 1}"
            case = ET.SubElement(suite, "testcase", name=f"{d.code} at {at}", classname=path,
                                 file=d.path, line=str(d.line))
            failure = ET.SubElement(case, "failure", message=d.message, type=d.code)
            failure.text = f"{at}: {d.code} {d.message}"
    if errors:
        suite = ET.SubElement(root, "testsuite", name="tflint errors", tests=str(len(errors)),
                              failures="0", errors=str(len(errors)), skipped="0")
        for path, message in errors:
            case = ET.SubElement(suite, "testcase", name=f"read {path}", classname=path, file=path)
            ET.SubElement(case, "error", message=message).text = f"{path}: {message}"
    if not diagnostics and not errors:
        suite = ET.SubElement(root, "testsuite", name="tflint", tests="1", failures="0", errors="0",
                              skipped="0")
        ET.SubElement(suite, "testcase", name="No findings", classname="tflint")
        root.set("tests", "1")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# ---------------------------------------------------------------- GitLab


_GITLAB_SEVERITY = {
    Severity.ERROR: "critical",
    Severity.WARNING: "major",
    Severity.PERF: "minor",
    Severity.INFO: "info",
}


def format_gitlab(diagnostics: Sequence[Diagnostic], errors: Sequence[tuple[str, str]] = ()) -> str:
    """GitLab's Code Quality report (a JSON list of issues with ``description``,
    ``check_name``, ``fingerprint``, ``severity`` and ``location``). The fingerprint
    hashes the path, code, message and the occurrence number of that triple, not the
    line, so that an issue keeps its identity when code above it moves. A notebook
    finding names its cell in the description and points at line 1 of the notebook."""
    import hashlib

    out: list[dict[str, Any]] = []
    seen: Counter[tuple[str, str, str]] = Counter()
    for d in diagnostics:
        key = (d.path, d.code, d.message)
        seen[key] += 1
        fingerprint = hashlib.sha256("\x00".join([*key, str(seen[key])]).encode("utf-8", "surrogateescape")).hexdigest()
        description = f"{d.code} {d.message}"
        line, end = d.line, max(d.end_line, d.line)
        if d.cell is not None:
            description = f"{d.code} cell {d.cell}, line {d.line}: {d.message}"
            line = end = 1
        out.append({
            "description": description,
            "check_name": d.code,
            "fingerprint": fingerprint,
            "severity": _GITLAB_SEVERITY[d.severity],
            "location": {"path": d.path, "lines": {"begin": line, "end": end}},
        })
    for path, message in errors:
        out.append({
            "description": f"tflint could not check this file: {message}",
            "check_name": "tflint-error",
            "fingerprint": hashlib.sha256(f"{path}\x00{message}".encode("utf-8", "surrogateescape")).hexdigest(),
            "severity": "blocker",
            "location": {"path": path, "lines": {"begin": 1, "end": 1}},
        })
    return json.dumps(out, indent=2) + "\n"


def render(
    fmt: str,
    diagnostics: Sequence[Diagnostic],
    errors: Sequence[tuple[str, str]] = (),
    sources: dict[str, list[str]] | None = None,
    fixable: Callable[[Diagnostic], bool] | None = None,
    show_fixes: bool = False,
    color: bool = False,
) -> str:
    if fmt == "text":
        return format_text(diagnostics, sources, fixable, show_fixes, color)
    if fmt == "junit":
        return format_junit(diagnostics, errors)
    if fmt == "gitlab":
        return format_gitlab(diagnostics, errors)
    if fmt == "json":
        return format_json(diagnostics)
    if fmt == "sarif":
        return format_sarif(diagnostics, errors)
    if fmt == "github":
        return format_github(diagnostics, errors)
    raise ValueError(f"unknown output format {fmt!r}")
