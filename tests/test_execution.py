"""The execution model: when a line runs (traced, eager, or as Python inside a graph).

Each case was checked on TensorFlow 2.21 with Keras 3.15 where it says what TensorFlow
does; the tests hold the linter to it."""

from __future__ import annotations

import textwrap

import pytest

from tflint.config import ConfigError, Settings, resolve_settings
from tflint.engine import lint_source


def codes(src: str, **settings) -> list[tuple[int, str]]:
    diags = lint_source(textwrap.dedent(src), "t.py", Settings(**settings))
    return [(d.line, d.code) for d in diags]


KERAS3_STEP = """\
    import keras
    import tensorflow as tf


    class Model(keras.Model):
        def train_step(self, data):
            x, y = data
            loss = tf.reduce_mean(tf.square(self(x) - y))
            if loss > 10.0:
                loss = loss / 10.0
            for i in tf.range(3):
                loss = loss + 0.0
            return {"loss": loss}
    """


def test_keras3_train_step_is_not_converted() -> None:
    # TF 2.21 + Keras 3.15: fit raises OperatorNotAllowedInGraphError on both lines
    assert codes(KERAS3_STEP) == [(9, "TFL202"), (11, "TFL203")]


def test_keras2_train_step_is_converted() -> None:
    assert codes(KERAS3_STEP, keras_version="2") == []
    legacy = KERAS3_STEP.replace("import keras\n", "import tf_keras as keras\n")
    assert codes(legacy) == []


def test_tf_keras_import_makes_tf_keras_keras2_in_auto_mode() -> None:
    src = KERAS3_STEP.replace("import keras\n", "import tf_keras\n").replace("keras.Model", "tf.keras.Model")
    assert codes(src) == []
    assert codes(src.replace("import tf_keras\n", "import os\n")) == [(9, "TFL202"), (11, "TFL203")]


def test_keras_version_config_is_validated(tmp_path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.tflint]\nkeras-version = "4"\n')
    with pytest.raises(ConfigError, match="keras-version"):
        resolve_settings({}, cwd=str(tmp_path))
    (tmp_path / "pyproject.toml").write_text('[tool.tflint]\nkeras-version = 2\n')
    assert resolve_settings({}, cwd=str(tmp_path))[0].keras_version == "2"
    assert resolve_settings({"keras-version": "3"}, cwd=str(tmp_path))[0].keras_version == "3"


def test_py_function_decorator_form_runs_eagerly() -> None:
    src = """\
        import numpy as np
        import tensorflow as tf

        @tf.numpy_function(Tout=tf.float32)
        def jitter(x):
            return x + np.random.uniform()

        @tf.function
        def f(x):
            return jitter(x)
        """
    assert codes(src) == []


def test_user_wrapper_around_py_function_runs_eagerly() -> None:
    src = """\
        import numpy as np
        import tensorflow as tf

        def numpy_op(fn):
            def wrapper(x):
                return tf.numpy_function(fn, [x], tf.float32)
            return wrapper

        @numpy_op
        def jitter(x):
            print("sampling")
            return x + np.random.uniform()

        ds = tf.data.Dataset.range(3).map(numpy_op(lambda x: x + np.random.uniform()))
        """
    assert codes(src) == []


def test_run_functions_eagerly_at_module_level() -> None:
    src = """\
        import tensorflow as tf

        tf.config.run_functions_eagerly(True)

        @tf.function
        def f(x):
            print(x)
            return x

        ds = tf.data.Dataset.range(3).map(lambda x: print(x) or x)
        """
    # tf.data still traces its callables as graphs
    assert codes(src) == [(10, "TFL101")]
    assert codes(src.replace("(True)", "(False)")) == [(7, "TFL101"), (10, "TFL101")]


def test_train_step_called_directly_runs_eagerly() -> None:
    src = """\
        import keras
        import tensorflow as tf


        class Model(keras.Model):
            def train_step(self, data):
                print("step", data)
                return {}


        model = Model()
        for batch in [1, 2]:
            model.train_step(batch)
        """
    src = textwrap.dedent(src)
    assert codes(src) == []
    assert codes(src + "model.fit([1, 2])\n") == [(7, "TFL101")]
    # a fit on a model known to be of another class does not run this train_step
    # (tensorflow/docs' migration_debugging guide: the custom model is stepped by hand,
    # a functional model from a helper is fit)
    other = ("def get_model():\n    inputs = keras.Input((1,))\n"
             "    m = keras.Model(inputs, keras.layers.Dense(1)(inputs))\n    return m\n\n"
             "functional = get_model()\nfunctional.fit([1, 2])\n"
             "class Other(keras.Model):\n    pass\n\nOther().fit([1, 2])\n")
    assert codes(src + other) == []
    # a subclass of it, or a model of unknown origin, may run it
    assert codes(src + "class Sub(Model):\n    pass\n\nSub().fit([1, 2])\n") == [(7, "TFL101")]
    assert codes(src + "def fit_all(m):\n    m.fit([1, 2])\n") == [(7, "TFL101")]


