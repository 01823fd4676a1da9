"""``tflint server`` end to end: a real LSP client (pytest-lsp) starts the server as a
subprocess and talks to it over stdio."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

BAD = "import tensorflow as tf\n@tf.function\ndef f(x):\n    print(x)\n    return x\n"
UNSAFE = "import tensorflow as tf\n@tf.function\ndef f(x):\n    assert x > 0\n    return x\n\n\nf(tf.constant(1.0))\n"


#: one server for the module: starting one costs seconds (imports), the tests use
#: distinct documents
@pytest_lsp.fixture(scope="module",
                    config=ClientServerConfig(server_command=[sys.executable, "-m", "tflint", "server"]))
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("ws")
    (root / "pyproject.toml").write_text("[tool.tflint]\nper-file-ignores = {'quiet_*.py' = ['TFL101']}\n")
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
        root_uri=root.as_uri(), workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")]))
    lsp_client.root = root  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def _diagnostics(client: LanguageClient, uri: str, timeout: float = 20) -> list[types.Diagnostic]:
    async def wait() -> list[types.Diagnostic]:
        while True:
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            if uri in client.diagnostics:
                return list(client.diagnostics[uri])

    return await asyncio.wait_for(wait(), timeout)


def _open(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))
    return uri


@pytest.mark.asyncio(loop_scope="module")
async def test_open_change_save_and_code_actions(client: LanguageClient) -> None:
    root: Path = client.root  # type: ignore[attr-defined]
    uri = _open(client, root / "a.py", BAD)
    (d,) = await _diagnostics(client, uri)
    assert (d.code, d.source, d.range.start.line, d.range.start.character) == ("TFL101", "tflint", 3, 4)
    assert d.code_description is not None and d.code_description.href.endswith("TFL101.md")

    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=d.range,
        context=types.CodeActionContext(diagnostics=[d])))
    titles = [a.title for a in actions]  # type: ignore[union-attr]
    assert any("tf.print" in t for t in titles) and "TFL101: add `# noqa: TFL101`" in titles, titles
    fix = next(a for a in actions if "noqa" not in a.title)  # type: ignore[union-attr]
    (edit,) = fix.edit.changes[uri]  # type: ignore[union-attr]
    assert edit.new_text == "tf.print(x)" and fix.is_preferred
    noqa = next(a for a in actions if "noqa" in a.title)  # type: ignore[union-attr]
    assert noqa.edit.changes[uri][0].new_text == "    print(x)  # noqa: TFL101"  # type: ignore[union-attr]

    # a change that fixes the code clears the diagnostics
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=3, character=4), end=types.Position(line=3, character=4)),
            text="tf.")]))
    assert await _diagnostics(client, uri) == []
    client.diagnostics.pop(uri, None)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert await _diagnostics(client, uri) == []


@pytest.mark.asyncio(loop_scope="module")
async def test_unsafe_fix_is_marked_and_config_is_read(client: LanguageClient) -> None:
    root: Path = client.root  # type: ignore[attr-defined]
    uri = _open(client, root / "b.py", UNSAFE)
    diags = await _diagnostics(client, uri)
    (d,) = [x for x in diags if x.code == "TFL202"]
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=d.range,
        context=types.CodeActionContext(diagnostics=[d])))
    unsafe = [a for a in actions if "unsafe" in a.title]  # type: ignore[union-attr]
    assert unsafe and not unsafe[0].is_preferred, [a.title for a in actions]  # type: ignore[union-attr]
    # the workspace's per-file-ignores apply
    quiet = _open(client, root / "quiet_c.py", BAD)
    assert await _diagnostics(client, quiet) == []


@pytest.mark.asyncio(loop_scope="module")
async def test_notebook_cells(client: LanguageClient) -> None:
    root: Path = client.root  # type: ignore[attr-defined]
    nb_uri = (root / "nb.ipynb").as_uri()
    cells = [f"vscode-notebook-cell:{nb_uri}#c{i}" for i in range(3)]
    texts = ["import tensorflow as tf\n%matplotlib inline\n", "# Title", "@tf.function\ndef f(x):\n    print(x)\n"]
    kinds = [types.NotebookCellKind.Code, types.NotebookCellKind.Markup, types.NotebookCellKind.Code]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=nb_uri, notebook_type="jupyter-notebook", version=1,
            cells=[types.NotebookCell(kind=k, document=c) for k, c in zip(kinds, cells)]),
        cell_text_documents=[types.TextDocumentItem(uri=c, language_id="python" if k == kinds[0] else "markdown",
                                                    version=1, text=t) for c, t, k in zip(cells, texts, kinds)]))
    (d,) = await _diagnostics(client, cells[2])
    assert (d.code, d.range.start.line, d.range.start.character) == ("TFL101", 2, 4)
    assert not client.diagnostics.get(cells[0])


@pytest.mark.asyncio(loop_scope="module")
async def test_bad_input_is_logged_and_the_server_goes_on(client: LanguageClient) -> None:
    root: Path = client.root  # type: ignore[attr-defined]
    # an edit for a document that was never opened
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=(root / "nowhere.py").as_uri(), version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="x = 1\n")]))
    # a save for a file that does not exist and was never opened
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=(root / "vanished.py").as_uri())))
    uri = _open(client, root / "later.py", BAD)
    assert [d.code for d in await _diagnostics(client, uri)] == ["TFL101"]
    assert any("not open" in m.message for m in client.log_messages), [m.message for m in client.log_messages]


@pytest.mark.asyncio(loop_scope="module")
async def test_positions_in_utf16_units(client: LanguageClient) -> None:
    """LSP counts UTF-16 code units by default: a character outside the BMP before the
    finding counts twice."""
    root: Path = client.root  # type: ignore[attr-defined]
    src = BAD.replace("    print(x)", '    s = "\U0001F600"; print(x)')
    uri = _open(client, root / "emoji.py", src)
    (d,) = await _diagnostics(client, uri)
    # `print` is at code point 13 of the line, UTF-16 unit 14
    assert (d.range.start.line, d.range.start.character) == (3, 14)


@pytest.mark.asyncio(loop_scope="module")
async def test_saving_a_module_updates_what_the_project_knows(client: LanguageClient) -> None:
    """ops.py learns from trainer.py that a Keras train_step calls its helper once
    trainer.py is saved with that call: the open ops.py is linted again on the fresh
    project index."""
    root: Path = client.root  # type: ignore[attr-defined]
    (root / "proj").mkdir()
    (root / "proj" / "__init__.py").write_text("")
    ops = "def helper(x):\n    return x.numpy()\n"
    (root / "proj" / "ops.py").write_text(ops)
    before = "import tensorflow as tf\n\n\nclass M(tf.keras.Model):\n    def train_step(self, data):\n        return {}\n"
    (root / "proj" / "trainer.py").write_text(before)
    ops_uri = _open(client, root / "proj" / "ops.py", ops)
    assert await _diagnostics(client, ops_uri) == []
    after = before.replace("import tensorflow as tf\n", "import tensorflow as tf\nfrom proj.ops import helper\n")
    after = after.replace("return {}", "return {'x': helper(data)}")
    trainer_uri = _open(client, root / "proj" / "trainer.py", before)
    await _diagnostics(client, trainer_uri)
    (root / "proj" / "trainer.py").write_text(after)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=trainer_uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=after)]))
    client.diagnostics.pop(ops_uri, None)
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=trainer_uri)))
    found = await _diagnostics(client, ops_uri)
    assert [(d.code, d.range.start.line) for d in found] == [("TFL201", 1)], found
