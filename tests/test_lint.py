"""The code's lint, run by the test suite (so ``.ci/run`` runs it): ``ruff check`` over the package, the tests,
the scripts and the benchmarks, with the rules chosen in ``pyproject.toml`` (``[tool.ruff]``: pyflakes,
pycodestyle, isort, bugbear, pyupgrade)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    """The ruff of this environment (a test dependency), as a command."""
    beside = Path(sys.executable).with_name("ruff")
    return [str(beside)] if beside.exists() else [shutil.which("ruff") or "ruff"]


def test_ruff_check_is_clean():
    r = subprocess.run([*_ruff(), "check", "--no-cache", "autofix", "tests", "scripts", "bench"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
