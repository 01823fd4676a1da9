"""Lint the application-code corpus and score the findings against committed judgements.

The corpus (``benchmarks/app_corpus.toml``) pins public TensorFlow 2 application
repositories at one commit each. Library code hides false findings, because well-kept
libraries have few findings of either kind; training scripts and notebooks are where users
meet tflint, so precision is measured here.

The repositories are read from a local folder of bare git mirrors, one per repository,
named ``owner+name`` (either that folder is the git directory, or it holds one called
``repo``). Nothing is downloaded: a repository or commit that is missing is named, with
what to fetch, and the figures say they cover the rest.

Each pinned commit's ``*.py`` and ``*.ipynb`` files under the listed paths are extracted
into a git-ignored cache. Until tflint reads notebooks itself, each notebook's code cells
are written, in order and with IPython magics and ``!shell`` lines commented out, into a
``.ipynb.py`` file beside it (``--notebooks native`` hands the ``.ipynb`` files to tflint
instead). tflint of the current environment lints each repository as its own project.

Every default-on finding is matched to ``benchmarks/app_judgements.tsv`` by a key that does
not depend on line numbers (repository, path, rule, stripped source line, occurrence of that
line text in the file), so judgements survive edits elsewhere in the file and the switch
from converted notebooks to native ones.

Usage::

    python benchmarks/app_corpus.py --mirror DIR [--json] [--list unjudged|false|all]
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_LIST = HERE / "app_corpus.toml"
DEFAULT_JUDGEMENTS = HERE / "app_judgements.tsv"
DEFAULT_CACHE = ROOT / ".app-corpus-cache"
MIRROR_ENV = "TFLINT_APP_MIRROR"
STAMP = ".app-corpus-stamp"
ABSENT = ".app-corpus-absent"
VERDICTS = ("true", "false", "demo")
# Rules that report on the file rather than on code: counted apart from precision.
FILE_RULES = {"TFL001", "TFL002"}
JUDGEMENT_FIELDS = ("repo", "path", "rule", "occurrence", "line", "verdict", "reason")
CELL_MARK = re.compile(r"^# %% \[cell (\d+)\]$")
MAGIC = re.compile(r"^\s*(%|!|\?)|^\s*[\w.,\s\[\]]+=\s*[!%]|^\s*[\w.]+\?{1,2}\s*$")


@dataclass(frozen=True)
class Entry:
    """One pinned repository."""

    repo: str
    commit: str
    paths: tuple[str, ...]
    why: str
    exclude: tuple[str, ...] = ()

    @property
    def slug(self) -> str:
        return self.repo.replace("/", "+")


@dataclass
class Extracted:
    """What one repository gave: files to lint, or why it could not."""

    entry: Entry
    missing: str = ""
    py_files: list[Path] = field(default_factory=list)
    notebooks: list[Path] = field(default_factory=list)
    converted: list[Path] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    lines: int = 0


@dataclass(frozen=True)
class Finding:
    """One default-on finding, with its line-number-free key."""

    repo: str
    path: str
    rule: str
    occurrence: int
    line: str
    where: str
    message: str

    @property
    def key(self) -> tuple[str, str, str, int, str]:
        return (self.repo, self.path, self.rule, self.occurrence, self.line)


@dataclass(frozen=True)
class Judgement:
    repo: str
    path: str
    rule: str
    occurrence: int
    line: str
    verdict: str
    reason: str

    @property
    def key(self) -> tuple[str, str, str, int, str]:
        return (self.repo, self.path, self.rule, self.occurrence, self.line)


def load_entries(path: Path) -> list[Entry]:
    """Read the pinned list; a malformed entry stops the run with its index."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    entries = []
    for i, raw in enumerate(data.get("repo", [])):
        try:
            entry = Entry(raw["repo"], raw["commit"], tuple(raw["paths"]), raw.get("why", ""),
                          tuple(raw.get("exclude", ())))
        except (KeyError, TypeError) as exc:
            raise SystemExit(f"{path}: entry {i + 1} lacks {exc}") from None
        if not re.fullmatch(r"[0-9a-f]{40}", entry.commit):
            raise SystemExit(f"{path}: {entry.repo}: commit must be 40 hex digits")
        entries.append(entry)
    return entries


def git_dir(mirror: Path, entry: Entry) -> Path | None:
    """The git directory of ``entry`` in the mirror folder, if there is one: the entry
    itself or its ``repo`` (bare), or the ``.git`` of a clone with a work tree."""
    base = mirror / entry.slug
    for cand in (base / "repo", base, base / "repo" / ".git", base / ".git"):
        if (cand / "objects").is_dir() and (cand / "HEAD").exists():
            return cand
    return None