STALE_THEN_MOVE_ON = """\
    import tensorflow as tf

    scale = 2.0

    @tf.function
    def f(x):
        return x * scale

    f(tf.constant(1.0))
    f(tf.constant(2.0))
    scale = 3.0
    """


def test_a_rebinding_after_the_last_call_cannot_go_stale_in_a_notebook() -> None:
    """TFL109 needs the function to run after the rebinding (tensorflow/docs' function
    guide demonstrates a pitfall, then rebinds the global for the next cell's example)."""
    diags = lint_source(textwrap.dedent(STALE_THEN_MOVE_ON), "t.ipynb", Settings())
    assert [d.code for d in diags if d.code == "TFL109"] == []
    # called once more after the rebinding: the graph keeps 2.0
    diags = lint_source(textwrap.dedent(STALE_THEN_MOVE_ON) + "f(tf.constant(3.0))\n", "t.ipynb", Settings())
    assert [(d.line, d.code) for d in diags if d.code == "TFL109"] == [(7, "TFL109")]


@pytest.mark.parametrize("use", [
    "run = f\n",                                # an alias may be called later
    "def later():\n    return f(tf.constant(1.0))\n",  # a function may run at any time
    "cb = lambda: f(tf.constant(1.0))\n",
])
def test_a_function_passed_on_may_still_run_after_the_rebinding(use: str) -> None:
    src = textwrap.dedent(STALE_THEN_MOVE_ON).replace("f(tf.constant(1.0))\n", use, 1)
    diags = lint_source(src, "t.ipynb", Settings())
    assert [d.code for d in diags if d.code == "TFL109"] == ["TFL109"]


def test_a_module_file_stays_conservative_on_rebinding() -> None:
    """Outside a project (or when another module imports it) a module's function may be
    called after the module has run: the rebinding is reported."""
    diags = lint_source(textwrap.dedent(STALE_THEN_MOVE_ON), "t.py", Settings())
    assert [d.code for d in diags if d.code == "TFL109"] == ["TFL109"]


def test_a_script_nobody_imports_is_judged_like_a_notebook(project, run) -> None:
    (project / "train.py").write_text(textwrap.dedent(STALE_THEN_MOVE_ON))
    assert "TFL109" not in run("check", "train.py").out
    (project / "other.py").write_text("from train import f\n")
    assert "train.py:7:16: TFL109" in run("check", "train.py").out


TRACE_LOCAL_ATTR = """\
    import tensorflow as tf


    class WGAN(tf.keras.Model):
        def train_step(self, data):
            self.batch_size = tf.shape(data)[0]
            return {"gp": self.penalty(data)}

        def penalty(self, data):
            return tf.random.uniform([self.batch_size]) * tf.reduce_mean(data)
    """


FINEGAN = """\
    import tensorflow as tf


    class FineGAN:
        def __init__(self):
            self.generator = tf.keras.Sequential([tf.keras.layers.Dense(4)])

        @tf.function
        def train_generator(self):
            noise = tf.random.normal([2, 8, 16])
            self.fake, self.masks = self.generator(noise)
            return tf.reduce_mean(self.discriminator(self.fake))

        def train_discriminator(self):
            return self.d_step(self.fake, self.masks)

        def train(self, batches):
            for batch in batches:
                self.fake, self.masks = {refresh}
                self.train_discriminator()
                self.train_generator()
    """


@pytest.mark.parametrize("refresh, expected", [
    ("self.generator(tf.random.normal([2, 8, 16]))", []),  # eager code stores its own value before reading
    ("None, None", [11, 11]),  # a literal reset: the eager read may see the trace's tensor
])
def test_a_tensor_attribute_that_eager_code_also_refreshes(refresh: str, expected: list[int]) -> None:
    """FineGAN (held-out set 4): ``train_model`` stores the generator's output eagerly
    before it calls the eager ``train_discriminator`` that reads it; the tf.function
    ``train_generator`` stores its own. Which store an eager read sees depends on the order
    of the calls, unknown here, so nothing is reported. The tuple target is a store, not
    a read."""
    src = textwrap.dedent(FINEGAN.format(refresh=refresh))
    assert [d.line for d in lint_source(src, "t.py", Settings()) if d.code == "TFL107"] == expected


