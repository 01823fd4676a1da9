"""Creating TensorFlow state (variables, Keras objects) inside traced code."""

from __future__ import annotations

import libcst as cst

from tflint.diagnostics import Severity
from tflint.rule import TRACED_MARKERS, Rule
from tflint.semantic import Ctx, dotted_name

_VARIABLE_NAMES = frozenset({"tensorflow.Variable", "tensorflow.compat.v1.Variable", "tensorflow.compat.v2.Variable",
                             "tensorflow.python.ops.variables.Variable"})


class VariableCreatedInTracedCode(Rule):
    """`tf.Variable(...)` created in traced code without a first-call guard.

    ## What it does
    Flags `tf.Variable(...)` calls inside traced code unless they are guarded so that they
    run only on the first trace (`if self.v is None:`, `if not self.built:`,
    `if key not in self._vars:`), sit in `__init__`/`build`, or run under
    `with tf.init_scope():`.

    ## Why is this bad?
    A `tf.function` may create variables only on its first call. A variable created on
    every trace fails on the second trace with `ValueError: tf.function only supports
    singleton tf.Variables created on the first call.` A variable created in the body
    eagerly would also be a fresh variable each call, losing its state.

    ## Example
    ```python
    @tf.function
    def f(x):
        v = tf.Variable(1.0)
        return v * x
    ```

    ## Use instead
    ```python
    class F(tf.Module):
        def __init__(self):
            self.v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(1.0)
            return self.v * x
    ```
    or create the variable outside the function and pass it in.

    ## References
    - [Better performance with tf.function: Creating tf.Variables](https://www.tensorflow.org/guide/function#creating_tfvariables)
    """

    CODE = "TFL301"
    NAME = "variable-created-in-traced-code"
    MESSAGE = ("`tf.Variable` created in traced code: tf.function only supports variables created on the "
               "first call; create it once outside or under an `is None` guard")
    SEVERITY = Severity.ERROR
    PITFALLS = ("P16",)
    VALID = (
        '''import tensorflow as tf

def set_slimmed_param(layer, width, actual=False):
    if actual:                    # the eager export path: never taken while tracing
        layer.kernel = tf.Variable(layer.kernel.numpy()[:, :width])
    else:
        layer.width.assign(width)

def set_width(model, width, actual=False):
    for layer in model.layers:
        set_slimmed_param(layer, width, actual)

@tf.function
def training(model, x, width):
    set_width(model, width)       # actual keeps its default, False
    return model(x)

def export(model, width):
    set_width(model, width, actual=True)
''',
        '''import tensorflow as tf

class Scale(tf.Module):
    def __init__(self):
        self.v = None
        self.count = tf.Variable(0)

    @tf.function
    def __call__(self, x):
        if self.v is None:
            self.v = tf.Variable(2.0)
        self.count.assign_add(1)
        return self.v * x
''',
        '''import tensorflow as tf

@tf.function
def f(x):
    with tf.init_scope():
        counter = tf.Variable(0)   # lifted out of the graph
    return x
''',
        '''import tensorflow as tf


class Neuron:
    @tf.function
    def __call__(self, t, y, gsyn=tf.Variable(0.0)):   # made once, when the class is defined
        return y + gsyn
''',
        '''import tensorflow as tf


class ClientUpdate:
    def __init__(self):
        self.grad_sum = None

    @tf.function
    def __call__(self, weights, x):
        if self.grad_sum is None:   # the lambda runs here, on the first trace only
            self.grad_sum = tf.nest.map_structure(lambda w: tf.Variable(tf.zeros_like(w)), weights)
        tf.nest.map_structure(lambda v, w: v.assign_add(w * x), self.grad_sum, weights)
        return self.grad_sum
''',
    )
    INVALID = (
        '''import tensorflow as tf

@tf.function
def f(x):
    v = tf.Variable(1.0)  # TFL301
    return v * x
''',
        '''import tensorflow as tf

def make_bias(shape):
    return tf.Variable(tf.zeros(shape))  # TFL301

class Model(tf.keras.Model):
    def train_step(self, data):
        bias = make_bias([3])
        return {"bias": tf.reduce_sum(bias)}
''',
    )

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        if self.sem.resolves_to(node.func, _VARIABLE_NAMES) and not self.sem.created_once(ctx):
            self.report(node, ctx=ctx)


