"""Each derivation and settings rule sits where SGLang does what it mirrors, and the step list is SGLang's.

The installed SGLang (the oracle's, ``../shared/oracle``) is read as source,
with ``ast``: the shipped step list must equal the one extracted from its
``pipeline.py``; each item's ``at`` line must be a ``raise`` or ``assert``
(a rule) or a declaration (a derivation: ``declare_resolution(...)``, or a
post-process pass returning a dict) inside its step's hook, or inside a
function the hook calls at the item's ``via`` line. So positions cannot
drift from SGLang's without a test failing.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from autofix.pipeline.items import Derivation, SettingsRule
from autofix.pipeline.run import order
from autofix.rules import SETTINGS
from autofix.schema import load
from harness.oracle.oracle import PYTHON
from tests.oracle import requires_oracle

pytestmark = [pytest.mark.oracle, requires_oracle]
SCHEMA = load()
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))


@cache
def sglang_root() -> Path:
    find = "import importlib.util as u; print(u.find_spec('sglang').submodule_search_locations[0])"
    return Path(subprocess.run([str(PYTHON), "-c", find], capture_output=True, text=True, check=True).stdout.strip())


@cache
def tree(module: str) -> ast.Module:
    return ast.parse((sglang_root() / "srt" / module).read_text())


def function(module: str, name: str) -> ast.FunctionDef:
    [fn] = [n for n in tree(module).body if isinstance(n, ast.FunctionDef) and n.name == name] or [
        m for n in tree(module).body if isinstance(n, ast.ClassDef)  # a method
        for m in n.body if isinstance(m, ast.FunctionDef) and m.name == name]
    return fn


def enclosing_function(module: str, line: int) -> ast.FunctionDef:
    [fn] = [n for n in tree(module).body if isinstance(n, ast.FunctionDef) and n.lineno <= line <= n.end_lineno] or [
        m for n in tree(module).body if isinstance(n, ast.ClassDef)  # a method
        for m in n.body if isinstance(m, ast.FunctionDef) and m.lineno <= line <= m.end_lineno]
    return fn


def statements_at(module: str, line: int) -> list[ast.stmt]:
    return [n for n in ast.walk(tree(module)) if isinstance(n, ast.stmt) and n.lineno == line]


def is_model_override(module: str, name: str) -> bool:
    """Whether function ``name`` of ``module`` is registered as a model override (``@_register_for(...)``)."""
    fn = function(module, name)
    return any(isinstance(d, ast.Call) and getattr(d.func, "id", "") in ("_register_for", "register_model_override")
               for d in fn.decorator_list)


def is_declaration(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Return):
        return isinstance(stmt.value, ast.Dict)
    if isinstance(stmt, ast.Assign):  # overrides["dest"] = ..., in a function that returns overrides
        return any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == "overrides"
                   for t in stmt.targets)
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "declare_resolution"


# The speculative hook dispatches to the algorithm's handler through `SpeculativeAlgorithm.handle_server_args`
DISPATCHERS = {"handle_server_args": ("speculative/spec_info.py", "SpeculativeAlgorithm")}


def _calls(node: ast.AST) -> set[str]:
    return {c.func.id if isinstance(c.func, ast.Name) else c.func.attr for c in ast.walk(node)
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name | ast.Attribute)}


def reached(module: str, line: str) -> set[str]:
    """The functions of ``module`` the hook's ``line`` reaches, through a dispatcher and the functions it calls."""
    names = set(re.findall(r"(\w+)\s*\(", line))
    for name, (file, cls) in DISPATCHERS.items():
        if name in names:
            [klass] = [n for n in tree(file).body if isinstance(n, ast.ClassDef) and n.name == cls]
            [method] = [n for n in klass.body if isinstance(n, ast.FunctionDef) and n.name == name]
            names |= _calls(method)
    local = {n.name: n for n in tree(module).body if isinstance(n, ast.FunctionDef)}
    todo, seen = [n for n in names if n in local], set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += [n for n in _calls(local[name]) if n in local]
    return seen


def names_a_field(function_name: str) -> bool:
    """Whether a field declaration of ``arg_groups/fields/`` names ``function_name`` of runtime_context.py as the
    function that derives it."""
    fields = sglang_root() / "srt" / "arg_groups" / "fields"
    return any(f'"sglang.srt.runtime_context.{function_name}"' in f.read_text() for f in fields.glob("*.py"))


def test_the_step_list_is_the_installed_sglang_s():
    from sglang_steps import steps

    assert [dataclasses.asdict(s) for s in SCHEMA.steps] == steps(sglang_root())


ITEMS = order(SETTINGS, SCHEMA)
# Rules whose SGLang refusal is a TypeError of a comparison with None, at that comparison's line
TYPE_ERRORS = {"SPEC130", "SPEC131"}
# Rules whose SGLang refusal is a ZeroDivisionError of a floor division, at that division's line
ZERO_DIVISIONS = {"PAR008"}
# Calls by name: runtime_context.py installs each derived leaf of the config bags by the function its field
# declaration names (`Derived(fn="sglang.srt.runtime_context.<name>")` in arg_groups/fields/)
CALLS_BY_FIELD = {"runtime_context.py:946"}


@pytest.mark.parametrize("item", ITEMS, ids=[f"{getattr(i, 'code', None) or i.derive.__name__}@{i.position.at}"
                                             for i in ITEMS])
def test_the_item_is_at_its_step_and_line(item):
    p = item.position
    step = next(s for s in SCHEMA.steps if s.id == p.step)
    hook = function(step.module, step.name)
    if p.via is None:  # in the hook itself
        assert p.file == step.module and hook.lineno <= p.line <= hook.end_lineno, f"{p.at} is not in {step.name}"
    else:  # in a function the hook calls at line `via`
        assert p.via is not None and hook.lineno <= p.via <= hook.end_lineno, f"line {p.via} is not in {step.name}"
        callee = enclosing_function(p.file, p.line).name
        called = (sglang_root() / "srt" / step.module).read_text().splitlines()[p.via - 1]
        for call in reversed(p.calls):  # nested calls (Position.calls): each in the function the one before calls
            line = (sglang_root() / "srt" / p.file).read_text().splitlines()[call - 1]
            assert callee in line or (f"{p.file}:{call}" in CALLS_BY_FIELD and names_a_field(callee)), \
                f"{p.file}:{call} does not call {callee}"
            callee = enclosing_function(p.file, call).name
        if is_model_override(p.file, callee):  # reached through the registry of model overrides
            callee = "collect_model_override_declarations"
        assert callee in called or callee in reached(step.module, called), f"{step.module}:{p.via} does not call {callee}"
    found = statements_at(p.file, p.line)
    if isinstance(item, SettingsRule) and item.code in TYPE_ERRORS:  # SGLang compares a missing value: a TypeError
        assert any(isinstance(n, ast.Compare) and n.lineno == p.line for n in ast.walk(tree(p.file))), p.at
    elif isinstance(item, SettingsRule) and item.code in ZERO_DIVISIONS:
        assert any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.FloorDiv) and n.lineno == p.line
                   for n in ast.walk(tree(p.file))), p.at
    elif isinstance(item, SettingsRule):
        assert any(isinstance(s, ast.Raise | ast.Assert) for s in found), f"{p.at} is no raise or assert"
    else:
        assert isinstance(item, Derivation)
        assert any(is_declaration(s) for s in found), f"{p.at} is no declaration"
