"""Apply every safe fix to the real-code corpus and check the result (issue 5, item 7).

    python benchmarks/fix_corpus.py [CORPUS] [--jobs N] [--unsafe] [--keep DIR]

CORPUS is the folder ``fetch_corpus.sh`` filled (its ``src/`` is used) or any folder of
Python files; default ``$TFLINT_CORPUS`` or ``<repo>/.corpus-cache``. The corpus itself
is never modified: the files are copied to a temporary folder (or ``--keep DIR``) and
fixed there with ``fix_source`` (the default rule selection, safe fixes only unless
``--unsafe``), written back the way ``tflint check --fix`` writes them. For every
changed file it checks that

1. the fixed file parses (libcst, and CPython's compiler),
2. a second pass over the fixed file changes nothing,
3. every line the fix did not touch is byte for byte what it was (diff of the lines),

and prints the counts: files, files changed, fixes per rule, fixes dropped because the
result did not parse, and the files that fail a check (exit 1 if there is any).

``--stress`` exercises the fix machinery itself on far more real code than the rules
find: instead of the rules it runs one stand-in rule that reports *every* call of the
builtins ``print`` and ``range`` in every file (traced or not) with the fixes the rules
use (``print`` -> ``tf.print`` through the module's alias or a new import, ``range`` ->
``tf.range``, ``x.shape[i]`` -> ``tf.shape(x)[i]``), all marked safe. The result is not
meant to be correct TensorFlow code; the checks above (parses, stable, untouched lines
kept) are what is measured.
"""

from __future__ import annotations

import argparse
import collections
import difflib
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def default_corpus() -> Path:
    return Path(os.environ.get("TFLINT_CORPUS") or REPO / ".corpus-cache")


@dataclass
class Outcome:
    path: str
    applied: int = 0
    by_code: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    #: empty when every check passed
    failures: list[str] = field(default_factory=list)
    changed_lines: int = 0


def _stress_rule() -> type:
    """The stand-in rule of ``--stress`` (see the module docstring)."""
    import libcst as cst

    from tflint import fixes
    from tflint.diagnostics import Severity
    from tflint.rule import Rule

    class EveryPrintAndRange(Rule):
        """Stand-in: every builtin print/range call, with a fix."""

        CODE = "TFL999"
        NAME = "stress-every-print-and-range"
        MESSAGE = "stress"
        SEVERITY = Severity.INFO
        TRACED_ONLY = False
        TEXT_MARKERS = (r"\bprint\s*\(", r"\brange\s*\(")

        def visit_Call(self, node: cst.Call, ctx) -> None:
            if self.sem.is_builtin(node.func, "print", ctx.fn):
                tf_mod = fixes.tensorflow_module(self.sem, ctx)
                if tf_mod is not None and not any(a.star == "**" for a in node.args):
                    alias, imports = tf_mod
                    fix = self.replace(node, node.with_changes(func=fixes.attr(f"{alias}.print")), safe=True,
                                       title="stress", imports=imports)
                    self.report(node, fix=fix)
            elif self.sem.is_builtin(node.func, "range", ctx.fn):
                fix = fixes.range_to_tf_range(self, node, ctx)
                if fix is not None:
                    self.report(node, fix=fixes.NodeFix(fix.title, True, fix.edits, fix.imports))

    return EveryPrintAndRange


