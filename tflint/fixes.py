"""Autofix plumbing: what a rule attaches to a report, and how it becomes text edits.

A rule describes a fix in libcst terms (:class:`NodeFix`: replace this node by that node,
insert text before a node, add ``import tensorflow as tf``). The engine turns it into a
plain :class:`tflint.diagnostics.Fix` (positions and text, no libcst) only for findings
it reports, with the positions it computes for the report anyway. ``fix_source`` in the
engine applies those text edits.

Helpers here answer the questions fix builders share: under which name can this module
reach TensorFlow (``tf``, ``tensorflow``, or nothing yet), and where does a new import go.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import libcst as cst

from tflint.diagnostics import Applicability, Edit, Fix

if TYPE_CHECKING:  # pragma: no cover
    from tflint.semantic import Ctx, SemanticModel

#: qualified names of a module alias that give ``alias.print``, ``alias.random`` ...
_TF_MODULES = frozenset({"tensorflow", "tensorflow.compat.v2"})
DEFAULT_TF_ALIAS = "tf"


@dataclass(frozen=True, eq=False)
class NodeEdit:
    """Replace ``node`` (its position range, as reports use) by ``replacement``: a node,
    rendered with the file's own newline, or source text. ``before=True`` inserts the
    text in front of the node instead of replacing it."""

    node: cst.CSTNode
    replacement: cst.CSTNode | str
    before: bool = False


@dataclass(frozen=True, eq=False)
class NodeFix:
    title: str
    safe: bool
    edits: tuple[NodeEdit, ...]
    #: import statements the fix needs (e.g. ``import tensorflow as tf``), added once
    imports: tuple[str, ...] = ()


def _strip_parens(node: cst.CSTNode) -> cst.CSTNode:
    """Positions of an expression exclude its own parentheses, the code includes them."""
    if getattr(node, "lpar", None) or getattr(node, "rpar", None):
        return node.with_changes(lpar=[], rpar=[])
    return node


def resolve(fix: NodeFix, sem: "SemanticModel") -> Fix:
    """The text edits of ``fix`` in ``sem``'s file."""
    module = sem.module
    edits: list[Edit] = []
    for e in fix.edits:
        rng = sem.position(e.node)
        text = e.replacement if isinstance(e.replacement, str) else module.code_for_node(_strip_parens(e.replacement))
        if e.before:
            edits.append(Edit(rng.start.line, rng.start.column, rng.start.line, rng.start.column, text))
        else:
            edits.append(Edit(rng.start.line, rng.start.column, rng.end.line, rng.end.column, text))
    for stmt in fix.imports:
        edits.append(import_edit(sem, stmt))
    return Fix(fix.title, Applicability.SAFE if fix.safe else Applicability.UNSAFE, tuple(edits))


