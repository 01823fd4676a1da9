"""What the pre-commit tests share: how to call pre-commit and a clean environment."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest


def pre_commit_cmd() -> list[str]:
    """How to call pre-commit: the module of this interpreter, else the command."""
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        exe = shutil.which("pre-commit")
        if exe is None:
            pytest.skip("pre-commit is not installed (pip install -e '.[dev]' installs it)")
        return [exe]
    return [sys.executable, "-m", "pre_commit"]


def clean_env(home: Path) -> dict[str, str]:
    """GIT_* variables leak in when the suite itself runs from a git hook; they would
    point the commands at the wrong repository. pre-commit gets its own cache folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        PRE_COMMIT_HOME=str(home),
        PRE_COMMIT_COLOR="never",
        VIRTUALENV_NO_PERIODIC_UPDATE="1",
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid",
    )
    env.pop("PRE_COMMIT", None)
    return env
