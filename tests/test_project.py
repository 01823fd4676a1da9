"""The project-wide index: traced code, TFL401 and TFL402 across modules, the cache."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest

from conftest import write
from tflint.semantic import project as P

OPS = '''import tensorflow as tf


def helper(x):
    return x.numpy()


def make_step(model):
    @tf.function
    def step(x):
        return model(x)

    return step(1)


@tf.function
def scaled(x, factor):
    return x * factor


def unused(x):
    return x.numpy()
'''

TRAINER = '''import tensorflow as tf

from . import ops
from .ops import make_step, scaled


class Trainer(tf.keras.Model):
    def train_step(self, data):
        y = ops.helper(data)
        return {"loss": y}


def main(model):
    for epoch in range(100):
        make_step(model)
        scaled(tf.constant(1.0), epoch)
'''


@pytest.fixture
def pkg(project: Path) -> Path:
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/ops.py", OPS)
    write(project, "pkg/trainer.py", TRAINER)
    return project


def codes_at(out: str, path: str) -> list[tuple[int, str]]:
    found = []
    for line in out.splitlines():
        if line.startswith(path + ":"):
            _, row, _, rest = line.split(":", 3)
            found.append((int(row), rest.split()[0]))
    return found


def test_helper_traced_through_an_import(pkg: Path, run) -> None:
    r = run("check", "pkg/ops.py")
    assert (5, "TFL201") in codes_at(r.out, "pkg/ops.py"), r.out
    assert "called from `train_step` in `pkg/trainer.py` (line 9), which Keras runs under tf.function" in r.out
    # `unused` is called from nowhere: not traced, no finding
    assert 22 not in [row for row, _ in codes_at(r.out, "pkg/ops.py")]


def test_alone_the_file_knows_nothing_of_its_callers(pkg: Path) -> None:
    from tflint.engine import lint_source

    diags = lint_source((pkg / "pkg/ops.py").read_text(), "pkg/ops.py")
    assert not [d for d in diags if d.code in ("TFL201", "TFL401", "TFL402")]


def test_a_module_nobody_imports_is_not_summarized(pkg: Path) -> None:
    """Nothing can call into a module that no module imports, so the index answers for it
    without summarizing it (or anything else): a training script pays nothing for the
    index. A module with importers is answered through their summaries."""
    idx = P.ProjectIndex(str(pkg))
    trainer = idx.view(str(pkg / "pkg/trainer.py"))
    assert trainer is not None and trainer.traced_from_elsewhere() == {}
    assert idx._summaries == {}
    ops = idx.view(str(pkg / "pkg/ops.py"))
    assert ops is not None and "helper" in ops.traced_from_elsewhere()
    assert str(pkg / "pkg/trainer.py") in idx._summaries


def test_tfl401_and_tfl402_name_the_other_module(pkg: Path, run) -> None:
    r = run("check", "pkg/ops.py")
    found = codes_at(r.out, "pkg/ops.py")
    assert (10, "TFL402") in found and (17, "TFL401") in found, r.out
    assert "which is called in a loop in `pkg/trainer.py` (line 15)" in r.out
    assert "`epoch` is a Python value that changes per call, passed as `factor` in `pkg/trainer.py` (line 16)" in r.out


@pytest.mark.parametrize("loop, flagged", [
    ("    t = tqdm.tqdm(range(episodes))\n    for episode in t:\n        epsilon = max(1 - episode / 50, 0.01)\n", True),
    ("    for episode in range(episodes):\n        epsilon = 0.5 * math.exp(-episode)\n", True),
    ("    for episode in range(episodes):\n        epsilon = max(1 - self_rate(episode), 0.01)\n", False),  # unknown
    ("    for episode in range(episodes):\n        epsilon = tf.constant(0.5) * episode\n", False),  # a tensor
    ("    for episode in range(3):\n        epsilon = 1 - episode / 50\n", False),  # three traces on purpose
])
def test_tfl401_a_value_computed_from_the_loop_variable_in_another_module(project: Path, run, loop, flagged) -> None:
    """``epsilon = max(1 - episode/50, 0.01)`` in a ``for episode in tqdm(range(...))``
    loop, passed to an imported tf.function: a new graph per episode (Lord225/AIProject,
    held-out set 106; checked on 2.21: 6 episodes, 6 traces)."""
    write(project, "collector.py", "import tensorflow as tf\n\n\n@tf.function\ndef run_episode(state, epsilon):\n"
                                   "    return state * epsilon\n")
    write(project, "train.py", "import math\nimport tensorflow as tf\nimport tqdm\nfrom collector import run_episode\n\n"
                               "episodes = 500\n\n\ndef self_rate(e):\n    return tf.constant(e)\n\n\ndef run():\n" + loop +
                               "        run_episode(tf.ones([2]), epsilon)\n")
    r = run("check", "--select", "TFL401", "collector.py")
    assert codes_at(r.out, "collector.py") == ([(5, "TFL401")] if flagged else []), r.out
    if flagged:
        assert "`epsilon` is a Python value that changes per call" in r.out


def test_tfl401_silent_for_calls_under_run_functions_eagerly(project: Path, run) -> None:
    """style-gan's ``init()``: the loop between ``run_functions_eagerly(True)`` and
    ``(False)`` runs the tf.function as Python (0 traces on 2.21); the loop after it traces."""
    write(project, "image_utils.py", "import tensorflow as tf\n\n@tf.function\ndef fade_lod(images, lod):\n"
                                     "    return images * (lod - tf.floor(lod))\n")
    eager = ("import tensorflow as tf\nimport image_utils\n\n\ndef init(x):\n"
             "    tf.config.experimental_run_functions_eagerly(True)\n    lod = 1.0\n    while lod <= 3:\n"
             "        image_utils.fade_lod(x, lod)\n        lod += 0.5\n"
             "    tf.config.experimental_run_functions_eagerly(False)\n")
    write(project, "train.py", eager)
    assert "TFL401" not in run("check", "image_utils.py").out
    write(project, "train.py", eager + "    lod = 1.0\n    while lod <= 3:\n        image_utils.fade_lod(x, lod)\n"
                                       "        lod += 0.5\n")
    r = run("check", "image_utils.py")
    assert "passed as `lod` in `train.py` (line 14)" in r.out, r.out


@pytest.mark.parametrize("start, flagged", [("0", True), ("tf.constant(0)", False)])
def test_tfl401_a_counter_that_starts_as_a_tensor_is_no_python_value(project: Path, run, start, flagged) -> None:
    """``step = tf.constant(0)`` then ``step += 1`` in the loop: each call gets a tensor
    (StarGAN-tf2's learning-rate decay, found through a star import)."""
    write(project, "lib.py", "import tensorflow as tf\n\n@tf.function\ndef decay(opt, iteration):\n"
                             "    return iteration * 2\n")
    write(project, "train.py", f"import tensorflow as tf\nfrom lib import decay\n\nstep = {start}\n"
                               "for batch in range(1000):\n    step += 1\n    decay(None, step)\n")
    assert ("TFL401" in run("check", "lib.py").out) is flagged


def test_tfl401_literals_counted_across_modules(project: Path, run) -> None:
    write(project, "lib.py", "import tensorflow as tf\n\n@tf.function\ndef resize(x, size):\n"
                             "    return tf.image.resize(x, [size, size])\n\nresize(tf.zeros([1, 8, 8, 3]), 32)\n")
    write(project, "app.py", "import tensorflow as tf\nfrom lib import resize\n\n"
                             "a = resize(tf.zeros([1, 8, 8, 3]), 64)\nb = resize(tf.zeros([1, 8, 8, 3]), 128)\n")
    r = run("check", "lib.py")
    found = codes_at(r.out, "lib.py")
    assert (4, "TFL401") in found and (7, "TFL401") in found, r.out
    assert "passed as `size` in `app.py` (line 4) and 1 more call site" in r.out
    # two values only: a deliberate specialization, not flagged
    write(project, "app.py", "import tensorflow as tf\nfrom lib import resize\n\n"
                             "a = resize(tf.zeros([1, 8, 8, 3]), 64)\n")
    assert "TFL401" not in run("check", "lib.py").out


def test_calls_in_traced_code_and_small_loops_are_not_tfl401(project: Path, run) -> None:
    write(project, "lib.py", "import tensorflow as tf\n\n@tf.function\ndef f(x, n):\n    return x * n\n")
    write(project, "app.py", "import tensorflow as tf\nimport lib\n\n@tf.function\ndef outer(x):\n"
                             "    for i in range(100):\n        x = lib.f(x, i)\n    return x\n\n"
                             "for i in range(3):\n    lib.f(tf.constant(1.0), i)\n")
    r = run("check", "lib.py")
    assert "TFL401" not in r.out, r.out


def test_relative_imports_two_levels_and_reexports(project: Path, run) -> None:
    write(project, "proj/__init__.py", "")
    write(project, "proj/util/__init__.py", "from .core import helper\n")
    write(project, "proj/util/core.py", "def helper(x):\n    return x.numpy()\n")
    write(project, "proj/models/__init__.py", "")
    write(project, "proj/models/net.py", "import tensorflow as tf\nfrom ..util import helper\n\n"
                                         "@tf.function\ndef step(x):\n    return helper(x)\n")
    r = run("check", "proj/util/core.py")
    assert codes_at(r.out, "proj/util/core.py") == [(2, "TFL201")], r.out
    assert "called from `step` in `proj/models/net.py` (line 6), which runs under tf.function" in r.out


def test_chain_through_a_module_without_tensorflow(project: Path, run) -> None:
    write(project, "a.py", "import tensorflow as tf\nimport b\n\n@tf.function\ndef root(x):\n    return b.mid(x)\n")
    write(project, "b.py", "import c\n\ndef mid(x):\n    return c.leaf(x)\n")
    write(project, "c.py", "def leaf(x):\n    return x.numpy()\n")
    r = run("check", "c.py")
    assert codes_at(r.out, "c.py") == [(2, "TFL201")], r.out
    assert "called from `mid` in `b.py` (line 4), which is traced from `root` in `a.py`" in r.out


def test_src_layout_and_module_names(project: Path) -> None:
    write(project, "src/mypkg/__init__.py", "")
    write(project, "src/mypkg/sub/__init__.py", "")
    f = write(project, "src/mypkg/sub/mod.py", "")
    s = write(project, "scripts/train.py", "")
    idx = P.ProjectIndex(str(project))
    assert idx.module_of(str(f)).name == "mypkg.sub.mod"
    assert idx.module_of(str(s)).name == "train"
    assert P.find_root(str(f)) == str(project)
    assert P.resolve_relative("a.b.c", False, 2, "d") == "a.d"
    assert P.resolve_relative("a.b", True, 1, None) == "a.b"
    assert P.resolve_relative("a", False, 3, "x") is None


def test_summary_roots_in_every_spelling() -> None:
    src = '''import tensorflow as tf
from tensorflow import keras
import tensorflow.compat.v2 as tf2

@tf2.function
def a(x): return x

def b(x): return x
b_fn = tf.function(b)

class M(keras.Model):
    def train_step(self, data): return data
    def test_step(self, data): return data
    def other(self): pass

def c(x): return x
ds = tf.data.Dataset.range(3).map(c)

def d(x): return x
'''
    s = P.summarize(src, "m")
    assert s is not None
    roots = {n: f.root for n, f in s.functions.items() if f.root}
    assert set(roots) == {"a", "b", "c"}
    assert "Dataset.map" in roots["c"]
    # the Keras steps: the index decides, as their model class may be in another module
    idx = P.ProjectIndex("/nowhere")
    mf = P.ModuleFile("m", "/nowhere/m.py", False, "/nowhere")
    idx._summaries[mf.path] = s
    got = dict(idx._roots(mf, s))
    assert set(got) == {"a", "b", "c", "M.train_step", "M.test_step"}
    assert "Keras" in got["M.train_step"]


def test_summary_call_arguments() -> None:
    src = '''import lib
step = 0
for epoch in range(100):
    lib.f(epoch, 0.5, "a", x=epoch * 2, y=-1, z=True)
    lib.g(step)
    step += 1
for i in range(3):
    lib.f(i)
'''
    calls = {(c.callee, c.line): c for c in P.summarize(src, "m").calls}
    f = calls[("lib.f", 4)]
    assert f.in_loop and f.caller is None
    assert [(a.key, a.kind) for a in f.args] == [("#0", "varying"), ("#1", "literal"), ("#2", "literal"),
                                                 ("x", "varying"), ("y", "literal"), ("z", "flag")]
    assert f.args[5].text == "True"
    assert calls[("lib.g", 5)].args[0].kind == "varying"
    assert calls[("lib.f", 8)].args[0].kind == "other"  # three iterations: on purpose


def test_summary_constants_and_calls_in_traced_lambdas() -> None:
    src = """import tensorflow as tf
import lib
SIZE = (64, 64)
def make(ds, k):
    zoom_range = (0.9, 1.1)
    scale = 2.0
    scale = 3.0
    ds = tf.data.Dataset.from_tensor_slices([1.0])
    ds = ds.map(lambda x: tf.cond(x > 0, lambda: lib.zoom(x, zoom_range, SIZE), lambda: x))
    lib.zoom(k, scale, [1, 2])
    return ds.map(lambda zoom_range: lib.zoom(zoom_range, zoom_range, k))
"""
    calls = sorted((c for c in P.summarize(src, "m").calls if c.callee == "lib.zoom"), key=lambda c: c.line)
    assert [c.in_traced_lambda for c in calls] == [True, False, True]
    assert [(a.kind, a.text) for a in calls[0].args[1:]] == [("constant", "(0.9, 1.1)"), ("constant", "(64, 64)")]
    # bound twice, a parameter, a list display, a lambda's own parameter
    assert [a.kind for a in calls[1].args] == ["other", "other", "constant"]
    assert [a.kind for a in calls[2].args] == ["other", "other", "other"]


def test_a_parameter_every_traced_lambda_fills_with_a_constant_is_no_tensor(project: Path, run) -> None:
    write(project, "aug.py", """import tensorflow as tf

def zoom(x, zoom_range):
    lo, hi = zoom_range
    print("zoom between", lo, hi)
    return x * tf.random.uniform([], lo, hi)
""")
    write(project, "gen.py", """import tensorflow as tf
from aug import zoom

def make(files):
    zoom_range = (0.9, 1.1)
    ds = tf.data.Dataset.from_tensor_slices(files)
    return ds.map(lambda x: tf.cond(x > 0, lambda: zoom(x, zoom_range), lambda: x))
""")
    r = run("check", ".")
    assert codes_at(r.out, "aug.py") == [], r.out
    write(project, "gen.py", """import tensorflow as tf
from aug import zoom

def make(files):
    ds = tf.data.Dataset.from_tensor_slices(files)
    return ds.map(lambda x: tf.cond(x > 0, lambda: zoom(x, tf.constant([0.9, 1.1])), lambda: x))
""")
    r = run("check", ".")
    assert codes_at(r.out, "aug.py") == [(5, "TFL101")], r.out


DEAD_BIAS = """import keras
import tensorflow as tf

@keras.saving.register_keras_serializable(package="m")
class Bias(tf.keras.layers.Layer):
    def call(self, x):
        if len(tf.shape(x)) != 4:
            raise ValueError("rank")
        return x
"""


@pytest.mark.parametrize("train, flagged", [
    ("", False),                                              # nothing running imports the chain
    ("from model.dead.decoder import Decoder\n", True),       # loaded: the registered class may be made
    ("from model.dead.decoder import Decoder\nd = Decoder()\n", True),
])
def test_a_layer_used_only_by_a_chain_of_dead_definitions_is_never_made(project: Path, run, train, flagged) -> None:
    write(project, "model/__init__.py", "")
    write(project, "model/dead/__init__.py", "")
    write(project, "model/dead/bias.py", DEAD_BIAS)
    write(project, "model/dead/mha.py", """import keras
from model.dead.bias import Bias

@keras.saving.register_keras_serializable(package="m")
class MHA(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.b = Bias()

    def call(self, x):
        return self.b(x)
""")
    write(project, "model/dead/decoder.py", """import keras
from model.dead.mha import MHA

class Decoder(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.mha = MHA()

    def build(self, input_shape):
        self.mha.build(input_shape)

    def call(self, x):
        return self.mha(x)
""")
    write(project, "train.py", "import keras\n" + train + """model = keras.Sequential([keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit([[1.0]], [[1.0]])
""")
    r = run("check", ".")
    assert (codes_at(r.out, "model/dead/bias.py") == [(7, "TFL601")]) is flagged, r.out


@pytest.mark.parametrize("name, framework, flagged", [
    ("test_activations.py", "import unittest\n", False),
    ("test_activations.py", "", True),                 # a script named test_*, no test
    ("check_activations.py", "import unittest\n", True),
])
def test_tfl401_literals_of_a_test_module_are_checks_not_retraces(project: Path, run, name, framework,
                                                                   flagged) -> None:
    """A test calls a tf.function once per fixed value to check each (set 81)."""
    write(project, "activations.py", "import tensorflow as tf\n\n\n@tf.function\ndef hs(x):\n"
                                     "    return tf.nn.relu6(6.0 * x) / 6.0\n")
    write(project, name, framework + "from activations import hs\n\n\ndef run():\n"
                         "    return [float(hs(0.0)), float(hs(0.5)), float(hs(1.0))]\n")
    assert ((5, "TFL401") in codes_at(run("check", ".").out, "activations.py")) is flagged


_CALLBACK = """import random
import keras


class PathCallback(keras.callbacks.Callback):
    def on_train_batch_begin(self, batch, logs=None):
        self.model.perform_gp = batch % 2 == 0
"""

_GAN = """import keras
import tensorflow as tf


class {name}(keras.Model):
    def __init__(self):
        super().__init__()
        self.perform_gp = False
        self.dense = keras.layers.Dense(1)

    def train_step(self, data):
        y = self.dense(data)
        if self.perform_gp:
            y = y * 2.0
        return {{"y": tf.reduce_mean(y)}}
"""


def test_tfl109_an_attribute_a_callback_sets_while_fit_runs(project: Path, run) -> None:
    """The traced step keeps the value of the first trace (set 81's StyleGAN switches)."""
    write(project, "utils.py", _CALLBACK)
    write(project, "stylegan.py", _GAN.format(name="StyleGAN"))
    write(project, "gan.py", _GAN.format(name="GAN"))      # fitted without the callback
    write(project, "example.py", "import tensorflow as tf\nfrom utils import PathCallback\n"
                                 "from stylegan import StyleGAN\nfrom gan import GAN\n\n"
                                 "m = StyleGAN()\nm.compile(optimizer='adam')\n"
                                 "m.fit(tf.zeros([8, 1]), callbacks=[PathCallback()])\n"
                                 "g = GAN()\ng.compile(optimizer='adam')\ng.fit(tf.zeros([8, 1]))\n")
    out = run("check", ".").out
    assert codes_at(out, "stylegan.py") == [(13, "TFL109")], out
    assert "the callback `PathCallback.on_train_batch_begin` sets it on the model (`utils.py` (line 7))" in out, out
    assert codes_at(out, "gan.py") == [], out


@pytest.mark.parametrize("eager, flagged", [("True", False), ("False", True)])
def test_run_eagerly_given_through_a_compile_override(project: Path, run, eager, flagged) -> None:
    """``super().compile(**kwargs)`` in an override hands on the caller's ``run_eagerly``:
    it is no compile of its own (set 88)."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/model.py", """import tensorflow as tf


class Detector(tf.keras.Model):
    def compile(self, **kwargs):
        super(Detector, self).compile(**kwargs)

    def train_step(self, data):
        x, labels = data
        labels = tf.cast(labels, tf.int32)
        labels = [tf.one_hot(l, 3) for l in labels]
        return {"n": tf.reduce_sum(labels[0])}
""")
    write(project, "pkg/main.py", "import tensorflow as tf\nfrom pkg.model import Detector\n\nm = Detector()\n"
                                  f"m.compile(optimizer='adam', run_eagerly={eager})\nm.fit(tf.zeros([4, 2]))\n")
    assert ((11, "TFL203") in codes_at(run("check", ".").out, "pkg/model.py")) is flagged


@pytest.mark.parametrize("other, flagged", [
    ("import numpy as np\nfrom GAE.autoencoder import GAE\n\n\ndef score(lib, genes):\n"
     "    return lib.evaluate(genes)\n", False),             # a library's evaluate, no Keras here
    ("import tensorflow as tf\nfrom GAE.autoencoder import GAE\n\n\ndef score(model, ds):\n"
     "    return model.evaluate(ds)\n", True),
])
def test_steps_called_directly_from_a_script_in_a_folder_above(project: Path, run, other, flagged) -> None:
    """``from GAE.autoencoder import GAE`` in framspy/GAE/training.py resolves through the
    folder above it; the script calls ``test_step`` itself (set 92)."""
    write(project, "framspy/GAE/autoencoder.py", """import tensorflow as tf
from tensorflow import keras


class GAE(keras.Model):
    def test_step(self, data):
        x, y = data
        print("ORG:", x[0])
        return tf.reduce_mean(x - y)
""")
    write(project, "framspy/GAE/training.py", """import tensorflow as tf
from GAE.autoencoder import GAE

ae = GAE()
ae.compile(optimizer="adam")
for i in range(3):
    ae.test_step([tf.ones([2, 3]), tf.zeros([2, 3])])
""")
    write(project, "framspy/GAE/dataset.py", other)
    assert ((8, "TFL101") in codes_at(run("check", ".").out, "framspy/GAE/autoencoder.py")) is flagged


@pytest.mark.parametrize("own_fit, flagged", [(True, False), (False, True)])
def test_steps_of_a_class_with_its_own_fit_are_no_roots_for_other_modules(project: Path, run, own_fit,
                                                                           flagged) -> None:
    """The class overrides ``fit`` and calls ``test_step`` itself, eagerly: a helper of
    another module that the step calls is not traced (tfwcn's facenet, after set 92's change
    to import resolution)."""
    write(project, "lfw.py", "import numpy as np\n\n\ndef evaluate(emb):\n    return np.subtract(emb, 1.0)\n")
    fit = ("    def fit(self, data, epochs=1):\n        for _ in range(epochs):\n"
           "            self.test_step(data)\n\n") if own_fit else ""
    write(project, "model.py", "import tensorflow as tf\nimport lfw\n\n\nclass Net(tf.keras.Model):\n" + fit +
          "    def test_step(self, data):\n        return lfw.evaluate(self(data))\n")
    assert ((5, "TFL104") in codes_at(run("check", ".").out, "lfw.py")) is flagged


def test_cache_hit_skips_the_engine_and_a_change_elsewhere_misses(pkg: Path, run, monkeypatch) -> None:
    import tflint.engine

    first = run("check", "pkg/ops.py")
    cache = pkg / ".tflint_cache"
    assert (cache / ".gitignore").read_text().strip().endswith("*")
    calls = []
    real = tflint.engine.lint_source
    monkeypatch.setattr(tflint.engine, "lint_source", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    second = run("check", "pkg/ops.py")
    assert second.out == first.out and calls == []  # every finding from the cache
    # another module changes: the findings of ops.py may change, so they are recomputed
    (pkg / "pkg/trainer.py").write_text(TRAINER.replace("y = ops.helper(data)", "y = data"))
    third = run("check", "pkg/ops.py")
    assert calls and "TFL201" not in third.out and "TFL401" in third.out


def test_corrupt_cache_is_rebuilt_silently(pkg: Path, run) -> None:
    first = run("check", "pkg/ops.py")
    damaged = 0
    for d, _, names in os.walk(pkg / ".tflint_cache"):
        for n in names:
            if n.endswith(".json"):
                Path(d, n).write_bytes(b"\x00{not json")
                damaged += 1
    assert damaged >= 3  # file scans, summaries, findings
    again = run("check", "pkg/ops.py")
    assert again.rc == first.rc and again.out == first.out and again.err == first.err
    # and it was written again, whole
    files_json = next((pkg / ".tflint_cache").glob("files-*.json"))
    assert json.loads(files_json.read_text())


def test_summary_of_wrong_shape_is_ignored(pkg: Path, run) -> None:
    first = run("check", "pkg/ops.py")
    for p in (pkg / ".tflint_cache").rglob("summaries-*/*/*.json"):
        p.write_text(json.dumps({"imports": [1, 2]}))
    for p in (pkg / ".tflint_cache").rglob("results-*/*/*.json"):
        p.unlink()
    assert run("check", "pkg/ops.py").out == first.out


def test_unwritable_cache_dir_is_skipped(pkg: Path, run) -> None:
    blocker = write(pkg, "not-a-folder", "x")
    r = run("check", "--cache-dir", str(blocker / "sub"), "pkg/ops.py")
    assert r.rc == 1 and "TFL201" in r.out and "error" not in r.err
    assert not (pkg / ".tflint_cache").exists()


def test_cache_dir_config_key(pkg: Path, run) -> None:
    (pkg / "pyproject.toml").write_text('[tool.tflint]\ncache-dir = "build/tfcache"\n')
    r = run("check", "pkg/ops.py")
    assert "TFL201" in r.out
    assert (pkg / "build/tfcache/.gitignore").is_file() and not (pkg / ".tflint_cache").exists()


def test_no_cache_writes_nothing_and_finds_the_same(pkg: Path, run) -> None:
    r = run("check", "--no-cache", "pkg/ops.py")
    assert "TFL201" in r.out and "TFL402" in r.out
    assert not (pkg / ".tflint_cache").exists()


def test_parallel_workers_share_the_cache(pkg: Path, run) -> None:
    for i in range(10):
        write(pkg, f"pkg/extra{i}.py", f"import tensorflow as tf\nfrom .ops import helper\n\n"
                                       f"@tf.function\ndef f{i}(x):\n    return helper(x)\n")
    first = run("check", "-j2", "pkg")
    assert first.rc == 1 and "TFL201" in first.out
    assert list((pkg / ".tflint_cache").rglob("results-*/*/*.json"))
    files_json = next((pkg / ".tflint_cache").glob("files-*.json"))
    assert len(json.loads(files_json.read_text())) == 13  # every module scanned, by one worker or the other
    assert run("check", "-j2", "pkg").out == first.out


def test_flake8_plugin_sees_the_project(pkg: Path) -> None:
    from tflint.flake8_plugin import Plugin

    path = pkg / "pkg/ops.py"
    lines = path.read_text().splitlines(keepends=True)
    found = [(row, msg.split()[0]) for row, _, msg, _ in
             Plugin(ast.parse("".join(lines)), lines, str(path)).run()]
    assert (5, "TFL201") in found and (10, "TFL402") in found and (17, "TFL401") in found


def test_a_file_outside_any_project_is_linted_alone(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(P, "find_root", lambda path: None)
    assert P.view_for(str(tmp_path / "x.py")) is None
    assert P.view_for("<stdin>") is None


NETS = '''import tensorflow as tf


class Backbone(tf.keras.Model):
    def call(self, x):
        return x


class Head(Backbone):
    pass
'''

TRAIN = '''import tensorflow as tf
from pkg import nets
from pkg.nets import Head


class Trainer(nets.Backbone):
    def train_step(self, data):
        v = tf.Variable(1.0)
        return {"v": v}


class Trainer2(Head):
    def train_step(self, data):
        w = tf.Variable(1.0)
        return {"w": w}


class NotAModel(nets.Helper):
    def train_step(self, data):
        u = tf.Variable(1.0)
        return {"u": u}
'''


def test_keras_base_class_in_another_module(project: Path, run) -> None:
    """P16 with the model's base class in another module (google/automl's
    EfficientDetNetTrain(efficientdet_keras.EfficientDetNet)): its train_step is traced."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/nets.py", NETS + "\n\nclass Helper:\n    pass\n")
    write(project, "pkg/train.py", TRAIN)
    r = run("check", "pkg/train.py")
    found = codes_at(r.out, "pkg/train.py")
    assert (8, "TFL301") in found and (14, "TFL301") in found, r.out
    assert 20 not in [row for row, _ in found], r.out  # a plain class: not a Keras model


