"""Jupyter notebooks: found in folder walks, cells linted as one module, findings per
cell, fixes written back into the JSON with everything else kept, bad input as TFL001."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import write
from tflint import notebook

IMPORT = "import tensorflow as tf\n"
BAD_FN = "@tf.function\ndef f(x):\n    print(x)\n    return x\n"  # TFL101 at 3:5 of the cell
SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def _cell(kind: str, source: Any, **extra: Any) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": kind, "metadata": {}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    cell.update(extra)
    return cell


def _nb(*cells: dict[str, Any], indent: int | None = 1) -> str:
    """A valid nbformat 4.4 notebook (no cell ids), serialised as Jupyter does."""
    doc = {
        "cells": list(cells),
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    return json.dumps(doc, indent=indent, ensure_ascii=False) + "\n"


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


# ------------------------------------------------------------------ finding and reporting


def test_findings_carry_cell_and_cell_line(project: Path, run) -> None:
    write(project, "nb.ipynb", _nb(_cell("markdown", ["# Title"]), _cell("code", _lines(IMPORT)),
                                   _cell("code", _lines(BAD_FN))))
    r = run("check", "nb.ipynb")
    assert r.rc == 1
    # cells are numbered among all cells (markdown included), as ruff and the editors do
    assert r.out.startswith("nb.ipynb:cell 3:3:5: TFL101 "), r.out
    assert r.out.count("\n") == 1


def test_a_cell_in_newer_python_syntax_is_linted(project: Path, run) -> None:
    """An f-string that reuses its quotes (Python 3.12) in a cell: under 3.11 CPython
    refuses it, libcst reads it; the cell is linted, not reported as broken."""
    cell = 'd = {"a": 1}\nprint(f"{d["a"]}")\n' + BAD_FN
    write(project, "nb.ipynb", _nb(_cell("code", IMPORT), _cell("code", _lines(cell))))
    r = run("check", "nb.ipynb")
    assert r.out.startswith("nb.ipynb:cell 2:5:5: TFL101 "), r.out
    assert "TFL001" not in r.out


def test_folder_walk_finds_notebooks(project: Path, run) -> None:
    write(project, "pkg/nb.ipynb", _nb(_cell("code", IMPORT + BAD_FN)))
    r = run("check", "pkg")
    assert r.rc == 1 and "pkg/nb.ipynb:cell 1:4:5: TFL101" in r.out, r.out


def test_names_from_earlier_cells_are_seen(project: Path, run) -> None:
    """`tf` imported in cell 1 makes cell 2's decorator tf.function; the same function
    alone (no import anywhere) is not TensorFlow code."""
    write(project, "a.ipynb", _nb(_cell("code", IMPORT), _cell("code", BAD_FN)))
    write(project, "b.ipynb", _nb(_cell("code", "tf = object()\n"), _cell("code", BAD_FN)))
    assert "a.ipynb:cell 2:3:5: TFL101" in run("check", "a.ipynb").out
    assert run("check", "b.ipynb").out == ""


def test_ipython_magics_and_shell_lines_are_masked(project: Path, run) -> None:
    cell1 = "%matplotlib inline\n!pip install -q tensorflow \\\n    keras\nimport tensorflow as tf\nfiles = !ls\n"
    cell2 = ("@tf.function\ndef f(x):\n    print(x)\n    tf.shape?\n    %time y = 1\n    return x\n")
    cell3 = "%%timeit\nthis is not python\n"
    doc = 'x = """\n%not a magic in a string\n"""\n'
    write(project, "nb.ipynb", _nb(_cell("code", cell1), _cell("code", cell2), _cell("code", cell3),
                                   _cell("code", doc)))
    r = run("check", "nb.ipynb")
    assert r.rc == 1
    assert r.out.splitlines() == [
        "nb.ipynb:cell 2:3:5: TFL101 " + r.out.split("TFL101 ", 1)[1].splitlines()[0]
    ], r.out


def test_a_timed_cell_is_linted(project: Path, run) -> None:
    """``%%time`` runs its body as Python in the notebook's namespace: a map call made
    there makes ``mapper`` traced (set 45's advex notebook: the cell was left out, and
    the np.random draw fixed at trace went unseen). The magic line comes back unchanged
    when a fix is written."""
    cell1 = IMPORT + "import numpy as np\n\ndef mapper(img):\n    return img + np.random.randint(0, 100)\n"
    cell2 = "%%time\nds = tf.data.Dataset.range(5).map(mapper)\n"
    write(project, "nb.ipynb", _nb(_cell("code", cell1), _cell("code", cell2)))
    assert "nb.ipynb:cell 1:" in run("check", "--select", "TFL103", "nb.ipynb").out
    write(project, "nb.ipynb", _nb(_cell("code", cell1), _cell("code", "%%bash\necho map\n")))
    assert run("check", "--select", "TFL103", "nb.ipynb").out == ""


def test_noqa_works_in_cells(project: Path, run) -> None:
    quiet = BAD_FN.replace("print(x)\n", "print(x)  # noqa: TFL101\n")
    write(project, "nb.ipynb", _nb(_cell("code", IMPORT), _cell("code", quiet)))
    assert (run("check", "nb.ipynb").rc, run("check", "nb.ipynb").out) == (0, "")
    r = run("check", "--disable-noqa", "nb.ipynb")
    assert "cell 2:3:5: TFL101" in r.out


def test_per_file_ignores_apply_to_notebooks(project: Path, run) -> None:
    write(project, "nb.ipynb", _nb(_cell("code", IMPORT + BAD_FN)))
    assert run("check", "--per-file-ignores", "*.ipynb:TFL101", "nb.ipynb").rc == 0


def test_json_output_has_cell_and_cell_relative_location(project: Path, run) -> None:
    write(project, "nb.ipynb", _nb(_cell("code", IMPORT), _cell("code", BAD_FN)))
    r = run("check", "--output-format", "json", "nb.ipynb")
    (d,) = json.loads(r.out)
    assert (d["filename"], d["cell"], d["location"]) == ("nb.ipynb", 2, {"row": 3, "column": 5})
    edit = d["fix"]["edits"][0]
    assert (edit["cell"], edit["location"], edit["content"]) == (2, {"row": 3, "column": 5}, "tf.print(x)")


def test_json_output_cell_is_null_for_python_files(project: Path, run) -> None:
    write(project, "a.py", IMPORT + BAD_FN)
    (d,) = json.loads(run("check", "--output-format", "json", "a.py").out)
    assert d["cell"] is None and d["location"] == {"row": 4, "column": 5}


def test_sarif_and_github_point_at_the_notebook(project: Path, run) -> None:
    write(project, "nb.ipynb", _nb(_cell("code", IMPORT), _cell("code", BAD_FN)))
    log = json.loads(run("check", "--output-format", "sarif", "nb.ipynb").out)
    (res,) = log["runs"][0]["results"]
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "nb.ipynb" and "region" not in loc
    assert res["properties"] == {"cell": 2, "cellLine": 3, "cellColumn": 5}
    assert res["message"]["text"].startswith("cell 2, line 3, column 5: ")
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(log)
    gh = run("check", "--output-format", "github", "nb.ipynb").out
    assert gh.startswith("::notice file=nb.ipynb,title=TFL101 print-in-traced-code (cell 2%2C line 3)::cell 2, ")


# ------------------------------------------------------------------ fixing


def test_fix_changes_only_the_edited_cells_source(project: Path, run) -> None:
    outputs = [{"name": "stdout", "output_type": "stream", "text": ["héllo\n"]}]
    text = _nb(
        _cell("markdown", ["Some *text* \u00e9\n", "more"]),
        _cell("code", _lines("%matplotlib inline\n" + IMPORT), execution_count=1, outputs=outputs),
        _cell("code", _lines(BAD_FN.rstrip("\n")), metadata={"tags": ["x"], "z": 1, "a": 2}),
        _cell("code", _lines("def g(x):\n    return x\n")),
    )
    path = write(project, "nb.ipynb", text)
    r = run("check", "--fix", "nb.ipynb")
    assert r.rc == 0, (r.out, r.err)
    new = path.read_text()
    assert new == text.replace('"    print(x)\\n"', '"    tf.print(x)\\n"'), new
    assert run("check", "nb.ipynb").rc == 0


@pytest.mark.parametrize("indent", [None, 2, 4])
def test_fix_keeps_other_formatting(project: Path, run, indent: int | None) -> None:
    text = _nb(_cell("code", IMPORT + BAD_FN), indent=indent).rstrip("\n")  # no trailing newline
    path = write(project, "nb.ipynb", text)
    assert run("check", "--fix", "nb.ipynb").rc == 0
    assert path.read_text() == text.replace("    print(x)", "    tf.print(x)")


def test_fix_keeps_ascii_escaping_and_crlf_cells(project: Path, run) -> None:
    src = ["# caf\u00e9\r\n", "import tensorflow as tf\r\n", "@tf.function\r\n", "def f(x):\r\n",
           "    print(x)\r\n", "    return x"]
    doc = json.loads(_nb(_cell("code", src)))
    text = json.dumps(doc, indent=1, ensure_ascii=True) + "\n"
    path = write(project, "nb.ipynb", text)
    assert run("check", "nb.ipynb").out.startswith("nb.ipynb:cell 1:5:5: TFL101")
    assert run("check", "--fix", "nb.ipynb").rc == 0
    assert path.read_text() == text.replace('"    print(x)\\r\\n"', '"    tf.print(x)\\r\\n"')


def test_fix_with_string_source_stays_a_string(project: Path, run) -> None:
    text = _nb(_cell("code", IMPORT), _cell("code", BAD_FN))
    path = write(project, "nb.ipynb", text)
    assert run("check", "--fix", "nb.ipynb").rc == 0
    assert path.read_text() == text.replace("    print(x)", "    tf.print(x)")


def test_fix_keeps_masked_ipython_lines(project: Path, run) -> None:
    cell = IMPORT + "@tf.function\ndef f(x):\n    !echo hi\n    print(x)\n    return x\n"
    text = _nb(_cell("code", _lines(cell)))
    path = write(project, "nb.ipynb", text)
    assert run("check", "--fix", "nb.ipynb").rc == 0
    assert path.read_text() == text.replace('"    print(x)\\n"', '"    tf.print(x)\\n"')


def test_diff_shows_cells_and_writes_nothing(project: Path, run) -> None:
    text = _nb(_cell("code", IMPORT), _cell("code", BAD_FN))
    path = write(project, "nb.ipynb", text)
    r = run("check", "--diff", "nb.ipynb")
    assert r.rc == 1
    assert r.out.startswith("--- nb.ipynb:cell 2\n+++ nb.ipynb:cell 2\n"), r.out
    assert "-    print(x)\n+    tf.print(x)\n" in r.out
    assert path.read_text() == text


def test_fix_never_touches_a_cell_that_does_not_parse(project: Path, run) -> None:
    text = _nb(_cell("code", IMPORT + BAD_FN), _cell("code", "def broken(:\n    print(x)\n"))
    path = write(project, "nb.ipynb", text)
    r = run("check", "--fix", "nb.ipynb")
    assert r.rc == 1 and "nb.ipynb:cell 2:1:12: TFL001" in r.out
    assert path.read_text() == text.replace("    print(x)\\n    return", "    tf.print(x)\\n    return")


# ------------------------------------------------------------------ bad input


def test_no_cells_is_clean(project: Path, run) -> None:
    write(project, "nb.ipynb", _nb())
    assert (run("check", "nb.ipynb").rc, run("check", "nb.ipynb").out) == (0, "")


def test_only_markdown_is_clean(project: Path, run) -> None:
    write(project, "nb.ipynb", _nb(_cell("markdown", "print(x) in @tf.function")))
    assert (run("check", "nb.ipynb").rc, run("check", "nb.ipynb").out) == (0, "")


def test_nbformat_3_is_read(project: Path, run) -> None:
    v3 = {
        "metadata": {"name": ""},
        "nbformat": 3,
        "nbformat_minor": 0,
        "worksheets": [{"cells": [
            {"cell_type": "heading", "level": 1, "metadata": {}, "source": ["Title"]},
            {"cell_type": "code", "collapsed": False, "input": _lines(IMPORT + BAD_FN),
             "language": "python", "metadata": {}, "outputs": []},
        ], "metadata": {}}],
    }
    text = json.dumps(v3, indent=1) + "\n"
    path = write(project, "old.ipynb", text)
    assert run("check", "old.ipynb").out.startswith("old.ipynb:cell 2:4:5: TFL101")
    assert run("check", "--fix", "old.ipynb").rc == 0
    assert path.read_text() == text.replace('"    print(x)\\n"', '"    tf.print(x)\\n"')


def test_invalid_json_is_tfl001_and_the_run_goes_on(project: Path, run) -> None:
    write(project, "bad.ipynb", '{"cells": [\n  {"cell_type": "code",,}\n')
    write(project, "good.py", IMPORT + BAD_FN)
    r = run("check", ".")
    assert r.rc == 1
    assert r.out.splitlines()[0].startswith("bad.ipynb:2:24: TFL001 not a valid notebook: invalid JSON"), r.out
    assert "good.py:4:5: TFL101" in r.out


def test_schema_invalid_notebook_is_tfl001(project: Path, run) -> None:
    write(project, "nb.ipynb", json.dumps({"cells": [{"cell_type": "code"}], "metadata": {},
                                           "nbformat": 4, "nbformat_minor": 4}))
    r = run("check", "nb.ipynb")
    assert r.rc == 1 and r.out.startswith("nb.ipynb:1:1: TFL001 not a valid notebook (nbformat 4): "), r.out


def test_cell_ids_in_an_nbformat_4_4_file_are_no_error(project: Path, run) -> None:
    """stellargraph's notebooks: nbformat 4.4 with cell ids (a 4.5 key). Jupyter and
    nbformat open them; the strict schema of 4.4 says 'id' was unexpected."""
    cell = dict(_cell("code", IMPORT + BAD_FN), id="a1b2c3")
    write(project, "nb.ipynb", _nb(cell))
    rows = run("check", "nb.ipynb").out.splitlines()
    assert len(rows) == 1 and rows[0].startswith("nb.ipynb:cell 1:4:5: TFL101"), rows


def test_schema_invalid_notebook_still_has_its_code_linted(project: Path, run) -> None:
    cell = _cell("code", IMPORT + BAD_FN)
    del cell["execution_count"]
    write(project, "nb.ipynb", _nb(cell))
    rows = run("check", "nb.ipynb").out.splitlines()
    assert rows[0].startswith("nb.ipynb:1:1: TFL001 not a valid notebook (nbformat 4): 'execution_count'"), rows
    assert rows[1].startswith("nb.ipynb:cell 1:4:5: TFL101"), rows


@pytest.mark.parametrize("text", ["[]", '"text"', '{"nbformat": 99, "nbformat_minor": 0}', "", "{}",
                                  '{"cells": {}, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}',
                                  '{"cells": [{"cell_type": "code", "source": 3}], "metadata": {}, '
                                  '"nbformat": 4, "nbformat_minor": 4}'])
def test_not_a_notebook_is_tfl001(project: Path, run, text: str) -> None:
    write(project, "nb.ipynb", text)
    r = run("check", "nb.ipynb")
    assert r.rc == 1 and r.out.startswith("nb.ipynb:") and " TFL001 not a valid notebook" in r.out, r.out


def test_not_utf8_is_tfl001(project: Path, run) -> None:
    write(project, "nb.ipynb", _nb(_cell("code", "# caf\u00e9\n")).encode("latin-1"))
    r = run("check", "nb.ipynb")
    assert r.rc == 1 and "TFL001 not a valid notebook: not UTF-8" in r.out, r.out


def test_cell_that_does_not_parse_is_tfl001_with_its_cell(project: Path, run) -> None:
    write(project, "nb.ipynb", _nb(_cell("code", IMPORT), _cell("code", "x = (\n"), _cell("code", BAD_FN)))
    r = run("check", "nb.ipynb")
    assert r.rc == 1
    rows = r.out.splitlines()
    assert rows[0].startswith("nb.ipynb:cell 2:1:5: TFL001 syntax error: "), r.out
    assert rows[1].startswith("nb.ipynb:cell 3:3:5: TFL101"), r.out


def test_top_level_await_is_not_a_syntax_error(project: Path, run) -> None:
    write(project, "nb.ipynb", _nb(_cell("code", "import asyncio\nawait asyncio.sleep(0)\n")))
    assert (run("check", "nb.ipynb").rc, run("check", "nb.ipynb").out) == (0, "")


def test_source_as_list_or_string_and_crlf(project: Path, run) -> None:
    crlf = (IMPORT + BAD_FN).replace("\n", "\r\n")
    write(project, "a.ipynb", _nb(_cell("code", _lines(crlf))))
    write(project, "b.ipynb", _nb(_cell("code", crlf)))
    for name in ("a.ipynb", "b.ipynb"):
        assert run("check", name).out.startswith(f"{name}:cell 1:4:5: TFL101"), name


def test_other_kernel_language_is_not_linted(project: Path, run) -> None:
    doc = json.loads(_nb(_cell("code", "print(x) <- 1\n")))
    doc["metadata"] = {"kernelspec": {"name": "ir", "display_name": "R", "language": "R"},
                       "language_info": {"name": "R"}}
    write(project, "r.ipynb", json.dumps(doc))
    assert (run("check", "r.ipynb").rc, run("check", "r.ipynb").out) == (0, "")


# ------------------------------------------------------------------ the module itself


def test_locate_finds_source_spans() -> None:
    text = _nb(_cell("code", ["a\n", "b"]), _cell("code", "c"))
    spans = notebook.locate(text, {("cells", 0, "source"), ("cells", 1, "source")})
    assert json.loads(text[slice(*spans[("cells", 0, "source")])]) == ["a\n", "b"]
    assert text[slice(*spans[("cells", 1, "source")])] == '"c"'


def test_module_line_map() -> None:
    nb = notebook.read(_nb(_cell("markdown", "m"), _cell("code", "a = 1\nb = 2"), _cell("code", "c = 3\n")), "x")
    notebook.build_module(nb)
    assert nb.module.splitlines()[0:2] == ["a = 1", "b = 2"]
    assert nb.line_map[1:] == [(2, 1, 0), (2, 2, 0), None, (3, 1, 0)]


def test_indented_cell_is_dedented_as_ipython_does(project: Path, run) -> None:
    cell = "".join("  " + line if line.strip() else line for line in _lines(IMPORT + "\n" + BAD_FN))
    text = _nb(_cell("code", _lines(cell)))
    path = write(project, "nb.ipynb", text)
    assert run("check", "nb.ipynb").out.startswith("nb.ipynb:cell 1:5:7: TFL101"), run("check", "nb.ipynb").out
    assert run("check", "--fix", "nb.ipynb").rc == 0
    assert path.read_text() == text.replace('"      print(x)\\n"', '"      tf.print(x)\\n"')


def test_percent_continuation_line_is_python(project: Path, run) -> None:
    cell = IMPORT + "@tf.function\ndef f(x):\n    print('%d'\n          % x)\n    return x\n"
    write(project, "nb.ipynb", _nb(_cell("code", cell)))
    assert run("check", "nb.ipynb").out.startswith("nb.ipynb:cell 1:4:5: TFL101")


def test_automagic_shell_aliases_are_masked(project: Path, run) -> None:
    cell = "ls ./data/train/\npip install -q tensorflow\ncd ..\nls = [1]\n" + IMPORT + BAD_FN
    write(project, "nb.ipynb", _nb(_cell("code", cell)))
    out = run("check", "nb.ipynb").out
    assert out.startswith("nb.ipynb:cell 1:8:5: TFL101") and "TFL001" not in out, out


def test_automagic_cd_to_an_absolute_path_is_masked(project: Path, run) -> None:
    """Held-out set 9: Colab notebooks open with ``cd /content/drive/My Drive/2020-01``
    (no ``%``): IPython runs it; it is not Python."""
    cell = "cd /content/drive/My Drive/2020-01-Colab\n" + IMPORT + BAD_FN
    write(project, "nb.ipynb", _nb(_cell("code", cell)))
    out = run("check", "nb.ipynb").out
    assert "TFL001" not in out and "TFL101" in out, out


def test_automagic_names_used_as_python_stay_python(project: Path, run) -> None:
    cell = (IMPORT + "history = model.fit(x,\n                    epochs=3)\ntime (1,\n 2)\n" + BAD_FN)
    write(project, "nb.ipynb", _nb(_cell("code", cell)))
    out = run("check", "nb.ipynb").out
    assert out.startswith("nb.ipynb:cell 1:8:5: TFL101") and "TFL001" not in out, out


def test_partly_indented_cell_is_linted_and_not_rewritten(project: Path, run) -> None:
    """IPython removes the first line's indentation where a line has it; such a cell is
    linted, but a fix in it cannot be written back exactly: nothing is written."""
    cell = "  x = (1,\n2)\n" + IMPORT + BAD_FN
    text = _nb(_cell("code", _lines(cell)))
    path = write(project, "nb.ipynb", text)
    assert run("check", "nb.ipynb").out.startswith("nb.ipynb:cell 1:6:5: TFL101")
    r = run("check", "--fix", "nb.ipynb")
    assert r.rc == 1 and "fixes not written: cell 1 is indented" in r.err, r.err
    assert path.read_text() == text
    other = _nb(_cell("code", _lines(cell.replace("print(x)", "tf.print(x)"))), _cell("code", BAD_FN))
    path.write_text(other)
    assert run("check", "--fix", "nb.ipynb").rc == 0
    assert path.read_text() == other.replace('    print(x)', '    tf.print(x)')


# ------------------------------------------------------------------ write-back round trip

from hypothesis import given, settings as hsettings, strategies as st  # noqa: E402

_LINES = st.sampled_from([
    "import tensorflow as tf", "x = 1", "%matplotlib inline", "!pip install -q x \\", "    more",
    "files = !ls", "tf.shape?", "ls ./data", "def f(x):", "    return x", "  y = 2", "", "   ",
    "s = '''", "%d'''", "print('%d'", "      % 3)", "# caf\u00e9 \u2603", "\tz = 3", "@tf.function",
])
_CELL = st.tuples(st.lists(_LINES, max_size=6), st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans())


@hsettings(max_examples=150, deadline=None)
@given(cells=st.lists(_CELL, max_size=5), indent=st.sampled_from([None, 1, 2, 4]), ascii_=st.booleans())
def test_unchanged_module_writes_back_the_same_bytes(cells, indent, ascii_) -> None:
    """Cutting the module back into cells (unmasking IPython lines, re-indenting,
    dropping the added newline) and splicing them into the JSON gives the original
    bytes for any cells, whether or not they parse: the write-back path loses nothing."""
    nb_cells = []
    for lines, newline, as_list, trailing in cells:
        text = newline.join(lines) + (newline if trailing and lines else "")
        source = text.splitlines(keepends=True) if as_list else text
        nb_cells.append(_cell("code", source))
    doc = json.loads(_nb(*nb_cells))
    raw = (json.dumps(doc, indent=indent, ensure_ascii=ascii_) + "\n").encode()
    nb = notebook.read(raw, "x.ipynb")
    notebook.build_module(nb)
    try:
        out, changed = notebook._rewrite(nb, nb.module)
    except ValueError:
        return  # a partly indented cell: refused, nothing written (tested above)
    assert changed == [] and out == raw


def test_show_source_shows_the_cell_line(project: Path, run) -> None:
    write(project, "nb.ipynb", _nb(_cell("code", IMPORT), _cell("code", BAD_FN)))
    r = run("check", "--show-source", "nb.ipynb")
    assert r.out.splitlines()[1:] == ["    print(x)", "    ^"], r.out


def test_lines_named_in_messages_are_cell_lines(project: Path, run) -> None:
    """A message that names another line of the module names it as a cell line."""
    write(project, "nb.ipynb", _nb(_cell("code", IMPORT + "scale = 0.1\n"),
                                   _cell("code", "@tf.function\ndef f(x):\n    return x * scale\n"),
                                   _cell("code", "for scale in [0.2, 0.3]:\n    f(tf.constant(1.0))\n")))
    out = run("check", "nb.ipynb").out
    assert out.startswith("nb.ipynb:cell 2:3:16: TFL109 ") and "on cell 3, line 1)" in out, out
