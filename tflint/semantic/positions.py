"""Source ranges of a few nodes, without computing them for every node of the file.

libcst's ``PositionProvider`` generates the module's code once and records a
``CodeRange`` for each of its tens of thousands of nodes (a context manager per
parenthesizable expression, two objects per node): for a file with a handful of findings
that is three times the cost of generating the code. Here the code is generated with a
state that counts characters and stops only at the nodes asked for; offsets become
lines and columns at the end. The ranges are the provider's own (syntactic: the node's
own text, without the whitespace and parentheses it owns), which the tests check on the
corpus's files.
"""

from __future__ import annotations

import bisect
import re
from contextlib import contextmanager, nullcontext
from typing import Iterable, Iterator, Optional

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst._position import CodePosition, CodeRange

_NEWLINE = re.compile(r"\r\n?|\n")
_NULL = nullcontext()


class _OffsetState(CodegenState):
    """Code generation that keeps the character offset, and the start and end offsets of
    the nodes in ``wanted`` (ids) and of the children their syntactic range comes from."""

    def __init__(self, module: cst.Module, wanted: set[int]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.offset = 0
        self.wanted = wanted
        self.inclusive: dict[int, tuple[int, int]] = {}
        self.syntactic: dict[int, tuple[int, int]] = {}
        self._starts: dict[int, int] = {}
        self.popped = ""

    def add_indent_tokens(self) -> None:
        self.tokens.extend(self.indent_tokens)
        for t in self.indent_tokens:
            self.offset += len(t)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self.offset += len(value)

    def pop_trailing_newline(self) -> None:
        # the offsets already count it: keep it for turning them into lines
        if self.tokens:
            self.popped = self.tokens.pop()

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.wanted:
            self._starts[id(node)] = self.offset

    def after_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.wanted and key not in self.inclusive:
            self.inclusive[key] = (self._starts.pop(key, self.offset), self.offset)

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                  end_node: Optional[cst.CSTNode] = None):  # type: ignore[override]
        if id(node) not in self.wanted:
            return _NULL
        return self._record(node, start_node, end_node)

    @contextmanager
    def _record(self, node: cst.CSTNode, start_node: Optional[cst.CSTNode],
                end_node: Optional[cst.CSTNode]) -> Iterator[None]:
        # the children the range is hoisted from are generated inside: want them too
        for child in (start_node, end_node):
            if child is not None:
                self.wanted.add(id(child))
        start = self.offset
        try:
            yield
        finally:
            end = self.offset
            if start_node is not None:
                start = self._range(start_node)[0]
            if end_node is not None:
                end = self._range(end_node)[1]
            self.syntactic[id(node)] = (start, end)

    def _range(self, node: cst.CSTNode) -> tuple[int, int]:
        got = self.syntactic.get(id(node)) or self.inclusive.get(id(node))
        if got is None:  # not generated yet: cannot happen for a child generated inside
            return (self.offset, self.offset)
        return got


def positions_of(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, CodeRange]:
    """id(node) -> the range ``PositionProvider`` gives, for each of ``nodes`` that is in
    ``module`` (others are left out)."""
    wanted = {id(n) for n in nodes}
    if not wanted:
        return {}
    state = _OffsetState(module, set(wanted))
    module._codegen(state)
    text = "".join(state.tokens) + state.popped
    line_starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def at(offset: int) -> CodePosition:
        i = bisect.bisect_right(line_starts, offset) - 1
        return CodePosition(i + 1, offset - line_starts[i])

    out: dict[int, CodeRange] = {}
    for key in wanted:
        got = state.syntactic.get(key) or state.inclusive.get(key)
        if got is not None:
            out[key] = CodeRange(at(got[0]), at(got[1]))
    return out
