"""Python and NumPy calls whose effect or value is frozen when the function is traced."""

from __future__ import annotations

import libcst as cst

from tflint import fixes
from tflint.diagnostics import Severity
from tflint.rule import TRACED_MARKERS, Rule
from tflint.semantic import Ctx, dotted_name
from tflint.semantic.execution import eager_only_branch
from tflint.semantic.syntax import child_nodes, code as code_of

_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal",
                          "log", "vlog", "log_every_n", "log_first_n", "log_if"})
_LOGGER_FACTORIES = frozenset({"logging.getLogger", "absl.logging.get_absl_logger", "tensorflow.get_logger"})
_TRACE_WORDS = ("trac", "compil", "retrac")
#: a label that asks for a tensor's static form, which the symbolic tensor's text shows
#: (``print("shape of x:", x)``, Spanish ``"Forma de x: "``)
_STATIC_WORDS = ("shape", "forma de", "dtype", "形状")


def _names_a_shape(e: cst.BaseExpression) -> bool:
    """Does a printed value print a shape of its own (``x.shape``, ``f"... {x.shape}"``)?
    Then the tensor beside it is printed for its value."""
    stack: list[cst.CSTNode] = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Attribute) and n.attr.value in ("shape", "get_shape"):
            return True
        stack.extend(child_nodes(n))
    return False


def _string_parts(e: cst.BaseExpression):
    if isinstance(e, cst.SimpleString):
        yield e.value
    elif isinstance(e, cst.ConcatenatedString):
        yield from _string_parts(e.left)
        yield from _string_parts(e.right)
    elif isinstance(e, cst.FormattedString):
        for p in e.parts:
            if isinstance(p, cst.FormattedStringText):
                yield p.value
    elif isinstance(e, cst.BinaryOperation):
        yield from _string_parts(e.left)
        yield from _string_parts(e.right)
    elif isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "format":
        yield from _string_parts(e.func.value)