def test_a_step_of_a_model_from_another_module_traces_helpers_elsewhere(project: Path, run) -> None:
    """The cross-module closure treats a train_step as a root when its class derives from
    a Keras model defined in a third module (the step's own module need not mention
    TensorFlow): the helper it calls in another module is traced."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/nets.py", NETS)
    write(project, "pkg/util.py", "def to_numpy(x):\n    return x.numpy()\n\n\ndef unused(x):\n    return x.numpy()\n")
    write(project, "pkg/train.py", "from pkg.nets import Head\nfrom pkg import util\n\n\n"
                                   "class Trainer(Head):\n    def train_step(self, data):\n"
                                   "        return {'x': util.to_numpy(data)}\n\n\n"
                                   "class Plain:\n    def train_step(self, data):\n"
                                   "        return util.unused(data)\n")
    r = run("check", "pkg/util.py")
    found = codes_at(r.out, "pkg/util.py")
    assert (2, "TFL201") in found, r.out
    assert "called from `train_step` in `pkg/train.py` (line 7), which Keras runs under tf.function" in r.out
    assert 6 not in [row for row, _ in found], r.out  # Plain is no Keras model


def test_an_imported_function_handed_to_map_or_tf_function_is_traced(project: Path, run) -> None:
    """``ds.map(helpers.parse)`` and ``tf.function(augment)`` with the function imported
    from another module: it is traced, and so is what it calls; a function handed over
    nowhere is not."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/helpers.py", "import random\n\n\ndef augment(x):\n    return x * random.random()\n\n\n"
                                     "def parse(x):\n    return x.numpy()\n\n\ndef unused(x):\n    return x.numpy()\n")
    write(project, "pkg/train.py", "import tensorflow as tf\n\nfrom pkg import helpers\nfrom pkg.helpers import augment\n\n"
                                   "ds = tf.data.Dataset.range(10).map(helpers.parse)\nstep = tf.function(augment)\n")
    r = run("check", "pkg/helpers.py")
    found = codes_at(r.out, "pkg/helpers.py")
    assert (5, "TFL103") in found and (9, "TFL201") in found, r.out
    assert 13 not in [row for row, _ in found], r.out
    assert "`parse` passed to `Dataset.map` in `pkg/train.py` (line 6), which always traces it as a graph" in r.out
    assert "`augment` passed to `tf.function` in `pkg/train.py` (line 7), which runs it as a graph" in r.out


