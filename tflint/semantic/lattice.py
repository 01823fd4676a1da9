"""The abstract values of the value model: what an expression can be while a function is
traced, as a small lattice.

A :class:`Value` is a set of possible :class:`Kind` s (the join of two values is the union),
plus what is known beyond the kind: the Python constant, the kind of TensorFlow state
object, and for a value that varies, the chain that makes it vary, for messages. The top of
the lattice, :data:`UNKNOWN`, is what the model answers when it cannot tell; a default-on
rule never reports a value that is unknown.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Kind(enum.Flag):
    #: a Python value that is the same on every call (a literal, a module constant)
    CONST = enum.auto()
    #: a Python value that changes per call or per loop iteration (an epoch, a step)
    VARYING = enum.auto()
    #: a symbolic tensor while tracing (an op result, a graph input)
    TENSOR = enum.auto()
    #: a TensorFlow state object: tf.Variable, tf.Module / Keras layer or model,
    #: tf.data.Dataset or its iterator, tf.random.Generator, TensorArray
    STATE = enum.auto()
    #: any other Python object (a list, a dict, a NumPy array, a function, a module)
    OBJECT = enum.auto()


PYTHON = Kind.CONST | Kind.VARYING | Kind.OBJECT
ALL = Kind.CONST | Kind.VARYING | Kind.TENSOR | Kind.STATE | Kind.OBJECT

_NO_CONST = object()


@dataclass(frozen=True)
class Value:
    kind: Kind
    #: the Python constant, where known (``kind`` is CONST)
    const: object = _NO_CONST
    #: for STATE: "variable", "layer", "dataset", "iterator", "generator", "tensorarray"
    state: str | None = None
    #: for VARYING: what makes it vary ("from the loop variable `epoch`")
    why: str | None = None
    #: for VARYING: how many values it takes, where known (``range(3)``: 3)
    count: int | None = None
    #: may be a NumPy scalar or array (``np.exp(-epoch)``): tf.function turns those into
    #: tensors, so one of them passed as an argument does not retrace per value
    numpy: bool = False

    @property
    def unknown(self) -> bool:
        return self.kind == ALL

    @property
    def is_python(self) -> bool:
        """Surely a plain Python value (never a tensor or TensorFlow state)."""
        return bool(self.kind) and not (self.kind & ~PYTHON)

    @property
    def may_be_tensor(self) -> bool:
        return bool(self.kind & Kind.TENSOR)

    @property
    def is_tensor(self) -> bool:
        return self.kind == Kind.TENSOR

    @property
    def varies(self) -> bool:
        """A Python value known to change per call or per iteration: it says why. (A
        Python value of which nothing more is known has the VARYING bit, but no why.)"""
        return self.is_python and bool(self.kind & Kind.VARYING) and self.why is not None

    @property
    def retraces_per_value(self) -> bool:
        """A Python value known to vary that tf.function keys its graphs on when it is
        passed as an argument: one that varies and is not a NumPy value (checked on
        TensorFlow 2.21: ``f(x, np.exp(-epoch))`` traces once, ``f(x, float(...))`` once
        per value)."""
        return self.varies and not self.numpy

    @property
    def has_const(self) -> bool:
        return self.const is not _NO_CONST

    def join(self, other: "Value") -> "Value":
        if self == other:
            return self
        kind = self.kind | other.kind
        const = self.const if self.const == other.const and self.has_const else _NO_CONST
        state = self.state if self.state == other.state else None
        return Value(kind, const, state, self.why or other.why, _joined_count(self, other),
                     self.numpy or other.numpy)


def _joined_count(a: Value, b: Value) -> int | None:
    """How many values the join of two values takes, where known: a constant is one value
    (``res = 4`` before a loop that sets ``res = 2 ** (i + 3)`` for 3 values of ``i``: 4
    values in all)."""
    def n(v: Value) -> int | None:
        return v.count if v.count is not None else 1 if v.kind == Kind.CONST else None
    if a.count is None and b.count is None:
        return None
    na, nb = n(a), n(b)
    return na + nb if na is not None and nb is not None else None


UNKNOWN = Value(ALL)
TENSOR = Value(Kind.TENSOR)
OBJECT = Value(Kind.OBJECT)
CONST = Value(Kind.CONST)


def const(v: object) -> Value:
    return Value(Kind.CONST, v)


def state(what: str) -> Value:
    return Value(Kind.STATE, state=what)


def varying(why: str) -> Value:
    return Value(Kind.VARYING, why=why)


def join_all(values: "list[Value]") -> Value:
    if not values:
        return UNKNOWN
    out = values[0]
    for v in values[1:]:
        out = out.join(v)
    return out
