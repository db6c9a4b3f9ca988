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


# What an argparse-stage rule may read of a launch (issue 29, case 14): a launch may be written in two files (a
# command line and its --config file), and a rule that read one file's values saw one side of the merge. The
# values are the launch's (``Written.values``); ``Written.parsed`` is for the file's words alone.
ONE_FILES_VALUES = {"explicit", "explicit_for", "settings", "occurrences"}


def _reads_of_parsed(module) -> list[str]:
    """``<x>.parsed.<attr>`` reads in ``module``'s source whose attr is one file's values, as ``line: text``."""
    import ast
    import inspect

    source = inspect.getsource(module)
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ONE_FILES_VALUES \
                and isinstance(node.value, ast.Attribute) and node.value.attr == "parsed":
            out.append(f"{module.__name__}:{node.lineno}: {ast.unparse(node)}")
    return out


def test_no_argparse_stage_rule_reads_one_files_values():
    import sys

    from autofix.rules import WRITTEN

    modules = {sys.modules[r.check.__module__] for r in WRITTEN}
    assert len(modules) >= 8  # every family module: the rules' own, not a wrapper's
    assert [read for m in sorted(modules, key=lambda m: m.__name__) for read in _reads_of_parsed(m)] == []
