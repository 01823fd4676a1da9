"""Jupyter notebooks: read the code cells as one module, lint it with the normal engine,
map findings back to cells, and write fixes back into the notebook JSON.

Why one module: a notebook runs its cells in order in one namespace, so a name defined
in cell 2 is seen by cell 5, and a name redefined later is a new definition from there
on. Between two cells the module has a marker comment line, so that the fixed module can
be cut back into cells.

IPython syntax (``%magic``, ``%%cell_magic``, ``!shell``, ``obj?``, ``x = !cmd``) is
masked, not a parse error: the line becomes ``pass`` (or ``x = None``) with a
placeholder comment, and comes back unchanged when the notebook is written. A cell with
a cell magic is not Python and is left out, as is a cell that does not parse (it gets
TFL001 at its own position; the other cells are linted); but the body of ``%%time``,
``%%timeit``, ``%%capture`` and ``%%prun`` is Python run in the notebook's namespace,
and is linted with the magic line masked (left out if it does not parse).

The notebook format is read with ``nbformat`` (parsing and schema validation).
Writing back never re-serialises the JSON: only the ``source`` values of the cells
that a fix changed are replaced, in place, in the original text, formatted as the
original was (list or string, indentation, escaping), so outputs, metadata, key order,
indentation and the trailing newline are kept byte for byte.
"""

from __future__ import annotations

import dataclasses
import json
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

from tflint.config import Settings
from tflint.diagnostics import Diagnostic, Edit, Fix

SUFFIX = ".ipynb"

#: between two cells in the module: a comment, so it changes nothing for the rules
_MARKER = "# -- tflint notebook cell {} --"
_MARKER_RE = re.compile(r"^# -- tflint notebook cell (\d+) --$")
_PLACEHOLDER = "# tflint-masked-ipython-{}"
_PLACEHOLDER_RE = re.compile(r"# tflint-masked-ipython-(\d+)$")
#: ``%magic``, ``!shell``, ``?obj`` / ``??obj`` at the start of a line
_LINE_MAGIC = re.compile(r"^([ \t]*)([%!?]|\?\?)")
#: ``obj?`` / ``obj??`` help (a line ending in ``?`` is never Python)
_HELP_SUFFIX = re.compile(r"^([ \t]*)[\w.\[\]()'\"]+\?\??[ \t]*$")
#: ``x = !ls`` / ``x = %env`` / ``a, b = %sx cmd``
_ASSIGN_MAGIC = re.compile(r"^([ \t]*)([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*=)[ \t]*[!%]")
_CELL_MAGIC = re.compile(r"^[ \t]*%%")
#: cell magics whose body is Python that runs in the notebook's namespace: the magic line
#: is masked like a line magic and the body linted
_PYTHON_CELL_MAGIC = re.compile(r"^[ \t]*%%(?:time|timeit|capture|prun)\b")
#: PyCF_ONLY_AST | PyCF_ALLOW_TOP_LEVEL_AWAIT: IPython runs top-level ``await``
_COMPILE_FLAGS = 0x400 | 0x2000


@dataclass(frozen=True)
class CodeCell:
    """One code cell: its 1-based position among all the notebook's cells, its source
    as one string, and whether the notebook stores it as a list of lines."""

    index: int
    source: str
    as_list: bool
    #: keys from the notebook's top object down to the ``source`` value
    json_path: tuple[Any, ...]


@dataclass
class Notebook:
    """A notebook read for linting: the module the engine sees and its line map."""

    path: str
    text: str
    had_bom: bool
    cells: list[CodeCell]
    #: the module (what the engine lints)
    module: str = ""
    #: module line (1-based, index 0 unused) -> (cell index, line in the cell, the
    #: indentation IPython removed from that line)
    line_map: list[tuple[int, int, int] | None] = field(default_factory=list)
    #: masked IPython lines, by placeholder number
    masked: dict[int, str] = field(default_factory=dict)
    #: cells left out of the module (cell magics, cells that do not parse)
    skipped: set[int] = field(default_factory=set)
    #: indented cells (IPython dedents them): cell index -> the indentation removed
    indents: dict[int, str] = field(default_factory=dict)
    #: indented cells whose lines do not all carry the indentation: fixes in them
    #: cannot be written back exactly, so the notebook is not written
    frozen: set[int] = field(default_factory=set)
    #: TFL001 findings about the notebook or its cells
    problems: list[Diagnostic] = field(default_factory=list)


