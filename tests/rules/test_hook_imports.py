"""The import graph of autofix (issue 30): no import cycle, and a hook package imports another only where SGLang's
own hook modules import each other.

autofix/ is read as source, with ``ast``: every ``import`` and ``from ... import`` statement, at module level or
inside a function, is an edge from its module to the autofix module it names (``from a.b import c``: ``a.b.c`` when
that is a module, else ``a.b``). Not edges: a package's ``__init__`` that Python runs before a submodule it imports
(every package that imports its own modules would be a cycle), and ``importlib.import_module`` (``autofix.rules``
gathers the step modules so).

A hook package is a package under autofix/rules/, named after the SGLang module it mirrors (``moe_hook`` for
``arg_groups/moe_hook.py``, ``runtime_context`` for ``runtime_context.py``). What several hook packages read lives in
``autofix/rules/shared.py``, which imports none of them.
"""

from __future__ import annotations

import ast
import sys
from functools import cache
from pathlib import Path

import pytest

import autofix
from tests.oracle import requires_oracle

ROOT = Path(autofix.__file__).resolve().parent
HOOKS = tuple(sorted(p.name for p in (ROOT / "rules").iterdir() if (p / "__init__.py").is_file()))
SHARED = "autofix.rules.shared"

# Which hook packages each hook package may import: the SGLang hook modules its SGLang module imports, anywhere in
# it, among those autofix has a package for (test_allowed_is_what_sglangs_hook_modules_import derives it again from
# the installed SGLang). Every hook module of SGLang imports overrides.py (the resolving views, the passes) and most
# runtime_context.py (attn_dp_enabled_of, the platform); a few import a function of another hook.
ALLOWED: dict[str, frozenset[str]] = {
    "attention_hook": frozenset({"overrides", "runtime_context"}),
    "cuda_graph_hook": frozenset({"overrides"}),
    "expert_pack_hook": frozenset({"overrides"}),
    "hicache_hook": frozenset({"overrides"}),
    "kv_cache_hook": frozenset({"overrides", "runtime_context"}),
    "kv_shard_hook": frozenset({"overrides", "runtime_context"}),
    "layernorm_sp_hook": frozenset({"overrides", "runtime_context"}),
    "mega_moe_hook": frozenset({"overrides", "runtime_context"}),
    "memory_hook": frozenset({"cuda_graph_hook", "overrides", "runtime_context"}),
    "model_hook": frozenset({"cuda_graph_hook", "kv_cache_hook", "overrides", "runtime_context"}),
    "moe_hook": frozenset({"overrides", "runtime_context"}),
    "overrides": frozenset({"runtime_context"}),
    "parallel_hook": frozenset({"cuda_graph_hook", "overrides", "runtime_context", "validation_hook"}),
    "pd_disaggregation_hook": frozenset({"model_hook", "overrides", "runtime_context", "validation_hook"}),
    "platform_hook": frozenset({"overrides", "runtime_context"}),
    "runtime_context": frozenset({"overrides"}),
    "serving_hook": frozenset({"overrides", "runtime_context"}),
    "speculative_hook": frozenset({"overrides", "runtime_context"}),
    "validation_hook": frozenset({"overrides", "runtime_context"}),
}

@cache
def modules() -> dict[str, Path]:
    """Every module of autofix by its dotted name (a package by its own name, for its ``__init__.py``)."""
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _module_of(name: str) -> str | None:
    """The autofix module ``name`` is, or is in (a name a module defines), or None (not autofix's)."""
    known = modules()
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


@cache
def imports() -> tuple[tuple[str, str, int], ...]:
    """``(importer, imported, line)`` for each import of an autofix module by another, wherever it is written."""
    known = modules()
    found = []
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the package, up level - 1
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
            else:
                continue
            for target in dict.fromkeys(filter(None, map(_module_of, targets))):
                if target != name:
                    found.append((name, target, node.lineno))
    return tuple(found)


def cycles(edges) -> list[list[str]]:
    """The import cycles of ``edges`` (``imports()``), one list per strongly connected set of modules, each a
    path that returns to its first module (``[a, b, a]``)."""
    graph: dict[str, set[str]] = {}
    for a, b, _ in edges:
        graph.setdefault(a, set()).add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    sets: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                sets.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_path_through(graph, component) for component in sets]