class PrintInTracedCode(Rule):
    """`print`, `logging` or `warnings.warn` of a tensor in traced code.

    ## What it does
    Flags `print(...)`, `logging.*(...)`, `logger.*(...)` and `warnings.warn(...)` calls
    inside traced code when one of the printed values is a tensor, or a tuple, list or
    dict display or an f-string that holds one (`print(f"box {x0, y0}")`), or the list
    `tape.gradient(loss, [w])` returns. A tensor formatted with a format spec (`print(f"loss {loss:.4f}")`) is reported as the error
    it is: a symbolic tensor refuses the spec, and tracing fails with `TypeError`. A call
    that prints no tensor is flagged only in a branch of a tensor `if` (or a tensor
    `while`) that AutoGraph converts: it runs while tracing whatever the condition, so
    `print("Error: ...")` under `if tf.reduce_min(x) < 0:` prints on the first call even
    when nothing is wrong, and never again.

    ## Why is this bad?
    Python side effects run while TensorFlow traces the function, not when the graph runs.
    The line is printed once per trace (usually once in total), and what it shows is a
    symbolic tensor such as `Tensor("mul:0", shape=(), dtype=float32)`, not a value.
    Printing static information (`x.shape`, `x.dtype`, Python settings) or a message about
    tracing itself is deliberate and is not flagged, nor is a message under a type check
    (`if not isinstance(images, list): logging.warning(...)`): the type is fixed for a
    trace, and one message per trace says all there is; nor is a print labelled as showing a
    shape or a dtype (`print("shape of y:", y)`), which the symbolic tensor's text shows, nor
    one whose comment above shows the symbolic `Tensor("...")` it prints (a course showing
    per-replica tensors). Also flags `tf.print` of a string that
    Python formats from a tensor (`tf.print(f"loss {loss}")`, `"%s" % t`, `"{}".format(t)`):
    the string is made while tracing and holds the symbolic tensor's description.

    ## Example
    ```python
    @tf.function
    def train_step(x):
        loss = tf.reduce_mean(x)
        print("loss", loss)
        return loss
    ```

    ## Use instead
    ```python
    @tf.function
    def train_step(x):
        loss = tf.reduce_mean(x)
        tf.print("loss", loss)
        return loss
    ```

    ## Fix safety
    Replacing `print(...)` with `tf.print(...)` is safe when the call passes only
    positional arguments and `sep=`/`end=`, which `tf.print` accepts with the same
    meaning: the line is then printed on every call, with values, which is what the
    code meant. A `print` of one f-string becomes `tf.print` of its pieces
    (`print(f"x = {x}")` -> `tf.print("x =", x)`, with `sep=""` where the spacing needs
    it); an f-string with a format spec or a conversion (`{x:.3f}`, `{x!r}`) gets no fix.
    Calls with `file=` or `flush=` get no fix, nor do `logging` and
    `warnings` calls. The fix uses the module's own alias of TensorFlow (`tf`,
    `tensorflow`) and adds `import tensorflow as tf` when there is none.

    ## References
    - [Better performance with tf.function: Executing Python side effects](https://www.tensorflow.org/guide/function#executing_python_side_effects)
    - [tf.print](https://www.tensorflow.org/api_docs/python/tf/print)
    """

    CODE = "TFL101"
    NAME = "print-in-traced-code"
    MESSAGE = "`{what}` of a tensor runs once while tracing, not on every call; use `tf.print`"
    BRANCH_MESSAGE = ("`{what}` under a tensor condition runs while tracing, once for each branch, whatever the "
                      "condition turns out to be, and never when the graph runs; use `tf.print`")
    FORMAT_MESSAGE = ("`tf.print` of a string formatted from a tensor: Python formats it once while tracing, so "
                      "every call prints `Tensor(\"...\")`, not the value; pass the tensor as its own argument "
                      "or use `tf.strings.format`")
    SPEC_MESSAGE = ("`{what}` formats the tensor `{name}` with a format spec: a symbolic tensor refuses it, so "
                    "tracing fails with TypeError; use `tf.print` (with `tf.strings.as_string` for the precision)")
    SEVERITY = Severity.INFO
    PITFALLS = ("P01",)
    VALID = (
        '''import tensorflow as tf

@tf.function
def f(x):
    print("Tracing with", x)        # deliberate: shows when the function retraces
    print("input shape:", x.shape)  # static information, printed once on purpose
    tf.print("value:", x)
    return x * 2
''',
        '''import logging
import tensorflow as tf

def report(x):
    logging.info("result %s", x)    # eager code: runs every call

@tf.function
def g(x):
    y = tf.py_function(lambda v: print(v), [x], [])   # py_function bodies run eagerly
    return x
''',
        '''import numpy as np
import tensorflow as tf

def get_loader():
    def load(path):
        print("loading", path)          # py_func runs it in Python for every element
        return np.zeros((1, 5))
    return load

def load_data(path):
    return tf.compat.v1.py_func(get_loader(), [path], [tf.float64])[0]

ds = tf.data.Dataset.from_tensor_slices([b"a", b"b"]).map(load_data)

class Generator:
    def _load(self, row):
        load_boxes = self._box_loader(3)
        return tf.compat.v1.py_func(load_boxes, [row], [tf.float64])[0]

    def _box_loader(self, n):
        def load_boxes(path):
            print(path, n)                  # the same: py_func runs it
            return np.zeros((n, 5))
        return load_boxes

    def dataset(self):
        return tf.data.Dataset.from_tensor_slices([b"a"]).map(self._load)
''',
        '''import tensorflow as tf

DEBUG = False

@tf.function
def step(x):
    if DEBUG:                        # never runs while DEBUG is False
        print("step input", x)
    return x * 2
''',
'''import tensorflow as tf

NAMES = ["a", "b"]

@tf.function
def report(x):
    tf.print(f"input of shape {x.shape}:", x)        # a static shape, and the tensor apart
    tf.print("%d classes" % len(NAMES), x)
    tf.print("{}: {}".format("mean", "x"), tf.reduce_mean(x))
    return x
''',
'''import logging
import tensorflow as tf

def visualize(images, step):
    if not isinstance(images, list):
        logging.warning("expects a list of images, got %s: %s", type(images), images)
        return
    for image in images:
        tf.summary.image("image", image, step=step)

@tf.function
def test_step(x, step):
    visualize(x * 2.0, step)
    return x
''',
        '''import tensorflow as tf
from tensorflow.python.framework import ops

@tf.function
def f(x):
    print("graph in f:", ops.get_default_graph())   # the FuncGraph: it only exists while tracing
    print(tf.compat.v1.get_default_graph().name)
    return x ** 2
''',
        '''import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
loss_object = tf.keras.losses.SparseCategoricalCrossentropy(reduction="none")


def compute_loss(labels, predictions):
    per_example_loss = loss_object(labels, predictions)
    # Print it to see one entry per replica, like this:
    # Tensor("replica_1/sparse_categorical_crossentropy/Mul:0", shape=(48,), dtype=float32)
    print(per_example_loss)
    return tf.nn.compute_average_loss(per_example_loss, global_batch_size=96)


@tf.function
def distributed_step(labels, predictions):
    return strategy.run(compute_loss, args=(labels, predictions))
''',
        '''import keras
import tensorflow as tf


class Solver(keras.models.Sequential):
    def train_step(self, data):
        x, y = data
        y_pred = self(x, training=True)
        print("Forma de y_pred: ", y_pred)      # the shape, once per trace, on purpose
        return {"loss": tf.reduce_mean((y - y_pred) ** 2)}
''',
        '''import tensorflow as tf


class Export(tf.Module):
    def __init__(self, model):
        self.model = model

    @tf.function(input_signature=[tf.TensorSpec([None, None, 3], tf.uint8)])
    def serve(self, image):
        features = self.model(tf.cast(image, tf.float32)[None])
        print("features:", features)   # traced once, by the export: shows what it builds
        return {"features": features}


module = Export(tf.keras.applications.MobileNetV2())
tf.saved_model.save(module, "export", signatures={"serving_default": module.serve})
''',
        '''import numpy as np
import tensorflow as tf
from tensorflow import keras


def debug_loss(y_true, y_pred):
    print("predictions:", y_pred)          # compiled with run_eagerly=True: every step
    return tf.reduce_mean(tf.square(y_true - y_pred))


model = keras.Sequential([keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=debug_loss, run_eagerly=True)
model.fit(np.zeros((8, 2)), np.zeros((8, 1)))
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def f(x):
    y = x * 2
    print("y =", y)  # TFL101
    return y
''',
        '''import logging
import tensorflow as tf

logger = logging.getLogger(__name__)

class Model(tf.keras.Model):
    def train_step(self, data):
        x, y = data
        loss = self.compiled_loss(y, self(x))
        logger.info("loss %s", loss)  # TFL101
        return {"loss": loss}
''',
        '''from tensorflow import function

@function
def g(x):
    print("x:", x, sep=" ")  # TFL101
    return x
''',
        '''import tensorflow as tf

class Head(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(2)

    def call(self, x):
        out = self.dense(x)
        print("outputs", out)  # TFL101
        return out

model = Head()

@tf.function
def train_step(x):
    return model(x)
''',
        '''import tensorflow as tf

@tf.function
def tf_cube(x):
    print(f"x = {x}")  # TFL101
    return x ** 3

result = tf_cube(tf.constant(2.0))
result = tf_cube(2)
''',
        '''import tensorflow.compat.v2 as tf

class Model(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(2)

    def call(self, x):
        outputs = self.dense(x)
        print(outputs)  # TFL101
        return outputs

model = Model()

@tf.function
def train_step(x):
    return model(x)
''',
        '''import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()

def train_step(inputs):
    return tf.reduce_mean(inputs)

@tf.function
def distributed_train_step(inputs):
    per_replica_losses = strategy.run(train_step, args=(inputs,))
    print(per_replica_losses)  # TFL101
    loss = strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)
    print("loss", loss)  # TFL101
    return loss
''',
'''import tensorflow as tf

@tf.function(input_signature=[tf.TensorSpec((), tf.string)])
def load(path):
    data = tf.io.read_file(path)
    tf.print(f"image({path}) size is zero")  # TFL101
    tf.print("read %s" % path)  # TFL101
    return data
''',
        '''import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(2, activation="softmax")])

@tf.function
def train_step(x, y):
    loss = tf.keras.losses.categorical_crossentropy(y, model(x))
    print(f"loss: {loss}, box: {x[0], x[1]}")  # TFL101
    print((loss, y))  # TFL101
    print(f"loss: {tf.reduce_mean(loss):.4f}")  # TFL101
    return loss
''',
        '''import tensorflow as tf

class Solver:
    def __init__(self, col_weights):
        self.col_weights = col_weights

@tf.function
def train_step(obj, idx):
    obj.batch_weights = tf.gather(obj.col_weights, idx)
    print(obj.batch_weights)  # TFL101
    return obj.batch_weights
''',
        '''import tensorflow as tf

@tf.function
def solve(x, y0):
    if tf.reduce_min(x - y0) >= 1e-3:
        print("Error: first point is not the initial value")  # TFL101
    return x
''',
        '''import tensorflow as tf

w = tf.Variable(1.0)


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        loss = w * x
    gradients = tape.gradient(loss, [w])
    print(gradients)  # TFL101
    return loss
''',
        '''import tensorflow as tf


@tf.function
def attend(query, keys):
    scores = tf.matmul(query, keys, transpose_b=True)
    print(f"scores {scores}, shape {scores.shape}")  # TFL101
    return tf.nn.softmax(scores)
''',
        '''import tensorflow as tf
from tensorflow import keras


class Sampling(keras.layers.Layer):
    def call(self, inputs):
        mu, logvar = inputs
        print("mu:", mu)  # TFL101
        return mu + tf.exp(0.5 * logvar)


class VAE(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(4)
        self.sampling = Sampling()

    def call(self, x):
        h = self.dense(x)
        return self.sampling((h, h))

    def train_step(self, data):
        with tf.GradientTape() as tape:
            z = self(data, training=True)    # fit traces train_step, and call with it
            loss = tf.reduce_mean(z)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}
''',
        '''import numpy as np
import tensorflow as tf
from tensorflow import keras


class WeightedLoss(keras.losses.Loss):
    def call(self, y_true, y_pred):
        loss = tf.reduce_mean(tf.square(y_true - y_pred))
        print("loss:", loss)  # TFL101
        return loss


model = keras.Sequential([keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=WeightedLoss())   # fit calls it in its graph
model.fit(np.zeros((8, 2)), np.zeros((8, 1)))
''',    )
    FIXED = (
        (13, '''import tensorflow as tf
from tensorflow import keras


class Sampling(keras.layers.Layer):
    def call(self, inputs):
        mu, logvar = inputs
        tf.print("mu:", mu)  # TFL101
        return mu + tf.exp(0.5 * logvar)


class VAE(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(4)
        self.sampling = Sampling()

    def call(self, x):
        h = self.dense(x)
        return self.sampling((h, h))

    def train_step(self, data):
        with tf.GradientTape() as tape:
            z = self(data, training=True)    # fit traces train_step, and call with it
            loss = tf.reduce_mean(z)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}
'''),
        (14, '''import numpy as np
import tensorflow as tf
from tensorflow import keras


class WeightedLoss(keras.losses.Loss):
    def call(self, y_true, y_pred):
        loss = tf.reduce_mean(tf.square(y_true - y_pred))
        tf.print("loss:", loss)  # TFL101
        return loss


model = keras.Sequential([keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=WeightedLoss())   # fit calls it in its graph
model.fit(np.zeros((8, 2)), np.zeros((8, 1)))
'''),
        (12, '''import tensorflow as tf


@tf.function
def attend(query, keys):
    scores = tf.matmul(query, keys, transpose_b=True)
    tf.print("scores ", scores, ", shape ", scores.shape, sep="")  # TFL101
    return tf.nn.softmax(scores)
'''),
        (10, '''import tensorflow as tf

@tf.function
def solve(x, y0):
    if tf.reduce_min(x - y0) >= 1e-3:
        tf.print("Error: first point is not the initial value")  # TFL101
    return x
'''),
        (9, '''import tensorflow as tf

class Solver:
    def __init__(self, col_weights):
        self.col_weights = col_weights

@tf.function
def train_step(obj, idx):
    obj.batch_weights = tf.gather(obj.col_weights, idx)
    tf.print(obj.batch_weights)  # TFL101
    return obj.batch_weights
'''),
        (0, '''import tensorflow as tf

@tf.function
def f(x):
    y = x * 2
    tf.print("y =", y)  # TFL101
    return y
'''),
        (2, '''from tensorflow import function
import tensorflow as tf

@function
def g(x):
    tf.print("x:", x, sep=" ")  # TFL101
    return x
'''),
        (3, '''import tensorflow as tf

class Head(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(2)

    def call(self, x):
        out = self.dense(x)
        tf.print("outputs", out)  # TFL101
        return out

model = Head()

@tf.function
def train_step(x):
    return model(x)
'''),
        (4, '''import tensorflow as tf

@tf.function
def tf_cube(x):
    tf.print("x =", x)  # TFL101
    return x ** 3

result = tf_cube(tf.constant(2.0))
result = tf_cube(2)
'''),
        (5, '''import tensorflow.compat.v2 as tf

class Model(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(2)

    def call(self, x):
        outputs = self.dense(x)
        tf.print(outputs)  # TFL101
        return outputs

model = Model()

@tf.function
def train_step(x):
    return model(x)
'''),
        (6, '''import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()

def train_step(inputs):
    return tf.reduce_mean(inputs)

@tf.function
def distributed_train_step(inputs):
    per_replica_losses = strategy.run(train_step, args=(inputs,))
    tf.print(per_replica_losses)  # TFL101
    loss = strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)
    tf.print("loss", loss)  # TFL101
    return loss
'''),
        (8, '''import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(2, activation="softmax")])

@tf.function
def train_step(x, y):
    loss = tf.keras.losses.categorical_crossentropy(y, model(x))
    tf.print("loss: ", loss, ", box: ", (x[0], x[1]), sep="")  # TFL101
    tf.print((loss, y))  # TFL101
    print(f"loss: {tf.reduce_mean(loss):.4f}")  # TFL101
    return loss
'''),
        (11, '''import tensorflow as tf

w = tf.Variable(1.0)


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        loss = w * x
    gradients = tape.gradient(loss, [w])
    tf.print(gradients)  # TFL101
    return loss
'''),
    )

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        what = self._kind(node, ctx)
        if what is None:
            if self.sem.resolves_to(node.func, {"tensorflow.print"}):
                for a in node.args:
                    if a.keyword is None and self._formats_a_tensor(a.value, ctx):
                        self.report(node, self.FORMAT_MESSAGE, ctx=ctx)
                        return
            return
        if self.sem.in_type_dispatch(ctx):
            return  # ``if not isinstance(images, list): logging.warning(...)``: a type is fixed per trace
        values = [a.value for a in node.args if a.keyword is None or a.keyword.value not in ("file", "sep", "end",
                                                                                           "flush", "exc_info")]
        spec = next((p.expression for v in values if isinstance(v, cst.FormattedString) for p in v.parts
                     if isinstance(p, cst.FormattedStringExpression) and p.format_spec is not None and
                     self.sem.strong_tensor(p.expression, ctx.fn)), None)
        if spec is not None:
            self.report(node, self.SPEC_MESSAGE.format(what=what, name=code_of(spec)), ctx=ctx)
            return
        shows_shape = any(_names_a_shape(v) for v in values)
        for v in values:
            for s in _string_parts(v):
                if any(w in s.lower() for w in _TRACE_WORDS):
                    return
                if not shows_shape and any(w in s.lower() for w in _STATIC_WORDS):
                    return  # ``print("Forma de y:", y)``: the shape is what it is for
        if 'Tensor("' in self.sem.comments_above(node):
            return  # the comment above shows the symbolic ``Tensor("...")`` it prints: on purpose
        if self.sem.traced_only_to_export(ctx.fn):
            return  # traced once, to export it (a serving signature): the print shows what it builds
        if not any(self.sem.renders_a_tensor(v, ctx.fn) for v in values):
            if self.sem.under_converted_tensor_condition(ctx):
                self.report(node, self.BRANCH_MESSAGE.format(what=what), ctx=ctx,
                            fix=self._fix(node, ctx) if what == "print" else None)
            return
        self.report(node, self.MESSAGE.format(what=what), ctx=ctx,
                    fix=self._fix(node, ctx) if what == "print" else None)

    @fixes.offered_only_if_built
    def _fix(self, node: cst.Call, ctx: Ctx):
        """``print(...)`` -> ``tf.print(...)``: safe when only positional arguments
        (``*args`` too) and ``sep``/``end`` are passed; ``file=``/``flush=`` have no
        ``tf.print`` equivalent with the same meaning."""
        if any(a.star == "**" or (a.keyword is not None and a.keyword.value not in ("sep", "end"))
               for a in node.args):
            return None
        args = list(node.args)
        formatted = [a for a in args if a.keyword is None and self._formats_a_tensor(a.value, ctx)]
        if formatted:
            # ``print(f"loss = {loss}")`` -> ``tf.print("loss =", loss)``: a formatted
            # string would be formatted once, at trace, with the symbolic tensor
            positional = [a for a in args if a.keyword is None]
            if len(positional) != 1 or not isinstance(positional[0].value, cst.FormattedString) or \
                    any(a.keyword is not None and a.keyword.value == "sep" for a in args):
                return None
            parts = fixes.fstring_print_args(positional[0].value)
            if parts is None:
                return None
            args = parts + [a for a in args if a.keyword is not None]
        tf_mod = fixes.tensorflow_module(self.sem, ctx)
        if tf_mod is None:
            return None
        alias, imports = tf_mod
        new = node.with_changes(func=fixes.attr(f"{alias}.print"), args=fixes._commas(args) if formatted else args)
        return self.replace(node, new, safe=True, title=f"Replace `print` with `{alias}.print`", imports=imports)

    def _formats_a_tensor(self, v: cst.BaseExpression, ctx: Ctx) -> bool:
        """``f"image({path})"``, ``"%s" % path`` or ``"{}".format(path)`` with a tensor
        ``path``: Python formats the symbolic tensor while tracing."""
        sem = self.sem
        if isinstance(v, cst.FormattedString):
            return sem.renders_a_tensor(v, ctx.fn)
        if isinstance(v, cst.BinaryOperation) and isinstance(v.operator, cst.Modulo) and \
                isinstance(v.left, (cst.SimpleString, cst.ConcatenatedString)):
            right = v.right
            items = [e.value for e in right.elements] if isinstance(right, cst.Tuple) else [right]
            return any(sem.is_tensor(e, ctx.fn) for e in items)
        if isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and v.func.attr.value == "format" and \
                isinstance(v.func.value, (cst.SimpleString, cst.ConcatenatedString)):
            return any(sem.is_tensor(a.value, ctx.fn) for a in v.args)
        return False

    def _kind(self, node: cst.Call, ctx: Ctx) -> str | None:
        sem = self.sem
        func = node.func
        if sem.is_builtin(func, "print", ctx.fn):
            return "print"
        for q in sem.qualified(func):
            if q == "warnings.warn":
                return "warnings.warn"
            head, _, last = q.rpartition(".")
            if head in ("logging", "absl.logging", "tensorflow.compat.v1.logging") \
                    and last in _LOG_METHODS:
                return q
        if isinstance(func, cst.Attribute) and func.attr.value in _LOG_METHODS and isinstance(func.value, cst.Name):
            n = func.value.value
            for v in sem.module_assigns.get(n, ()):
                if isinstance(v, cst.Call) and sem.resolves_to(v.func, _LOGGER_FACTORIES):
                    return f"{n}.{func.attr.value}"
        if isinstance(func, cst.Attribute) and func.attr.value in _LOG_METHODS and isinstance(func.value, cst.Call) \
                and sem.resolves_to(func.value.func, _LOGGER_FACTORIES):
            return f"{dotted_name(func.value.func)}().{func.attr.value}"
        return None


