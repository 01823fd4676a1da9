"""The real ``pre-commit`` runs tflint's hook from this checkout on a temporary repository.

pre-commit installs hooks from a committed revision, so the hook under test is the one in
this checkout's HEAD (``.pre-commit-hooks.yaml`` and the package as committed), cloned by
pre-commit from the local path and installed with pip into pre-commit's own virtualenv.
That needs PyPI (for libcst, flake8, ...) and nothing else. Uncommitted changes in the
working tree are not part of what this test exercises.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from precommit_support import clean_env, pre_commit_cmd

REPO_ROOT = Path(__file__).resolve().parents[1]

BAD = "import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n    print(x)\n    return x * 2\n"
GOOD = (
    "import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n    tf.print(x)\n    return x * 2\n"
)

pytestmark = pytest.mark.slow


def _git(*args: str, cwd: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, (args, proc.stderr)
    return proc.stdout.strip()


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], list[str]]:
    """A git repository whose .pre-commit-config.yaml points at this checkout's HEAD."""
    cmd = pre_commit_cmd()
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = clean_env(tmp_path_factory.mktemp("pre-commit-home"))
    top = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != REPO_ROOT:
        pytest.skip("not a git checkout of tflint")
    head = _git("rev-parse", "HEAD", cwd=REPO_ROOT, env=env)
    committed = _git("ls-tree", "--name-only", head, cwd=REPO_ROOT, env=env).splitlines()
    assert ".pre-commit-hooks.yaml" in committed, "HEAD has no .pre-commit-hooks.yaml"

    repo = tmp_path_factory.mktemp("hooked")
    _git("init", "-q", cwd=repo, env=env)
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {REPO_ROOT.as_posix()}\n"
        f"    rev: {head}\n"
        "    hooks:\n"
        "      - id: tflint\n"
    )
    (repo / "bad.py").write_text(BAD)
    (repo / "good.py").write_text(GOOD)
    (repo / "build").mkdir()
    (repo / "build" / "generated.py").write_text(BAD)  # excluded by default: --force-exclude
    _git("add", ".", cwd=repo, env=env)

    install = subprocess.run(
        [*cmd, "install-hooks"], cwd=repo, env=env, capture_output=True, text=True, timeout=900
    )
    assert install.returncode == 0, install.stdout + install.stderr
    return repo, env, cmd


def _run(
    hook_repo: tuple[Path, dict[str, str], list[str]], *files: str
) -> subprocess.CompletedProcess[str]:
    repo, env, cmd = hook_repo
    return subprocess.run(
        [*cmd, "run", "--files", *files],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_hook_fails_on_bad_file(hook_repo: tuple[Path, dict[str, str], list[str]]) -> None:
    proc = _run(hook_repo, "bad.py")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "tflint" in out and "Failed" in out, out
    assert "bad.py:6:5: TFL101 " in out, out


def test_hook_passes_on_good_file(hook_repo: tuple[Path, dict[str, str], list[str]]) -> None:
    proc = _run(hook_repo, "good.py")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "Passed" in out and "TFL" not in out, out


def test_hook_respects_excludes_for_named_files(
    hook_repo: tuple[Path, dict[str, str], list[str]],
) -> None:
    proc = _run(hook_repo, "build/generated.py", "good.py")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "TFL" not in out, out
