"""Hostile and extreme input found by fuzzing: deep but valid code is analysed, fixes
keep their meaning or are not offered."""

from __future__ import annotations

import pytest

from tflint.engine import fix_source, lint_source

TRACED = "import tensorflow as tf\n\n@tf.function\ndef f(x, a):\n"


def _engine_codes(src: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in lint_source(src, "deep.py") if d.code in ("TFL001", "TFL002")]


DEEP_VALID = {
    "1000-branch traced elif": TRACED + "    if x > 0:\n        y = 1\n"
    + "".join(f"    elif x > {i}:\n        y = {i}\n" for i in range(1, 1000)) + "    else:\n        y = 0\n    return y\n",
    "500-branch module elif": TRACED + "    return x\nx = 1\nif x == 0:\n    y = 0\n"
    + "".join(f"elif x == {i}:\n    y = {i}\n" for i in range(1, 500)),
    "500 nested lambdas": TRACED + "    g = " + "lambda: " * 500 + "tf.constant(1)\n    return g\n",
    "490 and operands": TRACED + "    return " + " and ".join(f"x{i}" for i in range(490)) + "\n",
    "1000 adjacent strings": TRACED + "    s = (\n" + "".join(f'        "s{i}"\n' for i in range(1000)) + "    )\n",
}


@pytest.mark.parametrize("name", sorted(DEEP_VALID))
def test_deep_but_valid_code_is_analysed(name: str) -> None:
    src = DEEP_VALID[name]
    compile(src, name, "exec")  # CPython takes it
    assert _engine_codes(src) == []


def test_deep_elif_chain_still_gets_its_finding() -> None:
    src = TRACED + "    if tf.reduce_sum(x) > 0:\n        w = 1\n" + "".join(
        f"    elif tf.reduce_sum(x) > {i}:\n        z = {i}\n" for i in range(1, 800)) + "    return w\n"
    codes = [d.code for d in lint_source(src, "deep.py")]
    assert "TFL504" in codes and "TFL002" not in codes


def test_valid_code_libcst_cannot_parse_is_not_a_syntax_error() -> None:
    # libcst's parser gives up on about 4,000 adjacent string literals; CPython compiles them
    src = TRACED + "    s = (\n" + "".join(f'        "s{i}"\n' for i in range(5000)) + "    )\n"
    compile(src, "strings", "exec")
    codes = _engine_codes(src)
    assert [c for c, _ in codes] == ["TFL002"]
    assert "valid Python" in codes[0][1]


# ---------------------------------------------------------------------------------------
# TFL202's assert fix (the fuzzing finds of issue 12)


def _assert_fix(body: str) -> str | None:
    src = TRACED + "    " + body + "\n"
    diags = [d for d in lint_source(src, "a.py") if d.code == "TFL202"]
    assert len(diags) == 1, lint_source(src, "a.py")
    fix = diags[0].fix
    if fix is None:
        return None
    result = fix_source(src, "a.py", unsafe=True)
    assert not result.problems
    return result.source[len(TRACED):].strip()  # type: ignore[index]


@pytest.mark.parametrize("body, fixed", [
    ('assert tf.shape(x) == (2, 3), "bad shape"',
     'tf.debugging.assert_equal(tf.shape(x), (2, 3), message="bad shape")'),
    ("assert tf.rank(x) > ()", "tf.debugging.assert_greater(tf.rank(x), ())"),
    ("assert tf.rank(x) == ((a,),)", "tf.debugging.assert_equal(tf.rank(x), ((a,),))"),
    ("assert tf.rank(x) == (*a,)", "tf.debugging.assert_equal(tf.rank(x), (*a,))"),
    ("assert tf.rank(x) == (i for i in a)", "tf.debugging.assert_equal(tf.rank(x), (i for i in a))"),
    ("assert (tf.rank(x)) < (3)", "tf.debugging.assert_less(tf.rank(x), 3)"),
    ('assert tf.rank(x) > 0, "m" "n"', 'tf.debugging.assert_greater(tf.rank(x), 0, message="m" "n")'),
])
def test_assert_fix_keeps_every_operand_whole(body: str, fixed: str) -> None:
    assert _assert_fix(body) == fixed


@pytest.mark.parametrize("body", [
    'assert tf.rank(x) > 0, f"rank {a}"',   # message= is evaluated up front, an f-string runs code
    "assert tf.rank(x) > 0, a",             # message= must be a string
])
def test_assert_fix_not_offered_when_it_cannot_be_exact(body: str) -> None:
    assert _assert_fix(body) is None


def test_tensorarray_fix_is_an_assignment_node() -> None:
    src = TRACED + "    ta = tf.TensorArray(tf.float32, size=2)\n    ta.write(0, x); ta.write(1, x)\n" \
        "    return ta.stack()\n"
    result = fix_source(src, "t.py")
    assert not result.problems
    assert "    ta = ta.write(0, x); ta = ta.write(1, x)\n" in result.source  # type: ignore[operator]