def test_root_holders_reaching_follows_import_cycles_and_chains(project: Path) -> None:
    # d -> a -> b <-> c (a cycle), e alone; roots may live in a, c and e
    root = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x\n"
    write(project, "a.py", "import b\n" + root)
    write(project, "b.py", "import c\n")
    write(project, "c.py", "import b\n" + root)
    write(project, "d.py", "import a\n")
    write(project, "e.py", root)
    idx = P.ProjectIndex(str(project))
    files = idx.files()

    def reaching(name: str) -> set[str]:
        mf = next(m for m in files.values() if m.name == name)
        return {Path(p).stem for p in idx.root_holders_reaching(mf)}

    assert reaching("b") == {"a", "c"}   # c imports b, a imports b
    assert reaching("c") == {"a", "c"}   # through the cycle: b imports c, a imports b
    assert reaching("a") == {"a"}        # d imports a but holds no roots
    assert reaching("d") == set()
    assert reaching("e") == {"e"}


def _notebook(*cells: str) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None,
                                  "outputs": [], "source": c} for c in cells]})


def test_a_notebook_hands_a_project_helper_to_dataset_map(project: Path, run) -> None:
    # the notebook imports the helper from the folder beside it and maps it: the helper
    # is traced, although no .py module of the project traces it
    write(project, "utils/crops.py", "import random\n\n\ndef shuffle_crops(*crops):\n"
                                     "    crops = list(crops)\n    random.shuffle(crops)\n    return tuple(crops)\n")
    write(project, "notebooks/train.ipynb", _notebook(
        "import sys\nsys.path.append('../utils')\n%matplotlib inline",
        "import tensorflow as tf\nimport crops\n",
        "ds = tf.data.Dataset.range(4).map(lambda i: (i, i))\nds = ds.map(crops.shuffle_crops)\n"))
    r = run("check", "utils/crops.py")
    assert codes_at(r.out, "utils/crops.py") == [(6, "TFL103")], r.out
    assert "passed to `Dataset.map` in `notebooks/train.ipynb` (cell 3, line 2)" in r.out
    # and the notebook itself is linted as before, with the project in view
    r = run("check", "notebooks/train.ipynb")
    assert r.rc == 0, r.out


def test_an_unreadable_notebook_does_not_stop_the_index(project: Path, run) -> None:
    write(project, "utils/crops.py", "import random\n\n\ndef pick(x):\n    return random.random() * x\n")
    write(project, "broken.ipynb", "{not json")
    write(project, "train.py", "import tensorflow as tf\nfrom utils.crops import pick\n\n"
                               "ds = tf.data.Dataset.range(4).map(pick)\n")
    r = run("check", "utils/crops.py")
    assert codes_at(r.out, "utils/crops.py") == [(5, "TFL103")], r.out


HEAD = '''import tensorflow as tf


class Head(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(2)

    @tf.function
    def call(self, x):
        self.cls_scores = self.dense(x)
        self.cls_prob = tf.nn.softmax(self.cls_scores)
        return self.cls_prob
'''


@pytest.mark.parametrize("user, expected", [
    # the other module only calls the layer: the tensors kept on it live for one trace
    ("from heads import Head\n\nhead = Head()\nprint(head(1.0))\n", []),
    # the other module reads one of them after the call: that one is stale there
    ("from heads import Head\n\nhead = Head()\nhead(1.0)\nprint(head.cls_prob)\n", [(12, "TFL107")]),
])
def test_tfl107_asks_whether_another_module_names_the_attribute(project: Path, run, user, expected) -> None:
    write(project, "heads.py", HEAD)
    write(project, "train.py", user)
    r = run("check", "--no-cache", "heads.py")
    assert codes_at(r.out, "heads.py") == expected, r.out


MAIN_REDEFINED = '''import numpy as np
import tensorflow as tf


def decode(feats, n):
    return tf.reshape(feats, [-1, {shape}(feats)[1], n])


if __name__ == "__main__":
    def decode(feats, n):
        return np.reshape(feats, [-1, np.shape(feats)[1], n])

    print(decode(np.zeros([2, 3, 3]), 3))
'''


@pytest.mark.parametrize("shape, expected", [
    ("tf.shape", []),                 # the NumPy version runs only as a script
    ("np.asarray", [(6, "TFL104")]),  # the imported definition is the one traced
])
def test_a_definition_under_the_main_guard_is_not_what_importers_call(project: Path, run, shape, expected) -> None:
    """bubbliiiing/yolov7-tf2 (held-out set 5): ``utils_bbox.py`` redefines ``decode`` with
    NumPy under ``if __name__ == "__main__":``; the loss that imports it traces the
    TensorFlow definition above."""
    write(project, "utils/__init__.py", "")
    write(project, "utils/bbox.py", MAIN_REDEFINED.format(shape=shape))
    write(project, "train.py", "import tensorflow as tf\nfrom utils.bbox import decode\n\n\n"
                               "@tf.function\ndef loss(x):\n    return tf.reduce_sum(decode(x, 3))\n")
    r = run("check", "--no-cache", ".")
    assert codes_at(r.out, "utils/bbox.py") == expected, r.out


def test_a_named_folder_without_a_marker_is_one_project(tmp_path: Path, monkeypatch, run) -> None:
    """Held-out sets 5 and 7: `tflint check .` in an unpacked repository (no .git, no
    setup.cfg) lost every cross-module finding. The folder the user names is the project."""
    folder = tmp_path / "unpacked"
    if any((d / m).exists() for d in [folder, *folder.parents] for m in ("pyproject.toml", "setup.cfg", "setup.py", ".git")):
        pytest.skip("a project marker above the temporary folder")
    write(folder, "utils/__init__.py", "")
    write(folder, "utils/bbox.py", MAIN_REDEFINED.format(shape="np.asarray"))
    write(folder, "train.py", "import tensorflow as tf\nfrom utils.bbox import decode\n\n\n"
                              "@tf.function\ndef loss(x):\n    return tf.reduce_sum(decode(x, 3))\n")
    monkeypatch.chdir(folder)
    r = run("check", "--no-cache", ".")
    assert codes_at(r.out, "utils/bbox.py") == [(6, "TFL104")], r.out
    # a file named on its own, with no marker above it: that file's folder is the project
    monkeypatch.chdir(folder / "utils")
    r = run("check", "--no-cache", "bbox.py")
    assert codes_at(r.out, "bbox.py") == [], r.out  # train.py is outside what was named


def test_a_file_named_on_its_own_takes_its_folder_and_packages_not_every_folder_below(
        tmp_path: Path, monkeypatch, run) -> None:
    """``tflint check ~/Downloads/train.py`` with no project marker above it: the project
    is the file's folder and the packages below it (they are what the script imports),
    not every folder below (46 s on a /tmp full of unrelated files, 2 s now)."""
    folder = tmp_path / "loose"
    if any((d / m).exists() for d in [folder, *folder.parents] for m in ("pyproject.toml", "setup.cfg", "setup.py", ".git")):
        pytest.skip("a project marker above the temporary folder")
    write(folder, "bbox.py", MAIN_REDEFINED.format(shape="np.asarray"))
    caller = ("import tensorflow as tf\nfrom bbox import decode\n\n\n"
              "@tf.function\ndef loss(x):\n    return tf.reduce_sum(decode(x, 3))\n")
    write(folder, "unrelated/old_train.py", caller)  # no __init__.py: not walked
    monkeypatch.chdir(folder)
    r = run("check", "--no-cache", "bbox.py")
    assert codes_at(r.out, "bbox.py") == [], r.out
    with P.one_run(["bbox.py"]):
        idx = P.index_for(str(folder / "bbox.py"), cache=False)
        assert idx is not None and idx.shallow and sorted(idx.files()) == [str(folder / "bbox.py")]
    write(folder, "pkg/__init__.py", "")
    write(folder, "pkg/train.py", caller)  # a package beside the script: walked
    r = run("check", "--no-cache", "bbox.py")
    assert codes_at(r.out, "bbox.py") == [(6, "TFL104")], r.out
    # files named together (a pre-commit file list) are one project, down to each of them
    r = run("check", "--no-cache", "bbox.py", "unrelated/old_train.py")
    assert codes_at(r.out, "bbox.py") == [(6, "TFL104")], r.out
    with P.one_run(["bbox.py", "unrelated/old_train.py"]):
        idx = P.index_for(str(folder / "unrelated" / "old_train.py"), cache=False)
        assert idx is not None and idx.root == str(folder) and idx.shallow
        assert str(folder / "unrelated" / "old_train.py") in idx.files()
    # the same folder named itself is walked whole
    r = run("check", "--no-cache", ".")
    assert codes_at(r.out, "bbox.py") == [(6, "TFL104")], r.out
    with P.one_run(["."]):
        idx = P.index_for(str(folder / "bbox.py"), cache=False)
        assert idx is not None and not idx.shallow and str(folder / "unrelated" / "old_train.py") in idx.files()


