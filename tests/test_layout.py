"""What may import what: scripts/, and harness/ that they share with tests/, import nothing from tests/.

The development scripts run the same machinery as the tests (the oracle, the fidelity harness, the fuzz
target, the rule cases): it lives in ``harness/``, which tests/ and scripts/ both import, so that a test
module can be moved or renamed without breaking a script, and a script never runs a test module's
top-level code. A file breaks it by importing ``tests`` (``import tests...``, ``from tests... import``,
``importlib.import_module("tests...")``, ``__import__``) or by putting a folder under tests/ on
``sys.path`` (then a bare ``import strategies`` reaches a test module), or by loading a file under tests/
by its path (``spec_from_file_location``, ``runpy.run_path``); read with ``ast``, not run.
"""

from __future__ import annotations

import ast
import fnmatch
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The folders whose files must not reach tests/: the scripts, and what they import of the project
CHECKED = ("scripts", "harness")
# Calls that import a module named by a string, or run a file named by a path
_BY_NAME = {"import_module", "__import__", "run_module"}
_BY_PATH = {"spec_from_file_location", "run_path"}


def _names_tests(node: ast.AST) -> bool:
    """Whether a string in ``node`` names tests/ (``"tests"``, ``"tests.x"``, ``"tests/x"``), or ``node`` is
    a path built with a ``"tests"`` part (``ROOT / "tests" / "property"``)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            text = sub.value.strip("/")
            if text == "tests" or text.startswith(("tests.", "tests/")) or "/tests/" in sub.value:
                return True
    return False


def _is_sys_path(node: ast.AST) -> bool:
    """``sys.path``, or a subscript of it (``sys.path[:0]``)."""
    if isinstance(node, ast.Subscript):
        node = node.value
    return (isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name)
            and node.value.id == "sys")


def reaches_tests(source: str, filename: str = "<source>") -> list[str]:
    """Each place in ``source`` (Python) that imports from tests/ or puts it on ``sys.path``: ``"line N: what"``.

    Raises ``SyntaxError`` when ``source`` does not parse."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            found += [f"line {line}: import {a.name}" for a in node.names
                      if a.name == "tests" or a.name.startswith("tests.")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
                node.module == "tests" or node.module.startswith("tests.")):
            found.append(f"line {line}: from {node.module} import ...")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in _BY_NAME | _BY_PATH and any(_names_tests(a) for a in (*node.args, *node.keywords)):
                found.append(f"line {line}: {name}(...) of a module under tests/")
            elif (name in ("insert", "append", "extend") and isinstance(func, ast.Attribute)
                  and _is_sys_path(func.value) and _names_tests(node)):
                found.append(f"line {line}: sys.path.{name}(...) of a folder under tests/")
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_is_sys_path(t) for t in targets) and _names_tests(node.value):
                found.append(f"line {line}: sys.path set to a folder under tests/")
    return sorted(found, key=lambda f: int(f.split()[1].rstrip(":")))


FILES = sorted(p for folder in CHECKED for p in (ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(ROOT).as_posix() for p in FILES])
def test_scripts_and_the_harness_import_nothing_from_tests(path: Path):
    found = reaches_tests(path.read_text(encoding="utf-8"), str(path))
    assert not found, (f"{path.relative_to(ROOT)} reaches into tests/ ({'; '.join(found)}): move what it needs into "
                       "harness/ (see harness/__init__.py) and import it from there")


def test_the_checked_folders_hold_python():
    """The parametrized test above is not vacuous: both folders are there, with their modules."""
    assert {p.relative_to(ROOT).parts[0] for p in FILES} == set(CHECKED)
    assert ROOT / "scripts" / "oracle_verdicts.py" in FILES and ROOT / "harness" / "oracle" / "oracle.py" in FILES


@pytest.mark.parametrize(("source", "what"), [
    ("from tests.oracle.oracle import run_batch", "from tests.oracle.oracle"),
    ("import tests.fuzz.target as t", "import tests.fuzz.target"),
    ("from tests import write_faults", "from tests import"),
    ("def f():\n    from tests.rules.cases import ALL_CASES", "from tests.rules.cases"),
    ("import importlib\nimportlib.import_module('tests.rules.cases')", "import_module(...)"),
    ("import importlib.util as u\nu.spec_from_file_location('m', ROOT / 'tests' / 'x.py')", "spec_from_file_location"),
    ("import sys\nsys.path.insert(0, str(ROOT / 'tests' / 'property'))", "sys.path.insert"),
    ("import sys\nsys.path[:0] = [str(ROOT), str(ROOT / 'tests' / 'property')]", "sys.path set"),
    ("import sys\nsys.path.append('tests/property')", "sys.path.append"),
])
def test_each_way_into_tests_is_caught(source, what):
    found = reaches_tests(source)
    assert len(found) == 1 and what in found[0], found


@pytest.mark.parametrize("source", [
    "from harness.oracle.oracle import run_batch",
    "import testsuite",
    "from .tests import x",  # relative: a module of the importing package, not the top-level tests
    "import sys\nsys.path.insert(0, str(ROOT))",
    '"""Reads tests/rules/test_rules.py"""\nPATH = ROOT / "tests" / "oracle" / "regressions"',  # a path, not an import
])
def test_what_is_not_an_import_from_tests(source):
    assert reaches_tests(source) == []


def test_the_harness_is_not_shipped():
    """pyproject's package discovery takes autofix only: harness/ (and tests/) stay out of the wheel."""
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    for package in ("harness", "harness.oracle", "tests"):
        assert not any(fnmatch.fnmatchcase(package, pattern) for pattern in include), (package, include)
    assert any(fnmatch.fnmatchcase("autofix.rules", pattern) for pattern in include)
