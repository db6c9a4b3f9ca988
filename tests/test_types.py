"""The code's type check, run by the test suite (so ``.ci/run`` runs it): mypy over the package, with the settings
of ``pyproject.toml`` (``[tool.mypy]``: the whole package in mypy's default mode with the bodies of unannotated
functions checked, and --strict's flags on ``autofix.common``, ``pipeline``, ``adapters`` and ``core``).

mypy keeps its cache in ``.mypy_cache`` (as a run by hand does): a clean clone checks cold, a second run reads back
what did not change."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STRICT = ["autofix.common.*", "autofix.pipeline.*", "autofix.adapters.*", "autofix.core.*"]


def _mypy_config() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["mypy"]


def test_mypy_is_clean():
    r = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_strict_packages_get_every_strict_flag():
    """mypy takes ``strict = true`` in a per-module section as the global ``--strict`` (every module strict), so
    the strict packages list --strict's flags one by one: each must be the installed mypy's, with its strict value
    (a flag a newer mypy adds to --strict fails here until it is listed), and the one it takes only globally
    (``warn_redundant_casts``) is set in ``[tool.mypy]``."""
    from mypy.main import define_options
    from mypy.options import PER_MODULE_OPTIONS

    _, _, assignments = define_options()
    config = _mypy_config()
    [strict] = [o for o in config["overrides"] if o["module"] == STRICT]
    assert "strict" not in config and not any("strict" in o for o in config["overrides"])
    for dest, value in assignments:
        where = strict if dest in PER_MODULE_OPTIONS else config
        assert where.get(dest) is value, (dest, value)
    assert set(strict) - {"module"} == {dest for dest, _ in assignments if dest in PER_MODULE_OPTIONS}
