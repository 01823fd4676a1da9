"""Config loading: pyproject.toml ``[tool.tflint]``, setup.cfg ``[tflint]``, CLI on top."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import BAD_SRC, write
from tflint.config import (
    ConfigError,
    ConfigFile,
    find_config,
    parse_per_file_ignores,
    resolve_settings,
)

WRAPPED_SRC = "import mylib\n@mylib.compiled\ndef f(x):\n    print(x)\n    return x\n"


def _settings(root: Path, cli: dict | None = None, **kw):
    return resolve_settings(cli or {}, cwd=str(root), **kw)


def test_pyproject_values_and_underscore_keys(tmp_path: Path) -> None:
    write(
        tmp_path,
        "pyproject.toml",
        """
[tool.tflint]
select = ["TFL1", "TFL301"]
ignore = ["TFL104"]
extend_select = ["TFL401"]
per-file-ignores = { "tests/*" = ["TFL101"], "*_gen.py" = ["TFL1"] }
exclude = ["generated", "sub/dir"]
extend-exclude = ["third_party"]
force_exclude = true
tf-function-wrappers = ["mylib.compiled"]
""",
    )
    s, cfg = _settings(tmp_path)
    assert cfg is not None and cfg.kind == "pyproject"
    assert s.select == ["TFL1", "TFL301"]
    assert s.ignore == ["TFL104"]
    assert s.extend_select == ["TFL401"]
    # patterns with a separator are anchored at the config's folder, as in flake8
    assert s.per_file_ignores == {str(tmp_path / "tests" / "*"): ["TFL101"], "*_gen.py": ["TFL1"]}
    assert s.exclude == ["generated", str(tmp_path / "sub" / "dir")]
    assert s.extend_exclude == ["third_party"]
    assert s.force_exclude is True
    assert s.tf_function_wrappers == ["mylib.compiled"]


def test_setup_cfg_lists_and_flake8_per_file_ignores(tmp_path: Path) -> None:
    write(
        tmp_path,
        "setup.cfg",
        """
[metadata]
name = x

[tflint]
select = TFL1,
    TFL301
