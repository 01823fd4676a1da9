"""The project-wide index: which modules a project has, what they import, define and call.

A file's own libcst model knows only the file. Traced code crosses modules: a Keras
``train_step`` in ``trainer.py`` calls ``helper`` from ``ops.py``, and a training script
calls a tf.function of ``model.py`` with its loop variable. The index answers those
questions for one file (:class:`ProjectView`) from cheap per-module summaries made with
CPython's :mod:`ast` (about ten times cheaper than libcst), never libcst, built lazily:

* the module list comes from walking the project root (folders only, no file is read);
* each module's imports are found with a regular expression over its text, so the
  importers of a module are known without parsing the tree;
* a module is summarized with :mod:`ast` only when a question reaches it: it may import
  the linted module (directly or through others) and holds graph roots, or traced code
  calls into it, or it imports the linted module and calls one of its functions.

Summaries are cached in ``.tflint_cache/`` under the project root, keyed by the file's
content hash and tflint's version (see :mod:`tflint.semantic.cache`).
"""

from __future__ import annotations

import ast
import collections
import contextlib
import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from tflint.semantic.cache import IndexCache
from tflint.semantic.keras import STATELESS_LAYERS

if TYPE_CHECKING:  # pragma: no cover
    from tflint.semantic.instances import EagerUses
from tflint.semantic.names import (COMPILE_CALLABLES, DATASET_METHODS, DYNAMIC_LOOKUPS, DATASET_ONLY_METHODS, KERAS_COMPILE_REASON, KERAS_MODEL_BASES,
                                   KERAS_STEP_METHODS, KERAS_STEP_REASON, LOSS_METRIC_METHODS, REGEX_COMPILE,
                                   PY_FUNCTION_NAMES, RUN_EAGERLY_NAMES, RUNS_NO_CALL, SYMBOLIC_INPUTS,
                                   TF_FUNCTION_NAMES, canonical)

NOTEBOOK_SUFFIX = ".ipynb"
#: files that name one of these mark the root of a project
ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
#: folders never indexed (besides hidden ones)
_SKIP_DIRS = frozenset({"__pycache__", "build", "dist", "node_modules", "site-packages", "venv", ".venv"})
#: a project larger than this is not indexed (a home folder with a stray .git)
MAX_MODULES = 20000
#: a Python loop with at most this many iterations is a deliberate specialization
SMALL_LOOP = 5
_RANGE_LIKE = frozenset({"range", "trange", "tqdm.trange", "tqdm.auto.trange"})
#: text without which a module holds no graph roots: a TensorFlow mention (the engine's
#: pre-filter) and one of the spellings the summary takes for a root (see
#: :func:`may_hold_roots`)
_TF_TEXT = re.compile(r"tensorflow|keras|\btf\.|\btf2\.|def_function|polymorphic_function")
#: "function" as a word, with what follows it when that is a call or an ``as``
_FUNCTION_WORD = re.compile(r"function\b(\s*\(|\s+as\b)?")
_FUNCTION_IMPORT = re.compile(r"^[ \t]*(?:from|import)\b[^\n]*\bfunction\b", re.M)
#: a Keras step is a method (indented); a module-level ``def train_step`` is a plain function
_STEP_DEF = re.compile(r"^[ \t]+def[ \t]+(?:train|test|predict)_step\b", re.M)
_DATASET_CALL = re.compile(r"\.(?:map|filter|flat_map|interleave|reduce|scan|group_by_window|parallel_interleave)\(")
#: Keras running models symbolically: its compiled loops, symbolic builds (functional
#: models, ``Sequential``, ``Input``, ``build``/``summary``) and exports, as literal
#: searches (an alternation of them costs several times more on every module)
_KERAS_GRAPH_TEXT = (".fit(", ".evaluate(", ".predict(", "_on_batch(", ".fit_generator(", ".evaluate_generator(",
                     ".predict_generator(", ".build(", ".summary(", ".export(", "Sequential(", "saved_model",
                     "TimeDistributed(", "Bidirectional(")
_KERAS_GRAPH_WORDS = re.compile(r"\b(?:Input|Model)\(")


#: a triple-quoted string (a docstring, or code kept in one), then a comment
_PROSE = re.compile(r'(?s)(\"\"\"|\'\'\').*?\1|#[^\n]*')


def without_prose(text: str) -> str:
    """``text`` without triple-quoted strings and comments: the code in a docstring's
    example or a commented-out line does not run (``model = tf.keras.Model(...)`` in the
    docstring of a layer nobody makes). A ``#`` inside a string ends its line early."""
    return _PROSE.sub("", text) if ("#" in text or '"""' in text or "\'\'\'" in text) else text


def _keras_graph_text(text: str) -> bool:
    return any(s in text for s in _KERAS_GRAPH_TEXT) or \
        ("Input(" in text or "Model(" in text) and _KERAS_GRAPH_WORDS.search(text) is not None


#: :attr:`PassedRoot.to` of a loss or metric handed to ``compile``
COMPILE_TO = "`compile`"


#: calls that run a Keras model's step methods under tf.function (``fit`` runs ``train_step``
#: and ``test_step``, ``*_on_batch`` one step)
_STEP_ENTRY_TEXT = re.compile(r"\.(?:fit|fit_generator|evaluate|evaluate_generator|predict|predict_generator|"
                              r"train_on_batch|test_on_batch|predict_on_batch)\s*\(")
#: ``agent.train_step(batch)``: a step called as a plain method (not ``self.``/``super().``)
_DIRECT_STEP_TEXT = re.compile(r"(?<!\bself)(?<!super\(\))\.(train_step|test_step|predict_step)\s*\(")
#: ``model.compile(`` (not ``re.compile(`` or ``regex.compile(``) and its ``run_eagerly=True``
_COMPILE_TEXT = re.compile(r"(?<!\bre)(?<!\bregex)\.compile\s*\(")
_RUN_EAGERLY_TEXT = re.compile(r"\brun_eagerly\s*=\s*True\b")
_COMPILE_KEYWORDS = re.compile(r"\b(?:loss|metrics)\s*=")
#: a module's text that mentions TensorFlow or Keras
_MENTIONS_TF = re.compile(r"\bkeras\b|\btensorflow\b|\btf\.")
#: a receiver ``super()`` / ``super(Model, self)`` right before a ``.compile(`` match
_SUPER_CALL = re.compile(r"\bsuper\s*\([^()]*\)\s*$")


@dataclass(frozen=True)
class KerasStepUse:
    """How a module and the modules that import it (directly or not) use Keras models'
    step methods, read from their text: whether any runs a step under tf.function
    (``fit``, ``evaluate``, ``train_on_batch``...), which steps are called as plain
    methods (``ddpg.train_step()`` in an episode loop), and how many ``compile`` calls
    there are and how many of them say ``run_eagerly=True``."""

    entries: bool = False
    direct: frozenset[str] = frozenset()
    compiles: int = 0
    eager_compiles: int = 0

    def __bool__(self) -> bool:
        return self.entries or bool(self.direct) or bool(self.compiles)

    def __or__(self, other: "KerasStepUse") -> "KerasStepUse":
        return KerasStepUse(self.entries or other.entries, self.direct | other.direct,
                            self.compiles + other.compiles, self.eager_compiles + other.eager_compiles)


def keras_step_use_text(text: str) -> KerasStepUse:
    """:class:`KerasStepUse` of one module's text. Matches in comments do not count
    (``# run_eagerly=True`` left in a ``compile`` call, ``# model.fit(ds)``)."""
    if "_step" not in text and "compile" not in text and _STEP_ENTRY_TEXT.search(text) is None:
        return KerasStepUse()

    def code(m: re.Match) -> bool:
        return "#" not in text[text.rfind("\n", 0, m.start()) + 1:m.start()]

    compiles = eager = 0
    for m in _COMPILE_TEXT.finditer(text):
        if not code(m) or _SUPER_CALL.search(text, text.rfind("\n", 0, m.start()) + 1, m.start()):
            continue  # ``super().compile(**kwargs)`` in an override hands on what its caller gives
        compiles += 1
        depth, end = 1, m.end()
        while end < len(text) and depth and end - m.end() < 4000:  # to the closing parenthesis
            c = text[end]
            depth += (c == "(") - (c == ")")
            end += 1
        eager += any(code(e) for e in _RUN_EAGERLY_TEXT.finditer(text, m.end(), end))
    # (``self.framsLib.evaluate(genes)`` in a module that never mentions TensorFlow or
    # Keras runs no Keras model: ``evaluate``/``predict`` are common names, and count only
    # in a module that does; ``fit`` and ``*_on_batch`` count anywhere)
    tf_here = _MENTIONS_TF.search(text) is not None
    return KerasStepUse(entries=any(code(m) and (tf_here or not m.group(0).startswith((".evaluate", ".predict")))
                                    for m in _STEP_ENTRY_TEXT.finditer(text)),
                        direct=frozenset(m.group(1) for m in _DIRECT_STEP_TEXT.finditer(text) if code(m)),
                        compiles=compiles, eager_compiles=eager)


