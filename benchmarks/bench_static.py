"""Speed of the static check on the real-code corpus (issue 2, item 10).

    python benchmarks/bench_static.py [CORPUS] [--repeat N] [--jobs N]

CORPUS is the folder ``fetch_corpus.sh`` filled (its ``src/`` is used) or any folder of
Python files; default ``$TFLINT_CORPUS`` or ``<repo>/.corpus-cache`` (``pytest -m corpus``
fetches it there). Prints, in one run:

1. wall time of ``tflint check -j2`` over every file (a subprocess, output to /dev/null);
2. wall time of ``flake8 -j2`` over the same files with flake8's default checks only
   (pycodestyle, pyflakes, mccabe) and *without* tflint's plugin: flake8 has no option
   that stops an installed plugin from running (``--select`` only filters what is
   reported; ``--enable-extensions`` only matters for plugins marked off by default),
   so flake8 runs under ``python -S`` with ``PYTHONPATH`` set to a temporary folder
   holding links to flake8, pycodestyle, pyflakes and mccabe and their ``.dist-info``
   only. Its ``--version`` line is printed to show which plugins were loaded;
3. how many files tflint parses (those passing the engine's own text pre-filter,
   ``tflint.engine.needs_parse``), ``tflint check -j2`` over exactly those files, and a
   bare ``libcst.parse_module`` over them (read, decode as the engine does, parse) in 2
   worker processes, started in a fresh interpreter like the tflint run;
4. the ratios tflint / flake8 and tflint-on-parsed-files / bare parse (goals: <= 0.5
   and <= 1.5);
5. the cold wall time of ``tflint check`` on one corpus file of about 500 lines that the
   pre-filter lets through, in a fresh interpreter, best of 5 (goal <= 0.3 s), next to a
   bare ``python -c pass`` and ``python -c "import libcst"`` for scale. It is measured
   twice on a temporary copy of the package: with its bytecode compiled, as ``pip
   install`` leaves an installed package (the figure held against the goal), and with no
   bytecode cache at all, as an editable install runs under ``PYTHONDONTWRITEBYTECODE``
   (every start then compiles tflint's ~10,000 lines again).
6. with ``--projects``, all of this on a temporary copy in which each top-level folder of
   the corpus is a project of its own (see :func:`projects_copy`); without it, the
   corpus is linted where it is, usually inside a hidden folder of the checkout, where
   the project index has no module of the corpus to follow;
7. with a tree that keeps a project index cache (``--cache-dir``), each corpus-wide run
   starts from an empty cache (in a temporary folder), the whole corpus is then checked
   again on the cache it left (the warm re-run, reported as a fraction of the first), and
   the one-file run checks a freshly edited copy of the file beside it (never in the
   cache itself) on the project cache a first run filled; it is also given on an empty
   cache, which indexes the project first.

Times are wall-clock seconds (``time.perf_counter`` around ``subprocess.run``), best of
``--repeat`` runs (default 1). Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

REPO = Path(__file__).resolve().parents[1]
FLAKE8_DISTS = ("flake8", "pycodestyle", "pyflakes", "mccabe")


def default_corpus() -> Path:
    return Path(os.environ.get("TFLINT_CORPUS") or REPO / ".corpus-cache")


def corpus_files(root: Path) -> list[str]:
    """The files ``tflint check ROOT`` would lint, in its order (tflint's own discovery)."""
    from tflint.config import Settings
    from tflint.files import discover

    return discover([str(root)], Settings()).files


def parsed_files(files: Sequence[str]) -> list[str]:
    """The files the engine parses: those its text pre-filter lets through."""
    from tflint.config import Settings
    from tflint.engine import decode, needs_parse

    settings = Settings()
    out = []
    for f in files:
        with open(f, "rb") as fh:
            data = fh.read()
        try:
            text = decode(data)
        except (UnicodeDecodeError, LookupError, SyntaxError):
            continue  # reported as TFL001 without parsing
        if "\x00" not in text and needs_parse(text, settings):
            out.append(f)
    return out


def _timed(cmd: Sequence[str], repeat: int, env: dict[str, str] | None = None,
           ok: Sequence[int] = (0, 1), cwd: Path = REPO, fresh: Path | None = None) -> float:
    """Best wall time of ``repeat`` runs; ``fresh`` is a cache folder emptied before each."""
    import shutil

    best = float("inf")
    for _ in range(repeat):
        if fresh is not None:
            shutil.rmtree(fresh, ignore_errors=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
        elapsed = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if r.returncode not in ok:
            sys.exit(f"command failed ({r.returncode}): {' '.join(cmd[:6])} ...\n{r.stderr.decode()[-3000:]}")
        if elapsed < best:
            best = elapsed
            CPU[0] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return best


#: CPU seconds (user + system, the command and every process it waited for) of the best
#: run of the last :func:`_timed` call: on a shared machine, far steadier than wall time
CPU = [0.0]


def tflint_cmd(files: Sequence[str], jobs: int, cache: Path | None = None) -> list[str]:
    """``cache``: the project index cache folder (for a tree that has one; see
    :func:`has_cache`)."""
    extra = ["--cache-dir", str(cache)] if cache is not None else []
    return [sys.executable, "-m", "tflint", "check", f"-j{jobs}", "--isolated", "-q", *extra, *files]


def has_cache() -> bool:
    """Does the tflint under test keep a project index cache (``--cache-dir``)?"""
    r = subprocess.run([sys.executable, "-m", "tflint", "check", "--help"], capture_output=True, text=True, cwd=REPO)
    return "--cache-dir" in r.stdout


def flake8_sandbox(tmp: Path) -> Path:
    """A folder with links to flake8 and its three default plugin distributions only:
    importlib.metadata finds their entry points and nobody else's (not tflint's)."""
    site = tmp / "flake8-only"
    site.mkdir()
    for name in FLAKE8_DISTS:
        dist = importlib.metadata.distribution(name)
        base = Path(dist.locate_file(""))
        tops = set()
        for f in dist.files or ():
            first = Path(f).parts[0]
            if first not in ("..", "__pycache__") and not first.endswith(".dist-info"):
                tops.add(first)
        info = Path(getattr(dist, "_path", base / f"{name}.dist-info"))
        for top in sorted(tops) + [info.name]:
            src = info if top == info.name else base / top
            if src.exists() and not (site / top).exists():
                (site / top).symlink_to(src)
    return site


def flake8_env(site: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    env["PYTHONPATH"] = str(site)
    return env


def flake8_cmd(files: Sequence[str], jobs: int) -> list[str]:
    """Run it with the sandbox as PYTHONPATH and a CWD outside the repository (``-m`` puts
    the CWD on sys.path, and the repository's ``tflint.egg-info`` would register the plugin)."""
    return [sys.executable, "-S", "-m", "flake8", "--isolated", f"-j{jobs}", "--exit-zero",
            *(os.path.abspath(f) for f in files)]


def bare_parse_cmd(list_file: Path, jobs: int) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--bare-parse", str(list_file), "--jobs", str(jobs)]


def _parse_one(path: str) -> int:
    import libcst

    from tflint.engine import decode

    with open(path, "rb") as f:
        libcst.parse_module(decode(f.read()))
    return 1


def bare_parse(list_file: Path, jobs: int) -> int:
    """Worker side of the bare-parse measurement: parse every listed file in ``jobs``
    processes, chunked as ``tflint check`` chunks its work."""
    files = list_file.read_text().splitlines()
    if jobs <= 1:
        return sum(_parse_one(f) for f in files)
    from concurrent.futures import ProcessPoolExecutor

    chunksize = max(1, min(16, len(files) // (jobs * 4)))
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return sum(pool.map(_parse_one, files, chunksize=chunksize))


def pick_500_line_file(files: Sequence[str]) -> tuple[str, int]:
    """A parsed corpus file as close to 500 lines as there is (ties: first by path)."""
    best: tuple[int, str, int] | None = None
    for f in sorted(files):
        with open(f, "rb") as fh:
            n = fh.read().count(b"\n")
        key = (abs(n - 500), f, n)
        if best is None or key < best:
            best = key
    assert best is not None
    return best[1], best[2]


def package_copy(tmp: Path, compiled: bool) -> Path:
    """tflint and its rules laid out as an installed package in a temporary folder
    (``rules/`` becomes ``tflint/rules/``), byte-compiled or not."""
    import compileall
    import shutil

    root = tmp / ("compiled" if compiled else "source")
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(REPO / "tflint", root / "tflint", ignore=ignore)
    shutil.copytree(REPO / "rules", root / "tflint" / "rules", ignore=ignore)
    if compiled:
        compileall.compile_dir(str(root), quiet=1)
    return root


def cold_run(one_file: str, tmp: Path, compiled: bool, cache: Path | None = None,
             fresh: bool = False) -> float:
    """Best of 5 fresh ``tflint check`` runs on one file, from a copy of the package
    (``-m`` puts the working directory, the copy, first on ``sys.path``). With a project
    index cache: warm (filled by a first run that is not counted) or, with ``fresh``,
    emptied before every run."""
    root = tmp / ("compiled" if compiled else "source")
    if not root.exists():
        root = package_copy(tmp, compiled)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the source copy stays uncompiled
    if cache is None:
        return _timed(tflint_cmd([one_file], 1), 5, env=env, cwd=root)
    if fresh:
        return _timed(tflint_cmd([one_file], 1, cache), 5, env=env, cwd=root, fresh=cache)
    # an edited file on a warm cache (what an editor or pre-commit sees): each run checks
    # a copy of the file beside it with a different last line, so the file's findings
    # are never in the cache while the rest of the project's index is
    edited = Path(one_file).resolve().with_name("_tflint_bench_edited.py")
    text = Path(one_file).read_text(encoding="utf-8")
    best = float("inf")
    try:
        edited.write_text(text, encoding="utf-8")
        _timed(tflint_cmd([str(edited)], 1, cache), 1, env=env, cwd=root, fresh=cache)  # fills the cache
        for i in range(5):
            edited.write_text(f"{text}\n# edit {i}\n", encoding="utf-8")
            best = min(best, _timed(tflint_cmd([str(edited)], 1, cache), 1, env=env, cwd=root))
    finally:
        edited.unlink(missing_ok=True)
    return best


def count_lines(files: Sequence[str]) -> int:
    total = 0
    for f in files:
        with open(f, "rb") as fh:
            total += fh.read().count(b"\n")
    return total


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", nargs="?", type=Path, default=None,
                    help="corpus folder (default: $TFLINT_CORPUS or .corpus-cache)")
    ap.add_argument("--repeat", type=int, default=1, help="best of N for the corpus-wide runs")
    ap.add_argument("--jobs", type=int, default=2, help="processes for tflint, flake8 and the bare parse")
    ap.add_argument("--projects", action="store_true",
                    help="lint a temporary copy of the corpus in which every top-level folder is a "
                         "project of its own (a pyproject.toml is added where it has no marker), so the "
                         "project index covers each package as in a user's checkout")
    ap.add_argument("--bare-parse", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.bare_parse:
        bare_parse(args.bare_parse, args.jobs)
        return 0

    root = args.corpus or default_corpus()
    if (root / "src").is_dir():
        root = root / "src"
    if not root.is_dir():
        sys.exit(f"no corpus at {root}: run `pytest -m corpus` (fetches it into .corpus-cache) or "
                 "`bash ../shared/corpus/fetch_corpus.sh .corpus-cache --no-tensorflow`")
    if args.projects:
        with tempfile.TemporaryDirectory() as copy:
            return run(projects_copy(root, Path(copy)), args)
    return run(root, args)


def projects_copy(root: Path, dest: Path) -> Path:
    """A copy of the corpus where each top-level folder is its own project. The corpus
    usually sits in a hidden folder of a checkout (``.corpus-cache``), whose project walk
    skips hidden folders: its files then have no importers and the project-wide analysis
    has nothing to do, which a user's checkout does not get."""
    import shutil

    from tflint.semantic.project import ROOT_MARKERS

    out = dest / "corpus"
    shutil.copytree(root, out, symlinks=True)
    for d in out.iterdir():
        if d.is_dir() and not any((d / m).exists() for m in ROOT_MARKERS):
            (d / "pyproject.toml").write_text('[project]\nname = "bench"\n', encoding="utf-8")
    return out


def run(root: Path, args: argparse.Namespace) -> int:
    jobs, repeat = args.jobs, max(1, args.repeat)

    files = corpus_files(root)
    parsed = parsed_files(files)
    one_file, one_lines = pick_500_line_file(parsed)
    print(f"machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, libcst {importlib.metadata.version('libcst')}, "
          f"flake8 {importlib.metadata.version('flake8')}, load average {os.getloadavg()[0]:.2f}")
    print(f"corpus: {root} — {len(files)} files, {count_lines(files):,} lines; "
          f"{len(parsed)} files ({count_lines(parsed):,} lines) pass tflint's pre-filter and are parsed")
    print(f"jobs: {jobs}, best of {repeat}")
    print()

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        site = flake8_sandbox(tmp)
        env = flake8_env(site)
        version = subprocess.run([sys.executable, "-S", "-m", "flake8", "--version"], env=env,
                                 capture_output=True, text=True, cwd=tmp)
        plugins = version.stdout.split(")")[0] + ")" if version.returncode == 0 else version.stderr
        if "tflint" in plugins or version.returncode != 0:
            sys.exit(f"flake8 sandbox is not isolated: {plugins}")
        list_file = tmp / "parsed.txt"
        list_file.write_text("\n".join(parsed) + "\n")

        # with a project index cache, every corpus-wide run starts from an empty one (a
        # first run), and the whole corpus is then run again on the cache it left
        cache = tmp / "tflint-cache" if has_cache() else None
        t_tflint = _timed(tflint_cmd(files, jobs, cache), repeat, fresh=cache)
        c_tflint = CPU[0]
        print(f"tflint check -j{jobs}, all {len(files)} files        {t_tflint:8.2f} s   cpu {c_tflint:7.1f} s"
              + ("   (empty project cache)" if cache is not None else ""))
        t_warm = None
        if cache is not None:
            t_warm = _timed(tflint_cmd(files, jobs, cache), repeat)
            c_warm = CPU[0]
            print(f"  the same again, on the cache it left    {t_warm:8.2f} s   cpu {c_warm:7.1f} s")
        t_flake8 = _timed(flake8_cmd(files, jobs), repeat, env=env, ok=(0,), cwd=tmp)
        c_flake8 = CPU[0]
        print(f"flake8 -j{jobs}, same files, default checks     {t_flake8:8.2f} s   cpu {c_flake8:7.1f} s   "
              f"(flake8 {plugins})")
        t_tflint_parsed = _timed(tflint_cmd(parsed, jobs, cache), repeat, fresh=cache)
        c_tflint_parsed = CPU[0]
        print(f"tflint check -j{jobs}, the {len(parsed)} parsed files    {t_tflint_parsed:8.2f} s   "
              f"cpu {c_tflint_parsed:7.1f} s")
        t_bare = _timed(bare_parse_cmd(list_file, jobs), repeat, ok=(0,))
        c_bare = CPU[0]
        print(f"bare libcst.parse_module, same files, {jobs} procs {t_bare:8.2f} s   cpu {c_bare:7.1f} s")

        cold = cold_run(one_file, tmp, compiled=True, cache=cache)
        cold_source = cold_run(one_file, tmp, compiled=False, cache=cache)
        cold_empty = cold_run(one_file, tmp, compiled=True, cache=cache, fresh=True) if cache is not None else None
    python_start = _timed([sys.executable, "-c", "pass"], 5, ok=(0,))
    libcst_import = _timed([sys.executable, "-c", "import libcst"], 5, ok=(0,))
    print(f"cold tflint check, {one_lines}-line file, best of 5 {cold:8.3f} s   "
          f"({os.path.relpath(one_file, root)})")
    if cache is not None:
        print("  (a copy of that file edited before each run, on the project cache a first run filled)")
    print(f"  the same without any bytecode cache      {cold_source:8.3f} s")
    if cold_empty is not None:
        print(f"  the same with an empty project cache     {cold_empty:8.3f} s   (indexes the project first)")
    print(f"  for scale, best of 5: `python -c pass` {python_start:.3f} s, "
          f"`python -c 'import libcst'` {libcst_import:.3f} s")
    print()
    r1 = t_tflint / t_flake8
    r2 = t_tflint_parsed / t_bare
    print(f"tflint / flake8                     {r1:6.2f}   (goal <= 0.5)   cpu {c_tflint / c_flake8:5.2f}")
    print(f"tflint on parsed files / bare parse {r2:6.2f}   (goal <= 1.5)   cpu {c_tflint_parsed / c_bare:5.2f}")
    print(f"cold one-file run                   {cold:6.3f} s (goal <= 0.3 s)")
    if t_warm is not None:
        print(f"warm re-run / first run, corpus     {t_warm / t_tflint:6.2f}          cpu {c_warm / c_tflint:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