ignore = TFL104 TFL105
per-file-ignores =
    tests/*:TFL101,TFL102
    setup.py scripts/*.py: TFL1
force-exclude = yes
tf_function_wrappers = mylib.compiled, other.wrap
""",
    )
    s, cfg = _settings(tmp_path)
    assert cfg is not None and cfg.kind == "setup.cfg"
    assert s.select == ["TFL1", "TFL301"]
    assert s.ignore == ["TFL104", "TFL105"]
    assert s.per_file_ignores == {
        str(tmp_path / "tests" / "*"): ["TFL101", "TFL102"],
        "setup.py": ["TFL1"],
        str(tmp_path / "scripts" / "*.py"): ["TFL1"],
    }
    assert s.force_exclude is True
    assert s.tf_function_wrappers == ["mylib.compiled", "other.wrap"]


def test_search_walks_up_and_skips_files_without_a_tflint_section(tmp_path: Path) -> None:
    write(tmp_path, "setup.cfg", "[tflint]\nignore = TFL101\n")
    write(tmp_path, "pkg/pyproject.toml", "[tool.black]\nline-length = 100\n")
    write(tmp_path, "pkg/setup.cfg", "[flake8]\nmax-line-length = 100\n")
    deep = tmp_path / "pkg" / "sub"
    deep.mkdir()
    assert find_config(str(deep)) == ConfigFile(str(tmp_path / "setup.cfg"), "setup.cfg")
    s, _ = _settings(deep)
    assert s.ignore == ["TFL101"]


def test_pyproject_wins_over_setup_cfg_in_the_same_folder(tmp_path: Path) -> None:
    write(tmp_path, "setup.cfg", "[tflint]\nignore = TFL101\n")
    write(tmp_path, "pyproject.toml", "[tool.tflint]\nignore = ['TFL102']\n")
    s, cfg = _settings(tmp_path)
    assert cfg is not None and cfg.kind == "pyproject"
    assert s.ignore == ["TFL102"]


def test_nearest_config_wins(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[tool.tflint]\nignore = ['TFL101']\n")
    write(tmp_path, "inner/pyproject.toml", "[tool.tflint]\nignore = ['TFL102']\n")
    s, _ = _settings(tmp_path / "inner")
    assert s.ignore == ["TFL102"]


def test_cli_replaces_and_extends(tmp_path: Path) -> None:
    write(
        tmp_path,
        "pyproject.toml",
        """
[tool.tflint]
select = ["TFL1"]
ignore = ["TFL101"]
extend-select = ["TFL301"]
extend-exclude = ["a"]
force-exclude = true
""",
    )
    s, _ = _settings(
        tmp_path,
        {
            "ignore": ["TFL102"],
            "extend-select": ["TFL302"],
            "extend-exclude": ["b,c"],
            "force-exclude": False,
        },
    )
    assert s.select == ["TFL1"]
    assert s.ignore == ["TFL102"]  # replaced
    assert s.extend_select == ["TFL301", "TFL302"]  # added
    assert s.extend_exclude == ["a", "b", "c"]
    assert s.force_exclude is False


@pytest.mark.parametrize(
    "content, message",
    [
        ("[tool.tflint]\nselct = ['TFL101']\n", "unknown key 'selct' in [tool.tflint]"),
        ("[tool.tflint]\nignore = ['TFL999']\n", "unknown rule code or prefix 'TFL999'"),
        ("[tool.tflint]\nselect = ['E501']\n", "unknown rule code or prefix 'E501'"),
        (
            "[tool.tflint]\nper-file-ignores = { 'x.py' = ['TFL77'] }\n",
            "unknown rule code or prefix 'TFL77'",
        ),
        ("[tool.tflint]\nforce-exclude = 'maybe'\n", "force-exclude must be true or false"),
        ("[tool.tflint]\nselect = 3\n", "select must be a list of strings"),
        ("[tool.tflint]\nselect = [\n", "invalid TOML"),
    ],
)
def test_pyproject_errors(tmp_path: Path, content: str, message: str) -> None:
    write(tmp_path, "pyproject.toml", content)
    with pytest.raises(ConfigError, match=re.escape(message)):
        _settings(tmp_path)


@pytest.mark.parametrize(
    "content, message",
    [
        ("[tflint]\nselct = TFL101\n", "unknown key 'selct' in [tflint]"),
        ("[tflint]\nextend-ignores = TFL101\n", "unknown key 'extend-ignores'"),
        ("[tflint]\nignore = TFL1O1\n", "unknown rule code or prefix 'TFL1O1'"),
        ("[tflint]\nper-file-ignores = tests/*\n", "expected entries of the form 'glob:CODE,CODE'"),
        (
            "[tflint]\nper-file-ignores = tests/*:\n",
            "expected entries of the form 'glob:CODE,CODE'",
        ),
        (
            "[tflint]\nper-file-ignores = tests/*:tfl101\n",
            "expected entries of the form 'glob:CODE,CODE'",
        ),
    ],
)
def test_setup_cfg_errors(tmp_path: Path, content: str, message: str) -> None:
    write(tmp_path, "setup.cfg", content)
    with pytest.raises(ConfigError, match=re.escape(message)):
        _settings(tmp_path)


def test_unknown_code_on_the_command_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--select: unknown rule code or prefix 'TFL9X'"):
        _settings(tmp_path, {"select": ["TFL101,TFL9X"]}, isolated=True)


def test_explicit_config_and_isolated(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[tool.tflint]\nignore = ['TFL101']\n")
    other = write(tmp_path, "conf/custom.cfg", "[tflint]\nignore = TFL102\n")
    assert _settings(tmp_path, config_path=str(other))[0].ignore == ["TFL102"]
    assert _settings(tmp_path, isolated=True)[0].ignore == []
    with pytest.raises(ConfigError, match="config file not found"):
        _settings(tmp_path, config_path=str(tmp_path / "nope.toml"))


@pytest.mark.parametrize(
    "value",
    [
        "tests/*:TFL101,TFL102",
        "tests/*:TFL101 TFL102",
        "a.py b.py:TFL101\nc.py:TFL102,TFL103",
        "a.py,b.py : TFL101 , TFL102   c/*.py:TFL3",
        "",
    ],
)
def test_per_file_ignores_parse_like_flake8(value: str) -> None:
    utils = pytest.importorskip("flake8.utils")
    assert parse_per_file_ignores(value) == utils.parse_files_to_codes_mapping(value)


# ------------------------------------------------------------------ through the CLI


def test_cli_reports_config_errors_in_one_line(project: Path, run) -> None:
    write(project, "pyproject.toml", "[tool.tflint]\nbogus = 1\n")
    write(project, "a.py", BAD_SRC)
    r = run("check", "a.py")
    assert r.rc == 2
    assert r.out == ""
    assert r.err.count("\n") == 1
    assert r.err.startswith("tflint: error: ") and "unknown key 'bogus'" in r.err


def test_cli_unknown_code_exit_2(project: Path, run) -> None:
    write(project, "a.py", BAD_SRC)
    r = run("check", "--ignore", "TFL1234", "a.py")
    assert r.rc == 2 and "unknown rule code or prefix 'TFL1234'" in r.err and r.out == ""


def test_config_from_parent_folder_applies(
    project: Path, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(project, "pyproject.toml", "[tool.tflint]\nignore = ['TFL101']\n")
    write(project, "sub/a.py", BAD_SRC)
    monkeypatch.chdir(project / "sub")
    assert run("check", "a.py").rc == 0
    r = run("check", "--ignore", "TFL102", "a.py")  # the flag replaces the config's ignore
    assert r.rc == 1 and "TFL101" in r.out
    assert run("check", "--isolated", "a.py").rc == 1


def test_tf_function_wrappers_from_config_reach_the_engine(project: Path, run) -> None:
    write(project, "a.py", WRAPPED_SRC)
    assert run("check", "a.py").rc == 0
    write(project, "setup.cfg", "[tflint]\ntf-function-wrappers = mylib.compiled\n")
    os.remove(project / "pyproject.toml")
    r = run("check", "a.py")
    assert r.rc == 1 and r.out.startswith("a.py:4:5: TFL101 ")


def test_tf_function_wrappers_flag(project: Path, run) -> None:
    write(project, "a.py", WRAPPED_SRC)
    r = run("check", "--tf-function-wrappers", "other.x,mylib.compiled", "a.py")
    assert r.rc == 1 and "a.py:4:5: TFL101" in r.out


def test_per_file_ignores_in_config_are_relative_to_the_config(
    project: Path, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        project, "pyproject.toml", "[tool.tflint]\nper-file-ignores = { 'tests/*' = ['TFL101'] }\n"
    )
    write(project, "tests/t.py", BAD_SRC)
    write(project, "src/tests/t.py", BAD_SRC)
    monkeypatch.chdir(project / "src")
    r = run("check", str(project / "tests"), "tests")
    assert r.rc == 1
    # only the file under the config's tests/ is silenced, not src/tests/
    assert [line.split(":")[0] for line in r.out.splitlines()] == [os.path.join("tests", "t.py")]
