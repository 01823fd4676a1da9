"""Traced-code discovery and the shared judgements of the semantic model."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from tflint import semantic
from tflint.config import Settings
from tflint.engine import lint_source


def model(src: str, wrappers: tuple[str, ...] = ()) -> semantic.SemanticModel:
    return semantic.build(cst.parse_module(textwrap.dedent(src)), "t.py", wrappers)


def traced(src: str, wrappers: tuple[str, ...] = ()) -> set[str]:
    return {f.name for f in model(src, wrappers).functions if f.traced}


@pytest.mark.parametrize(
    "src",
    [
        "import tensorflow as tf\n@tf.function\ndef g(x): return x\n",
        "import tensorflow as tf\n@tf.function(jit_compile=True)\ndef g(x): return x\n",
        "import tensorflow as tf2\n@tf2.function\ndef g(x): return x\n",
        "import tensorflow\n@tensorflow.function\ndef g(x): return x\n",
        "from tensorflow import function\n@function\ndef g(x): return x\n",
        "from tensorflow import function as compiled\n@compiled()\ndef g(x): return x\n",
        "import tensorflow as tf\n@tf.compat.v2.function\ndef g(x): return x\n",
        "import tensorflow.compat.v2 as tf\n@tf.function\ndef g(x): return x\n",
        "from tensorflow.python.eager import def_function\n@def_function.function\ndef g(x): return x\n",
        "import tensorflow as tf\ndef g(x): return x\nh = tf.function(g)\n",
        "import tensorflow as tf\ndef g(x): return x\ny = tf.function(g)(1)\n",
        "import tensorflow as tf\ndef g(x): return x\nh = tf.function(func=g, reduce_retracing=True)\n"
        if False else "import tensorflow as tf\ndef g(x): return x\nh = tf.function(g, reduce_retracing=True)\n",
        "import functools, tensorflow as tf\ndef g(x, k): return x\nh = tf.function(functools.partial(g, k=1))\n",
    ],
)
def test_tf_function_spellings(src: str) -> None:
    assert "g" in traced(src)


def test_not_traced_without_tensorflow_import() -> None:
    # `tf` is not bound to TensorFlow here: no guessing from the name alone
    assert traced("@tf.function\ndef g(x): return x\n") == set()
    assert traced("import mylib as tf\n@tf.function\ndef g(x): return x\n") == set()


def test_lambda_wrapped() -> None:
    m = model("import tensorflow as tf\nf = tf.function(lambda x: x * 2)\n")
    assert [f.name for f in m.functions if f.traced] == ["<lambda>"]


def test_methods_keras_steps_and_callees() -> None:
    src = """
    import tensorflow as tf
    from tensorflow import keras

    def helper(x):
        return deep(x)

    def deep(x):
        return x

    def unused(x):
        return x

    class Base(keras.Model):
        def train_step(self, data):
            return self.compute(data)

        def compute(self, data):
            return helper(data)

        def eager_only(self):
            return 1

    class Child(Base):
        def test_step(self, data):
            return data

    class NotKeras:
        def train_step(self, data):
            return data

    class Mod(tf.Module):
        @tf.function
        def __call__(self, x):
            return x
    """
    names = traced(src)
    assert {"train_step", "compute", "helper", "deep", "test_step", "__call__"} <= names
    assert "unused" not in names and "eager_only" not in names
    # NotKeras.train_step: only one train_step is traced (Base's)
    m = model(src)
    steps = [f for f in m.functions if f.name == "train_step"]
    assert [f.traced for f in steps] == [True, False]


def test_dataset_callables() -> None:
    src = """
    import tensorflow as tf

    def parse(x):
        return x

    def keep(x):
        return True

    def not_a_dataset(x):
        return x

    ds = tf.data.Dataset.range(10).map(parse)
    ds = ds.filter(keep)
    ds = ds.batch(2).map(lambda b: b)
    series.map(not_a_dataset)
    pool.map(not_a_dataset, [1, 2])
    """
    names = traced(src)
    assert {"parse", "keep", "<lambda>"} <= names
    assert "not_a_dataset" not in names


def test_py_function_and_init_scope_are_not_traced() -> None:
    src = """
    import tensorflow as tf

    def eager_body(x):
        print(x)
        return x

    @tf.function
    def f(x):
        y = tf.py_function(eager_body, [x], tf.float32)
        z = tf.numpy_function(lambda v: print(v) or v, [x], tf.float32)
        with tf.init_scope():
            print(x)
        print(x)
        return y
    """
    assert "eager_body" not in traced(src)
    found = lint_source(textwrap.dedent(src), "t.py", Settings(select=["TFL101"]))
    assert [d.line for d in found] == [14]


def test_configured_wrapper_decorator() -> None:
    src = "from tf_agents.utils import common\n@common.function\ndef g(x): return x\n"
    assert traced(src) == set()
    assert traced(src, ("common.function",)) == {"g"}
    assert traced(src, ("tf_agents.utils.common.function",)) == {"g"}


def test_local_name_shadows_module_function() -> None:
    src = """
    import tensorflow as tf

    def monitor(x):
        return x

    compiled = tf.function(monitor)

    def test(monitor):
        monitor(1)
    """
    m = model(src)
    call = [c for c, _ in m.all_calls if isinstance(c.func, cst.Name) and c.func.value == "monitor"][0]
    ctx = [x for c, x in m.all_calls if c is call][0]
    assert m.resolve_callee(call, ctx.fn) is None


def test_context_note_names_the_chain() -> None:
    src = """
    import tensorflow as tf

    def log_it(x):
        print(x)

    class M(tf.keras.Model):
        def train_step(self, data):
            log_it(data)
            return {}
    """
    found = lint_source(textwrap.dedent(src), "t.py", Settings(select=["TFL101"]))
    assert len(found) == 1
    assert "called from `train_step` (line 9)" in found[0].message
    assert "Keras runs under tf.function" in found[0].message


def test_context_note_silent_for_plain_tf_function() -> None:
    src = "import tensorflow as tf\n@tf.function\ndef f(x):\n    print(x)\n"
    (d,) = lint_source(src, "t.py", Settings(select=["TFL101"]))
    assert "(" not in d.message.split(":")[-1] or "called from" not in d.message


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("x", True),
        ("x * 2", True),
        ("tf.reduce_sum(x)", True),
        ("x[0]", True),
        ("x.shape", False),
        ("x.shape[0]", False),
        ("x.dtype", False),
        ("len(x.shape)", False),
        ("x is None", False),
        ("isinstance(x, tf.Tensor)", False),
        ("n", False),          # Python-typed parameter
        ("training", False),   # defaulted to a bool
        ("3", False),
        ("tf.TensorShape([1])", False),
        ("np.prod(x.shape)", False),
        ("y", True),           # local assigned from a tensor
        ("self", False),
    ],
)
def test_tensor_judgement(expr: str, expected: bool) -> None:
    src = f"""
    import numpy as np
    import tensorflow as tf

    class C:
        @tf.function
        def f(self, x, n: int, training=False):
            y = tf.nn.relu(x)
            return {expr}
    """
    m = model(src)
    fn = next(f for f in m.functions if f.name == "f")
    ret = fn.node.body.body[-1].body[0]  # type: ignore[union-attr]
    assert m.is_tensor(ret.value, fn) is expected


@pytest.mark.parametrize(
    "loop, expected",
    [
        ("for i in tf.range(n):", True),
        ("for row in x:", True),
        ("for i in range(tf.shape(x)[0]):", True),
        ("for i in range(int(tf.shape(x)[0])):", True),
        # AutoGraph converts enumerate/zip only over Datasets: over a tensor they fail while
        # tracing, over Python lists they are Python loops (TensorFlow 2.21)
        ("for i, row in enumerate(x):", False),
        ("for a, b in zip([1, 2], x):", False),
        ("for i, b in enumerate(tf.data.Dataset.range(3)):", True),
        ("for batch in ds:", True),
        ("for i in range(3):", False),
        ("for i in range(x.shape[0]):", False),
        ("for name in ['a', 'b']:", False),
        ("while tf.reduce_sum(x) > 0:", True),
        ("while i < 3:", False),
    ],
)
def test_loop_classification(loop: str, expected: bool) -> None:
    src = f"""
    import tensorflow as tf

    @tf.function
    def f(x, n, ds):
        i = 0
        {loop}
            x = x + 1
        return x
    """
    m = model(src)
    fn = next(f for f in m.functions if f.name == "f")
    node = fn.node.body.body[1]  # type: ignore[union-attr]
    assert m.loop_is_tensorflow(node, fn) is expected


def test_loop_target_of_tensor_loop_is_tensor() -> None:
    src = "import tensorflow as tf\n@tf.function\ndef f(x):\n    for row in x:\n        y = row\n" \
          "    for k in range(3):\n        z = k\n"
    m = model(src + "f(tf.zeros([3, 2]))\n")
    fn = m.functions[0]
    assert m.is_tensor(cst.Name("row"), fn) and not m.is_tensor(cst.Name("k"), fn)
    # with no visible call, the parameter may be a Python list (federated's mask lists):
    # what its loop binds is not known to be a tensor
    m = model(src)
    assert not m.is_tensor(cst.Name("row"), m.functions[0])


def test_rebound_globals() -> None:
    m = model("""
    import tensorflow as tf
    SCALE = 1.0
    CONST = 2
    counter = 0
    SCALE = 3.0

    def bump():
        global counter
        counter = counter + 1
    """)
    assert m.is_rebound_global("SCALE") and m.is_rebound_global("counter")
    assert not m.is_rebound_global("CONST")


def test_params_as_tensors_for_an_untraced_function() -> None:
    """Keras 3 ``Layer.call`` is not traced code, yet its inputs are symbolic tensors:
    inside ``params_as_tensors`` its parameters are judged as a traced function's are,
    with a cache of their own, and the ordinary answer comes back afterwards."""
    m = model("""
    import tensorflow as tf

    class Gate(tf.keras.layers.Layer):
        def call(self, x, training=None):
            y = x * 2
            return y
    """)
    fn = next(f for f in m.functions if f.name == "call")
    assert not fn.traced
    assert not m.is_tensor(cst.Name("y"), fn)
    with m.params_as_tensors(fn):
        assert m.is_tensor(cst.Name("x"), fn) and m.is_tensor(cst.Name("y"), fn)
        assert not m.is_tensor(cst.Name("training"), fn) and not m.is_tensor(cst.Name("self"), fn)
    assert not m.is_tensor(cst.Name("x"), fn) and not m.is_tensor(cst.Name("y"), fn)


def test_compat_v2_py_function_body_is_not_traced() -> None:
    src = """
    import tensorflow.compat.v2 as tf

    def grab(indices):
        def py_method(ind):
            return ind.numpy()
        return tf.py_function(py_method, [indices], tf.int64)

    ds = tf.data.Dataset.range(4).map(grab)
    """
    assert traced(src) == {"grab"}


@pytest.mark.parametrize(
    "calls, expected",
    [
        ("helper(3.0) + helper(-1) + helper(x=(1, 2.5))", False),  # only Python literals
        ("helper(3.0) + helper(t)", True),  # one traced call passes a tensor
        ("helper(*args)", True),  # unpacked: the binding is unknown
        ("self_free(t)", True),  # no call of helper at all: judged as a parameter
    ],
)
def test_parameter_of_a_callee_given_only_python_literals(calls: str, expected: bool) -> None:
    """A function traced only because traced code calls it holds, in a parameter that
    every such call fills with a Python literal, that Python value, not a tensor."""
    m = model(f"""
    import tensorflow as tf

    def helper(x):
        return x

    def self_free(v):
        return helper(v)

    @tf.function
    def f(t, *args):
        return {calls}
    """)
    fn = next(f for f in m.functions if f.name == "helper")
    assert fn.traced
    assert m.is_tensor(cst.Name("x"), fn) is expected


def test_method_callee_given_python_literals_through_self() -> None:
    m = model("""
    import tensorflow as tf

    class Scaler(tf.Module):
        def _factor(self, p):
            return p * 2

        @tf.function
        def __call__(self, x):
            return x * self._factor(0.5)
    """)
    fn = next(f for f in m.functions if f.name == "_factor")
    assert fn.traced and not m.is_tensor(cst.Name("p"), fn)


def test_map_on_another_librarys_dataset_is_not_traced() -> None:
    """``ds`` is a tf.data Dataset by its name only when nothing says otherwise: built from
    another data library (directly, or through Keras 3's lazy ``module_utils.grain``), its
    ``map`` runs Python per element."""
    assert traced("""
    import grain
    import tensorflow as tf
    from keras.src.utils.module_utils import grain as lazy_grain

    def load(path):
        return open(path).read()

    def scale(x):
        return x * 2

    def parse(x):
        return x + 1

    def pipelines(paths, ds):
        source = grain.MapDataset.source(paths)
        ds1 = source
        ds1 = ds1.shuffle(seed=0).map(load)
        ds2 = lazy_grain.MapDataset.source(paths).shuffle(seed=1).map(scale)
        ds3 = tf.data.Dataset.from_tensor_slices(paths)
        ds3 = ds3.map(parse)
        return ds1, ds2, ds3, ds.map(lambda x: x)
    """) == {"parse", "<lambda>"}


def test_an_instance_call_binds_its_arguments_after_self() -> None:
    """``sched(step)`` on ``sched = WarmUp()`` runs ``WarmUp.__call__(sched, step)``: the
    argument binds ``step``, as ``sched.method(step)`` binds a method's first parameter
    after ``self``."""
    sem = model(
        "import tensorflow as tf\n"
        "class WarmUp:\n"
        "    @tf.function\n"
        "    def __call__(self, step, warm=10):\n"
        "        return step\n"
        "sched = WarmUp()\n"
        "for s in range(3):\n"
        "    sched(s, warm=5)\n"
    )
    call = next(c for c, _ in sem.all_calls if isinstance(c.func, cst.Name) and c.func.value == "sched")
    method = sem.classes["WarmUp"].methods["__call__"]
    bound = sem.bound_args(call, method)
    assert sorted(bound) == ["step", "warm"]
    assert isinstance(bound["step"].value, cst.Name) and bound["step"].value.value == "s"
