"""Result types of the verifier, shared by the CLI, the pytest plugin and the reports.

They are plain dataclasses that round-trip through JSON because results cross a process
boundary: the child process that runs user code writes them, the parent reads them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: every status a verified function can end with (the ``status`` field of ``--report-json``)
STATUSES = ("ok", "divergent", "nondeterministic", "skipped", "error", "timeout")

#: kinds of divergence, in the order the summary prefers to show them
DIVERGENCE_KINDS = ("return", "exception", "variable", "state", "leak", "output", "device")


@dataclass
class Divergence:
    """One observable that differs between eager and graph (or between two devices).

    ``eager`` and ``graph`` are short displays of the two values; for ``kind == "device"``
    they hold the values on ``device`` and ``other_device`` (both graph mode).
    """

    kind: str
    path: str
    example: int
    call: int
    eager: str
    graph: str
    detail: str = ""
    device: str | None = None
    other_device: str | None = None
    #: the value of ``path`` at every call of the example, eager and graph side by side
    calls: list[dict[str, Any]] = field(default_factory=list)
    #: full exception text (``kind == "exception"``), never truncated
    eager_full: str = ""
    graph_full: str = ""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Divergence:
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


@dataclass
class Retrace:
    """A trace after the first one, and what about the call made TensorFlow trace again."""

    call: int
    example: int
    argument: str
    change: str
    fix: str
    #: every changed argument against the closest earlier trace: path, change, fix
    changes: list[dict[str, str]] = field(default_factory=list)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Retrace:
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


@dataclass
class TraceInfo:
    """Tracing during the recorded graph calls (first device only)."""

    count: int = 0
    retraces: list[Retrace] = field(default_factory=list)
    warnings: int = 0
    graph_nodes: int | None = None
    reduce_retracing: bool = False
    suggested_signature: str | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> TraceInfo:
        d = d or {}
        return cls(
            count=int(d.get("count", 0)),
            retraces=[Retrace.from_dict(r) for r in d.get("retraces", [])],
            warnings=int(d.get("warnings", 0)),
            graph_nodes=d.get("graph_nodes"),
            reduce_retracing=bool(d.get("reduce_retracing", False)),
            suggested_signature=d.get("suggested_signature"),
        )


@dataclass
class FunctionResult:
    """The verdict for one function (or for a whole target that could not be run)."""

    name: str
    file: str
    line: int
    status: str
    end_line: int | None = None
    target: str = ""
    reason: str = ""
    inputs: str = ""
    examples: int = 0
    calls: int = 0
    devices: list[str] = field(default_factory=list)
    divergences: list[Divergence] = field(default_factory=list)
    nondeterministic: list[str] = field(default_factory=list)
    traces: TraceInfo = field(default_factory=TraceInfo)
    static_rules: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    #: the inputs tried, one label per example
    tried: list[str] = field(default_factory=list)
    #: array elements (or whole values) that follow TensorFlow's seed: random by design,
    #: left out of the comparison; not a "nondeterministic" label
    random_by_design: list[str] = field(default_factory=list)
    #: static rules flag the function but no divergence was found
    not_proven: bool = False
    #: the full text of the exception behind an ``error`` status
    exception_text: str = ""
    #: user helpers the function calls (name, file, line, end_line): their static findings
    #: explain a divergence too
    related: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FunctionResult:
        return cls(
            name=d["name"],
            file=d.get("file", ""),
            line=int(d.get("line", 0) or 0),
            status=d["status"],
            end_line=d.get("end_line"),
            target=d.get("target", ""),
            reason=d.get("reason", ""),
            inputs=d.get("inputs", ""),
            examples=int(d.get("examples", 0)),
            calls=int(d.get("calls", 0)),
            devices=list(d.get("devices", [])),
            divergences=[Divergence.from_dict(x) for x in d.get("divergences", [])],
            nondeterministic=list(d.get("nondeterministic", [])),
            traces=TraceInfo.from_dict(d.get("traces")),
            static_rules=list(d.get("static_rules", [])),
            hints=list(d.get("hints", [])),
            tried=list(d.get("tried", [])),
            random_by_design=list(d.get("random_by_design", [])),
            not_proven=bool(d.get("not_proven", False)),
            exception_text=d.get("exception_text", ""),
            related=list(d.get("related", [])),
        )


def exit_code(results: list[FunctionResult]) -> int:
    """0 when nothing is wrong, 1 when a function diverges or could not be verified.

    ``error`` and ``timeout`` count as failures: a CI job whose verifier crashed on user code
    has not shown that the code is safe. ``skipped`` and ``nondeterministic`` do not.
    """
    bad = {"divergent", "error", "timeout"}
    return 1 if any(r.status in bad for r in results) else 0


def take_debug_mode_eager(rec: dict[str, Any], other: dict[str, Any]) -> None:
    """Replace ``rec``'s eager runs with those of ``other``, the same function recorded
    in a process under ``tf.data.experimental.enable_debug_mode()``."""
    for ex, ex_dbg in zip(rec["examples"], other["examples"]):
        for mode in ("eager", "eager2", "eager_reseed"):
            if mode in ex_dbg["modes"]:
                ex["modes"][mode] = ex_dbg["modes"][mode]
    rec.setdefault("hints", []).append(
        "eager mode ran with tf.data.experimental.enable_debug_mode() in its own process")
