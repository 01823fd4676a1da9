"""Small walks over libcst subtrees that rules and the model share: names bound or read
in a block, and source text of a node. They run on candidates only, never on a whole file."""

from __future__ import annotations

import dataclasses
from typing import Iterator

import libcst as cst

from tflint.semantic.names import dotted_name, target_names

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)

#: the source text of a node
code = cst.Module(body=[]).code_for_node


# -- child nodes without libcst's ``children``, which visits the node to collect them
# (and was a tenth of the analysis): the dataclass fields that hold nodes, in source
# order, leaving out whitespace, commas, brackets and operators (no rule looks at those)

_SKIP_FIELD_PARTS = ("whitespace", "lpar", "rpar", "comma", "semicolon", "colon", "equal", "star",
                     "lbracket", "rbracket", "lbrace", "rbrace", "header", "footer", "leading_lines",
                     "lines_after_decorators", "operator", "asynchronous", "newline", "dot",
                     "first_line", "empty_lines", "default_indent", "default_newline", "encoding")
_FIELDS: dict[type, tuple[str, ...]] = {}
#: field types that never hold a node (``Name.value`` is a str): a Name has no children
_PLAIN_TYPES = (str, bool, int)
_IS_NODE: dict[type, bool] = {}
_IS_SCOPE: dict[type, bool] = {}

# fields in the order they appear in the source, where the dataclass order differs
_ORDER = {
    cst.FunctionDef: ("decorators", "name", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "bases", "keywords", "body"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.Arg: ("keyword", "value"),
    cst.Parameters: ("posonly_params", "params", "star_arg", "kwonly_params", "star_kwarg"),
}


def node_fields(t: type) -> tuple[str, ...]:
    """The fields of node type ``t`` that may hold child nodes a rule looks at."""
    f = _FIELDS.get(t)
    if f is None:
        f = _ORDER.get(t) or tuple(x.name for x in dataclasses.fields(t)
                                   if not any(p in x.name for p in _SKIP_FIELD_PARTS)
                                   and x.type not in _PLAIN_TYPES)
        _FIELDS[t] = f
    return f


def is_node_type(t: type) -> bool:
    flag = _IS_NODE.get(t)
    if flag is None:
        flag = _IS_NODE[t] = issubclass(t, cst.CSTNode)
    return flag


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes of ``node`` in source order (no whitespace or punctuation)."""
    out: list[cst.CSTNode] = []
    for name in node_fields(type(node)):
        v = getattr(node, name)
        if v is None:
            continue
        tv = type(v)
        if tv is tuple or tv is list:
            out.extend(c for c in v if is_node_type(type(c)))
        elif is_node_type(tv):
            out.append(v)
    return out


def _is_scope(t: type) -> bool:
    flag = _IS_SCOPE.get(t)
    if flag is None:
        flag = _IS_SCOPE[t] = issubclass(t, _SCOPES)
    return flag


def walk_scope(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Nodes below ``node`` (itself included), in source order, not entering nested
    functions/classes."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        kids = child_nodes(n)
        for c in reversed(kids):
            if not _is_scope(type(c)):
                stack.append(c)


def bindings(node: cst.CSTNode) -> Iterator[tuple[str, cst.CSTNode]]:
    """(name, binding node) for every name bound in the subtree (nested scopes excluded:
    a nested def or class binds its own name). One walk; node types are compared with
    ``type(n) is``, since isinstance against libcst's ABC-based classes is slow."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is cst.Assign:
            for tg in n.targets:  # type: ignore[attr-defined]
                for name in target_names(tg.target):
                    yield name, n
        elif t is cst.AugAssign or t is cst.AnnAssign and n.value is not None:  # type: ignore[attr-defined]
            for name in target_names(n.target):  # type: ignore[attr-defined]
                yield name, n
        elif t is cst.For or t is cst.NamedExpr:
            for name in target_names(n.target):  # type: ignore[attr-defined]
                yield name, n
        elif t is cst.WithItem and n.asname is not None:  # type: ignore[attr-defined]
            for name in target_names(n.asname.name):  # type: ignore[attr-defined]
                yield name, n
        elif t is cst.ExceptHandler and n.name is not None:  # type: ignore[attr-defined]
            yield from ((x, n) for x in target_names(n.name.name))  # type: ignore[attr-defined]
        elif (t is cst.Import or t is cst.ImportFrom) and type(n.names) is not cst.ImportStar:  # type: ignore[attr-defined]
            for a in n.names:  # type: ignore[attr-defined]
                if a.asname is not None and isinstance(a.asname.name, cst.Name):
                    yield a.asname.name.value, n
                else:
                    yield (dotted_name(a.name) or "").split(".")[0], n
        kids = child_nodes(n)
        for c in reversed(kids):
            tc = type(c)
            if tc is cst.FunctionDef or tc is cst.ClassDef:
                yield c.name.value, c  # type: ignore[attr-defined]
            elif not _is_scope(tc):
                stack.append(c)


def assigned_in(node: cst.CSTNode) -> set[str]:
    return {n for n, _ in bindings(node)}


def name_nodes(node: cst.CSTNode) -> Iterator[cst.Name]:
    """Name nodes that denote variables: not ``x.attr``'s ``attr``, not ``f(key=...)``'s ``key``."""
    skip: set[int] = set()
    for n in walk_scope(node):
        t = type(n)
        if t is cst.Attribute:
            skip.add(id(n.attr))  # type: ignore[attr-defined]
        elif t is cst.Arg and n.keyword is not None:  # type: ignore[attr-defined]
            skip.add(id(n.keyword))  # type: ignore[attr-defined]
        elif t is cst.Name and id(n) not in skip:
            yield n  # type: ignore[misc]


def names_read(node: cst.CSTNode) -> set[str]:
    return {n.value for n in name_nodes(node)}


COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def comprehension_targets(comp: cst.CSTNode) -> set[str]:
    """The names a comprehension's ``for`` clauses bind (its own, in Python 3); empty for
    anything that is not a comprehension."""
    names: set[str] = set()
    f = getattr(comp, "for_in", None)
    while f is not None:
        names.update(target_names(f.target))
        f = f.inner_for_in
    return names


def outer_names_read(node: cst.CSTNode) -> set[str]:
    """The names ``node`` reads from its enclosing scope: as :func:`names_read`, less the
    targets of its comprehensions read inside them (``{k: v for k, v in d.items()}``
    reads ``d`` only: a comprehension's targets are its own, in Python 3)."""
    local: set[int] = set()
    for n in walk_scope(node):
        if isinstance(n, COMPREHENSIONS):
            own = comprehension_targets(n)
            if own:
                local.update(id(x) for x in walk_scope(n) if type(x) is cst.Name and x.value in own)
    return {n.value for n in name_nodes(node) if id(n) not in local}


def mentions(e: cst.CSTNode, names: set[str]) -> bool:
    stack: list[cst.CSTNode] = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name) and n.value in names:
            return True
        if isinstance(n, cst.Attribute):
            stack.append(n.value)  # the attribute name is not a variable
            continue
        stack.extend(child_nodes(n))
    return False


def flat_targets(t: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The single targets of an assignment or ``for`` target: ``a, (b, *c)`` gives ``a``,
    ``b`` and ``c``."""
    if isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:
            yield from flat_targets(e.value)
    elif isinstance(t, cst.StarredElement):
        yield from flat_targets(t.value)
    else:
        yield t
