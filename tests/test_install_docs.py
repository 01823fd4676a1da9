"""The install commands and pre-commit snippets in the docs work as written.

tflint is not on the package index, so every ``pip install`` in the docs must install from
a path or from the repository (pip's VCS syntax), and every pre-commit ``rev:`` must be a
commit (or tag) of this repository. The VCS form is checked for real against this
checkout (``git+file://``, the URL differing only in its scheme), and
``pre-commit try-repo`` runs the hooks of this checkout on a ``.py`` file and a notebook.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from precommit_support import clean_env, pre_commit_cmd

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / ".pre-commit-hooks.yaml", *sorted((ROOT / "docs").glob("*.md"))]
REPO_URL = "https://github.com/tflint-dev/tflint"


def _doc_lines() -> list[tuple[str, str]]:
    return [(p.name, line) for p in DOCS for line in p.read_text(encoding="utf-8").splitlines()]


def test_no_pip_install_from_the_package_index() -> None:
    """``pip install tflint`` / ``"tflint[verify]"`` fail: the package is not on PyPI."""
    from_index = re.compile(r"pip install\s+(?:-U\s+)?[\"']?tflint(?:\[[^\]]*\])?(?!\s*@)[\"']?(?=\s|$|`)")
    bad = [f"{name}: {line.strip()}" for name, line in _doc_lines() if from_index.search(line)]
    assert not bad, "\n".join(bad)
    assert from_index.search('pip install "tflint[verify]"') and from_index.search("pip install tflint")
    assert not from_index.search('pip install "tflint @ git+https://example.invalid/tflint"')


def test_every_pre_commit_rev_is_a_commit_of_this_repository() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    revs = {m.group(1) for _, line in _doc_lines() for m in [re.match(r"\s*#?\s*rev:\s*(\S+)", line)] if m}
    assert revs, "no pre-commit snippet in the docs"
    for rev in revs:
        proc = subprocess.run(["git", "cat-file", "-e", f"{rev}^{{commit}}"], cwd=ROOT, capture_output=True)
        assert proc.returncode == 0, f"rev: {rev} is not a commit or tag of this repository"


@pytest.mark.slow
def test_pip_vcs_install_syntax_builds_the_package(tmp_path: Path) -> None:
    """``pip install "tflint @ git+URL"`` as documented, with this checkout as the URL
    (a wheel is built from the committed tree; dependencies are not fetched)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    # file://localhost/...: pip's requirement parser wants a host in a direct URL
    url = f"git+file://localhost{ROOT.as_posix()}"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), f"tflint @ {url}"],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (wheel,) = tmp_path.glob("tflint-*.whl")
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    assert "tflint/notebook.py" in names and "tflint/cli.py" in names
    meta = next(n for n in names if n.endswith("METADATA"))
    requires = zipfile.ZipFile(wheel).read(meta).decode()
    assert "Requires-Dist: nbformat" in requires and "Requires-Dist: pathspec" in requires
    # the documented commands parse as requirements (the URL form pip accepts)
    from pip._vendor.packaging.requirements import Requirement

    for line in (ROOT / "docs" / "index.md").read_text().splitlines():
        m = re.match(r'pip install "([^"]+)"', line)
        if m:
            assert Requirement(m.group(1)).url.startswith("git+https://"), line


NB = (
    '{\n "cells": [\n  {\n   "cell_type": "code",\n   "execution_count": null,\n   "metadata": {},\n'
    '   "outputs": [],\n   "source": [\n    "import tensorflow as tf\\n",\n    "@tf.function\\n",\n'
    '    "def f(x):\\n",\n    "    print(x)\\n",\n    "    return x\\n"\n   ]\n  }\n ],\n'
    ' "metadata": {},\n "nbformat": 4,\n "nbformat_minor": 4\n}\n'
)
PY = "import tensorflow as tf\n@tf.function\ndef f(x):\n    print(x)\n    return x\n"


@pytest.mark.slow
def test_pre_commit_try_repo_on_python_and_notebooks(tmp_path: Path) -> None:
    """``pre-commit try-repo`` with this checkout (uncommitted changes included, as
    try-repo does): the hook takes the notebook (types_or jupyter) and reports it by cell."""
    cmd = pre_commit_cmd()
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = clean_env(tmp_path / "home")
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, env=env, check=True)
    (repo / "nb.ipynb").write_text(NB)
    (repo / "a.py").write_text(PY)
    (repo / "notes.txt").write_text(PY)
    subprocess.run(["git", "add", "."], cwd=repo, env=env, check=True)
    proc = subprocess.run([*cmd, "try-repo", str(ROOT), "tflint", "--all-files"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "nb.ipynb:cell 1:4:5: TFL101" in out, out
    assert "a.py:4:5: TFL101" in out, out
    assert "notes.txt" not in out, out
