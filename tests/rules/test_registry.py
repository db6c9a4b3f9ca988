"""The registry's list of step modules (``autofix.rules.STEP_MODULES``) is the tree's: a step module added,
moved or removed must be listed, or its rules would silently not run."""

from __future__ import annotations

import importlib
import pkgutil

import autofix.rules
from autofix.rules import STEP_MODULES


def _walked() -> list[str]:
    """Every module and subpackage of the hook packages, as a walk of the folders finds them."""
    found = []
    for package in sorted(m.name for m in pkgutil.iter_modules(autofix.rules.__path__) if m.ispkg):
        pkg = importlib.import_module(f"autofix.rules.{package}")
        found += [info.name.removeprefix("autofix.rules.")
                  for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg.__name__}.")]
    return found


def test_the_step_modules_are_the_tree():
    assert list(STEP_MODULES) == _walked()
