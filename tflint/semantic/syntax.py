"""Small walks over libcst subtrees that rules and the model share: names bound or read
in a block, and source text of a node. They run on candidates only, never on a whole file."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from tflint.semantic.names import dotted_name, target_names

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)

#: the source text of a node
code = cst.Module(body=[]).code_for_node


def walk_scope(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Nodes below ``node`` (itself included), not entering nested functions/classes."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for c in reversed(n.children):
            if not isinstance(c, _SCOPES):
                stack.append(c)


def bindings(node: cst.CSTNode) -> Iterator[tuple[str, cst.CSTNode]]:
    """(name, binding node) for every name bound in the subtree (nested scopes excluded)."""
    for n in walk_scope(node):
        if isinstance(n, cst.Assign):
            for t in n.targets:
                for name in target_names(t.target):
                    yield name, n
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign)):
            if not (isinstance(n, cst.AnnAssign) and n.value is None):
                for name in target_names(n.target):
                    yield name, n
        elif isinstance(n, cst.For):
            for name in target_names(n.target):
                yield name, n
        elif isinstance(n, cst.NamedExpr):
            for name in target_names(n.target):
                yield name, n
        elif isinstance(n, cst.WithItem) and n.asname is not None:
            for name in target_names(n.asname.name):
                yield name, n
        elif isinstance(n, cst.ExceptHandler) and n.name is not None:
            yield from ((x, n) for x in target_names(n.name.name))
        elif isinstance(n, (cst.Import, cst.ImportFrom)) and not isinstance(n.names, cst.ImportStar):
            for a in n.names:
                if a.asname is not None and isinstance(a.asname.name, cst.Name):
                    yield a.asname.name.value, n
                else:
                    yield (dotted_name(a.name) or "").split(".")[0], n
    # nested defs/classes bind their names
    for n in walk_scope(node):
        for c in n.children:
            if isinstance(c, (cst.FunctionDef, cst.ClassDef)):
                yield c.name.value, c


def assigned_in(node: cst.CSTNode) -> set[str]:
    return {n for n, _ in bindings(node)}


def name_nodes(node: cst.CSTNode) -> Iterator[cst.Name]:
    """Name nodes that denote variables: not ``x.attr``'s ``attr``, not ``f(key=...)``'s ``key``."""
    skip: set[int] = set()
    for n in walk_scope(node):
        if isinstance(n, cst.Attribute):
            skip.add(id(n.attr))
        elif isinstance(n, cst.Arg) and n.keyword is not None:
            skip.add(id(n.keyword))
        elif isinstance(n, cst.Name) and id(n) not in skip:
            yield n


def names_read(node: cst.CSTNode) -> set[str]:
    return {n.value for n in name_nodes(node)}


def mentions(e: cst.CSTNode, names: set[str]) -> bool:
    stack: list[cst.CSTNode] = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name) and n.value in names:
            return True
        if isinstance(n, cst.Attribute):
            stack.append(n.value)  # the attribute name is not a variable
            continue
        stack.extend(n.children)
    return False
