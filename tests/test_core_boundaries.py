"""What the core's shape (issue 30) rules out, checked on the source with ``ast`` so that it stays ruled out:

- ``autofix/core`` reads no disk: it imports nothing of ``autofix.disk`` nor a module that reads files, calls
  no ``open``, and of ``os`` uses only the path functions that read no disk (``join``, ``dirname``,
  ``normpath``). Where a ``--config`` path leads, which two paths are one file and what a file not read means
  are its caller's (``core.options.ConfigReader``).
- No module outside ``autofix/adapters`` asks an adapter its name: no comparison with an ``Adapter.NAME``
  or with one of ``adapters.NAMES``, no ``by_name`` of a name written in the code. What differs between
  adapters is a member of the ``Adapter`` Protocol.

(No module over 600 lines, in these packages as in every other: ``tests/test_layers.py``; ``core/api.py`` was 1022
lines, ``cli/runner.py`` 805, ``adapters/dockerfile.py`` 620.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import autofix
from autofix.adapters import NAMES

PACKAGE = Path(autofix.__file__).parent
PURE_OS = {"path.join", "path.dirname", "path.normpath", "sep"}
DISK_MODULES = ("autofix.disk", "pathlib", "shutil", "tempfile", "glob", "io")


def _modules(under: str) -> list[Path]:
    return sorted((PACKAGE / under).rglob("*.py")) if under else sorted(PACKAGE.rglob("*.py"))


def disk_uses(source: str) -> list[str]:
    """What in ``source`` reads the disk or may: imports of the disk's modules, ``open(...)``, ``os`` functions
    other than the pure path ones."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [f"import {a.name}" for a in node.names if a.name.startswith(DISK_MODULES)]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(DISK_MODULES):
            out.append(f"from {node.module} import ...")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            out.append("from os import ...")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open":
            out.append(f"line {node.lineno}: open(...)")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os":
            if node.attr != "path":
                out.append(f"line {node.lineno}: os.{node.attr}")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                and isinstance(node.value.value, ast.Name) and node.value.value.id == "os":
            if f"{node.value.attr}.{node.attr}" not in PURE_OS:
                out.append(f"line {node.lineno}: os.{node.value.attr}.{node.attr}")
    return out


def name_branches(source: str) -> list[str]:
    """Where ``source`` asks an adapter its name: a comparison with ``.NAME`` or with an adapter's name, or
    ``by_name`` of a name written in the code."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                named = (isinstance(side, ast.Attribute) and side.attr == "NAME") or \
                    (isinstance(side, ast.Constant) and side.value in NAMES) or \
                    (isinstance(side, (ast.Tuple, ast.List, ast.Set))
                     and any(isinstance(e, ast.Constant) and e.value in NAMES for e in side.elts))
                if named:
                    out.append(f"line {node.lineno}: {ast.unparse(node)}")
                    break
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "by_name" \
                and node.args and isinstance(node.args[0], ast.Constant):
            out.append(f"line {node.lineno}: {ast.unparse(node)}")
    return out


@pytest.mark.parametrize("path", _modules("core"), ids=lambda p: p.name)
def test_the_core_reads_no_disk(path):
    assert disk_uses(path.read_text(encoding="utf-8")) == [], path


@pytest.mark.parametrize("path", [p for p in _modules("") if "adapters" not in p.relative_to(PACKAGE).parts],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_outside_the_adapters_asks_an_adapter_its_name(path):
    assert name_branches(path.read_text(encoding="utf-8")) == [], path


def test_the_checks_see_what_they_are_for():
    # the shapes the core had before issue 30, each found
    assert disk_uses("import os\nname = os.path.realpath(p)\n") == ["line 2: os.path.realpath"]
    assert disk_uses("from autofix.disk.files import NotRead, is_yaml\n") == ["from autofix.disk.files import ..."]
    assert disk_uses("from autofix.disk import files\n") == ["from autofix.disk import ..."]
    assert disk_uses("import os\nos.path.normpath(os.path.join(os.path.dirname(a), b))\n") == []
    assert name_branches('if fmt.NAME != "shell":\n    pass\n') == ["line 1: fmt.NAME != 'shell'"]
    assert name_branches('why = A if result.format == "yaml" else B\n') == ["line 1: result.format == 'yaml'"]
    assert name_branches('adapter = by_name("yaml")\n') == ["line 1: by_name('yaml')"]
    assert name_branches('if output.format == "full":\n    pass\n') == []
