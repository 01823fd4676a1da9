"""Qualified names of TensorFlow and Keras, and small syntax helpers that every part of
the model and the rules share (dotted names, binding targets, literals)."""

from __future__ import annotations

import re
from typing import Iterator

import libcst as cst

# ---------------------------------------------------------------------------------------
# Qualified names

TF_FUNCTION_NAMES = frozenset(
    {
        "tensorflow.function",
        "tensorflow.compat.v2.function",
        "tensorflow.compat.v1.function",
        "tensorflow.__internal__.function",
        "tensorflow.python.eager.def_function.function",
        "tensorflow.python.eager.polymorphic_function.polymorphic_function.function",
    }
)
PY_FUNCTION_NAMES = frozenset(
    {
        "tensorflow.py_function",
        "tensorflow.numpy_function",
        "tensorflow.compat.v1.py_func",
        "tensorflow.py_func",  # TensorFlow 1's spelling, still in code that supports both
        "tensorflow.compat.v1.py_function",
        "tensorflow.compat.v1.numpy_function",
        "tensorflow.compat.v2.py_function",
        "tensorflow.compat.v2.numpy_function",
        "tensorflow.python.ops.script_ops.py_func",
        "tensorflow.python.ops.script_ops.eager_py_func",
        "tensorflow.python.ops.script_ops.numpy_function",
    }
)
INIT_SCOPE_NAMES = frozenset({"tensorflow.init_scope", "tensorflow.python.framework.ops.init_scope"})
KERAS_MODEL_BASES = frozenset({"keras.Model", "keras.models.Model", "keras.Sequential", "keras.models.Sequential",
                               "keras.engine.training.Model", "keras.src.models.model.Model",
                               "keras.src.engine.training.Model"})
KERAS_STEP_METHODS = ("train_step", "test_step", "predict_step")
#: builtins that look names up by a computed string
DYNAMIC_LOOKUPS = frozenset({"globals", "locals", "vars", "eval", "exec"})
#: the last names of the calls that make a symbolic Keras input: code that makes one
#: may call a layer on it, so its layer calls may run as a graph
SYMBOLIC_INPUTS = frozenset({"Input", "InputLayer"})
#: decorators that leave a function a plain one, its arguments handed on as they are
PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod", "property", "abstractmethod"})
#: what an instance's attribute gives without running its ``call`` (checked on 2.21:
#: ``tf.train.Checkpoint(model=m)``, ``m.save_weights(path)`` on a model only called
#: eagerly run no symbolic call; a ``save`` or ``export`` may trace it)
RUNS_NO_CALL = frozenset({"set_weights", "get_weights", "weights", "trainable_weights", "non_trainable_weights",
                          "variables", "trainable_variables", "non_trainable_variables", "count_params",
                          "get_config", "save_weights", "load_weights", "name", "trainable", "built", "summary"})
#: why a Keras step method is traced (and how the model recognises one)
KERAS_STEP_REASON = "which Keras runs under tf.function"
#: a loss or metric handed to ``compile``: ``fit`` and ``evaluate`` call it in their graph
KERAS_COMPILE_REASON = "passed to `compile`, which Keras runs under tf.function"
#: the ``compile`` arguments that Keras calls in the graph of ``fit`` and ``evaluate``
COMPILE_CALLABLES = frozenset({"loss", "metrics", "weighted_metrics"})
#: ``re.compile``: not a Keras ``compile``
REGEX_COMPILE = frozenset({"re.compile", "regex.compile"})
#: the methods Keras calls on a loss or metric object it was handed
LOSS_METRIC_METHODS = ("call", "__call__", "update_state", "result")
#: ``tf.config.run_functions_eagerly`` in its spellings
RUN_EAGERLY_NAMES = frozenset({"tensorflow.config.run_functions_eagerly",
                               "tensorflow.config.experimental_run_functions_eagerly"})
DATASET_METHODS = {"map": 0, "filter": 0, "flat_map": 0, "interleave": 0, "reduce": 1, "scan": 1,
                   "group_by_window": None, "parallel_interleave": 0}
#: methods only tf.data datasets have; a receiver chain containing one is a dataset
DATASET_ONLY_METHODS = frozenset({"batch", "padded_batch", "shuffle", "prefetch", "unbatch", "cache",
                                  "from_tensor_slices", "from_tensors", "from_generator", "list_files",
                                  "repeat", "take", "skip", "shard", "with_options", "rebatch",
                                  "ragged_batch", "bucket_by_sequence_length", "map_with_legacy_function"})

_KERAS_PREFIXES = ("tensorflow.keras.", "tensorflow.python.keras.", "tf_keras.", "keras.")


