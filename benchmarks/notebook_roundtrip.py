"""Lint and fix every notebook under a folder, on a copy, and check what fixing wrote.

    python benchmarks/notebook_roundtrip.py FOLDER [--unsafe]

For each ``*.ipynb`` it prints nothing unless something is wrong; at the end, one
summary: notebooks, code cells, findings per code (TFL001 counted apart: notebooks or
cells tflint could not read), the lint time, and for ``--fix`` (``--unsafe-fixes`` with
``--unsafe``) how many notebooks changed and whether each written notebook

* is still valid nbformat,
* differs from the original only in the ``source`` of code cells (outputs, metadata,
  markdown, every other key equal after ``json.loads``),
* is byte for byte the original outside the code cells' ``source`` values,
* and lints with no fixable finding left (a second ``--fix`` would change nothing).

The folder itself is never written: the notebooks are copied to a temporary folder.
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _without_code_sources(doc: Any) -> Any:
    cells = doc.get("cells")
    if cells is None:  # nbformat 3
        cells = [c for ws in doc.get("worksheets", []) for c in ws.get("cells", [])]
    for c in cells:
        if c.get("cell_type") == "code":
            c.pop("source", None)
            c.pop("input", None)
    return doc


def _skeleton(data: bytes) -> str:
    """The notebook text with every code cell's source value cut out."""
    from tflint import notebook

    nb = notebook.read(data, "x")
    spans = notebook.locate(nb.text, {c.json_path for c in nb.cells})
    out, at = [], 0
    for start, end in sorted(spans.values()):
        out.append(nb.text[at:start])
        at = end
    out.append(nb.text[at:])
    return "\x00".join(out)


def main(argv: list[str] | None = None) -> int:
    import nbformat

    from tflint import notebook
    from tflint.engine import fixable

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--unsafe", action="store_true", help="apply unsafe fixes too")
    args = ap.parse_args(argv)
    paths = sorted(Path(args.folder).rglob("*.ipynb"))
    codes: collections.Counter[str] = collections.Counter()
    cells = changed = bad = 0
    t_lint = t_fix = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for src in paths:
            dst = Path(tmp) / "nb.ipynb"
            shutil.copyfile(src, dst)
            data = dst.read_bytes()
            t0 = time.perf_counter()
            diags = notebook.lint(data, str(src))
            t_lint += time.perf_counter() - t0
            codes.update(d.code for d in diags)
            try:
                cells += len(notebook.read(data, str(src)).cells)
            except notebook.NotebookError:
                pass
            t0 = time.perf_counter()
            result = notebook.fix(data, str(src), unsafe=args.unsafe)
            t_fix += time.perf_counter() - t0
            if result.source == data:
                continue
            changed += 1
            problems = []
            try:
                with _quiet():
                    nbformat.validate(nbformat.reads(result.source.decode("utf-8"), as_version=nbformat.NO_CONVERT))
            except Exception as e:
                problems.append(f"not valid nbformat after fixing: {e}")
            old_doc, new_doc = json.loads(data), json.loads(result.source)
            if _without_code_sources(old_doc) != _without_code_sources(new_doc):
                problems.append("something other than a code cell's source changed")
            if _skeleton(data) != _skeleton(result.source):
                problems.append("the text outside the code cells' sources changed")
            if not data.endswith(b"\n") == result.source.endswith(b"\n"):
                problems.append("trailing newline changed")
            left = [d for d in notebook.lint(result.source, str(src)) if fixable(d, args.unsafe)]
            if left:
                problems.append(f"{len(left)} fixable findings left after --fix")
            for p in problems:
                bad += 1
                print(f"{src}: {p}", file=sys.stderr)
    found = sum(n for c, n in codes.items() if c != "TFL001")
    print(f"notebooks: {len(paths)}, code cells: {cells}, findings: {found} "
          f"({', '.join(f'{c} {n}' for c, n in sorted(codes.items()) if c != 'TFL001') or 'none'}), "
          f"TFL001: {codes.get('TFL001', 0)}")
    print(f"lint: {t_lint:.2f} s, fix: {t_fix:.2f} s; notebooks changed by --fix"
          f"{' --unsafe-fixes' if args.unsafe else ''}: {changed}, problems in what was written: {bad}")
    return 1 if bad else 0


class _quiet:
    """nbformat warns (missing cell ids) on valid old notebooks."""

    def __enter__(self) -> None:
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc: object) -> None:
        self._w.__exit__(*exc)


if __name__ == "__main__":
    raise SystemExit(main())
