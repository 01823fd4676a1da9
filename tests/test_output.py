"""Output formats: text, JSON, SARIF 2.1.0 (validated against the official schema), GitHub."""

from __future__ import annotations

import json
import os
import urllib.parse
from pathlib import Path

import pytest

from conftest import BAD_SRC, write
from tflint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from tflint.output import format_github, format_json, format_sarif, format_statistics, format_text

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def _d(
    code: str = "TFL101",
    severity: Severity = Severity.INFO,
    fix: Fix | None = None,
    path: str = "pkg/a.py",
    message: str = "msg",
) -> Diagnostic:
    return Diagnostic(code, "print-in-traced-code", message, path, 4, 4, 4, 12, severity, fix)


def test_text_is_flake8_format_with_1_based_column() -> None:
    assert format_text([_d()]) == "pkg/a.py:4:5: TFL101 msg\n"


def test_text_show_source_keeps_tabs_under_the_caret() -> None:
    lines = ["a\n", "b\n", "c\n", "\tx = print(y)\n"]
    d = Diagnostic("TFL101", "n", "m", "a.py", 4, 5, 4, 13, Severity.INFO)
    assert format_text([d], {"a.py": lines}) == "a.py:4:6: TFL101 m\n\tx = print(y)\n\t    ^\n"


def test_statistics_counts_per_code_like_flake8() -> None:
    ds = [_d("TFL102", message="first"), _d("TFL101"), _d("TFL102", message="second")]
    assert format_statistics(ds) == "1     TFL101 msg\n2     TFL102 first\n"


def test_json_fields() -> None:
    fix = Fix("Use tf.print", Applicability.SAFE, (Edit(4, 4, 4, 9, "tf.print"),))
    [obj] = json.loads(format_json([_d(fix=fix)]))
    assert obj == {
        "code": "TFL101",
        "name": "print-in-traced-code",
        "message": "msg",
        "severity": "info",
        "filename": "pkg/a.py",
        "location": {"row": 4, "column": 5},
        "end_location": {"row": 4, "column": 13},
        "url": "https://github.com/tflint-dev/tflint/blob/main/docs/rules/TFL101.md",
        "fix": {
            "title": "Use tf.print",
            "applicability": "safe",
            "edits": [
                {
                    "content": "tf.print",
                    "location": {"row": 4, "column": 5},
                    "end_location": {"row": 4, "column": 10},
                }
            ],
        },
        "cell": None,
    }
    assert json.loads(format_json([_d()]))[0]["fix"] is None
    assert format_json([]).strip() == "[]"


@pytest.mark.parametrize(
    "severity, level",
    [
        (Severity.ERROR, "error"),
        (Severity.WARNING, "warning"),
        (Severity.PERF, "warning"),
        (Severity.INFO, "notice"),
    ],
)
def test_github_annotation(severity: Severity, level: str) -> None:
    assert format_github([_d(severity=severity)]) == (
        f"::{level} file=pkg/a.py,line=4,col=5,endLine=4,endColumn=13,"
        "title=TFL101 print-in-traced-code::msg\n"
    )


def test_github_escapes_properties_and_data() -> None:
    out = format_github([_d(path="a,b:c%.py", message="50% of\nlines")])
    assert "file=a%2Cb%3Ac%25.py," in out
    assert out.endswith("::50%25 of%0Alines\n")
    assert out.count("\n") == 1


# ------------------------------------------------------------------ SARIF


