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

FORMATS = ("text", "json", "sarif", "github")

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


def format_text(
    diagnostics: Iterable[Diagnostic],
    sources: dict[str, list[str]] | None = None,
    fixable: Callable[[Diagnostic], bool] | None = None,
) -> str:
    """flake8's default format, ``path:line:col: CODE message``. With ``sources``
    (path -> lines), each finding is followed by its source line and a caret, as
    flake8's ``--show-source`` prints it. With ``fixable`` (``--fix``,
    ``--unsafe-fixes``), findings it accepts get ruff's ``[*]`` mark after the code."""
    out: list[str] = []
    for d in diagnostics:
        mark = "[*] " if fixable is not None and fixable(d) else ""
        out.append(f"{d.path}:{d.line}:{d.column + 1}: {d.code} {mark}{d.message}")
        if sources is not None:
            lines = sources.get(d.path) or []
            if 0 < d.line <= len(lines):
                line = lines[d.line - 1].rstrip("\r\n")
                # keep tabs so that the caret lines up under the same indentation
                indent = "".join(c if c.isspace() else " " for c in line[: d.column])
                out.append(line)
                out.append(f"{indent}^")
    return "".join(s + "\n" for s in out)


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
        result: dict[str, Any] = {
            "ruleId": d.code,
            "level": _SARIF_LEVEL[d.severity],
            "message": {"text": d.message},
            "locations": [
                {"physicalLocation": {"artifactLocation": _artifact_uri(d.path), "region": region}}
            ],
        }
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        if d.fix is not None and d.fix.edits:
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


def render(
    fmt: str,
    diagnostics: Sequence[Diagnostic],
    errors: Sequence[tuple[str, str]] = (),
    sources: dict[str, list[str]] | None = None,
    fixable: Callable[[Diagnostic], bool] | None = None,
) -> str:
    if fmt == "text":
        return format_text(diagnostics, sources, fixable)
    if fmt == "json":
        return format_json(diagnostics)
    if fmt == "sarif":
        return format_sarif(diagnostics, errors)
    if fmt == "github":
        return format_github(diagnostics, errors)
    raise ValueError(f"unknown output format {fmt!r}")