def canonical(qname: str) -> str:
    """Map the many spellings of Keras to ``keras.*`` so rules test one name, and
    ``tensorflow.compat.v2.*`` (the TF 2 API under its compat name) to ``tensorflow.*``."""
    if qname.startswith("tensorflow.compat.v2."):
        qname = "tensorflow." + qname[len("tensorflow.compat.v2."):]
    for p in _KERAS_PREFIXES:
        if qname.startswith(p):
            return "keras." + qname[len(p):]
    return qname



def dotted_name(expr: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while type(expr) is cst.Attribute:  # not isinstance: see _Builder._child_ctx
        parts.append(expr.attr.value)  # type: ignore[attr-defined]
        expr = expr.value  # type: ignore[attr-defined]
    if type(expr) is cst.Name:
        parts.append(expr.value)
        return ".".join(reversed(parts))
    return None


def scalar_literal(expr: cst.BaseExpression) -> str | None:
    """The source text of a number or string literal (``3``, ``-0.5``, ``'relu'``), else
    None: what a Python scalar argument that is the same on every call looks like."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return expr.value
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and \
            isinstance(expr.expression, (cst.Integer, cst.Float)):
        return "-" + expr.expression.value
    return None


def is_python_literal(expr: cst.BaseExpression) -> bool:
    """A number, string, ``True``/``False``/``None``, or a tuple/list/set/dict display
    of those: a Python value, never a tensor."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString,
                         cst.ConcatenatedString, cst.FormattedString)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in ("True", "False", "None")
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, (cst.Minus, cst.Plus)) and is_python_literal(expr.expression)
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
        return all(isinstance(e, cst.Element) and is_python_literal(e.value) for e in expr.elements)
    if isinstance(expr, cst.Dict):
        return all(isinstance(e, cst.DictElement) and is_python_literal(e.key) and is_python_literal(e.value)
                   for e in expr.elements)
    return False


def target_names(t: cst.BaseExpression) -> Iterator[str]:
    """Names bound by an assignment or loop target (``a``, ``a, (b, *c)``)."""
    if isinstance(t, cst.Name):
        yield t.value
    elif isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:
            yield from target_names(e.value)
    elif isinstance(t, cst.StarredElement):
        yield from target_names(t.value)




def _subexpressions(e: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``e`` and every node below it (for small expressions only)."""
    from tflint.semantic.syntax import child_nodes

    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(child_nodes(n))


def _strip_int(e: cst.BaseExpression) -> cst.BaseExpression:
    """``int(t)`` inside ``range(...)``: AutoGraph still converts the loop."""
    if isinstance(e, cst.Call) and dotted_name(e.func) == "int" and e.args:
        return e.args[0].value
    return e


def is_container_value(v: cst.BaseExpression) -> bool:
    if isinstance(v, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
        return True
    if isinstance(v, cst.Call):
        d = dotted_name(v.func) or ""
        return d in ("list", "dict", "set", "collections.defaultdict", "defaultdict", "collections.OrderedDict",
                     "OrderedDict", "collections.deque", "deque", "collections.Counter", "Counter")
    return False


def is_first_call_test(test: cst.BaseExpression) -> bool:
    """Tests that make a block run once: ``x is None``, ``not x``, ``not hasattr(...)``,
    ``key not in cache``, ``not self.built``, and conjunctions containing one."""
    if isinstance(test, cst.BooleanOperation):
        return is_first_call_test(test.left) or is_first_call_test(test.right)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = test.expression
        return isinstance(inner, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
    if isinstance(test, cst.Comparison):
        for c in test.comparisons:
            if isinstance(c.operator, (cst.Is, cst.Equal)) and isinstance(c.comparator, cst.Name) and \
                    c.comparator.value in ("None", "False"):
                return True
            if isinstance(c.operator, cst.NotIn):
                return True
        return False
    if isinstance(test, cst.Call):
        d = dotted_name(test.func) or ""
        return d.endswith(("is_first_call", "first_call")) or d == "getattr"
    return False



#: words that say a variable records tracing itself
_TRACE_WORDS = frozenset({"trace", "traces", "traced", "tracing", "tracings", "retrace", "retraces", "retraced",
                          "retracing"})
_NAME_WORDS = re.compile(r"_+|(?<=[a-z0-9])(?=[A-Z])")


def names_tracing(name: str) -> bool:
    """Whether a variable's name says it records tracing itself (``num_traces``,
    ``trace_count``, ``self.tracing_log``, ``retraceCount``): it is updated once per
    trace on purpose (the TensorFlow guides count traces so), not once per call."""
    return any(w.lower() in _TRACE_WORDS for w in _NAME_WORDS.split(name))