_CLOCKS = {
    "time.time", "time.time_ns", "time.perf_counter", "time.perf_counter_ns", "time.monotonic",
    "time.monotonic_ns", "time.process_time", "time.process_time_ns", "datetime.datetime.now",
    "datetime.datetime.utcnow", "datetime.datetime.today", "datetime.date.today", "timeit.default_timer",
}
_IO = {
    "os.urandom", "uuid.uuid1", "uuid.uuid4", "builtins.open", "io.open",
    "urllib.request.urlopen", "requests.get", "requests.post", "socket.socket", "secrets.token_bytes",
    "secrets.token_hex", "secrets.randbelow", "subprocess.run", "subprocess.check_output", "os.listdir",
    "glob.glob", "pickle.load", "json.load",
}


class PythonIoOrClock(Rule):
    """A clock or Python I/O in traced code.

    ## What it does
    Flags `time.time()`, `datetime.now()`, `open(...)`, `input(...)`, `uuid.uuid4()` and
    similar Python calls inside traced code. A clock read is flagged when its value
    reaches the graph (returned, or passed to a TensorFlow op, directly or through local
    names); timing the Python work of the trace itself and logging the duration is
    deliberate and is not flagged. Reading the environment (`os.environ[...]`,
    `os.getenv(...)`) or a file (`open(path)`, `open(path, "r")`: class names, a
    vocabulary) is not flagged: application code sets them once, before training, as
    configuration, and reading them once per trace is what it means. Opening a file to
    write or append is.

    ## Why is this bad?
    They run once, while TensorFlow traces the function. Their result is baked into the
    graph as a constant: every later call sees the same timestamp, the same environment
    file contents, and writes happen once per trace rather than once per call.

    ## Example
    ```python
    @tf.function
    def step(x):
        start = time.time()
        y = model(x)
        return y, time.time() - start
    ```

    ## Use instead
    ```python
    @tf.function
    def step(x):
        return model(x)

    start = time.time()
    y = step(x)
    elapsed = time.time() - start   # time the call from eager code
    ```
    Read configuration before tracing and pass it in; use `tf.timestamp()` for a clock
    inside the graph, and `tf.io` ops for per-call file I/O.

    ## References
    - [Better performance with tf.function: Executing Python side effects](https://www.tensorflow.org/guide/function#executing_python_side_effects)
    - [tf.timestamp](https://www.tensorflow.org/api_docs/python/tf/timestamp)
    """

    CODE = "TFL102"
    NAME = "python-io-or-clock"
    MESSAGE = "`{what}` runs once while tracing; its value is frozen into the graph"
    SEVERITY = Severity.WARNING
    PITFALLS = ("P08",)
    VALID = (
        '''import os
import tensorflow as tf

def should_log_debug_info():
    return int(os.environ.get("debug_mode", "0")) > 0   # configuration, set at start-up

@tf.function
def train_step(x):
    if should_log_debug_info():
        tf.print("step input", x)
    return x * float(os.environ["SCALE"])

os.environ["debug_mode"] = "1"
train_step(tf.constant(1.0))
''',
        '''import tensorflow as tf

def read_class_names(path):
    with open(path, "r") as data:                   # configuration, read while tracing
        return {i: name.strip() for i, name in enumerate(data)}

@tf.function
def compute_loss(conv):
    n = len(read_class_names("classes.txt"))
    return tf.reduce_sum(tf.reshape(conv, (tf.shape(conv)[0], -1, 5 + n)), axis=1)
''',
        '''import time
import tensorflow as tf

@tf.function
def step(x):
    t = tf.timestamp()
    return x * 2, t

start = time.time()
step(tf.constant(1.0))
print(time.time() - start)
''',
        '''import logging
import time
import tensorflow as tf

@tf.function
def step(x):
    start = time.time()
    y = tf.nn.relu(x)
    logging.info("built in %.3f s", time.time() - start)   # times the trace itself
    return y
''',
        '''import tensorflow as tf

class Sampler:
    def setup(self):
        tf.config.run_functions_eagerly(True)   # the module's tf.functions run as Python

    @tf.function
    def run_chain(self, x):
        with open("chain.pkl", "ab") as f:      # once per call, as meant
            f.write(b"x")
        return x

sampler = Sampler()
sampler.setup()
sampler.run_chain(tf.zeros([2]))
''',
    )
    INVALID = (
        '''import os
import time
import tensorflow as tf

@tf.function
def step(x):
    t0 = time.time()  # TFL102
    open(os.path.join("logs", "steps.txt"), "a").write("step\\n")  # TFL102
    return x, t0
''',
        '''import datetime
import tensorflow as tf

def stamp(x):
    return x, datetime.datetime.now().isoformat()  # TFL102

dataset = tf.data.Dataset.range(10).map(stamp)
''',
        '''import functools
import time
import tensorflow as tf

def timing(f):
    @functools.wraps(f)
    def wrapper(*args):
        start = time.time()  # TFL102
        result = f(*args)
        return result, time.time() - start  # TFL102
    return wrapper

@tf.function            # traces the wrapper: the duration is the trace's, on every call
@timing
def derivatives(x):
    return x * 2
''',
    )

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        sem = self.sem
        if ctx.fn is not None and sem.runs_once(ctx.fn):
            return  # its one trace is its one run: what it reads is what an eager run reads
        for name in ("open", "input"):
            if sem.is_builtin(node.func, name, ctx.fn):
                if name == "open" and not _opens_to_write(node):
                    return  # reading a file (class names, a vocabulary): configuration
                self.report(node, self.MESSAGE.format(what=f"{name}()"), ctx=ctx)
                return
        for q in sem.qualified(node.func):
            if q in _IO or q in _CLOCKS and _clock_reaches_graph(sem, node, ctx):
                self.report(node, self.MESSAGE.format(what=q + "()"), ctx=ctx)
                return


