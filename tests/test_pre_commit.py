"""The pre-commit hooks of ``.pre-commit-hooks.yaml``, run by pre-commit itself (``pre-commit try-repo``).

pre-commit installs autofix from this repository into an environment of its own (from PyPI: it needs the
package registry, as CI has), then runs each hook over a small git repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BAD = "tp-size: 8\nmoe-a2a-backend: none  # single node\nep-dispatch-algorithm: static\n"
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """One pre-commit cache for the module: the hook environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def repo(tmp_path) -> Path:
    r = tmp_path / "project"
    r.mkdir()
    _git(r, "init", "-q")
    (r / "serve.yaml").write_text(BAD)
    (r / "notes.yaml").write_text("owner: serving-team\n")  # YAML that is no SGLang config: passes
    (r / "run.sh").write_text("#!/bin/sh\necho hello\n")  # a script that launches nothing: passes
    _git(r, "add", ".")
    return r


def try_repo(repo: Path, home: Path, hook: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.run([*PRE_COMMIT, "try-repo", str(ROOT), hook, "--all-files", "--verbose"], cwd=repo,
                          env=env, capture_output=True, text=True, timeout=900)


def test_check_hook_fails_on_a_violation_and_leaves_the_file(repo, home):
    r = try_repo(repo, home, "autofix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "serve.yaml:3:1: error: EP003 [*]" in r.stdout
    assert "+ep-dispatch-algorithm: dynamic" in r.stdout  # the diff --write would apply
    assert (repo / "serve.yaml").read_text() == BAD


def test_fix_hook_fixes_fails_once_then_passes(repo, home):
    r = try_repo(repo, home, "autofix-fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert (repo / "serve.yaml").read_text() == BAD.replace("static", "dynamic")
    assert "files were modified by this hook" in r.stdout
    _git(repo, "add", ".")
    again = try_repo(repo, home, "autofix-fix")
    assert again.returncode == 0, again.stdout + again.stderr


def test_check_hook_passes_a_clean_repository(repo, home):
    (repo / "serve.yaml").write_text(BAD.replace("static", "dynamic"))
    _git(repo, "add", ".")
    r = try_repo(repo, home, "autofix")
    assert r.returncode == 0, r.stdout + r.stderr
