"""``# noqa`` must behave exactly as in flake8, which the flake8 plugin leaves it to."""

from __future__ import annotations

import pytest

from tflint.diagnostics import Diagnostic, Severity
from tflint.engine import lint_source
from tflint.noqa import (
    NOQA_INLINE_REGEXP,
    apply_noqa,
    is_suppressed,
    noqa_line_mapping,
    source_lines,
)

PRINT_LINE = (
    "import tensorflow as tf\n@tf.function\ndef f(x):\n    print(x){comment}\n    return x\n"
)


def _codes_after_noqa(comment: str) -> list[str]:
    src = PRINT_LINE.format(comment=comment)
    return [d.code for d in apply_noqa(lint_source(src, "t.py"), src)]


@pytest.mark.parametrize(
    "comment",
    [
        "  # noqa",
        "  # NOQA",
        "  # NoQa",
        "  # noqa: TFL101",
        "  # noqa:TFL101",
        "  # noqa: TFL105,TFL101",
        "  # noqa:TFL105 TFL101",
        "  # noqa: TFL105, TFL101",
        "  # noqa: TFL1",  # a prefix, as flake8 allows
        "  # noqa: TFL",
        "  # some words # noqa: TFL101 and more words",
        "  # noqa:  TFL105",  # two spaces: flake8 reads this as a bare noqa
    ],
)
def test_noqa_suppresses(comment: str) -> None:
    assert _codes_after_noqa(comment) == []


@pytest.mark.parametrize(
    "comment",
    [
        "",
        "  # noqa: E501",  # other codes do not silence ours
        "  # noqa: TFL105",
        "  # noqa: TFL102,F401",
        "  #noqa",  # flake8's regex needs "# noqa": without the space it is no noqa
        "  # no qa",
        "  # noqa: TFL1010",  # longer than the code: not a prefix of it
    ],
)
def test_noqa_does_not_suppress(comment: str) -> None:
    assert _codes_after_noqa(comment) == ["TFL101"]


def test_regex_is_flake8s() -> None:
    flake8_defaults = pytest.importorskip("flake8.defaults")
    assert NOQA_INLINE_REGEXP.pattern == flake8_defaults.NOQA_INLINE_REGEXP.pattern
    assert NOQA_INLINE_REGEXP.flags == flake8_defaults.NOQA_INLINE_REGEXP.flags


def _diag(line: int, code: str = "TFL101") -> Diagnostic:
    return Diagnostic(code, "x", "m", "t.py", line, 0, line, 1, Severity.INFO)


def test_multiline_node_is_suppressed_by_noqa_on_its_first_line() -> None:
    src = (
        "import tensorflow as tf\n"
        "@tf.function\n"
        "def f(x):\n"
        "    print(  # noqa: TFL101\n"
        "        x,\n"
        "    )\n"
        "    return x\n"
    )
    found = lint_source(src, "t.py")
    assert [(d.code, d.line, d.end_line) for d in found] == [("TFL101", 4, 6)]
    assert apply_noqa(found, src) == []


def test_noqa_on_a_later_line_of_a_bracketed_call_does_not_count() -> None:
    # flake8 joins lines only across backslashes and multi-line strings, not brackets
    src = "print(\n    x,  # noqa\n)\n"
    assert apply_noqa([_diag(1)], src) == [_diag(1)]


def test_backslash_and_multiline_string_join_lines_like_flake8() -> None:
    src = 'y = 1 + \\\n    2  # noqa\nz = """\nabc\n"""  # noqa: TFL101\nw = 3\n'
    mapping = noqa_line_mapping(source_lines(src))
    assert mapping[1] == mapping[2]
    assert mapping[3] == mapping[4] == mapping[5]
    kept = apply_noqa([_diag(1), _diag(3), _diag(6)], src)
    assert [d.line for d in kept] == [6]


def test_file_level_flake8_noqa() -> None:
    src = "# flake8: noqa\n" + PRINT_LINE.format(comment="")
    assert lint_source(src, "t.py")
    assert apply_noqa(lint_source(src, "t.py"), src) == []
    # after code on the same line it is not a file-level noqa (flake8 warns and ignores it)
    src2 = PRINT_LINE.format(comment="") + "x = 1  # flake8: noqa\n"
    assert [d.code for d in apply_noqa(lint_source(src2, "t.py"), src2)] == ["TFL101"]


def test_untokenizable_file_falls_back_to_physical_line() -> None:
    # an unterminated bracket: tokenize fails, flake8 then reads the physical line
    src = "import tensorflow as tf\nx = (  # noqa: TFL001\n"
    assert noqa_line_mapping(source_lines(src)) == {}
    assert apply_noqa([_diag(2, "TFL001")], src) == []
    assert apply_noqa([_diag(1, "TFL001")], src) == [_diag(1, "TFL001")]


def test_crlf_lines() -> None:
    src = PRINT_LINE.format(comment="  # noqa: TFL101").replace("\n", "\r\n")
    found = lint_source(src, "t.py")
    assert [d.code for d in found] == ["TFL101"]
    assert apply_noqa(found, src) == []


def test_is_suppressed_prefix_rules() -> None:
    assert is_suppressed("TFL101", "x  # noqa: TFL10")
    assert not is_suppressed("TFL101", "x  # noqa: TFL2")
    assert not is_suppressed("TFL101", "x")


@pytest.mark.parametrize(
    "src",
    [
        "print(\n    x,  # noqa\n)\n",
        'y = 1 + \\\n    2  # noqa\nz = """\nabc\n"""  # noqa: TFL101\nw = 3\n',
        "def f():\n    if x:\n        pass\n\n# c\n",
        'x = f"""{\n1}"""\n',
        "import tensorflow as tf\nx = (  # noqa\n",
        "a = 1\r\nb = '''\r\n'''  # noqa\r\n",
    ],
)
def test_line_mapping_matches_flake8_processor(src: str) -> None:
    """The line searched for a noqa is the one flake8 itself would search."""
    import argparse

    processor = pytest.importorskip("flake8.processor")
    opts = argparse.Namespace(
        hang_closing=False,
        indent_size=4,
        max_line_length=79,
        max_doc_length=None,
        verbose=0,
        disable_noqa=False,
    )
    lines = source_lines(src)
    fp = processor.FileProcessor("t.py", opts, lines=lines)
    ours = noqa_line_mapping(lines)
    for n in range(1, len(lines) + 2):
        assert ours.get(n) == fp.noqa_line_for(n), n
