"""The package map holds: each package of ``autofix`` imports only what its docstring's ``May import:`` names.

The docstrings are the map (docs/architecture.md's table repeats them): this test reads them, so the map a
newcomer reads and the one enforced cannot drift apart. Every import counts, at module level or inside a
function (a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "autofix"
PACKAGES = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())


def _allowed(package: str) -> tuple[str, ...] | None:
    """The module prefixes ``package`` may import besides itself; None: any (``cli``)."""
    doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text(encoding="utf-8"))) or ""
    found = re.search(r"^May import(.*?)(?:\n\n|\Z)", doc, re.MULTILINE | re.DOTALL)
    assert found, f"autofix/{package}/__init__.py: the docstring says nothing of what the package may import"
    said = found.group(1)
    if said.lstrip().startswith("every other package"):
        return None
    return tuple(re.findall(r"``(autofix(?:\.\w+)+)``", said))


def _imports(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every absolute import of autofix in the file (``from autofix.x import y`` gives
    ``autofix.x.y`` when ``y`` is a module, else ``autofix.x``)."""
    out: set[tuple[int, str]] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "autofix"}
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "autofix":
            for a in node.names:
                full = f"{node.module}.{a.name}"
                base = PACKAGE.parent / full.replace(".", "/")
                out.add((node.lineno, full if base.with_suffix(".py").is_file() or base.is_dir() else node.module))
    return sorted(out)


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


@pytest.mark.parametrize("package", [p for p in PACKAGES if _allowed(p) is not None])
def test_a_package_imports_only_what_its_docstring_allows(package):
    allowed = _allowed(package)
    assert allowed is not None
    own = f"autofix.{package}"
    wrong = [f"{path.relative_to(ROOT)}:{line}: imports {module}"
             for path in sorted((PACKAGE / package).rglob("*.py"))
             for line, module in _imports(path)
             if module != "autofix" and not _within(module, own) and not any(_within(module, a) for a in allowed)]
    assert not wrong, f"autofix.{package} may import only {', '.join(allowed) or 'nothing of autofix'}:\n" + \
        "\n".join(wrong)


def test_nothing_imports_the_command_line():
    # the command line is the top: a package importing it would run up the layers
    wrong = [f"{path.relative_to(ROOT)}:{line}: imports {module}"
             for package in PACKAGES if package != "cli"
             for path in sorted((PACKAGE / package).rglob("*.py"))
             for line, module in _imports(path) if _within(module, "autofix.cli")]
    assert not wrong, "\n".join(wrong)


def test_the_top_level_holds_only_packages():
    modules = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert not modules, f"a module at autofix/'s top level belongs in the package of its job: {modules}"


MAX_LINES = 600


def test_no_module_is_longer_than_max_lines():
    # a module that grows past this holds more than one job: split it along the seams its code already has
    long = {str(p.relative_to(ROOT)): n for p in sorted(PACKAGE.rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}
