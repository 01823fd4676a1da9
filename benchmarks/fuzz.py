"""Fuzz the static check with generated Python modules (hypothesmith), as pyflakes,
bugbear, libcst and ruff are fuzzed.

    python benchmarks/fuzz.py [--count N] [--seed S]

Each generated module that CPython compiles is linted in three wrappings, so that the
rules see it as traced code: as is under ``import tensorflow as tf``; with every
``def`` decorated ``@tf.function``; and as the body of an ``@tf.function`` (when that
compiles). For each it checks the goals of issue 12:

- linting never raises and never gives TFL002 (an analysis failure);
- TFL001 only where CPython itself refuses the text;
- ``--fix --unsafe-fixes`` never offers a fix whose result does not parse, the fixed
  text compiles, and fixing it again changes nothing (re-linting is stable).

Prints the counts and every failing module (to stdout, with its wrapping). Exits 1 on a
failure. tests/test_fuzz.py runs :func:`check_module` on a small budget with a fixed
seed; this script runs the >= 10,000-module goal.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from dataclasses import dataclass, field

import libcst as cst

from tflint.engine import fix_source, lint_source

HEADER = "import tensorflow as tf\n"


@dataclass
class Tally:
    modules: int = 0
    lints: int = 0
    fix_runs: int = 0
    fixes_applied: int = 0
    failures: list[str] = field(default_factory=list)


class _Decorate(cst.CSTTransformer):
    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        deco = cst.Decorator(cst.Attribute(cst.Name("tf"), cst.Name("function")))
        return updated.with_changes(decorators=[deco, *updated.decorators])


#: statements whose findings carry a fix, with a hole for a generated expression: the
#: fixes must take any operand whole (issue 12: `(2, 3)`, `()`, `((a,),)`, `(*a,)`, a
#: generator expression)
FIX_SITES = (
    "    assert tf.reduce_sum(x) > {e}, 'message'\n",
    "    assert {e} == tf.reduce_sum(x)\n",
    "    m = max(tf.reduce_sum(x), {e})\n",
    "    print(tf.reduce_sum(x), {e})\n",
    "    for i in range({e}):\n        if tf.reduce_sum(x) > 0:\n            break\n",
)


def _expressions(module: cst.Module, limit: int = 3) -> list[str]:
    """Source text of up to ``limit`` distinct expressions of ``module`` (largest first)."""
    found: dict[str, None] = {}

    class Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, cst.BaseExpression) and not isinstance(node, cst.Ellipsis):
                found.setdefault(module.code_for_node(node).strip(), None)
            return True

    module.visit(Collect())
    texts = sorted((t for t in found if t and "\n" not in t and "\\" not in t), key=len, reverse=True)
    return texts[:limit]


def _compiles(text: str) -> bool:
    try:
        compile(text, "fuzz", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def wrappings(source: str) -> list[tuple[str, str]]:
    """(name, text) of the traced wrappings of ``source`` that CPython compiles."""
    out = [("module", HEADER + source)]
    try:
        module = cst.parse_module(source)
        out.append(("decorated", HEADER + module.visit(_Decorate()).code))
        for i, e in enumerate(_expressions(module)):
            sites = [site.format(e=e) for site in FIX_SITES]
            sites = [f"\n@tf.function\ndef site_{j}(x):\n{site}    return x\n" for j, site in enumerate(sites)
                     if _compiles("def f(x):\n" + site)]
            if sites:
                out.append((f"fix-sites-{i}", HEADER + "".join(sites)))
    except Exception:  # libcst cannot parse it: the module wrapping covers it
        pass
    if "\t" not in source:  # re-indenting tab-indented code changes CPython's reading of it
        body = textwrap.indent(source, "    ") if source.strip() else ""
        out.append(("traced-body", HEADER + "\n@tf.function\ndef traced(x, y):\n" + body + "    pass\n"))
    good = []
    for name, text in out:
        try:
            compile(text, name, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        good.append((name, text))
    return good


def check_module(source: str, tally: Tally) -> None:
    """Lint and fix ``source`` in every wrapping; record what breaks a goal."""
    try:
        compile(source, "fuzz", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return  # not Python CPython accepts: out of scope
    tally.modules += 1
    for name, text in wrappings(source):
        _check_text(name, text, tally)


def _check_text(name: str, text: str, tally: Tally) -> None:
    def fail(what: str) -> None:
        tally.failures.append(f"--- {what} [{name}]\n{text}")

    try:
        diags = lint_source(text, "fuzz.py")
    except BaseException as e:  # the goal is that this never happens
        fail(f"lint raised {type(e).__name__}: {e}")
        return
    tally.lints += 1
    for d in diags:
        if d.code in ("TFL001", "TFL002"):
            fail(f"{d.code} {d.message}")
            return
    if not any(d.fix is not None for d in diags):
        return
    try:
        result = fix_source(text, "fuzz.py", unsafe=True)
    except BaseException as e:
        fail(f"fix raised {type(e).__name__}: {e}")
        return
    tally.fix_runs += 1
    tally.fixes_applied += result.applied
    if result.problems:
        fail("fix problems: " + "; ".join(result.problems))
        return
    fixed = result.source
    assert isinstance(fixed, str)
    try:
        compile(fixed, "fixed", "exec", dont_inherit=True)
    except SyntaxError as e:
        fail(f"fixed text does not compile: {e}\n{fixed}")
        return
    again = fix_source(fixed, "fuzz.py", unsafe=True)
    if again.source != fixed or again.problems:
        fail(f"fixing the fixed text changed it again:\n{fixed}")


def run(count: int, seed: int, progress: bool = False) -> Tally:
    """Check ``count`` generated modules (hypothesis with a fixed seed, no shrinking:
    every module is checked, failures are collected, not raised). The modules come from
    hypothesmith's grammar strategy (about 0.1 s a module; its libcst-node strategy
    takes about 0.6 s); those CPython does not compile are left out."""
    import hypothesmith
    from hypothesis import HealthCheck, Phase, given, seed as hseed, settings

    tally = Tally()
    started = time.perf_counter()

    @hseed(seed)
    @settings(max_examples=count, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(hypothesmith.from_grammar())
    def one(source: str) -> None:
        check_module(source, tally)
        if progress and tally.modules and tally.modules % 500 == 0:
            print(f"  {tally.modules:,} modules, {time.perf_counter() - started:.0f} s", file=sys.stderr,
                  flush=True)

    one()
    return tally


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=10_000, help="examples to generate")
    ap.add_argument("--seed", type=int, default=12)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    tally = run(args.count, args.seed, progress=True)
    for f in tally.failures:
        print(f)
    print(f"{tally.modules:,} modules that compile (of {args.count:,} generated, seed {args.seed}), "
          f"{tally.lints:,} lints, {tally.fix_runs:,} fix runs, {tally.fixes_applied:,} fixes applied, "
          f"{len(tally.failures)} failures, {time.perf_counter() - t0:.0f} s")
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
