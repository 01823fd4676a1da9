"""The on-disk cache of the project index, in ``.tflint_cache/`` under the project root.

Two kinds of entries, both for one tflint version:

* ``files-<version>.json``: per file (relative path), its size, mtime and content hash,
  with the imports and the TensorFlow mention found by a text scan, so that an unchanged
  tree is known without reading it;
* ``summaries/<hash>.json``: the :mod:`ast` summary of a file's content, keyed by the
  content hash alone (a file moved or restored is not summarized again), read one at a
  time, only for the modules a question reaches;
* ``results/<key>.json``: the findings of one file, keyed by its content hash, its
  path, the settings the engine reads, tflint's own code and the content of the whole
  project (a finding may come from another module), so that a re-run on an unchanged
  tree parses nothing.

A cache is an optimization only: an entry that cannot be read or does not decode is
rebuilt, a folder that cannot be written is skipped, never an error. As in ruff, the
folder holds a ``.gitignore`` of ``*`` so it never shows up in ``git status``.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from typing import Any

from tflint import __version__

CACHE_DIR_NAME = ".tflint_cache"
#: the layout of the entries; a change starts a new set of files beside the old ones
FORMAT = 29
_GITIGNORE = "# Automatically created by tflint.\n*\n"
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by tflint.\n"


class IndexCache:
    """The cache of one project root (see the module docstring)."""

    def __init__(self, folder: str, root: str) -> None:
        self.folder = folder
        self.root = root
        tag = hashlib.sha1(root.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        self.files_path = os.path.join(folder, f"files-{__version__}-{FORMAT}-{tag}.json")
        self.summary_dir = os.path.join(folder, f"summaries-{__version__}-{FORMAT}")
        self.results_dir = os.path.join(folder, f"results-{__version__}-{FORMAT}")
        self._files: dict[str, list] | None = None
        self._new: dict[str, list] = {}
        self.writable = True
        self._prepared = False

    @staticmethod
    def open(root: str, cache_dir: str | None = None) -> "IndexCache":
        folder = cache_dir if cache_dir else os.path.join(root, CACHE_DIR_NAME)
        if not os.path.isabs(folder):
            folder = os.path.join(root, folder)
        return IndexCache(folder, root)

    # -- file entries

    def _load(self) -> dict[str, list]:
        if self._files is None:
            self._files = _read_json(self.files_path)
        return self._files

    def lookup(self, rel: str, st: os.stat_result) -> dict[str, Any] | None:
        """The entry of an unchanged file (same size and mtime), else None."""
        got = self._new.get(rel) or self._load().get(rel)
        if isinstance(got, list) and len(got) == 3 and got[0] == st.st_mtime_ns and got[1] == st.st_size and \
                isinstance(got[2], dict) and isinstance(got[2].get("hash"), str) and \
                isinstance(got[2].get("imports"), list) and "tf" in got[2]:
            return got[2]
        return None

    def store(self, rel: str, st: os.stat_result, entry: dict[str, Any]) -> None:
        self._new[rel] = [st.st_mtime_ns, st.st_size, entry]

    # -- summaries

    def _summary_path(self, digest: str) -> str:
        return os.path.join(self.summary_dir, digest[:2], digest + ".json")

    def summary(self, digest: str) -> dict | None:
        got = _read_json(self._summary_path(digest))
        return got or None

    def store_summary(self, digest: str, summary: dict) -> None:
        if self.writable:
            path = self._summary_path(digest)
            self.writable = self._prepare() and _write_json(path, summary)

    # -- findings

    def _results_path(self, key: str) -> str:
        return os.path.join(self.results_dir, key[:2], key + ".json")

    def results(self, key: str) -> list[dict] | None:
        got = _read_json(self._results_path(key))
        items = got.get("diagnostics")
        return items if isinstance(items, list) else None

    def store_results(self, key: str, diagnostics: list[dict]) -> None:
        if self.writable:
            self.writable = self._prepare() and _write_json(self._results_path(key), {"diagnostics": diagnostics})

    # -- writing

    def _prepare(self) -> bool:
        """Create the folder with its .gitignore and CACHEDIR.TAG; False when it cannot be."""
        if self._prepared:
            return True
        try:
            if not os.path.isdir(self.folder):
                os.makedirs(self.folder, exist_ok=True)
            for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _TAG)):
                p = os.path.join(self.folder, name)
                if not os.path.exists(p):
                    with open(p, "w", encoding="utf-8") as f:
                        f.write(text)
            self._prepared = True
            return True
        except OSError:
            return False

    def save(self) -> None:
        """Merge the new file entries into what is on disk now (other processes may have
        written meanwhile) and replace the file atomically. Failures are ignored."""
        if not self._new or not self.writable:
            return
        if not self._prepare():
            self.writable = False
            return
        current = _read_json(self.files_path)
        current.update(self._new)
        if _write_json(self.files_path, current):
            self._files = current
            self._new = {}
        else:
            self.writable = False


def _read_json(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            got = json.loads(f.read())
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return {}
    return got if isinstance(got, dict) else {}


def _write_json(path: str, data: dict) -> bool:
    """Write atomically (a temporary file beside it, then a rename): a reader sees the
    old file or the new one, never half of one."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(path))
        try:
            # dumps, then one write: json.dump streams through the pure-Python encoder
            text = json.dumps(data, separators=(",", ":"))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return True
    except (OSError, TypeError, ValueError):
        return False
