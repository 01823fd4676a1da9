"""How long ``tflint server`` takes to answer an edit, measured from a real LSP client.

    python benchmarks/lsp_latency.py [--lines 500] [--edits 40]

Starts ``python -m tflint server`` over stdio with pygls' client, opens a generated
file of about ``--lines`` lines whose functions are all traced (``@tf.function``, with
one ``print`` finding each), then makes ``--edits`` edits one after the other, each
adding or removing a finding, and times each from sending ``didChange`` to receiving the
``publishDiagnostics`` for that document version. The first edits warm the server up
(imports, caches); the figures printed are over the warm edits (all but the first 5):
median, 90th percentile and maximum, in milliseconds. The goal is a median of at most
100 ms. The time includes the server's debounce pause (``DEBOUNCE_S``). The same lint,
in-process and without the server, is timed too: the difference is the server's cost.
``--no-loop`` leaves out the ``for`` loop of each function (the loop rules' time grows
faster than linearly with the number of loops: see the scaling issue).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

FUNC = '''
@tf.function
def step_{i}(x, y):
    """Step {i}."""
    z = tf.matmul(x, y)
    z = tf.nn.relu(z + {i}.0)
    total = tf.reduce_sum(z)
    if total > 0:
        z = z / total
    else:
        z = z * 2.0
    for _ in tf.range(3):
        z = z + 1.0
    print(z)
    mean = tf.reduce_mean(z)
    return z, mean
'''


LOOP = True


def make_source(lines: int, loop: bool | None = None) -> str:
    loop = LOOP if loop is None else loop
    func = FUNC if loop else FUNC.replace("    for _ in tf.range(3):\n        z = z + 1.0\n", "    z = z + 1.0\n    z = z - 1.0\n")
    out = ["import tensorflow as tf\n"]
    i = 0
    while sum(s.count("\n") for s in out) < lines:
        out.append(func.format(i=i))
        i += 1
    return "".join(out)


async def run(lines: int, edits: int) -> list[float]:
    client = LanguageClient("tflint-bench", "1")
    received: dict[int, float] = {}
    counts: dict[int, int] = {}
    got = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            received[params.version] = time.perf_counter()
            counts[params.version] = len(params.diagnostics)
            got.set()

    await client.start_io(sys.executable, "-m", "tflint", "server")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text("[tool.tflint]\n")
        path = root / "model.py"
        source = make_source(lines)
        path.write_text(source)
        await client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=root.as_uri()))
        client.initialized(types.InitializedParams())
        uri = path.as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
            uri=uri, language_id="python", version=1, text=source)))
        await asyncio.wait_for(_wait(got, received, 1), 60)
        n_lines = source.count("\n")
        times = []
        for k in range(edits):
            version = k + 2
            # toggle one `print(z)` <-> `tf.print(z)` near the end of the file
            line = source.splitlines().index("    print(z)", n_lines - 40) if k % 2 == 0 else None
            if line is not None:
                change = types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(line, 4), types.Position(line, 4)), text="tf.")
                target = line
            else:
                change = types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(target, 4), types.Position(target, 7)), text="")
            got.clear()
            sent = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))
            await asyncio.wait_for(_wait(got, received, version), 60)
            times.append((received[version] - sent) * 1000)
        await client.shutdown_async(None)
        client.exit(None)
    await client.stop()
    print(f"file: {n_lines} lines, {source.count('@tf.function')} traced functions, "
          f"{counts.get(1, 0)} findings on open")
    return times


async def _wait(event: asyncio.Event, received: dict[int, float], version: int) -> None:
    while version not in received:
        await event.wait()
        event.clear()


def lint_floor(lines: int, loop: bool) -> float:
    """The same lint in this process, no server: median of 5 runs, in ms."""
    from tflint.checking import lint_file
    from tflint.config import Settings

    source = make_source(lines, loop)
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        lint_file(source, "model.py", Settings())
        runs.append((time.perf_counter() - t) * 1000)
    return statistics.median(runs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=500)
    ap.add_argument("--edits", type=int, default=40)
    ap.add_argument("--no-loop", action="store_true",
                    help="leave out the `for _ in tf.range(3)` loop of each function")
    args = ap.parse_args(argv)
    global LOOP
    LOOP = not args.no_loop
    times = asyncio.run(run(args.lines, args.edits))
    warm = sorted(times[5:]) or sorted(times)
    p90 = warm[min(len(warm) - 1, int(round(0.9 * (len(warm) - 1))))]
    print(f"first edit: {times[0]:.1f} ms; warm edits ({len(warm)}): median {statistics.median(warm):.1f} ms, "
          f"p90 {p90:.1f} ms, max {warm[-1]:.1f} ms (goal: median <= 100 ms)")
    print(f"the same lint in-process, no server (median of 5): {lint_floor(args.lines, LOOP):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
