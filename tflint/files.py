"""Which files a ``tflint check`` run reads, and reading them.

Rules (flake8's and ruff's, so that users and pre-commit get what they expect):

* folders are walked recursively; only ``*.py``, ``*.pyi`` and ``*.ipynb`` files in them
  are linted, in sorted order so that every run (serial or parallel) reports in the
  same order;
* a file named on the command line is linted whatever its name (pre-commit passes
  extension-less scripts with a Python shebang), unless ``--force-exclude`` applies the
  exclude patterns to it as well;
* exclude patterns (flake8 semantics, ``fnmatch``) match a file or folder by its base
  name or by its absolute path; ``exclude`` replaces :data:`DEFAULT_EXCLUDE`,
  ``extend-exclude`` adds to it;
* in a git repository, files and folders that git ignores (``.gitignore`` files from
  the repository root down, ``.git/info/exclude``) are skipped in folder walks, as ruff
  does, unless ``--no-respect-gitignore``; with ``--force-exclude`` they are skipped
  when named too. Matching is ``pathspec``'s implementation of git's rules;
* symlinked folders are not followed while walking (so a symlink loop cannot hang the
  run); a symlinked file is read like any file;
* a path that does not exist is a usage error, a file that exists but cannot be read
  (permissions, a symlink loop, a dangling link) is a read error: both are reported on
  stderr as ``path: error: ...`` and the run goes on with the other files.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from tflint.config import DEFAULT_EXCLUDE, Settings

PY_SUFFIXES = (".py", ".pyi", ".ipynb")


@dataclass
class Discovery:
    """The files to lint, in order, and the problems met while finding them."""

    files: list[str] = field(default_factory=list)
    #: (path, message) for paths that do not exist: usage errors
    missing: list[tuple[str, str]] = field(default_factory=list)
    #: (path, message) for paths that exist but cannot be used
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    #: files named on the command line (as displayed), not found by a walk
    explicit: set[str] = field(default_factory=set)


def exclude_patterns(settings: Settings) -> list[str]:
    base = list(settings.exclude) if settings.exclude else list(DEFAULT_EXCLUDE)
    return base + list(settings.extend_exclude)


def matches(path: str, patterns: Sequence[str]) -> bool:
    """flake8's ``matches_filename``: the base name or the absolute path matches."""
    if not patterns:
        return False
    base = os.path.basename(path)
    if base not in (".", "..") and any(fnmatch.fnmatch(base, p) for p in patterns):
        return True
    absolute = os.path.abspath(path)
    return any(fnmatch.fnmatch(absolute, p) for p in patterns)


def _force_excluded(path: str, patterns: Sequence[str], cwd: str) -> bool:
    """With ``--force-exclude`` an explicit path is skipped when it, or a folder above
    it, matches. Folders above the CWD are not looked at: a project checked out under
    ``~/build/`` must not exclude itself."""
    absolute = os.path.abspath(path)
    current = absolute
    while True:
        if matches(current, patterns):
            return True
        parent = os.path.dirname(current)
        if parent == current or current == cwd:
            return False
        if not (parent + os.sep).startswith(cwd.rstrip(os.sep) + os.sep) and parent != cwd:
            return False
        current = parent


def _display(path: str) -> str:
    """The path as the user will see it: as given, normalized (``./a.py`` -> ``a.py``)."""
    return os.path.normpath(path)


def discover(paths: Iterable[str], settings: Settings, cwd: str | None = None,
             respect_gitignore: bool = True) -> Discovery:
    """Expand command-line paths into the list of files to lint."""
    cwd = os.path.abspath(cwd or os.getcwd())
    patterns = exclude_patterns(settings)
    ignored = GitIgnore() if respect_gitignore else None
    out = Discovery()
    seen: set[str] = set()

    def add(path: str) -> None:
        key = os.path.abspath(path)
        if key not in seen:
            seen.add(key)
            out.files.append(_display(path))

    for given in paths:
        if settings.force_exclude and _force_excluded(given, patterns, cwd):
            continue
        if settings.force_exclude and ignored is not None and ignored.ignored(given):
            continue
        if os.path.isdir(given):
            walk_ignored = ignored
            if ignored is not None and ignored.ignored(given, is_dir=True):
                # a folder named on the command line is checked even if git ignores it
                # (as ruff does): only the .gitignore files inside it apply there
                walk_ignored = GitIgnore(floor=given)
            _walk(given, patterns, add, out, walk_ignored)
        elif os.path.exists(given):
            add(given)
            out.explicit.add(_display(given))
        elif os.path.lexists(given):
            # a symlink whose target is missing or loops: it exists, but cannot be read
            out.unreadable.append((_display(given), _link_problem(given)))
        else:
            out.missing.append((_display(given), "no such file or directory"))
    return out


def _link_problem(path: str) -> str:
    try:
        os.stat(path)
    except OSError as e:
        return f"cannot read file: {e.strerror or e}"
    return "cannot read file"  # pragma: no cover - raced with a fix of the link


