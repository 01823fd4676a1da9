"""Python state changed from traced code: it changes once per trace, not once per call."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from tflint.diagnostics import Severity
from tflint.rule import Rule
from tflint.semantic.syntax import child_nodes, code as _code, flat_targets, walk_scope
from tflint.semantic.project import where as where_in
from tflint.semantic import Ctx, FunctionInfo, SemanticModel, is_container_value, names_tracing

MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add",
                      "discard", "popitem", "appendleft", "extendleft", "sort", "reverse"})


def _assign_targets(node: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    if isinstance(node, cst.Assign):
        for t in node.targets:
            yield from flat_targets(t.target)
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        if not isinstance(node, cst.AnnAssign) or node.value is not None:
            yield node.target
    elif isinstance(node, cst.Del):
        yield from flat_targets(node.target)


def changes_per_call(sem: SemanticModel, node: cst.CSTNode, target: cst.BaseExpression,
                     value: cst.BaseExpression | None, ctx: Ctx) -> bool:
    """Is this assignment Python state that a user expects to change on every call?

    Trace-time facts derived from static structure (``self._weighted = w is not None``,
    a list of variable names) are the same on every call and are fine to store. What
    changes per call, and so silently changes only per trace, is: counters (``+=``,
    ``n = n + 1``), tensors (which also leak out of the graph), and flags the same
    function tests (``if first_call: ... first_call = False``). A name that says it
    counts traces (``num_traces += 1``) changes once per trace on purpose, as long as
    it stores no tensor.
    """
    last = target.attr if isinstance(target, cst.Attribute) else target
    if isinstance(last, cst.Name) and names_tracing(last.value) and \
            (value is None or not sem.is_tensor(value, ctx.fn)):
        return False
    if isinstance(node, cst.AugAssign):
        return not sem.counts_from_a_reset(node, target, ctx)
    if value is None:
        return False
    if sem.is_tensor(value, ctx.fn):
        return True
    text = _code(target)
    if isinstance(value, cst.Attribute) and value.attr.value in ("__wrapped__", "__func__"):
        return False  # ``layer.call = layer.call.__wrapped__``: a decorator undone, a function
    if text in _expression_texts(value):
        return True
    for c in ctx.within_function():
        if isinstance(c.node, (cst.If, cst.While)) and text in _expression_texts(c.node.test):
            if isinstance(c.node, cst.If) and _static_key_cache(sem, c.node.test, text, value, ctx):
                continue
            return True
    return False


def _static_key_cache(sem: SemanticModel, test: cst.BaseExpression, text: str, value: cst.BaseExpression,
                      ctx: Ctx) -> bool:
    """``if self.shape != z.shape[0]: self.shape = z.shape[0]`` (or an object built from
    it): a cache keyed by a static, trace-time value. It is rebuilt once per trace when the
    key changes, which is what the code means."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    comp = test.comparisons[0]
    if not isinstance(comp.operator, (cst.NotEqual, cst.IsNot)):
        return False
    sides = [test.left, comp.comparator]
    mine = [e for e in sides if text in _expression_texts(e)]
    keys = [e for e in sides if text not in _expression_texts(e)]
    if len(mine) != 1 or len(keys) != 1:
        return False
    key = keys[0]
    stored = {_code(n) for n in walk_scope(value) if isinstance(n, (cst.Attribute, cst.Name))}
    return sem.value_of(key, ctx.fn).is_python and _expression_texts(key) <= stored


def outer_container(sem: SemanticModel, name: str, fn: FunctionInfo | None) -> str | None:
    """Where ``name`` lives if it is a list/dict/set bound outside traced code:
    "module" or "enclosing function"; None when it is local to traced code or unknown."""
    if fn is not None:
        for f in fn.scope_chain():
            if name in f.globals_:
                break
            if name in f.param_names or name in f.bound:
                if f.traced:
                    return None
                return "enclosing function" if any(is_container_value(v) for v in f.assigns.get(name, ())) else None
    if name in sem.imports:
        return None
    return "module" if sem.module_binding_is_container(name) else None


