"""The real ``pre-commit`` runs the ``tflint-fix`` hook from this checkout on a temporary
repository, through ``git commit`` itself.

As in test_precommit.py, pre-commit installs the hook from this checkout's HEAD (so the
hook and the package as committed are what is tested) and needs PyPI for the
dependencies. A fixer hook fails the commit when it modifies a file; once the fixed file
is staged, the next commit passes.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from precommit_support import clean_env, pre_commit_cmd

REPO_ROOT = Path(__file__).resolve().parents[1]

BAD = (
    "import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n"
    "    print(x)  # shown on every call\n    return x * 2\n"
)
FIXED = BAD.replace("    print(x)", "    tf.print(x)")

pytestmark = pytest.mark.slow


def _git(*args: str, cwd: Path, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    if check:
        assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc


def test_fix_hook_fixes_the_file_and_fails_the_commit_then_passes(tmp_path: Path) -> None:
    cmd = pre_commit_cmd()
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = clean_env(tmp_path / "pre-commit-home")
    top = _git("rev-parse", "--show-toplevel", cwd=REPO_ROOT, env=env, check=False)
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != REPO_ROOT:
        pytest.skip("not a git checkout of tflint")
    head = _git("rev-parse", "HEAD", cwd=REPO_ROOT, env=env).stdout.strip()
    hooks = _git("show", f"{head}:.pre-commit-hooks.yaml", cwd=REPO_ROOT, env=env).stdout
    assert "id: tflint-fix" in hooks and "check --fix" in hooks, "HEAD has no tflint-fix hook"

    repo = tmp_path / "hooked"
    repo.mkdir()
    _git("init", "-q", cwd=repo, env=env)
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {REPO_ROOT.as_posix()}\n"
        f"    rev: {head}\n"
        "    hooks:\n"
        "      - id: tflint-fix\n"
    )
    bad = repo / "bad.py"
    bad.write_text(BAD)
    bad.chmod(0o644)
    install = subprocess.run([*cmd, "install", "--install-hooks"], cwd=repo, env=env,
                             capture_output=True, text=True, timeout=900)
    assert install.returncode == 0, install.stdout + install.stderr
    _git("add", ".", cwd=repo, env=env)

    first = _git("commit", "-q", "-m", "first", cwd=repo, env=env, check=False)
    out = first.stdout + first.stderr
    assert first.returncode != 0, out
    assert "tflint (fix)" in out and "Failed" in out and "files were modified by this hook" in out, out
    assert bad.read_text() == FIXED  # fixed in place, comment and layout kept
    assert (bad.stat().st_mode & 0o777) == 0o644
    # no temporary file left; the project index cache is there, and git ignores it by itself
    assert sorted(p.name for p in repo.iterdir()) == [".git", ".pre-commit-config.yaml", ".tflint_cache", "bad.py"]
    assert ".tflint_cache" not in _git("status", "--porcelain", "--untracked-files=all", cwd=repo, env=env).stdout
    assert _git("log", "--oneline", cwd=repo, env=env, check=False).returncode != 0  # no commit yet

    _git("add", "bad.py", cwd=repo, env=env)
    second = _git("commit", "-q", "-m", "second", cwd=repo, env=env, check=False)
    out = second.stdout + second.stderr
    assert second.returncode == 0, out
    assert "Passed" in out, out
    assert _git("show", "HEAD:bad.py", cwd=repo, env=env).stdout == FIXED