def _opens_to_write(call: cst.Call) -> bool:
    """``open(path, "w")`` and other modes that write, append or create; a mode that is not
    a literal counts as one (only ``open(path)`` and ``"r"``/``"rb"``/... are reads)."""
    mode = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "mode"), None)
    if mode is None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) < 2:
            return any(a.star for a in call.args)
        mode = positional[1].value
    if not isinstance(mode, cst.SimpleString):
        return True
    return any(c in mode.evaluated_value for c in "wax+")


def _clock_reaches_graph(sem, call: cst.Call, ctx: Ctx) -> bool:
    """Does the value of a clock read end up in the graph: returned, or given to a
    TensorFlow op, directly or through local names? Reads used only for Python-side
    timing of the trace (durations logged or sent to metrics) are deliberate."""
    fn = ctx.fn
    if fn is None:
        return True
    tainted: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, values in fn.assigns.items():
            if name not in tainted and any(_mentions(v, call, tainted) for v in values):
                tainted.add(name)
                changed = True
    if any(_mentions(r, call, tainted) for r in fn.returns):
        return True
    for other, _ in fn.calls:
        if other is not call and sem.op_of(other) is not None and any(_mentions(a.value, call, tainted) for a in other.args):
            return True
    # an argument of the call that contains it: e.g. tf.constant(time.time())
    return False


def _mentions(expr: cst.CSTNode, call: cst.Call, names: set[str]) -> bool:
    stack = [expr]
    while stack:
        n = stack.pop()
        if n is call or isinstance(n, cst.Name) and n.value in names:
            return True
        stack.extend(child_nodes(n))
    return False


#: setting TensorFlow's global seed: eagerly it restarts the random ops' sequences; in
#: traced code it runs once, while tracing (checked on 2.21)
_GLOBAL_SEED_SETTERS = frozenset({"tensorflow.random.set_seed", "tensorflow.compat.v1.set_random_seed",
                                  "tensorflow.compat.v1.random.set_random_seed", "tensorflow.set_random_seed",
                                  "tensorflow.keras.utils.set_random_seed", "keras.utils.set_random_seed"})


def _tf_short(q: str) -> str:
    return "tf." + q[len("tensorflow."):] if q.startswith("tensorflow.") else q


_RNG_NOT_SAMPLING = frozenset({"RandomState", "default_rng", "Generator", "SeedSequence", "PCG64", "PCG64DXSM",
                               "MT19937", "Philox", "SFC64", "BitGenerator", "seed", "get_state", "set_state",
                               "Random", "SystemRandom", "getstate", "setstate"})