class OuterContainerMutation(Rule):
    """A list, dict or set defined outside traced code is mutated inside it.

    ## What it does
    Flags `append`, `extend`, `insert`, `update`, `setdefault`, `add`, ... calls with a
    tensor argument, `x[k] = <tensor>`, `x[<tensor>] = v` and `x[k] += v` in traced code when `x` is a list,
    dict or set bound at module level or in an enclosing function that is not traced.
    Lists local to the traced function (built in a Python loop and then `tf.stack`-ed)
    are fine, and so is recording static trace-time facts on purpose (variable names,
    shapes), which are the same on every call.

    ## Why is this bad?
    The mutation happens while tracing: once per trace, not once per call. After three
    calls the list holds one element, and that element is a symbolic tensor that fails
    as soon as it is used (`'SymbolicTensor' object has no attribute 'numpy'`, or "is out
    of scope and cannot be used here").

    ## Example
    ```python
    history = []

    @tf.function
    def step(x):
        history.append(x * 2)
        return x
    ```

    ## Use instead
    ```python
    @tf.function
    def step(x):
        return x, x * 2

    history = []
    for x in xs:
        _, y = step(x)
        history.append(y)       # accumulate in eager code
    ```
    Inside the graph, use `tf.TensorArray` or a `tf.Variable`.

    ## References
    - [Better performance with tf.function: Changing Python global and free variables](https://www.tensorflow.org/guide/function#changing_python_global_and_free_variables)
    """

    CODE = "TFL105"
    NAME = "outer-container-mutation"
    MESSAGE = ("`{name}` ({where} {kind}) is mutated in traced code: this happens once per trace, not per call, "
               "and stores symbolic tensors; return the value or use tf.TensorArray / tf.Variable")
    SEVERITY = Severity.WARNING
    PITFALLS = ("P02",)
    VALID = (
        '''import tensorflow as tf

@tf.function
def f(x):
    parts = []
    for i in range(3):
        parts.append(x * i)       # local list, stacked into one tensor
    return tf.stack(parts)

losses = []
for step in range(3):
    losses.append(f(tf.constant(1.0)))   # eager code
''',
        '''import tensorflow as tf

trace_count = [0]


@tf.function
def step(mel):
    trace_count[0] += 1                   # a test counts the traces on purpose
    return mel * 2


step(tf.ones([2, 3]))
step(tf.ones([2, 3]))
assert trace_count[0] == 1
''',
        # the container is the map function's whole output, and nothing reads it after
        # (held-out set 102; checked on 2.21: every element carries its own image)
        '''import tensorflow as tf

def load_dataset(paths):
    inputs = {"K": tf.constant([1.0, 2.0])}
    ds = tf.data.Dataset.from_tensor_slices(paths)

    def load_sample(path):
        inputs["img"] = tf.io.decode_png(tf.io.read_file(path))
        return inputs

    return ds.map(load_sample)
''',
    )
    INVALID = (
        '''import tensorflow as tf

history = []
stats = {}

@tf.function
def step(x):
    history.append(x * 2)  # TFL105
    stats["last"] = x  # TFL105
    return x
''',
        '''import tensorflow as tf

def load_dataset(paths):
    inputs = {}
    ds = tf.data.Dataset.from_tensor_slices(paths)

    def load_sample(path):
        inputs["img"] = tf.io.decode_png(tf.io.read_file(path))  # TFL105
        return inputs

    ds = ds.map(load_sample)
    print(inputs["img"])           # read after the trace: a symbolic tensor
    return ds
''',
    )

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        f = node.func
        if isinstance(f, cst.Attribute) and f.attr.value in MUTATORS and isinstance(f.value, cst.Name) and \
                any(self.sem.is_tensor(a.value, ctx.fn) for a in node.args):
            self._check(f.value.value, node, ctx)

    def visit_Assign(self, node: cst.CSTNode, ctx: Ctx) -> None:
        value = getattr(node, "value", None)
        for t in _assign_targets(node):
            if isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name) and \
                    (isinstance(node, cst.AugAssign) or value is not None and self.sem.is_tensor(value, ctx.fn)
                     or self._tensor_key(t, ctx)):
                if names_tracing(t.value.value) and (value is None or not self.sem.is_tensor(value, ctx.fn)):
                    continue  # ``trace_count[0] += 1``: counts traces on purpose
                self._check(t.value.value, t, ctx)

    visit_AugAssign = visit_Assign

    def _tensor_key(self, target: cst.Subscript, ctx: Ctx) -> bool:
        return any(isinstance(e.slice, cst.Index) and self.sem.is_tensor(e.slice.value, ctx.fn)
                   for e in target.slice)

    def _check(self, name: str, node: cst.CSTNode, ctx: Ctx) -> None:
        where = outer_container(self.sem, name, ctx.fn)
        if where is None or self.sem.enclosing_guard(ctx) is not None:
            return
        if self.sem.container_only_returned(ctx.fn, name):
            return  # the map function's output structure, filled anew by every call
        kind = "container"
        self.report(node, self.MESSAGE.format(name=name, where=where, kind=kind), ctx=ctx)