_IMPORT_LINE = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)|import[ \t]+([^\n#;]+))", re.M)


# ---------------------------------------------------------------------------------------
# Per-module summaries (plain data: they go into the cache as JSON)


@dataclass
class ArgInfo:
    """One argument of a call: its keyword (or ``#N`` for the N-th positional) and what
    it is: ``literal`` (``text`` is its repr), ``flag`` (``True``, ``False`` or ``None``:
    ``text`` says which), ``varying`` (a Python number that changes per loop iteration;
    ``text`` names it) or ``other``."""

    key: str
    kind: str
    text: str = ""


@dataclass
class CallSite:
    """A call as written: ``callee`` is the dotted name (``helper``, ``ops.helper``,
    ``self.step``); ``caller`` the function it is made in (``train_step``, ``Model.fit``),
    or None at module level."""

    callee: str
    line: int
    caller: str | None
    in_loop: bool
    args: list[ArgInfo] = field(default_factory=list)
    unpacks: bool = False
    #: made in a lambda handed to what traces it (``ds.map(lambda x: zoom(x, r))``)
    in_traced_lambda: bool = False
    #: the ``if p:`` / ``if p is not None:`` around the call, on parameters of a plain
    #: function (not a method) that the function never rebinds: [p, its position among
    #: the positional parameters (-1: keyword-only), its default as written ("" when
    #: none), "truth" or "none"]. The call runs only when ``p`` is on. An ``if`` that
    #: runs its branch only eagerly (``if self.debug and self.run_eagerly:``,
    #: ``if tf.executing_eagerly():``) gives :data:`_EAGER_GUARD`.
    guards: list[list[str]] = field(default_factory=list)


@dataclass
class FunctionSummary:
    name: str  # qualified inside the module: ``f``, ``Cls.method``, ``outer.inner``
    line: int
    decorators: list[str] = field(default_factory=list)
    #: why it is a graph root ("which runs under tf.function", ...), None when it is not
    root: str | None = None
    cls: str | None = None
    parent: str | None = None
    #: handed to ``tf.py_function``/``tf.numpy_function``: it runs eagerly, as Python,
    #: even where the function around it is traced
    eager_body: bool = False


@dataclass
class PassedRoot:
    """An imported function handed to what traces it: ``ds.map(helpers.parse)``,
    ``tf.function(ops.step)``; ``to`` names the receiver, ``reason`` what it does."""

    target: str
    caller: str | None
    line: int
    to: str
    reason: str


@dataclass
class ModuleSummary:
    #: local name -> qualified name (relative imports resolved)
    imports: dict[str, str] = field(default_factory=dict)
    functions: dict[str, FunctionSummary] = field(default_factory=dict)
    #: class -> its bases as qualified names where an import names them, else as written
    classes: dict[str, list[str]] = field(default_factory=dict)
    calls: list[CallSite] = field(default_factory=list)
    #: imported functions this module hands to tf.function or a tf.data transformation
    passed: list[PassedRoot] = field(default_factory=list)
    #: attribute name -> the first line where module-level code (eager: outside every
    #: function and lambda) reads ``.name`` of some object
    top_reads: dict[str, int] = field(default_factory=dict)
    #: ``tf.config.run_functions_eagerly(True)`` is a statement of the module's body or of
    #: a function's (a constructor's), and no such statement says ``(False)``
    eager_switch: bool = False
    #: such a ``(True)`` statement is one of the module's own body: importing the module
    #: switches every tf.function of the process to Python
    eager_at_import: bool = False
    #: some ``run_functions_eagerly`` statement of the module says ``(False)``
    eager_off: bool = False
    #: ``Cls.method`` whose ``__init__`` says ``self.method = self.method(...)``: after it,
    #: ``self.method(x)`` calls what the method returned (a model), not the method
    shadowed: list[str] = field(default_factory=list)
    #: the modules ``from m import *`` at module level brings every public name of
    stars: list[str] = field(default_factory=list)
    #: the names module-level statements bind (``model = build()``): they hide what a
    #: star import brings
    top_bound: list[str] = field(default_factory=list)
    #: ``self.model.<attr> = ...`` in a batch or epoch hook of a Keras callback class:
    #: (attr, ``Cls.method``, line)
    model_sets: list[tuple[str, str, int]] = field(default_factory=list)
    #: what a name holds when it is bound once to an object made by a class call: a
    #: module-level ``net = Net()`` (key ``net``), a local of a function (key ``main.net``),
    #: ``self.net = layers.Net()`` in ``Cls.__init__`` (key ``Cls.net``) -> the class as
    #: written (``Net``, ``layers.Net``); "" when bound to something else as well, or when
    #: a function's parameter of that name hides it (key ``main.step.net``)
    instances: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict:
        """The summary as plain data (what ``asdict`` gives, written out: ``asdict``
        deep-copies every field and was most of the cost of caching a summary)."""
        return {
            "imports": dict(self.imports),
            "functions": {k: {"name": f.name, "line": f.line, "decorators": list(f.decorators), "root": f.root,
                              "cls": f.cls, "parent": f.parent, "eager_body": f.eager_body}
                          for k, f in self.functions.items()},
            "classes": {k: list(v) for k, v in self.classes.items()},
            "calls": [{"callee": c.callee, "line": c.line, "caller": c.caller, "in_loop": c.in_loop,
                       "args": [{"key": a.key, "kind": a.kind, "text": a.text} for a in c.args],
                       "unpacks": c.unpacks, "in_traced_lambda": c.in_traced_lambda,
                       "guards": [list(g) for g in c.guards]} for c in self.calls],
            "passed": [[p.target, p.caller, p.line, p.to, p.reason] for p in self.passed],
            "top_reads": dict(self.top_reads),
            "eager_switch": self.eager_switch,
            "eager_at_import": self.eager_at_import,
            "eager_off": self.eager_off,
            "shadowed": list(self.shadowed),
            "stars": list(self.stars),
            "top_bound": list(self.top_bound),
            "model_sets": [list(m) for m in self.model_sets],
            "instances": dict(self.instances),
        }

    @staticmethod
    def from_json(d: dict) -> "ModuleSummary":
        return ModuleSummary(
            imports=dict(d["imports"]),
            functions={k: FunctionSummary(**v) for k, v in d["functions"].items()},
            classes={k: list(v) for k, v in d["classes"].items()},
            calls=[CallSite(c["callee"], c["line"], c["caller"], c["in_loop"],
                            [ArgInfo(**a) for a in c["args"]], c["unpacks"], bool(c["in_traced_lambda"]),
                            [[str(x) for x in g] for g in c["guards"]])
                   for c in d["calls"]],
            passed=[PassedRoot(str(t), c, int(n), str(to), str(r)) for t, c, n, to, r in d["passed"]],
            top_reads={str(k): int(v) for k, v in d["top_reads"].items()},
            eager_switch=bool(d["eager_switch"]),
            eager_at_import=bool(d["eager_at_import"]),
            eager_off=bool(d["eager_off"]),
            shadowed=[str(x) for x in d["shadowed"]],
            stars=[str(x) for x in d["stars"]],
            top_bound=[str(x) for x in d["top_bound"]],
            model_sets=[(str(a), str(w), int(n)) for a, w, n in d["model_sets"]],
            instances={str(k): str(v) for k, v in d["instances"].items()},
        )


def _dotted(e: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(e, ast.Attribute):
        parts.append(e.attr)
        e = e.value
    if isinstance(e, ast.Name):
        parts.append(e.id)
        return ".".join(reversed(parts))
    return None


def resolve_relative(module: str, is_package: bool, level: int, name: str | None) -> str | None:
    """``from ..x import y`` in ``module``: the absolute module ``..x`` names."""
    if level == 0:
        return name
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    if name:
        base = base + name.split(".")
    return ".".join(base) or None


def _subclasses(*bases: type) -> set[type]:
    return {c for b in bases for c in b.__subclasses__()}


#: nodes with nothing below them that the summary needs: never visited
_LEAVES = frozenset({ast.Name, ast.Constant, ast.alias, ast.Pass, ast.Break, ast.Continue}
                    | _subclasses(ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop))


class _Summarizer(ast.NodeVisitor):
    """One walk over a module's ``ast`` tree that fills a :class:`ModuleSummary`."""

    def __init__(self, module: str, is_package: bool, wrappers: frozenset[str]) -> None:
        self.module = module
        self.is_package = is_package
        self.wrappers = wrappers
        self.out = ModuleSummary()
        self.scope: list[str] = []  # qualified names of the enclosing functions/classes
        self.fn_stack: list[str | None] = [None]
        #: (function, parameter): a parameter hides an object of that name bound outside
        self.params: list[tuple[str, str]] = []
        self.cls_stack: list[str | None] = [None]
        #: per function: the loops around the current node, innermost last
        self.loops: list[list[ast.For | ast.While]] = [[]]
        #: per function: the parameter guards around the current node (:attr:`CallSite.guards`)
        self.guards: list[list[list[str]]] = [[]]
        self.fn_nodes: list[ast.FunctionDef | ast.AsyncFunctionDef | None] = [None]
        self.tf_wrapped: list[tuple[str, str | None, int]] = []  # (name as written, enclosing fn, line)
        self.dataset_fns: list[tuple[str, str | None, str, int]] = []
        self.compile_fns: list[tuple[str, str | None, int]] = []  # losses and metrics handed to ``compile``
        self.eager_bodies: list[tuple[str, str | None]] = []  # handed to tf.py_function (name, enclosing fn)
        #: (enclosing fn, name) of the names assigned a Dataset (``ds = tf.data...``)
        self.dataset_names: set[tuple[str | None, str]] = set()
        #: (function, name) bound to what a TensorFlow call returns (``step = tf.constant(0)``)
        self.tensor_names: set[tuple[str | None, str]] = set()
        #: per body: after a statement ``tf.config.run_functions_eagerly(True)`` (and no
        #: ``(False)`` since): tf.functions called there run as Python and trace nothing
        self.eager: list[bool] = [False]
        #: the values ``run_functions_eagerly`` statements give anywhere in the module
        self.switches: set[bool] = set()
        self.at_import = False  # a ``(True)`` statement of the module's own body
        #: per function scope (the module's first), innermost last: [body, parameters, the
        #: names the scope binds and those bound once to a literal (``zoom_range = (0.9,
        #: 1.1)``, as its text), worked out on the first question (:meth:`_scope_consts`)]
        self.consts: list[list] = []
        self.tree: ast.Module | None = None
        #: per function or class (by id): the names ``nonlocal`` statements within it
        #: declare, and the names ``global`` statements declare (:func:`_scope_rebinds`)
        self.rebinds: tuple[dict[int, set[str]], set[str]] | None = None
        #: the parameters of the lambdas around the current node
        self.lambda_params: list[set[str]] = []
        #: the lambdas handed to what traces them, and per lambda around the node whether it is one
        self.traced_lambdas: set[int] = set()
        self.in_traced_lambda: list[bool] = []

    # -- the walk: NodeVisitor's, with the method look-up cached per node type and the
    # children read straight from ``_fields`` (about twice as fast on big modules)

    _DISPATCH: dict[type, Callable | None] = {}

    def visit(self, node: ast.AST) -> None:
        t = type(node)
        try:
            method = self._DISPATCH[t]
        except KeyError:
            method = self._DISPATCH[t] = getattr(_Summarizer, "visit_" + t.__name__, None)
        if method is None:
            self.generic_visit(node)
        else:
            method(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        visit = self.visit
        AST = ast.AST
        leaves = _LEAVES
        for name in node._fields:
            v = getattr(node, name, None)
            if type(v) is list:
                for c in v:
                    if type(c) not in leaves and isinstance(c, AST):
                        visit(c)
            elif type(v) not in leaves and isinstance(v, AST):
                visit(v)

    # -- names

    def qualify(self, dotted: str) -> str:
        return _qualified(dotted, self.out.imports)

    def is_tf_function(self, e: ast.expr) -> bool:
        d = _dotted(e)
        if d is None:
            return False
        q = self.qualify(d)
        return q in TF_FUNCTION_NAMES or d in self.wrappers or q in self.wrappers

    # -- imports

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            if a.asname:
                self.out.imports[a.asname] = a.name
            else:
                head = a.name.split(".")[0]
                self.out.imports.setdefault(head, head)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = resolve_relative(self.module, self.is_package, node.level or 0, node.module)
        if base is None:
            return
        for a in node.names:
            if a.name != "*":
                self.out.imports[a.asname or a.name] = f"{base}.{a.name}"
            elif self.fn_stack[-1] is None and self.cls_stack[-1] is None:
                self.out.stars.append(base)

    # -- definitions

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        qual = ".".join(self.scope + [node.name])
        if self.fn_stack[-1] is None:
            self.out.classes[qual] = [self.qualify(d) for d in map(_dotted, node.bases) if d]
        for d in node.decorator_list:
            self.visit(d)
        for b in node.bases:
            self.visit(b)
        self.scope.append(node.name)
        self.cls_stack.append(qual)
        self.fn_stack.append(self.fn_stack[-1])
        for s in node.body:
            self.visit(s)
        self.fn_stack.pop()
        self.cls_stack.pop()
        self.scope.pop()
        if any(q.endswith("callbacks.Callback") for q in (self.qualify(d) for d in map(_dotted, node.bases) if d)):
            self.out.model_sets.extend((attr, f"{qual}.{m}", line) for attr, m, line in _model_sets(node))

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        qual = ".".join(self.scope + [node.name])
        parent_cls = self.cls_stack[-1] if self.scope and self.cls_stack[-1] == ".".join(self.scope) else None
        info = FunctionSummary(name=qual, line=node.lineno, cls=parent_cls, parent=self.fn_stack[-1])
        for d in node.decorator_list:
            expr = d.func if isinstance(d, ast.Call) else d
            dotted = _dotted(expr)
            if dotted is not None:
                info.decorators.append(self.qualify(dotted))
            if self.is_tf_function(expr):
                info.root = "which runs under tf.function"
            self.visit(d)
        self.out.functions[qual] = info
        a = node.args
        self.params.extend((qual, p.arg) for p in a.posonlyargs + a.args + a.kwonlyargs)
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(default)
        self.scope.append(node.name)
        self.fn_stack.append(qual)
        self.cls_stack.append(None)
        self.loops.append([])
        self.guards.append([])
        self.fn_nodes.append(node if parent_cls is None else None)
        self.eager.append(False)
        self.consts.append([node.body, node.args, None])
        self._body(node.body)
        self.consts.pop()
        self.eager.pop()
        self.fn_nodes.pop()
        self.guards.pop()
        self.loops.pop()
        self.cls_stack.pop()
        self.fn_stack.pop()
        self.scope.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_Module(self, node: ast.Module) -> None:
        self.tree = node
        self.consts.append([node.body, None, None])
        self._body(node.body)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        a = node.args
        self.lambda_params.append({p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} |
                                  {p.arg for p in (a.vararg, a.kwarg) if p is not None})
        self.in_traced_lambda.append(id(node) in self.traced_lambdas or any(self.in_traced_lambda))
        self.generic_visit(node)
        self.in_traced_lambda.pop()
        self.lambda_params.pop()

    def _body(self, body: list[ast.stmt]) -> None:
        for s in body:
            if type(s) is ast.Expr and type(s.value) is ast.Call and s.value.args and \
                    type(s.value.args[0]) is ast.Constant and type(s.value.args[0].value) is bool:
                dotted = _dotted(s.value.func)
                if dotted is not None and self.qualify(dotted) in RUN_EAGERLY_NAMES:
                    self.eager[-1] = s.value.args[0].value
                    self.switches.add(s.value.args[0].value)
                    self.out.eager_switch = self.switches == {True}
                    self.out.eager_off = False in self.switches
                    if len(self.fn_stack) == 1 and s.value.args[0].value:
                        self.at_import = True
                    self.out.eager_at_import = self.at_import and self.out.eager_switch
            self.visit(s)

    # -- loops and calls

    def _loop(self, node: ast.For | ast.While) -> None:
        if isinstance(node, ast.For):
            self.visit(node.iter)
        else:
            self.visit(node.test)
        self.loops[-1].append(node)
        for s in node.body:
            self.visit(s)
        self.loops[-1].pop()
        for s in node.orelse:
            self.visit(s)

    visit_For = _loop
    visit_AsyncFor = _loop
    visit_While = _loop

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        eager = _eager_test(node.test)
        guard = _EAGER_GUARD if eager is True else self._guard(node.test)
        if guard is not None:
            self.guards[-1].append(guard)
        for s in node.body:
            self.visit(s)
        if guard is not None:
            self.guards[-1].pop()
        if eager is False:
            self.guards[-1].append(_EAGER_GUARD)
        for s in node.orelse:
            self.visit(s)
        if eager is False:
            self.guards[-1].pop()

    def _guard(self, test: ast.expr) -> list[str] | None:
        """``if p:`` or ``if p is not None:`` on a parameter of the plain function around
        it that the function never rebinds: the guard :attr:`CallSite.guards` records."""
        fn = self.fn_nodes[-1]
        if fn is None:
            return None
        if type(test) is ast.Name:
            name, how = test.id, "truth"
        elif type(test) is ast.Compare and type(test.left) is ast.Name and len(test.ops) == 1 and \
                type(test.ops[0]) is ast.IsNot and type(test.comparators[0]) is ast.Constant and \
                test.comparators[0].value is None:
            name, how = test.left.id, "none"
        else:
            return None
        a = fn.args
        positional = a.posonlyargs + a.args
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        pos, default = next(((i, d) for i, (p, d) in enumerate(zip(positional, defaults)) if p.arg == name),
                            (None, None))
        if pos is None:
            pos, default = next(((-1, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if p.arg == name), (None, None))
        if pos is None or _rebinds(fn, name):
            return None
        said = repr(default.value) if type(default) is ast.Constant and \
            (default.value is None or type(default.value) is bool) else "" if default is None else "?"
        return [name, str(pos), said, how]

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        if self.fn_stack[-1] is None and self.cls_stack[-1] is None:
            for t in node.targets:
                self.out.top_bound.extend(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        self._instance_binding(node)
        fn = self.fn_stack[-1]
        if fn is not None and fn.endswith(".__init__") and len(node.targets) == 1:
            t, v = node.targets[0], node.value
            if isinstance(t, ast.Attribute) and isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and \
                    v.func.attr == t.attr and isinstance(t.value, ast.Name) and isinstance(v.func.value, ast.Name) and \
                    v.func.value.id == t.value.id:
                self.out.shadowed.append(f"{fn[:-len('.__init__')]}.{t.attr}")
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and self.fn_stack[-1] is None and \
                isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) and \
                node.value.func.id == node.targets[0].id:
            # ``Discriminator = Discriminator((256, 256, 3))``: from here on the name is the
            # model the imported factory built, not the factory
            self.out.imports.pop(node.targets[0].id, None)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            key = (self.fn_stack[-1], node.targets[0].id)
            if self._is_dataset(node.value):
                self.dataset_names.add(key)  # ``ds = ds.map(...)`` keeps it one
            else:
                self.dataset_names.discard(key)
            d = _dotted(node.value.func) if isinstance(node.value, ast.Call) else None
            if d is not None and self.qualify(d).startswith("tensorflow."):
                self.tensor_names.add(key)
            else:
                self.tensor_names.discard(key)

    def _instance_binding(self, node: ast.Assign) -> None:
        """Record :attr:`ModuleSummary.instances`: ``net = Net()`` at module level or in a
        function, or ``self.net = Net()`` in a class's ``__init__`` (a class: a capitalized
        name); any other value bound to the same key makes it ""."""
        fn = self.fn_stack[-1]
        if len(node.targets) != 1:
            return
        t, v = node.targets[0], node.value
        if fn is None and self.cls_stack[-1] is None and isinstance(t, ast.Name):
            key = t.id
        elif fn is not None and isinstance(t, ast.Name):
            key = f"{fn}.{t.id}"  # a local, which functions nested in ``fn`` may call
        elif fn is not None and fn.endswith(".__init__") and isinstance(t, ast.Attribute) and \
                isinstance(t.value, ast.Name) and t.value.id == "self":
            key = f"{fn[:-len('.__init__')]}.{t.attr}"
        else:
            return
        made = _dotted(v.func) if isinstance(v, ast.Call) else None
        if made is None or not made.rpartition(".")[2][:1].isupper():
            made = ""
        was = self.out.instances.get(key)
        self.out.instances[key] = made if was is None or was == made else ""

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if node.args and type(f) is ast.Attribute and f.attr in DATASET_METHODS and self._is_dataset(f.value):
            pos = DATASET_METHODS[f.attr]
            if pos is not None and len(node.args) > pos and type(node.args[pos]) is ast.Lambda:
                self.traced_lambdas.add(id(node.args[pos]))
        elif node.args and type(node.args[0]) is ast.Lambda and self.is_tf_function(f):
            self.traced_lambdas.add(id(node.args[0]))
        self.generic_visit(node)
        dotted = _dotted(node.func)
        caller = self.fn_stack[-1]
        if dotted is not None:
            # a name bound to a constant matters only for a function of another project
            # module (``_external_literals``): imported from one, or from a star import
            head = dotted.partition(".")[0]
            consts = head not in self.out.imports and bool(self.out.stars) or \
                head in self.out.imports and not self.qualify(dotted).startswith(_LIBRARY_MODULES)
            args = [self._arg(f"#{i}", a.value if isinstance(a, ast.Starred) else a, consts)
                    for i, a in enumerate(node.args)]
            args += [self._arg(k.arg, k.value, consts) for k in node.keywords if k.arg is not None]
            unpacks = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
            if not self.eager[-1]:  # under run_functions_eagerly(True) a call traces nothing
                self.out.calls.append(CallSite(dotted, node.lineno, caller, bool(self.loops[-1]), args, unpacks,
                                               bool(self.in_traced_lambda) and self.in_traced_lambda[-1],
                                               [list(g) for g in self.guards[-1]]))
            if self.is_tf_function(node.func) and node.args:
                for target in _handed_over(node.args[0]):
                    self.tf_wrapped.append((target, caller, node.lineno))
            if self.qualify(dotted) in PY_FUNCTION_NAMES:
                body = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "func"), None)
                d = _dotted(body) if body is not None and not isinstance(body, ast.Lambda) else None
                if d is not None:
                    self.eager_bodies.append((d, caller))
        if type(f) is ast.Attribute and f.attr == "compile" and node.keywords:
            self._compiled(node, caller)
        if isinstance(node.func, ast.Attribute) and node.func.attr in DATASET_METHODS and \
                self._is_dataset(node.func.value):
            pos = DATASET_METHODS[node.func.attr]
            arg = node.args[pos] if pos is not None and len(node.args) > pos else None
            if arg is not None:
                for target in _handed_over(arg):
                    self.dataset_fns.append((target, caller, node.func.attr, node.lineno))

    def _compiled(self, node: ast.Call, caller: str | None) -> None:
        """``model.compile(loss=dice_loss, metrics=[iou, "accuracy"])``: the callables
        (names, factory calls, constructions) that ``fit`` and ``evaluate`` will call in
        their graph; none for a ``compile(..., run_eagerly=...)`` or ``re.compile``."""
        keys = {k.arg for k in node.keywords}
        if "run_eagerly" in keys or not keys & COMPILE_CALLABLES or \
                self.qualify(_dotted(node.func) or "") in REGEX_COMPILE:
            return
        todo = [k.value for k in node.keywords if k.arg in COMPILE_CALLABLES]
        while todo:
            e = todo.pop()
            if isinstance(e, (ast.List, ast.Tuple)):
                todo.extend(e.elts)
            elif isinstance(e, ast.Dict):
                todo.extend(e.values)
            elif not isinstance(e, ast.Lambda):
                self.compile_fns.extend((t, caller, node.lineno) for t in _handed_over(e))

    def _is_dataset(self, e: ast.expr) -> bool:
        while isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
            if e.func.attr in DATASET_ONLY_METHODS:
                return True
            d = _dotted(e.func)
            if d is not None and self.qualify(d).startswith(("tensorflow.data.", "tensorflow.compat.v2.data.")):
                return True
            e = e.func.value
        if isinstance(e, ast.Name):
            return (self.fn_stack[-1], e.id) in self.dataset_names or (None, e.id) in self.dataset_names
        return False

    def _arg(self, key: str, value: ast.expr, consts: bool = True) -> ArgInfo:
        if _config_entry(value):
            return ArgInfo(key, "python", ast.unparse(value))
        if isinstance(value, ast.Constant) and (value.value is None or isinstance(value.value, bool)):
            return ArgInfo(key, "flag", repr(value.value))
        if isinstance(value, ast.Constant) and isinstance(value.value, (int, float, str)):
            return ArgInfo(key, "literal", repr(value.value))
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub) and \
                isinstance(value.operand, ast.Constant) and isinstance(value.operand.value, (int, float)):
            return ArgInfo(key, "literal", repr(-value.operand.value))
        name = self._varying(value)
        if name is not None:
            return ArgInfo(key, "varying", name)
        text = self._constant(value) if consts else None
        if text == CONFIG_ENTRY:
            return ArgInfo(key, "python", value.id)  # type: ignore[attr-defined]
        if text is not None:
            return ArgInfo(key, "constant", text)
        return ArgInfo(key, "other")

    def _scope_consts(self, scope: list) -> tuple[set[str], dict[str, str]]:
        """The names a scope of :attr:`consts` binds, and those bound once to a literal;
        worked out when first asked (most scopes never are)."""
        if scope[2] is None:
            if self.rebinds is None:
                self.rebinds = _scope_rebinds(self.tree) if self.tree is not None else ({}, set())
            nonlocals, rebound = self.rebinds
            bound, literals = _bound_once_to_literals(scope[0], scope[1], nonlocals)
            if scope[1] is None:  # the module's: a function's ``global`` statement rebinds
                for g in rebound:
                    literals.pop(g, None)
            scope[2] = (bound, literals)
        return scope[2]

    def _constant(self, value: ast.expr) -> str | None:
        """The text of a Python constant that ``value`` surely is: a tuple or list display
        of literals (``(0.9, 1.1)``), or a name that its scope binds once, to such a
        literal (``zoom_range`` with ``zoom_range = (0.9, 1.1)`` in the enclosing function
        or the module)."""
        if type(value) is ast.Name:
            if any(value.id in ps for ps in self.lambda_params):
                return None
            for scope in reversed(self.consts):
                bound, literals = self._scope_consts(scope)
                if value.id in bound:
                    return literals.get(value.id)
            return None
        if type(value) in (ast.Tuple, ast.List) and _literal_text(value) is not None:
            return _literal_text(value)
        return None

    def _varying(self, value: ast.expr) -> str | None:
        """A name in ``value`` that changes on every iteration of an enclosing loop: the
        target of a ``range``/``enumerate`` loop, or a counter ``n += 1`` in the loop."""
        names = _names_in(value)
        if not names:
            return None
        for loop in reversed(self.loops[-1]):
            counters: set[str] = set()
            if isinstance(loop, (ast.For, ast.AsyncFor)):
                counters = _loop_counter_targets(loop, self.consts[-1][0] if self.consts else [])
                hit = names & counters
                if hit:
                    return sorted(hit)[0]
            for s in loop.body:
                if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and \
                        isinstance(s.value, ast.Constant) and isinstance(s.value.value, (int, float)) and \
                        (self.fn_stack[-1], s.target.id) not in self.tensor_names:
                    if s.target.id in names:
                        return s.target.id  # (a counter that started as ``tf.constant(0)`` is a tensor)
                    counters.add(s.target.id)
            # ``epsilon = max(1 - episode / 50, 0.01)`` in the loop's body: Python arithmetic on
            # a counter (Lord225/AIProject, held-out set 106)
            hit = names & _derived_from(loop.body, counters)
            if hit:
                return sorted(hit)[0]
        return None

    # -- after the walk

    def finish(self) -> ModuleSummary:
        out = self.out
        if out.instances:
            bound = {k.rpartition(".")[2] for k in out.instances}
            for fn, name in self.params:
                if name in bound:
                    out.instances[f"{fn}.{name}"] = ""  # the caller's argument: not known here
        for target, caller, line in self.tf_wrapped:
            f = self._local_function(target, caller)
            if f is not None and f.root is None:
                f.root = "which runs under tf.function"
            elif f is None and self._maybe_imported(target):
                out.passed.append(PassedRoot(target, caller, line, "`tf.function`", "which runs it as a graph"))
        for target, caller, method, line in self.dataset_fns:
            f = self._local_function(target, caller)
            if f is not None and f.root is None:
                f.root = f"passed to `Dataset.{method}`, which always traces it as a graph"
            elif f is None and self._maybe_imported(target):
                out.passed.append(PassedRoot(target, caller, line, f"`Dataset.{method}`",
                                             "which always traces it as a graph"))
        for target, caller, line in self.compile_fns:
            f = self._local_function(target, caller)
            if f is not None or self._maybe_imported(target):
                # a root only where ``fit`` is in reach: the index decides (ProjectIndex._compile_traces)
                out.passed.append(PassedRoot(f.name if f is not None else target, caller, line, COMPILE_TO,
                                             KERAS_STEP_REASON))
        for target, caller in self.eager_bodies:
            f = self._local_function(target, caller)
            if f is not None and f.root is None:
                f.eager_body = True
        # Keras steps are roots only once their class is known to be a Keras model, which
        # may take other modules: the index decides (ProjectIndex.keras_model_class)
        return out

    def _maybe_imported(self, target: str) -> bool:
        """Whether ``target`` (as handed over: ``ops.parse``, ``make()``) may name another
        module's function: through an import, or a bare name after a star import."""
        name = target.removesuffix("()")
        return name.split(".")[0] in self.out.imports or bool(self.out.stars) and "." not in name

    def _local_function(self, target: str, caller: str | None) -> FunctionSummary | None:
        fns = self.out.functions
        if target.startswith("self.") and caller is not None:
            cls = fns[caller].cls if caller in fns else None
            while cls is None and caller is not None and caller in fns:
                caller = fns[caller].parent
                cls = fns[caller].cls if caller in fns else None
            return fns.get(f"{cls}.{target[5:]}") if cls else None
        scope = caller
        while scope is not None:
            if f"{scope}.{target}" in fns:
                return fns[f"{scope}.{target}"]
            scope = fns[scope].parent if scope in fns else None
        return fns.get(target)


def _handed_over(arg: ast.expr) -> list[str]:
    """The functions an argument hands to what traces it: ``parse`` or ``ops.parse`` as
    written, or those a lambda calls (``lambda p: pose_to_ray(p, n)``): the lambda is
    traced, and so is what it calls."""
    if isinstance(arg, ast.Lambda):
        return [d for c in ast.walk(arg.body) if isinstance(c, ast.Call) for d in (_dotted(c.func),)
                if d is not None]
    if isinstance(arg, ast.Call):  # ``ds.map(make_parser(80))``: what the factory returns
        d = _dotted(arg.func)
        return [] if d is None else [d + "()"]
    d = _dotted(arg)
    return [] if d is None else [d]


def _names_in(value: ast.expr) -> set[str]:
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, ast.BinOp):
        return _names_in(value.left) | _names_in(value.right)
    if isinstance(value, ast.UnaryOp):
        return _names_in(value.operand)
    if isinstance(value, ast.Call) and _dotted(value.func) in ("int", "float", "str", "bool") and value.args:
        return _names_in(value.args[0])
    return set()


#: progress bars that hand on what they wrap (``tqdm(range(n))``)
_PROGRESS_BARS = frozenset({"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "auto.tqdm", "notebook.tqdm"})
#: Python functions that give a Python number from Python numbers
_PY_NUMBER_FUNCS = frozenset({"max", "min", "abs", "round", "float", "int", "pow"})


def _derived_from(body: list[ast.stmt], counters: set[str]) -> set[str]:
    """The names that statements of ``body`` (a loop's) bind to Python arithmetic on the
    ``counters`` (or on names so bound before them): ``lr = 0.1 - 0.001 * epoch``."""
    out: set[str] = set()
    if not counters:
        return out
    known = set(counters)
    for st in body:
        if type(st) is not ast.Assign or len(st.targets) != 1 or type(st.targets[0]) is not ast.Name:
            continue
        used: set[str] = set()
        ok = True
        for n in ast.walk(st.value):
            t = type(n)
            if t is ast.Name:
                used.add(n.id)  # type: ignore[attr-defined]
            elif t is ast.Call:
                d = _dotted(n.func) or ""  # type: ignore[attr-defined]
                if d not in _PY_NUMBER_FUNCS and not d.startswith("math."):
                    ok = False
                    break
            elif t is ast.Attribute:
                if not (_dotted(n) or "").startswith("math."):  # ``self.base`` may be a tensor
                    ok = False
                    break
            elif not isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Constant, ast.expr_context, ast.operator,
                                    ast.unaryop)):
                ok = False
                break
        name = st.targets[0].id
        if ok and used & known:
            out.add(name)
            known.add(name)
        else:
            known.discard(name)
            out.discard(name)
    return out


def _loop_counter_targets(node: ast.For | ast.AsyncFor, scope: list | None = None) -> set[str]:
    it = node.iter
    if type(it) is ast.Name and scope:
        # ``t = tqdm(range(episodes))`` then ``for episode in t:``
        bound = [s.value for s in scope if type(s) is ast.Assign and len(s.targets) == 1 and
                 type(s.targets[0]) is ast.Name and s.targets[0].id == it.id]
        if len(bound) == 1:
            it = bound[0]
    if isinstance(it, ast.Call) and (_dotted(it.func) or "") in _PROGRESS_BARS and it.args:
        it = it.args[0]
    if not isinstance(it, ast.Call):
        return set()
    fname = _dotted(it.func) or ""
    if fname in _RANGE_LIKE:
        nums = [a.value for a in it.args if isinstance(a, ast.Constant) and isinstance(a.value, int)]
        if len(nums) == len(it.args) and 1 <= len(nums) <= 3:
            count = nums[0] if len(nums) == 1 else max(0, (nums[1] - nums[0]) // ((nums[2] if len(nums) == 3 else 1) or 1))
            if count <= SMALL_LOOP:
                return set()
        return {node.target.id} if isinstance(node.target, ast.Name) else set()
    if fname == "enumerate" and isinstance(node.target, ast.Tuple) and node.target.elts and \
            isinstance(node.target.elts[0], ast.Name):
        return {node.target.elts[0].id}
    return set()


def may_hold_roots(text: str, wrappers: Iterable[str] = ()) -> bool:
    """Whether a module's text may hold a graph root: it mentions TensorFlow and spells
    ``tf.function`` as an attribute, a decorator, a call or an imported name (``from
    tensorflow import function as tff``, on one line or in parentheses), defines a Keras
    ``train_step`` (or test, predict), calls a tf.data method, or names a configured
    wrapper, or hands ``model.compile`` a loss or metric. A step (or a ``compile``) needs no
    mention of TensorFlow: its model class may be imported from another module. Prose ("a
    loss function") and names such as ``global_step`` do not count, so
    most modules are never summarized. Written as literal searches first: an alternation
    that starts with ``\\b`` makes the regular expression engine try every position, and
    this runs on every module of the project."""
    if any(w.rsplit(".", 1)[-1] in text for w in wrappers):
        return True
    if "_step" in text and _STEP_DEF.search(text):
        return True  # a Keras step whose model class may come from another module
    if ".compile(" in text and _COMPILE_TEXT.search(text) and _COMPILE_KEYWORDS.search(text):
        return True  # losses and metrics handed to ``compile``, for ``fit`` to trace
    if not _TF_TEXT.search(text):
        return False
    if "function" in text and _mentions_function(text):
        return True
    return _DATASET_CALL.search(text) is not None


def may_run_keras_graph(text: str, wrappers: Iterable[str] = ()) -> bool:
    """Whether a module's text may run Keras layers as a graph: a graph root
    (:func:`may_hold_roots`), or Keras' compiled loops (``fit``, ``predict``, ...) and
    symbolic builds (``Input``, ``Sequential``, a functional ``Model``, ``build``,
    ``summary``, exports). Keras 3 calls ``call`` with symbolic tensors only there; a
    project without any calls its layers eagerly, on concrete tensors."""
    return may_hold_roots(text, wrappers) or _keras_graph_text(text)


def _mentions_function(text: str) -> bool:
    for m in _FUNCTION_WORD.finditer(text):
        at = m.start()
        before = text[at - 1] if at else "\n"
        if before in ".@":
            return True  # tf.function, @function
        if m.group(1) and not (before.isalnum() or before == "_"):
            return True  # function(f), function as tff
    return _FUNCTION_IMPORT.search(text) is not None


#: a line of a notebook's summary is ``cell * CELL_LINES + line in the cell`` (see :func:`where`)
CELL_LINES = 1_000_000


def where(path: str, line: int) -> str:
    """A place in another file of the project, for messages: "`ops.py` (line 12)", or for
    a notebook "`train.ipynb` (cell 4, line 2)"."""
    if path.endswith(NOTEBOOK_SUFFIX) and line >= CELL_LINES:
        return f"`{path}` (cell {line // CELL_LINES}, line {line % CELL_LINES})"
    return f"`{path}` (line {line})"


def _to_cells(s: "ModuleSummary", line_map: list[tuple[int, int, int] | None]) -> None:
    """Number a notebook summary's lines by cell (the module's own lines mean nothing
    to its reader)."""
    def cell_line(n: int) -> int:
        got = line_map[n] if 0 < n < len(line_map) else None
        return got[0] * CELL_LINES + got[1] if got is not None else n

    for f in s.functions.values():
        f.line = cell_line(f.line)
    for c in s.calls:
        c.line = cell_line(c.line)
    for p in s.passed:
        p.line = cell_line(p.line)
    s.top_reads = {k: cell_line(v) for k, v in s.top_reads.items()}


def summarize(source: str | bytes, module: str, is_package: bool = False,
              wrappers: Iterable[str] = ()) -> ModuleSummary | None:
    """The summary of one module's source, None when Python cannot parse it."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    s = _Summarizer(module, is_package, frozenset(wrappers))
    words = (b"global", b"nonlocal") if isinstance(source, bytes) else ("global", "nonlocal")
    if not any(w in source for w in words):  # type: ignore[operator]
        s.rebinds = ({}, set())  # no ``global``/``nonlocal`` statement to look for
    try:
        s.visit(tree)
        s.out.top_reads = _top_level_reads(tree)
    except RecursionError:
        return None
    return s.finish()


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _top_level_reads(tree: ast.Module) -> dict[str, int]:
    """Attribute name -> the first line where module-level code (outside every function
    and lambda; class bodies included, as they run on import) reads ``.name``. A walk of
    its own over module-level statements only: most modules are definitions, so it is
    short, and the summary's main walk stays free of a visit per attribute."""
    out: dict[str, int] = {}
    stack: list[ast.AST] = [st for st in reversed(tree.body) if not isinstance(st, _SCOPES)]
    while stack:
        n = stack.pop()
        if isinstance(n, _SCOPES):
            continue
        if type(n) is ast.Attribute and type(n.ctx) is ast.Load:  # type: ignore[attr-defined]
            if n.attr not in out or n.lineno < out[n.attr]:  # type: ignore[attr-defined]
                out[n.attr] = n.lineno  # type: ignore[attr-defined]
        stack.extend(ast.iter_child_nodes(n))
    return out


def scan_imports(text: str, module: str, is_package: bool) -> list[str]:
    """Modules (and ``module.name`` candidates) a module's text imports, found with a
    regular expression: enough to know who may import whom without parsing."""
    out: list[str] = []
    for m in _IMPORT_LINE.finditer(text):
        frm, names, plain = m.group(1), m.group(2), m.group(3)
        if plain is not None:
            for part in plain.split(","):
                name = part.split(" as ")[0].strip()
                if name:
                    out.append(name)
            continue
        level = len(frm) - len(frm.lstrip("."))
        base = resolve_relative(module, is_package, level, frm.lstrip(".") or None)
        if base is None:
            continue
        out.append(base)
        for part in names.strip("()").replace("\\", " ").split(","):
            name = part.split(" as ")[0].strip()
            if name and name != "*" and name.isidentifier():
                out.append(f"{base}.{name}")
    return out


# ---------------------------------------------------------------------------------------
# The index of one project


def read_regular_file(path: str) -> bytes | None:
    """The bytes of a regular file; None for anything else (a FIFO named ``x.py`` would
    block a plain ``open`` for ever) or when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb") as f:
            fd = -1
            return f.read()
    except OSError:
        return None
    finally:
        if fd >= 0:
            os.close(fd)




def eager_instance_calls(tree: ast.Module, names: set[str]) -> dict[tuple[int, str], str | None]:
    """The calls of one of ``names`` (line and name, to the name the instance is bound
    to, None for one called at once) that make an instance only the module's top-level
    code calls: at once (``Invert()(image)``), or bound by a module-level statement
    (``encoder = Encoder(boxes)`` in a script or a notebook cell) to a name whose every
    later mention is a direct call ``encoder(labels)`` or a look at its weights
    (``encoder.set_weights(w)``; ``encoder.build(shape)`` where the class defines
    ``build``) outside every function, lambda and class, or that is never mentioned again
    (the instance is never called; a notebook may have used the name before). No
    function may name it at all.
    Module-level code runs eagerly, so such an instance's ``call`` gets concrete tensors;
    none is accepted in a module that makes a symbolic ``Input`` (a call there may be
    building a functional model). Whether other modules read the bound names is for
    the caller to ask."""
    made: list[tuple[int, str, ast.Call, ast.Name]] = []
    accepted: dict[tuple[int, str], str | None] = {}
    defs = [c for c in tree.body if isinstance(c, ast.ClassDef) and c.name in names]
    own_builds = len(defs) == len(names) and all(
        any(isinstance(m, ast.FunctionDef) and m.name == "build" for m in c.body) for c in defs)
    #: name -> its mentions: (top-level statement, inside a scope, a direct call's callee, node)
    mentions: dict[str, list[tuple[int, bool, bool, ast.AST]]] = {}
    for i, top in enumerate(tree.body):
        walk: list[tuple[ast.AST, bool]] = [(top, False)]
        while walk:
            node, scoped = walk.pop()
            t = type(node)
            if t is ast.Call:
                f = node.func  # type: ignore[attr-defined]
                if (f.attr if type(f) is ast.Attribute else f.id if type(f) is ast.Name else None) in SYMBOLIC_INPUTS:
                    return {}
                if not scoped and type(f) is ast.Call and type(f.func) is ast.Name and f.func.id in names:
                    accepted[(f.func.lineno, f.func.id)] = None
            elif t is ast.Assign and not scoped and len(node.targets) == 1 and \
                    type(node.targets[0]) is ast.Name and type(node.value) is ast.Call and \
                    type(node.value.func) is ast.Name and node.value.func.id in names:  # type: ignore[attr-defined]
                made.append((i, node.targets[0].id, node.value, node.targets[0]))  # type: ignore[attr-defined]
            elif t is ast.Name:
                mentions.setdefault(node.id, []).append((i, scoped, False, node))  # type: ignore[attr-defined]
            elif t in (ast.Global, ast.Nonlocal):
                for n in node.names:  # type: ignore[attr-defined]
                    mentions.setdefault(n, []).append((i, True, False, node))
            inner = scoped or t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
            if t is ast.Call and not scoped and type(node.func) is ast.Name:  # type: ignore[attr-defined]
                mentions.setdefault(node.func.id, []).append((i, False, True, node.func))  # type: ignore[attr-defined]
                walk.extend((k, inner) for k in ast.iter_child_nodes(node) if k is not node.func)  # type: ignore[attr-defined]
                continue
            if t is ast.Attribute and not scoped and type(node.value) is ast.Name and \
                    type(node.ctx) is ast.Load and (node.attr in RUNS_NO_CALL or  # type: ignore[attr-defined]
                                                    node.attr == "build" and own_builds):  # type: ignore[attr-defined]
                # ``gru.set_weights(w)``, ``gru.build(shape)`` (the class's own build): ``call`` does not run
                mentions.setdefault(node.value.id, []).append((i, False, True, node.value))  # type: ignore[attr-defined]
                continue
            walk.extend((k, inner) for k in ast.iter_child_nodes(node))
    for i, name, call, target in made:
        if all(not scoped and (j < i or node is target or direct)
               for j, scoped, direct, node in mentions.get(name, ())):
            accepted[(call.func.lineno, call.func.id)] = name  # type: ignore[attr-defined]
    return accepted


#: which calls of some class names a module makes that are no use of them:
#: (line, name) of each callee, to the module-level name the instance is bound to or None
InstanceUses = Callable[[ast.Module, set[str]], dict[tuple[int, str], str | None]]


def builder_consumed_calls(builders: frozenset[str]) -> InstanceUses:
    """The calls of a class whose instance only calls one of its methods ``builders`` at
    once: ``UNet(2).model(shape)``, or ``net = UNet(2)`` followed by ``net =
    net.model(shape)`` (see ``call_builds_a_functional_model``)."""
    def consumed(tree: ast.Module, names: set[str]) -> dict[tuple[int, str], str | None]:
        out: dict[tuple[int, str], str | None] = {}
        for node in ast.walk(tree):
            if type(node) is ast.Call:
                f = node.func  # type: ignore[attr-defined]
                if type(f) is ast.Attribute and f.attr in builders and type(f.value) is ast.Call and \
                        type(f.value.func) is ast.Name and f.value.func.id in names:
                    out[(f.value.func.lineno, f.value.func.id)] = None
                continue
            for part in ("body", "orelse", "finalbody"):
                stmts = getattr(node, part, None)
                if type(stmts) is not list:
                    continue
                for a, b in zip(stmts, stmts[1:]):
                    made, then = _single_assign_ast(a), _single_assign_ast(b)
                    if made is not None and then is not None and made[0] == then[0] and \
                            type(made[1]) is ast.Call and type(made[1].func) is ast.Name and \
                            made[1].func.id in names and type(then[1]) is ast.Call and \
                            type(then[1].func) is ast.Attribute and then[1].func.attr in builders and \
                            type(then[1].func.value) is ast.Name and then[1].func.value.id == made[0]:
                        out[(made[1].func.lineno, made[1].func.id)] = None
        return out
    return consumed


def _single_assign_ast(stmt: ast.stmt) -> tuple[str, ast.expr] | None:
    """``name = value`` as a statement: (name, value)."""
    if type(stmt) is ast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is ast.Name:  # type: ignore[attr-defined]
        return stmt.targets[0].id, stmt.value  # type: ignore[attr-defined]
    return None


#: the packages whose calls give values, not objects the project builds (a model)
_LIBRARY_ROOTS = frozenset({"tensorflow", "numpy", "keras", "tf_keras", "tensorflow_probability", "math", "scipy"})


#: the hooks of a Keras callback that ``fit`` runs after it has traced the train step
#: (``on_epoch_begin`` too: from the second epoch on)
_TRAINING_HOOKS = frozenset({"on_epoch_begin", "on_epoch_end", "on_train_batch_begin", "on_train_batch_end",
                             "on_batch_begin", "on_batch_end"})


def _model_sets(cls: ast.ClassDef) -> list[tuple[str, str, int]]:
    """``self.model.<attr> = ...`` (or ``+=``) statements in the training hooks of the
    callback class ``cls``: (attr, hook, line)."""
    out: list[tuple[str, str, int]] = []
    for m in cls.body:
        if type(m) is not ast.FunctionDef or m.name not in _TRAINING_HOOKS or not m.args.args:
            continue
        me = m.args.args[0].arg
        for n in ast.walk(m):
            targets = n.targets if type(n) is ast.Assign else [n.target] if type(n) in (ast.AugAssign, ast.AnnAssign) \
                else []  # type: ignore[attr-defined]
            for t in targets:
                if type(t) is ast.Attribute and type(t.value) is ast.Attribute and t.value.attr == "model" and \
                        type(t.value.value) is ast.Name and t.value.value.id == me:
                    out.append((t.attr, m.name, t.lineno))
    return out


def fits_with(tree: ast.Module, model: str, callback: str) -> bool:
    """Does ``tree`` call ``fit`` on an instance of ``model`` with an instance of
    ``callback`` among its callbacks? Instances are known by name: ``m = Model(...)``
    bound anywhere in the module (or ``Model(...).fit``), the callbacks given as a list or
    tuple display, or a name bound to one, of ``Callback(...)`` calls or names bound to them."""
    made: dict[str, set[str]] = {}
    lists: dict[str, list[ast.expr]] = {}
    fits: list[ast.Call] = []
    for n in ast.walk(tree):
        if type(n) is ast.Assign and len(n.targets) == 1 and type(n.targets[0]) is ast.Name:
            v = n.value
            if type(v) is ast.Call:
                made.setdefault(n.targets[0].id, set()).add((_dotted(v.func) or "").rpartition(".")[2])
            elif type(v) in (ast.List, ast.Tuple):
                lists[n.targets[0].id] = list(v.elts)  # type: ignore[attr-defined]
        elif type(n) is ast.Call and type(n.func) is ast.Attribute and n.func.attr == "fit":
            fits.append(n)

    def instance_of(e: ast.expr, cls: str) -> bool:
        if type(e) is ast.Call:
            return (_dotted(e.func) or "").rpartition(".")[2] == cls  # type: ignore[attr-defined]
        return type(e) is ast.Name and cls in made.get(e.id, ())  # type: ignore[attr-defined]

    for call in fits:
        if not instance_of(call.func.value, model):  # type: ignore[attr-defined]
            continue
        for k in call.keywords:
            if k.arg != "callbacks":
                continue
            v = k.value
            elts = list(v.elts) if type(v) in (ast.List, ast.Tuple) else \
                lists.get(v.id, []) if type(v) is ast.Name else []  # type: ignore[attr-defined]
            if any(instance_of(e, callback) for e in elts):
                return True
    return False


def _literal_text(value: ast.expr) -> str | None:
    """``value``'s source when it is a literal number, string or None, or a tuple or list
    display of them (not a bool: flags are judged apart)."""
    t = type(value)
    if t is ast.Constant:
        return None if type(value.value) is bool else repr(value.value)  # type: ignore[attr-defined]
    if t is ast.UnaryOp and type(value.op) is ast.USub and type(value.operand) is ast.Constant and \
            type(value.operand.value) in (int, float):  # type: ignore[attr-defined]
        return repr(-value.operand.value)  # type: ignore[attr-defined]
    if t in (ast.Tuple, ast.List):
        parts = [_literal_text(e) for e in value.elts]  # type: ignore[attr-defined]
        if any(p is None for p in parts):
            return None
        inner = ", ".join(parts)  # type: ignore[arg-type]
        return f"({inner},)" if t is ast.Tuple and len(parts) == 1 else \
            f"({inner})" if t is ast.Tuple else f"[{inner}]"
    return None


#: the libraries whose functions are never a project module's (their calls need no constants)
_LIBRARY_MODULES = ("tensorflow.", "keras.", "tf_keras.", "numpy.", "torch.", "jax.", "scipy.", "pandas.",
                    "matplotlib.", "math.", "os.", "sys.", "random.", "time.", "json.", "logging.",
                    "collections.", "functools.", "itertools.", "absl.", "tensorflow_probability.",
                    "tensorflow_addons.", "tensorflow_datasets.", "sklearn.", "cv2.", "PIL.")


def _ast_children(node: ast.AST) -> list[ast.AST]:
    """The child nodes of ``node``, read straight from ``_fields`` (as the summarizer's
    own walk does: ``ast.iter_child_nodes`` is several times slower)."""
    out: list[ast.AST] = []
    AST = ast.AST
    for name in node._fields:
        v = getattr(node, name, None)
        if type(v) is list:
            out.extend(c for c in v if isinstance(c, AST))
        elif isinstance(v, AST):
            out.append(v)
    return out


def _scope_rebinds(tree: ast.Module) -> tuple[dict[int, set[str]], set[str]]:
    """In one walk of the module: for each function or class (by id), the names some
    ``nonlocal`` statement within it declares; and every name a ``global`` statement
    declares."""
    nonlocals: dict[int, set[str]] = {}
    globals_: set[str] = set()
    stack: list[tuple[ast.AST, tuple[int, ...]]] = [(tree, ())]
    while stack:
        n, defs = stack.pop()
        t = type(n)
        if t is ast.Nonlocal:
            for d in defs:
                nonlocals.setdefault(d, set()).update(n.names)  # type: ignore[attr-defined]
        elif t is ast.Global:
            globals_.update(n.names)  # type: ignore[attr-defined]
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            defs = defs + (id(n),)
        stack.extend((k, defs) for k in _ast_children(n))
    return nonlocals, globals_


#: the names settings objects go by: argparse namespaces, parsed YAML/JSON configs, flags
#: (not ``opt``, often an optimizer, nor ``params``, sometimes a dict of weights)
CONFIG_NAMES = frozenset({"config", "cfg", "conf", "configs", "args", "FLAGS", "flags", "hparams", "hp",
                          "settings", "options"})
#: the ``_constant`` text of a name bound once to an entry of one
CONFIG_ENTRY = "<config entry>"


def _config_entry(value: ast.expr) -> bool:
    """An entry of a settings object: ``config.augmentation_ops.max_scaling``,
    ``args.lr``, ``cfg["train"]["batch"]``. A Python value (a number, a string, a list of
    them) read from the command line or a configuration file, never a tensor."""
    depth = 0
    while isinstance(value, (ast.Attribute, ast.Subscript)):
        if isinstance(value, ast.Subscript) and not (isinstance(value.slice, ast.Constant) and
                                                     isinstance(value.slice.value, str)):
            return False
        value = value.value
        depth += 1
    return depth > 0 and isinstance(value, ast.Name) and value.id in CONFIG_NAMES


def _bound_once_to_literals(body: list[ast.stmt], args: ast.arguments | None,
                            nonlocals: dict[int, set[str]]) -> tuple[set[str], dict[str, str]]:
    """For one function's body (or the module's): every name it binds (parameters
    included), and those bound exactly once, by a plain ``name = literal`` statement, with
    the literal's text, or only to entries of a settings object (:data:`CONFIG_ENTRY`). Nested functions and classes bind their own names; one that
    declares a name ``nonlocal`` rebinds it here (``nonlocals``: :func:`_scope_rebinds`)."""
    count: dict[str, int] = {}
    literals: dict[str, str] = {}
    entries: dict[str, int] = {}  # how often a name is bound to an entry of a settings object
    if args is not None:
        for p in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]:
            count[p.arg] = 2
    stack: list[ast.AST] = list(body)
    while stack:
        n = stack.pop()
        t = type(n)
        if t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            count[n.name] = 2  # type: ignore[attr-defined]
            for g in nonlocals.get(id(n), ()):
                count[g] = 2
            continue
        if t is ast.Lambda:
            continue
        if t is ast.Name and type(n.ctx) is not ast.Load:  # type: ignore[attr-defined]
            count[n.id] = count.get(n.id, 0) + 1  # type: ignore[attr-defined]
        elif t in (ast.Import, ast.ImportFrom):
            for a in n.names:  # type: ignore[attr-defined]
                count[(a.asname or a.name).split(".")[0]] = 2
        elif t in (ast.Global, ast.Nonlocal):
            for g in n.names:  # type: ignore[attr-defined]
                count[g] = 2
        elif t is ast.Assign and len(n.targets) == 1 and type(n.targets[0]) is ast.Name:  # type: ignore[attr-defined]
            if _config_entry(n.value):  # type: ignore[attr-defined]
                entries[n.targets[0].id] = entries.get(n.targets[0].id, 0) + 1  # type: ignore[attr-defined]
            text = _literal_text(n.value)  # type: ignore[attr-defined]
            if text is not None:
                literals[n.targets[0].id] = text  # type: ignore[attr-defined]
        elif t is ast.AugAssign and type(n.target) is ast.Name:  # type: ignore[attr-defined]
            count[n.target.id] = 2  # type: ignore[attr-defined]
        stack.extend(_ast_children(n))
    once = {k: v for k, v in literals.items() if count.get(k) == 1}
    # every binding an entry of a settings object (``max_scale = config.aug.max_scaling``
    # in each branch): a Python value
    once.update((k, CONFIG_ENTRY) for k, n in entries.items() if count.get(k) == n)
    return set(count), once


def _qualified(dotted: str, imports: dict[str, str]) -> str:
    """``dotted`` as written in a module, qualified through the module's ``imports``
    (local name -> qualified name) and made canonical; as written when its head is not
    imported."""
    head, _, rest = dotted.partition(".")
    base = imports.get(head)
    if base is None:
        return dotted
    return canonical(base + "." + rest if rest else base)


#: what a weightless layer class may construct besides weightless Keras layers
_WEIGHTLESS_TF = frozenset({"TensorShape", "TensorSpec"})
#: calls that make a variable or random state, whatever they are called on
_STATE_MAKERS = frozenset({"add_weight", "add_variable", "Variable", "Generator", "SeedGenerator", "from_seed",
                           "from_non_deterministic_state", "StaticHashTable", "MutableHashTable"})


def _weightless_layer_class(tree: ast.Module, name: str, imports: dict[str, str]) -> bool:
    """Is ``name`` a top-level class of ``tree`` that subclasses the Keras ``Layer`` itself
    and owns no variable: nothing in its body adds a weight, makes a variable or random
    state, or constructs a Keras layer that owns one; the only other classes it
    constructs are plain classes of its module (a settings object, a namedtuple) and
    Python's own (acodet's ``MelSpectrogram``, whose ``build`` makes two ``Lambda``
    layers)?"""
    import builtins
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    node = classes.get(name)
    if node is None or node.decorator_list or node.keywords or len(node.bases) != 1:
        return False

    base = _dotted(node.bases[0])
    if base is None or _qualified(base, imports) not in ("keras.layers.Layer", "keras.Layer"):
        return False
    # the module's plain classes: no base but ``object``/``NamedTuple``, or a namedtuple
    plain = {c.name for c in classes.values() if all(_dotted(b) in ("object", "NamedTuple", "typing.NamedTuple")
                                                      for b in c.bases)}
    plain |= {t.id for a in tree.body if type(a) is ast.Assign and type(a.value) is ast.Call
              and (_dotted(a.value.func) or "").rsplit(".", 1)[-1] == "namedtuple"
              for t in a.targets if type(t) is ast.Name}
    for n in ast.walk(node):
        if type(n) is not ast.Call:
            continue
        d = _dotted(n.func)
        last = d.rsplit(".", 1)[-1] if d is not None else n.func.attr if isinstance(n.func, ast.Attribute) else None
        if last is None:
            continue
        if last in _STATE_MAKERS:
            return False
        if not last[:1].isupper():
            continue
        if d is None:
            return False
        q = _qualified(d, imports)
        if q.startswith(("keras.", "tensorflow.", "tf_keras.")):
            if last not in STATELESS_LAYERS and last not in _WEIGHTLESS_TF:
                return False
        elif d not in plain and not hasattr(builtins, d):
            return False
    return True


#: the guard of a branch that runs only eagerly (:attr:`CallSite.guards`)
_EAGER_GUARD = ["", "-1", "", "eager"]
#: calls and flags whose truth says "running eagerly" (``tf.executing_eagerly()``,
#: ``self.run_eagerly``, ``tf.config.functions_run_eagerly()``)
_EAGER_WORDS = frozenset({"executing_eagerly", "run_eagerly", "functions_run_eagerly"})


def _eager_test(test: ast.expr) -> bool | None:
    """True when ``test`` holds only in eager runs (an eager check, or an ``and`` with one);
    False when it holds only in traced ones (``not`` such a check, or an ``or`` of them),
    so that its ``else`` is eager; None otherwise."""
    if type(test) is ast.UnaryOp and type(test.op) is ast.Not:
        inner = _eager_test(test.operand)
        return None if inner is None else not inner
    if type(test) is ast.BoolOp:
        parts = [_eager_test(v) for v in test.values]
        if type(test.op) is ast.And:
            return True if True in parts else None
        return False if False in parts else None
    e = test.func if type(test) is ast.Call else test
    if type(e) is ast.Attribute:
        return True if e.attr in _EAGER_WORDS else None
    if type(e) is ast.Name:
        return True if e.id in _EAGER_WORDS else None
    return None


def leaves_off(arg: ArgInfo | None, default_off: bool, off: tuple[str, ...]) -> bool:
    """Is a parameter off (one of the ``off`` flags, ``"None"``/``"False"``) in a call that
    gives it ``arg``, or leaves its default (``arg`` None; ``default_off``: that default is
    off)?"""
    return default_off if arg is None else arg.kind == "flag" and arg.text in off


def _passes_off(c: CallSite, name: str, pos: int, default: str, off: tuple[str, ...]) -> bool:
    """Does call ``c`` give parameter ``name`` (positional index ``pos``, -1 for
    keyword-only) one of the ``off`` flags, by argument or by leaving its default?"""
    if c.unpacks:
        return False
    arg = next((a for a in c.args if a.key == name or pos >= 0 and a.key == f"#{pos}"), None)
    return leaves_off(arg, default in off, off)


def _rebinds(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Does ``fn``'s own code (nested functions and classes aside) bind ``name`` anew, or
    declare it ``global``/``nonlocal``?"""
    stack: list[ast.AST] = list(fn.body)
    while stack:
        n = stack.pop()
        t = type(n)
        if t is ast.Name and type(n.ctx) is not ast.Load and n.id == name:  # type: ignore[attr-defined]
            return True
        if t in (ast.Global, ast.Nonlocal) and name in n.names:  # type: ignore[attr-defined]
            return True
        if t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