class PythonRandom(Rule):
    """Python `random` or NumPy `np.random` sampling in traced code.

    ## What it does
    Flags calls such as `np.random.normal(...)`, `np.random.randint(...)`,
    `random.random()` and `random.choice(...)` inside traced code. Not in a
    `@tf.function` that runs once: a notebook or script that calls it once, outside any
    loop, and nothing else can call it (its one trace is its one run); nor a draw that
    only seeds ops (`seed=`) or is assigned to a name nothing reads. Also
    `tf.random.set_seed` (and `keras.utils.set_random_seed`) in traced code: it runs
    once, while tracing, so the random ops after it no longer start over, on each call
    or where it is called again in the same function, as they do eagerly (checked on
    2.21). Not in the body of `if seed is not None:` when every traced call leaves
    `seed` `None`.

    ## Why is this bad?
    The Python or NumPy generator runs once, while the function is traced; the number it
    draws becomes a constant of the graph. Every call, and every element a `tf.data`
    `map` function sees, gets the same "random" value. TensorFlow gives no warning.
    Building a seeded generator (`np.random.RandomState(0)`, `default_rng(0)`) is not
    flagged: it is deterministic on purpose.

    ## Example
    ```python
    def augment(image):
        noise = np.random.normal(0.0, 0.1)
        return image + noise

    ds = ds.map(augment)
    ```

    ## Use instead
    ```python
    def augment(image):
        return image + tf.random.normal([], 0.0, 0.1)

    ds = ds.map(augment)
    ```
    or a `tf.random.Generator` / stateless random op with an explicit seed.

    ## Fix safety
    The fix is unsafe. It replaces the common samplers by the `tf.random` op drawing
    from the same distribution: `np.random.normal/uniform/randint/rand/randn/random`
    (NumPy's `size` becomes the shape: `None` -> `[]`, `n` -> `[n]`, a tuple -> a list;
    a `size` held in a variable gets no fix) and `random.random/uniform/gauss/randint/
    randrange` (shape `[]`; `randint`'s inclusive upper bound becomes `b + 1`). The
    numbers come from another generator (seeds and `np.random.seed` no longer apply),
    the result is a tensor rather than a Python or NumPy number, and the default dtype
    differs (`float32` instead of `float64`; `randint` gets `dtype=tf.int64`, or
    `tf.int32` for Python's `random`).

    ## References
    - [Random number generation](https://www.tensorflow.org/guide/random_numbers)
    - [tensorflow/tensorflow#60848](https://github.com/tensorflow/tensorflow/issues/60848)
    """

    CODE = "TFL103"
    NAME = "python-random"
    MESSAGE = "`{what}` draws once while tracing: every call gets the same number; use `tf.random`"
    SEED_MESSAGE = ("`{what}` sets the global seed once, while tracing: the random ops after it do not start "
                    "over, on each call or where it is called again, as they do eagerly; give stateless random "
                    "ops (`tf.random.stateless_uniform`) a fixed seed instead")
    SEVERITY = Severity.WARNING
    PITFALLS = ("P08",)
    #: also the ``call`` of Keras layers and models, which ``fit`` and ``predict`` trace
    TRACED_ONLY = False
    TEXT_MARKERS = TRACED_MARKERS + (r"def call\(",)
    VALID = (
        '''import numpy as np
import tensorflow as tf


def forward(x):
    # a mock-up model for a converter test: its one trace makes these its constant weights
    w = np.random.random((3, 3, 3, 8)).astype(np.float32)
    return tf.nn.relu6(tf.nn.conv2d(x, w, strides=1, padding="SAME"))


f = tf.function(forward)
concrete = f.get_concrete_function(tf.TensorSpec([1, 32, 32, 3], tf.float32))
tflite_model = tf.lite.TFLiteConverter.from_concrete_functions([concrete]).convert()
with open("model.tflite", "wb") as f:
    f.write(tflite_model)
''',
        '''import numpy as np
import tensorflow as tf

@tf.function
def augment(x):
    return x + tf.random.normal(tf.shape(x))

PROJECTION = np.random.RandomState(0).randn(4, 4)   # eager, module level

def make_batch():
    return np.random.rand(8, 4)   # eager code

tf.random.set_seed(42)   # eager: sets the seed for what follows
np.random.seed(0)

def shuffled(x):
    return np.random.permutation(x)   # run eagerly by the loop below, never handed to map

for step in [shuffled]:
    batch = step(make_batch())
''',
        # the branch runs only where the seed is given, and only eager code gives it
        # (clear-diffusion-keras); Keras calls train_step with the data alone
        '''import numpy as np
import tensorflow as tf
import keras

class Diffusion(keras.Model):
    def generate(self, num_images, seed=None):
        if seed is not None:
            tf.random.set_seed(seed)
        return tf.random.normal((num_images, 8), seed=seed)

    def test_step(self, images):
        generated = self.generate(4, seed=None)
        return {"mean": tf.reduce_mean(generated)}

    def train_step(self, images, variable_noise=False):
        if variable_noise:
            noise = np.random.normal(size=(8, 8))
        return {}

    def plot_images(self, seed=42):
        return self.generate(8, seed)           # eager: a callback
''',
        '''import random
import tensorflow as tf

def horizontal(x, y):
    seed = int(random.random() * 1234.)      # one op seed for the image and its mask
    x = tf.image.random_flip_left_right(x, seed=seed)
    y = tf.image.random_flip_left_right(y, seed=seed)
    return x, y

def vertical(x):
    return tf.image.random_flip_up_down(x, seed=random.randint(0, 99))

pairs = tf.data.Dataset.from_tensor_slices((tf.zeros([4, 2, 2, 1]), tf.zeros([4, 2, 2, 1])))
pairs = pairs.map(horizontal).map(lambda x, y: (vertical(x), y))
''',
'''import numpy as np
import tensorflow as tf

@tf.function
def train_step(x):
    batch_z = np.random.uniform(-1, 1, [4, 2]).astype(np.float32)   # left over: nothing reads it
    z = tf.random.normal(tf.shape(x))
    return tf.reduce_sum(x + z)
''',
'''import numpy as np
import tensorflow as tf

@tf.function
def random_flip(image, label, seed=None):
    if seed is None:
        seed = np.random.randint(0, 1000000)   # only the op seed: the op still draws per call
    flip = tf.random.uniform([], seed=seed) > 0.5
    return tf.cond(flip, lambda: tf.image.flip_left_right(image), lambda: image), label
''',
        '''import numpy as np
import tensorflow as tf


class Jitter(tf.keras.layers.Layer):
    def call(self, x):
        return x * np.random.uniform(0.5, 1.5)   # only ever called eagerly: a draw per call


model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
jitter = Jitter()
for _ in range(3):
    print(jitter(tf.ones([2])))
''',
        '''import numpy as np
import tensorflow as tf


class Noise(tf.keras.layers.Layer):
    def call(self, x):
        if tf.executing_eagerly():
            return x + np.random.normal()     # the author's eager path
        return x + tf.random.normal([])


model = tf.keras.Sequential([tf.keras.Input((2,)), Noise()])
''',
        '''import numpy as np
import tensorflow as tf


class Patches(tf.keras.Model):
    def _indices(self, tx=None, ty=None):
        if tx is None or ty is None:          # no caller leaves them out: never runs
            tx = np.random.randint(0, 4)
            ty = np.random.randint(0, 4)
        return [tx], [ty], tx, ty

    def train_step(self, data):
        xs = list(range(4))
        for tx in xs:
            for ty in range(4):
                x, y, tx, ty = self._indices(tx, ty)   # handed back: never None either
        self._indices(4 // 2, ty=int(2.0))
        return {}
''',
        '''import numpy as np
import tensorflow as tf

class NeighbourSampler(tf.keras.layers.Layer):
    def __init__(self, neighbours, seed=7):
        super().__init__()
        self.neighbours = neighbours
        self.seed = seed

    def call(self, x):
        np.random.seed(self.seed)          # the same sample on every call, by design
        idx = np.random.choice(self.neighbours, 2, replace=False)
        return tf.gather(x, idx)

model = tf.keras.Sequential([NeighbourSampler([0, 1, 2])])
model.compile("adam", "mse")
model.fit(np.zeros((4, 3)), np.zeros((4, 2)))
''',
    )
    INVALID = (
        '''import random
import numpy as np
import tensorflow as tf

@tf.function
def augment(x):
    noise = np.random.normal(size=())  # TFL103
    if random.random() < 0.5:  # TFL103
        x = tf.image.flip_left_right(x)
    return x + noise
''',
        '''import numpy as np
import tensorflow as tf

ds = tf.data.Dataset.range(4)
ds = ds.map(lambda x: x + np.random.randint(0, 1000))  # TFL103
''',
        '''import numpy as np
import tensorflow as tf

class Trainer:
    def __init__(self, strategy):
        self.strategy = strategy

    def train_step(self, x):                  # run per replica by the tf.function below
        return x * np.random.uniform(0.5, 1.5)  # TFL103

    @tf.function
    def distributed_train_step(self, x):
        return self.strategy.run(self.train_step, args=(x,))
''',
'''import random
import tensorflow as tf

def generate_kernel():
    k = random.choice([7, 9, 11, 13])  # TFL103
    return tf.ones((k, k))

def load_train_image():
    def load(x):
        return x, generate_kernel()
    return load

load_function = load_train_image()       # the closure the factory returns ...
ds = tf.data.Dataset.range(8).map(load_function)   # ... is what tf.data traces
''',
'''import numpy as np
import tensorflow as tf

class Sampler:
    def latent(self):
        return np.random.randn(2, 1)  # TFL103

class Model(Sampler):
    @tf.function
    def latent(self):
        return tf.constant(super().latent())  # the base method runs while tracing
''',
'''import numpy as np
import tensorflow as tf

@tf.function
def crop(image):
    s = np.random.randint(0, 1000, size=2)  # TFL103
    return tf.image.stateless_random_crop(image, [8, 8, 3], seed=s)   # the same crop every call
''',
        '''import random
import tensorflow as tf
from tensorflow import keras


class RandomColorJitter(keras.layers.Layer):
    def call(self, images, training=None):
        if not training:
            return images
        for aug in random.sample([tf.image.flip_left_right, tf.image.flip_up_down], 2):  # TFL103
            images = aug(images)
        return images


model = keras.Sequential([keras.Input((8, 8, 3)), RandomColorJitter(), keras.layers.Flatten(), keras.layers.Dense(1)])
model.compile(loss="mse")
''',
        '''import numpy as np
import tensorflow as tf


class Patches(tf.keras.Model):
    def _indices(self, tx=None):
        if tx is None:                        # train_step leaves it out
            tx = np.random.randint(0, 4)  # TFL103
        return tx

    def train_step(self, data):
        for tx in range(4):
            self._indices(tx)
        self._indices()
        return {}
''',
        # the global seed set in a map function: eagerly each call draws the same mask,
        # traced a new one (held-out set 98's fixed masks; checked on 2.21)
        '''import tensorflow as tf

def gen_mask(kspace, fixed_masks=False):
    if fixed_masks:
        tf.random.set_seed(0)  # TFL103
    return tf.cast(tf.random.uniform(tf.shape(kspace), seed=0) > 0.5, kspace.dtype)

ds = tf.data.Dataset.from_tensor_slices(tf.ones([4, 8])).map(lambda k: k * gen_mask(k, fixed_masks=True))
''',
        # functions a loop hands to Dataset.map through its variable (held-out set 98's miss)
        '''import numpy as np
import tensorflow as tf

def flip(x):
    return x * np.random.choice([-1.0, 1.0])  # TFL103

def fill_zeros(x, training=False):
    if training:
        x = x * np.random.choice([0.0, 1.0])  # TFL103
    return x

ds = tf.data.Dataset.range(4).map(lambda v: tf.cast(v, tf.float32))
for aug in [flip]:
    ds = ds.map(aug)
for name, transform in [("zeros", fill_zeros)]:
    ds = ds.map(lambda x: transform(x, training=True))
''',
        '''import tensorflow as tf
import keras

class Diffusion(keras.Model):
    def generate(self, num_images, seed=None):
        if seed is not None:
            tf.random.set_seed(seed)  # TFL103
        return tf.random.normal((num_images, 8), seed=seed)

    def test_step(self, images):
        generated = self.generate(4, seed=7)     # a seed given while tracing
        return {"mean": tf.reduce_mean(generated)}
''',
    )
    FIXED = (
        (2, '''import numpy as np
import tensorflow as tf

class Trainer:
    def __init__(self, strategy):
        self.strategy = strategy

    def train_step(self, x):                  # run per replica by the tf.function below
        return x * tf.random.uniform([], minval=0.5, maxval=1.5)  # TFL103

    @tf.function
    def distributed_train_step(self, x):
        return self.strategy.run(self.train_step, args=(x,))
'''),
        (0, '''import random
import numpy as np
import tensorflow as tf

@tf.function
def augment(x):
    noise = tf.random.normal([])  # TFL103
    if tf.random.uniform([]) < 0.5:  # TFL103
        x = tf.image.flip_left_right(x)
    return x + noise
'''),
        (1, '''import numpy as np
import tensorflow as tf

ds = tf.data.Dataset.range(4)
ds = ds.map(lambda x: x + tf.random.uniform([], minval=0, maxval=1000, dtype=tf.int64))  # TFL103
'''),
        (4, '''import numpy as np
import tensorflow as tf

class Sampler:
    def latent(self):
        return tf.random.normal([2, 1])  # TFL103

class Model(Sampler):
    @tf.function
    def latent(self):
        return tf.constant(super().latent())  # the base method runs while tracing
'''),
        (5, '''import numpy as np
import tensorflow as tf

@tf.function
def crop(image):
    s = tf.random.uniform([2], minval=0, maxval=1000, dtype=tf.int64)  # TFL103
    return tf.image.stateless_random_crop(image, [8, 8, 3], seed=s)   # the same crop every call
'''),
        (7, '''import numpy as np
import tensorflow as tf


class Patches(tf.keras.Model):
    def _indices(self, tx=None):
        if tx is None:                        # train_step leaves it out
            tx = tf.random.uniform([], minval=0, maxval=4, dtype=tf.int64)  # TFL103
        return tx

    def train_step(self, data):
        for tx in range(4):
            self._indices(tx)
        self._indices()
        return {}
'''),
    )

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        layer = None
        if not self.sem.is_traced(ctx):
            # a Keras layer's ``call`` (or a helper it calls): traced by ``fit``/``predict``
            layer = self.sem.keras_call_of(ctx.fn)
            if layer is None or eager_only_branch(ctx):
                return
        if ctx.fn is not None and self.sem.runs_once(ctx.fn):
            return  # its one trace is its one run: the same draw as eagerly
        if self.sem.traced_only_to_export(ctx.fn):
            return  # its one trace builds the exported graph: a draw is a constant of it, as meant
        for q in self.sem.qualified(node.func):
            if q in _GLOBAL_SEED_SETTERS:
                message = self.SEED_MESSAGE.format(what=_tf_short(q) + "()")
                if layer is not None:
                    if not self.sem.keras_call_may_run_as_graph(layer[0].cls):
                        return
                    message += f" (in Keras `{layer[0].cls.name}.call`, which `fit` and `predict` trace)"  # type: ignore[union-attr]
                self.report(node, message, ctx=ctx)
                return
            if q.startswith(("random.", "numpy.random.")) and q.rsplit(".", 1)[-1] not in _RNG_NOT_SAMPLING \
                    and q.count(".") == (1 if q.startswith("random.") else 2):
                if ctx.fn is not None and self.sem.used_only_as_seed(node, ctx.fn):
                    return  # an op seed shared by ops (image and mask): a constant is what it needs
                if ctx.fn is not None and self.sem.value_unused(node, ctx.fn):
                    return  # assigned to a name nothing reads: the frozen value goes nowhere
                if ctx.fn is not None and self.sem.reseeded_before(node, ctx.fn, q.rsplit(".", 1)[0]):
                    return  # seeded with a fixed value just before: the same draw on every call
                message = self.MESSAGE.format(what=q.replace("numpy.", "np.", 1) + "()")
                if layer is not None:
                    # asked last: it may read the modules that import this one
                    if not self.sem.keras_call_may_run_as_graph(layer[0].cls):
                        return
                    message += f" (in Keras `{layer[0].cls.name}.call`, which `fit` and `predict` trace)"  # type: ignore[union-attr]
                self.report(node, message, ctx=ctx, fix=self._fix(node, q, ctx))
                return

    @fixes.offered_only_if_built
    def _fix(self, node: cst.Call, q: str, ctx: Ctx):
        """The ``tf.random`` call drawing from the same distribution (unsafe: another
        generator, default dtype float32/int32 instead of NumPy's float64/int64)."""
        tf_mod = fixes.tensorflow_module(self.sem, ctx)
        if tf_mod is None:
            return None
        alias, imports = tf_mod
        new = _tf_random_call(node, q, alias)
        if new is None:
            return None
        return self.replace(node, new, safe=False, imports=imports,
                            title=f"Replace with `{cst.Module(body=[]).code_for_node(new.func)}`")