class KerasObjectCreatedInTracedCode(Rule):
    """A Keras layer, model, optimizer or metric constructed in traced code.

    ## What it does
    Flags construction of Keras layers (`tf.keras.layers.Dense(...)`), models, optimizers
    and metrics inside traced code, unless guarded to run once (`if self.dense is None:`)
    or placed in `__init__`/`build`; also in the `call` of a Keras layer or model class,
    which Keras runs on every call of the layer (and traces under `fit`), traced or not.
    Layers that own no state (`Flatten`, `Reshape`,
    pooling, merge layers, `Resizing`, `Rescaling`, `Attention` without a learned
    scale, ...) are not flagged, nor is a
    `Sequential`, `TimeDistributed` or `RNN` that holds only such layers or existing ones
    (`RNN(self.gru_cell)`). Layers whose only variable is a Keras 3 seed (`Dropout`,
    `GaussianNoise`, ...) are flagged only where Keras 3 is in use: under Keras 2 (a
    project pinned to TensorFlow before 2.16, or `tf_keras`) they own no variable. Nor
    is a `call` that builds a functional model: another method of the class runs
    `self.call` on a `keras.Input` and returns `keras.Model(inputs, outputs)`, and every
    instance the project makes only calls that method (or none is made, even in a package
    for others: that method is how the class is meant to be used); `call` then runs once,
    on symbolic inputs, and its layers are that model's own. Also `self.add_weight(...)`
    in the `call` of a Keras 3 layer, or in a method that only `call` reaches (a lazy
    `self._build(d)` under `if not self._built:`): Keras 3 locks a layer's state when it
    builds it, before the first `call`, and refuses new weights after, guard or not.

    ## Why is this bad?
    These objects create variables (weights, optimizer slots, metric accumulators, seed
    state). Created in a traced function they are re-created on every trace; the second
    trace fails with `ValueError: tf.function only supports singleton tf.Variables created
    on the first call`, and in eager mode their state would reset on every call.

    ## Example
    ```python
    @tf.function
    def step(x):
        return tf.keras.layers.Dense(2)(x)
    ```

    ## Use instead
    ```python
    dense = tf.keras.layers.Dense(2)

    @tf.function
    def step(x):
        return dense(x)
    ```

    ## References
    - [Better performance with tf.function: Using with multiple Keras optimizers](https://www.tensorflow.org/guide/function#using_with_multiple_keras_optimizers)
    - [tensorflow/tensorflow#27120](https://github.com/tensorflow/tensorflow/issues/27120)
    """

    CODE = "TFL302"
    NAME = "keras-object-created-in-traced-code"
    MESSAGE = ("`{what}` constructed in traced code creates variables on every trace; construct it once "
               "outside the function (or in `__init__`/`build`)")
    SEED_MESSAGE = ("`{what}` constructed in traced code creates its seed variable on every trace (Keras 3 "
                    "layers with random state make one when constructed); construct it once outside the "
                    "function (or in `__init__`/`build`)")
    CALL_MESSAGE = ("`{what}` constructed in `{cls}.call` makes new weights on every call (and under `fit` "
                    "fails: tf.function only supports singleton tf.Variables); construct it in `__init__` or "
                    "`build`")
    CALL_SEED_MESSAGE = ("`{what}` constructed in `{cls}.call` makes a new seed variable on every call (Keras 3 "
                         "layers with random state make one when constructed), and under `fit` fails: tf.function "
                         "only supports singleton tf.Variables; construct it in `__init__` or `build`")
    ADD_WEIGHT_MESSAGE = ("`{what}` in {where}: Keras 3 locks a layer's state once it is built, before the "
                          "first `call`, so this raises `ValueError`, a first-call guard or not; create the "
                          "weight in `build`")
    SEVERITY = Severity.ERROR
    TRACED_ONLY = False
    TEXT_MARKERS = TRACED_MARKERS + (r"def call\(",)
    PITFALLS = ("P17",)
    VALID = (
        '''import keras
import tensorflow as tf


class Scale(keras.layers.Layer):
    def build(self, input_shape):
        self._make(input_shape[-1])

    def _make(self, d):
        self.w = self.add_weight(shape=(d,))   # made in build, before Keras locks the state

    def call(self, x):
        if not hasattr(self, "w"):
            self._make(x.shape[-1])
        return x * self.w
''',
        '''import keras
import tensorflow as tf

class Model(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(4)
        self.pool = keras.layers.MaxPooling2D(2)
        self.out = keras.layers.Dense(1)

    def call(self, x):
        x = self.dense(x)
        x = keras.layers.TimeDistributed(self.pool)(x)   # wraps an existing layer: no weights
        return self.out(tf.reshape(x, (tf.shape(x)[0], -1)))

model = Model()

@tf.function
def train_step(x):
    return model(x)

def load_image(path):
    img = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    return keras.layers.Resizing(299, 299)(img)             # no weights, no seed

images = tf.data.Dataset.from_tensor_slices(["a.jpg"]).map(load_image)

def transform(image):
    norm = keras.layers.Normalization(mean=[0.485, 0.456, 0.406],
                                      variance=[0.229, 0.224, 0.225])  # fixed statistics
    return norm(tf.image.resize(image, (16, 16)))

ds = tf.data.Dataset.from_tensor_slices(images).map(transform)
''',
        '''import tensorflow as tf

dense = tf.keras.layers.Dense(2)
optimizer = tf.keras.optimizers.Adam()

@tf.function
def step(x):
    y = tf.keras.layers.Flatten()(x)      # no state
    loss_fn = tf.keras.losses.MeanSquaredError()
    return dense(y)
''',
        '''import tensorflow as tf

class Head(tf.Module):
    def __init__(self):
        self.proj = None

    @tf.function
    def __call__(self, x):
        if self.proj is None:
            self.proj = tf.keras.layers.Dense(4)
        return self.proj(x)
''',
        '''import tensorflow as tf

@tf.function
def scaled(x):
    # never called or built: a Dense layer makes no weights until it is
    dense = tf.keras.layers.Dense(4)
    return x * dense.units
''',
'''import tensorflow as tf

def resize_and_rescale(image, size):
    t = tf.keras.Sequential([tf.keras.layers.Resizing(*size),
                             tf.keras.layers.Rescaling(1 / 255.)])   # no weights at all
    return t(image)

ds = tf.data.Dataset.from_tensor_slices(tf.zeros([6, 40, 30, 3]))
ds = ds.map(lambda x: resize_and_rescale(x, (20, 20)))
''',
'''import tensorflow as tf

class Head(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = None

    def call(self, x):
        if self.dense is None:                       # made on the first call only
            self.dense = tf.keras.layers.Dense(2)
        return tf.keras.layers.Flatten()(self.dense(x))   # no weights

def make_block(width):
    return tf.keras.layers.Dense(width)               # eager helper, not a call method
''',
'''import tensorflow as tf

class ResNet(tf.keras.Model):                 # Keras 2 code: its optimizer is a legacy one
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(8)

    def call(self, x):
        return tf.keras.layers.Dropout(0.1)(self.dense(x))   # no variable in Keras 2

model = ResNet()
model.compile(optimizer=tf.keras.optimizers.legacy.Adam(1e-4), loss="mse")
''',
'''import keras
import tensorflow as tf

class Block(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(4)

    def call(self, x, training=None):
        # a new seed variable per call: slow, but nothing here runs the layer as a graph
        return keras.layers.Dropout(0.2)(self.dense(x), training=training)

block = Block()
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(block(tf.ones([2, 3]), training=True))
''',
'''import tensorflow as tf

class Decoder(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.proj = tf.keras.layers.Dense(8)

    def call(self, x):
        h = self.proj(x)
        return tf.keras.layers.Attention()([h, h])     # no learned scale: no weights

model = Decoder()
model.compile("adam", "mse")
''',
'''import tensorflow as tf

class Interest(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.gru_cell = tf.keras.layers.GRUCell(8)

    def call(self, x):
        _, state = tf.keras.layers.RNN(self.gru_cell, return_state=True)(x)   # the cell is made once
        return state

model = tf.keras.Sequential([Interest()])
model.compile("adam", "mse")
''',
        '''import tensorflow as tf

class OneHotBins(tf.keras.layers.Layer):
    def __init__(self, edges):
        super().__init__()
        self.edges = edges

    def call(self, feature):
        # fixed bins or a fixed vocabulary: these layers own no variable (Keras 3.15)
        bins = tf.keras.layers.Discretization(bin_boundaries=self.edges, output_mode="one_hot")
        words = tf.keras.layers.StringLookup(vocabulary=["a", "b"])
        return bins(feature), words(tf.as_string(feature))

model = tf.keras.Sequential([tf.keras.Input((1,)), OneHotBins([0.0, 1.0])])
''',
        '''import keras
import tensorflow as tf

def generator():
    model = tf.keras.Sequential()
    model.add(tf.keras.layers.Dense(4))   # runs once, eagerly: the name is rebound below
    return model

def critic():
    return keras.Sequential([keras.layers.Dense(1)])

generator = generator()
critic = critic()

@tf.function
def train_step(x):
    return critic(generator(x, training=True))

class WGAN(keras.Model):
    def train_step(self, data):
        return {"c": tf.reduce_mean(critic(generator(data)))}
''',
        '''import tensorflow as tf


class UNet(tf.keras.Model):
    def call(self, x):                   # builds the graph of the model below, once
        x = tf.keras.layers.Conv2D(64, 3, activation="relu")(x)
        return tf.keras.layers.Conv2D(2, 1, activation="softmax")(x)

    def model(self, input_shape):
        inputs = tf.keras.Input(shape=input_shape)
        return tf.keras.Model(inputs=inputs, outputs=self.call(inputs))


model = UNet().model((64, 64, 3))       # the functional model is what is trained
model.compile("adam", "sparse_categorical_crossentropy")
''',
        '''import tensorflow as tf


class VAE(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.encoder = self.encoder()          # the attribute now holds the built model

    def encoder(self):
        inputs = tf.keras.Input(shape=(8,))
        return tf.keras.Model(inputs, tf.keras.layers.Dense(4)(inputs))

    @tf.function
    def train_step(self, x):
        return self.encoder(x, training=True)  # calls that model, not the method
''',
        '''import tensorflow as tf
from tensorflow.keras import Model, layers


class Encoder(Model):
    def call(self, inputs, training=True):     # a builder: given a shape, returns a model
        inputs = layers.Input(shape=inputs)
        net = layers.Conv2D(8, 3)(inputs)
        net = layers.Flatten()(net)
        return Model(inputs, layers.Dense(64)(net))


model = Encoder()((128, 128, 3))
model.compile("adam", "mse")
''',
        '''import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4), tf.keras.layers.Dense(2)])

@tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
def extract(x):
    # a functional model over layers that exist: no variable of its own
    sub = tf.keras.Model(inputs=model.input, outputs=model.layers[-2].output)
    return sub(x)

tf.saved_model.save(model, "export", signatures={"extract": extract})
''',
        '''import numpy as np
import tensorflow as tf
from tensorflow.python.keras.layers import Dropout   # Keras 2's own copy: no seed variable

class MLP(tf.keras.layers.Layer):
    def __init__(self, rate=0.5):
        super().__init__()
        self.rate = rate
        self.d = tf.keras.layers.Dense(2)

    def call(self, x):
        return self.d(Dropout(self.rate)(x))

inputs = tf.keras.Input((3,))
model = tf.keras.Model(inputs, MLP()(inputs))
model.compile("adam", "mse")
model.fit(np.zeros((4, 3)), np.zeros((4, 2)))
''',
        '''import tensorflow as tf

def acc(y_true, y_pred):
    return tf.reduce_mean(y_pred)

class Wrapper:
    def __init__(self):
        self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

    @property
    def metrics_for_keras(self):          # runs once, eagerly: it only builds the list
        return [tf.keras.metrics.MeanMetricWrapper(fn=acc, name="acc")]

    def compile(self):
        self.model.compile(optimizer="adam", loss="mse", metrics=self.metrics_for_keras)

    def fit(self, x, y):
        return self.model.fit(x, y)
''',
    )
    INVALID = (
        '''import tensorflow as tf


class VAE(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.enc = self.encoder()

    def encoder(self):
        inputs = tf.keras.Input(shape=(8,))
        return tf.keras.Model(inputs, tf.keras.layers.Dense(4)(inputs))  # TFL302

    @tf.function
    def train_step(self, x):
        return self.encoder()(x, training=True)  # builds a new model on every trace
''',
        '''import tensorflow as tf

@tf.function
def step(x):
    return tf.keras.layers.Dense(2)(x)  # TFL302
''',
        '''import tensorflow as tf

@tf.function
def step(x):
    head = tf.keras.layers.Dense(2)  # TFL302
    layers = [head]
    model = tf.keras.Sequential(layers)  # TFL302
    return model(x)
''',
        '''import tensorflow as tf

@tf.function
def initial_state(batch):
    # never built, but a Keras 3 LSTMCell makes its seed variable when constructed
    cells = [tf.keras.layers.LSTMCell(8)]  # TFL302
    rnn = tf.keras.layers.StackedRNNCells(cells)
    return rnn.get_initial_state(batch_size=batch, dtype=tf.float32)
''',
        '''import tensorflow as tf
from tensorflow import keras

class Model(keras.Model):
    def train_step(self, data):
        x, y = data
        acc = keras.metrics.Accuracy()  # TFL302
        acc.update_state(y, self(x))
        return {"acc": acc.result()}
''',
'''import tensorflow as tf

def head(image):
    t = tf.keras.Sequential([tf.keras.layers.Rescaling(1 / 255.),  # TFL302
                             tf.keras.layers.Dense(4)])     # TFL302
    return t(image)

ds = tf.data.Dataset.from_tensor_slices(tf.zeros([6, 8]))
ds = ds.map(head)
''',
'''import tensorflow as tf

class ConditionalNorm(tf.keras.layers.Layer):
    def call(self, x, y):
        gain = tf.keras.layers.Dense(4)(y)  # TFL302
        return x * gain

model = tf.keras.Sequential([tf.keras.layers.Dense(4)])
''',
'''import keras

class Block(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(4)

    def call(self, x, training=None):
        return keras.layers.Dropout(0.2)(self.dense(x), training=training)  # TFL302

model = keras.Sequential([keras.Input((3,)), Block()])
model.compile("adam", "mse")
''',
        '''import keras
import tensorflow as tf


class LinearAttention(keras.layers.Layer):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self._ready = False

    def _build(self, d):
        self.w = self.add_weight(shape=(d, self.dim))  # TFL302
        self._ready = True

    def call(self, x):
        if not self._ready:            # Keras 3 built the layer already: add_weight raises
            self._build(x.shape[-1])
        return tf.matmul(x, self.w)
''',
    )

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "add_weight":
            self._add_weight(node, func, ctx)
            return
        made = self.sem.keras_construction(node)
        if made is None:
            return
        in_call = self._layer_call(ctx)
        if in_call is None and not self.sem.is_traced(ctx):
            return
        if in_call is not None and self.sem.call_builds_a_functional_model(ctx.fn.cls):  # type: ignore[union-attr]
            return  # ``call`` builds a functional model's graph, once, on keras.Input
        if self.sem.created_once(ctx):
            return
        what = (dotted_name(node.func) or ".".join(made.qualified.split(".")[-2:])) + "(...)"
        if made.layer and not self.sem.keras_object_built(node, ctx.fn):
            # never called or built here: its weights are never made; only a Keras 3
            # layer with random state makes a variable (its seed) when constructed
            if made.seed and self.sem.keras3_in_use():
                self.report(node, self.SEED_MESSAGE.format(what=what), ctx=ctx)
            return
        if in_call is not None:
            if made.seed_only:
                # its one variable is a Keras 3 seed (in Keras 2 it has none), and only a
                # trace refuses a new one: called eagerly it works, slowly
                if self.sem.keras3_in_use() and self.sem.keras_layers_may_run_as_graph():
                    self.report(node, self.CALL_SEED_MESSAGE.format(what=what, cls=in_call), ctx=ctx)
                return
            self.report(node, self.CALL_MESSAGE.format(what=what, cls=in_call), ctx=ctx)
            return
        if made.seed_only and not self.sem.keras3_in_use():
            return  # Keras 2: a Dropout or GaussianNoise owns no variable at all
        self.report(node, self.MESSAGE.format(what=what), ctx=ctx)

    def _add_weight(self, node: cst.Call, func: cst.Attribute, ctx: Ctx) -> None:
        """``self.add_weight(...)`` in the ``call`` of a Keras 3 layer, or in a method only
        ``call`` reaches (a lazy ``self._build(d)`` under ``if not self._built:``; checked on
        TensorFlow 2.21: Keras 3 raises, eagerly too). Not in ``__init__``/``build``, nor in
        a method they call as well, nor in a class the application never makes."""
        fn = ctx.fn
        if fn is None or fn.cls is None or fn.name in ("__init__", "build") or \
                not (isinstance(func.value, cst.Name) and func.value.value == fn.self_name):
            return
        got = self.sem.keras3_call_of(fn)
        if got is None or got[0].cls is None:
            return
        call, site = got
        for setup in ("__init__", "build"):
            m = fn.cls.methods.get(setup)
            if m is not None and any(isinstance(c.func, cst.Attribute) and c.func.attr.value == fn.name
                                     for c, _ in m.calls):
                return  # made there first: the guard in ``call`` keeps it from running again
        if self.sem.class_never_used(call.cls):
            return  # dead code of an application: no instance is ever made
        where = f"Keras 3 `{call.cls.name}.call`" if site is None else \
            f"`{fn.name}`, called from Keras 3 `{call.cls.name}.call`"  # type: ignore[union-attr]
        self.report(node, self.ADD_WEIGHT_MESSAGE.format(what=f"{func.value.value}.add_weight(...)", where=where),
                    ctx=ctx)

    def _layer_call(self, ctx: Ctx) -> str | None:
        """The class name when ``ctx`` is in the ``call`` of a Keras layer or model class
        (not in a function nested in it): Keras runs it on every call of the layer, and
        traces it under ``fit``."""
        fn = ctx.fn
        return fn.cls.name if fn is not None and fn.cls is not None and self.sem.is_keras_layer_call(fn) else None