def _check_one(item: tuple[str, bool, bool]) -> Outcome:
    import libcst as cst

    from tflint import engine, files
    from tflint.engine import fix_source

    path, unsafe, stress = item
    if stress and not getattr(engine, "_stress", False):
        rule = _stress_rule()
        engine.selected_rules = lambda *a, **k: [rule]  # type: ignore[assignment]
        engine._stress = True  # type: ignore[attr-defined]
    out = Outcome(path)
    data = files.read_source(path)
    try:
        result = fix_source(data, path, unsafe=unsafe)
    except Exception as e:  # fix_source must never raise
        out.failures.append(f"fix_source raised {type(e).__name__}: {e}")
        return out
    out.problems = list(result.problems)
    if result.source == data:
        return out
    new = result.source
    assert isinstance(new, bytes)
    files.write_atomic(path, new)
    out.applied, out.by_code = result.applied, dict(result.applied_by_code)
    from tflint.engine import decode

    text = decode(new)
    try:
        cst.parse_module(text)
        compile(text, path, "exec", dont_inherit=True, flags=0x400)
    except Exception as e:
        out.failures.append(f"the fixed file does not parse: {type(e).__name__}: {e}")
    again = fix_source(new, path, unsafe=unsafe)
    if again.source != new:
        out.failures.append(f"a second pass changed the file again ({again.applied} more fixes)")
    old_lines = decode(data).splitlines(keepends=True)
    new_lines = text.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            out.changed_lines += max(i2 - i1, j2 - j1)
    if out.changed_lines > 4 * out.applied + 2 * len(result.applied_by_code):
        out.failures.append(f"{out.changed_lines} lines changed for {out.applied} fixes")
    if (b"\r\n" in data) != (b"\r\n" in new):
        out.failures.append("the newline style changed")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--unsafe", action="store_true", help="apply unsafe fixes too")
    parser.add_argument("--stress", action="store_true",
                        help="fix every print/range call instead of the rules' findings (tests the machinery)")
    parser.add_argument("--keep", type=Path, default=None, help="fix a copy here and keep it")
    args = parser.parse_args(argv)
    root = args.corpus or default_corpus()
    if (root / "src").is_dir():
        root = root / "src"
    if not root.is_dir():
        print(f"no corpus at {root} (pass a folder or set TFLINT_CORPUS)", file=sys.stderr)
        return 2

    from tflint.config import Settings
    from tflint.files import discover

    tmp = None
    if args.keep is not None:
        dest = args.keep
        if dest.exists():
            print(f"{dest} exists; pick a new folder", file=sys.stderr)
            return 2
    else:
        tmp = tempfile.TemporaryDirectory(prefix="tflint-fix-corpus-")
        dest = Path(tmp.name) / "src"
    t0 = time.perf_counter()
    shutil.copytree(root, dest, symlinks=True)
    paths = discover([str(dest)], Settings()).files
    outcomes: list[Outcome] = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for o in pool.map(_check_one, [(p, args.unsafe, args.stress) for p in paths], chunksize=8):
            outcomes.append(o)
    elapsed = time.perf_counter() - t0

    by_code: collections.Counter[str] = collections.Counter()
    for o in outcomes:
        by_code.update(o.by_code)
    changed = [o for o in outcomes if o.applied]
    failed = [o for o in outcomes if o.failures]
    problems = [p for o in outcomes for p in o.problems]
    rel = lambda p: os.path.relpath(p, dest)  # noqa: E731
    kind = "stress: every print/range call" if args.stress else ("safe and unsafe" if args.unsafe else "safe")
    print(f"corpus: {root} ({kind} fixes)")
    print(f"files checked:            {len(outcomes)}")
    print(f"files changed:            {len(changed)}")
    print(f"fixes applied:            {sum(o.applied for o in outcomes)}")
    for code, n in sorted(by_code.items()):
        print(f"  {code}: {n}")
    print(f"lines changed:            {sum(o.changed_lines for o in outcomes)}")
    print(f"fixes dropped (no parse): {sum('does not parse' in p for p in problems)}")
    print(f"other fix problems:       {sum('does not parse' not in p for p in problems)}")
    broken = sum(any("parse" in f for f in o.failures) for o in changed)
    unstable = sum(any("second pass" in f for f in o.failures) for o in changed)
    print(f"changed files that parse: {len(changed) - broken} / {len(changed)}")
    print(f"stable on a second pass:  {len(changed) - unstable} / {len(changed)}")
    print(f"files failing a check:    {len(failed)}")
    for o in failed[:50]:
        for f in o.failures:
            print(f"  {rel(o.path)}: {f}")
    for p in problems[:20]:
        print(f"  problem: {p.replace(str(dest) + os.sep, '')}")
    print(f"time: {elapsed:.1f} s with {args.jobs} processes")
    if tmp is not None:
        tmp.cleanup()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
