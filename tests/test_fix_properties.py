"""Every autofix keeps meaning: for generated operands (tuples, ``()``, nested and starred
tuples, generator expressions, walrus, conditionals, ...), the fixed code parses, fixing
it again changes nothing, and, run with plain-Python stand-ins for the TensorFlow calls,
the fixed statement does what the original did (same value, same output, same
exception). Also the fuzz harness (benchmarks/fuzz.py) on a small fixed-seed budget."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tflint.engine import fix_source

HEADER = "import tensorflow as tf\nimport numpy as np\n"

ATOMS = st.sampled_from([
    "0", "1", "2", "-1", "2.5", "a", "t", "()", "(1,)", "((1,),)", "(*t,)", "(2, 3)", "[1, 2]",
    "'s'", "None", "True", "v.shape[0]", "len(t)",
])


def _extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, children).map(lambda p: f"({p[0]}, {p[1]})"),
        children.map(lambda c: f"({c})"),
        children.map(lambda c: f"(i for i in {c})"),
        st.tuples(children, children, children).map(lambda p: f"({p[0]} if {p[1]} else {p[2]})"),
        st.tuples(children, children).map(lambda p: f"{p[0]} + {p[1]}"),
        children.map(lambda c: f"-{c}"),
        children.map(lambda c: f"(not {c})"),
        children.map(lambda c: f"(a := {c})"),
    )


EXPRS = st.recursive(ATOMS, _extend, max_leaves=5)
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def _stand_ins(log: list) -> types.SimpleNamespace:
    """A ``tf`` whose calls are their plain-Python meaning on Python values."""

    def check(op: Callable[[Any, Any], bool]) -> Callable[..., None]:
        def assert_(x, y, data=None, summarize=None, message=None, name=None):  # noqa: ANN001
            if data is not None or summarize is not None or name is not None:
                raise TypeError("an operand became another parameter")
            if not op(x, y):
                raise AssertionError(message) if message is not None else AssertionError()
        return assert_

    def tf_print(*args, sep=" ", end="\n", **kwargs):  # noqa: ANN001
        if kwargs:
            raise TypeError(f"tf.print got {sorted(kwargs)}")
        log.append(("print", args, sep, end))

    debugging = types.SimpleNamespace(
        assert_greater=check(lambda x, y: x > y), assert_greater_equal=check(lambda x, y: x >= y),
        assert_less=check(lambda x, y: x < y), assert_less_equal=check(lambda x, y: x <= y),
        assert_equal=check(lambda x, y: x == y), assert_none_equal=check(lambda x, y: x != y))
    random = types.SimpleNamespace(
        normal=lambda shape, mean=0.0, stddev=1.0, dtype=None: ("normal", list(shape), mean, stddev),
        uniform=lambda shape, minval=0, maxval=None, dtype=None: ("uniform", list(shape), minval, maxval))
    return types.SimpleNamespace(
        function=lambda f=None, **kw: f if f is not None else (lambda g: g), reduce_sum=lambda v: v,
        maximum=lambda x, y: max(x, y), minimum=lambda x, y: min(x, y), print=tf_print, range=range,
        shape=lambda o: o.shape, constant=lambda v: v, debugging=debugging, random=random)


def _np_stand_in() -> types.SimpleNamespace:
    def shape_of(size):  # noqa: ANN001
        return [] if size is None else [size] if isinstance(size, int) else list(size)

    random = types.SimpleNamespace(
        normal=lambda loc=0.0, scale=1.0, size=None: ("normal", shape_of(size), loc, scale),
        uniform=lambda low=0.0, high=1.0, size=None: ("uniform", shape_of(size), low, high))
    return types.SimpleNamespace(random=random)


def _run(text: str, x: Any) -> tuple:
    """Run module ``text`` (its imports replaced by stand-ins), call ``f(x)``: what it
    returned or raised, and what it printed."""
    log: list = []
    ns: dict[str, Any] = {
        "tf": _stand_ins(log), "np": _np_stand_in(), "a": 2, "t": (1, 2),
        "v": types.SimpleNamespace(shape=(3, 4)),
        "print": lambda *args, sep=" ", end="\n": log.append(("print", args, sep, end)),
    }
    code = text.replace("import tensorflow as tf\n", "").replace("import numpy as np\n", "")
    exec(compile(code, "prop", "exec"), ns)
    try:
        out: tuple = ("ok", repr(ns["f"](x)))
    except Exception as e:  # the same exception, same message, on both sides
        out = ("raise", type(e).__name__, str(e) if isinstance(e, AssertionError) else "")
    return _no_addresses(out), _no_addresses(log)


def _no_addresses(value: object) -> str:
    """``repr`` without object addresses (two runs make two generator objects)."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


