"""``tflint server``: a language server (LSP over stdio, built on pygls).

It publishes diagnostics when a Python file or a notebook is opened, changed or saved,
and offers code actions: each finding's fix (safe, and unsafe ones marked so) and adding
``# noqa: CODE``. Findings are the ones ``tflint check`` prints for the same file: the
nearest config above the file, ``# noqa`` and per-file-ignores applied
(:func:`tflint.checking.lint_file`).

The editor is never blocked: a change is linted after a short pause (``DEBOUNCE_S``), in
a worker thread; a newer change cancels the pending lint of the older one, and a result
for a version that is no longer current is dropped. Problems (an edit for a document
the server does not know, a file that vanished, a broken config) are logged to the
client, never raised.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import to_fs_path

from tflint import __version__
from tflint.config import ConfigError, Settings, SettingsResolver
from tflint.diagnostics import Applicability, Diagnostic, Severity
from tflint.incremental import IncrementalParser

#: pause after a change before linting (ms matter: the goal is diagnostics in 100 ms)
DEBOUNCE_S = 0.01
SOURCE = "tflint"
log = logging.getLogger(__name__)

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.PERF: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, but an edit for a document that was never opened is logged
    and ignored (pygls raises KeyError)."""

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        uri = params.text_document.uri
        if self.workspace.get_notebook_document(cell_uri=uri) is None and not _known(self.workspace, uri):
            self._server.window_log_message(types.LogMessageParams(
                types.MessageType.Warning, f"tflint: ignored an edit for {uri}, which is not open"))
            return
        yield from super().lsp_text_document__did_change(params)


def _known(workspace: Any, uri: str) -> bool:
    from urllib.parse import unquote

    return unquote(uri) in workspace.text_documents


@dataclass
class _Lint:
    """What one lint produced: per document URI, its findings and the text positions
    were computed on (for code actions)."""

    by_uri: dict[str, list[tuple[Diagnostic, types.Diagnostic]]]


class TflintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "tflint", __version__, protocol_cls=_Protocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[types.NotebookDocumentFilterWithCells(
                    cells=[types.NotebookCellLanguage(language="python")], notebook="jupyter-notebook")],
                save=True,
            ),
        )
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.results: dict[str, list[tuple[Diagnostic, types.Diagnostic]]] = {}
        self.executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="tflint-lint")

    # ------------------------------------------------------------------ scheduling

    def schedule(self, key: str, delay: float = DEBOUNCE_S) -> None:
        """Lint the text document or notebook ``key`` after ``delay``, replacing a
        pending lint of it."""
        old = self.pending.pop(key, None)
        if old is not None:
            old.cancel()
        self.pending[key] = asyncio.ensure_future(self._lint_later(key, delay))

    def project_changed(self, saved: str) -> None:
        """A saved module may change what other modules of its project learn from it
        (traced callers, call sites): the project index is read again (from its cache,
        so only changed files are summarized anew) before the next lint, and every open
        Python document is linted again, the saved one first."""
        from urllib.parse import unquote

        from tflint.semantic import project

        self.executor.submit(project.reset)  # in the lint thread, between two lints
        self.schedule(saved, delay=0)
        for uri in list(self.workspace.text_documents):
            if uri != unquote(saved) and uri.startswith("file:") and uri.endswith(".py"):
                self.schedule(uri)

    async def _lint_later(self, key: str, delay: float) -> None:
        try:
            if delay:
                await asyncio.sleep(delay)
            snapshot = self._snapshot(key)
            if snapshot is None:
                return
            loop = asyncio.get_running_loop()
            result = await loop.run_in_executor(self.executor, _lint_snapshot, snapshot)
            if self._snapshot_version(key) != snapshot.version:
                return  # a newer change is on its way
            for uri, pairs in result.by_uri.items():
                self.results[uri] = pairs
                self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                    uri=uri, diagnostics=[lsp for _, lsp in pairs], version=(snapshot.versions or {}).get(uri)))
        except asyncio.CancelledError:
            pass
        except Exception as e:  # never take the server down
            self.window_log_message(types.LogMessageParams(types.MessageType.Error,
                                                           f"tflint: cannot lint {key}: {type(e).__name__}: {e}"))
        finally:
            if self.pending.get(key) is asyncio.current_task():
                self.pending.pop(key, None)

    def _snapshot_version(self, key: str) -> tuple[Any, ...]:
        snap = self._snapshot(key, text=False)
        return snap.version if snap is not None else ()

    def _snapshot(self, key: str, text: bool = True) -> "_Snapshot | None":
        ws = self.workspace
        nb = ws.get_notebook_document(notebook_uri=key)
        if nb is not None:
            cells = []
            for i, cell in enumerate(nb.cells, start=1):
                if cell.kind != types.NotebookCellKind.Code:
                    continue
                doc = ws.text_documents.get(cell.document)
                if doc is None:
                    continue
                cells.append((i, cell.document, doc.source if text else "", doc.version or 0,
                              list(doc.lines) if text else []))
            return _Snapshot(key, _path(key), None, cells, self._settings(_path(key)) if text else None,
                             version=(nb.version, tuple((c[1], c[3]) for c in cells)), codec=ws.position_codec)
        if not _known(ws, key):
            return None
        doc = ws.get_text_document(key)
        try:
            source = doc.source if text else ""
        except OSError as e:  # the file vanished and the client did not send its text
            self.window_log_message(types.LogMessageParams(types.MessageType.Warning,
                                                           f"tflint: cannot read {key}: {e.strerror or e}"))
            return None
        return _Snapshot(key, _path(key), (source, list(doc.lines) if text else []), [],
                         self._settings(_path(key)) if text else None, version=(doc.version,),
                         versions={key: doc.version}, codec=ws.position_codec)

    def _settings(self, path: str) -> Settings:
        """The nearest config above the file, read fresh (a saved config applies at
        once); a broken config is logged and the defaults are used."""
        root = self.workspace.root_path or os.getcwd()
        try:
            return SettingsResolver({}, cwd=root).for_path(path)
        except ConfigError as e:
            self.window_log_message(types.LogMessageParams(types.MessageType.Error, f"tflint: {e}"))
            return Settings()


