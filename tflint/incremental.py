"""Parsing a file that is edited again and again (the language server) without parsing
all of it each time.

An edit in an editor changes one top-level statement (a function, a class); the others
are the same text as before. :class:`IncrementalParser` cuts the source at the first line
of each top-level statement (CPython's ``ast``, ten times cheaper than libcst, finds
them), parses each piece that it has not seen before with libcst, and joins the pieces'
statements into one module. The comments and blank lines between two statements, which
the piece before them holds at its end, become the leading lines of the next statement,
as a parse of the whole file would have them.

The joined module is checked before it is used: its code must be the source, character
for character (positions are computed from that code). Anything else (a piece that
does not parse on its own, indentation that differs between pieces, a source that
CPython cannot parse, line endings other than ``\\n`` and ``\\r\\n``) falls back to one
parse of the whole source, which is what the engine always does without this.
"""

from __future__ import annotations

import ast
import re
from collections import OrderedDict

import libcst as cst

_LINE = re.compile(r"[^\n]*\n|[^\n]+$")


class IncrementalParser:
    """A ``parse_module`` that keeps the pieces it parsed (at most ``max_pieces``, least
    recently used dropped first). Not thread-safe: one per worker."""

    def __init__(self, max_pieces: int = 4000) -> None:
        self._pieces: OrderedDict[str, cst.Module] = OrderedDict()
        self.max_pieces = max_pieces
        #: how many parses were joined from pieces, and how many fell back to a whole parse
        self.joined = 0
        self.whole = 0

    def __call__(self, text: str) -> cst.Module:
        module = self._join(text)
        if module is None:
            self.whole += 1
            return cst.parse_module(text)
        self.joined += 1
        return module

    def _join(self, text: str) -> cst.Module | None:
        if "\r" in text.replace("\r\n", "") or "\x0c" in text:
            return None  # lone CRs and form feeds: CPython and libcst count their lines apart
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return None
        starts = []
        for top in tree.body:
            first = top.lineno
            for d in getattr(top, "decorator_list", ()):
                first = min(first, d.lineno)
            starts.append(first)
        if len(starts) < 2 or starts != sorted(set(starts)):
            return None  # one statement, or two on one line (`a = 1; b = 2`)
        offsets = [0]
        for m in _LINE.finditer(text):
            offsets.append(m.end())
        cuts = [0] + [offsets[s - 1] for s in starts[1:]] + [len(text)]
        body: list[cst.BaseStatement] = []
        first_module: cst.Module | None = None
        pending: list[cst.EmptyLine] = []
        last: cst.Module | None = None
        pieces: list[cst.Module] = []
        for a, b in zip(cuts, cuts[1:]):
            piece = self._piece(text[a:b])
            if piece is None or len(piece.body) != 1:
                return None
            pieces.append(piece)
            node = piece.body[0]
            if first_module is None:
                first_module = piece
            elif pending or piece.header:
                node = node.with_changes(leading_lines=[*pending, *piece.header, *node.leading_lines])
            body.append(node)
            pending = list(piece.footer)
            last = piece
        assert first_module is not None and last is not None
        # libcst takes the default indentation from the first indented block of the file
        indent = next((p.default_indent for p in pieces if _opens_block(p.body[0])), first_module.default_indent)
        if any(p.default_newline != first_module.default_newline or
               _opens_block(p.body[0]) and p.default_indent != indent for p in pieces):
            return None  # pieces that read their own defaults differently: a whole parse
        module = first_module.with_changes(body=body, footer=pending, has_trailing_newline=last.has_trailing_newline,
                                           default_indent=indent)
        if module.code != text:
            return None
        return module

    def _piece(self, chunk: str) -> cst.Module | None:
        got = self._pieces.get(chunk)
        if got is not None:
            self._pieces.move_to_end(chunk)
            return got
        try:
            got = cst.parse_module(chunk)
        except Exception:  # a piece that does not parse alone: the whole file is parsed
            return None
        self._pieces[chunk] = got
        if len(self._pieces) > self.max_pieces:
            self._pieces.popitem(last=False)
        return got


def _opens_block(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.BaseCompoundStatement) and isinstance(stmt.body, cst.IndentedBlock)