def _check_fix(template: str, expr: str, x: Any, code: str, fixed_seen: list[int]) -> None:
    text = HEADER + "\n@tf.function\ndef f(x):\n" + template.format(e=expr)
    try:
        compile(text, "prop", "exec")
    except SyntaxError:
        return  # the operand does not fit this place in the grammar
    result = fix_source(text, "prop.py", unsafe=True)
    assert not result.problems, (text, result.problems)
    fixed = result.source
    assert isinstance(fixed, str)
    compile(fixed, "fixed", "exec")
    assert fix_source(fixed, "prop.py", unsafe=True).source == fixed, "re-fixing changed the text"
    if fixed == text:
        return
    if code not in result.applied_by_code:
        return
    fixed_seen[0] += 1
    assert _run(fixed, x) == _run(text, x), (text, fixed)


CASES = {
    # TFL202: assert on a tensor -> tf.debugging.assert_*
    "TFL202-assert-right": ("    assert tf.reduce_sum(x) {op} {e}, 'bad'\n    return 0\n", "TFL202"),
    "TFL202-assert-left": ("    assert {e} {op} tf.reduce_sum(x)\n    return 0\n", "TFL202"),
    # TFL202: max/min of tensors -> tf.maximum/tf.minimum
    "TFL202-max": ("    return max(tf.reduce_sum(x), {e})\n", "TFL202"),
    "TFL202-min": ("    return min({e}, tf.reduce_sum(x))\n", "TFL202"),
    # TFL101: print of a tensor -> tf.print
    "TFL101-print": ("    print(tf.reduce_sum(x), {e})\n    return 0\n", "TFL101"),
    # TFL503: range of a Python loop broken on a tensor -> tf.range
    "TFL503-range": ("    n = 0\n    for i in range({e}):\n        n = n + 1\n"
                     "        if tf.reduce_sum(x) > 10:\n            break\n    return n\n", "TFL503"),
}
OPS = ["<", "<=", ">", ">=", "==", "!="]


@pytest.mark.parametrize("case", sorted(CASES))
def test_fix_keeps_meaning(case: str) -> None:
    template, code = CASES[case]
    seen = [0]

    @SETTINGS
    @given(expr=EXPRS, x=st.sampled_from([0, 1, 2, 5, (1, 2), ()]), op=st.sampled_from(OPS))
    def prop(expr: str, x: Any, op: str) -> None:
        _check_fix(template.replace("{op}", op), expr, x, code, seen)

    prop()
    assert seen[0] > 0, "no example got the fix: the test would check nothing"


@pytest.mark.parametrize("call", [
    "np.random.normal({e}, 1.0, size=(2, 3))", "np.random.normal(0.0, {e})",
    "np.random.uniform({e}, 2.0, size=4)", "np.random.normal(size=({e}, 2))",
])
def test_random_fix_keeps_the_distribution(call: str) -> None:
    """TFL103 swaps NumPy's sampler for TensorFlow's: the distribution and its parameters
    are the same (stand-ins return them instead of samples)."""
    seen = [0]

    @SETTINGS
    @given(expr=st.sampled_from(["1", "2.5", "a", "(a)", "-a", "(a if a else 1)", "len(t)", "(a := 3)"]))
    def prop(expr: str) -> None:
        _check_fix("    return " + call + "\n", expr, 0, "TFL103", seen)

    prop()
    assert seen[0] > 0


def test_fuzz_small_budget() -> None:
    """benchmarks/fuzz.py on a fixed seed and a small budget (the >= 10,000-module run
    is `python benchmarks/fuzz.py`)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import fuzz

    tally = fuzz.run(60, seed=12)
    assert tally.modules > 30 and tally.fix_runs > 0
    assert tally.failures == [], tally.failures[0]


def test_scalar_argument_fix_keeps_the_value() -> None:
    """TFL401 wraps a per-call Python scalar in ``tf.constant(...)``: with ``tf.constant``
    standing in as the identity, every call gets the same value as before."""
    seen = [0]

    @SETTINGS
    @given(expr=st.sampled_from(["step", "(step)", "step * 2", "-step", "a + step", "(a - step) * 3",
                                 "int(step)", "float(step) / 4", "step if a else 1"]))
    def prop(expr: str) -> None:
        text = (HEADER + "\n@tf.function\ndef train(x, s):\n    return (x, s)\n\n\ndef f(x):\n"
                "    out = []\n    for step in range(100):\n        out.append(train(x, " + expr + "))\n"
                "    return out\n")
        result = fix_source(text, "prop.py", unsafe=True)
        assert not result.problems
        fixed = result.source
        assert isinstance(fixed, str)
        compile(fixed, "fixed", "exec")
        assert fix_source(fixed, "prop.py", unsafe=True).source == fixed
        if "TFL401" in result.applied_by_code:
            seen[0] += 1
            assert "tf.constant(" in fixed
            assert _run(fixed, 1.5) == _run(text, 1.5), fixed

    prop()
    assert seen[0] > 0