class NotebookError(ValueError):
    """The file is not a notebook tflint can read: one line for a TFL001."""

    def __init__(self, message: str, line: int = 1, column: int = 0) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def is_notebook(path: str) -> bool:
    return path.lower().endswith(SUFFIX)


# ---------------------------------------------------------------------------- reading


def read(data: bytes | str, path: str) -> Notebook:
    """Parse and validate a notebook (nbformat 3 or 4). Raises NotebookError."""
    import nbformat
    from nbformat.reader import NotJSONError

    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data[: e.start].count(b"\n") + 1
            raise NotebookError(f"not a valid notebook: not UTF-8 ({e.reason})", line) from None
    else:
        text = data
    had_bom = text.startswith("\ufeff")
    if had_bom:
        text = text[1:]
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise NotebookError(f"not a valid notebook: invalid JSON: {e.msg}", e.lineno, e.colno - 1) from None
    except RecursionError:
        raise NotebookError("not a valid notebook: JSON nested too deeply") from None
    if not isinstance(raw, dict):
        raise NotebookError("not a valid notebook: the top level is not a JSON object")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbformat warns about missing cell ids etc.
        try:
            major, _minor = nbformat.reader.get_version(raw)
        except NotJSONError as e:
            raise NotebookError(f"not a valid notebook: {_one_line(e)}") from None
        if major not in (3, 4):
            raise NotebookError(f"not a valid notebook: nbformat {major!r} is not supported (3 and 4 are)")
        invalid = None
        try:
            node = nbformat.from_dict(raw)
            # extra keys are tolerated as Jupyter and nbformat tolerate them: cell ids in
            # an nbformat 4.4 file (written by newer tools under the old minor version)
            nbformat.validate(node, version=major, relax_add_props=True)
        except Exception as e:  # nbformat.ValidationError and the schema library's errors
            invalid = f"not a valid notebook (nbformat {major}): {_validation_message(e)}"
    try:
        cells = _code_cells(raw, major)
    except (TypeError, AttributeError, ValueError) as e:
        raise NotebookError(invalid or f"not a valid notebook: {_one_line(e)}") from None
    nb = Notebook(path=path, text=text, had_bom=had_bom, cells=cells)
    if invalid is not None:
        # the schema says no, but the code cells can be read: report both the problem
        # and the findings (a missing execution_count must not hide a bug)
        nb.problems.append(_tfl001(path, f"{invalid}; its code cells are checked all the same"))
    return nb


def _validation_message(e: Exception) -> str:
    message = getattr(e, "message", None) or str(e)
    where = "/".join(str(p) for p in getattr(e, "absolute_path", ()) or ())
    first = str(message).strip().splitlines()[0] if str(message).strip() else type(e).__name__
    return _one_line(f"{first} (at {where})" if where else first)


def _code_cells(raw: dict[str, Any], major: int) -> list[CodeCell]:
    """The Python code cells, in order, numbered among all cells."""
    if not _is_python(raw):
        return []
    if not isinstance(raw.get("cells" if major == 4 else "worksheets", []), list):
        raise TypeError("the cells are not a list")
    out: list[CodeCell] = []
    located: list[tuple[Any, tuple[Any, ...], str]]
    if major == 4:
        located = [(c, ("cells", i), "source") for i, c in enumerate(raw.get("cells", []))]
    else:
        located = [
            (c, ("worksheets", w, "cells", i), "input")
            for w, ws in enumerate(raw.get("worksheets", []))
            for i, c in enumerate(ws.get("cells", []))
        ]
    for n, (cell, where, key) in enumerate(located, start=1):
        if not isinstance(cell, dict):
            raise TypeError(f"cell {n} is not an object")
        if cell.get("cell_type") != "code":
            continue
        if major == 3 and cell.get("language", "python") != "python":
            continue
        value = cell.get(key, "")
        as_list = isinstance(value, list)
        if not (isinstance(value, str) or (as_list and all(isinstance(v, str) for v in value))):
            raise TypeError(f"the source of cell {n} is not text")
        source = "".join(value) if as_list else value
        out.append(CodeCell(n, source, as_list, where + (key,)))
    return out