def _validate_sarif(log: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    jsonschema.Draft4Validator.check_schema(schema)
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(log)


@pytest.mark.parametrize(
    "severity, level",
    [
        (Severity.ERROR, "error"),
        (Severity.WARNING, "warning"),
        (Severity.PERF, "warning"),
        (Severity.INFO, "note"),
    ],
)
def test_sarif_levels_and_region(severity: Severity, level: str) -> None:
    log = json.loads(format_sarif([_d(severity=severity, path="dir with space/a.py")]))
    _validate_sarif(log)
    [res] = log["runs"][0]["results"]
    assert res["level"] == level
    assert res["ruleId"] == "TFL101"
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "dir%20with%20space/a.py", "uriBaseId": "%SRCROOT%"}
    root = log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert root.startswith("file://") and root.endswith("/")
    assert urllib.parse.unquote(urllib.parse.urlparse(root).path).rstrip("/") == os.getcwd().rstrip("/")
    assert loc["region"] == {"startLine": 4, "startColumn": 5, "endLine": 4, "endColumn": 13}


def test_sarif_with_read_errors_is_valid_and_says_so() -> None:
    log = json.loads(
        format_sarif([], errors=[("/abs/b.py", "cannot read file: Permission denied")])
    )
    _validate_sarif(log)
    inv = log["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False
    assert inv["toolExecutionNotifications"][0]["message"]["text"].startswith("cannot read file")


def test_sarif_from_cli_validates_against_the_official_schema(project: Path, run) -> None:
    write(project, "a.py", BAD_SRC)
    write(project, "broken.py", "import tensorflow as tf\ndef f(:\n")
    r = run("check", "--output-format", "sarif", "a.py", "broken.py")
    assert r.rc == 1
    log = json.loads(r.out)
    _validate_sarif(log)
    run_ = log["runs"][0]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "tflint"
    ids = [rule["id"] for rule in driver["rules"]]
    assert ids == sorted(ids) and {"TFL001", "TFL002", "TFL101"} <= set(ids)
    tfl101 = driver["rules"][ids.index("TFL101")]
    assert tfl101["name"] == "print-in-traced-code"
    assert tfl101["helpUri"].endswith("/rules/TFL101.md")
    assert tfl101["defaultConfiguration"]["level"] == "note"
    assert tfl101["shortDescription"]["text"]
    results = run_["results"]
    assert [
        (x["ruleId"], x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for x in results
    ] == [("TFL101", "a.py"), ("TFL001", "broken.py")]
    for x in results:
        assert driver["rules"][x["ruleIndex"]]["id"] == x["ruleId"]
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startColumn"] == 5
    assert run_["columnKind"] == "unicodeCodePoints"


def test_json_from_cli(project: Path, run) -> None:
    write(project, "a.py", BAD_SRC)
    r = run("check", "--output-format", "json", "a.py")
    assert r.rc == 1
    [obj] = json.loads(r.out)
    assert (obj["code"], obj["filename"], obj["location"], obj["severity"]) == (
        "TFL101",
        "a.py",
        {"row": 4, "column": 5},
        "info",
    )
    assert obj["end_location"] == {"row": 4, "column": 13}


def test_json_and_sarif_with_no_findings_are_still_documents(project: Path, run) -> None:
    write(project, "a.py", "import tensorflow as tf\n")
    r = run("check", "--output-format", "json", "a.py")
    assert (r.rc, json.loads(r.out)) == (0, [])
    r = run("check", "--output-format", "sarif", "a.py")
    assert r.rc == 0
    log = json.loads(r.out)
    _validate_sarif(log)
    assert log["runs"][0]["results"] == []


def test_github_from_cli(project: Path, run) -> None:
    write(project, "a.py", BAD_SRC)
    r = run("check", "--output-format", "github", "a.py")
    assert r.rc == 1
    assert r.out.startswith(
        "::notice file=a.py,line=4,col=5,endLine=4,endColumn=13,"
        "title=TFL101 print-in-traced-code::"
    )


def test_github_annotates_files_that_could_not_be_read() -> None:
    out = format_github([_d()], errors=[("gone,1.py", "cannot read file: Permission denied")])
    first, second = out.splitlines()
    assert first == "::error file=gone%2C1.py,title=tflint::cannot read file: Permission denied"
    assert second.startswith("::notice file=")