@dataclass
class _Snapshot:
    key: str
    path: str
    #: a text document: (source, lines)
    text: tuple[str, list[str]] | None
    #: a notebook: (cell number among all cells, cell uri, source, version, lines)
    cells: list[tuple[int, str, str, int, list[str]]]
    settings: Settings | None
    version: tuple[Any, ...] = ()
    versions: dict[str, int | None] | None = None
    #: pygls' PositionCodec for the encoding agreed with the client
    codec: Any = None

    def __post_init__(self) -> None:
        if self.versions is None:
            self.versions = {uri: v for _, uri, _, v, _ in self.cells}


def _path(uri: str) -> str:
    path = to_fs_path(uri)
    return path if path else uri


#: the worker thread's parser: an edit re-parses the statements it changed, not the file
_PARSER = IncrementalParser()


def _lint_snapshot(snap: _Snapshot) -> _Lint:
    """Runs in the worker thread: lint, then convert positions for the client."""
    from tflint.checking import lint_file

    assert snap.settings is not None
    if snap.text is not None:
        source, lines = snap.text
        diags = lint_file(source, snap.path, snap.settings, parser=_PARSER)
        return _Lint({snap.key: [(d, _to_lsp(d, lines, snap.codec)) for d in diags]})
    from tflint import noqa as noqa_mod, notebook
    from tflint.checking import per_file_ignores
    from tflint.engine import lint_source

    nb = notebook.Notebook(path=snap.path, text="", had_bom=False,
                           cells=[notebook.CodeCell(i, src, False, ()) for i, _, src, _, _ in snap.cells])
    notebook.build_module(nb)
    raw = lint_source(nb.module, snap.path, snap.settings, parser=_PARSER) if nb.module.strip() else []
    diags = per_file_ignores(snap.path, notebook.to_cells(nb, noqa_mod.apply_noqa(raw, nb.module)), snap.settings)
    by_uri: dict[str, list[tuple[Diagnostic, types.Diagnostic]]] = {uri: [] for _, uri, _, _, _ in snap.cells}
    cell_uri = {i: uri for i, uri, _, _, _ in snap.cells}
    cell_lines = {i: lines for i, _, _, _, lines in snap.cells}
    for d in diags:
        uri = cell_uri.get(d.cell or 0)
        if uri is not None:
            by_uri[uri].append((d, _to_lsp(d, cell_lines[d.cell or 0], snap.codec)))
    return _Lint(by_uri)


def _units(lines: list[str], line: int, column: int, codec: Any) -> int:
    """A code-point column in the position encoding agreed with the client (UTF-16
    unless the client asked for another)."""
    if 0 <= line < len(lines):
        return int(codec.client_num_units(lines[line][:column]))
    return column


def _pos(lines: list[str], line: int, column: int, codec: Any) -> types.Position:
    return types.Position(line=max(line - 1, 0), character=_units(lines, line - 1, column, codec))


def _to_lsp(d: Diagnostic, lines: list[str], codec: Any) -> types.Diagnostic:
    from tflint.output import rule_url

    end_line, end_col = (d.end_line, d.end_column) if (d.end_line, d.end_column) > (d.line, d.column) \
        else (d.line, d.column + 1)
    return types.Diagnostic(
        range=types.Range(start=_pos(lines, d.line, d.column, codec), end=_pos(lines, end_line, end_col, codec)),
        message=d.message, severity=_SEVERITY[d.severity], code=d.code, source=SOURCE,
        code_description=types.CodeDescription(href=rule_url(d.code)),
    )


# ---------------------------------------------------------------------- features

server = TflintServer()