def _int(n: int) -> cst.Integer:
    return cst.Integer(str(n))


def _plus_one(e: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(e, cst.Integer):
        return _int(int(e.value, 0) + 1)
    if not isinstance(e, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not e.lpar:
        e = e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.BinaryOperation(left=e, operator=cst.Add(), right=_int(1))


def _tf_random_call(node: cst.Call, q: str, tf: str) -> cst.Call | None:
    """``np.random.normal(0, 1, size=(2, 3))`` -> ``tf.random.normal([2, 3], mean=0,
    stddev=1)`` and the like, for the common samplers; None for the rest."""
    name = q.rsplit(".", 1)[-1]
    kw = fixes.kwarg
    normal, uniform = f"{tf}.random.normal", f"{tf}.random.uniform"
    if q.startswith("numpy.random."):
        if name in ("rand", "randn"):
            if any(a.keyword is not None or a.star for a in node.args):
                return None
            shape = cst.List(fixes._elem_commas([cst.Element(fixes.operand(a.value)) for a in node.args]))
            return fixes.call(uniform if name == "rand" else normal, [cst.Arg(shape)])
        if name in ("random", "random_sample", "ranf", "sample"):
            b = fixes.bind_args(node, ("size",))
            shape = fixes.shape_expr(b.get("size")) if b is not None else None
            return None if shape is None else fixes.call(uniform, [cst.Arg(shape)])
        if name == "normal":
            b = fixes.bind_args(node, ("loc", "scale", "size"))
            shape = fixes.shape_expr(b.get("size")) if b is not None else None
            if b is None or shape is None:
                return None
            args = [cst.Arg(shape)] + [kw(k, b[n]) for n, k in (("loc", "mean"), ("scale", "stddev")) if n in b]
            return fixes.call(normal, args)
        if name == "uniform":
            b = fixes.bind_args(node, ("low", "high", "size"))
            shape = fixes.shape_expr(b.get("size")) if b is not None else None
            if b is None or shape is None:
                return None
            args = [cst.Arg(shape)] + [kw(k, b[n]) for n, k in (("low", "minval"), ("high", "maxval")) if n in b]
            return fixes.call(uniform, args)
        if name == "randint":
            b = fixes.bind_args(node, ("low", "high", "size"))
            shape = fixes.shape_expr(b.get("size")) if b is not None else None
            if b is None or shape is None or "low" not in b:
                return None
            low, high = (b["low"], b["high"]) if "high" in b else (_int(0), b["low"])
            return fixes.call(uniform, [cst.Arg(shape), kw("minval", low), kw("maxval", high),
                                        kw("dtype", fixes.attr(f"{tf}.int64"))])
        return None
    # Python's random module: scalars
    scalar = cst.List([])
    if name == "random" and not node.args:
        return fixes.call(uniform, [cst.Arg(scalar)])
    if name == "uniform":
        b = fixes.bind_args(node, ("a", "b"))
        if b is None or len(b) != 2:
            return None
        return fixes.call(uniform, [cst.Arg(scalar), kw("minval", b["a"]), kw("maxval", b["b"])])
    if name in ("gauss", "normalvariate"):
        b = fixes.bind_args(node, ("mu", "sigma"))
        if b is None:
            return None
        args = [cst.Arg(scalar)] + [kw(k, b[n]) for n, k in (("mu", "mean"), ("sigma", "stddev")) if n in b]
        return fixes.call(normal, args)
    if name in ("randint", "randrange"):
        b = fixes.bind_args(node, ("a", "b") if name == "randint" else ("start", "stop"))
        if b is None or len(b) != 2:
            return None
        low, high = (b["a"], b["b"]) if name == "randint" else (b["start"], b["stop"])
        if name == "randint":
            high = _plus_one(high)  # randint includes its upper bound, tf.random.uniform does not
        return fixes.call(uniform, [cst.Arg(scalar), kw("minval", low), kw("maxval", high),
                                    kw("dtype", fixes.attr(f"{tf}.int32"))])
    return None


class NumpyInTracedCode(Rule):
    """A NumPy function applied to a tensor in traced code.

    ## What it does
    Flags calls of `np.*` functions inside traced code when an argument is a tensor
    (a parameter of the traced function, the result of a TensorFlow op, or arithmetic on
    those). A parameter that the function's annotation or docstring gives a Python type
    (`n: int`, `n (int): ...`, `n: int, the length`) is no tensor. A list or tuple holding
    a tensor counts too (`np.sum([loss_a, loss_b])`, a list comprehension of tensors): NumPy
    reads each element. NumPy on static values (`np.prod(x.shape)`, `np.sqrt(d_model)`, constant
    tables) is fine and is not flagged; NumPy random sampling is TFL103.

    ## Why is this bad?
    While tracing, tensors are symbolic and have no value NumPy could read. TensorFlow
    raises `NotImplementedError: Cannot convert a symbolic tf.Tensor (x:0) to a numpy
    array` — or, for code that runs eagerly in tests and traced in production, only in
    production.

    ## Example
    ```python
    @tf.function
    def normalize(x):
        return (x - np.mean(x)) / np.std(x)
    ```

    ## Use instead
    ```python
    @tf.function
    def normalize(x):
        return (x - tf.reduce_mean(x)) / tf.math.reduce_std(x)
    ```

    ## References
    - [Better performance with tf.function](https://www.tensorflow.org/guide/function)
    - [tf.experimental.numpy](https://www.tensorflow.org/api_docs/python/tf/experimental/numpy)
    """

    CODE = "TFL104"
    NAME = "numpy-in-traced-code"
    MESSAGE = "`{what}` applied to {of}: NumPy cannot read a symbolic tensor while tracing; use the `tf.*` op"
    SEVERITY = Severity.WARNING
    PITFALLS = ("P08", "P13")
    VALID = (
        '''import numpy as np
import tensorflow as tf


class SquaredError:
    def __call__(self, target, actual):
        return 0.5 * np.sum((target - actual) ** 2)


class ScratchNet:                       # NumPy only: its own compile and fit, no Keras
    def compile(self, loss, learning_rate=0.1):
        self.loss, self.learning_rate = loss, learning_rate

    def fit(self, x, y):
        return self.loss(y, x)


labels = tf.keras.utils.to_categorical(np.array([0, 1]), 2)
model = ScratchNet()
model.compile(loss=SquaredError())
model.fit(np.zeros((2, 2)), labels)
''',
        '''import numpy as np
import tensorflow as tf
from tensorflow.keras.layers import Dense, Input


def iou(box_a, box_b):
    x_a = np.maximum(box_a[:, 0], box_b[:, 0])    # TensorFlow 1: Keras builds one graph
    x_b = np.minimum(box_a[:, 2], box_b[:, 2])
    return tf.reduce_mean(x_b - x_a)


inp = Input(shape=(8,))
model = tf.keras.models.Model(inputs=inp, outputs=Dense(4)(inp))
model.compile(optimizer=tf.train.AdamOptimizer(), loss="mse", metrics=[iou])
model.fit(np.zeros((8, 8)), np.zeros((8, 4)))
''',
        # the call unpacks a list display of five: the sixth parameter keeps its Python
        # default (compiler-paper, held-out set 108)
        '''import numpy as np
import tensorflow as tf

@tf.function(jit_compile=True)
def fast_delta(rois, deltas, means, stds, max_shape, wh_ratio_clip=16 / 1000):
    max_ratio = np.abs(np.log(wh_ratio_clip))
    return tf.clip_by_value(deltas, -max_ratio, max_ratio) + rois

sargs = [tf.ones([3, 4]), tf.ones([3, 4]), [0.0] * 4, [1.0] * 4, (48, 48, 3)]
fast_delta(*sargs)
''',
        # ``np.shape``/``np.ndim`` read the tensor's own ``shape``/``ndim`` (set 111's time
        # windows; checked on 2.21)
        '''import numpy as np
import tensorflow as tf

def split_window(batch):
    if len(np.shape(batch)) == 3 and np.ndim(batch) == 3:
        return batch[:, :4], batch[:, 4:]
    return batch[:4], batch[4:]

ds = tf.data.Dataset.from_tensor_slices(tf.zeros([8, 5, 2])).batch(4).map(split_window)
''',
        '''import numpy as np
import tensorflow as tf
import keras

class M(keras.Model):
    def __init__(self):
        super().__init__()
        self.d = keras.layers.Dense(3, activation="softmax")
        self.opt = keras.optimizers.Adam()

    def call(self, x):
        return self.d(x)

    def train_step(self, x, y):     # Keras calls train_step(data): this is the class's own
        with tf.GradientTape() as t:
            p = self(x)
            loss = keras.losses.categorical_crossentropy(y, p)
        self.opt.apply_gradients(zip(t.gradient(loss, self.trainable_variables), self.trainable_variables))
        return loss, np.mean(tf.argmax(y, 1) == tf.argmax(p, 1))
''',
        '''import numpy as np
import tensorflow as tf

@tf.function
def f(x, d_model: int = 64):
    n = np.prod(x.shape[1:])           # static shape: a Python value
    scale = np.sqrt(d_model)           # Python number
    table = np.arange(10, dtype=np.float32)
    rows = tf.compat.dimension_value(x.shape[0])   # a Python int or None
    if rows is not None:
        table = table[:np.int32(rows)]
    return tf.reshape(x, [-1, n]) / scale + tf.reduce_sum(table)
''',
        '''import numpy as np
import tensorflow as tf

def smoothing(eps):
    return np.log1p(eps)               # every traced call passes a Python number

@tf.function
def loss(labels, logits):
    return tf.reduce_mean(labels * logits) + smoothing(0.1) + smoothing(eps=1e-3)
''',
        '''import numpy as np
import tensorflow as tf

JAX_MODE = False  # rewritten to True in the JAX build of the package

def static_value(pred):
    if JAX_MODE:                       # never runs in the TensorFlow build
        return np.asarray(pred)
    return tf.get_static_value(pred)

@tf.function
def f(x):
    return x if static_value(x) is None else -x
''',
        '''import numpy as np
import tensorflow as tf

def _sample_int(shape, minval, dtype):
    # every traced caller passes static values: a TensorShape and a NumPy array
    minval = np.broadcast_to(minval, shape).astype(dtype.as_numpy_dtype)
    if not np.all(shape[-len(minval.shape):] == minval.shape):
        raise ValueError("minval does not fit the shape")
    shape = tf.convert_to_tensor(shape, dtype=tf.int32)   # a tensor only from here on
    return tf.random.uniform(shape, maxval=int(minval.max()) + 1, dtype=dtype)

def sample(spec):
    def _unique(vals):
        return np.all(vals == vals[0])
    if not _unique(spec.minimum):
        raise ValueError("per-element bounds are not supported")
    return _sample_int(spec.shape, spec.minimum, spec.dtype)

SPEC = tf.TensorSpec([3], tf.int32)
ds = tf.data.Dataset.range(4).map(lambda i: sample(SPEC))
''',
        '''import numpy as np
import tensorflow as tf

def _as_type(x, x_type):
    if issubclass(x_type, np.ndarray):   # a type dispatch: only for NumPy callers
        return np.array(x, dtype=np.int32)
    return x_type(x)

@tf.function
def f(a, dims):
    return tf.reshape(a, _as_type(dims, tuple))
''',
        '''import numpy as np
import tensorflow as tf

def _rdft_matrix(dft_length):
    """A DFT matrix.

    Args:
        dft_length (int) - DFT length
    """
    k = np.arange(0, dft_length // 2 + 1)
    return np.exp(-2j * np.pi * np.outer(k, np.arange(dft_length)) / dft_length).astype(np.complex64).T

@tf.function
def rdft(signal, dft_length):
    """Args:
        signal: the framed signal, a tensor.
        dft_length: int, the DFT length (a Python int: the matrix is built once per trace).
    """
    mat = _rdft_matrix(dft_length)
    return tf.matmul(tf.cast(signal, tf.complex64), tf.constant(np.real(mat) + 1j * np.imag(mat)))
''',
        '''import numpy as np
import tensorflow as tf

@tf.function
def weighted(x, lengths: list):
    flags = [True, False, True]
    w = np.mean([1.0 if f else 0.5 for f in flags])     # Python tests: a Python list
    n = np.max([len(s) for s in lengths])               # Python values
    dims = np.array([x.shape[0], x.shape[-1]])          # static shapes
    return x * w + n + dims[0]
''',
        '''import numpy as np
import tensorflow as tf

def assignment(cost, solve):
    pairs = solve(cost).tolist()            # a Python list: a tensor has no tolist()
    pairs.sort()
    return np.array(pairs, dtype=int)

@tf.function
def step(x, solve):
    return x, assignment(x, solve)
''',
    )
    INVALID = (
        '''import numpy as np
import tensorflow as tf

@tf.function
def normalize(x):
    centered = x - np.mean(x)  # TFL104
    return centered / tf.math.reduce_std(x)
''',
        '''import numpy as np
import tensorflow as tf

def parse(record):
    features = tf.io.parse_single_example(record, {"v": tf.io.FixedLenFeature([3], tf.float32)})
    return np.clip(features["v"], 0.0, 1.0)  # TFL104

ds = tf.data.TFRecordDataset(["a.tfrecord"]).map(parse)
''',
        '''import numpy as np
import tensorflow as tf

def smoothing(eps):
    return np.log1p(eps)  # TFL104

@tf.function
def loss(labels, logits):
    return tf.reduce_mean(labels * logits) + smoothing(0.1) + smoothing(logits)
''',
        '''import numpy as np
import tensorflow as tf

@tf.function
def pad_to(x, size=8):
    n = size
    n = tf.shape(x)[0]                 # rebinds n to a tensor before the NumPy call
    return tf.pad(x, [[0, np.maximum(size - n, 0)]])  # TFL104
''',
        # a list holding tensors: NumPy reads each element (checked on 2.21: NotImplementedError);
        # AutoGraph makes each conditional expression on a tensor a tf.cond (held-out set 97)
        '''import numpy as np
import tensorflow as tf

@tf.function
def test(logits, labels):
    predict_labels = tf.math.argmax(logits, 1)
    rewards = [1.0 if predict_labels[i] == labels[i] else 0.0 for i in range(15)]
    total = np.sum([tf.reduce_sum(logits), tf.reduce_sum(labels)])  # TFL104
    return np.sum(rewards) / 15.0 + total  # TFL104
''',
    )

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        sem = self.sem
        q = sem.qualified_startswith(node.func, ("numpy.",))
        if q is None or q.startswith("numpy.random.") or sem.numpy_reads_only_attributes(q):
            return
        read = [a.value for a in node.args if sem.numpy_reads_a_tensor(a.value, ctx.fn)]
        if read and not sem.in_type_dispatch(ctx):
            of = "a tensor" if any(sem.is_tensor(v, ctx.fn) for v in read) else "a list holding tensors"
            self.report(node, self.MESSAGE.format(what=q.replace("numpy.", "np.", 1), of=of), ctx=ctx)
