"""The result types every front-end converts at its own edge. No libcst import here."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Severity(str, enum.Enum):
    """How bad a finding is (tflint/codes.toml): error = TensorFlow rejects it at trace time,
    warning = silently wrong results, perf = retracing or graph blow-up,
    info = worth knowing, often intended."""

    ERROR = "error"
    WARNING = "warning"
    PERF = "perf"
    INFO = "info"


class Applicability(str, enum.Enum):
    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class Edit:
    """Replace the text between two 1-based line / 0-based column positions."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str
    #: in a notebook, the cell (1-based, among all cells) the positions are in
    cell: int | None = None


@dataclass(frozen=True)
class Fix:
    title: str
    applicability: Applicability
    edits: tuple[Edit, ...] = ()


@dataclass(frozen=True)
class Diagnostic:
    """One finding. ``line`` is 1-based, ``column`` 0-based in characters (as flake8's
    plugin API wants it); text, JSON, SARIF and GitHub output add 1 to the column.
    In a notebook, ``cell`` says which cell the position is in."""

    code: str
    name: str
    message: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    severity: Severity
    fix: Fix | None = field(default=None, compare=False)
    #: in a notebook, the cell (1-based, among all cells); line and column are then
    #: positions in that cell
    cell: int | None = None

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.line, self.column, self.code)