def _function_node(tree: ast.Module, qualified: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The definition of the function ``qualified`` (``SAC.train_step``) in ``tree``."""
    body: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for part in qualified.split("."):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and
                     n.name == part), None)
        if node is None:
            return None
        body = node.body  # type: ignore[attr-defined]
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _factory_result_only_called(fn: ast.FunctionDef | ast.AsyncFunctionDef, line: int, imports: dict[str, str]) -> bool:
    """Is the call on ``line`` of ``fn`` the whole value of ``x = factory(...)``, a
    statement of ``fn`` (not of a function in it), with ``x`` bound nowhere else in
    ``fn`` and only called there, directly, each time with only parameters, globals,
    attributes, literals and what library calls (a name ``imports`` holds) return?"""
    made = None
    for st in ast.walk(fn):
        if isinstance(st, ast.Assign) and st.lineno == line and len(st.targets) == 1 and \
                isinstance(st.targets[0], ast.Name) and isinstance(st.value, ast.Call):
            made = st.targets[0].id
            break
    if made is None:
        return False
    bound: dict[str, list[ast.expr]] = {}
    stores = direct = loads = 0
    stored: dict[str, int] = {}  # every binding of each name (loop targets, unpacking, ...)
    calls: list[ast.Call] = []
    walk: list[tuple[ast.AST, bool]] = [(s, False) for s in fn.body]
    while walk:
        node, inner = walk.pop()
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    bound.setdefault(t.id, []).append(node.value)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stored[node.id] = stored.get(node.id, 0) + 1
        if isinstance(node, ast.Name) and node.id == made:
            if isinstance(node.ctx, ast.Store):
                stores += 1
            else:
                loads += 1
            if inner:
                return False
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == made:
            direct += 1
            calls.append(node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and made in node.names:
            return False
        scoped = inner or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
        walk.extend((k, scoped) for k in ast.iter_child_nodes(node))
    if stores != 1 or loads != direct or not direct:
        return False

    def plain(e: ast.expr, depth: int = 0) -> bool:
        if isinstance(e, (ast.Constant, ast.Attribute)):
            return True
        if isinstance(e, ast.Starred):
            return plain(e.value, depth)
        if isinstance(e, ast.Call):
            d = _dotted(e.func)
            return d is not None and d.split(".")[0] in imports and \
                imports[d.split(".")[0]].split(".")[0] in _LIBRARY_ROOTS
        if isinstance(e, ast.Name):
            if e.id not in stored:
                return True  # a parameter, or a global: the same object in every iteration
            values = bound.get(e.id, [])
            return len(values) == stored[e.id] and depth < 4 and all(plain(v, depth + 1) for v in values)
        return False

    return all(plain(a) for c in calls for a in list(c.args) + [k.value for k in c.keywords])


def _called_in_a_loop(s: "ModuleSummary", fn: str) -> int | None:
    """The line of a call of the module's function ``fn`` made in a loop of the same
    module: ``self.m()`` from a method of the class of method ``fn``, or ``f()`` for a
    module function ``f``; None if there is none."""
    info = s.functions.get(fn)
    if info is None:
        return None
    if info.cls is not None and info.parent is None:
        callee, own = f"self.{fn.rsplit('.', 1)[-1]}", info.cls + "."
        for c in s.calls:
            if c.in_loop and c.callee == callee and c.caller is not None and c.caller.startswith(own):
                return c.line
        return None
    if info.cls is None and info.parent is None:
        for c in s.calls:
            if c.in_loop and c.callee == fn:
                return c.line
    return None


def _uses_names(tree: ast.Module, names: frozenset[str], source: str,
                accept: InstanceUses | None = None) -> tuple[bool, set[str], set[str]]:
    """Whether the module ``tree`` uses one of ``names`` of the module whose last name is
    ``source`` (see :meth:`ProjectIndex.names_used_elsewhere`), the local names it
    imports them as, and the module-level names it binds accepted instances to. The
    calls that ``accept`` gives (:func:`eager_instance_calls`,
    :func:`builder_consumed_calls`) are no use."""
    aliases: set[str] = set()
    loads: set[str] = set()
    load_nodes: list[ast.Name] = []
    attrs: set[str] = set()
    strings: set[str] = set()
    modules: set[str] = set()  # names bound by ``import m`` / ``from p import m``
    getattr_on: set[str] = set()
    exported = {id(e) for stmt in tree.body if isinstance(stmt, (ast.Assign, ast.AugAssign))
                for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                if isinstance(t, ast.Name) and t.id == "__all__"
                for e in ast.walk(stmt.value)}  # ``__all__`` lists a name; it does not use it
    for node in ast.walk(tree):
        t = type(node)
        if t is ast.Name:
            loads.add(node.id)  # type: ignore[attr-defined]
            if accept is not None:
                load_nodes.append(node)  # type: ignore[arg-type]
        elif t is ast.Attribute:
            attrs.add(node.attr)  # type: ignore[attr-defined]
        elif t is ast.Constant and type(node.value) is str and id(node) not in exported:  # type: ignore[attr-defined]
            strings.add(node.value)  # type: ignore[attr-defined]
        elif t is ast.ImportFrom:
            here = (node.module or "").rpartition(".")[2] == source  # type: ignore[attr-defined]
            for a in node.names:  # type: ignore[attr-defined]
                if a.name == "*" and here:
                    aliases.update(names)
                elif a.name in names and here:
                    aliases.add(a.asname or a.name)
                else:
                    modules.add(a.asname or a.name)
        elif t is ast.Import:
            for a in node.names:  # type: ignore[attr-defined]
                modules.add(a.asname or a.name.partition(".")[0])
        elif t is ast.Call and isinstance(node.func, ast.Name) and node.func.id == "getattr" and \
                node.args and isinstance(node.args[0], ast.Name):  # type: ignore[attr-defined]
            getattr_on.add(node.args[0].id)  # type: ignore[attr-defined]
    bound: set[str] = set()
    if accept is not None:
        made = accept(tree, set(names | aliases))
        loads = {n.id for n in load_nodes if (n.lineno, n.id) not in made}
        bound = {b for b in made.values() if b is not None}
    used = bool((names | aliases) & loads or names & attrs or names & strings or DYNAMIC_LOOKUPS & loads or
                getattr_on & modules)
    return used, aliases, bound


def _dead_holders(tree: ast.Module, names: frozenset[str] | set[str]) -> set[str] | None:
    """The module's top-level classes and functions that hold every use of ``names``
    (see :func:`_uses_names`), when each of them is named nowhere in the module outside
    its own body, and the module looks nothing up dynamically; None when a use is
    elsewhere (module-level code, a string) or a holder is used here."""
    holders: dict[str, ast.AST] = {}
    rest: list[ast.AST] = []
    for stmt in tree.body:
        if type(stmt) in (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef) and \
                _mentions(stmt, names) is not None:
            holders[stmt.name] = stmt  # type: ignore[attr-defined]
        else:
            rest.append(stmt)
    if not holders:
        return None
    for stmt in rest:
        if _mentions(stmt, names | set(holders)) is not None:
            return None
    for name, stmt in holders.items():
        if any(_mentions(other, {name}) is not None for n, other in holders.items() if n != name):
            return None  # holders that use each other: kept simple, taken as used
    return set(holders)


def is_test_path(path: str) -> bool:
    """Is ``path`` a test module pytest or unittest collects (``test_*.py``,
    ``*_test.py``, ``conftest.py``)?"""
    base = os.path.basename(path)
    return base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py"


#: a test framework in a module's text
_TEST_FRAMEWORK = re.compile(r"^\s*(?:import|from)\s+(?:unittest|pytest|absl\.testing)\b|\bTestCase\b", re.M)


def uses_a_test_framework(text: str) -> bool:
    """Does a module's text use ``unittest``, ``pytest``, ``absl.testing`` or a
    ``TestCase`` (``tf.test.TestCase``)?"""
    return _TEST_FRAMEWORK.search(text) is not None


def is_test_caller(path: str, caller: str | None, text: str) -> bool:
    """Is a call made in test code: a module that uses a test framework (``text``, see
    :func:`uses_a_test_framework`) and is a test module by name, or the call is in a
    function named ``test*`` or a method of a class named ``Test*`` or ``*Test``
    (``caller`` as qualified in the module)? A script named ``test_training.py`` that
    imports no test framework is no test."""
    if not uses_a_test_framework(text):
        return False
    if is_test_path(path):
        return True
    parts = (caller or "").split(".")
    return parts[-1].startswith("test") or any(p.startswith("Test") or p.endswith("Test") for p in parts[:-1])


def _runs_on_load(tree: ast.Module, path: str) -> bool:
    """Does the module do anything when loaded beyond defining things: a top-level
    statement other than an import, a definition, a docstring or an assignment without a
    call (a script, ``if __name__ == "__main__":``, ``model.fit(...)``), or is it a test
    module pytest loads?"""
    if is_test_path(path):
        return True
    for stmt in tree.body:
        t = type(stmt)
        if t in (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Pass):
            continue
        if t is ast.Expr and type(stmt.value) is ast.Constant:  # type: ignore[attr-defined]
            continue
        if t in (ast.Assign, ast.AnnAssign) and not any(type(n) is ast.Call for n in ast.walk(stmt)):
            continue
        return True
    return False


def _decorated(tree: ast.Module, names: set[str]) -> bool:
    return any(type(s) in (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef) and s.name in names and  # type: ignore[attr-defined]
               s.decorator_list for s in tree.body)  # type: ignore[attr-defined]


def _mentions(node: ast.AST, names: frozenset[str] | set[str]) -> ast.AST | None:
    """The first node of ``node`` that names one of ``names`` (a name, an attribute, a
    string) or looks names up dynamically; None when there is none. A statement that only
    imports them (``from .bias import AlibiBias``) does not count."""
    for n in ast.walk(node):
        t = type(n)
        if t is ast.Name and (n.id in names or n.id in DYNAMIC_LOOKUPS):  # type: ignore[attr-defined]
            return n
        if t is ast.Attribute and n.attr in names:  # type: ignore[attr-defined]
            return n
        if t is ast.Constant and type(n.value) is str and n.value in names:  # type: ignore[attr-defined]
            return n
    return None


def _declares_package(root: str) -> bool:
    if os.path.isfile(os.path.join(root, "setup.py")):
        return True
    for name, heads in (("pyproject.toml", ("[project]", "[tool.poetry]", "[build-system]")),
                        ("setup.cfg", ("[metadata]", "[options]"))):
        try:
            with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
                text = f.read(1 << 16)
        except OSError:
            continue
        if any(h in text for h in heads):
            return True
    return False


def find_root(path: str) -> str | None:
    """The nearest folder at or above ``path`` holding a project marker; without one, the
    outermost folder named for the run that holds ``path`` (remembered per folder during
    a run, see :func:`one_run`)."""
    d = os.path.abspath(path)
    if not os.path.isdir(d):
        d = os.path.dirname(d)
    if d in _RUN_ROOTS:
        return _RUN_ROOTS[d]
    start, found = d, None
    while True:
        if any(os.path.exists(os.path.join(d, m)) for m in ROOT_MARKERS):
            found = d
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    if found is None:
        # no marker: the outermost folder the user named that holds it, if any
        # (a file named on its own counts with its folder, walked shallowly: is_shallow)
        found = next((f for f, _ in _RUN_FOLDERS if start == f or start.startswith(f.rstrip(os.sep) + os.sep)), None)
    if _RUN[0]:
        _RUN_ROOTS[start] = found
    return found


@dataclass
class ModuleFile:
    name: str
    path: str  # absolute
    is_package: bool
    #: the folder the module is imported from (``sys.path`` entry it needs)
    base: str


@dataclass(frozen=True)
class ExternalCall:
    """A call of a function of the linted file, made in another module of the project."""

    path: str  # the other module's file, relative to the project root
    line: int
    caller: str | None
    in_loop: bool
    in_traced_code: bool
    args: tuple[ArgInfo, ...]
    unpacks: bool

    def arg_for(self, params: list[str], name: str) -> ArgInfo | None:
        """The argument this call gives parameter ``name`` of a function whose positional
        parameters are ``params``: by keyword, or by position (``#N``)."""
        for a in self.args:
            if a.key == name:
                return a
            if a.key.startswith("#") and int(a.key[1:]) < len(params) and params[int(a.key[1:])] == name:
                return a
        return None


@dataclass(frozen=True)
class TracedFrom:
    """Why a function of the linted file is traced: another module's function calls it."""

    caller: str
    path: str  # the caller's file, relative to the project root
    line: int
    reason: str  # why the caller is traced: "which Keras runs under tf.function", ...
    #: set when the function is handed over, not called: what it is passed to
    passed_to: str | None = None

    def describe(self) -> str:
        if self.passed_to is not None:
            return f"passed to {self.passed_to} in {where(self.path, self.line)}, {self.reason}"
        return f"called from `{_short(self.caller)}` in {where(self.path, self.line)}, {self.reason}"


class ProjectIndex:
    """The modules of one project and their summaries, filled on demand."""

    def __init__(self, root: str, cache: IndexCache | None = None, wrappers: Iterable[str] = (),
                 shallow: bool = False) -> None:
        self.root = root
        #: a folder with no project marker that holds a file the user named on its own:
        #: only its own modules and the packages (``__init__.py``) below it are the project
        #: (``tflint check ~/Downloads/train.py`` does not walk all of ~/Downloads)
        self.shallow = shallow
        self.cache = cache
        self.wrappers = frozenset(wrappers)
        self._files: dict[str, ModuleFile] | None = None
        self._by_name: dict[str, list[ModuleFile]] = {}
        self._summaries: dict[str, ModuleSummary | None] = {}
        self._scans: dict[str, tuple[list[str], bool]] = {}
        self._importers: dict[str, set[str]] | None = None
        #: per module path: the functions traced from its roots, {(path, fn): TracedFrom | None}
        self._closures: dict[str, dict[tuple[str, str], TracedFrom | None]] = {}
        #: per module path, the root-holding modules that reach it (a bit set), and the
        #: holders by bit (see :meth:`root_holders_reaching`)
        self._reach: tuple[dict[str, int], list[str]] | None = None
        #: path -> what its text says of Keras step methods (see ``keras_step_use``)
        self._step_texts: dict[str, KerasStepUse] = {}
        #: attribute name -> the modules whose module-level code reads it (see
        #: :meth:`top_level_read`)
        self._top_reads: dict[str, list[tuple[str, int]]] = {}
        self._trees: dict[str, ast.Module | None] = {}
        #: a notebook's line map, from reading it to summarizing it
        self._cell_lines: dict[str, list[tuple[int, int, int] | None]] = {}
        self._fingerprint: str | None = None
        #: what the closures computed so far say: path -> {function: TracedFrom} for calls
        #: from other modules, and every (path, function) found traced
        self._traced_index: dict[str, dict[str, TracedFrom]] = {}
        self._traced_all: set[tuple[str, str]] = set()
        self._distributable: bool | None = None
        self._eager: set[str] | None = None

    # -- files and names

    def files(self) -> dict[str, ModuleFile]:
        if self._files is None:
            self._files = {}
            for path in self._walk():
                mf = self._module_file(path)
                self._files[path] = mf
                self._by_name.setdefault(mf.name, []).append(mf)
        return self._files

    def _walk(self) -> Iterator[str]:
        count = 0
        for d, dirs, names in os.walk(self.root):
            dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x not in _SKIP_DIRS
                             and not (self.shallow and not os.path.isfile(os.path.join(d, x, "__init__.py"))
                                      and not _holds_named(os.path.join(d, x))))
            for n in sorted(names):
                if n.endswith((".py", NOTEBOOK_SUFFIX)):
                    count += 1
                    if count > MAX_MODULES:
                        return
                    yield os.path.join(d, n)

    def _module_file(self, path: str) -> ModuleFile:
        d, fname = os.path.split(path)
        if fname.endswith(NOTEBOOK_SUFFIX):
            # no import names a notebook: it only imports and calls the project's modules
            # (from its own folder, as Jupyter starts there), and hands them to tf.data
            return ModuleFile(f"<notebook {self.relpath(path)}>", path, False, d)
        is_package = fname == "__init__.py"
        parts = [] if is_package else [fname[:-3]]
        while os.path.isfile(os.path.join(d, "__init__.py")) and d != self.root:
            d, pkg = os.path.split(d)
            parts.insert(0, pkg)
        return ModuleFile(".".join(parts), path, is_package, d)

    def module_of(self, path: str) -> ModuleFile | None:
        """The module of a file (without walking the project: a file that only needs
        linting on its own never pays for the index)."""
        path = os.path.abspath(path)
        if self._files is not None and path in self._files:
            return self._files[path]
        return self._module_file(path) if path.endswith((".py", NOTEBOOK_SUFFIX)) else None

    def resolve_module(self, name: str, importer: ModuleFile) -> ModuleFile | None:
        """The project module ``name`` names, seen from ``importer``: the one beside it
        (the importer's own ``sys.path`` entry) first, else the only one of that name."""
        files = self.files()
        found = self._by_name.get(name)
        if not found:
            # an implicit namespace package (a folder without __init__.py): ``utils.crops``
            # is utils/crops.py beside the importer's sys.path entry or at the root
            rel = name.replace(".", os.sep)
            # (and the folders above the importer's, up to the root: ``from GAE.utils import
            # *`` in framspy/GAE/training.py, run from framspy/)
            above: list[str] = []
            d = os.path.dirname(importer.path)
            while d.startswith(self.root) and d != self.root and len(above) < 8:
                d = os.path.dirname(d)
                above.append(d)
            for base in dict.fromkeys((importer.base, os.path.dirname(importer.path), *above, self.root)):
                for cand in (os.path.join(base, rel + ".py"), os.path.join(base, rel, "__init__.py")):
                    if cand in files:
                        return files[cand]
            return None
        if len(found) == 1:
            return found[0]
        near = [m for m in found if m.base == importer.base]
        return near[0] if len(near) == 1 else None

    def resolve(self, qualified: str, importer: ModuleFile, _depth: int = 0) -> tuple[ModuleFile, str] | None:
        """(module, name in it) for a qualified name such as ``pkg.ops.helper``; follows
        re-exports (``from .ops import helper`` in ``pkg/__init__.py``)."""
        parts = qualified.split(".")
        for i in range(len(parts) - 1, 0, -1):
            mf = self.resolve_module(".".join(parts[:i]), importer)
            if mf is None:
                continue
            rest = ".".join(parts[i:])
            if _depth < 4:
                s = self.summary(mf)
                head = rest.split(".")[0]
                if s is not None and head not in s.functions and head not in s.classes and head in s.imports:
                    tail = rest[len(head):]
                    return self.resolve(s.imports[head] + tail, mf, _depth + 1)
            return mf, rest
        return None

    def fingerprint(self) -> str:
        """A hash of every module's content (through the stat-checked cache: an unchanged
        tree is not read): a file's findings may change when any other module does."""
        if self._fingerprint is None:
            h = hashlib.sha1()
            for path, mf in sorted(self.files().items()):
                e = self._entry(mf)
                h.update(f"{self.relpath(path)}\0{e['hash'] if e else '-'}\n".encode("utf-8", "surrogatepass"))
            self._fingerprint = h.hexdigest()
        return self._fingerprint

    def relpath(self, path: str) -> str:
        return os.path.relpath(path, self.root).replace(os.sep, "/")

    # -- reading, scanning, summarizing (through the cache)

    def _parsed(self, mf: ModuleFile) -> ast.Module | None:
        """The module's ``ast``, parsed once (None when it cannot be read or parsed)."""
        if mf.path not in self._trees:
            got = self._read(mf)
            try:
                self._trees[mf.path] = ast.parse(got[0]) if got is not None else None
            except (SyntaxError, ValueError, RecursionError):
                self._trees[mf.path] = None
        return self._trees[mf.path]

    def _read(self, mf: ModuleFile) -> tuple[bytes, str] | None:
        """The module's source and the hash of the file (a notebook: the module its code
        cells make, as the engine lints it)."""
        data = read_regular_file(mf.path)
        if data is None:
            return None
        digest = hashlib.sha1(data).hexdigest()
        if mf.path.endswith(NOTEBOOK_SUFFIX):
            from tflint.notebook import module_text

            got = module_text(data)
            if got is None:
                return None
            data = got[0].encode("utf-8", "surrogatepass")
            self._cell_lines[mf.path] = got[1]
        return data, digest

    def _entry(self, mf: ModuleFile) -> dict | None:
        """The cache entry of a file whose size and mtime are unchanged, else a fresh one."""
        try:
            st = os.stat(mf.path)
        except OSError:
            return None
        cached = self.cache.lookup(self.relpath(mf.path), st) if self.cache is not None else None
        if cached is not None:
            return cached
        got = self._read(mf)
        if got is None:
            return None
        data, digest = got
        text = data.decode("utf-8", "replace")
        entry = {"hash": digest, "imports": scan_imports(text, mf.name, mf.is_package),
                 "tf": may_hold_roots(text, self.wrappers), "eager": "run_functions_eagerly" in text}
        if self.cache is not None:
            self.cache.store(self.relpath(mf.path), st, entry)
        return entry

    def scan(self, mf: ModuleFile) -> tuple[list[str], bool]:
        """The modules ``mf`` imports (by a text scan) and whether it may hold graph roots."""
        got = self._scans.get(mf.path)
        if got is None:
            e = self._entry(mf)
            got = self._scans[mf.path] = (e["imports"], e["tf"]) if e is not None else ([], False)
        return got

    def runs_keras_graph(self, mf: ModuleFile) -> bool:
        """Whether ``mf``'s code may run Keras layers as a graph (:func:`may_run_keras_graph`
        on its text :func:`without_prose`)."""
        e = self._entry(mf)
        if e is None:
            return True
        got = e.get("graph")
        if got is None:  # asked rarely (a Keras 3 call with a tensor condition): read again
            data = self._read(mf)
            text = data[0].decode("utf-8", "replace") if data is not None else ""
            # the text first: only a module that may run a graph is read again without prose
            got = data is None or (e["tf"] or _keras_graph_text(text)) and \
                may_run_keras_graph(without_prose(text), self.wrappers)
            e["graph"] = got
        return got

    def summary(self, mf: ModuleFile) -> ModuleSummary | None:
        if mf.path in self._summaries:
            return self._summaries[mf.path]
        self._summaries[mf.path] = None  # a cycle through re-exports sees "not known yet"
        e = self._entry(mf)
        s: ModuleSummary | None = None
        if e is not None:
            raw = self.cache.summary(e["hash"]) if self.cache is not None else None
            if raw is not None:
                try:
                    s = ModuleSummary.from_json(raw)
                except (KeyError, TypeError, ValueError, AttributeError):
                    s = None  # a damaged entry: summarize again
            if s is None:
                got = self._read(mf)
                if got is not None:
                    s = summarize(got[0], mf.name, mf.is_package, self.wrappers)
                    if s is not None and mf.path in self._cell_lines:
                        _to_cells(s, self._cell_lines.pop(mf.path))
                    if s is not None and self.cache is not None:
                        self.cache.store_summary(got[1], s.to_json())
        self._summaries[mf.path] = s
        return s

    def importers(self, mf: ModuleFile) -> set[str]:
        """Paths of the project modules that import ``mf`` (or a name from it)."""
        if self._importers is None:
            rev: dict[str, set[str]] = {}
            for other in self.files().values():
                for name in self.scan(other)[0]:
                    for cand in (name, name.rpartition(".")[0]):
                        target = self.resolve_module(cand, other) if cand else None
                        if target is not None and target.path != other.path:
                            rev.setdefault(target.path, set()).add(other.path)
            self._importers = rev
        return self._importers.get(mf.path, set())

    def distributable(self) -> bool:
        """Whether the project is packaged for others to install (a ``setup.py``, or a
        ``pyproject.toml`` or ``setup.cfg`` that declares a package): then code the project
        never uses may still be used by its users."""
        if self._distributable is None:
            self._distributable = _declares_package(self.root)
        return self._distributable

    def names_used_elsewhere(self, mf: ModuleFile, names: Iterable[str], accept: InstanceUses | None = None) -> bool:
        """Whether a module that imports ``mf`` uses one of its top-level ``names``: loads
        it (or the alias it imports it as), reads it as an attribute (``layers.Gate``),
        names it in a string (``custom_objects``, ``getattr``; not in ``__all__``) or looks
        names up dynamically (``globals()``, ``eval``). A module that only imports a name and
        passes it on (a package's ``__init__`` that re-exports it) is followed to its own
        importers: in a project not packaged for others they are the package's only users.
        True when a module cannot be read or parsed: nothing is known of it. The calls
        ``accept`` gives are no use (an instance only module-level code calls:
        :func:`eager_instance_calls`), unless the modules that import that one read the
        name it is bound to (``train.encoder``)."""
        seen = {mf.path}
        todo = [(mf, frozenset(names))]
        while todo:
            cur, wanted = todo.pop()
            for p in sorted(self.importers(cur)):
                if p in seen:
                    continue
                seen.add(p)
                other = self.files().get(p)
                tree = self._parsed(other) if other is not None else None
                if tree is None:
                    return True  # unreadable or unparsable: nothing is known of it
                used, aliases, bound = _uses_names(tree, wanted, cur.name.rpartition(".")[2], accept)
                if used and accept is None:
                    # used only by definitions that are dead in turn (``AlibiBias`` made only
                    # in ``AlibiAttention.__init__``, a class nothing of the project uses)
                    holders = _dead_holders(tree, wanted | aliases)
                    used = holders is None or self._in_progress(other.path) or \
                        self._holders_used_elsewhere(other, holders) or \
                        _decorated(tree, holders) and self.may_be_loaded(other)
                    # (``@register_keras_serializable()``: a model that loads makes it by
                    # name, once a module that runs imports the one that defines it)
                if used or bound and self.names_used_elsewhere(other, bound):
                    return True
                if aliases:  # passed on (a package's ``__init__`` re-exports): follow its users
                    todo.append((other, frozenset(aliases)))
        return False

    def may_be_loaded(self, mf: ModuleFile) -> bool:
        """May running the project import ``mf``: it or a module that imports it, directly
        or through others, runs something when loaded (:func:`_runs_on_load`: a script, a
        notebook, a test module, a module whose top level calls anything), or cannot be
        read? A chain of modules that only define things, that nothing running imports,
        is never loaded: its decorators (``@register_keras_serializable()``) never run."""
        memo = self.__dict__.setdefault("_loaded", {})
        got = memo.get(mf.path)
        if got is None:
            files = self.files()
            got = False
            for p in self._importer_closure(mf):
                other = files.get(p) or mf
                tree = self._parsed(other)
                if tree is None or p.endswith(NOTEBOOK_SUFFIX) or _runs_on_load(tree, p):
                    got = True
                    break
            memo[mf.path] = got
        return got

    def _in_progress(self, path: str) -> bool:
        """Is a question about ``path``'s dead definitions already being asked (a cycle of
        modules importing each other)? Then the answer is "used", the safe one."""
        return path in self.__dict__.setdefault("_asking", set())

    def _holders_used_elsewhere(self, mf: ModuleFile, holders: set[str]) -> bool:
        asking = self.__dict__.setdefault("_asking", set())
        asking.add(mf.path)
        try:
            return self.names_used_elsewhere(mf, holders)
        finally:
            asking.discard(mf.path)

    def callback_model_sets(self) -> dict[str, list[tuple[str, str, int]]]:
        """What the Keras callbacks of the project set on their model while ``fit`` runs
        (``self.model.m = random.randint(0, n)`` in ``on_train_batch_begin``): attribute
        -> (path, ``Cls.hook``, line). Only modules whose text holds ``Callback`` are
        summarized; the answer is kept for the run."""
        got = self.__dict__.get("_model_sets")
        if got is None:
            got = {}
            files = self.files()
            for path in sorted(files):
                data = read_regular_file(path) if path not in self._summaries else b""
                if data is not None and data and b"Callback" not in data:
                    continue
                s = self.summary(files[path])
                for attr, hook, line in (s.model_sets if s is not None else ()):
                    got.setdefault(attr, []).append((path, hook, line))
            self.__dict__["_model_sets"] = got
        return got

    def fitted_with(self, model: str, callback: str) -> bool:
        """Does some module of the project fit an instance of the class ``model`` with an
        instance of the callback class ``callback`` (``m = HrGAN(...)``, ``path =
        PathCallback()``, ``m.fit(ds, callbacks=[ema, path])``)? Only the modules whose
        text names both are parsed. Kept per pair for the run."""
        memo = self.__dict__.setdefault("_fitted_with", {})
        key = (model, callback)
        if key not in memo:
            pa = re.compile(rb"\b" + re.escape(model.encode("utf-8")) + rb"\b")
            pb = re.compile(rb"\b" + re.escape(callback.encode("utf-8")) + rb"\b")
            memo[key] = False
            files = self.files()
            for path in sorted(files):
                data = read_regular_file(path)
                if data is None:
                    continue
                if data and not (pa.search(data) and pb.search(data)):
                    continue
                tree = self._parsed(files[path])
                if tree is not None and fits_with(tree, model, callback):
                    memo[key] = True
                    break
        return memo[key]

    def top_level_read(self, attr: str, besides: str) -> tuple[str, int] | None:
        """The first module of the project other than ``besides`` (in path order) whose
        module-level code reads ``.attr``, with the line; None if none does. Only the
        modules whose text holds the name are summarized (a project of thousands of
        modules names a given attribute in few of them); the answer is kept per name."""
        got = self._top_reads.get(attr)
        if got is None:
            got = []
            needle = attr.encode("utf-8")
            files = self.files()
            for path in sorted(files):
                mf = files[path]
                data = read_regular_file(path) if path not in self._summaries else b""
                if data is not None and data and needle not in data:
                    continue
                s = self.summary(mf)
                line = s.top_reads.get(attr) if s is not None else None
                if line is not None:
                    got.append((path, line))
            self._top_reads[attr] = got
        return next((r for r in got if r[0] != besides), None)

    def root_holders_reaching(self, mf: ModuleFile) -> list[str]:
        """The modules that may hold graph roots (:func:`may_hold_roots`) among ``mf``
        itself and the modules that import it, directly or through others: only their
        roots can reach ``mf`` through calls. Computed for every module at once, the first
        time it is asked (one pass over the import graph, each module's answer a bit set),
        since a run that lints a project asks it for each of its files."""
        if self._reach is None:
            self._reach = self._reach_masks(lambda m: self.scan(m)[1])
        mask = self._reach[0].get(mf.path)
        if mask is None:  # not a module of the walk (a file outside it): itself only
            return [mf.path] if self.scan(mf)[1] else []
        return self._members(mask, self._reach[1])

    def keras_step_use(self, mf: ModuleFile) -> KerasStepUse:
        """How ``mf`` and every module that imports it, directly or through others, use
        Keras step methods (:class:`KerasStepUse`): only those modules can hold the model
        objects of ``mf``'s classes. Asked only for a module that defines a step."""
        files = self.files()
        use = KerasStepUse()
        for p in self._importer_closure(mf):
            use = use | self._step_text(files.get(p) or mf)
        return use

    def _importer_closure(self, mf: ModuleFile) -> Iterator[str]:
        """``mf``'s path, then the modules that import it, directly or through others
        (breadth first). Asked for a few modules of a run (those defining Keras steps,
        layers with tensor conditions), so only the modules reached are ever read."""
        seen = {mf.path}
        todo = collections.deque([mf.path])
        files = self.files()
        while todo:
            p = todo.popleft()
            yield p
            cur = files.get(p)
            for q in sorted(self.importers(cur)) if cur is not None else ():
                if q not in seen:
                    seen.add(q)
                    todo.append(q)

    def _step_text(self, mf: ModuleFile) -> KerasStepUse:
        """:func:`keras_step_use_text` of one module, read once."""
        got = self._step_texts.get(mf.path)
        if got is None:
            data = self._read(mf)
            got = keras_step_use_text(data[0].decode("utf-8", "replace")) if data is not None else KerasStepUse()
            self._step_texts[mf.path] = got
        return got

    def keras_graph_reaching(self, mf: ModuleFile) -> bool:
        """Whether ``mf`` or a module that imports it, directly or through others, may run
        Keras layers as a graph (:meth:`runs_keras_graph`): only then can a layer of
        ``mf`` be called with symbolic tensors."""
        files = self.files()
        return any(self.runs_keras_graph(files.get(p) or mf) for p in self._importer_closure(mf))

    def runs_eagerly(self, mf: ModuleFile) -> bool:
        """Whether every tf.function of ``mf`` runs as Python because of a
        ``tf.config.run_functions_eagerly(True)`` in another module of the project:
        ``mf`` imports, directly or through others, a module whose own body says it (the
        switch runs whenever ``mf`` is loaded), or every module that imports ``mf`` runs
        eagerly itself or says it (:attr:`ModuleSummary.eager_switch`) and some does: the
        entry points that reach ``mf`` all switch, in a project not packaged for others
        (whose users import it without the switch). Nothing is inferred in a project where
        some module switches back with ``(False)``."""
        if self._eager is None:
            self._eager = self._eager_modules()
        return mf.path in self._eager

    def _eager_modules(self) -> set[str]:
        files = self.files()
        said: dict[str, ModuleSummary] = {}
        for p, m in files.items():
            e = self._entry(m)
            if e is not None and e.get("eager"):
                s = self.summary(m)
                if s is not None:
                    said[p] = s
        if not said or any(s.eager_off for s in said.values()):
            return set()
        eager = {p for p, s in said.items() if s.eager_switch}
        work = [p for p, s in said.items() if s.eager_at_import]
        while work:  # every module that imports, through others, one switching on import
            for q in self.importers(files[work.pop()]):
                if q not in eager:
                    eager.add(q)
                    work.append(q)
        if self.distributable():  # a package's users import it without the switch
            return eager
        importers = {p: self.importers(m) for p, m in files.items()}
        changed = bool(eager)
        while changed:  # the least fixed point: a cycle of importers alone proves nothing
            changed = False
            for p, imps in importers.items():
                if p not in eager and imps and imps <= eager:
                    eager.add(p)
                    changed = True
        return eager

    @staticmethod
    def _members(mask: int, holders: list[str]) -> list[str]:
        out = []
        while mask:
            low = mask & -mask
            out.append(holders[low.bit_length() - 1])
            mask ^= low
        return out

    def _reach_masks(self, holds: Callable[[ModuleFile], bool]) -> tuple[dict[str, int], list[str]]:
        """For each module, the bit set of the modules that ``holds`` among itself and
        its importers, direct or not, and the list that numbers those modules."""
        files = self.files()
        holders = [p for p, mf in files.items() if holds(mf)]
        bit = {p: 1 << i for i, p in enumerate(holders)}
        succ = {p: sorted(self.importers(mf)) for p, mf in files.items()}
        # Tarjan's strongly connected components, iteratively, over "is imported by": a
        # component is finished after every component it reaches, so its answer is its
        # own bits and those of the components it reaches, all known by then
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        on_stack: set[str] = set()
        stack: list[str] = []
        reach: dict[str, int] = {}
        counter = 0
        for start in files:
            if start in index:
                continue
            work: list[tuple[str, int]] = [(start, 0)]
            while work:
                v, i = work.pop()
                if i == 0:
                    index[v] = low[v] = counter
                    counter += 1
                    stack.append(v)
                    on_stack.add(v)
                nxt = succ.get(v, ())
                if i < len(nxt):
                    work.append((v, i + 1))
                    w = nxt[i]
                    if w not in index:
                        work.append((w, 0))
                    elif w in on_stack:
                        low[v] = min(low[v], index[w])
                    continue
                for w in nxt:  # children done: fold their low links in
                    if w in on_stack and w != v:
                        low[v] = min(low[v], low[w])
                if low[v] == index[v]:
                    members = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        members.append(w)
                        if w == v:
                            break
                    mask = 0
                    for w in members:
                        mask |= bit.get(w, 0)
                        for x in succ.get(w, ()):
                            if x not in on_stack and x in reach:
                                mask |= reach[x]
                    for w in members:
                        reach[w] = mask
        return reach, holders

    # -- traced code across modules

    def _callee(self, call: CallSite, caller_mf: ModuleFile, s: ModuleSummary) -> tuple[ModuleFile, str] | None:
        """The project function a call names: in its own module or through an import."""
        name = call.callee
        fns = s.functions
        if name.startswith("self.") and call.caller is not None:
            cls = self._owner_class(s, call.caller)
            if cls is not None:
                method = name[5:]
                if f"{cls}.{method}" in s.shadowed and call.caller != f"{cls}.__init__":
                    return None  # the instance's attribute: what the method returned in ``__init__``
                if f"{cls}.{method}" in fns:
                    return caller_mf, f"{cls}.{method}"
                return self._instance_callee(s.instances.get(f"{cls}.{method}"), caller_mf, s)
            return None
        scope = call.caller
        while scope is not None:
            if f"{scope}.{name}" in fns:
                return caller_mf, f"{scope}.{name}"
            if f"{scope}.{name}" in s.instances:  # a local object (or a parameter: not known)
                return self._instance_callee(s.instances[f"{scope}.{name}"], caller_mf, s)
            scope = fns[scope].parent if scope in fns else None
        if name in fns:
            return caller_mf, name
        if "." not in name and name not in s.imports and s.top_bound.count(name) == 1:
            got = self._instance_callee(s.instances.get(name), caller_mf, s)
            if got is not None:
                return got
        head = name.split(".")[0]
        if head in s.imports:
            got = self.resolve(s.imports[head] + name[len(head):], caller_mf)
            if got is not None and got[0].path != caller_mf.path:
                return got
            return None
        return self._star_function(name, caller_mf, s)

    def _instance_callee(self, made: str | None, caller_mf: ModuleFile,
                         s: ModuleSummary) -> tuple[ModuleFile, str] | None:
        """What calling an object of the class ``made`` (as the caller's module writes it)
        runs, when the class is another module's of the project: the ``call`` of a Keras
        layer, model or loss (their ``__call__`` runs it). ``net(x)``
        in a tf.function of ``train.py`` with ``net = Net()`` runs ``Net.call`` of
        ``nets.py`` in the graph."""
        if not made:
            return None
        head = made.split(".")[0]
        if head not in s.imports:
            return None  # a class of this module: the module's own model follows it
        try:
            got = self.resolve(s.imports[head] + made[len(head):], caller_mf)
        except (OSError, RecursionError, ValueError):
            return None
        if got is None or got[0].path == caller_mf.path:
            return None
        t_mf, cls = got
        t_sum = self.summary(t_mf)
        if t_sum is None or cls not in t_sum.classes:
            return None
        if f"{cls}.call" in t_sum.functions and f"{cls}.__call__" not in t_sum.functions and \
                self.keras_model_class(t_mf, cls, bases=_KERAS_CALLABLE_BASES):
            return t_mf, f"{cls}.call"
        # (a plain class's ``__call__`` is left out: what its parameters hold is not known
        # here, where a Keras ``call`` gets the tensors it is called with; set 47's BoltOn
        # optimizer, configured with strings and lists inside a test's tf.function)
        return None

    def _star_function(self, name: str, caller_mf: ModuleFile, s: ModuleSummary) -> tuple[ModuleFile, str] | None:
        """``from sac_train import *``: the top-level function ``name`` of that module,
        unless a later star import brings another of the same name (the last one wins)."""
        if s.stars and "." not in name and name not in s.functions and name not in s.classes and \
                name not in s.top_bound and name not in s.imports:
            for star in reversed(s.stars):
                mf = self.resolve_module(star, caller_mf)
                t = self.summary(mf) if mf is not None and mf.path != caller_mf.path else None
                if t is None:
                    continue
                f = t.functions.get(name)
                if f is not None and f.parent is None and f.cls is None and not name.startswith("_"):
                    return mf, name
                if name in t.functions or name in t.classes or name in t.imports or name in t.top_bound:
                    return None
        return None

    @staticmethod
    def _owner_class(s: ModuleSummary, fn: str) -> str | None:
        f = s.functions.get(fn)
        while f is not None and f.cls is None:
            f = s.functions.get(f.parent) if f.parent else None
        return f.cls if f is not None else None

    def traced_from(self, mf: ModuleFile) -> dict[tuple[str, str], TracedFrom | None]:
        """Every project function that the graph roots of ``mf`` reach, followed through
        calls into other modules: ``(path, function) -> TracedFrom`` (None for the roots)."""
        got = self._closures.get(mf.path)
        if got is not None:
            return got
        out: dict[tuple[str, str], TracedFrom | None] = {}
        self._closures[mf.path] = out
        s = self.summary(mf)
        if s is None:
            return out
        #: per traced function: (root, root's file, why the root is traced)
        origin: dict[tuple[str, str], tuple[str, str, str]] = {}
        work: list[tuple[ModuleFile, str]] = []
        for name, why in self._roots(mf, s):
            out[(mf.path, name)] = None
            origin[(mf.path, name)] = (name, self.relpath(mf.path), why)
            work.append((mf, name))
        for p in s.passed:  # an imported function handed to tf.function / Dataset.map / compile
            if p.to == COMPILE_TO and (p.target in s.functions or not self._compile_traces(mf)):
                continue  # a function of this module (a root above), or no ``fit`` in reach
            target, made = (p.target[:-2], True) if p.target.endswith("()") else (p.target, False)
            head = target.split(".")[0]
            got = self.resolve(s.imports[head] + target[len(head):], mf) if head in s.imports else \
                self._star_function(target, mf, s)  # ``ds.map(augment)`` after ``from helpers.augment import *``
            if got is None or got[0].path == mf.path:
                continue
            t_sum = self.summary(got[0])
            if t_sum is not None and made and p.to == COMPILE_TO and got[1] in t_sum.classes:
                # ``loss=DiceLoss()``: Keras calls the methods of a loss or metric object
                picked = [f"{got[1]}.{m}" for m in LOSS_METRIC_METHODS if f"{got[1]}.{m}" in t_sum.functions]
            elif t_sum is None or got[1] not in t_sum.functions:
                continue
            else:
                # ``ds.map(parsers.make(80))``: the factory runs eagerly; the functions it
                # defines (the one it returns among them) are what is traced
                picked = [n.name for n in t_sum.functions.values() if n.parent == got[1] and n.cls is None] \
                    if made else [got[1]]
            to = f"{p.to} through `{_short(target)}()`" if made else p.to
            for fn_name in picked:
                key = (got[0].path, fn_name)
                if key in out:
                    continue
                out[key] = TracedFrom(p.caller or "<module>", self.relpath(mf.path), p.line, p.reason, to)
                origin[key] = (fn_name, self.relpath(got[0].path), p.reason)
                work.append((got[0], fn_name))
        #: calls under ``if p:`` held back until a traced call of their function passes ``p``
        held: list[tuple[ModuleFile, str, CallSite]] = []
        freed: set[int] = set()
        while True:
            self._follow_calls(work, out, origin, held, freed)
            released = [h for h in held if not self._guard_off(h, mf, out, origin, held)]
            if not released:
                break
            for h in released:
                held.remove(h)
                freed.add(id(h[2]))
                work.append((h[0], h[1]))
        for (fpath, fn), via in out.items():
            self._traced_all.add((fpath, fn))
            if via is not None and via.path != self.relpath(fpath):
                known = self._traced_index.setdefault(fpath, {})
                old = known.get(fn)
                if old is None or _order(via) < _order(old):
                    known[fn] = via  # the same answer whatever order the closures came in
        return out

    def _follow_calls(self, work: list[tuple[ModuleFile, str]], out: dict[tuple[str, str], TracedFrom | None],
                      origin: dict[tuple[str, str], tuple[str, str, str]],
                      held: list[tuple[ModuleFile, str, CallSite]], freed: set[int]) -> None:
        """Follow the calls of the traced functions in ``work`` (and of those they reach)
        into ``out``; a call under ``if p:`` on a parameter (:attr:`CallSite.guards`) goes
        to ``held`` instead, unless ``freed`` names it."""
        while work:
            cur_mf, fn = work.pop()
            cur = self.summary(cur_mf)
            if cur is None:
                continue
            key_cur = (cur_mf.path, fn)
            root, root_file, why = origin[key_cur]
            for nested in cur.functions.values():
                key = (cur_mf.path, nested.name)
                if nested.parent == fn and nested.cls is None and key not in out and not nested.eager_body:
                    out[key] = out[key_cur]
                    origin[key] = origin[key_cur]
                    work.append((cur_mf, nested.name))
            via_cur = out[key_cur]
            if via_cur is None:
                said = _which(why)
            elif via_cur.passed_to is not None and root == fn:
                said = f"which is passed to {via_cur.passed_to} in {where(via_cur.path, via_cur.line)}"
            else:
                said = f"which is traced from `{_short(root)}` in `{root_file}`"
            for call in cur.calls:
                if call.caller != fn:
                    continue
                if call.guards and id(call) not in freed and not call.in_traced_lambda:
                    if not any(c is call for _, _, c in held):
                        held.append((cur_mf, fn, call))
                    continue
                target = self._callee(call, cur_mf, cur)
                if target is None:
                    continue
                t_mf, t_name = target
                t_sum = self.summary(t_mf)
                if t_sum is None or t_name not in t_sum.functions or _short(t_name) in ("__init__", "build"):
                    continue
                key = (t_mf.path, t_name)
                if key in out:
                    continue
                out[key] = TracedFrom(fn, self.relpath(cur_mf.path), call.line, said)
                origin[key] = origin[key_cur]
                work.append((t_mf, t_name))

    def _guard_off(self, h: tuple[ModuleFile, str, CallSite], mf: ModuleFile,
                   out: dict[tuple[str, str], TracedFrom | None], origin: dict[tuple[str, str], tuple[str, str, str]],
                   held: list[tuple[ModuleFile, str, CallSite]]) -> bool:
        """Is one of the guards around the held call ``h`` (made in function ``h[1]`` of
        ``h[0]``) off in every trace: every call of the function made in the traced code
        found so far (held calls aside) passes ``False``/``None`` for that parameter, or
        leaves such a default? ``feature_extractor(ex['audio'], f0=False)`` in a map
        function: ``if f0: compute_f0(audio)`` does not trace ``compute_f0``
        (ddsp_simplified, held-out set 101). Not when the function is itself a graph root
        or nested in one (its parameters then come from what traces it)."""
        cur_mf, fn, call = h
        if any(g[3] == "eager" for g in call.guards):
            return True  # the branch runs only eagerly: nothing it calls is traced
        key = (cur_mf.path, fn)
        cur = self.summary(cur_mf)
        info = cur.functions.get(fn) if cur is not None else None
        if info is None or info.parent is not None or info.cls is not None or \
                (origin[key][0] == fn and origin[key][1] == self.relpath(cur_mf.path)):
            return False
        held_ids = {id(c) for _, _, c in held}
        files = self.files()
        sites: list[CallSite] = []
        for path in sorted({p for p, _ in out} | {mf.path}):
            other = files.get(path)
            summ = self.summary(other) if other is not None else None
            if summ is None:
                continue
            for c in summ.calls:
                if c.callee.rsplit(".", 1)[-1] != fn.rsplit(".", 1)[-1] or id(c) in held_ids or \
                        not (c.in_traced_lambda or c.caller is not None and (path, c.caller) in out):
                    continue
                target = self._callee(c, other, summ)  # type: ignore[arg-type]
                if target is not None and target[0].path == cur_mf.path and target[1] == fn:
                    sites.append(c)
        if not sites:
            return False
        for name, pos, default, how in call.guards:
            off = ("None",) if how == "none" else ("None", "False")
            if all(_passes_off(c, name, int(pos), default, off) for c in sites):
                return True
        return False

    def traced_anywhere(self, mf: ModuleFile, qualified: str) -> bool:
        """Is the function ``qualified`` of ``mf`` traced by some graph root of the project
        (its own module's, or one of a module that imports it, directly or not)?"""
        files = self.files()
        for p in self.root_holders_reaching(mf):
            self.traced_from(files.get(p) or mf)
        return (mf.path, qualified) in self._traced_all

    @property
    def eager_uses(self) -> "EagerUses":
        """Where the project calls instances of its Keras classes (:mod:`tflint.semantic.instances`)."""
        got = self.__dict__.get("_eager_uses")
        if got is None:
            from tflint.semantic.instances import EagerUses
            got = self.__dict__["_eager_uses"] = EagerUses(self)
        return got

    def _roots(self, mf: ModuleFile, s: ModuleSummary) -> Iterator[tuple[str, str]]:
        """The graph roots of a module, with why each is traced: what the summary saw
        (``tf.function``, tf.data callables) and the Keras steps of its model classes."""
        for f in s.functions.values():
            if f.root is not None:
                yield f.name, f.root
        compiled = [p.target for p in s.passed if p.to == COMPILE_TO and p.target in s.functions]
        if compiled and self._compile_traces(mf):
            for name in compiled:
                if s.functions[name].root is None:
                    yield name, KERAS_COMPILE_REASON
        for cls in s.classes:
            if f"{cls}.fit" in s.functions:
                continue  # its own ``fit`` runs its steps, as Python (as the module's own judgement)
            steps = [f"{cls}.{m}" for m in KERAS_STEP_METHODS if f"{cls}.{m}" in s.functions]
            if steps and self.keras_model_class(mf, cls):
                use = self.keras_step_use(mf)
                if use.eager_compiles and use.eager_compiles == use.compiles:
                    # every ``compile`` of the module and its importers says ``run_eagerly=True``:
                    # ``fit`` runs the steps as Python (as the module's own judgement)
                    continue
                for name in steps:
                    if s.functions[name].root is None:
                        yield name, "which Keras runs under tf.function"

    def _compile_traces(self, mf: ModuleFile) -> bool:
        """Do the losses and metrics that ``mf`` hands to ``compile`` run in a graph: ``mf``
        or a module importing it runs ``fit``/``evaluate``/``*_on_batch``, and no
        ``compile`` in reach says ``run_eagerly=True``?"""
        use = self.keras_step_use(mf)
        return use.entries and not use.eager_compiles

    def keras_model_class(self, mf: ModuleFile, cls: str, _depth: int = 0,
                          _seen: set[tuple[str, str]] | None = None, bases: frozenset[str] = KERAS_MODEL_BASES) -> bool:
        """Whether the class ``cls`` of ``mf`` derives from a Keras model (or from one of
        ``bases``), directly or through other classes of the project, in its own module or
        imported (a few levels deep). Never raises."""
        seen = _seen if _seen is not None else set()
        if _depth > 6 or (mf.path, cls) in seen:
            return False
        seen.add((mf.path, cls))
        s = self.summary(mf)
        if s is None or cls not in s.classes:
            return False
        for base in s.classes[cls]:
            if canonical(base) in bases:
                return True
            try:
                target = (mf, base) if base in s.classes else self.resolve(base, mf)
            except (OSError, RecursionError, ValueError):
                target = None
            if target is not None and self.keras_model_class(target[0], target[1], _depth + 1, seen, bases):
                return True
        return False

    def view(self, path: str) -> "ProjectView | None":
        mf = self.module_of(path)
        if mf is None:
            return None
        return ProjectView(self, mf)


#: Keras classes whose ``__call__`` runs the subclass's ``call``
_KERAS_CALLABLE_BASES = KERAS_MODEL_BASES | frozenset({
    "keras.layers.Layer", "keras.engine.base_layer.Layer", "keras.src.layers.layer.Layer",
    "keras.src.engine.base_layer.Layer", "keras.losses.Loss", "keras.src.losses.loss.Loss"})


def _which(reason: str) -> str:
    """The reason a root is traced, said of that root."""
    return reason if reason.startswith("which") else f"which is {reason}"


def _order(via: TracedFrom) -> tuple:
    return (via.path, via.line, via.caller, via.reason)


def _short(qualified: str) -> str:
    return qualified.rsplit(".", 1)[-1]


class ProjectView:
    """What the model of one file asks of the project (see :func:`~tflint.semantic.build`)."""

    def __init__(self, index: ProjectIndex, mf: ModuleFile) -> None:
        self.index = index
        self.module = mf
        self._traced: dict[str, TracedFrom] | None = None
        self._sites: dict[str, list[ExternalCall]] = {}

    @property
    def relpath(self) -> str:
        return self.index.relpath(self.module.path)

    def traced_from_elsewhere(self) -> dict[str, TracedFrom]:
        """Functions of this file (by qualified name) traced because a function of another
        module calls them, directly or through a chain of project calls. A project that
        cannot be indexed (unreadable folders, odd sources) says nothing, never fails."""
        if self._traced is None:
            try:
                self._traced = self._compute_traced()
            except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
                self._traced = {}
        return self._traced

    def star_imported(self, module: str | None, level: int) -> dict[str, str]:
        """What ``from <module> import *`` in this file (``level`` leading dots) brings
        from a project module: the names that module binds by importing a library (``tf``
        for ``import tensorflow as tf`` in a ``utils.py`` every script star-imports),
        local name -> qualified name. Names bound to project modules, and private names,
        are left out; so is everything when the module cannot be found or read."""
        try:
            name = resolve_relative(self.module.name, self.module.is_package, level, module)
            mf = self.index.resolve_module(name, self.module) if name else None
            s = self.index.summary(mf) if mf is not None and mf.path != self.module.path else None
            if s is None:
                return {}
            return {local: q for local, q in s.imports.items() if not local.startswith("_") and
                    self.index.resolve_module(q.split(".")[0], mf) is None}
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return {}

    def _compute_traced(self) -> dict[str, TracedFrom]:
        # only modules that import this one, directly or not, can reach it through calls;
        # of those, only the ones that mention TensorFlow can hold graph roots
        idx, me = self.index, self.module
        if not idx.importers(me):
            # a call from another module into this one needs a module that imports it:
            # with none (a script, a notebook's module, a file outside the walk) the
            # file's own roots cannot come back to it from elsewhere, and its summary
            # is never needed
            return {}
        # in an order of this process's own: parallel workers then summarize different
        # modules first and read each other's from the cache (the answer is the same in
        # any order, see ProjectIndex.traced_from)
        salt = str(os.getpid())
        todo = [p for p in idx.root_holders_reaching(me) if p not in idx._closures]
        for p in sorted(todo, key=lambda p: hashlib.sha1((salt + p).encode("utf-8", "surrogatepass")).digest()):
            idx.traced_from(idx.files().get(p) or me)
        return dict(idx._traced_index.get(me.path, {}))

    def imported_elsewhere(self) -> bool:
        """Whether another module of the project imports this one (True when the project
        cannot be indexed: nothing is known)."""
        try:
            return bool(self.index.importers(self.module))
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return True

    def weightless_layer(self, dotted: str) -> bool:
        """Is the project class that ``dotted`` names in this module (``MelSpectrogram``,
        ``front_end.MelSpectrogram``) a Keras layer that owns no variable
        (:func:`_weightless_layer_class`)? False when it cannot be told."""
        try:
            idx = self.index
            own = idx.summary(self.module)
            if own is None:
                return False
            head, _, rest = dotted.partition(".")
            if head in own.imports:
                target = idx.resolve(own.imports[head] + ("." + rest if rest else ""), self.module)
            else:
                target = (self.module, dotted) if dotted in own.classes else None
            if target is None:
                return False
            tree, s = idx._parsed(target[0]), idx.summary(target[0])
            return tree is not None and s is not None and _weightless_layer_class(tree, target[1], s.imports)
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return False

    def keras_step_use(self) -> KerasStepUse | None:
        """How this file and the modules that import it use Keras step methods
        (:meth:`ProjectIndex.keras_step_use`); None when the project cannot be indexed."""
        try:
            return self.index.keras_step_use(self.module)
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def keras_graph_reaching(self) -> bool:
        """Whether this file or a module that imports it may run Keras layers as a graph
        (:meth:`ProjectIndex.keras_graph_reaching`); True when the project cannot be indexed."""
        try:
            return self.index.keras_graph_reaching(self.module)
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return True

    def eager_read_elsewhere(self, attr: str) -> tuple[str, int] | None:
        """Where module-level code of another module (or notebook) of the project reads
        an attribute named ``attr`` of some object (``print(head.cls_prob)`` in a script):
        code that runs eagerly. The path and line, or None. Reads inside functions of
        other modules are not counted: whether those run traced is not known here."""
        try:
            got = self.index.top_level_read(attr, self.module.path)
            return (self.index.relpath(got[0]), got[1]) if got is not None else None
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def callback_sets_model_attr(self, attr: str, model: str) -> tuple[str | None, str, int] | None:
        """Where a Keras callback of the project sets ``self.model.<attr>`` in a training
        hook (:meth:`ProjectIndex.callback_model_sets`), when some module fits an instance
        of the model class ``model`` with it (:meth:`ProjectIndex.fitted_with`; another
        model whose attribute has the same name is left alone): (the file
        relative to the root, None for this file; ``Cls.hook``; line), the first in path
        order, or None."""
        try:
            for path, hook, line in self.index.callback_model_sets().get(attr, ()):
                if self.index.fitted_with(model, hook.split(".")[-2]):
                    return (None if path == self.module.path else self.index.relpath(path)), hook, line
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return None
        return None

    def is_test_site(self, path: str, caller: str | None) -> bool:
        """Is a call in another module of the project (``path`` relative to the root)
        made in test code (:func:`is_test_caller`)? Each module's text is read once."""
        memo = self.__dict__.setdefault("_test_texts", {})
        text = memo.get(path)
        if text is None:
            try:
                mf = self.index.files().get(os.path.join(self.index.root, path))
                got = self.index._read(mf) if mf is not None else None
            except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
                got = None
            data = got[0] if got is not None else b""
            text = memo[path] = data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
        return is_test_caller(path, caller, text)

    def may_be_loaded(self) -> bool:
        """Whether running the project may import this file (:meth:`ProjectIndex.may_be_loaded`);
        True when the project cannot be indexed."""
        try:
            return self.index.may_be_loaded(self.module)
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return True

    def never_used_elsewhere(self, names: Iterable[str]) -> bool:
        """Whether no other module of the project uses one of this file's top-level
        ``names`` (:meth:`ProjectIndex.names_used_elsewhere`), in a project that is not
        packaged for others. False when the project cannot be indexed."""
        try:
            return not self.index.distributable() and not self.index.names_used_elsewhere(self.module, names)
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return False

    def named_elsewhere(self, names: Iterable[str]) -> bool:
        """Whether another module of the project uses one of ``names`` of this file
        (:meth:`ProjectIndex.names_used_elsewhere`), packaged for others or not. True
        when the project cannot be indexed."""
        try:
            return self.index.names_used_elsewhere(self.module, names)
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return True

    def asked_anew_per_iteration_elsewhere(self, name: str) -> tuple[str, int, str | None] | None:
        """Where another module asks this file's factory ``name`` for a new function in
        every iteration of a loop and keeps it only to call it: ``pt = policy_training()``
        as a statement of a function (``SAC.train_step``), ``pt`` bound there once and
        only called (``pt(obs, self.model)``), the call in a loop, or the function called
        in a loop of its module (``self.train_step()`` in ``SAC.train``'s loop, or
        ``train_step()`` for a module function). The calls of ``pt`` may take only
        parameters, attributes, literals and what library calls return: an object the
        project builds (a new model each iteration) would trace again anyway. Gives the
        module, the line of the loop's call and the function asked through (None when the
        factory's own call is in the loop); None when no module does so."""
        idx = self.index
        try:
            for p in sorted(idx.importers(self.module)):
                other = idx.files().get(p)
                s = idx.summary(other) if other is not None else None
                if s is None:
                    continue
                for call in s.calls:
                    if call.callee.rsplit(".", 1)[-1] != name or call.caller is None:
                        continue
                    target = idx._callee(call, other, s)
                    if target is None or target[0].path != self.module.path or target[1] != name:
                        continue
                    got = idx._parsed(other)
                    fn = _function_node(got, call.caller) if got is not None else None
                    if fn is None or not _factory_result_only_called(fn, call.line, s.imports):
                        continue
                    if call.in_loop:
                        return idx.relpath(p), call.line, None
                    outer = _called_in_a_loop(s, call.caller)
                    if outer is not None:
                        return idx.relpath(p), outer, call.caller
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return None
        return None

    def used_elsewhere_only_as(self, names: Iterable[str], accept: InstanceUses, made_here: bool,
                               bound: Iterable[str] = ()) -> bool:
        """Whether the other modules of the project use this file's top-level classes
        ``names`` only in the calls ``accept`` gives (or not at all: an instance that
        only module-level code calls, :func:`eager_instance_calls`; one that only builds a
        functional model, :func:`builder_consumed_calls`), and read none of the
        module-level names ``bound`` (this file's own such instances). A project
        packaged for others counts only where this file makes instances (``made_here``):
        else its users may make them. False when the project cannot be indexed."""
        try:
            idx = self.index
            return (made_here or not idx.distributable()) and not idx.names_used_elsewhere(self.module, names, accept) \
                and not (bound and idx.names_used_elsewhere(self.module, bound))
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return False

    def instances_only_eager(self, family: Iterable[str]) -> bool:
        """Is every instance of this file's classes ``family`` made and called only in
        eager code, here and in the other modules of the project
        (:class:`~tflint.semantic.instances.EagerUses`), in a project not packaged for
        others? False when the project cannot be indexed."""
        try:
            idx = self.index
            return not idx.distributable() and idx.eager_uses.only_eager(self.module, frozenset(family))
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return False

    def switches_eager_on(self, qualified: str) -> bool:
        """Whether ``qualified`` (a class as this file imports it, ``base.nn.NN``) is a
        class of a project module whose code says ``tf.config.run_functions_eagerly(True)``
        as a statement (its constructor's, say) and never ``(False)``: the classes built
        on it mean their tf.functions to run as Python."""
        try:
            got = self.index.resolve(qualified, self.module)
            summary = self.index.summary(got[0]) if got is not None else None
            return summary is not None and summary.eager_switch
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return False

    def runs_eagerly(self) -> bool:
        """:meth:`ProjectIndex.runs_eagerly` for this file (False when the project cannot
        be indexed)."""
        try:
            return self.index.runs_eagerly(self.module)
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return False

    def is_keras_model_class(self, qualified: str) -> bool:
        """Whether ``qualified`` (a class as this file imports it, ``pkg.nets.Backbone``)
        is a class of another project module that derives from a Keras model, directly or
        through other project classes (:meth:`ProjectIndex.keras_model_class`)."""
        try:
            got = self.index.resolve(qualified, self.module)
            return got is not None and self.index.keras_model_class(*got)
        except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
            return False

    def call_sites(self, name: str) -> list[ExternalCall]:
        """Calls of this file's top-level function (or name) ``name`` made in the modules
        that import this file (empty when the project cannot be indexed)."""
        got = self._sites.get(name)
        if got is None:
            try:
                got = self._compute_sites(name)
            except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
                got = []
            self._sites[name] = got
        return got

    def traced_call_sites(self, name: str) -> list[ExternalCall]:
        """The calls of ``name`` made in traced code of other modules: only those give a
        parameter its value while tracing. Their modules were summarized to find what is
        traced, so this summarizes nothing new (every importer may be many modules)."""
        key = "\0traced\0" + name
        got = self._sites.get(key)
        if got is None:
            try:
                got = [c for c in self._compute_sites(name, traced_only=True) if c.in_traced_code]
            except (OSError, RecursionError, ValueError, KeyError, TypeError, AttributeError):
                got = []
            self._sites[key] = got
        return got

    def _compute_sites(self, name: str, traced_only: bool = False) -> list[ExternalCall]:
        idx, me = self.index, self.module
        self.traced_from_elsewhere()
        out: list[ExternalCall] = []
        holders = {p for p, _ in idx._traced_all} | set(idx.root_holders_reaching(me)) if traced_only else None
        for p in sorted(idx.importers(me)):
            if holders is not None and p not in holders:
                continue
            other = idx.files().get(p)
            if other is None:
                continue
            s = idx.summary(other)
            if s is None:
                continue
            for call in s.calls:
                if call.callee.rsplit(".", 1)[-1] != name:
                    continue
                target = idx._callee(call, other, s)
                if target is None or target[0].path != me.path or target[1] != name:
                    continue
                traced = call.in_traced_lambda or call.caller is not None and (p, call.caller) in idx._traced_all
                out.append(ExternalCall(idx.relpath(p), call.line, call.caller, call.in_loop, traced,
                                        tuple(call.args), call.unpacks))
        return out


# ---------------------------------------------------------------------------------------
# One index per project and process


_INDEXES: dict[tuple[str, str | None, bool, frozenset[str], bool], ProjectIndex] = {}


def index_for(path: str, cache: bool = True, cache_dir: str | None = None,
              wrappers: Iterable[str] = ()) -> ProjectIndex | None:
    """The index of the project ``path`` belongs to (kept for the process: a whole-tree
    run indexes each project once), None outside any project."""
    root = find_root(path)
    if root is None:
        return None
    shallow = is_shallow(root)
    key = (root, cache_dir, cache, frozenset(wrappers), shallow)
    idx = _INDEXES.get(key)
    if idx is None:
        if cache and not _INDEXES:
            # written once when the process ends: ProcessPoolExecutor workers run
            # multiprocessing's finalizers on their way out, the main process at exit
            from multiprocessing import util

            util.Finalize(None, flush_caches, exitpriority=10)
        store = IndexCache.open(root, cache_dir) if cache else None
        idx = _INDEXES[key] = ProjectIndex(root, store, wrappers, shallow)
    return idx


def view_for(path: str, cache: bool = True, cache_dir: str | None = None,
             wrappers: Iterable[str] = ()) -> ProjectView | None:
    """The project view of one file, None when the file is in no project or the project
    cannot be indexed (never raises: the file is then linted on its own)."""
    if not path or path.startswith("<") or not path.endswith((".py", NOTEBOOK_SUFFIX)):
        return None
    try:
        idx = index_for(path, cache, cache_dir, wrappers)
        return idx.view(path) if idx is not None else None
    except (OSError, RecursionError, ValueError):
        return None


#: during a run (:func:`one_run`): the tree is taken as unchanged, so the root of each
#: folder and each project's pins are looked up once, not once per file
_RUN = [False]
_RUN_ROOTS: dict[str, str | None] = {}
_RUN_PINS: dict[str, str | None] = {}
#: the folders the user named for the run (outermost first), see :func:`one_run`, each
#: with whether it was named itself (True) or only as the folder of a named file (False)
_RUN_FOLDERS: list[tuple[str, bool]] = []


def _holds_named(folder: str) -> bool:
    """Is ``folder`` the folder of a file the user named for the run, or above one? A
    shallow walk goes down to every named file (``tflint check a/train.py a/utils/x.py``:
    both are modules of one project)."""
    prefix = folder.rstrip(os.sep) + os.sep
    return any(f == folder or f.startswith(prefix) for f, _ in _RUN_FOLDERS)


def is_shallow(root: str) -> bool:
    """Whether ``root`` is a folder with no project marker that the run took only because
    the user named a file in it: its index walks only the folder's own modules and the
    packages below it."""
    named = [deep for f, deep in _RUN_FOLDERS if f == root]
    return bool(named) and not any(named) and not any(
        os.path.exists(os.path.join(root, m)) for m in ROOT_MARKERS)


@contextlib.contextmanager
def one_run(named: Iterable[str] = ()) -> Iterator[None]:
    """A whole-tree run (``tflint check``): files and folders do not change under it, as
    the project's fingerprint already assumes. Outside it (an editor session) every
    question looks at the disk again, so an edited requirements file is seen at once.
    Worker processes forked inside it inherit it. ``named``: the paths the user named;
    a file with no project marker above it belongs to the outermost named folder that
    holds it (``tflint check .`` in an unpacked folder is one project)."""
    _RUN[0] = True
    folders: dict[str, bool] = {}
    for p in named:
        f = os.path.abspath(p if os.path.isdir(p) else os.path.dirname(p) or ".")
        folders[f] = folders.get(f, False) or os.path.isdir(p)
    _RUN_FOLDERS[:] = sorted(folders.items(), key=lambda fd: len(fd[0]))
    try:
        yield
    finally:
        _RUN[0] = False
        _RUN_ROOTS.clear()
        _RUN_PINS.clear()
        _RUN_FOLDERS.clear()


def keras_pin(root: str, path: str | None = None) -> str | None:
    """What the project at ``root`` pins for the file ``path`` (the declarations nearest
    to it: :func:`tflint.semantic.pins.declared_keras_for`), remembered per folder during
    a run."""
    from tflint.semantic.pins import declared_keras_for

    folder = os.path.dirname(os.path.abspath(path)) if path else root
    if folder in _RUN_PINS:
        return _RUN_PINS[folder]
    got = declared_keras_for(os.path.join(folder, "_"), root)
    if _RUN[0]:
        _RUN_PINS[folder] = got
    return got


def flush_caches() -> None:
    """Write what this process added to the caches of the projects it indexed."""
    for idx in _INDEXES.values():
        if idx.cache is not None:
            idx.cache.save()


def reset() -> None:
    """Write the caches and forget every index: a new run in the same process (tests, an
    editor integration) sees the files as they are now."""
    flush_caches()
    _INDEXES.clear()