@pytest.mark.parametrize("title, expected", [
    ("'Generator variables:'", []),               # every caller passes a string literal
    ("tf.constant('G')", [(5, "TFL101")]),        # another module passes a tensor
])
def test_a_helper_traced_from_another_module_is_judged_by_that_modules_arguments(
        project: Path, run, title, expected) -> None:
    """``trace_vars(vs, 'Generator variables:')`` in a tf.function of another module: the
    helper's ``title`` is the string those calls pass, so printing it is no tensor print
    (stylegan-tf2, held-out set 11)."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/tf_utils.py", "import logging\n\n\ndef trace_vars(vars, title):\n"
                                     "    print('\\n' + title)\n    logging.info(title)\n")
    write(project, "pkg/model.py", "import tensorflow as tf\nfrom .tf_utils import trace_vars\n\n\n"
                                   "@tf.function\ndef step(model, x):\n"
                                   f"    trace_vars(model.trainable_variables, {title})\n    return model(x)\n")
    r = run("check", "--select", "TFL101", "pkg/tf_utils.py")
    assert [f for f in codes_at(r.out, "pkg/tf_utils.py") if f[0] == 5] == expected, r.out


@pytest.mark.parametrize("bind, expected", [
    ("max_scale = config.augmentation_ops.max_scaling", []),      # a settings entry: Python
    ("max_scale = args.max_scaling", []),
    ("max_scale = tf.constant(0.3)", [(6, "TFL104")]),           # a tensor after all
])
def test_a_settings_entry_that_another_modules_map_lambda_passes_is_a_python_value(
        project: Path, run, bind, expected) -> None:
    """``ds.map(lambda x: aug.scale(x, max_scale))`` with ``max_scale =
    config.augmentation_ops.max_scaling`` in each branch: ``scale``'s ``max_scaling`` is a
    Python float read from the configuration, so NumPy on it builds the crop list at trace
    time, as meant (input_pipe_building_augmentation, held-out set 100)."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/aug.py", "import numpy as np\nimport tensorflow as tf\n\n\ndef scale(img, max_scaling):\n"
                                 "    scales = list(np.arange(1.0 - max_scaling, 1.0, 0.05))\n"
                                 "    return tf.image.resize(img, [int(64 * scales[0])] * 2)\n")
    write(project, "pkg/loader.py", "import tensorflow as tf\nfrom . import aug\n\n\n"
                                    "def prepare(images, config, args, training):\n"
                                    "    ds = tf.data.Dataset.from_tensor_slices(images)\n"
                                    "    if training:\n"
                                    f"        {bind}\n"
                                    "        ds = ds.map(lambda x: aug.scale(x, max_scale))\n"
                                    "    else:\n"
                                    f"        {bind}\n"
                                    "        ds = ds.map(lambda x: aug.scale(x, max_scale))\n"
                                    "    return ds\n")
    r = run("check", "--select", "TFL104", "pkg/aug.py")
    assert codes_at(r.out, "pkg/aug.py") == expected, r.out


@pytest.mark.parametrize("passed, test, flagged", [
    ("f0=False", "f0", False),                # the branch never runs while tracing
    ("f0=None", "f0", False),
    ("f0=True", "f0", True),                  # it does: NumPy on the audio tensor
    ("", "f0", True),                         # the default, True
    ("f0=flag", "f0", True),                  # unknown: judged as before
    ("f0=None", "f0 is not None", False),
    ("f0=False", "f0 is not None", True),     # False is not None: the branch runs
])
def test_a_branch_that_another_modules_traced_calls_switch_off_is_not_traced(
        project: Path, run, passed, test, flagged) -> None:
    """``feature_extractor(ex['audio'], f0=False, mfcc=True)`` in another module's
    ``Dataset.map`` callable: ``if f0:`` never runs while tracing, so neither the NumPy
    line in it nor the pitch tracker of a third module it calls is traced; those get the
    eager callers' arrays only (ddsp_simplified, held-out set 101)."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/pitch.py", "import numpy as np\n\n\ndef track(audio):\n    return np.asarray(audio).mean()\n")
    write(project, "pkg/features.py", "import numpy as np\nimport tensorflow as tf\nfrom .pitch import track\n\n\n"
                                      "def extract(audio, f0=True, mfcc=False):\n    out = {'audio': audio}\n"
                                      f"    if {test}:\n        out['f0'] = np.asarray(audio).mean() + track(audio)\n"
                                      "    if mfcc:\n        out['mfcc'] = tf.signal.stft(audio, 64, 16)\n    return out\n")
    write(project, "pkg/data.py", "import tensorflow as tf\nfrom .features import extract\n\n\n"
                                  "def preprocess(ex, flag=True):\n"
                                  f"    return extract(ex['audio'], {passed}{', ' if passed else ''}mfcc=True)\n\n\n"
                                  "def make(clips):\n    return tf.data.Dataset.from_tensor_slices(clips).map(preprocess)\n")
    r = run("check", "--select", "TFL104", "pkg/")
    assert codes_at(r.out, "pkg/features.py") == ([(9, "TFL104")] if flagged else []), r.out
    assert codes_at(r.out, "pkg/pitch.py") == ([(5, "TFL104")] if flagged else []), r.out


@pytest.mark.parametrize("build, flagged", [
    ("self._stft = tf.keras.layers.Lambda(lambda t: tf.signal.stft(t, 64, 16))", False),
    ("self.scale = self.add_weight(shape=(), initializer='ones')", True),     # owns a weight
    ("self._proj = tf.keras.layers.Dense(8)", True),                          # a layer with weights
    ("self._cfg = Settings()", False),                                         # a plain settings object
    ("self._cfg = Config(64)", False),                                         # a namedtuple
    ("self._cfg = Other()", True),                                             # a class of another module
    ("self._gen = tf.random.Generator.from_seed(1)", True),                    # random state
])
def test_tfl302_a_sequential_of_another_modules_weightless_layer(project: Path, run, build, flagged) -> None:
    """``tf.keras.Sequential([Input, Lambda, front_end.MelSpectrogram()])`` built in a
    ``Dataset.map`` function: the custom layer's ``build`` makes only ``Lambda`` layers,
    so building the model once per trace makes no variable (acodet, held-out set 101)."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/other.py", "class Other:\n    pass\n")
    write(project, "pkg/front_end.py", "import collections\nimport tensorflow as tf\nfrom .other import Other\n\n"
                                       "Config = collections.namedtuple('Config', ['bins'])\n\n\n"
                                       "class Settings:\n    pass\n\n\n"
                                       "class MelSpectrogram(tf.keras.layers.Layer):\n"
                                       "    def __init__(self, name='mel'):\n        super().__init__(name=name)\n\n"
                                       f"    def build(self, input_shape):\n        {build}\n\n"
                                       "    def call(self, inputs):\n        return tf.abs(inputs)\n")
    write(project, "pkg/tfrec.py", "import tensorflow as tf\nfrom . import front_end\n\n\n"
                                   "def spec():\n    return tf.keras.Sequential([\n        tf.keras.layers.Input([64]),\n"
                                   "        tf.keras.layers.Lambda(lambda t: tf.expand_dims(t, -1)),\n"
                                   "        front_end.MelSpectrogram(),\n    ])\n\n\n"
                                   "def make(clips):\n    ds = tf.data.Dataset.from_tensor_slices(clips)\n"
                                   "    return ds.map(lambda x: spec()(x))\n")
    r = run("check", "--select", "TFL302", "pkg/")
    assert codes_at(r.out, "pkg/tfrec.py") == ([(6, "TFL302")] if flagged else []), r.out


@pytest.mark.parametrize("build, flagged", [
    ("self._stft = keras.layers.Lambda(lambda t: t * 2.0)", False),
    ("self._proj = keras.layers.Dense(8)", True),
])
def test_tfl302_a_sequential_of_a_weightless_layer_of_the_same_module(project: Path, run, build, flagged) -> None:
    write(project, "aug.py", "import keras\nimport tensorflow as tf\n\n\nclass Spec(keras.layers.Layer):\n"
                             f"    def build(self, input_shape):\n        {build}\n\n"
                             "    def call(self, x):\n        return x\n\n\n"
                             "@tf.function\ndef front(x):\n    return keras.Sequential([Spec()])(x)\n")
    r = run("check", "--select", "TFL302", "aug.py")
    assert codes_at(r.out, "aug.py") == ([(15, "TFL302")] if flagged else []), r.out


@pytest.mark.parametrize("guard, flagged", [
    ("if self.debug and self.run_eagerly:", False),     # only in eager runs
    ("if tf.executing_eagerly():", False),
    ("if not tf.executing_eagerly():\n            pass\n        else:", False),
    ("if self.debug:", True),                           # traced under fit
])
def test_a_helper_another_module_calls_only_in_eager_runs_is_not_traced(project: Path, run, guard, flagged) -> None:
    """``if self.p.debug and self.run_eagerly: improc.plot_batch_sample(p, x.numpy(), ...)``
    in a model's loss: the NumPy helper of another module runs only when Keras runs the
    step eagerly (pyoneer, held-out set 107)."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/improc.py", "import numpy as np\n\n\ndef plot(batch):\n"
                                    "    return np.tile(np.argmax(batch, axis=1), (1, 2))\n")
    write(project, "pkg/models.py", "import keras\nimport tensorflow as tf\nfrom . import improc\n\n\n"
                                    "class Net(keras.Model):\n    debug = True\n\n"
                                    "    def loss_of(self, x):\n"
                                    f"        {guard}\n            improc.plot(x)\n"
                                    "        return tf.reduce_mean(x)\n\n"
                                    "    def train_step(self, data):\n        return {'loss': self.loss_of(data)}\n")
    write(project, "pkg/train.py", "from .models import Net\n\nNet().fit([1.0, 2.0])\n")
    r = run("check", "--select", "TFL104", "pkg/")
    assert codes_at(r.out, "pkg/improc.py") == ([(5, "TFL104")] if flagged else []), r.out


@pytest.mark.parametrize("use, flagged", [
    ("print(tf.autograph.to_code(fizzbuzz.python_function))", False),   # shown, never traced
    ("print(tf.autograph.to_code(fizzbuzz.python_function))\nfizzbuzz(tf.constant(5))", True),
    ("fizzbuzz(tf.constant(5))", True),
])
def test_a_tf_function_only_shown_as_code_is_not_traced(project: Path, run, use, flagged) -> None:
    """A course cell that prints AutoGraph's converted source of an ``@tf.function`` it
    never calls (held-out set 104): its ``print`` never runs while tracing."""
    write(project, "lab.py", "import tensorflow as tf\n\n\n@tf.function\ndef fizzbuzz(max_num):\n"
                             "    for num in range(max_num):\n        if num % 3 == 0:\n            print('Fizz')\n\n\n"
                             + use + "\n")
    r = run("check", "--select", "TFL101", "lab.py")
    assert codes_at(r.out, "lab.py") == ([(8, "TFL101")] if flagged else []), r.out


@pytest.mark.parametrize("driver, flagged", [
    ("def main():\n    finder = RateFinder()\n    print(finder.find(tf.constant([[1, 2]], tf.int64)))\n\n\nmain()\n",
     False),                                             # made and used only eagerly: written in place
    ("finder = RateFinder()\n\n\n@tf.function\ndef run(x):\n    return finder.find(x)\n", True),
    ("", True),                                          # nothing makes one: no knowing (GBNN, set 44)
])
def test_tfl110_a_method_of_a_class_used_only_eagerly(project: Path, run, driver, flagged) -> None:
    """tf-aoc (held-out set 104): a ``tf.Module`` whose ``@tf.function`` is commented out,
    made and called in ``main()``; eagerly ``ta.unstack(x)`` fills the array in place
    (checked on 2.21)."""
    write(project, "aoc.py", "import tensorflow as tf\n\n\nclass RateFinder(tf.Module):\n    def __init__(self):\n"
                             "        self._ta = tf.TensorArray(tf.int64, size=1, dynamic_size=True)\n\n"
                             "    # @tf.function\n    def find(self, x):\n        self._ta.unstack(x)\n"
                             "        return self._ta.stack()\n\n\n" + driver)
    r = run("check", "--select", "TFL110", "aoc.py")
    assert codes_at(r.out, "aoc.py") == ([(10, "TFL110")] if flagged else []), r.out


@pytest.mark.parametrize("compile_args, expected", [
    ('optimizer="adam", run_eagerly=True', []),      # fit runs train_step as Python
    ('optimizer="adam"', [(5, "TFL104")]),
])
def test_a_helper_of_a_step_that_every_compile_runs_eagerly_is_not_traced(
        project: Path, run, compile_args, expected) -> None:
    """``model.compile(..., run_eagerly=True)`` in the module that builds the model: the
    helper a ``train_step`` of a third module calls gets NumPy arrays (qanet, held-out set
    100)."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/helpers.py", "import numpy as np\n\n\ndef log_masks(mask):\n    return np.unique(mask)[1:]\n")
    write(project, "pkg/model.py", "import keras\nfrom .helpers import log_masks\n\n\nclass RibCage(keras.Model):\n"
                                   "    def train_step(self, data):\n        x, m = data\n        log_masks(m)\n"
                                   "        return {}\n")
    write(project, "pkg/train.py", "from .model import RibCage\n\n\ndef main():\n    model = RibCage()\n"
                                   f"    model.compile({compile_args})\n    model.fit([1, 2])\n")
    r = run("check", "--select", "TFL104", "pkg/helpers.py")
    assert codes_at(r.out, "pkg/helpers.py") == expected, r.out