def _path_through(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A cycle within ``component``, from its first module (by name) back to it, found breadth-first."""
    start = min(component)
    came: dict[str, str] = {}
    todo = [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(graph.get(v, set()) & component):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(came[path[-1]])
                return [*reversed(path), start]
            if w not in came:
                came[w] = v
                todo.append(w)
    raise AssertionError(f"no cycle in {sorted(component)}")


def hook(module: str) -> str | None:
    """The hook package ``module`` is in (``moe_hook`` for ``autofix.rules.moe_hook.handle_a2a_moe.common``)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["autofix", "rules"] and parts[2] in HOOKS else None


def _where(edges, a: str, b: str) -> str:
    return ", ".join(f"{x}:{line}" for x, y, line in edges if x == a and y == b)


def test_no_import_cycle():
    edges = imports()
    found = [" -> ".join(c) + " (" + "; ".join(_where(edges, x, y) for x, y in zip(c, c[1:])) + ")"
             for c in cycles(edges)]
    assert found == [], "import cycles: " + " | ".join(found)


def test_a_hook_package_imports_another_only_where_sglangs_do():
    bad = [f"{a}:{line} imports {b} ({hook(a)} -> {hook(b)})" for a, b, line in imports()
           if hook(a) and hook(b) and hook(a) != hook(b) and hook(b) not in ALLOWED.get(hook(a), ())]
    assert bad == [], "\n".join(bad)


def test_shared_imports_no_hook_package():
    assert [f"{SHARED}:{line} imports {b}" for a, b, line in imports() if a == SHARED and hook(b)] == []


def test_allowed_names_the_hook_packages():
    assert sorted(ALLOWED) == list(HOOKS)
    assert {h for allowed in ALLOWED.values() for h in allowed} <= set(HOOKS)


def test_the_graph_reads_function_level_and_relative_imports(tmp_path, monkeypatch):
    # what the checks above rest on: an import inside a function, a multi-line one, a relative one, and a name a
    # package defines are edges; a package's own submodule import is not a cycle with it
    pkg = tmp_path / "autofix"
    (pkg / "rules" / "a_hook").mkdir(parents=True)
    (pkg / "rules" / "b_hook").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "rules" / "__init__.py").write_text("from autofix.rules import a_hook\n")
    (pkg / "rules" / "a_hook" / "__init__.py").write_text("X = 1\n")
    (pkg / "rules" / "a_hook" / "step.py").write_text(
        "def f():\n    from autofix.rules.b_hook import (\n        Y,\n    )\n    return Y\n")
    (pkg / "rules" / "b_hook" / "__init__.py").write_text("from ..a_hook import step\nY = 2\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", pkg)
    modules.cache_clear()
    imports.cache_clear()
    try:
        edges = {(a, b) for a, b, _ in imports()}
        assert edges == {("autofix.rules", "autofix.rules.a_hook"),
                         ("autofix.rules.a_hook.step", "autofix.rules.b_hook"),
                         ("autofix.rules.b_hook", "autofix.rules.a_hook.step")}
        assert cycles(imports()) == [["autofix.rules.a_hook.step", "autofix.rules.b_hook",
                                      "autofix.rules.a_hook.step"]]
    finally:
        modules.cache_clear()
        imports.cache_clear()


def sglang_hook_imports(srt: Path, hooks: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """For each of ``hooks``, the others its SGLang module (``srt/arg_groups/<hook>.py``, else ``srt/<hook>.py``)
    imports, anywhere in it."""

    def hook_named(name: str) -> str | None:
        for prefix in ("sglang.srt.arg_groups.", "sglang.srt."):
            if name.startswith(prefix) and name[len(prefix):].split(".")[0] in hooks:
                return name[len(prefix):].split(".")[0]
        return None

    found = {}
    for h in hooks:
        path = srt / "arg_groups" / f"{h}.py"
        path = path if path.is_file() else srt / f"{h}.py"
        package = "sglang.srt.arg_groups" if path.parent.name == "arg_groups" else "sglang.srt"
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                names.update([base, *(f"{base}.{a.name}" for a in node.names)])
        found[h] = frozenset(filter(None, map(hook_named, names))) - {h}
    return found


@pytest.mark.oracle
@requires_oracle
def test_allowed_is_what_sglangs_hook_modules_import():
    from tests.test_positions import sglang_root

    assert sglang_hook_imports(sglang_root() / "srt", HOOKS) == ALLOWED