def test_a_tensor_attribute_read_only_in_the_same_trace_is_not_state() -> None:
    """keras-io's wgan-graphs and molecule_generation: ``self.batch_size`` set from
    ``tf.shape`` in ``train_step`` and read by the helpers it calls (checked on TF 2.21:
    each batch, the last partial one included, sees its own size)."""
    src = textwrap.dedent(TRACE_LOCAL_ATTR)
    assert [d.code for d in lint_source(src, "t.ipynb", Settings()) if d.code == "TFL107"] == []
    # read by eager code too: a symbolic tensor leaks out of the trace
    leak = src + "\nmodel = WGAN()\nprint(model.batch_size)\n"
    assert [d.line for d in lint_source(leak, "t.ipynb", Settings()) if d.code == "TFL107"] == [6]
    # a public attribute of a module others may import: where their reads run is not
    # known, so nothing is reported on them
    assert [d.line for d in lint_source(src, "t.py", Settings()) if d.code == "TFL107"] == []
    # an eager method of the class reads it: reported, naming the reader and its line
    method = src + "\n    def report(self):\n        return int(self.batch_size)\n"
    (d,) = [d for d in lint_source(method, "t.py", Settings()) if d.code == "TFL107"]
    assert (d.line, "`report()` reads it eagerly at line 13" in d.message) == (6, True)
    # ... read in __init__ only, which runs before any trace: not reported
    init = src + "\n    def __init__(self):\n        super().__init__()\n        print(self.batch_size)\n"
    assert [d.line for d in lint_source(init, "t.py", Settings()) if d.code == "TFL107"] == []
    # a Python counter on self still changes once per trace
    counter = src.replace("self.batch_size = tf.shape(data)[0]", "self.steps = self.steps + 1")
    assert [d.line for d in lint_source(counter, "t.ipynb", Settings()) if d.code == "TFL107"] == [6]


# ------------------------------------------------------------------ dead branches

DEAD_FLAG = """\
    import tensorflow as tf

    DEBUG = {value}
    {setter}

    @tf.function
    def step(x):
        if DEBUG:
            print("in", x)
        if not DEBUG:
            pass
        else:
            print("else", x)
        return x
    """


def test_a_branch_a_module_constant_rules_out_is_not_reported() -> None:
    assert codes(DEAD_FLAG.format(value="False", setter="")) == []


def test_the_branch_a_true_constant_takes_is_reported() -> None:
    assert codes(DEAD_FLAG.format(value="True", setter="")) == [(9, "TFL101"), (13, "TFL101")]


@pytest.mark.parametrize("setter", [
    "def enable():\n        global DEBUG\n        DEBUG = True",  # a setter rebinds it
    "DEBUG = True",                                              # bound twice at module level
])
def test_a_flag_that_is_rebound_is_not_constant(setter: str) -> None:
    assert [c for _, c in codes(DEAD_FLAG.format(value="False", setter=setter))].count("TFL101") == 2


def test_a_local_or_parameter_of_the_flag_name_is_not_the_module_constant() -> None:
    src = """\
        import tensorflow as tf

        DEBUG = False

        @tf.function
        def step(x, DEBUG=True):
            if DEBUG:
                print("in", x)
            return x
        """
    assert codes(src) == [(8, "TFL101")]


def test_a_step_keras_cannot_call_is_no_keras_step() -> None:
    """``train_step(self, x, y)``: Keras calls ``train_step(data)``, so a step with two
    required parameters is the class's own method (IANNwTF homework, held-out set 20)."""
    src = """\
    import numpy as np
    import tensorflow as tf


    class M(tf.keras.Model):
        def train_step(self, x, y{default}):
            p = self(x)
            return np.mean(tf.argmax(y, 1) == tf.argmax(p, 1))
    """
    assert codes(src.format(default="")) == []
    assert codes(src.format(default="=None")) == [(8, "TFL104")]


FIT_OVERRIDE = """\
    import tensorflow as tf


    class FaceNet(tf.keras.Model):
        def train_step(self, data, global_step=0):
            loss = tf.reduce_mean(self(data))
            if self.moving_average and loss > global_step:
                loss = loss * 0.9
            return loss

        def fit(self, data, epochs=1):
            for step, batch in enumerate(data):
                self.train_step(batch, step)
            {super_fit}
    """