@pytest.mark.parametrize("imports, expected", [
    ("from pkg.augment import *", [(6, "TFL103")]),
    ("from pkg.augment import *\nfrom pkg.other import *", []),   # the last star import's augment wins
])
def test_a_function_a_star_import_brings_and_dataset_map_takes_is_traced(
        project: Path, run, imports, expected) -> None:
    """``from helpers.augment import *`` then ``ds.map(augment)`` (road-segmentation,
    held-out set 100's miss)."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/augment.py", "import random\nimport tensorflow as tf\n\n\ndef augment(x):\n"
                                     "    order = random.randint(0, 3)\n    return x * order\n")
    write(project, "pkg/other.py", "def augment(x):\n    return x\n")
    write(project, "pkg/train.py", f"import tensorflow as tf\n{imports}\n\n"
                                   "ds = tf.data.Dataset.range(4).map(augment)\n")
    r = run("check", "--select", "TFL103", "pkg/augment.py")
    assert codes_at(r.out, "pkg/augment.py") == expected, r.out


def test_a_function_that_a_map_lambda_of_another_module_calls_is_traced(project: Path, run) -> None:
    """``ds.map(lambda p: pose_to_ray(p, n))`` with ``pose_to_ray`` imported: the lambda is
    traced, and so is what it calls (NeRF-TF2-Keras, held-out set 14)."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/ray.py", "import tensorflow as tf\n\n\ndef render(o, n):\n"
                                 "    shape = tf.Variable([0, 0, 0], trainable=False)\n"
                                 "    return tf.random.uniform(shape=shape) * o\n\n\n"
                                 "def pose_to_ray(pose, n):\n    return render(pose, n)\n")
    write(project, "loader.py", "import tensorflow as tf\nfrom pkg.ray import pose_to_ray\n\n\n"
                                "def get(poses, n):\n    return tf.data.Dataset.from_tensor_slices(poses).map(\n"
                                "        lambda p: pose_to_ray(p, tf.constant(n)))\n")
    r = run("check", "--select", "TFL301", "pkg/ray.py")
    assert codes_at(r.out, "pkg/ray.py") == [(5, "TFL301")], r.out
    assert "passed to `Dataset.map` in `loader.py` (line 6)" in r.out, r.out


