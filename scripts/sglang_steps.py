"""SGLang's resolution steps, in the order it runs them, read from its source.

    python scripts/sglang_steps.py SGLANG_PACKAGE_DIR     # prints the list as JSON

``steps(root)`` reads ``srt/arg_groups/pipeline.py`` under ``root`` (the
``sglang`` package directory of an installed or unpacked release) with
``ast``, without importing SGLang, and lists every step of
``run_resolution_pipeline`` in source order: each ``run_hook(fn, ...)``
(``kind`` ``hook``), ``run_post_process_pass(..., fn)`` (``pass``) and bare
``fn(server_args)`` call (``call``). Then the steps SGLang runs after the
pipeline before a server starts (``ENGINE_STEPS``): ``check_server_args``
(``check``) and the publication of the runtime context, which validates the
parallel topology (``_configure_context``, ``publish``).

Each step is a dict: ``id`` (the function's name; ``name#2`` for its second
run), ``name``, ``kind``, ``module`` (the file that defines it, relative to
``srt/``), ``line`` (its ``def`` line there), ``call`` (the ``pipeline.py``
line that runs it), ``when`` (the condition of an enclosing ``if``, as
source text, or None) and ``model_only`` (True after the early return for
``--model-path dummy``/``none``: only runs when a model is named).

Used by ``scripts/gen_schema.py`` (the list ships in the schema JSON) and by
``tests/test_steps.py`` (the shipped list equals the installed SGLang's).
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

PIPELINE = "arg_groups/pipeline.py"
# After run_resolution_pipeline: Engine._launch_subprocesses (entrypoints/engine.py) checks the
# resolved arguments, then publishes them into the runtime context (which checks the parallel topology).
ENGINE_STEPS = (("check_server_args", "arg_groups/validation_hook.py", "check"),
                ("_configure_context", "runtime_context.py", "publish"))


def _module_path(module: str) -> str:
    """``sglang.srt.arg_groups.moe_hook`` -> ``arg_groups/moe_hook.py``."""
    prefix = "sglang.srt."
    if not module.startswith(prefix):
        raise ValueError(f"step module outside sglang.srt: {module}")
    return module[len(prefix):].replace(".", "/") + ".py"


def _def_line(root: Path, module: str, name: str) -> int:
    tree = ast.parse((root / "srt" / module).read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node.lineno
    raise ValueError(f"{module} defines no function {name}")


def _step_call(node: ast.Call) -> tuple[str, str] | None:
    """(kind, function name) of a pipeline statement's call, or None."""
    func = node.func
    if not isinstance(func, ast.Name):
        return None
    if func.id == "run_hook" and node.args and isinstance(node.args[0], ast.Name):
        return "hook", node.args[0].id
    if func.id == "run_post_process_pass" and len(node.args) > 1 and isinstance(node.args[1], ast.Name):
        return "pass", node.args[1].id
    if len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id == "server_args":
        return "call", func.id
    return None


def steps(root: Path) -> list[dict]:
    """The step list of the SGLang package at ``root`` (see the module docstring).

    Raises ``ValueError`` when the source does not have the expected shape.
    """
    root = Path(root)
    tree = ast.parse((root / "srt" / PIPELINE).read_text())
    imported = {a.asname or a.name: n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                for a in n.names if n.module}
    [fn] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "run_resolution_pipeline"]
    out: list[dict] = []
    seen: dict[str, int] = {}
    state = {"model_only": False}

    def visit(body: list[ast.stmt], when: str | None) -> None:
        for stmt in body:
            if isinstance(stmt, ast.If):
                cond = ast.unparse(stmt.test)
                if any(isinstance(s, ast.Return) for s in stmt.body):  # the dummy-model early return
                    visit([s for s in stmt.body if not isinstance(s, ast.Return)], cond)
                    state["model_only"] = True
                else:
                    visit(stmt.body, cond if when is None else f"({when}) and ({cond})")
                continue
            if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
                continue
            found = _step_call(stmt.value)
            if found is None:
                continue
            kind, name = found
            if name not in imported:
                raise ValueError(f"pipeline.py:{stmt.lineno}: {name} is not imported by name")
            module = _module_path(imported[name])
            seen[name] = seen.get(name, 0) + 1
            out.append({
                "id": name if seen[name] == 1 else f"{name}#{seen[name]}",
                "name": name,
                "kind": kind,
                "module": module,
                "line": _def_line(root, module, name),
                "call": stmt.lineno,
                "when": when,
                "model_only": state["model_only"],
            })

    visit(fn.body, None)
    for name, module, kind in ENGINE_STEPS:
        out.append({"id": name, "name": name, "kind": kind, "module": module,
                    "line": _def_line(root, module, name), "call": None, "when": None, "model_only": False})
    return out


if __name__ == "__main__":
    json.dump(steps(Path(sys.argv[1])), sys.stdout, indent=1)
    sys.stdout.write("\n")