def git(gdir: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "--git-dir", str(gdir), *args], capture_output=True)


def wanted(name: str) -> bool:
    parts = name.split("/")
    return name.endswith((".py", ".ipynb")) and ".ipynb_checkpoints" not in parts


def declares_dependencies(rel: str) -> bool:
    """A file at the repository root (or in its docker/ folder) that tflint reads for the
    TensorFlow version the project pins (tflint.semantic.pins): a user's checkout has it."""
    from tflint.semantic.pins import DECLARATION_FILES

    return any(fnmatch.fnmatchcase(rel, pat) for pat in DECLARATION_FILES)


def extract(entry: Entry, mirror: Path, cache: Path, native: bool) -> Extracted:
    """Extract the pinned files of ``entry`` into ``cache/<owner+name>`` (reused when stamped)."""
    out = Extracted(entry)
    gdir = git_dir(mirror, entry)
    if gdir is None:
        out.missing = f"no mirror at {mirror / entry.slug} (fetch github:{entry.repo})"
        return out
    if git(gdir, "cat-file", "-e", f"{entry.commit}^{{commit}}").returncode != 0:
        head = git(gdir, "rev-parse", "HEAD").stdout.decode().strip()
        out.missing = (f"commit {entry.commit} not in the mirror (its HEAD is {head or '?'}); "
                       "fetch a newer snapshot or re-pin")
        return out
    dest = cache / entry.slug
    stamp = f"{entry.commit} {' '.join(entry.paths)} -{' -'.join(entry.exclude)} +declarations\n"
    if not (dest / STAMP).is_file() or (dest / STAMP).read_text() != stamp:
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        absent = write_blobs(gdir, entry, dest)
        if absent is None:
            out.missing = "git ls-tree failed on the pinned commit"
            return out
        (dest / ABSENT).write_text("".join(a + "\n" for a in absent), encoding="utf-8")
        # Project-root marker: tflint's project index must stop at the repository (a
        # repository's own setup.cfg or pyproject.toml, extracted above, already does)
        if not any((dest / m).is_file() for m in ("setup.cfg", "pyproject.toml", "setup.py")):
            (dest / "setup.cfg").write_text("# project root of an application-corpus repository\n")
        (dest / STAMP).write_text(stamp)
    absent_file = dest / ABSENT
    if absent_file.is_file():
        out.absent += absent_file.read_text(encoding="utf-8").splitlines()
    for path in sorted(dest.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(dest).as_posix()
        if rel.endswith(".ipynb.py"):
            continue
        if rel.endswith(".py"):
            out.py_files.append(path)
            out.lines += count_lines(path)
        elif rel.endswith(".ipynb"):
            out.notebooks.append(path)
            conv = path.with_name(path.name + ".py")
            problem = convert_notebook(path, conv)
            if problem:
                out.unreadable.append(f"{rel}: {problem}")
                continue
            out.lines += count_lines(conv)
            if native:
                # a user's checkout has no converted copy: left in the tree, it would be a
                # module of the project that imports the project's helpers
                conv.unlink()
            out.converted.append(path if native else conv)
    return out


def write_blobs(gdir: Path, entry: Entry, dest: Path) -> list[str] | None:
    """Write the wanted files of the pinned commit; return those whose blob is absent.

    Mirrors may list large files without holding their content, so files are read one
    blob at a time (``git archive`` would stop at the first absent blob)."""
    paths = [p for p in entry.paths if p != "."]
    proc = git(gdir, "ls-tree", "-r", "-z", "--full-tree", entry.commit, "--", *paths)
    if proc.returncode != 0:
        return None
    records = [(rec, False) for rec in proc.stdout.split(b"\0")]
    if paths:  # the dependency declarations at the root, outside the listed folders
        for where in ([], ["docker/"], ["requirements/"]):
            more = git(gdir, "ls-tree", "-z", "--full-tree", entry.commit, "--", *where)
            if more.returncode == 0:
                records += [(rec, True) for rec in more.stdout.split(b"\0")]
    items = []
    seen: set[str] = set()
    for rec, outside in records:
        if not rec:
            continue
        meta, _, name = rec.partition(b"\t")
        mode, kind, sha = meta.split()
        rel = name.decode("utf-8", errors="surrogateescape")
        if any(fnmatch.fnmatchcase(rel, pat) for pat in entry.exclude):
            continue
        if kind == b"blob" and mode != b"120000" and rel not in seen and \
                (declares_dependencies(rel) or not outside and wanted(rel)):
            seen.add(rel)
            items.append((sha.decode(), rel))
    batch = subprocess.run(["git", "--git-dir", str(gdir), "cat-file", "--batch"],
                           input="".join(sha + "\n" for sha, _ in items).encode(),
                           capture_output=True).stdout
    absent = []
    pos = 0
    for sha, rel in items:
        end = batch.index(b"\n", pos)
        header = batch[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[1] == b"missing":
            absent.append(rel)
            continue
        size = int(header[2])
        data = batch[pos:pos + size]
        pos += size + 1
        target = (dest / rel).resolve()
        if dest.resolve() not in target.parents:  # a path that would leave the cache
            absent.append(rel)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return absent


def count_lines(path: Path) -> int:
    with path.open("rb") as fh:
        return sum(1 for _ in fh)


def comment_magics(source: str) -> str:
    """IPython magics, ``!shell`` and ``obj?`` lines become comments; a cell magic, the cell.

    As IPython does, an indented first line dedents the cell, and a cell magic may follow
    comment lines. A magic continued with a trailing backslash is commented to its end.
    An indented magic (``if IN_COLAB:\n    !pip install x``) keeps ``pass`` so the block
    stays valid."""
    lines = source.splitlines()
    first = next((line for line in lines if line.strip()), "")
    indent = first[: len(first) - len(first.lstrip())]
    if indent:
        lines = [line[len(indent):] if line.startswith(indent) else line for line in lines]
    head = next((line for line in lines if line.strip() and not line.lstrip().startswith("#")),
                "")
    if head.startswith("%%"):
        return "\n".join("# " + line for line in lines)
    out, continued = [], False
    for line in lines:
        if continued or MAGIC.match(line):
            pad = line[: len(line) - len(line.lstrip())]
            out.append(f"{pad}pass  # {line.lstrip()}" if pad and not continued
                       else "# " + line)
            continued = line.rstrip().endswith("\\")
        else:
            out.append(line)
    return "\n".join(out)


def convert_notebook(src: Path, dst: Path) -> str:
    """Write the code cells of ``src`` to ``dst``; return why not, or ''."""
    import nbformat  # only the corpus tooling needs it

    if src.stat().st_size == 0:
        return "empty file (0 bytes) at the pinned commit"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # MissingIDFieldWarning and the like
            nb = nbformat.read(str(src), as_version=4)
    except Exception as exc:  # nbformat raises several unrelated types on bad input
        return f"not a readable notebook ({type(exc).__name__}: {str(exc)[:120]})"
    lang = (nb.metadata.get("kernelspec", {}) or {}).get("language") or \
        (nb.metadata.get("language_info", {}) or {}).get("name") or "python"
    if str(lang).lower() != "python":
        return f"kernel language {lang!r}, not Python"
    chunks = []
    for number, cell in enumerate(nb.cells, start=1):
        if cell.cell_type != "code":
            continue
        chunks.append(f"# %% [cell {number}]\n{comment_magics(cell.source)}\n")
    tmp = dst.with_name(dst.name + ".tmp")
    tmp.write_text("\n".join(chunks), encoding="utf-8")
    tmp.replace(dst)
    return ""


def run_tflint(files: list[Path], cwd: Path, extend: str = "") -> tuple[list[dict], str]:
    """Lint ``files`` as one project (default rules, plus the codes in ``extend``); return
    the JSON findings and any error text."""
    if not files:
        return [], ""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        # -P: the repository is the working directory, and its own top-level copy.py or
        # shutil.py must not shadow the standard library tflint imports
        cmd = [sys.executable, *(["-P"] if sys.version_info >= (3, 11) else []), "-m", "tflint", "check",
               "--output-format", "json",
               "--exit-zero", "--isolated", "--output-file", str(report),
               *(["--extend-select", extend] if extend else []),
               *[str(f.relative_to(cwd)) for f in files]]
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        if proc.returncode != 0 or not report.exists():
            return [], f"tflint exited {proc.returncode}: {proc.stderr.strip()[-2000:]}"
        return json.loads(report.read_text(encoding="utf-8") or "[]"), proc.stderr.strip()


def tflint_reads_notebooks() -> bool:
    """Whether the installed tflint lints ``.ipynb`` files: a probe notebook must give a finding."""
    import nbformat

    with tempfile.TemporaryDirectory() as tmp:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(
            "import tensorflow as tf\n@tf.function\ndef f(x):\n    print(x)\n    return x")]
        nbformat.write(nb, str(Path(tmp) / "probe.ipynb"))
        raw, _ = run_tflint([Path(tmp) / "probe.ipynb"], Path(tmp))
        return any(item.get("cell") is not None for item in raw)


def source_lines(path: Path, cache: dict[Path, list[str]]) -> list[str]:
    if path not in cache:
        cache[path] = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return cache[path]


def key_text(line: str) -> str:
    return line.strip().replace("\t", " ")


def notebook_cell_lines(path: Path) -> list[tuple[int, int, str]]:
    """(cell number, line in cell, text) for every code line of a notebook, in order."""
    import warnings

    import nbformat

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MissingIDFieldWarning and the like: only the lines matter
        nb = nbformat.read(str(path), as_version=4)
    rows = []
    for number, cell in enumerate(nb.cells, start=1):
        if cell.cell_type == "code":
            rows.extend((number, i, t) for i, t in enumerate(cell.source.splitlines(), 1))
    return rows


def distinct_keys(findings: list[Finding]) -> list[Finding]:
    """Give each of several findings of one rule on one line (two arguments of one call)
    a key of its own, so each is judged: the second and later (in output order) carry the
    first backquoted name of their message after the line text (``... # `alpha```). The
    first keeps the plain key that judgements written before this rule use."""
    out: list[Finding] = []
    seen: set[tuple] = set()
    for f in findings:
        if f.key in seen:
            m = re.search(r"`([^`]+)`", f.message)
            f = replace(f, line=f"{f.line}  # {m.group(0) if m else f.where}")
        seen.add(f.key)
        out.append(f)
    return out


def to_finding(raw: dict, ex: Extracted, dest: Path,
               cache: dict[Path, list[str]]) -> Finding:
    """Map one JSON finding to its key; notebook paths are reported as the ``.ipynb``."""
    fpath = Path(raw["filename"])
    if not fpath.is_absolute():
        fpath = dest / fpath
    rel = fpath.resolve().relative_to(dest.resolve()).as_posix()
    row = int(raw["location"]["row"])
    loc = raw.get("location", {})
    cell = raw.get("cell", loc.get("cell"))
    if rel.endswith(".ipynb"):  # native notebook findings: line within a cell
        rows = notebook_cell_lines(fpath)
        texts = [key_text(t) for _, _, t in rows]
        idx = next((i for i, (c, ln, _) in enumerate(rows) if c == cell and ln == row), None)
        text = texts[idx] if idx is not None else ""
        where = f"{rel}:cell {cell}:{row}" if cell is not None else f"{rel}:{row}"  # the notebook as a whole
        occ = texts[:idx].count(text) if idx is not None else 0
        return Finding(ex.entry.repo, rel, raw["code"], occ, text, where, raw["message"])
    lines = source_lines(fpath, cache)
    text = key_text(lines[row - 1]) if 0 < row <= len(lines) else ""
    where = f"{rel}:{row}"
    if rel.endswith(".ipynb.py"):
        cellno, start = 0, 0
        for i in range(row - 1, -1, -1):
            m = CELL_MARK.match(lines[i])
            if m:
                cellno, start = int(m.group(1)), i + 1
                break
        rel = rel[: -len(".py")]
        where = f"{rel}:cell {cellno}:{row - start}"
        # Occurrence among code lines only, as a native reader would count it.
        before = [key_text(t) for t in lines[: row - 1] if not CELL_MARK.match(t)]
    else:
        before = [key_text(t) for t in lines[: row - 1]]
    return Finding(ex.entry.repo, rel, raw["code"], before.count(text), text, where,
                   raw["message"])


def load_judgements(path: Path) -> dict[tuple, Judgement]:
    """Read the judgements; a bad row is reported and skipped, never silently dropped."""
    out: dict[tuple, Judgement] = {}
    if not path.exists():
        return out
    text = path.read_text(encoding="utf-8").splitlines()
    if not text or tuple(text[0].split("\t")) != JUDGEMENT_FIELDS:
        raise SystemExit(f"{path}: the first line must be the header "
                         f"{chr(9).join(JUDGEMENT_FIELDS)!r}")
    for n, raw in enumerate(text[1:], start=2):
        if not raw.strip():
            continue
        cells = raw.split("\t")
        try:
            if len(cells) != len(JUDGEMENT_FIELDS):
                raise ValueError(f"{len(cells)} tab-separated fields, not 7")
            repo, rel, rule, occ, line, verdict, reason = cells
            j = Judgement(repo, rel, rule, int(occ), line, verdict, reason)
        except ValueError as exc:
            print(f"{path}:{n}: bad row ({exc}); skipped", file=sys.stderr)
            continue
        if j.verdict not in VERDICTS:
            print(f"{path}:{n}: verdict {j.verdict!r} is not one of {VERDICTS}; skipped",
                  file=sys.stderr)
            continue
        if j.key in out:
            print(f"{path}:{n}: duplicate key; the later row wins", file=sys.stderr)
        out[j.key] = j
    return out


@dataclass
class RuleScore:
    findings: int = 0
    true: int = 0
    false: int = 0
    demo: int = 0
    unjudged: int = 0

    @property
    def precision(self) -> float | None:
        judged = self.true + self.demo + self.false
        return (self.true + self.demo) / judged if judged else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, default=os.environ.get(MIRROR_ENV),
                    help=f"folder of bare git mirrors named owner+name (or ${MIRROR_ENV})")
    ap.add_argument("--list-file", type=Path, default=DEFAULT_LIST)
    ap.add_argument("--judgements", type=Path, action="append",
                    help=f"judgement file (repeat to read several; default {DEFAULT_JUDGEMENTS.name})")
    ap.add_argument("--extend-select", default="", metavar="CODES",
                    help="also run these off-by-default rules (comma-separated, as tflint's "
                         "--extend-select); their judgements count only when they run")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--notebooks", choices=("convert", "native"), default="convert",
                    help="lint notebooks as converted .ipynb.py files, or hand tflint the "
                         ".ipynb files (once it reads them)")
    ap.add_argument("--only", action="append", default=[], help="owner/name to run (repeat)")
    ap.add_argument("--json", action="store_true", help="print a JSON summary only")
    ap.add_argument("--list", choices=("unjudged", "false", "all"),
                    help="also list findings of that kind with their location")
    ap.add_argument("--template", action="store_true",
                    help="print judgement rows (verdict left empty) for unjudged findings")
    ap.add_argument("--allow-missing", action="store_true",
                    help="exit 0 even when repositories are missing from the mirror")
    args = ap.parse_args(argv)
    if args.mirror is None:
        ap.error(f"give --mirror DIR or set {MIRROR_ENV}")

    entries = load_entries(args.list_file)
    if args.only:
        entries = [e for e in entries if e.repo in args.only]
    judgements: dict[tuple, Judgement] = {}
    for path in args.judgements or [DEFAULT_JUDGEMENTS]:
        judgements.update(load_judgements(path))
    from tflint.registry import default_off_codes
    extended = {c.strip() for c in args.extend_select.split(",") if c.strip()}
    not_run = set(default_off_codes()) - extended
    args.cache.mkdir(parents=True, exist_ok=True)
    if args.notebooks == "native" and not tflint_reads_notebooks():
        print("this tflint does not lint .ipynb files (a probe notebook gave no finding); "
              "use --notebooks convert", file=sys.stderr)
        return 2

    started = time.perf_counter()
    lint_seconds = 0.0
    extracted: list[Extracted] = []
    findings: list[Finding] = []
    file_findings: list[Finding] = []
    errors: list[str] = []
    line_cache: dict[Path, list[str]] = {}
    for entry in entries:
        ex = extract(entry, args.mirror, args.cache, args.notebooks == "native")
        extracted.append(ex)
        if ex.missing:
            continue
        dest = args.cache / entry.slug
        t0 = time.perf_counter()
        raw, err = run_tflint(ex.py_files + ex.converted, dest, args.extend_select)
        lint_seconds += time.perf_counter() - t0
        if err and not raw and "exited" in err:
            errors.append(f"{entry.repo}: {err}")
            continue
        for item in raw:
            f = to_finding(item, ex, dest, line_cache)
            (file_findings if f.rule in FILE_RULES else findings).append(f)

    findings = distinct_keys(findings)
    scores: dict[str, RuleScore] = defaultdict(RuleScore)
    seen_keys = set()
    for f in findings:
        s = scores[f.rule]
        s.findings += 1
        seen_keys.add(f.key)
        j = judgements.get(f.key)
        if j is None:
            s.unjudged += 1
        else:
            setattr(s, j.verdict, getattr(s, j.verdict) + 1)
    total = RuleScore()
    for s in scores.values():
        for name in ("findings", "true", "false", "demo", "unjudged"):
            setattr(total, name, getattr(total, name) + getattr(s, name))
    present = [e for e in extracted if not e.missing]
    stale = [j for k, j in judgements.items() if k not in seen_keys and j.rule not in not_run
             and any(j.repo == e.entry.repo for e in present)]
    missing = [e for e in extracted if e.missing]
    summary = {
        "repositories": len(present),
        "repositories_missing": {e.entry.repo: e.missing for e in missing},
        "python_files": sum(len(e.py_files) for e in present),
        "notebooks": sum(len(e.notebooks) for e in present),
        "notebooks_unreadable": [f"{e.entry.repo}/{u}" for e in present for u in e.unreadable],
        "files_absent_from_mirror": [f"{e.entry.repo}/{a}" for e in present for a in e.absent],
        "lines": sum(e.lines for e in present),
        "notebook_mode": args.notebooks,
        "lint_seconds": round(lint_seconds, 2),
        "total_seconds": round(time.perf_counter() - started, 2),
        "rules": {r: {**asdict(s), "precision": s.precision} for r, s in sorted(scores.items())},
        "overall": {**asdict(total), "precision": total.precision},
        "file_findings": dict(Counter(f.rule for f in file_findings)),
        "stale_judgements": len(stale),
        "tflint_errors": errors,
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_report(summary, findings, file_findings, judgements, stale, args.list)
    if args.template:
        done = set()
        for f in findings:
            if f.key not in judgements and f.key not in done:
                done.add(f.key)
                print("\t".join([f.repo, f.path, f.rule, str(f.occurrence), f.line, "", ""]))
    if missing:
        print(f"\n{len(missing)} of {len(extracted)} repositories are missing from "
              f"{args.mirror}; the figures cover the rest:", file=sys.stderr)
        for e in missing:
            print(f"  {e.entry.repo}: {e.missing}", file=sys.stderr)
        if not args.allow_missing:
            return 1
    return 2 if errors else 0


def print_report(summary: dict, findings: list[Finding], file_findings: list[Finding],
                 judgements: dict, stale: list[Judgement], listing: str | None) -> None:
    s = summary
    print(f"repositories {s['repositories']}  python files {s['python_files']}  "
          f"notebooks {s['notebooks']} ({len(s['notebooks_unreadable'])} not readable)  "
          f"files held only as large-file pointers {len(s['files_absent_from_mirror'])}  "
          f"lines {s['lines']}  lint {s['lint_seconds']} s  total {s['total_seconds']} s")
    print(f"\n{'rule':8} {'findings':>8} {'true':>5} {'demo':>5} {'false':>5} "
          f"{'unjudged':>8} {'precision':>9}")
    for rule, r in list(s["rules"].items()) + [("all", s["overall"])]:
        p = "-" if r["precision"] is None else f"{r['precision']:.3f}"
        print(f"{rule:8} {r['findings']:8} {r['true']:5} {r['demo']:5} {r['false']:5} "
              f"{r['unjudged']:8} {p:>9}")
    if file_findings:
        print("\nfiles tflint could not check: " + ", ".join(
            f"{k} {v}" for k, v in sorted(s["file_findings"].items())))
        for f in file_findings:
            print(f"  {f.repo}/{f.where}: {f.rule} {f.message[:100]}")
    for u in s["notebooks_unreadable"]:
        print(f"  notebook not linted: {u}")
    for a in s["files_absent_from_mirror"]:
        print(f"  not linted, content absent from the mirror (a large file): {a}")
    for e in s["tflint_errors"]:
        print(f"  tflint failed: {e}")
    if stale:
        by = {v: sum(j.verdict == v for j in stale) for v in ("true", "demo", "false")}
        print(f"\n{len(stale)} judgements match no finding now (fixed, or the line changed): "
              + ", ".join(f"{n} {v}" for v, n in by.items() if n))
        for j in stale:
            if j.verdict != "false":  # a finding judged right that is gone: lost, or moved
                print(f"  no longer found [{j.verdict}]: {j.repo}/{j.path}: {j.rule} {j.line[:80]}")
    if listing:
        print()
        for f in findings:
            j = judgements.get(f.key)
            verdict = j.verdict if j else "unjudged"
            if listing == "all" or verdict == listing:
                print(f"{f.repo}/{f.where}: {f.rule} [{verdict}] {f.line[:90]}")


if __name__ == "__main__":
    sys.exit(main())
