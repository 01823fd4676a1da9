"""Retrace budgets for tests: fail when a tf.function traces more often than allowed.

    from tflint.testing import max_traces

    def test_step_traces_once():
        with max_traces(train_step, limit=1):
            for batch in batches:
                train_step(batch)

    with max_traces(step=1, loss=2): ...      # by function name
    with max_traces(limit=1): ...             # every tf.function called inside

or, with the pytest plugin, ``@pytest.mark.tflint_max_traces(train_step=1)``.

Each trace beyond the budget is explained against the *closest* earlier trace, argument by
argument (every changed argument, the dict key or dataclass field, Python scalar versus
tensor, a new object, shape and dtype), with whether ``reduce_retracing`` is already on and
the ``input_signature`` that would stop the retracing. TensorFlow is imported only when a
budget is entered, so importing this module is cheap.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

__all__ = ["TraceBudgetExceeded", "Trace", "max_traces"]


class TraceBudgetExceeded(AssertionError):
    """A tf.function traced more often than its budget allows."""


@dataclass
class Trace:
    """One trace made inside the budget: which function, with what arguments."""

    name: str
    signature: dict[str, Any]
    reduce_retracing: bool
    has_input_signature: bool
    #: the arguments themselves, kept alive so that object identities stay unique
    arguments: Any = field(default=None, repr=False)


@dataclass
class _Tracked:
    name: str
    py_function: Any
    instance: Any
    traces: list[Trace] = field(default_factory=list)


def _unwrap(fn: Any) -> tuple[Any, Any]:
    from tflint.verify.state import unwrap_function

    return unwrap_function(fn)


def _name_of(py_function: Any) -> str:
    return str(getattr(py_function, "__qualname__", None) or getattr(py_function, "__name__", "?"))


class max_traces:  # noqa: N801  (used like a function: ``with max_traces(...)``)
    """Context manager (and the engine of the pytest marker); see the module docstring.

    ``max_traces(f, g, limit=1)``: at most ``limit`` traces of each function given;
    ``max_traces(step=1)``: by name (the function's ``__name__`` or the end of its
    ``__qualname__``, e.g. ``Model.train_step`` or ``train_step``); ``max_traces(limit=1)``
    or ``max_traces(1)``: every tf.function called inside. Only traces made inside the
    block count.
    """

    def __init__(self, *functions: Any, limit: int | None = None, **by_name: int) -> None:
        if functions and isinstance(functions[0], int) and not isinstance(functions[0], bool):
            limit, functions = functions[0], functions[1:]
        if (functions or not by_name) and limit is None:
            limit = 1
        for name, n in by_name.items():
            if not isinstance(n, int) or n < 1:
                raise ValueError(f"max_traces: the budget of {name!r} must be an int >= 1")
        if limit is not None and limit < 1:
            raise ValueError("max_traces: limit must be >= 1")
        self.limit = limit
        self.by_name = dict(by_name)
        self._targets = [_unwrap(f) for f in functions]
        self._all = not functions and not by_name
        self.tracked: dict[tuple[int, int], _Tracked] = {}
        self._original: Any = None
        self._pf: Any = None

    # -- which functions count, and their budget
    def _budget(self, instance: Any, py: Any) -> int | None:
        for inst, target in self._targets:
            if target is py and (inst is None or inst is instance):
                return self.limit
        qual = _name_of(py)
        for name, n in self.by_name.items():
            if name == qual or qual.endswith("." + name) or name == getattr(py, "__name__", ""):
                return n
        if self._all:
            module = (getattr(py, "__module__", "") or "").split(".")[0]
            if module not in ("tensorflow", "keras", "tf_keras"):
                return self.limit
        return None

    def __enter__(self) -> max_traces:
        from tensorflow.python.eager.polymorphic_function import polymorphic_function as pf

        from tflint.verify import retrace

        self._pf = pf
        original = pf.Function.__call__
        self._original = original
        budget = self

        @functools.wraps(original)
        def __call__(fn_self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                before = fn_self.experimental_get_tracing_count()
            except Exception:
                before = None
            result = original(fn_self, *args, **kwargs)
            try:
                if before is not None and fn_self.experimental_get_tracing_count() > before:
                    instance, py = _unwrap(fn_self)
                    if budget._budget(instance, py) is not None:
                        key = (id(py), id(instance))
                        tracked = budget.tracked.setdefault(
                            key, _Tracked(_name_of(py), py, instance))
                        tracked.traces.append(Trace(
                            tracked.name, retrace.signature(py, instance, args, kwargs),
                            retrace.reduce_retracing_on(fn_self),
                            getattr(fn_self, "input_signature", None) is not None,
                            (args, kwargs)))
            except Exception:  # bookkeeping must never break the code under test
                pass
            return result

        pf.Function.__call__ = __call__
        return self

    def stop(self) -> None:
        """Stop recording (put TensorFlow's ``Function.__call__`` back)."""
        if self._pf is not None:
            self._pf.Function.__call__ = self._original
            self._pf = None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
        if exc_type is not None:
            return  # the block failed on its own: that is the failure to report
        over = self.report()
        if over:
            raise TraceBudgetExceeded(over)

    def traces(self, fn_or_name: Any) -> list[Trace]:
        """The traces recorded for one function (object or name)."""
        if isinstance(fn_or_name, str):
            return [t for tr in self.tracked.values() for t in tr.traces
                    if tr.name == fn_or_name or tr.name.endswith("." + fn_or_name)]
        inst, py = _unwrap(fn_or_name)
        return [t for tr in self.tracked.values() for t in tr.traces
                if tr.py_function is py and (inst is None or tr.instance is inst)]

    def report(self) -> str:
        """The failure message: every function over budget, every extra trace explained."""
        from tflint.verify import retrace

        blocks = []
        for tr in self.tracked.values():
            budget = self._budget(tr.instance, tr.py_function)
            if budget is None or len(tr.traces) <= budget:
                continue
            lines = [f"`{tr.name}` traced {len(tr.traces)} times (budget {budget}):"]
            sigs = [t.signature for t in tr.traces]
            for i in range(1, len(sigs)):
                closest, changes = retrace.explain(sigs[:i], sigs[i],
                                                   tr.traces[i].reduce_retracing)
                lines.append(f"  trace {i + 1}, against trace {closest + 1}:")
                for c in changes:
                    lines.append(f"    {c.path}: {c.change}")
                    lines.append(f"      fix: {c.fix}")
            suggestion = retrace.suggest_signature(sigs)
            if suggestion and not tr.traces[-1].has_input_signature:
                lines.append(f"  {suggestion} would trace once for all of these calls")
            blocks.append("\n".join(lines))
        return ("tflint: retrace budget exceeded\n" + "\n".join(blocks)) if blocks else ""
