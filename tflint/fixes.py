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

import functools
import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence, TypeVar

import libcst as cst

from tflint.diagnostics import Applicability, Diagnostic, Edit, Fix

if TYPE_CHECKING:  # pragma: no cover
    from tflint.config import Settings
    from tflint.selection import Selection
    from tflint.semantic import Ctx, SemanticModel
    from tflint.semantic.project import ProjectView

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


#: expressions that need their own parentheses wherever they are moved into an argument
#: list, a keyword value or a list display: ``f(2, 3)`` is not ``f((2, 3))``, ``()`` and
#: ``x for x in y`` are not expressions there at all, ``mean=x := 1`` does not parse
_NEEDS_PARENS = (cst.Tuple, cst.GeneratorExp, cst.NamedExpr, cst.Yield)


def operand(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` (an original sub-tree) ready to stand alone as a call argument or a list
    element: redundant parentheses dropped, those that carry meaning kept or added."""
    if isinstance(expr, _NEEDS_PARENS):
        return expr if expr.lpar else expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return _strip_parens(expr)  # type: ignore[return-value]


F = TypeVar("F", bound=Callable[..., "NodeFix | None"])


def offered_only_if_built(builder: F) -> F:
    """A fix builder that raises (a node libcst refuses to build) offers no fix; the
    finding is still reported, and the rule's other findings with it."""

    @functools.wraps(builder)
    def wrapper(*args, **kwargs):
        try:
            return builder(*args, **kwargs)
        except Exception:
            return None

    return wrapper  # type: ignore[return-value]


def resolve(fix: NodeFix, sem: "SemanticModel") -> Fix:
    """The text edits of ``fix`` in ``sem``'s file."""
    module = sem.module
    edits: list[Edit] = []
    for e in fix.edits:
        rng = sem.position(e.node)
        if isinstance(e.replacement, str):
            text = e.replacement
        else:
            text = _render(module, _strip_parens(e.replacement), "")
            if "\n" in text or "\r" in text:
                text = _render(module, _strip_parens(e.replacement), _block_indent(sem, e.node, rng))
        if e.before:
            edits.append(Edit(rng.start.line, rng.start.column, rng.start.line, rng.start.column, text))
        else:
            edits.append(Edit(rng.start.line, rng.start.column, rng.end.line, rng.end.column, text))
    for stmt in fix.imports:
        edits.append(import_edit(sem, stmt))
    return Fix(fix.title, Applicability.SAFE if fix.safe else Applicability.UNSAFE, tuple(edits))


def _render(module: cst.Module, node: cst.CSTNode, indent: str) -> str:
    """``module.code_for_node(node)`` as if ``node`` sat in a block indented by
    ``indent``: libcst stores the indentation of continuation lines relative to the
    enclosing block, which a detached node has lost."""
    from libcst._nodes.internal import CodegenState

    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    if indent:
        state.indent_tokens.append(indent)
    node._codegen(state)
    return "".join(state.tokens)


def _block_indent(sem: "SemanticModel", node: cst.CSTNode, rng) -> str:
    """The indentation of the block around ``node``: the one under which the original
    node renders to exactly its text in the file (tried: the leading whitespace of the
    node's line and of the lines above it)."""
    cache = sem.__dict__.setdefault("_fix_text", {})
    if "lines" not in cache:
        cache["lines"] = sem.module.code.splitlines(keepends=True)
    lines: list[str] = cache["lines"]
    first, last = rng.start.line, rng.end.line
    if last > len(lines):
        return ""
    chunk = "".join(lines[first - 1:last])
    original = chunk[rng.start.column:len(chunk) - len(lines[last - 1]) + rng.end.column]
    old = _strip_parens(node)
    seen: list[str] = []
    for ln in range(first, max(0, first - 200), -1):
        line = lines[ln - 1]
        ws = line[:len(line) - len(line.lstrip(" \t"))]
        if ws in seen or not line.strip():
            continue
        seen.append(ws)
        if _render(sem.module, old, ws) == original:
            return ws
    return seen[0] if seen else ""


def import_edit(sem: "SemanticModel", stmt: str) -> Edit:
    """Insert ``stmt`` on its own line after the module's leading imports (or after the
    docstring when there are none, or before the first statement: never above a
    shebang, a coding cookie, header comments or ``from __future__`` imports)."""
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
        # before the first statement: after a shebang, coding cookie or header comments
        line = sem.position(module.body[0]).start.line if module.body else len(module.code.splitlines()) + 1
        return Edit(line, 0, line, 0, stmt + nl)
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


def _comma(last: bool) -> cst.Comma | cst.MaybeSentinel:
    return cst.MaybeSentinel.DEFAULT if last else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _commas(args: list[cst.Arg]) -> list[cst.Arg]:
    """Normal ``, `` separators between arguments we build (keeps none after the last)."""
    return [a.with_changes(comma=_comma(i == len(args) - 1)) for i, a in enumerate(args)]


def fstring_print_args(fs: cst.FormattedString) -> list[cst.Arg] | None:
    """The ``tf.print`` arguments that print what ``print(f"loss = {loss}")`` meant:
    ``"loss =", loss``: each literal piece a string, each interpolated expression an
    argument, with ``sep=""`` unless every piece meets its neighbours with the one space
    that ``tf.print``'s default separator puts back. None when a piece has a format spec
    or a conversion (``{loss:.4f}``, ``{x!r}``), which ``tf.print`` cannot apply to a tensor."""
    letters = fs.start.rstrip("\'\"")
    prefix, quote = letters.lower().replace("f", ""), fs.start[len(letters):]
    items: list[str | cst.BaseExpression] = []
    for part in fs.parts:
        if isinstance(part, cst.FormattedStringText):
            text = part.value.replace("{{", "{").replace("}}", "}")
            if text:
                items.append(text)
        elif not isinstance(part, cst.FormattedStringExpression) or part.format_spec is not None or \
                part.conversion is not None or part.equal is not None:
            return None
        else:
            items.append(part.expression)
    if not any(not isinstance(i, str) for i in items):
        return None

    def spaced() -> list[str | cst.BaseExpression] | None:
        out = list(items)
        for k, item in enumerate(out):
            if not isinstance(item, str):
                continue
            before = k > 0
            after = k < len(out) - 1
            if before and item[:1] != " " or after and item[-1:] != " ":
                return None
            if before and after and item == " ":
                out[k] = ""
                continue
            stripped = item[1:] if before else item
            stripped = stripped[:-1] if after else stripped
            if stripped[:1] == " " and before or stripped[-1:] == " " and after or not stripped:
                return None
            out[k] = stripped
        for a, b in zip(out, out[1:]):
            if not isinstance(a, str) and not isinstance(b, str):
                return None
        return [i for i in out if i != ""]

    pretty = spaced()
    chosen = pretty if pretty is not None else items
    args = []
    for item in chosen:
        if isinstance(item, str):
            args.append(cst.Arg(value=cst.SimpleString(f"{prefix}{quote}{item}{quote}")))
        else:
            value = item
            if isinstance(value, cst.Tuple) and not value.lpar:
                value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            args.append(cst.Arg(value=value))
    if pretty is None:
        args.append(kwarg("sep", cst.SimpleString(f"{quote}{quote}" if len(quote) == 1 else '""')))
    return _commas(args)


def kwarg(name: str, value: cst.BaseExpression) -> cst.Arg:
    """``name=value``; ``value`` is parenthesised as :func:`operand` needs."""
    return cst.Arg(value=operand(value), keyword=cst.Name(name),
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
        return cst.List(_elem_commas([cst.Element(operand(e.value)) for e in size.elements]))
    if isinstance(size, cst.Integer):
        return cst.List([cst.Element(size)])
    return None


def _elem_commas(elems: list[cst.Element]) -> list[cst.Element]:
    return [e.with_changes(comma=_comma(i == len(elems) - 1)) for i, e in enumerate(elems)]


# ---------------------------------------------------------------------------------------
# Fix builders for the catalogue rules (called from their report() calls)

_ASSERTS = {
    cst.GreaterThan: "assert_greater",
    cst.GreaterThanEqual: "assert_greater_equal",
    cst.LessThan: "assert_less",
    cst.LessThanEqual: "assert_less_equal",
    cst.Equal: "assert_equal",
    cst.NotEqual: "assert_none_equal",
}


@offered_only_if_built
def assert_to_tf_debugging(rule, node: cst.Assert, ctx: "Ctx") -> NodeFix | None:
    """``assert a > b, msg`` -> ``tf.debugging.assert_greater(a, b, message=msg)`` for a
    single comparison (unsafe: the check now runs in the graph, on every call, and
    raises ``InvalidArgumentError`` instead of ``AssertionError``)."""
    test = node.test
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    name = _ASSERTS.get(type(target.operator))
    if name is None:
        return None
    if node.msg is not None and not _plain_string(node.msg):
        return None  # `message=` takes a string, evaluated up front: only a literal is certain
    tf_mod = tensorflow_module(rule.sem, ctx)
    if tf_mod is None:
        return None
    alias, imports = tf_mod
    args = [cst.Arg(operand(test.left)), cst.Arg(operand(target.comparator))]
    if node.msg is not None:
        args.append(kwarg("message", node.msg))
    new = call(f"{alias}.debugging.{name}", args)
    return rule.replace(node, new, safe=False, imports=imports, title=f"Use `{alias}.debugging.{name}`")


def _plain_string(e: cst.BaseExpression) -> bool:
    """A string literal (or adjacent ones) with no formatting: no code runs to make it."""
    if isinstance(e, cst.SimpleString):
        return "b" not in e.prefix.lower()
    if isinstance(e, cst.ConcatenatedString):
        return _plain_string(e.left) and _plain_string(e.right)
    return False


@offered_only_if_built
def builtin_max_min_to_tf(rule, node: cst.Call, name: str, ctx: "Ctx") -> NodeFix | None:
    """``max(a, b)`` / ``min(a, b)`` of tensors -> ``tf.maximum(a, b)`` /
    ``tf.minimum(a, b)`` (unsafe: broadcasting and dtype rules of TensorFlow apply)."""
    if name not in ("max", "min") or len(node.args) != 2 or any(a.keyword is not None or a.star for a in node.args):
        return None
    tf_mod = tensorflow_module(rule.sem, ctx)
    if tf_mod is None:
        return None
    alias, imports = tf_mod
    op = f"{alias}.{'maximum' if name == 'max' else 'minimum'}"
    new = node.with_changes(func=attr(op))
    return rule.replace(node, new, safe=False, imports=imports, title=f"Use `{op}`")


@offered_only_if_built
def range_to_tf_range(rule, it: cst.Call, ctx: "Ctx") -> NodeFix | None:
    """``range(...)`` of a traced Python loop -> ``tf.range(...)``; a static dimension
    ``x.shape[i]`` in the bound becomes ``tf.shape(x)[i]`` (unsafe: the loop variable
    becomes a tensor, Python lists indexed or appended in the body break)."""
    if any(a.keyword is not None or a.star for a in it.args):
        return None
    tf_mod = tensorflow_module(rule.sem, ctx)
    if tf_mod is None:
        return None
    alias, imports = tf_mod
    args = [a.with_changes(value=_dynamic_dim(a.value, alias)) for a in it.args]
    new = it.with_changes(func=attr(f"{alias}.range"), args=args)
    return rule.replace(it, new, safe=False, imports=imports, title=f"Use `{alias}.range`")


def _dynamic_dim(e: cst.BaseExpression, alias: str) -> cst.BaseExpression:
    """``x.shape[i]`` -> ``tf.shape(x)[i]``; anything else unchanged."""
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Attribute) and e.value.attr.value == "shape" \
            and not e.value.lpar:
        return e.with_changes(value=call(f"{alias}.shape", [cst.Arg(e.value.value)]))
    return e


@offered_only_if_built
def loop_range_to_tf_range(rule, loop: cst.CSTNode, ctx: "Ctx") -> NodeFix | None:
    """The ``range`` -> ``tf.range`` fix for a ``for ... in range(...)`` loop (the
    builtin ``range``); None for any other loop."""
    if not isinstance(loop, cst.For) or not isinstance(loop.iter, cst.Call):
        return None
    func = loop.iter.func
    if not (isinstance(func, cst.Name) and func.value == "range") or "range" in rule.sem.imports \
            or "range" in rule.sem.module_assigns or "range" in rule.sem.module_functions:
        return None
    return range_to_tf_range(rule, loop.iter, ctx)


# ---------------------------------------------------------------------------------------
# The fix loop: lint, apply the fixes that do not overlap, re-parse, repeat.

#: passes of lint + apply before giving up (each pass applies every non-overlapping fix)
MAX_FIX_PASSES = 10
_NEWLINE = re.compile(r"\r\n|\r|\n")


@dataclass
class FixResult:
    """What :func:`fix_source` gives: the new source (the same type as the input, bytes
    in the file's own encoding or str), the findings left in it (noqa applied when
    asked), how many fixes were applied, and problems met (fixes that were dropped
    because their result did not parse, a loop that did not settle)."""

    source: str | bytes
    diagnostics: list[Diagnostic]
    applied: int
    problems: list[str] = field(default_factory=list)
    #: applied fixes per code
    applied_by_code: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return self.applied > 0

    def __iter__(self):
        """``new_source, remaining_diagnostics, applied, problems = fix_source(...)``."""
        return iter((self.source, self.diagnostics, self.applied, self.problems))


def _split_encoding(source: str | bytes) -> tuple[str, str | None, bool]:
    """(text without BOM, encoding or None for str input, had a BOM)."""
    if isinstance(source, str):
        bom = source.startswith("\ufeff")
        return (source[1:] if bom else source), None, bom
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    bom = encoding == "utf-8-sig"
    text = source.decode(encoding)
    if text.startswith("\ufeff"):
        text = text[1:]
        bom = True
    return text, encoding, bom


def _line_starts(text: str) -> list[int]:
    """Offsets of the start of every line, as libcst numbers lines (\\r\\n, \\r, \\n)."""
    return [0] + [m.end() for m in _NEWLINE.finditer(text)]


def _offset(starts: list[int], text: str, line: int, column: int) -> int | None:
    if line < 1:
        return None
    if line > len(starts):
        return None
    off = starts[line - 1] + column
    return off if off <= len(text) else None


def fixable(d: Diagnostic, unsafe: bool) -> bool:
    """Does ``--fix`` (with ``--unsafe-fixes`` when ``unsafe``) apply this finding's fix?"""
    from tflint.diagnostics import Applicability

    return d.fix is not None and bool(d.fix.edits) and (unsafe or d.fix.applicability is Applicability.SAFE)


def _fix_key(d: Diagnostic, text: str, spans: list[tuple[int, int, str]]) -> tuple:
    """What a fix is, independent of where earlier edits moved it: its code, the text it
    replaces and what it puts there."""
    return (d.code,) + tuple((text[a:b], c) for a, b, c in spans)


def _spans(d: Diagnostic, text: str, starts: list[int]) -> list[tuple[int, int, str]] | None:
    out = []
    assert d.fix is not None
    for e in d.fix.edits:
        a = _offset(starts, text, e.line, e.column)
        b = _offset(starts, text, e.end_line, e.end_column)
        if a is None or b is None or b < a:
            return None
        out.append((a, b, e.content))
    return out


def _overlaps(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    """Do two edits touch the same text? An insertion conflicts with another insertion
    at the same point and with a replacement that contains or borders the point."""
    if a == b:
        return False  # the same edit (e.g. one import that two fixes add): applied once
    (s1, e1, _), (s2, e2, _) = a, b
    if s1 == e1 or s2 == e2:
        p, s, e = (s1, s2, e2) if s1 == e1 else (s2, s1, e1)
        return s <= p <= e
    return s1 < e2 and s2 < e1


def _apply(text: str, spans: list[tuple[int, int, str]]) -> str:
    """Apply non-overlapping edits, last first, so earlier offsets stay valid."""
    for a, b, content in sorted(set(spans), key=lambda s: (s[0], s[1]), reverse=True):
        text = text[:a] + content + text[b:]
    return text


def _parses(text: str) -> str | None:
    """None if ``text`` parses (libcst, then CPython's compiler for what libcst lets
    through), else the reason."""
    from tflint.engine import _one_line, _parse_with_big_stack, _python_syntax_error

    try:
        _parse_with_big_stack(text)
    except Exception as e:  # ParserSyntaxError, RecursionError, odd input
        return _one_line(e)
    problem = _python_syntax_error(text)
    return None if problem is None else f"line {problem[0]}: {problem[2]}"


def fix_source(source: str | bytes, path: str = "<string>", settings: "Settings | None" = None,
               unsafe: bool = False, noqa: bool = True, selection: "Selection | None" = None,
               project: "ProjectView | None" = None) -> FixResult:
    """Apply the fixes of ``source``'s findings until nothing changes; pure (text in,
    text out), never raises.

    Each pass lints, drops findings silenced by ``# noqa`` (unless ``noqa`` is False),
    takes every safe fix (and unsafe ones with ``unsafe``) that does not overlap one
    already taken (first in file order wins; identical edits such as the same import
    are applied once), applies them and re-parses the result. A result that does not
    parse is dropped, the fixes are retried one by one, and those that break the file
    alone are reported and not tried again. Text outside the edited ranges is kept byte
    for byte: newlines, comments, encoding (bytes in, bytes out in the same encoding,
    with the BOM if there was one).
    """
    from tflint import engine, noqa as noqa_mod
    from tflint.config import Settings

    from tflint.selection import for_settings

    settings = settings or Settings()
    selection = selection or for_settings(settings)
    try:
        text, encoding, bom = _split_encoding(source)
    except (UnicodeDecodeError, LookupError, SyntaxError):
        return FixResult(source, engine.lint_source(source, path, settings, project=project), 0)
    original = text
    applied = 0
    by_code: dict[str, int] = {}
    problems: list[str] = []
    rejected: set[tuple] = set()

    def lint(t: str) -> list[Diagnostic]:
        diags = engine.lint_source(t, path, settings, selection=selection, project=project)
        return noqa_mod.apply_noqa(diags, t) if noqa else diags

    diags = lint(text)
    for _pass in range(MAX_FIX_PASSES):
        starts = _line_starts(text)
        chosen: list[tuple[Diagnostic, list[tuple[int, int, str]], tuple]] = []
        taken: list[tuple[int, int, str]] = []
        for d in diags:
            if not fixable(d, unsafe):
                continue
            spans = _spans(d, text, starts)
            if spans is None:
                continue
            key = _fix_key(d, text, spans)
            if key in rejected:
                continue
            if any(_overlaps(s, t) for s in spans for t in taken):
                continue
            chosen.append((d, spans, key))
            taken.extend(spans)
        if not chosen:
            break
        candidate = _apply(text, taken)
        if _parses(candidate) is not None:
            # find the culprits: each fix alone on the current text
            good = []
            for d, spans, key in chosen:
                why = _parses(_apply(text, spans))
                if why is None:
                    good.append((d, spans, key))
                else:
                    rejected.add(key)
                    problems.append(f"{path}:{d.line}:{d.column + 1}: {d.code} fix not applied: "
                                    f"the result does not parse ({why})")
            if not good:
                continue
            candidate = _apply(text, [s for _, spans, _ in good for s in spans])
            if _parses(candidate) is not None:
                good = good[:1]  # they break the file only together: one per pass
                candidate = _apply(text, good[0][1])
            chosen = good
        if candidate == text:
            for _, _, key in chosen:
                rejected.add(key)  # a fix that changes nothing would loop forever
            continue
        text = candidate
        applied += len(chosen)
        for d, _, _ in chosen:
            by_code[d.code] = by_code.get(d.code, 0) + 1
        diags = lint(text)
    else:
        if any(fixable(d, unsafe) for d in diags):
            problems.append(f"{path}: fixes still apply after {MAX_FIX_PASSES} passes; stopped")
    if text == original:
        return FixResult(source, diags, 0, problems, {})
    out: str | bytes
    if encoding is None:
        out = ("\ufeff" if bom else "") + text
    else:
        out = text.encode(encoding)
        if bom and encoding != "utf-8-sig":
            out = b"\xef\xbb\xbf" + out
    return FixResult(out, diags, applied, problems, by_code)