@pytest.mark.parametrize("local_call, expected", [
    ("", []),                                        # only another module calls it
    ("\n\n@tf.function\ndef probe(x):\n    return pick(x, tf.shape(x)[0])\n", [(5, "TFL202")]),
    # passed on to a helper of the module: judged where it comes from
    ("\n\ndef check(k):\n    assert k == 2\n\n\ndef pick2(rois, n):\n    check(n)\n    return rois\n", []),
])
def test_a_parameter_only_other_modules_fill_is_no_tensor_for_the_strict_rules(
        project: Path, run, local_call, expected) -> None:
    """``assert n == 2`` in a helper that another module's traced code calls with
    ``yolo_cfg.cell_n``: the index knows only that the argument is no literal, which says
    nothing of a tensor (tensorflow-without-a-phd, held-out set 13). A call of the same
    module that passes a tensor still makes it one."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/box.py", "import tensorflow as tf\n\n\ndef pick(rois, n):\n"
                                 "    assert n == 2\n    return rois[:n]\n" + local_call)
    write(project, "pkg/datagen.py", "import tensorflow as tf\nfrom . import box\n\n\n"
                                     "def attribution(rois, cfg):\n    return box.pick(rois, cfg.cell_n) + box.pick2(rois, cfg.cell_n)\n\n\n"
                                     "def make(rois, cfg):\n    return tf.data.Dataset.from_tensor_slices(rois).map(\n"
                                     "        lambda r: attribution(r, cfg))\n")
    r = run("check", "--select", "TFL202", "pkg/box.py")
    assert codes_at(r.out, "pkg/box.py") == expected, r.out


def test_tfl601_only_where_a_module_that_imports_the_layer_may_run_it_as_a_graph(project: Path, run) -> None:
    write(project, "layers.py", "import tensorflow as tf\nimport keras\n\n\nclass Bigram(keras.Model):\n"
                                "    def call(self, idx):\n        if tf.size(tf.shape(idx)) == 1:\n"
                                "            idx = idx[None]\n        return idx\n")
    write(project, "train.py", "import tensorflow as tf\nfrom layers import Bigram\n\nm = Bigram()\n"
                               "with tf.GradientTape() as tape:\n    loss = tf.reduce_sum(m(tf.ones([4])))\n")
    # a Sequential in a module that does not import the layer runs other layers
    write(project, "head.py", "import keras\n\nhead = keras.Sequential([keras.layers.Dense(4)])\n")
    assert "TFL601" not in run("check", ".").out
    write(project, "serve.py", "import tensorflow as tf\nimport train\n\nprint(train.m.predict(tf.ones([2, 4])))\n")
    assert (7, "TFL601") in codes_at(run("check", ".").out, "layers.py")


@pytest.mark.parametrize("decorator, flagged", [("", False), ("@tf.function\n", True)])
def test_tfl601_a_module_level_train_step_is_no_keras_step(project: Path, run, decorator, flagged) -> None:
    """A plain ``def train_step(model, x)`` with an eager GradientTape loop runs the layers
    on concrete tensors (set 31's coursework): only a Keras step method, or a tf.function,
    runs them as a graph."""
    write(project, "hw.py", "import tensorflow as tf\n\n\nclass Lstm(tf.keras.layers.Layer):\n"
                            "    def call(self, data):\n        for t in tf.range(data.shape[1]):\n"
                            "            data = data + 1.0\n        return data\n\n\n" + decorator +
                            "def train_step(model, x):\n    with tf.GradientTape() as tape:\n"
                            "        loss = tf.reduce_sum(model(x))\n    return loss\n\n\n"
                            "layer = Lstm()\nfor epoch in range(3):\n    train_step(layer, tf.ones([2, 3]))\n")
    assert ((6, "TFL601") in codes_at(run("check", ".").out, "hw.py")) is flagged


@pytest.mark.parametrize("usage, flagged", [
    ('"""Later:\n\n    model = keras.Sequential([keras.Input((4,)), Gate()])\n    model.fit(x, y)\n"""\n', False),
    ("# model.fit(x, y)\n", False),
    ("model = keras.Sequential([keras.Input((4,)), Gate()])\n", True),
])
def test_tfl601_code_in_a_docstring_or_comment_does_not_run(project: Path, run, usage, flagged) -> None:
    """Only code that runs may build a layer symbolically: not the example in a docstring
    or a commented-out line (set 31's recommender layers, each tested in a docstring)."""
    write(project, "layers.py", "import tensorflow as tf\nimport keras\n\n\nclass Gate(keras.layers.Layer):\n"
                                "    def call(self, x):\n        if tf.reduce_sum(x) > 0:\n"
                                "            return x * 2\n        return x\n")
    write(project, "main.py", "import keras\nimport tensorflow as tf\nfrom layers import Gate\n\n" + usage +
                              "print(Gate()(tf.ones([2, 4])))\n")
    assert ((7, "TFL601") in codes_at(run("check", ".").out, "layers.py")) is flagged


_DEAD_LAYER = ("import tensorflow as tf\nimport keras\n\n\nclass Gate(keras.layers.Layer):\n"
               "    def call(self, x):\n        if tf.reduce_sum(x) > 0:\n            return x * 2\n"
               "        return x\n\n\nclass Proj(keras.layers.Layer):\n    def call(self, x):\n        return x\n")


@pytest.mark.parametrize("files, flagged", [
    # Gate is never made: the projects use Proj only (set 47's snapshot copies, set 40's MTCNN)
    ({"model.py": "import keras\nfrom layers import Proj\n\nm = keras.Sequential([keras.Input((4,)), Proj()])\n"},
     False),
    ({"model.py": "import keras\nfrom layers import Gate, Proj\n\nm = keras.Sequential([keras.Input((4,)), Proj()])\n"},
     False),
    # a star import from another module brings no name of layers.py
    ({"util.py": "X = 1\n", "model.py": "import keras\nfrom util import *\nfrom layers import Proj\n\n"
                                        "m = keras.Sequential([keras.Input((4,)), Proj()])\n"}, False),
    # used: made, subclassed, looked up by name, re-exported and made elsewhere
    ({"model.py": "import keras\nfrom layers import *\n\nm = keras.Sequential([keras.Input((4,)), Gate()])\n"},
     True),
    ({"model.py": "import keras\nfrom layers import Gate as G\n\nm = keras.Sequential([keras.Input((4,)), G()])\n"},
     True),
    ({"model.py": "import keras\nimport layers\n\nclass Gate2(layers.Gate):\n    pass\n\n"
                  "m = keras.Sequential([keras.Input((4,)), Gate2()])\n"}, True),
    # subclassed only by a class nothing makes (set 78: a chain of dead definitions)
    ({"model.py": "import keras\nimport layers\n\nclass Gate2(layers.Gate):\n    pass\n\n"
                  "m = keras.Sequential([keras.Input((4,)), layers.Proj()])\n"}, False),
    ({"model.py": "import keras\nimport layers\n\nm = keras.Sequential([keras.Input((4,)), getattr(layers, 'Gate')()])\n"},
     True),
    ({"blocks.py": "from layers import Gate, Proj\n",
      "model.py": "import keras\nfrom blocks import Gate\n\nm = keras.Sequential([keras.Input((4,)), Gate()])\n"}, True),
    # a package for others to install: its users may make it
    ({"model.py": "import keras\nfrom layers import Proj\n\nm = keras.Sequential([keras.Input((4,)), Proj()])\n",
      "setup.py": "from setuptools import setup\n\nsetup(name='x')\n"}, True),
])
def test_tfl601_silent_on_a_layer_class_the_application_never_uses(project: Path, run, files, flagged) -> None:
    """A Keras 3 layer whose class nothing in an application names is never made, so its
    ``call`` never runs, as a graph or not (held-out sets 40 and 47)."""
    write(project, "layers.py", _DEAD_LAYER)
    for name, text in files.items():
        write(project, name, text)
    assert ((7, "TFL601") in codes_at(run("check", ".").out, "layers.py")) is flagged


@pytest.mark.parametrize("model, flagged", [
    # the package re-exports Gate and lists it in __all__, but nothing makes it (set 10's
    # position-sensitive pooling layers)
    ("from pkg import Proj\n\nm = keras.Sequential([keras.Input((4,)), Proj()])\n", False),
    ("import pkg\n\nm = keras.Sequential([keras.Input((4,)), pkg.Proj()])\n", False),
    # its users make it, by name or as the package's attribute
    ("from pkg import Gate\n\nm = keras.Sequential([keras.Input((4,)), Gate()])\n", True),
    ("import pkg\n\nm = keras.Sequential([keras.Input((4,)), pkg.Gate()])\n", True),
    ("from pkg import *\n\nm = keras.Sequential([keras.Input((4,)), Gate()])\n", True),
])
def test_tfl601_a_layer_a_package_only_re_exports_is_unused(project: Path, run, model, flagged) -> None:
    write(project, "pkg/layers.py", _DEAD_LAYER)
    write(project, "pkg/__init__.py", "from .layers import Gate, Proj\n\n__all__ = ['Gate', 'Proj']\n")
    write(project, "model.py", "import keras\n" + model)
    assert ((7, "TFL601") in codes_at(run("check", ".").out, "pkg/layers.py")) is flagged


@pytest.mark.parametrize("made, flagged", [("Proj", False), ("Wrapper", True)])
def test_tfl601_a_layer_named_only_in_an_unused_class_is_unused(project: Path, run, made, flagged) -> None:
    """Gate is made in ``Wrapper.__init__`` only: it runs only if Wrapper is made (set 47's
    wav2vec2 copies)."""
    write(project, "layers.py", _DEAD_LAYER + "\n\nclass Wrapper(keras.layers.Layer):\n    def __init__(self):\n"
                                              "        super().__init__()\n        self.gate = Gate()\n")
    write(project, "model.py", f"import keras\nfrom layers import Proj, Wrapper\n\n"
                               f"m = keras.Sequential([keras.Input((4,)), {made}()])\n")
    assert ((7, "TFL601") in codes_at(run("check", ".").out, "layers.py")) is flagged


@pytest.mark.parametrize("train, others, flagged", [
    # a training script makes the layer at module level and calls it in its loop, outside
    # the tf.function (set 40's SSD label encoder); another instance is never called
    ("enc = Gate()\ndec = Gate()\nfor x in data:\n    y = step(enc(x))\n", {}, False),
    ("enc = Gate()\nfor x in data:\n    y = step(x)\n", {}, False),
    # the instance is called in the tf.function, or read by another module
    ("enc = Gate()\nfor x in data:\n    y = step(enc(x))\n\n\n@tf.function\ndef step2(x):\n    return enc(x)\n",
     {}, True),
    ("enc = Gate()\nfor x in data:\n    y = step(enc(x))\n",
     {"serve.py": "import keras\nfrom train import enc\n\nm = keras.Sequential([keras.Input((4,)), enc])\n"}, True),
    ("enc = Gate()\nfor x in data:\n    y = step(enc(x))\n",
     {"serve.py": "import keras\nimport train\n\nm = keras.Sequential([keras.Input((4,)), train.enc])\n"}, True),
    # handed on, or called on a symbolic input
    ("m = tf.keras.Sequential([Gate()])\n", {}, True),
    ("enc = Gate()\ninp = tf.keras.Input((4,))\nm = tf.keras.Model(inp, enc(inp))\n", {}, True),
    # made in a function: it may be called on whatever the function gets
    ("def build(x):\n    enc = Gate()\n    return enc(x)\n\n\nbuild(tf.keras.Input((4,)))\n", {}, True),
])
def test_tfl601_a_layer_another_module_only_calls_at_top_level_runs_eagerly(
        project: Path, run, train, others, flagged) -> None:
    """The module-level code of a training script runs eagerly: a layer it makes there
    and calls only there gets concrete tensors (held-out set 40's SSD ``EncodeLayer``)."""
    write(project, "layers.py", _DEAD_LAYER)
    write(project, "train.py", "import tensorflow as tf\nfrom layers import Gate\n\ndata = [tf.ones([2, 4])]\n\n\n"
                               "@tf.function\ndef step(x):\n    return x * 2.0\n\n\n" + train)
    for name, text in others.items():
        write(project, name, text)
    assert ((7, "TFL601") in codes_at(run("check", ".").out, "layers.py")) is flagged


_UNET = ("import tensorflow as tf\n\n\nclass UNet(tf.keras.Model):\n    def call(self, x):\n"
         "        return tf.keras.layers.Conv2D(2, 1)(x)\n\n"
         "    def model(self, shape):\n        inputs = tf.keras.Input(shape=shape)\n"
         "        return tf.keras.Model(inputs=inputs, outputs=self.call(inputs))\n")


@pytest.mark.parametrize("train, flagged", [
    # another module makes it only to build the functional model at once (set 65's SENet,
    # built in MobileNetV3's call)
    ("net = UNet().model((8, 8, 3))\n", False),
    ("net = UNet()\nnet = net.model((8, 8, 3))\n", False),
    ("def block(x):\n    return UNet().model(x.shape[1:])(x)\n", False),
    # the instance itself is trained, or handed on
    ("net = UNet()\nnet.compile('adam', 'mse')\n", True),
    ("nets = [UNet()]\n", True),
])
def test_tfl302_a_functional_builder_another_module_consumes_at_once(project: Path, run, train, flagged) -> None:
    write(project, "unet.py", _UNET)
    write(project, "train.py", "import tensorflow as tf\nfrom unet import UNet\n\n" + train)
    assert ((6, "TFL302") in codes_at(run("check", ".").out, "unet.py")) is flagged


@pytest.mark.parametrize("init, flagged", [
    # ``__init__`` rebinds the name to the built model: train_step calls the model (set 71)
    ("self.encoder = self.encoder()", False),
    ("self.enc = self.encoder()", True),
])
def test_a_builder_method_hidden_by_its_own_result_is_not_traced(project: Path, run, init, flagged) -> None:
    write(project, "conv.py", "import tensorflow as tf\n\n\ndef conv(x):\n"
                              "    return tf.keras.layers.Dense(4)(x)\n")
    write(project, "model.py", "import tensorflow as tf\nfrom conv import conv\n\n\nclass VAE(tf.keras.Model):\n"
                               f"    def __init__(self):\n        super().__init__()\n        {init}\n\n"
                               "    def encoder(self):\n        inputs = tf.keras.Input(shape=(8,))\n"
                               "        return tf.keras.Model(inputs, conv(inputs))\n\n"
                               "    @tf.function\n    def train_step(self, x):\n        return self.encoder(x)\n")
    assert ((5, "TFL302") in codes_at(run("check", ".").out, "conv.py")) is flagged


_FACTORY = ("import tensorflow as tf\n\n\ndef policy_training():\n    @tf.function\n"
            "    def step(obs, model):\n        return tf.reduce_mean(model(obs))\n    return step\n")


@pytest.mark.parametrize("user, flagged", [
    # set 69's SAC: a method asks for a new function on each call, and a loop calls it
    ("class SAC:\n    def train_step(self):\n        pt = policy_training()\n"
     "        return pt(tf.ones((4, 3)), self.model)\n\n"
     "    def train(self, n):\n        for i in range(n):\n            self.train_step()\n", True),
    ("def train_step(model):\n    pt = policy_training()\n    return pt(tf.cast(x, tf.float32), model)\n\n\n"
     "for i in range(3):\n    train_step(m)\n", True),
    ("def train(model):\n    for i in range(3):\n        pt = policy_training()\n        pt(x, model)\n", True),
    # kept beyond the call, asked once, or given a model the project builds each time
    ("class SAC:\n    def train_step(self):\n        self.pt = policy_training()\n"
     "        return self.pt(x, self.model)\n\n"
     "    def train(self, n):\n        for i in range(n):\n            self.train_step()\n", False),
    ("def train_step(model):\n    pt = policy_training()\n    return pt(x, model)\n\n\ntrain_step(m)\n", False),
    ("def train_step():\n    model = build()\n    pt = policy_training()\n    return pt(x, model)\n\n\n"
     "for i in range(3):\n    train_step()\n", False),
    ("def train(models):\n    for model in models:\n        pt = policy_training()\n        pt(x, model)\n", False),
])
def test_tfl402_a_factory_another_module_asks_anew_in_a_loop(project: Path, run, user, flagged) -> None:
    write(project, "factory.py", _FACTORY)
    write(project, "train.py", "import tensorflow as tf\nfrom factory import policy_training\n\n"
                               "x = tf.ones((4, 3))\nm = tf.keras.Sequential([tf.keras.layers.Dense(2)])\n\n\n"
                               "def build():\n    return tf.keras.Sequential([tf.keras.layers.Dense(2)])\n\n\n" + user)
    assert ((6, "TFL402") in codes_at(run("check", ".").out, "factory.py")) is flagged


@pytest.mark.parametrize("imports, flagged", [
    ("from utils import *\n", True),
    ("from utils import augment\n", True),
    # a later star import, or a module-level binding, hides the first one's name
    ("from utils import *\nfrom other import *\n", False),
    ("from utils import *\naugment = tf.image.flip_left_right\n", False),
    ("from other import *\nfrom utils import *\n", True),
])
def test_a_star_imported_function_is_traced_from_the_module_that_calls_it(project: Path, run, imports, flagged) -> None:
    """``from utils import *`` then ``augment(x)`` in a tf.function: utils' augment is
    traced (set 69's SAC: ``from sac_train import *``)."""
    write(project, "utils.py", "import numpy as np\nimport tensorflow as tf\n\n\ndef augment(x):\n"
                               "    return x * np.random.uniform()\n")
    write(project, "other.py", "def augment(x):\n    return x\n")
    write(project, "train.py", "import tensorflow as tf\n" + imports + "\n\n@tf.function\ndef step(x):\n"
                               "    return augment(x)\n")
    assert ((6, "TFL103") in codes_at(run("check", ".").out, "utils.py")) is flagged


def test_what_an_imported_factory_returns_to_dataset_map_is_traced(project: Path, run) -> None:
    """``ds.map(parse_function_generator(80))`` with the factory in another module: the
    parser it defines is traced, the factory itself runs eagerly (held-out set 50,
    YOLOv4-tf2's flip drawn once for every image)."""
    write(project, "create_dataset.py", "import numpy as np\nimport tensorflow as tf\n\n\n"
                                        "def parse_function_generator(n):\n    print('building', n)\n\n"
                                        "    def parse_function(x):\n"
                                        "        flip = tf.math.less(np.random.rand(), 0.5)\n"
                                        "        return tf.cond(flip, lambda: -x, lambda: x)\n"
                                        "    return parse_function\n")
    write(project, "train.py", "import tensorflow as tf\nfrom create_dataset import parse_function_generator\n\n"
                               "ds = tf.data.Dataset.range(10).map(parse_function_generator(80))\n")
    r = run("check", ".")
    assert codes_at(r.out, "create_dataset.py") == [(9, "TFL103")], r.out
    assert "through `parse_function_generator()` in `train.py` (line 4)" in r.out, r.out


def test_tfl102_tfl103_not_in_a_tf_function_a_script_calls_once(project: Path, run) -> None:
    once = ("import time\nimport numpy as np\nimport tensorflow as tf\n\n\n@tf.function\ndef predict(x):\n"
            "    w = np.random.randn(1, 3)\n    t = tf.constant(time.time())\n"
            "    return tf.matmul(x, w, transpose_b=True) + t\n\n\ny = predict(np.ones((10, 3)))\n")
    write(project, "demo.py", once)
    assert "TFL10" not in run("check", "demo.py").out
    # a second call, a call in a loop or a comprehension, or another module that may call
    # it: it runs again
    call = "y = predict(np.ones((10, 3)))\n"
    for variant in (once + "z = predict(np.ones((2, 3)))\n",
                    once.replace(call, "for i in range(3):\n    " + call),
                    once.replace(call, "ys = [predict(np.ones((1, 3))) for _ in range(2)]\n")):
        assert variant != once
        write(project, "demo.py", variant)
        found = codes_at(run("check", "demo.py").out, "demo.py")
        assert (8, "TFL103") in found and (9, "TFL102") in found, (variant, found)
    write(project, "demo.py", once)
    write(project, "app.py", "from demo import predict\n")
    assert (8, "TFL103") in codes_at(run("check", "demo.py").out, "demo.py")


def test_keras_steps_that_importers_call_directly_or_compile_run_eagerly_are_not_traced(
        project: Path, run) -> None:
    model = ("import keras\nimport tensorflow as tf\n\n\nclass Agent(keras.Model):\n"
             "    def call(self, x):\n        return x\n\n"
             "    def train_step(self, data=None):\n        td = self(tf.ones([2]))\n"
             "        self.priorities = td.numpy()\n        return {}\n")
    write(project, "agent.py", model)
    # the step is a root while nothing says how the model is used
    assert (11, "TFL201") in codes_at(run("check", ".").out, "agent.py")
    # a script calls it as a plain method in its episode loop, and nothing runs it
    # through fit / evaluate / *_on_batch: it runs eagerly
    write(project, "main.py", "from agent import Agent\n\nagent = Agent()\nfor episode in range(10):\n"
                              "    agent.train_step()\n")
    assert "TFL201" not in run("check", ".").out
    # ... unless a module in reach runs a step under tf.function
    write(project, "fit.py", "import main\n\nmain.agent.fit(None, epochs=1)\n")
    assert (11, "TFL201") in codes_at(run("check", ".").out, "agent.py")
    # every compile in reach says run_eagerly=True: fit runs the steps as Python
    write(project, "fit.py", "import main\n\nmain.agent.compile(optimizer='adam',\n"
                             "                   run_eagerly=True)\nmain.agent.fit(None, epochs=1)\n")
    assert "TFL201" not in run("check", ".").out
    # one compile that may run a graph is enough to keep the finding
    write(project, "other.py", "import main\n\nmain.agent.compile(optimizer='sgd')\n")
    assert (11, "TFL201") in codes_at(run("check", ".").out, "agent.py")
    # a run_eagerly=True left in a comment does not count (set 39's FastPitch train.py)
    (project / "other.py").unlink()
    write(project, "fit.py", "import main\n\nmain.agent.compile(optimizer='adam',\n"
                             "                   # run_eagerly=True\n)\nmain.agent.fit(None, epochs=1)\n")
    assert (11, "TFL201") in codes_at(run("check", ".").out, "agent.py")


def test_tfl109_silent_for_a_setter_run_only_at_start_up(project: Path, run) -> None:
    """allintf2 (set 39): ``apply_hyperparameters(args)`` sets globals through ``global``
    once, at module level, before the tf.function exists: its traces capture the set
    values (checked on 2.21). A call after the definition may follow a trace."""
    script = ("import tensorflow as tf\n\nLAMBDA = 100.0\n\n\ndef apply_hyperparameters(lam):\n"
              "    global LAMBDA\n    LAMBDA = lam\n\n\napply_hyperparameters(10.0)\n\n\n"
              "@tf.function\ndef step(x):\n    return x * LAMBDA\n\n\nstep(tf.constant(2.0))\n")
    write(project, "main.py", script)
    assert "TFL109" not in run("check", "main.py").out
    write(project, "main.py", script + "apply_hyperparameters(1.0)\nstep(tf.constant(2.0))\n")
    assert (16, "TFL109") in codes_at(run("check", "main.py").out, "main.py")
    # another module may call the setter at any time
    write(project, "main.py", script)
    write(project, "tune.py", "import main\n\nmain.apply_hyperparameters(0.5)\n")
    assert (16, "TFL109") in codes_at(run("check", "main.py").out, "main.py")


LIP_NORMALIZERS = '''import tensorflow as tf

STOP_GRAD = True


def set_stop_grad(value):
    """Call before building the model."""
    global STOP_GRAD
    STOP_GRAD = bool(value)


@tf.function
def power(u):
    if STOP_GRAD:
        u = tf.stop_gradient(u)
    return u * 0.5
'''


def test_tfl109_silent_for_a_library_setting_set_before_the_model(project: Path, run) -> None:
    """deel-lip (set 45): a library module's setting changes only through its setter,
    which the module itself never calls and the project calls once, outside loops,
    before building the model: the traces capture the configured value (checked on
    2.21). Called in a training loop, it changes between calls: reported."""
    write(project, "lip/__init__.py", "")
    write(project, "lip/normalizers.py", LIP_NORMALIZERS)
    write(project, "demo.py", "import tensorflow as tf\nfrom lip.normalizers import power, set_stop_grad\n\n"
                              "set_stop_grad(False)\nprint(power(tf.ones(3)))\n")
    assert "TFL109" not in run("check", ".").out
    write(project, "demo.py", "import tensorflow as tf\nfrom lip.normalizers import power, set_stop_grad\n\n"
                              "for epoch in range(3):\n    set_stop_grad(epoch > 1)\n    power(tf.ones(3))\n")
    assert (14, "TFL109") in codes_at(run("check", ".").out, "lip/normalizers.py")


def test_tfl402_a_tf_function_wrapped_per_call_of_a_helper_another_module_loops_over(project: Path, run) -> None:
    """``fn = tf.function(pgd_step)`` in ``attacks.pgd``, which ``train.py`` calls once per
    batch: a new function, and a new trace, on every call (set 45's robustification)."""
    write(project, "attacks.py", (
        "import tensorflow as tf\n"
        "\n"
        "def pgd_step(x):\n"
        "    return x * 2.0\n"
        "\n"
        "def pgd(x, num_iter):\n"
        "    fn = tf.function(pgd_step)\n"
        "    for _ in range(num_iter):\n"
        "        x = fn(x)\n"
        "    return x\n"
    ))
    write(project, "train.py", (
        "import tensorflow as tf\n"
        "from attacks import pgd\n"
        "\n"
        "for batch in tf.data.Dataset.range(100).batch(10):\n"
        "    pgd(tf.cast(batch, tf.float32), 10)\n"
    ))
    r = run("check", "attacks.py")
    assert (7, "TFL402") in codes_at(r.out, "attacks.py"), r.out
    assert "which is called in a loop in `train.py` (line 5)" in r.out


def test_a_base_class_that_switches_eager_on_in_another_module(project: Path, run) -> None:
    """``NN.__init__`` in ``base/nn.py`` calls ``tf.config.run_functions_eagerly(True)``;
    ``PINN(NN)`` in ``base/pinn.py`` has a tf.function train step whose file write runs on
    every call (set 52's CertifiedML_PDE). A base module
    that also switches it off again says nothing of the kind."""
    write(project, "base/__init__.py", "")
    nn = (
        "import tensorflow as tf\n"
        "\n"
        "class NN:\n"
        "    def __init__(self):\n"
        "        tf.config.run_functions_eagerly(True)\n"
        "        self.hist = []\n"
    )
    write(project, "base/nn.py", nn)
    pinn = (
        "import tensorflow as tf\n"
        "from base.nn import NN\n"
        "\n"
        "class PINN(NN):\n"
        "    @tf.function\n"
        "    def train_step(self, x):\n"
        "        self.hist.append(x)\n"
        "        with open('w.csv', 'a') as f:\n"
        "            f.write('x')\n"
        "        return x\n"
    )
    write(project, "base/pinn.py", pinn)
    r = run("check", "base/pinn.py")
    assert codes_at(r.out, "base/pinn.py") == [], r.out
    write(project, "base/nn.py", nn + "\n    def close(self):\n        tf.config.run_functions_eagerly(False)\n")
    found = codes_at(run("check", "base/pinn.py").out, "base/pinn.py")
    assert (8, "TFL102") in found, found


AGENT = (
    "import tensorflow as tf\n"
    "\n"
    "class Agent:\n"
    "    @tf.function\n"
    "    def act(self, obs):\n"
    "        return obs.numpy()\n"
)


def test_every_entry_point_that_imports_the_module_switches_eager_on(project: Path, run) -> None:
    """Set 58's tf2_grf: ``main.py`` calls ``tf.config.run_functions_eagerly(True)`` (at
    module level, or in ``train()``) and is the only module that imports ``learn.py``,
    which alone imports ``agent.py``: the agent's tf.functions run as Python, and
    ``.numpy()`` there returns a value. A second entry point that imports the agent
    without the switch, a ``setup.py`` (set 22's text-similarity: the package's users
    import it without the switch), or a module that switches back with ``(False)``, brings
    the finding back."""
    write(project, "dqn/__init__.py", "")
    write(project, "dqn/agent.py", AGENT)
    write(project, "dqn/learn.py", "from dqn.agent import Agent\n\ndef learn():\n    return Agent()\n")
    write(project, "dqn/main.py", "import tensorflow as tf\nfrom dqn.learn import learn\n\n"
                                  "def train():\n    tf.config.run_functions_eagerly(True)\n    learn()\n")
    assert codes_at(run("check", "dqn/agent.py").out, "dqn/agent.py") == []
    write(project, "dqn/evaluate.py", "from dqn.agent import Agent\n\nAgent().act(1)\n")
    assert (6, "TFL201") in codes_at(run("check", "dqn/agent.py").out, "dqn/agent.py")
    (project / "dqn/evaluate.py").unlink()
    assert codes_at(run("check", "dqn/agent.py").out, "dqn/agent.py") == []
    write(project, "setup.py", "from setuptools import setup\n\nsetup(name='dqn')\n")
    assert (6, "TFL201") in codes_at(run("check", "dqn/agent.py").out, "dqn/agent.py")
    (project / "setup.py").unlink()
    write(project, "dqn/debug.py", "import tensorflow as tf\n\ntf.config.run_functions_eagerly(False)\n")
    assert (6, "TFL201") in codes_at(run("check", "dqn/agent.py").out, "dqn/agent.py")


def test_a_module_that_switches_eager_on_when_imported(project: Path, run) -> None:
    """tf2_grf's ``dqn_agent.py`` imports ``common/models.py``, whose own body says
    ``tf.config.run_functions_eagerly(True)``: once the agent's module is loaded, its
    tf.functions run as Python, whoever imports it. A switch inside a function of the
    imported module, which only importing it does not run, does not count."""
    write(project, "common/__init__.py", "")
    write(project, "common/models.py", "import tensorflow as tf\n\ntf.config.run_functions_eagerly(True)\n")
    write(project, "agents/__init__.py", "")
    write(project, "agents/agent.py", "from common.models import tf\n" + AGENT)
    write(project, "run.py", "from agents.agent import Agent\n\nAgent().act(1)\n")
    assert codes_at(run("check", "agents/agent.py").out, "agents/agent.py") == []
    write(project, "common/models.py", "import tensorflow as tf\n\ndef debug():\n"
                                       "    tf.config.run_functions_eagerly(True)\n")
    assert (7, "TFL201") in codes_at(run("check", "agents/agent.py").out, "agents/agent.py")


def test_an_imported_factory_rebound_to_its_model_at_module_level(project: Path, run) -> None:
    """Set 60's Pix2pix-tf: ``train.py`` says ``Discriminator = Discriminator((4,))`` at
    module level, so its tf.function ``train_step`` calls the built model, never the
    factory in ``model.py``: no Keras object is made in traced code. Calling the factory
    itself from the step is reported."""
    write(project, "model.py", "import tensorflow as tf\n\ndef Discriminator(shape):\n"
                               "    x_in = tf.keras.Input(shape=shape)\n"
                               "    return tf.keras.models.Model(x_in, tf.keras.layers.Dense(1)(x_in))\n")
    train = ("import tensorflow as tf\nfrom model import Discriminator\n\n"
             "Discriminator = Discriminator((4,))\n\n@tf.function\ndef train_step(x):\n"
             "    return Discriminator(x, training=True)\n")
    write(project, "train.py", train)
    assert codes_at(run("check", "model.py").out, "model.py") == []
    write(project, "train.py", train.replace("Discriminator = Discriminator((4,))\n", ""))
    assert (5, "TFL302") in codes_at(run("check", "model.py").out, "model.py")


def test_a_tensor_attribute_read_by_another_modules_top_level_code(project: Path, run) -> None:
    """TFL107 on a tensor kept on ``self`` in a traced step and read eagerly by a script
    of the project. Only modules whose text names the attribute are summarized for the
    question; one that names it only inside a function, or in a string, is no reader."""
    write(project, "model.py", "import tensorflow as tf\n\n\nclass WGAN(tf.keras.Model):\n"
                               "    def train_step(self, data):\n        self.batch_size = tf.shape(data)[0]\n"
                               "        return {}\n")
    write(project, "a_helpers.py", "from model import WGAN\n\n\ndef show(m):\n    return m.batch_size\n"
                                   "\n\nNOTE = 'batch_size'\n")
    write(project, "main.py", "from model import WGAN\n\nm = WGAN()\nm.fit([1.0])\nprint(m.batch_size)\n")
    r = run("check", "--no-cache", "--select", "TFL107", "--output-format", "json", "model.py")
    (d,) = json.loads(r.out)
    assert (d["location"]["row"], "module-level code of `main.py` (line 5) reads it eagerly" in d["message"]) == (6, True), d
    # no module of the project reads it at module level: nothing to report
    write(project, "main.py", "from model import WGAN\n\nm = WGAN()\nm.fit([1.0])\n")
    r = run("check", "--no-cache", "--select", "TFL107", "--output-format", "json", "model.py")
    assert json.loads(r.out) == []


def test_library_names_a_star_import_brings_from_a_project_module(project: Path, run) -> None:
    """``from utils import *`` where the project's utils.py says ``import tensorflow as
    tf``: the script's ``@tf.function`` is TensorFlow's (set 64's gan-thesis), and its
    traced code is checked. The script's own imports win; a library star import, or a
    project module that binds ``tf`` to something else, brings no TensorFlow."""
    write(project, "utils.py", "import numpy as np\nimport tensorflow as tf\n\n\ndef helper(x):\n    return x\n")
    script = "from utils import *\n\n\n@tf.function\ndef step(x):\n    print(x)\n    return x + np.random.rand()\n"
    write(project, "train.py", script)
    r = run("check", "--no-cache", "--select", "TFL101,TFL103", "--output-format", "json", "train.py")
    assert sorted((d["code"], d["location"]["row"]) for d in json.loads(r.out)) == [("TFL101", 6), ("TFL103", 7)]
    # utils binds ``tf`` to a project module of that name: nothing is TensorFlow there
    write(project, "utils.py", "import tf\n")
    write(project, "tf.py", "def function(f):\n    return f\n")
    r = run("check", "--no-cache", "--select", "TFL101,TFL103", "--output-format", "json", "train.py")
    assert json.loads(r.out) == []


_GATE = ("import tensorflow as tf\nimport keras\n\n\nclass Gate(keras.layers.Layer):\n"
         "    def call(self, x):\n        if tf.reduce_sum(x) > 0:\n            return x * 2\n"
         "        return x\n\n\nclass Block(keras.Model):\n    def __init__(self):\n        super().__init__()\n"
         "        self.gate = Gate()\n        self.gates = [Gate() for _ in range(2)]\n\n"
         "    def call(self, x):\n        for g in self.gates:\n            x = g(x)\n"
         "        return self.gate(x)\n\n    def generate(self, x):\n        return self(x)\n")
_EAGER_LOOP = ("        with tf.GradientTape() as tape:\n            loss = tf.reduce_sum({model}(x))\n"
               "        grads = tape.gradient(loss, {model}.trainable_variables)\n")


@pytest.mark.parametrize("train, flagged", [
    # made in main() and called only in its eager GradientTape loop (set 92's predictor)
    ("def main():\n    model = Gate()\n    for x in [tf.ones([2, 4])]:\n" + _EAGER_LOOP.format(model="model") +
     "\n\nif __name__ == '__main__':\n    main()\n", False),
    # ... through a model that holds it in an attribute and in a list (set 92's chain of models)
    ("def main():\n    model = Block()\n    ckpt = tf.train.Checkpoint(model=model)\n"
     "    for x in [tf.ones([2, 4])]:\n" + _EAGER_LOOP.format(model="model") +
     "    print(model.generate(x))\n\n\nif __name__ == '__main__':\n    main()\n", False),
    # module level, with a look at the weights and a plot (set 61's Tacotron2)
    ("def build():\n    inp = keras.Input((4,))\n    return keras.Model(inp, keras.layers.Dense(2)(inp))\n\n\n"
     "block = Block()\nprint(block(tf.ones([2, 4])))\nblock.save_weights('b.h5')\n"
     "keras.utils.plot_model(model=block, to_file='b.png')\n", False),
    # handed to a plain train step that only calls it (set 63's grad_func, set 41's losses)
    ("def train_step(model, x):\n" + _EAGER_LOOP.format(model="model").replace("    ", "", 1).replace("\n    ", "\n") +
     "    return loss\n\n\ndef main():\n    model = Block()\n    for x in [tf.ones([2, 4])]:\n"
     "        train_step(model, x)\n\n\nmain()\n", False),
    ("@tf.function\ndef train_step(model, x):\n    return model(x)\n\n\ndef main():\n    model = Block()\n"
     "    train_step(model, tf.ones([2, 4]))\n\n\nmain()\n", True),
    ("def train_step(model, x):\n    return model(x)\n\n\n@tf.function\ndef main():\n    model = Block()\n"
     "    return train_step(model, tf.ones([2, 4]))\n\n\nmain()\n", True),
    # the loop is a tf.function, or main() is run by one
    ("@tf.function\ndef main():\n    model = Gate()\n    return model(tf.ones([2, 4]))\n\n\nmain()\n", True),
    ("def main():\n    model = Gate()\n    return model(tf.ones([2, 4]))\n\n\n@tf.function\ndef run():\n"
     "    return main()\n\n\nrun()\n", True),
    # Keras runs it: fit, predict, a Sequential, a functional model
    ("def main():\n    model = Block()\n    model.compile('sgd', 'mse')\n    model.fit(tf.ones([2, 4]), tf.ones([2, 4]))\n\n\n"
     "main()\n", True),
    ("def main():\n    model = Block()\n    print(model(tf.ones([2, 4])))\n    model.predict(tf.ones([2, 4]))\n\n\n"
     "main()\n", True),
    ("def main():\n    model = keras.Sequential([keras.Input((4,)), Block()])\n    return model\n\n\nmain()\n", True),
    # a builder called on a symbolic input, though it makes none itself
    ("def block(x):\n    g = Gate()\n    return g(x)\n\n\ndef build():\n    inp = keras.Input((4,))\n"
     "    return keras.Model(inp, block(inp))\n\n\nbuild()\n", True),
    # handed on or given out: nothing more is known of it
    ("def make():\n    model = Gate()\n    return model\n\n\nmake()\n", True),
    ("def main(fit_fn):\n    model = Gate()\n    fit_fn(model)\n\n\nmain(print)\n", True),
])
def test_tfl601_silent_on_instances_called_only_in_eager_code(project: Path, run, train, flagged) -> None:
    """A layer whose every instance is made and called in eager code, directly or through
    the models that hold it, gets concrete tensors: a Python ``if`` on one is a plain
    bool (held-out sets 61 and 92). Anything that may run it as a graph keeps the finding."""
    write(project, "layers.py", _GATE)
    write(project, "train.py", "import tensorflow as tf\nimport keras\nfrom layers import Block, Gate\n\n\n"
                               "@tf.function\ndef scale(x):\n    return x * 2\n\n\n" + train)
    assert ((7, "TFL601") in codes_at(run("check", ".").out, "layers.py")) is flagged


@pytest.mark.parametrize("chat, flagged", [
    ("bot = Bot()\nbot.load_weights('w.h5')\nwhile True:\n    print(bot.prompt(input()))\n", False),
    ("bot = Bot()\nbot.compile('sgd', 'mse')\nbot.fit(tf.ones([2, 4]), tf.ones([2, 4]))\n", True),
    ("bot = Bot()\nstep = tf.function(bot.prompt)\n", True),
])
def test_tfl103_silent_in_a_model_only_called_eagerly_through_its_own_method(project: Path, run, chat, flagged) -> None:
    """Set 94's chatbot: ``call`` samples with ``np.random``, and the model is only ever
    run by ``bot.prompt(text)``, its own plain method that calls ``self(text)``, from an
    eager loop: each call draws anew."""
    write(project, "bot.py", "import numpy as np\nimport tensorflow as tf\n\n\nclass Bot(tf.keras.Model):\n"
                             "    def call(self, x):\n        return x * np.random.rand()\n\n"
                             "    def prompt(self, text):\n        return self(tf.constant([[1.0]]))\n")
    write(project, "chat.py", "import tensorflow as tf\nfrom bot import Bot\n\n\n"
                              "@tf.function\ndef scale(x):\n    return x * 2\n\n\n" + chat)
    assert ((7, "TFL103") in codes_at(run("check", ".").out, "bot.py")) is flagged


@pytest.mark.parametrize("handed, flagged", [
    ("[v] = tf.py_function(_to_value, [filename], [tf.int32])", False),
    ("[v] = tf.numpy_function(func=_to_value, inp=[filename], Tout=[tf.int32])", False),
    ("v = _to_value(filename)", True),
])
def test_a_py_function_body_nested_in_a_map_function_runs_eagerly(project: Path, run, handed, flagged) -> None:
    """Set 98's MRI loader: the function handed to ``tf.py_function`` inside a
    ``Dataset.map`` function runs as Python once per element, and so do the functions of
    other modules it calls: a ``random.randint`` there draws anew each time."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/h5.py", "import random\n\n\ndef from_file(f):\n    return random.randint(0, 9)\n")
    write(project, "pkg/pyfunc.py", "import tensorflow as tf\nfrom .h5 import from_file\n\n\n"
                                    "def to_value(filename):\n    def _to_value(filename):\n"
                                    "        return tf.convert_to_tensor(from_file(filename))\n"
                                    f"    {handed}\n    return v\n\n\n"
                                    "ds = tf.data.Dataset.from_tensor_slices(['a', 'b']).map(to_value)\n")
    assert ((5, "TFL103") in codes_at(run("check", ".").out, "pkg/h5.py")) is flagged


@pytest.mark.parametrize("use, flagged", [
    ("", False),
    ("import tensorflow as tf\nfrom nets import SPPNet\n\n\n@tf.function\ndef run(x):\n    return SPPNet()(x)\n", True),
])
def test_tfl302_silent_in_a_builder_class_a_package_never_makes(project: Path, run, use, flagged) -> None:
    """Set 65's model zoo (a package: it has a setup.py): each class builds its functional
    model in its own ``model()`` method, ``self.call`` on a ``keras.Input``, and nothing
    in the project makes one otherwise; the layers ``call`` creates become that model's
    own. Made and called in a tf.function, they are created per trace."""
    write(project, "setup.py", "from setuptools import setup\n\nsetup(name='zoo')\n")
    write(project, "nets.py", "import tensorflow as tf\n\n\nclass SPPNet(tf.keras.layers.Layer):\n"
                              "    def call(self, inputs):\n"
                              "        return tf.keras.layers.BatchNormalization()(inputs)\n\n"
                              "    def model(self):\n        inputs = tf.keras.Input(shape=(8, 8, 3))\n"
                              "        outputs = self.call(inputs)\n"
                              "        return tf.keras.Model(inputs=inputs, outputs=outputs)\n")
    if use:
        write(project, "main.py", use)
    assert ((6, "TFL302") in codes_at(run("check", ".").out, "nets.py")) is flagged


@pytest.mark.parametrize("run_body, flagged", [
    # a local alias of the attribute, called in the method; a tf.function nested beside it
    ("        gate = self.gate\n        return gate(scaled(x))\n", False),
    ("        return self.gate(scaled(x))\n", False),
    # the nested tf.function runs the layer: as a graph
    ("        gate = self.gate\n\n        @tf.function\n        def through(y):\n            return gate(y)\n"
     "        return through(x)\n", True),
    ("        @tf.function\n        def through(y):\n            return self.gate(y)\n        return through(x)\n", True),
])
def test_tfl601_a_layer_a_plain_trainer_holds_and_calls_eagerly(project: Path, run, run_body, flagged) -> None:
    """A trainer object holds the layer on ``self`` (set 41's losses): read back into a
    local (``gate = self.gate``) and called in an eager method, it gets concrete tensors,
    though another function nested in that method is a tf.function."""
    write(project, "layers.py", _GATE)
    write(project, "train.py", "import tensorflow as tf\nfrom layers import Gate\n\n\nclass Trainer:\n"
                               "    def __init__(self):\n        self.gate = Gate()\n\n    def run(self, x):\n"
                               "        @tf.function\n        def scaled(y):\n            return y * 2\n\n"
                               + run_body +
                               "\n\ndef main():\n    trainer = Trainer()\n    for x in [tf.ones([2, 4])]:\n"
                               "        trainer.run(x)\n\n\nmain()\n")
    assert ((7, "TFL601") in codes_at(run("check", ".").out, "layers.py")) is flagged


_LOSSES = ("import numpy as np\nimport tensorflow as tf\nfrom tensorflow import keras\n\n\n"
           "def noisy_mse(y_true, y_pred):\n    noise = np.random.normal()\n"
           "    return tf.reduce_mean(tf.square(y_true - y_pred)) + noise\n\n\n"
           "class FocalLoss(keras.losses.Loss):\n    def call(self, y_true, y_pred):\n"
           "        return tf.reduce_mean(y_pred) * np.random.uniform()\n")


@pytest.mark.parametrize("compile_args, fit, flagged", [
    ("loss=noisy_mse", "model.fit(x, y)\n", {7}),
    ("loss='mse', metrics=['accuracy', losses.noisy_mse]", "model.evaluate(x, y)\n", {7}),
    ("loss=FocalLoss()", "model.fit(x, y)\n", {13}),
    ("loss={'out': noisy_mse}", "model.train_on_batch(x, y)\n", {7}),
    # compiled to run eagerly, or never fitted: the loss runs as Python, or not at all
    ("loss=noisy_mse, run_eagerly=True", "model.fit(x, y)\n", set()),
    ("loss=noisy_mse", "print(model(x))\n", set()),
])
def test_a_loss_or_metric_another_module_hands_to_compile_is_traced(project: Path, run, compile_args, fit,
                                                                      flagged) -> None:
    """A loss or metric function (or a loss class's ``call``) that a training script hands
    to ``model.compile`` runs in the graph of ``fit``/``evaluate``: ``np.random`` in it
    draws once per trace (checked on TensorFlow 2.21: a loss's ``print`` runs twice in 16
    steps of ``fit``)."""
    write(project, "losses.py", _LOSSES)
    write(project, "train.py", "import numpy as np\nfrom tensorflow import keras\nimport losses\n"
                               "from losses import FocalLoss, noisy_mse\n\n"
                               "model = keras.Sequential([keras.layers.Dense(1)])\n"
                               f"model.compile(optimizer='adam', {compile_args})\n"
                               "x, y = np.zeros((8, 2)), np.zeros((8, 1))\n" + fit)
    got = {line for line, code in codes_at(run("check", ".").out, "losses.py") if code == "TFL103"}
    assert got == flagged


_PCONV = ("import keras\n\n\nclass PartialConv(keras.layers.Layer):\n"
          "    def __init__(self, filters, use_bias=True):\n        super().__init__()\n"
          "        self.filters = filters\n        self.use_bias = use_bias\n\n"
          "    def call(self, x):\n        if self.use_bias:\n"
          "            b = self.add_weight(shape=(self.filters,), name='b')\n            x = x + b\n"
          "        return x\n\n\n")


@pytest.mark.parametrize("made, elsewhere, flagged", [
    ("PartialConv(8, use_bias=False)\nPartialConv(4, False)\n", "", False),
    ("PartialConv(8, use_bias=False)\nPartialConv(4)\n", "", True),
    # another module makes one: its argument is not read here
    ("PartialConv(8, use_bias=False)\n", "from layers import PartialConv\n\nPartialConv(2, use_bias=True)\n", True),
    # something else sets the flag on an instance
    ("conv = PartialConv(8, use_bias=False)\nconv.use_bias = True\n", "", True),
])
def test_a_branch_no_instance_takes_is_dead(project: Path, run, made, elsewhere, flagged) -> None:
    """Set 117's inpainting model: ``add_weight`` under ``if self.use_bias:`` in a Keras
    3 layer's ``call``, where ``__init__`` sets the flag once from its argument and
    every instance the project makes passes ``use_bias=False``: the branch never runs."""
    write(project, "layers.py", _PCONV + made)
    if elsewhere:
        write(project, "model.py", elsewhere)
    assert ((12, "TFL302") in codes_at(run("check", ".").out, "layers.py")) is flagged


_NETS = ("import tensorflow as tf\n\n\nclass Net(tf.keras.Model):\n    def call(self, x):\n"
         "        print('x', tf.reduce_sum(x))\n        return x * 2\n\n\n"
         "class DiceLoss(tf.keras.losses.Loss):\n    def call(self, y_true, y_pred):\n"
         "        dice = tf.reduce_sum(y_true * y_pred)\n        if tf.math.is_nan(dice):\n"
         "            return tf.constant(1.0)\n        return 1.0 - dice\n\n\n"
         "class Plain:\n    def call(self, x):\n        print('plain', tf.reduce_sum(x))\n        return x\n")


@pytest.mark.parametrize("train, flagged", [
    # a module-level instance, called in a tf.function
    ("net = nets.Net()\nloss = nets.DiceLoss()\n\n\n@tf.function\ndef step(x):\n    return loss(x, net(x))\n",
     {(6, "TFL101"), (13, "TFL202")}),
    # instances kept on self by __init__, called in a tf.function method
    ("class Trainer:\n    def __init__(self):\n        self.net = nets.Net()\n\n"
     "    @tf.function\n    def step(self, x):\n        return self.net(x)\n", {(6, "TFL101")}),
    # a local of the function the tf.function is nested in (set 120's pgrad-thesis)
    ("def main():\n    loss_obj = nets.DiceLoss()\n\n    @tf.function\n    def step(x):\n"
     "        return loss_obj(x, x)\n\n    step(tf.ones([2]))\n", {(13, "TFL202")}),
    # a parameter of the same name hides the module's object: what the caller passes is not known
    ("net = nets.Net()\n\n\n@tf.function\ndef step(net, x):\n    return net(x)\n", set()),
    # called eagerly only
    ("net = nets.Net()\nprint(net(tf.ones([2])))\n", set()),
    # bound twice: which object is called is not known
    ("net = nets.Net()\nnet = nets.Plain()\n\n\n@tf.function\ndef step(x):\n    return net(x)\n", set()),
    # not a Keras class: calling the object runs no `call`
    ("obj = nets.Plain()\n\n\n@tf.function\ndef step(x):\n    return obj(x)\n", set()),
])
def test_an_object_of_another_modules_class_called_in_traced_code(project: Path, run, train, flagged) -> None:
    """``net = Net()`` in ``train.py``, called in a tf.function: Keras runs ``Net.call``
    of ``nets.py`` in the graph (and, for a Keras 3 loss, without AutoGraph)."""
    write(project, "nets.py", _NETS)
    write(project, "train.py", "import tensorflow as tf\nimport nets\n\n" + train)
    got = {(line, code) for line, code in codes_at(run("check", ".").out, "nets.py")}
    assert got == flagged
