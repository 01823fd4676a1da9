"""The value model (tflint.semantic.values.ValueFlow): what an expression is, followed
through the module. Each test builds a small module and asks for the value of a named
expression, so a broken transfer rule fails here before it shows up in a rule."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from tflint import semantic
from tflint.semantic import lattice as lat
from tflint.semantic.lattice import Kind


def model(src: str) -> semantic.SemanticModel:
    return semantic.build(cst.parse_module(textwrap.dedent(src)), "t.py", ())


def value(src: str, fn_name: str | None, expr: str) -> lat.Value:
    """The value of the first ``return <expr>`` (fn_name given) or module-level
    ``probe = <expr>`` in ``src``."""
    sem = model(src)
    if fn_name is None:
        return sem.value_of(sem.module_assigns["probe"][-1], None)
    fn = next(f for f in sem.functions if f.name == fn_name)
    ret = next(r for r in fn.returns if cst.Module([]).code_for_node(r) == expr)
    return sem.value_of(ret, fn)


def test_lattice_join_and_views() -> None:
    assert lat.const(1).join(lat.const(1)) == lat.const(1)
    j = lat.const(1).join(lat.const(2))
    assert j.kind == Kind.CONST and not j.has_const
    assert lat.CONST.join(lat.TENSOR).may_be_tensor and not lat.CONST.join(lat.TENSOR).is_tensor
    assert lat.UNKNOWN.unknown and not lat.UNKNOWN.is_python
    assert lat.varying("x").varies and not lat.varying("x").join(lat.TENSOR).varies
    assert lat.state("variable").kind == Kind.STATE and not lat.state("variable").may_be_tensor


def test_python_values_flow_through_arithmetic_builtins_and_math() -> None:
    src = """\
        import math
        import numpy as np
        import tensorflow as tf

        D_MODEL = 64

        def f(x):
            scale = 1.0 / math.sqrt(D_MODEL)
            n = len(x) * 2
            w = np.sqrt(float(D_MODEL))
            t = tf.constant(1.0) * scale
            return scale
        """
    assert value(src, "f", "scale").is_python
    sem = model(src)
    f = next(f for f in sem.functions if f.name == "f")
    for name in ("n", "w"):
        assert sem.value_of(f.assigns[name][0], f).is_python, name
    assert sem.value_of(f.assigns["t"][0], f).is_tensor


def test_tuple_unpacking_takes_the_element() -> None:
    src = """\
        import tensorflow as tf

        def pair(x):
            return tf.reduce_sum(x), 3

        def f(x):
            loss, k = pair(x)
            a, (b, c) = 1, (tf.ones(2), "s")
            return k
        """
    sem = model(src)
    f = next(f for f in sem.functions if f.name == "f")
    get = lambda n: sem.value_of(cst.Name(n), f)  # noqa: E731 - a fresh Name node each time
    assert get("k").is_python
    assert get("loss").is_tensor
    assert get("a").is_python and get("c").is_python and get("b").is_tensor


def test_self_attributes_from_init_and_constructor_arguments() -> None:
    src = """\
        import math
        import tensorflow as tf

        class Attention(tf.keras.layers.Layer):
            def __init__(self, d_model, heads=8):
                super().__init__()
                self.scale = 1.0 / math.sqrt(d_model)
                self.heads = heads
                self.dense = tf.keras.layers.Dense(d_model)

            def call(self, x):
                return self.scale

        layer = Attention(64)
        """
    sem = model(src)
    call = next(f for f in sem.functions if f.name == "call")
    init = next(f for f in sem.functions if f.name == "__init__")
    assert sem.param_value(init, "d_model").has_const and sem.param_value(init, "d_model").const == 64
    assert sem.value_of(call.returns[0], call).is_python
    dense = cst.parse_expression("self.dense")
    assert sem._self_attr_value(call, "dense", 0).state == "layer"  # noqa: SLF001
    assert not sem.is_tensor(dense, call)


def test_parameter_filled_with_python_values_at_every_call_site() -> None:
    src = """\
        import tensorflow as tf

        def helper(x, k):
            return k

        @tf.function
        def g(x):
            return helper(x, 3.0) + helper(x, 4.0)
        """
    sem = model(src)
    helper = next(f for f in sem.functions if f.name == "helper")
    assert sem.param_value(helper, "k").is_python
    assert sem.param_value(helper, "x").unknown  # g's input: a tensor or anything


@pytest.mark.parametrize("loop, count", [("range(100)", 100), ("range(3)", 3), ("[1, 2]", 2)])
def test_loop_variables_vary_with_their_count(loop: str, count: int) -> None:
    src = f"""\
        def schedule(epoch):
            return 0.01 * 0.9 ** epoch

        for epoch in {loop}:
            probe = epoch
        """
    v = value(src, None, "epoch")
    assert v.varies and v.why == "from the loop variable `epoch`"
    assert v.count == count


def test_varying_value_through_a_helper_says_why() -> None:
    src = """\
        def schedule(epoch):
            return 0.01 * 0.9 ** epoch

        for epoch in range(100):
            probe = schedule(epoch)
        """
    v = value(src, None, "schedule(epoch)")
    assert v.varies
    assert v.why == "from the loop variable `epoch` through `schedule()` at line 5"


def test_counters_vary_with_the_loop_they_are_updated_in() -> None:
    src = """\
        step = 0
        while True:
            step += 1
            probe = step
        """
    v = value(src, None, "step")
    assert v.varies and v.count is None
    src = """\
        grid = 13
        for _ in range(3):
            grid *= 2
            probe = grid
        """
    assert not value(src, None, "grid").varies  # a few scales, not a counter


def test_tensor_loops_in_traced_code_bind_tensors() -> None:
    src = """\
        import tensorflow as tf

        @tf.function
        def f(n):
            for i in tf.range(n):
                pass
            return i
        """
    assert value(src, "f", "i").is_tensor


def test_unknown_is_the_default() -> None:
    src = """\
        import something

        def f(x):
            y = something.make(x)
            return y
        """
    assert value(src, "f", "y").unknown


def test_a_python_value_of_unknown_origin_does_not_vary() -> None:
    """``id(self._key(var))`` for a loop over a parameter: some Python value, but nothing
    says it changes (a false TFL401 on tf_keras' optimizer before)."""
    src = """\
        def f(self, pairs):
            for grad, var in pairs:
                probe = id(self._key(var))
            return probe
        """
    v = value(src, "f", "probe")
    assert v.is_python and not v.varies


def test_an_additive_counter_counts_its_loop() -> None:
    src = """\
        step = 0
        for _ in range(3):
            step += 1
            probe = step
        """
    v = value(src, None, "step")
    assert v.varies and v.count == 4  # 0 and the three updates


def test_parameters_bound_from_a_config_dict() -> None:
    src = """\
        import tensorflow as tf

        CONFIG = {"lr": 0.1, "units": 64}

        @tf.function
        def train_step(x, lr, units=32):
            return lr

        for step in range(1000):
            train_step(tf.ones(2), **CONFIG)
        """
    sem = model(src)
    fn = next(f for f in sem.functions if f.name == "train_step")
    assert sem.param_value(fn, "lr").has_const and sem.param_value(fn, "lr").const == 0.1
    assert sem.param_value(fn, "units").const == 64
    assert sem.param_value(fn, "x").unknown
    # a ** of something unknown leaves the parameters unknown
    assert sem.param_value(model(src.replace("**CONFIG", "**load()")).functions[0], "lr").unknown


# ------------------------------------------------------------------ which binding reaches a use

def test_only_the_last_binding_before_a_use_reaches_it() -> None:
    src = """\
        import tensorflow as tf

        def f(x):
            n = tf.shape(x)[0]
            n = 3
            return n
        """
    assert value(src, "f", "n") == lat.const(3)


def test_a_later_binding_does_not_reach_an_earlier_use() -> None:
    src = """\
        import tensorflow as tf

        def f(x, n):
            if n > 2:
                return n
            n = tf.shape(x)[0]
            return n
        """
    sem = model(src)
    fn = next(f for f in sem.functions if f.name == "f")
    first, last = fn.returns
    assert sem.dominating_binding(first, fn) is semantic.values.PARAMETER
    assert sem.value_of(last, fn).is_tensor


@pytest.mark.parametrize("body", [
    # a loop: the binding after the use comes back in the next iteration
    "n = 3\n    for i in range(2):\n        y = n\n        n = tf.shape(x)[0]\n    return y",
    # a conditional binding between: either value may reach the use
    "n = 3\n    if x is not None:\n        n = tf.shape(x)[0]\n    return n",
])
def test_a_binding_that_may_be_skipped_or_come_back_decides_nothing(body: str) -> None:
    src = "import tensorflow as tf\n\ndef f(x):\n    " + body + "\n"
    sem = model(src)
    fn = next(f for f in sem.functions if f.name == "f")
    use = fn.returns[-1]
    assert sem.dominating_binding(use, fn) is None
    assert sem.value_of(use, fn).may_be_tensor or sem.value_of(use, fn).unknown


def test_a_parameter_passed_on_through_a_long_chain_keeps_its_callers_value() -> None:
    # each helper passes `s` on as it is; the chain is longer than the model's recursion
    # limit, and the answer must not depend on it (Keras 3: an `if` on it would fail)
    n = 40
    src = "def f0(x, s):\n    return f1(x, s)\n\n" + "".join(
        f"def f{i}(x, s):\n    return f{i + 1}(x, s)\n\n" for i in range(1, n)) + \
        f"def f{n}(x, s):\n    return s\n\n" + "probe = f0(1, 0.5)\n"
    sem = model(src)
    last = next(f for f in sem.functions if f.name == f"f{n}")
    assert sem.param_value(last, "s").is_python
    assert sem.param_value(last, "x").is_python


def test_a_varying_value_names_every_hop_of_its_chain() -> None:
    src = """\
        def inner(lr):
            return lr

        def outer(lr):
            return inner(lr)

        for epoch in range(10):
            outer(epoch * 0.1)
        """
    sem = model(src)
    fn = next(f for f in sem.functions if f.name == "inner")
    v = sem.param_value(fn, "lr")
    assert v.varies
    assert v.why.endswith("passed to `outer()` at line 8, passed to `inner()` at line 5"), v.why


def test_an_answer_cut_at_the_depth_limit_does_not_stick_to_later_questions() -> None:
    # a30 is too far from its literal for the model; a10 is not. Asking about a30 first
    # must not leave a10 unknown (the answer must not depend on the order of questions)
    src = "def f():\n    a0 = 0.5\n" + "".join(f"    a{i} = a{i - 1}\n" for i in range(1, 31)) + \
        "    return a10\n    return a30\n"
    sem = model(src)
    fn = next(f for f in sem.functions if f.name == "f")
    a10, a30 = fn.returns
    alone = model(src)
    fresh = alone.value_of(next(f for f in alone.functions if f.name == "f").returns[0],
                           next(f for f in alone.functions if f.name == "f"))
    assert fresh == lat.const(0.5)
    sem.value_of(a30, fn)
    assert sem.value_of(a10, fn) == fresh


@pytest.mark.parametrize("bar, varies", [
    ("t = tqdm.tqdm(range(episodes))", True),       # a progress bar bound to a name, then looped over
    ("t = tqdm.trange(episodes)", True),
    ("t = make_batches(episodes)", False),         # what a project function returns: unknown
])
def test_the_loop_variable_of_a_progress_bar_bound_to_a_name_varies(bar, varies) -> None:
    """``t = tqdm.tqdm(range(episodes))`` then ``for episode in t:`` (Lord225/AIProject,
    held-out set 106): ``episode`` takes a new Python int in each iteration."""
    src = f"""
        import tqdm

        def make_batches(n):
            return [n]

        def run(episodes):
            {bar}
            for episode in t:
                epsilon = max(1 - episode / 50, 0.01)
                return epsilon
        """
    assert value(src, "run", "epsilon").varies is varies