def _walk(root: str, patterns: Sequence[str], add, out: Discovery, ignored: "GitIgnore | None") -> None:
    """Walk one folder, pruning excluded and git-ignored folders; symlinked folders are
    not followed."""

    def onerror(e: OSError) -> None:
        where = getattr(e, "filename", None) or root
        out.unreadable.append((_display(where), f"cannot read folder: {e.strerror or e}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=False):
        dirnames[:] = sorted(
            d for d in dirnames
            if not matches(os.path.join(dirpath, d), patterns)
            and not (ignored is not None and ignored.ignored(os.path.join(dirpath, d), is_dir=True, walked=True))
        )
        for name in sorted(filenames):
            if not name.endswith(PY_SUFFIXES):
                continue
            path = os.path.join(dirpath, name)
            if matches(path, patterns):
                continue
            if ignored is not None and ignored.ignored(path, is_dir=False, walked=True):
                continue
            if os.path.islink(path) and not os.path.exists(path):
                out.unreadable.append((_display(path), _link_problem(path)))
                continue
            add(path)


class NotRegularFile(OSError):
    """A FIFO, socket or device: reading it could block forever or never end."""


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a folder"))


def read_regular_file(path: str, limit: int | None = None) -> bytes:
    """The bytes of a regular file, at most ``limit + 1`` of them (enough for the engine
    to see the file is over the limit without reading a huge file whole). Anything
    else is refused before a byte is read: the file is opened non-blocking (opening a
    FIFO with no writer would wait forever) and checked with ``fstat`` on the open
    descriptor, so a file swapped for a FIFO after the walk is refused too. Raises
    OSError (:class:`NotRegularFile` for a FIFO, socket or device)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
            raise NotRegularFile(errno.EINVAL, f"skipped: {kind}, not a regular file")
        want = st.st_size + 1 if limit is None else min(st.st_size, limit) + 1
        chunks: list[bytes] = []
        got = 0
        while limit is None or got <= limit:
            chunk = os.read(fd, max(want - got, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        data = b"".join(chunks)
        return data if limit is None else data[:limit + 1]
    finally:
        os.close(fd)


def read_source(path: str) -> bytes:
    """The file's bytes, undecoded: the engine honours a BOM and a PEP 263 cookie.
    Raises OSError (the caller reports it as a read error)."""
    return read_regular_file(path)


def per_file_ignored_codes(path: str, per_file_ignores: dict[str, list[str]]) -> list[str]:
    """The codes that ``per-file-ignores`` turns off for ``path`` (flake8 matching)."""
    codes: list[str] = []
    for pattern, pattern_codes in per_file_ignores.items():
        if matches(path, [pattern]):
            codes.extend(pattern_codes)
    return codes


def write_atomic(path: str, data: bytes) -> None:
    """Replace the file's contents with ``data`` all at once: write a temporary file in
    the same folder, flush it to disk, give it the file's mode, then ``os.replace`` it
    over the file (atomic on POSIX and Windows). A failure at any point leaves the
    original untouched and removes the temporary file. A symlink is followed: its
    target is replaced, the link stays a link."""
    import tempfile

    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    mode = os.stat(target).st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(target) + ".", suffix=".tflint-tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class GitIgnore:
    """What git ignores, from the ``.gitignore`` files of the repository a path is in
    (root first, deeper files override) and ``.git/info/exclude``. Outside a git
    repository nothing is ignored. Each folder's file is read once."""

    def __init__(self, floor: str | None = None) -> None:
        self._specs: dict[str, object | None] = {}
        self._roots: dict[str, str | None] = {}
        #: ignore files above this folder are not read (a walk of an ignored folder)
        self._floor = os.path.abspath(floor) if floor is not None else None

    def _root(self, folder: str) -> str | None:
        chain = []
        d = folder
        while d not in self._roots:
            chain.append(d)
            if os.path.exists(os.path.join(d, ".git")):
                self._roots[d] = d
                break
            parent = os.path.dirname(d)
            if parent == d:
                self._roots[d] = None
                break
            d = parent
        root = self._roots[d]
        for c in chain:
            self._roots[c] = root
        return root

    def _spec(self, folder: str, root: str) -> object | None:
        if folder not in self._specs:
            import pathspec

            lines: list[str] = []
            sources = [os.path.join(folder, ".gitignore")]
            if folder == root:
                sources.insert(0, os.path.join(root, ".git", "info", "exclude"))
            for src in sources:
                try:
                    with open(src, encoding="utf-8", errors="replace") as f:
                        lines.extend(f.read().splitlines())
                except OSError:
                    continue
            self._specs[folder] = pathspec.GitIgnoreSpec.from_lines(lines) if lines else None
        return self._specs[folder]

    def ignored(self, path: str, is_dir: bool | None = None, walked: bool = False) -> bool:
        """``walked``: the folders above were checked already (a walk prunes them)."""
        absolute = os.path.abspath(path)
        if is_dir is None:
            is_dir = os.path.isdir(absolute)
        root = self._root(os.path.dirname(absolute) if not is_dir else absolute)
        if root is None or absolute == root:
            return False
        rel_parts = os.path.relpath(absolute, root).split(os.sep)
        if rel_parts[0] == ".git":
            return True
        if self._floor is not None and absolute == self._floor:
            return False
        # a folder that is ignored hides everything in it (git cannot re-include there)
        for k in range(1, 1 if walked or self._floor else len(rel_parts)):
            if self._match(root, rel_parts[:k], True):
                return True
        return self._match(root, rel_parts, is_dir)

    def _match(self, root: str, parts: list[str], is_dir: bool) -> bool:
        verdict = False
        for depth in range(len(parts)):
            folder = os.path.join(root, *parts[:depth])
            if self._floor is not None and not (folder + os.sep).startswith(self._floor + os.sep):
                continue
            spec = self._spec(folder, root)
            if spec is None:
                continue
            rel = "/".join(parts[depth:]) + ("/" if is_dir else "")
            result = spec.check_file(rel)  # type: ignore[attr-defined]
            if result.include is not None:
                verdict = bool(result.include)
        return verdict