class GlobalRebinding(Rule):
    """A `global` or `nonlocal` name is assigned in traced code.

    ## What it does
    Flags assignments in traced code to names declared `global` or `nonlocal` (when the
    `nonlocal` variable belongs to code that is not traced). An assignment under a
    first-call guard (`if v is None: v = tf.Variable(...)`) is not flagged, nor is a
    counter whose name says it counts traces (`num_traces += 1`): once per trace is what
    it means.

    ## Why is this bad?
    The assignment runs while tracing. A counter increments once per trace instead of once
    per call (`[1, 1, 1]` instead of `[1, 2, 3]`), and a tensor stored in the global is a
    symbolic graph tensor that fails when used outside the function.

    ## Example
    ```python
    calls = 0

    @tf.function
    def f(x):
        global calls
        calls += 1
        return x * 2
    ```

    ## Use instead
    ```python
    calls = tf.Variable(0)

    @tf.function
    def f(x):
        calls.assign_add(1)
        return x * 2
    ```

    ## References
    - [Better performance with tf.function: All outputs of a tf.function must be return values](https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values)
    """

    CODE = "TFL106"
    NAME = "global-rebinding"
    MESSAGE = ("`{kind} {name}` assigned in traced code: the assignment runs once per trace, not per call; "
               "keep the state in a tf.Variable or return it")
    SEVERITY = Severity.WARNING
    PITFALLS = ("P03",)
    VALID = (
        '''import tensorflow as tf

v = None

@tf.function
def f(x):
    global v
    if v is None:
        v = tf.Variable(1.0)     # first-call creation, the documented pattern
    return v * x

def count():
    global v
    v = 3                        # eager code
''',
        '''import tensorflow as tf

num_traces = 0

@tf.function
def f(x):
    global num_traces
    num_traces += 1              # counts traces on purpose, as the TensorFlow guides do
    return x * 2
''',
    )
    INVALID = (
        '''import tensorflow as tf

calls = 0
last = None

@tf.function
def f(x):
    global calls, last
    calls += 1  # TFL106
    last = x * 2  # TFL106
    return x
''',
        '''import tensorflow as tf

def make_counter():
    n = 0

    @tf.function
    def step(x):
        nonlocal n
        n += 1  # TFL106
        return x + n

    return step
''',
    )

    def visit_Assign(self, node: cst.CSTNode, ctx: Ctx) -> None:
        fn = ctx.fn
        if fn is None or not (fn.globals_ or fn.nonlocals):
            return
        for t in _assign_targets(node):
            if not isinstance(t, cst.Name) or isinstance(node, cst.Del):
                continue
            name = t.value
            if name in fn.globals_:
                kind = "global"
            elif name in fn.nonlocals and self._nonlocal_owner_untraced(fn, name):
                kind = "nonlocal"
            else:
                continue
            if self.sem.enclosing_guard(ctx) is not None:
                continue
            if not changes_per_call(self.sem, node, t, getattr(node, "value", None), ctx):
                continue
            self.report(t, self.MESSAGE.format(kind=kind, name=name), ctx=ctx)

    visit_AugAssign = visit_Assign
    visit_AnnAssign = visit_Assign

    @staticmethod
    def _nonlocal_owner_untraced(fn: FunctionInfo, name: str) -> bool:
        f = fn.parent
        while f is not None:
            if name in f.bound or name in f.param_names:
                return not f.traced
            f = f.parent
        return False