@pytest.mark.parametrize("super_fit, expected", [
    ("return None", []),                      # Keras' fit never runs: the step is eager
    ("return super().fit(data)", [(7, "TFL202")]),  # Keras' fit runs it under tf.function
])
def test_a_class_that_overrides_fit_runs_its_own_train_step(super_fit: str, expected: list) -> None:
    """tfwcn/tensorflow2-machine-vision's FaceNet (held-out set 4): the class overrides
    ``fit`` and calls ``train_step`` itself, so Keras never traces it."""
    assert codes(textwrap.dedent(FIT_OVERRIDE.format(super_fit=super_fit))) == expected


RUN_EAGERLY = """\
    import numpy as np
    import tensorflow as tf


    class EBM(tf.keras.Model):
        def train_step(self, data):
            n_new = np.random.binomial(8, 0.05)
            return {{"n": n_new}}


    ebm = EBM()
    ebm.compile(optimizer="adam"{eager})
    ebm.fit(tf.zeros([4, 2]))
    """


@pytest.mark.parametrize("eager, expected", [
    (", run_eagerly=True", []),   # fit runs train_step as Python
    ("", [(7, "TFL103")]),
])
def test_a_model_compiled_to_run_eagerly_has_eager_steps(eager: str, expected: list) -> None:
    """davidADSP's EBM notebook (held-out set 2): ``compile(..., run_eagerly=True)``, so the
    replay buffer's NumPy sampling in ``train_step`` runs on every step."""
    assert codes(RUN_EAGERLY.format(eager=eager)) == expected


PY_FUNC_ALIAS = """\
    import numpy as np
    import tensorflow as tf

    NEW_API = True


    def parse(filename):
        def my_py_func(filename):
            filename = filename.numpy()
            return np.float32(len(open(filename).readlines()))

        if NEW_API:
            threefun = {first}
        else:
            threefun = tf.py_func
        return threefun(my_py_func, [filename], tf.float32)


    ds = tf.data.Dataset.from_tensor_slices(["a.txt"]).map(parse)
    """


@pytest.mark.parametrize("first, expected", [
    ("tf.py_function", []),   # both bindings leave the graph: the function runs eagerly
    # one does not: it is traced (reading a file is configuration, or fails loudly on a
    # tensor path: TFL102 reports only writes)
    ("tf.identity", [(9, "TFL201")]),
])
def test_a_name_bound_to_py_function_runs_its_function_eagerly(first: str, expected: list) -> None:
    """aianaconda's dataset code (held-out set 8): ``threefun`` is ``tf.py_function`` or
    TensorFlow 1's ``tf.py_func``, chosen by ``if``."""
    assert codes(PY_FUNC_ALIAS.format(first=first)) == expected


SET_WIDTH = """\
    import tensorflow as tf


    def set_param(layer, actual=False):
        if actual:
            layer.w = tf.Variable(layer.w.numpy()[:2])
        else:
            layer.depth.assign(0.5)


    def set_width(model, width, actual=False):
        for layer in model.layers:
            set_param(layer, actual)
            set_param(layer.bn, actual=actual)   # a second call passing it on


    @tf.function
    def train_step(model, x):
        set_width(model, 0.5{traced})
        return x


    set_width(model, 1.0, actual=True)
    """


@pytest.mark.parametrize("traced, expected", [
    ("", []),                                        # the default: never taken while tracing
    (", actual=False", []),
    (", actual=True", [(6, "TFL301")]),             # traced with True: fails
    (", actual=flag", [(6, "TFL301")]),             # unknown: judged as before
])
def test_a_branch_on_a_parameter_that_traced_calls_leave_false_is_not_traced(traced, expected) -> None:
    """Autoslim (held-out set 17): ``set_param(layer, actual)`` is passed ``actual``'s
    default from the tf.function and ``True`` only from eager code."""
    assert codes(SET_WIDTH.format(traced=traced)) == expected


def test_a_tensor_condition_in_a_helper_of_a_keras3_call_names_the_call_site() -> None:
    """TFL601 in a function that a Keras 3 ``call`` calls: the message names the helper
    and the line of the call in ``call`` (found only for the finding itself)."""
    src = textwrap.dedent("""\
        import keras
        import tensorflow as tf


        def gate(x):
            if tf.reduce_sum(x) > 0:
                return x
            return -x


        class Gate(keras.layers.Layer):
            def call(self, x):
                return gate(x)


        model = keras.Sequential([keras.Input((3,)), Gate()])
        model.fit(tf.ones([4, 3]), tf.ones([4, 3]))
        """)
    (d,) = [d for d in lint_source(src, "t.py", Settings()) if d.code == "TFL601"]
    assert (d.line, "`gate`, called from Keras 3 `Gate.call` (line 13)" in d.message) == (6, True), d.message