def _is_python(raw: dict[str, Any]) -> bool:
    """False only when the notebook says its kernel is another language (R, Julia)."""
    meta = raw.get("metadata") or {}
    names = [
        (meta.get("language_info") or {}).get("name"),
        (meta.get("kernelspec") or {}).get("language"),
    ]
    known = [n.lower() for n in names if isinstance(n, str) and n]
    return not known or any(n.startswith("python") for n in known)


# ---------------------------------------------------------------------------- the module


def build_module(nb: Notebook) -> None:
    """Fill ``nb.module`` and its line map from the code cells (masking IPython lines)."""
    parts: list[str] = []
    line_map: list[tuple[int, int, int] | None] = [None]
    for cell in nb.cells:
        python_magic = _PYTHON_CELL_MAGIC.match(cell.source) is not None
        if _CELL_MAGIC.match(cell.source) and not python_magic:
            nb.skipped.add(cell.index)
            continue
        prefix = _leading_indent(cell.source)
        source = _dedent(cell.source, prefix) if prefix else cell.source
        masked = _mask(source, nb.masked)
        problem = _syntax_error(masked)
        if problem is not None and python_magic:
            nb.skipped.add(cell.index)  # not Python after all: left out, as other cell magics
            continue
        if problem is not None:
            line, col, msg = problem
            if prefix and line <= len(source.splitlines()) and source.splitlines()[line - 1].strip():
                col += len(prefix)
            nb.skipped.add(cell.index)
            nb.problems.append(_tfl001(nb.path, f"syntax error: {msg}", line, col, cell.index))
            continue
        if prefix:
            nb.indents[cell.index] = prefix
            if _reindent(source, prefix) != cell.source:
                nb.frozen.add(cell.index)  # lines without the prefix: not invertible
        if parts:
            parts.append(_MARKER.format(cell.index) + "\n")
            line_map.append(None)
        if masked and not masked.endswith(("\n", "\r")):
            masked += "\n"
        parts.append(masked)
        n_lines = len(masked.splitlines()) if masked else 0
        shift = [len(prefix) if prefix and line.strip() and line.startswith(prefix) else 0
                 for line in cell.source.splitlines()]
        line_map.extend((cell.index, k, shift[k - 1] if k <= len(shift) else 0) for k in range(1, n_lines + 1))
    nb.module = "".join(parts)
    nb.line_map = line_map


def module_text(data: bytes) -> tuple[str, list[tuple[int, int, int] | None]] | None:
    """The module a notebook's code cells make, as the engine lints it, and its line map
    (see :class:`Notebook`), read without the schema validation: what the project index
    needs of a notebook (its imports, calls and graph roots). None when it is no notebook
    tflint can read."""
    try:
        text = data.decode("utf-8-sig")
        raw = json.loads(text)
        if not isinstance(raw, dict) or raw.get("nbformat") not in (3, 4):
            return None
        nb = Notebook(path="", text=text, had_bom=False, cells=_code_cells(raw, raw["nbformat"]))
        build_module(nb)
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None
    return nb.module, nb.line_map


def _leading_indent(source: str) -> str:
    """IPython removes the indentation of a cell's first line from every line that
    starts with it (its ``leading_indent`` input transformer), so an indented cell runs."""
    m = re.match(r"[ \t]+", source)
    return m.group(0) if m and source.strip() else ""


def _dedent(source: str, prefix: str) -> str:
    """Remove ``prefix`` from the non-blank lines that start with it; blank lines are
    kept as they are."""
    return "".join(line[len(prefix):] if line.strip() and line.startswith(prefix) else line
                   for line in source.splitlines(keepends=True))


def _reindent(source: str, prefix: str) -> str:
    return "".join(prefix + line if line.strip() else line for line in source.splitlines(keepends=True))


#: IPython's automagics and shell aliases that notebooks use without ``%`` or ``!``
_AUTOMAGIC = re.compile(
    r"^[ \t]*(?:ls|cd|pwd|pip|conda|cat|cp|mv|rm|rmdir|mkdir|less|more|man|clear|ll|lf|lk|lx|ldir"
    r"|env|alias|unalias|load_ext|reload_ext|matplotlib|time|timeit|run|who|whos|history|tensorboard"
    r"|autoreload|pinfo|pdb|debug|reset|store|bookmark|dhist|pushd|popd|sx|sc|system|writefile"
    r"|capture|prun|precision|xmode|config|colors|pylab|load|save|edit|rerun|recall|macro|lsmagic"
    r"|magic|tb|psearch|pfile|pdoc|pdef|psource|notebook)(?:[ \t]+\S.*|[ \t]*)$"
)