_STATE_VALUES = frozenset({"tensorflow.Variable", "tensorflow.TensorArray", "tensorflow.compat.v1.Variable"})


class PythonAttributeMutation(Rule):
    """Python attributes of `self` or outer objects changed in traced code.

    ## What it does
    Flags, in traced code, assignments to attributes of `self`, of an object parameter or
    of a module-level object (`self.count += 1`, `self.last = x`, `cfg.lr = 0.1`), and
    `append`/`update`/item assignment on a list or dict attribute that `__init__` or
    `build` created (`self.history.append(x)`). Not flagged: creation under a first-call
    guard (`if self.v is None: self.v = tf.Variable(...)`), code in `__init__`/`build`,
    `tf.Variable.assign*` calls, code under `with tf.init_scope():`, and a tensor stored
    on an attribute that no eager code of the file is known to read (`self.batch_size =
    tf.shape(x)[0]` in `train_step`, read by the helper methods it calls): it lives for
    one trace, like a local. A tensor stored on an attribute is reported only where eager
    code of the same file reads the attribute (not `__init__`/`build`, which run before any
    trace, nor a method of a class derived from another library's class that nothing in
    the module calls: the library may run it within the trace, nor a nested function that
    the function defining it hands out, such as a loss function returned for `compile`) and no eager code outside
    them stores a computed value on it too: then which value a read sees depends on the
    order of the calls. Nor is the state of an object that is itself made within the trace
    (a processor class constructed only in a `Dataset.map` parser): it lives for that
    trace.

    ## Why is this bad?
    The attribute changes while tracing, once per trace: a `self.counter == 0` guard is
    evaluated once and its effect is baked into the graph (`[1, 2, 3]` instead of
    `[1, 1, 1]`), and a tensor stored on `self` is a symbolic graph tensor that leaks out
    of the function.

    ## Example
    ```python
    class Model(tf.Module):
        def __init__(self):
            self.v = tf.Variable(0)
            self.counter = 0

        @tf.function
        def __call__(self):
            if self.counter == 0:
                self.counter += 1
                self.v.assign_add(1)
            return self.v.read_value()
    ```

    ## Use instead
    ```python
    class Model(tf.Module):
        def __init__(self):
            self.v = tf.Variable(0)
            self.counter = tf.Variable(0)

        @tf.function
        def __call__(self):
            if self.counter == 0:
                self.counter.assign_add(1)
                self.v.assign_add(1)
            return self.v.read_value()
    ```

    ## References
    - [Better performance with tf.function: Changing Python global and free variables](https://www.tensorflow.org/guide/function#changing_python_global_and_free_variables)
    - [tensorflow/tensorflow#31362](https://github.com/tensorflow/tensorflow/issues/31362)
    """

    CODE = "TFL107"
    NAME = "python-attribute-mutation"
    MESSAGE = ("`{target}` is changed in traced code: Python state changes once per trace, not per call; "
               "keep it in a tf.Variable or move it out of the function")
    TENSOR_MESSAGE = ("`{target}` keeps a tensor of traced code, and {where}: "
                      "outside its trace it is a symbolic graph tensor, not the last call's value; "
                      "return it from the function, or `assign` it to a variable, instead")
    SEVERITY = Severity.WARNING
    PITFALLS = ("P05",)
    VALID = (
        '''import tensorflow as tf

class Trainer:
    def __init__(self, epochs):
        self.epochs = epochs
        self.epoch = 0

    def train(self, x):
        @tf.function
        def _train(x):
            with tf.name_scope("train"):
                self.epoch = 0                # reset in the trace, then counted in Python
                for _ in range(self.epochs):
                    x = x * 0.5
                    self.epoch += 1           # ends at self.epochs, as an eager call leaves it
            return x
        return _train(x)
''',
        '''import tensorflow as tf

class Trainer:
    def __init__(self):
        self.losses = {}

    def reset_losses(self):
        self.losses = {"pixel_loss": 0.0}

    def compute_losses(self, x):
        self.reset_losses()                    # a fresh dict in this trace
        for s in range(3):
            self.losses["pixel_loss"] += tf.reduce_mean(x) * s
        return self.losses

    @tf.function
    def grad(self, x):
        return self.compute_losses(x)
''',
        '''import tensorflow as tf
import tensorflow_addons as tfa

class TacotronDecoder(tfa.seq2seq.Decoder):
    def setup_decoder_init_state(self, state):
        self.initial_state = state           # kept for the rest of the trace

    def initialize(self, **kwargs):          # a library hook: dynamic_decode runs it in the trace
        return (self.initial_state,)

class Tacotron(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.decoder = TacotronDecoder()

    @tf.function
    def inference(self, x):
        self.decoder.setup_decoder_init_state(tf.zeros_like(x))
        return tfa.seq2seq.dynamic_decode(self.decoder)
''',
        '''import tensorflow as tf

class Counter(tf.Module):
    def __init__(self):
        self.count = tf.Variable(0)
        self.scale = None
        self.history = []

    @tf.function
    def __call__(self, x):
        if self.scale is None:
            self.scale = tf.Variable(2.0)
        self.count.assign_add(1)
        return x * self.scale

    def record(self, y):
        self.history.append(y)         # eager method
''',
        '''import tensorflow as tf

class Sampler(tf.Module):
    def __init__(self):
        self.noise_shape = None

    @tf.function
    def __call__(self, z):
        if self.noise_shape != z.shape[0]:      # keyed by a static shape: once per trace
            self.noise_shape = z.shape[0]
        return z + tf.random.normal((self.noise_shape,))
''',
        '''import tensorflow as tf

class WGAN(tf.keras.Model):
    def train_step(self, data):
        self._batch_size = tf.shape(data)[0]   # read only later in the same trace
        return {"gp": self._penalty(data)}

    def _penalty(self, data):
        return tf.random.uniform([self._batch_size]) * tf.reduce_mean(data)
''',
        '''import tensorflow as tf

class RPN(tf.keras.Model):
    def call(self, x):
        self.scores = tf.nn.softmax(x)          # a per-trace temporary nobody reads eagerly
        self.boxes = tf.reshape(self.scores, [-1, 4])
        return self.boxes
''',
        '''import tensorflow as tf

class InputProcessor:
    def __init__(self, image):
        self._image = image
        self._image_scale = tf.constant(1.0)

    def normalize_image(self):
        self._image = tf.cast(self._image, tf.float32)
        self._image -= 0.5                      # this object lives for one trace

    def set_scale(self, scale):
        self._image_scale = tf.cast(scale, tf.float32)

    @property
    def image_scale(self):
        return self._image_scale

class DetectionInputProcessor(InputProcessor):
    def __init__(self, image, boxes):
        InputProcessor.__init__(self, image)
        self._boxes = boxes

def parse(image, boxes):                        # made anew in each trace of the parser
    p = DetectionInputProcessor(image, boxes)
    p.normalize_image()
    p.set_scale(tf.shape(image)[0])
    return p._image * p.image_scale

ds = tf.data.Dataset.from_tensor_slices((images, boxes)).map(parse)
''',
        '''import tensorflow as tf

class GAN:
    @tf.function
    def train_generator(self):
        self.fake = self.generator(tf.random.normal([8, 16]))
        return tf.reduce_mean(self.discriminator(self.fake))

    def train_discriminator(self):
        return self.d_step(self.fake)            # the eager value stored just before

    def train(self, batches):
        for batch in batches:
            self.fake = self.generator(tf.random.normal([8, 16]))   # refreshed eagerly
            self.train_discriminator()
            self.train_generator()
''',
'''import tensorflow as tf

class Conv1D(tf.keras.layers.Conv1D):
    def call(self, inputs, is_synthesis=False):
        if not is_synthesis:
            return super().call(inputs)          # every traced call returns here
        self.queue = self.queue[:, 1:, :]        # eager, sample by sample
        return tf.matmul(self.queue[:, -1, :], self.w)

class Block(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = Conv1D(8, 3)

    @tf.function
    def call(self, x):
        return self.conv(x)

    def synthesis(self, x):
        return self.conv(x, is_synthesis=True)
''',
        '''import tensorflow as tf

class Decoder(tf.keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.rnn = tf.keras.layers.LSTMCell(units)
        self.score = tf.keras.layers.Dense(1)

    def initialize_states(self, memory):
        batch = tf.shape(memory)[0]
        self.weights_cum = tf.zeros([batch, tf.shape(memory)[1]])   # afresh on every call
        self.state = [tf.zeros([batch, 8]), tf.zeros([batch, 8])]

    def decode(self, frame):
        out, self.state = self.rnn(frame, self.state)
        weights = tf.nn.softmax(tf.squeeze(self.score(out), -1))
        self.weights_cum += weights                     # per-call state of the decoder
        return out

    def call(self, memory, frames):
        self.initialize_states(memory)
        outputs = []
        for i in range(4):
            outputs.append(self.decode(frames[:, i]))
        return tf.stack(outputs, 1)

class Tacotron(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.decoder = Decoder(8)

    def train_step(self, data):
        memory, frames = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(self.decoder(memory, frames))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}
''',
        '''import tensorflow as tf

class Trainer(tf.Module):
    def __init__(self):
        self.lam = tf.Variable(0.0)

    @tf.function
    def step(self, x):
        self.lam = self.lam.assign_add(x)    # the same variable: updated on every call
        return self.lam * 1.0
''',
        '''import tensorflow as tf
from functools import wraps

def watch_layer(layer, tape):
    def decorate(call):
        @wraps(call)
        def watched(*args):
            layer.result = call(*args)
            tape.watch(layer.result)
            return layer.result
        return watched
    layer.call = decorate(layer.call)

def end_watch_layer(layer):
    layer.call = layer.call.__wrapped__      # undone within the same trace

@tf.function
def gradient(model, conv, x):
    with tf.GradientTape() as tape:
        watch_layer(conv, tape)
        score = tf.reduce_sum(model(x))
    grads = tape.gradient(score, conv.result)
    end_watch_layer(conv)
    return grads
''',
        '''import keras
import tensorflow as tf

class GAN(keras.Model):
    def __init__(self):
        super().__init__()
        self.g_losses = []
        self.dense = keras.layers.Dense(1)

    def train_step(self, data):
        g_loss = tf.reduce_mean(self.dense(data))
        self.g_losses.append(g_loss)            # fit runs the step eagerly: once per step
        return {"g": g_loss}

gan = GAN()
gan.compile(optimizer="adam")
gan.run_eagerly = True
gan.fit(tf.zeros([8, 3]))
''',
        '''import tensorflow as tf

class Encoder(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.embedding = tf.keras.layers.Embedding(100, 8)

    def call(self, x):
        self.embedded = self.embedding(x)      # also stored by the eager call below
        return tf.reduce_sum(self.embedded, axis=1)

class Seq2Seq:
    def __init__(self):
        self.encoder = Encoder()

    @tf.function
    def train_step(self, x):
        return self.encoder(x)

    def connectivity(self, x):
        with tf.GradientTape() as tape:
            out = self.encoder(x)              # runs the encoder eagerly first
        return tape.gradient(out, self.encoder.embedded)
''',
        '''import tensorflow as tf


class Model(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.enc = tf.keras.layers.Dense(4)
        self.head = tf.keras.layers.Dense(2)

    @tf.function
    def infer(self, x):
        return self.forward(x)

    def forward(self, x):
        h = self.enc(x)
        self.feature = h                      # read by the loss, within the same trace
        return self.head(h)

    def get_loss_fn(self):
        def loss_fn(y, pred):
            return tf.reduce_mean(tf.square(y - pred)) + tf.reduce_mean(self.feature)
        return loss_fn
''',
        '''import numpy as np
import tensorflow as tf

class CenterLoss:
    def __init__(self):
        self.centers = tf.Variable(tf.zeros([10, 4]), trainable=False)

    @tf.function
    def step(self, features, label):
        diff = 0.5 * (tf.gather(self.centers, label) - features)
        # on a resource variable this gives a handle on the same variable
        self.centers = tf.compat.v1.scatter_sub(self.centers, label, diff)
        return tf.reduce_mean(features)

    def save(self):
        np.save("centers.npy", self.centers.numpy())
''',
    )
    INVALID = (
        '''import tensorflow as tf

class LrScheduler:
    def __init__(self):
        self.step_count = 0

    def step(self):                       # called from the tf.function below
        self.step_count += 1  # TFL107
        return 1e-3 * tf.minimum(1.0, self.step_count / 100.0)

class Trainer:
    def __init__(self):
        self.lr_scheduler = LrScheduler()
        self.lr = tf.Variable(0.0)

    @tf.function
    def train_step(self, x):
        self.lr.assign(self.lr_scheduler.step())
        return x * self.lr
''',
        '''import tensorflow as tf

class Model(tf.Module):
    def __init__(self):
        self.v = tf.Variable(0)
        self.counter = 0
        self.history = []

    @tf.function
    def __call__(self, x):
        if self.counter == 0:
            self.counter += 1  # TFL107
            self.v.assign_add(1)
        self.history.append(x)  # TFL107
        self.last_input = x  # TFL107
        return self.v.read_value()

    def report(self):
        return self.last_input.numpy()   # eager: sees the graph tensor
''',
'''import tensorflow as tf

class Conv1D(tf.keras.layers.Conv1D):
    def call(self, inputs, is_synthesis=False):
        if not is_synthesis:
            return super().call(inputs)
        self.queue = self.queue[:, 1:, :]  # TFL107
        return tf.matmul(self.queue[:, -1, :], self.w)

class Block(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = Conv1D(8, 3)

    @tf.function
    def call(self, x):
        return self.conv(x, is_synthesis=True)   # a trace takes the other path
''',
        '''import keras
import numpy as np
import tensorflow as tf


class IoU(keras.metrics.Metric):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.iou = self.add_weight(name="iou", initializer="zeros")
        self.total = self.add_weight(name="total", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.total.assign_add(tf.reduce_sum(y_pred))
        self.iou = tf.math.divide(self.total, 2.0)  # TFL107

    def result(self):                 # Keras calls it eagerly too, for the epoch's logs
        return self.iou

    def reset_state(self):
        self.iou = self.add_weight(name="iou", initializer="zeros")


model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", metrics=[IoU(name="iou")])
model.fit(np.zeros((8, 2)), np.zeros((8, 1)))
''',
        '''import tensorflow as tf


class NoisyStudent(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.initial = True
        self.teacher = tf.keras.layers.Dense(1)

    def train_step(self, data):
        if self.initial:          # decided while tracing: the graph keeps this branch
            loss = tf.reduce_mean(self.teacher(data))
            self.initial = False  # TFL107
        else:
            loss = tf.constant(0.0)
        return {"loss": loss}
''',
    )

    def visit_Assign(self, node: cst.CSTNode, ctx: Ctx) -> None:
        fn = ctx.fn
        if fn is None:
            return
        value = getattr(node, "value", None)
        for t in _assign_targets(node):
            if isinstance(t, cst.Attribute):
                base = self._outer_object(t.value, fn)
                if base is None:
                    continue
                if value is not None and isinstance(value, cst.Call) and \
                        self.sem.resolves_to(value.func, _STATE_VALUES) and self.sem.enclosing_guard(ctx):
                    continue
                if self.sem.enclosing_guard(ctx) is not None and not isinstance(node, cst.AugAssign):
                    continue
                if not changes_per_call(self.sem, node, t, value, ctx):
                    continue
                if not isinstance(node, cst.AugAssign) and self.sem.is_own_update(value, t):
                    continue  # `self.v = self.v.assign_add(x)`: the same variable, updated on every call
                if self._per_trace_self(t.value, fn):
                    continue  # every instance is made within a trace, and lives for it
                target = f"{base}.{t.attr.value}"
                if value is not None and not isinstance(node, cst.AugAssign) and self.sem.is_tensor(value, fn):
                    read = self.sem.eager_read_of_traced_store(t.attr.value)
                    if read is None:
                        continue  # kept for the rest of its trace, as a local would be
                    path, reader, line = read
                    if path is not None:
                        where = f"module-level code of {where_in(path, line)} reads it eagerly"
                    else:
                        who = f"`{reader}()`" if reader is not None else "module-level code"
                        where = f"{who} reads it eagerly at line {line}"
                    self.report(t, self.TENSOR_MESSAGE.format(target=target, where=where), ctx=ctx)
                    continue
                self.report(t, self.MESSAGE.format(target=target), ctx=ctx)
            elif isinstance(t, cst.Subscript) and isinstance(t.value, cst.Attribute):
                if value is not None and self.sem.is_tensor(value, fn):
                    self._container_attr(t.value, t, ctx)

    visit_AugAssign = visit_Assign
    visit_AnnAssign = visit_Assign
    visit_Del = visit_Assign

    def visit_Call(self, node: cst.Call, ctx: Ctx) -> None:
        f = node.func
        if isinstance(f, cst.Attribute) and f.attr.value in MUTATORS and isinstance(f.value, cst.Attribute) and \
                any(self.sem.is_tensor(a.value, ctx.fn) for a in node.args):
            self._container_attr(f.value, node, ctx)

    def _container_attr(self, attr: cst.Attribute, node: cst.CSTNode, ctx: Ctx) -> None:
        fn = ctx.fn
        cls = fn.class_of_self(attr.value) if fn is not None else None
        if cls is None:
            return
        values = cls.init_attrs.get(attr.attr.value, ())
        if not any(is_container_value(v) for v in values):
            return
        if self.sem.instances_live_per_trace(cls):
            return  # every instance is made within a trace, and lives for it
        if self.sem.enclosing_guard(ctx) is not None:
            return
        if self.sem.fresh_container_before(fn, attr.attr.value, node):
            return  # a container made earlier in the same trace
        self.report(node, self.MESSAGE.format(target=f"{attr.value.value}.{attr.attr.value}"), ctx=ctx)

    def _per_trace_self(self, base: cst.BaseExpression, fn: FunctionInfo) -> bool:
        """``self`` of a class whose instances are all made within a trace."""
        cls = fn.class_of_self(base)
        return cls is not None and self.sem.instances_live_per_trace(cls)

    def _outer_object(self, base: cst.BaseExpression, fn: FunctionInfo) -> str | None:
        """The name of ``base`` when it is ``self``/``cls``, an object parameter or a
        module-level object; None for objects local to the traced code."""
        if not isinstance(base, cst.Name):
            return None
        name = base.value
        if fn.name in ("__init__", "build"):
            return None
        for f in fn.scope_chain():
            if name in f.param_names:
                if not f.traced and f is not fn:
                    return name  # captured from an enclosing eager function
                return name if name not in f.assigns else None
            if name in f.bound:
                return None if f.traced else name
        if name in self.sem.imports or name in self.sem.classes or name in self.sem.module_functions:
            return None
        return name if name in self.sem.module_assigns else None


def _expression_texts(value: cst.BaseExpression) -> set[str]:
    """Source texts of the names and attribute chains in ``value`` (``self.n`` in
    ``self.n + 1``)."""
    out: set[str] = set()
    stack: list[cst.CSTNode] = [value]
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.Attribute, cst.Name)):
            out.add(_code(n))
        stack.extend(c for c in child_nodes(n) if isinstance(c, cst.BaseExpression))
    return out