def _notebook_of(uri: str) -> str | None:
    nb = server.workspace.get_notebook_document(cell_uri=uri)
    return nb.uri if nb is not None else None


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: TflintServer, params: types.DidOpenTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.schedule(_notebook_of(uri) or uri, delay=0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: TflintServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.schedule(_notebook_of(uri) or uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: TflintServer, params: types.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    nb = _notebook_of(uri)
    if nb is not None:
        ls.schedule(nb, delay=0)
    elif _known(ls.workspace, uri):
        ls.project_changed(uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: TflintServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    task = ls.pending.pop(uri, None)
    if task is not None:
        task.cancel()
    ls.results.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
def nb_did_open(ls: TflintServer, params: types.DidOpenNotebookDocumentParams) -> None:
    ls.schedule(params.notebook_document.uri, delay=0)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
def nb_did_change(ls: TflintServer, params: types.DidChangeNotebookDocumentParams) -> None:
    ls.schedule(params.notebook_document.uri)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
def nb_did_save(ls: TflintServer, params: types.DidSaveNotebookDocumentParams) -> None:
    ls.schedule(params.notebook_document.uri, delay=0)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
def nb_did_close(ls: TflintServer, params: types.DidCloseNotebookDocumentParams) -> None:
    task = ls.pending.pop(params.notebook_document.uri, None)
    if task is not None:
        task.cancel()
    for cell in params.cell_text_documents:
        ls.results.pop(cell.uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell.uri, diagnostics=[]))


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=False),
)
def code_action(ls: TflintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """A fix for each finding in the range that has one (unsafe ones say so and are
    never preferred), and ``# noqa: CODE`` for each finding."""
    uri = params.text_document.uri
    out: list[types.CodeAction] = []
    rng = params.range
    for d, lsp in ls.results.get(uri, []):
        if lsp.range.end.line < rng.start.line or lsp.range.start.line > rng.end.line:
            continue
        doc = ls.workspace.text_documents.get(uri)
        if doc is None:
            continue
        lines = list(doc.lines)
        if d.fix is not None and d.fix.edits:
            unsafe = d.fix.applicability is Applicability.UNSAFE
            edits = _fix_edits(ls, uri, d, lines)
            if edits is not None:
                out.append(types.CodeAction(
                    title=f"{d.code}: {d.fix.title}" + (" (unsafe: may change behaviour)" if unsafe else ""),
                    kind=types.CodeActionKind.QuickFix, diagnostics=[lsp], is_preferred=not unsafe,
                    edit=types.WorkspaceEdit(changes=edits)))
        noqa_edit = _noqa_edit(doc.source, d, lines, ls.workspace.position_codec)
        if noqa_edit is not None:
            out.append(types.CodeAction(
                title=f"{d.code}: add `# noqa: {d.code}`", kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp], edit=types.WorkspaceEdit(changes={uri: [noqa_edit]})))
    return out


def _fix_edits(ls: TflintServer, uri: str, d: Diagnostic, lines: list[str]) -> dict[str, list[types.TextEdit]] | None:
    assert d.fix is not None
    changes: dict[str, list[types.TextEdit]] = {}
    codec = ls.workspace.position_codec
    nb = ls.workspace.get_notebook_document(cell_uri=uri)
    for e in d.fix.edits:
        target, target_lines = uri, lines
        if e.cell is not None and nb is not None:
            cell = nb.cells[e.cell - 1] if 0 < e.cell <= len(nb.cells) else None
            doc = ls.workspace.text_documents.get(cell.document) if cell is not None else None
            if doc is None:
                return None
            target, target_lines = cell.document, doc.lines  # type: ignore[union-attr]
        changes.setdefault(target, []).append(types.TextEdit(
            range=types.Range(start=_pos(target_lines, e.line, e.column, codec),
                              end=_pos(target_lines, e.end_line, e.end_column, codec)),
            new_text=e.content))
    return changes


def _noqa_edit(source: str, d: Diagnostic, lines: list[str], codec: Any) -> types.TextEdit | None:
    """Replace the one line ``# noqa`` goes on (the end of the finding's statement)."""
    import dataclasses

    from tflint.noqa import add_noqa_text

    local = dataclasses.replace(d, cell=None)
    new, count = add_noqa_text(source, [local])
    if not count:
        return None
    old_lines = source.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    for i, (a, b) in enumerate(zip(old_lines, new_lines)):
        if a != b:
            body = a.rstrip("\r\n")
            return types.TextEdit(
                range=types.Range(start=types.Position(line=i, character=0),
                                  end=types.Position(line=i, character=_units(lines, i, len(body), codec))),
                new_text=b.rstrip("\r\n"))
    return None


def main(argv: list[str] | None = None) -> int:
    """``tflint server``: speak LSP on stdin/stdout until the client exits."""
    import argparse

    parser = argparse.ArgumentParser(prog="tflint server", description="tflint's language server (stdio)")
    parser.add_argument("--stdio", action="store_true", help="accepted for clients that pass it (stdio is the default)")
    parser.parse_args(argv)
    server.start_io()
    return 0