def _is_automagic(line: str) -> bool:
    """``ls -la``, ``pip install x``: an automagic name, then something that is not a
    Python operator (IPython's own test: ``x = ...``, ``ls(...)`` stay Python), on a line
    that is not Python by itself."""
    if not _AUTOMAGIC.match(line):
        return False
    rest = line.strip().split(None, 1)[1:]
    if rest and rest[0][0] in "!=()<>,+*/%^&|[:;.'\"" and not re.match(r"\.\.?(/|\s|$)|/[\w.~-]", rest[0]):
        return False  # (``./dir``, ``../dir`` and ``/content/My Drive`` are paths)
    return _syntax_error(line.strip()) is not None


def _mask(source: str, masked: dict[int, str]) -> str:
    """Replace IPython-only lines by Python with a placeholder comment. A line is
    IPython syntax only where a statement can start: not inside brackets, a string or
    after a backslash (``%(a, b)`` continuing a ``print(...)`` is Python)."""
    lines = source.splitlines(keepends=True)
    out: list[str] = []
    state = _ScanState()
    continuation = False  # the previous masked line ended with a backslash
    for line in lines:
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        replacement = None
        if continuation:
            replacement = ""
        elif state.at_statement_start():
            m = _ASSIGN_MAGIC.match(body)
            if m:
                replacement = f"{m.group(1)}{m.group(2)} None  "
            else:
                m = _LINE_MAGIC.match(body) or _HELP_SUFFIX.match(body)
                if m is None and _is_automagic(body):
                    m = re.match(r"[ \t]*", body)
                if m:
                    replacement = f"{m.group(1) if m.lastindex else m.group(0)}pass  "
        if replacement is None:
            state.feed(line)
            out.append(line)
            continue
        continuation = body.endswith("\\")
        k = len(masked)
        masked[k] = body
        out.append(replacement + _PLACEHOLDER.format(k) + ending)
    return "".join(out)