def import_edit(sem: "SemanticModel", stmt: str) -> Edit:
    """Insert ``stmt`` on its own line after the module's leading imports (or after the
    docstring and ``__future__`` imports when there are none)."""
    module = sem.module
    nl = module.default_newline
    after: cst.CSTNode | None = None
    for i, s in enumerate(module.body):
        if not isinstance(s, cst.SimpleStatementLine):
            break
        if all(isinstance(b, (cst.Import, cst.ImportFrom)) for b in s.body):
            after = s
        elif i == 0 and len(s.body) == 1 and isinstance(s.body[0], cst.Expr) \
                and isinstance(s.body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
            after = s  # the module docstring
        else:
            break
    if after is None:
        return Edit(1, 0, 1, 0, stmt + nl)
    line = sem.position(after).end.line + 1  # the start of the next line
    return Edit(line, 0, line, 0, stmt + nl)


def _module_imports(module: cst.Module) -> dict[str, str]:
    """Top-level ``import X`` / ``import X as Y``: local name -> module name."""
    out: dict[str, str] = {}
    for s in module.body:
        if isinstance(s, cst.SimpleStatementLine):
            for b in s.body:
                if isinstance(b, cst.Import):
                    for a in b.names:
                        full = cst.Module(body=[]).code_for_node(a.name)
                        if a.asname is not None and isinstance(a.asname.name, cst.Name):
                            out[a.asname.name.value] = full
                        elif "." not in full:
                            out[full] = full
    return out


def _name_taken(sem: "SemanticModel", name: str, ctx: "Ctx | None") -> bool:
    if name in sem.imports or name in sem.module_assigns or name in sem.module_functions or name in sem.classes:
        return True
    fn = ctx.fn if ctx is not None else None
    if fn is not None and any(name in f.bound or name in f.param_names for f in fn.scope_chain()):
        return True
    return _name_token_used(sem, name)


def _name_token_used(sem: "SemanticModel", name: str) -> bool:
    """Is ``name`` used as a name anywhere in the file (a binding the model does not
    track, or a free name)? Comments and strings do not count. Cached per file."""
    cache: dict[str, bool] = sem.__dict__.setdefault("_fix_names_used", {})
    if name not in cache:
        code = sem.module.code
        used = False
        if re.search(rf"\b{re.escape(name)}\b", code):
            try:
                toks = tokenize.generate_tokens(io.StringIO(code).readline)
                used = any(t.type == tokenize.NAME and t.string == name for t in toks)
            except (tokenize.TokenError, SyntaxError):
                used = True
        cache[name] = used
    return cache[name]


def tensorflow_module(sem: "SemanticModel", ctx: "Ctx | None") -> tuple[str, tuple[str, ...]] | None:
    """``(alias, imports to add)`` to spell ``alias.print`` etc. at ``ctx``: the module's
    own top-level alias of TensorFlow, else ``tf`` with ``import tensorflow as tf`` (when
    the name ``tf`` is free). None when neither works."""
    fn = ctx.fn if ctx is not None else None
    for local, full in _module_imports(sem.module).items():
        if full in _TF_MODULES and sem.imports.get(local) == {full}:
            if fn is not None and any(local in f.bound or local in f.param_names for f in fn.scope_chain()):
                continue
            return local, ()
    if _name_taken(sem, DEFAULT_TF_ALIAS, ctx):
        return None
    return DEFAULT_TF_ALIAS, (f"import tensorflow as {DEFAULT_TF_ALIAS}",)


def attr(dotted: str) -> cst.BaseExpression:
    """``a.b.c`` as a Name/Attribute chain."""
    parts = dotted.split(".")
    expr: cst.BaseExpression = cst.Name(parts[0])
    for p in parts[1:]:
        expr = cst.Attribute(value=expr, attr=cst.Name(p))
    return expr


def call(func: str, args: Sequence[cst.Arg]) -> cst.Call:
    return cst.Call(func=attr(func), args=_commas(list(args)))


def _commas(args: list[cst.Arg]) -> list[cst.Arg]:
    """Normal ``, `` separators between arguments we build (keeps none after the last)."""
    out = []
    for i, a in enumerate(args):
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < len(args) - 1 else cst.MaybeSentinel.DEFAULT
        out.append(a.with_changes(comma=comma))
    return out


def kwarg(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(value=value, keyword=cst.Name(name),
                   equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                         whitespace_after=cst.SimpleWhitespace("")))


def bind_args(node: cst.Call, params: Sequence[str]) -> dict[str, cst.BaseExpression] | None:
    """Map a call's arguments to ``params`` by position and keyword; None when the call
    uses ``*``/``**``, unknown keywords, too many positionals or a name twice."""
    out: dict[str, cst.BaseExpression] = {}
    pos = 0
    for a in node.args:
        if a.star:
            return None
        if a.keyword is None:
            if pos >= len(params):
                return None
            name = params[pos]
            pos += 1
        else:
            name = a.keyword.value
            if name not in params:
                return None
        if name in out:
            return None
        out[name] = a.value
    return out


def shape_expr(size: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """NumPy's ``size`` argument as a TF shape: None -> ``[]``, an integer literal ``n``
    -> ``[n]``, a tuple or list display -> a list of the same elements. None for
    anything else (a name may hold an int or a tuple: no guess)."""
    if size is None or (isinstance(size, cst.Name) and size.value == "None"):
        return cst.List([])
    if isinstance(size, (cst.Tuple, cst.List)) and all(isinstance(e, cst.Element) for e in size.elements):
        return cst.List(_elem_commas([cst.Element(e.value) for e in size.elements]))
    if isinstance(size, cst.Integer):
        return cst.List([cst.Element(size)])
    return None


def _elem_commas(elems: list[cst.Element]) -> list[cst.Element]:
    out = []
    for i, e in enumerate(elems):
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < len(elems) - 1 else cst.MaybeSentinel.DEFAULT
        out.append(e.with_changes(comma=comma))
    return out