class _ScanState:
    """Just enough of Python's tokenizer to know, line by line, whether a line starts a
    statement: bracket depth, open strings and backslash continuations."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote: str | None = None
        self.backslash = False

    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.backslash

    def feed(self, line: str) -> None:
        i, n = 0, len(line)
        self.backslash = False
        while i < n:
            c = line[i]
            if self.quote is not None:
                if c == "\\":
                    i += 2
                    continue
                if line.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = None
                    continue
                i += 1
                continue
            if c == "#":
                break
            if c in "\"'":
                self.quote = c * 3 if line.startswith(c * 3, i) else c
                i += len(self.quote)
                continue
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth = max(0, self.depth - 1)
            elif c == "\\" and line[i + 1 :].strip() == "":
                self.backslash = True
                break
            i += 1
        if self.quote is not None and len(self.quote) == 1 and not line.rstrip("\r\n").endswith("\\"):
            self.quote = None  # an unterminated one-line string ends with its line


def _syntax_error(source: str) -> tuple[int, int, str] | None:
    try:
        compile(source, "<cell>", "exec", flags=_COMPILE_FLAGS, dont_inherit=True)
    except SyntaxError as e:
        from tflint.engine import newer_grammar_reads

        if newer_grammar_reads(source):
            return None  # code for a newer Python than this one: the cell is read as such
        return (e.lineno or 1, max((e.offset or 1) - 1, 0), _one_line(e.msg))
    except (ValueError, RecursionError, MemoryError, OverflowError) as e:
        return (1, 0, _one_line(f"{type(e).__name__}: {e}"))
    return None


def _tfl001(path: str, message: str, line: int = 1, column: int = 0, cell: int | None = None) -> Diagnostic:
    from tflint.registry import ENGINE_CODES
    from tflint.diagnostics import Severity

    name, sev = ENGINE_CODES["TFL001"]
    return Diagnostic(code="TFL001", name=name, message=message, path=path, line=line, column=column,
                      end_line=line, end_column=column, severity=Severity(sev), cell=cell)


def _one_line(e: object) -> str:
    return " ".join(str(e).split())[:300]


# ---------------------------------------------------------------------------- mapping


def to_cells(nb: Notebook, diags: list[Diagnostic]) -> list[Diagnostic]:
    """Module positions -> (cell, line in the cell). A position on a marker line (an
    insertion between two cells) goes to the end of the cell before it."""
    out = [_map(nb, d) for d in diags]
    out.extend(nb.problems)
    out.sort(key=lambda d: d.sort_key)
    return out


def _locate(nb: Notebook, line: int, column: int) -> tuple[int, int, int]:
    lm = nb.line_map
    if 0 < line < len(lm) and lm[line] is not None:
        cell, cell_line, shift = lm[line]  # type: ignore[misc]
        return cell, cell_line, column + shift
    # a marker line or past the end: the end of the nearest cell before it
    k = min(line, len(lm)) - 1
    while k > 0 and lm[k] is None:
        k -= 1
    if k > 0 and lm[k] is not None:
        cell, cell_line, _ = lm[k]  # type: ignore[misc]
        return cell, cell_line + 1, 0
    first = nb.cells[0].index if nb.cells else 1
    return first, 1, 0


_LINE_REF = re.compile(r"\bline (\d+)\b")


def _message(nb: Notebook, message: str, cell: int) -> str:
    """Rules name other lines of the module (``called from helper (line 8)``); in a
    notebook that line is a line of some cell: ``line 3`` in the same cell, else
    ``cell 2, line 3``."""
    def repl(m: "re.Match[str]") -> str:
        n = int(m.group(1))
        if not 0 < n < len(nb.line_map) or nb.line_map[n] is None:
            return m.group(0)
        other, line, _ = nb.line_map[n]  # type: ignore[misc]
        return f"line {line}" if other == cell else f"cell {other}, line {line}"

    return _LINE_REF.sub(repl, message) if "line " in message else message


def _map(nb: Notebook, d: Diagnostic) -> Diagnostic:
    cell, line, col = _locate(nb, d.line, d.column)
    end_cell, end_line, end_col = _locate(nb, d.end_line, d.end_column)
    if end_cell != cell:
        end_line, end_col = line, col
    fix = d.fix
    if fix is not None:
        edits = []
        for e in fix.edits:
            ec, el, eco = _locate(nb, e.line, e.column)
            _, eel, eeco = _locate(nb, e.end_line, e.end_column)
            edits.append(Edit(el, eco, eel, eeco, e.content, cell=ec))
        fix = Fix(fix.title, fix.applicability, tuple(edits))
    return dataclasses.replace(d, line=line, column=col, end_line=end_line, end_column=end_col,
                               fix=fix, cell=cell, message=_message(nb, d.message, cell))


# ---------------------------------------------------------------------------- front-end API


def lint(data: bytes | str, path: str, settings: Settings | None = None, *, noqa: bool = True) -> list[Diagnostic]:
    """Lint a notebook: findings with their cell, ``# noqa`` applied when ``noqa``.
    Never raises: an unreadable notebook is one TFL001."""
    from tflint import noqa as noqa_mod
    from tflint.engine import lint_source

    try:
        nb = read(data, path)
    except NotebookError as e:
        return [_tfl001(path, str(e), e.line, e.column)]
    build_module(nb)
    diags = []
    if nb.module.strip():
        from tflint.checking import project_view

        view = project_view(path, settings) if settings is not None else None
        diags = lint_source(nb.module, path, settings, project=view)
    if noqa:
        diags = noqa_mod.apply_noqa(diags, nb.module)
    return to_cells(nb, diags)


@dataclass
class NotebookFix:
    """What :func:`fix` gives, as :class:`tflint.engine.FixResult` does for a file."""

    source: bytes
    diagnostics: list[Diagnostic]
    applied: int
    problems: list[str] = field(default_factory=list)
    #: (cell index, old source, new source) of each changed cell, for ``--diff``
    changed_cells: list[tuple[int, str, str]] = field(default_factory=list)
    applied_by_code: dict[str, int] = field(default_factory=dict)


def fix(data: bytes, path: str, settings: Settings | None = None, unsafe: bool = False,
        noqa: bool = True) -> NotebookFix:
    """Apply fixes to the code cells and write them into the notebook JSON. Only the
    ``source`` of the changed cells is replaced; everything else stays byte for byte.
    Never raises."""
    from tflint.engine import fix_source

    try:
        nb = read(data, path)
    except NotebookError as e:
        return NotebookFix(data, [_tfl001(path, str(e), e.line, e.column)], 0)
    build_module(nb)
    if not nb.module.strip():
        return NotebookFix(data, to_cells(nb, []), 0)
    result = fix_source(nb.module, path, settings, unsafe=unsafe, noqa=noqa)
    new_module = result.source
    assert isinstance(new_module, str)
    problems = list(result.problems)
    if not result.applied or new_module == nb.module:
        return NotebookFix(data, to_cells(nb, list(result.diagnostics)), 0, problems)
    try:
        out, changed = _rewrite(nb, new_module)
    except ValueError as e:
        problems.append(f"{path}: fixes not written: {e}")
        return NotebookFix(data, lint(data, path, settings, noqa=noqa), 0, problems)
    # the findings left, positioned in the fixed notebook
    remaining = lint(out, path, settings, noqa=noqa)
    return NotebookFix(out, remaining, result.applied, problems, changed,
                       dict(result.applied_by_code))


def _rewrite(nb: Notebook, new_module: str) -> tuple[bytes, list[tuple[int, str, str]]]:
    """The notebook's bytes with the cells of ``new_module`` written back, and
    (cell, old source, new source) per changed cell. Raises ValueError when the module
    cannot be cut back into the cells exactly."""
    new_cells = _split(new_module, nb)
    changed = []
    for cell in nb.cells:
        new = new_cells.get(cell.index)
        if new is not None and new != cell.source:
            changed.append((cell, new))
    text = _splice(nb, changed)
    out = (("\ufeff" if nb.had_bom else "") + text).encode("utf-8")
    return out, [(c.index, c.source, new) for c, new in changed]


def add_noqa(data: bytes, path: str, settings: Settings | None = None) -> tuple[bytes, int, list[str]]:
    """``--add-noqa`` in a notebook's cells: the new bytes, how many findings got a
    comment, and problems (a notebook that cannot be written back exactly)."""
    from tflint import noqa as noqa_mod
    from tflint.engine import lint_source

    try:
        nb = read(data, path)
    except NotebookError:
        return data, 0, []
    build_module(nb)
    if not nb.module.strip():
        return data, 0, []
    diags = noqa_mod.apply_noqa(lint_source(nb.module, path, settings), nb.module)
    new_module, count = noqa_mod.add_noqa_text(nb.module, diags)
    if new_module == nb.module:
        return data, 0, []
    try:
        out, _ = _rewrite(nb, new_module)
    except ValueError as e:
        return data, 0, [f"{path}: noqa comments not written: {e}"]
    return out, count, []


def _split(module: str, nb: Notebook) -> dict[int, str]:
    """Cut the fixed module back into cells and unmask the IPython lines."""
    order = [c.index for c in nb.cells if c.index not in nb.skipped]
    chunks: dict[int, list[str]] = {order[0]: []} if order else {}
    current = order[0] if order else None
    seen = [current] if current is not None else []
    for line in module.splitlines(keepends=True):
        m = _MARKER_RE.match(line.rstrip("\r\n"))
        if m:
            current = int(m.group(1))
            seen.append(current)
            chunks[current] = []
            continue
        if current is None:
            raise ValueError("a fix put code before the first cell")
        chunks[current].append(line)
    if seen != order:
        raise ValueError("a fix moved the boundary between two cells")
    by_index = {c.index: c for c in nb.cells}
    out: dict[int, str] = {}
    for index, lines in chunks.items():
        text = "".join(_unmask(line, nb.masked) for line in lines)
        original = by_index[index].source
        if text.endswith("\n") and not original.endswith(("\n", "\r")):
            text = text[:-1]  # the newline added after the cell's last line
        if index in nb.frozen:
            if text != _dedent(original, nb.indents[index]):
                raise ValueError(f"cell {index} is indented but not all its lines are, so a fix "
                                 "in it cannot be written back exactly")
            text = original
        elif index in nb.indents:
            text = _reindent(text, nb.indents[index])
        out[index] = text
    return out


def _unmask(line: str, masked: dict[int, str]) -> str:
    body = line.rstrip("\r\n")
    m = _PLACEHOLDER_RE.search(body)
    if m is None:
        return line
    return masked[int(m.group(1))] + line[len(body):]


# ---------------------------------------------------------------------------- writing


def _splice(nb: Notebook, changed: list[tuple[CodeCell, str]]) -> str:
    """The notebook text with the ``source`` value of each changed cell replaced."""
    if not changed:
        return nb.text
    wanted = {c.json_path: (c, new) for c, new in changed}
    spans = locate(nb.text, set(wanted))
    if set(spans) != set(wanted):
        raise ValueError("could not find a cell's source in the notebook text")
    ascii_only = _escapes_non_ascii(nb.text)
    text = nb.text
    for where in sorted(wanted, key=lambda p: spans[p][0], reverse=True):
        cell, new = wanted[where]
        start, end = spans[where]
        value = _format_source(text, start, end, new, cell.as_list, ascii_only)
        text = text[:start] + value + text[end:]
    return text


def _escapes_non_ascii(text: str) -> bool:
    """Was the notebook written with ``ensure_ascii`` (no raw non-ASCII characters, but
    ``\\uXXXX`` escapes)? nbformat itself writes raw UTF-8."""
    return text.isascii() and re.search(r"\\u(?!00[0-7])[0-9a-fA-F]{4}", text) is not None


def _format_source(text: str, start: int, end: int, new: str, as_list: bool, ascii_only: bool) -> str:
    def dump(s: str) -> str:
        return json.dumps(s, ensure_ascii=ascii_only)

    if not as_list:
        return dump(new)
    lines = new.splitlines(keepends=True)
    old = text[start:end]
    if not lines:
        return "[]"
    if "\n" not in old:  # a one-line list: keep it on one line
        sep = ", " if ", " in old or old in ("[]",) else ","
        return "[" + sep.join(dump(s) for s in lines) + "]"
    # the indentation of the first element and of the closing bracket, as written
    first = re.match(r"\[\s*?\n([ \t]*)", old)
    item_indent = first.group(1) if first else "  "
    line_start = text.rfind("\n", 0, end) + 1
    close_indent = re.match(r"[ \t]*", text[line_start:end]).group(0)  # type: ignore[union-attr]
    newline = "\r\n" if "\r\n" in old else "\n"
    body = ("," + newline).join(item_indent + dump(s) for s in lines)
    return "[" + newline + body + newline + close_indent + "]"


# A JSON scanner that records where values are: json.loads gives values, not positions.
# Strings are read with the standard library's own scanner; only structure is walked here.
_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")


def locate(text: str, wanted: set[tuple[Any, ...]]) -> dict[tuple[Any, ...], tuple[int, int]]:
    """(start, end) offsets in ``text`` of the JSON values at the ``wanted`` key paths."""
    from json.decoder import scanstring  # type: ignore[attr-defined]

    found: dict[tuple[Any, ...], tuple[int, int]] = {}
    prefixes = {w[:k] for w in wanted for k in range(len(w) + 1)}

    def value(i: int, path: tuple[Any, ...]) -> int:
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        start = i
        c = text[i]
        if c == '"':
            _, end = scanstring(text, i + 1)
        elif c == "{":
            end = obj(i, path)
        elif c == "[":
            end = arr(i, path)
        elif text.startswith(("true", "null"), i):
            end = i + 4
        elif text.startswith("false", i):
            end = i + 5
        else:
            m = _NUMBER.match(text, i)
            if m is None:
                raise ValueError(f"unexpected {c!r} at offset {i}")
            end = m.end()
        if path in wanted:
            found[path] = (start, end)
        return end

    def skip(i: int) -> int:
        """Jump over a value nobody wants with the C decoder."""
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        _, end = _DECODER.raw_decode(text, i)
        return end

    def obj(i: int, path: tuple[Any, ...]) -> int:
        i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
        if text[i] == "}":
            return i + 1
        while True:
            key, i = scanstring(text, i + 1)
            i = _WS.match(text, i).end()  # type: ignore[union-attr]
            assert text[i] == ":"
            sub = path + (key,)
            i = value(i + 1, sub) if sub in prefixes else skip(i + 1)
            i = _WS.match(text, i).end()  # type: ignore[union-attr]
            if text[i] == "}":
                return i + 1
            i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]

    def arr(i: int, path: tuple[Any, ...]) -> int:
        i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
        if text[i] == "]":
            return i + 1
        n = 0
        while True:
            sub = path + (n,)
            i = value(i, sub) if sub in prefixes else skip(i)
            i = _WS.match(text, i).end()  # type: ignore[union-attr]
            if text[i] == "]":
                return i + 1
            i += 1
            n += 1

    value(0, ())
    return found


_DECODER = json.JSONDecoder()
