"""Every adapter module implements ``contract.Adapter`` whole, with the Protocol's signatures (issue 30).

The core and the command line take an ``Adapter``, never a module's name: a member missing from one module
(``looks_like_config`` once was, read through ``getattr``), or one with other parameters, would fail here
rather than at the first file of that kind. mypy checks the same where each module is used as an ``Adapter``.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import autofix
from autofix.adapters import NAMES, by_name
from autofix.adapters.contract import Adapter, Editor

MODULES = {name: by_name(name) for name in NAMES}


def _methods(protocol: type) -> dict[str, inspect.Signature]:
    """The Protocol's methods (its own and its bases'), each signature without ``self``."""
    out = {}
    for cls in reversed(protocol.__mro__):
        if cls in (Adapter, Editor):
            for name, member in vars(cls).items():
                if inspect.isfunction(member) and not name.startswith("_"):
                    sig = inspect.signature(member, eval_str=True)
                    out[name] = sig.replace(parameters=list(sig.parameters.values())[1:])
    return out


def _attributes(protocol: type) -> set[str]:
    return {name for cls in (Adapter, Editor) for name in inspect.get_annotations(cls)}


def test_the_protocol_is_what_the_core_reads():
    assert set(_methods(Adapter)) == {"read", "edit", "edit_entries", "comments", "looks_like_config",
                                      "config_argument"}
    assert _attributes(Adapter) == {"NAME", "SOURCE", "CONFIG_FILES"}


def _differences(module: types.ModuleType) -> list[str]:
    """What ``module`` lacks of ``Adapter``, or has with another signature (parameters, defaults, annotations)."""
    out = []
    for member, expected in _methods(Adapter).items():
        if not hasattr(module, member):
            out.append(f"no {member}")
        elif inspect.signature(getattr(module, member), eval_str=True) != expected:
            out.append(f"{member}{inspect.signature(getattr(module, member))} is not {member}{expected}")
    out.extend(f"no {name}" for name in _attributes(Adapter) if not hasattr(module, name))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_each_adapter_has_every_member_with_its_signature(name):
    module = MODULES[name]
    assert _differences(module) == []
    assert module.NAME == name
    assert module.SOURCE in ("config", "command", "recipe")
    assert module.CONFIG_FILES is None or module.CONFIG_FILES in MODULES.values()


def test_a_module_that_lacks_a_member_or_differs_is_named():
    # the shell adapter as it was: no looks_like_config (read through getattr), no CONFIG_FILES, and a read
    # with the inner reader's parameters
    stale = types.ModuleType("stale")
    shell = MODULES["shell"]
    for member in ("NAME", "SOURCE", "edit", "edit_entries", "comments", "config_argument"):
        setattr(stale, member, getattr(shell, member))
    stale.read = shell.read_script
    assert _differences(stale) == [
        f"read{inspect.signature(shell.read_script)} is not read{_methods(Adapter)['read']}",
        "no looks_like_config", "no CONFIG_FILES"]


def test_only_the_shell_adapter_reads_config_files():
    """What differs between adapters is a member: the shell's launches read their ``--config`` file, as YAML."""
    assert {name for name, m in MODULES.items() if m.CONFIG_FILES is not None} == {"shell"}
    assert MODULES["shell"].CONFIG_FILES is MODULES["yaml"]


def _mypy(tmp_path, source: str) -> tuple[int, str]:
    """mypy --strict's status and report on a module of ``source`` (the autofix modules it imports: silent). Run
    in its own process: mypy's main raises the interpreter's recursion limit for good, which would change what
    this process's ``json.loads`` reads (``tests/oracle/test_argtypes.py``). mypy is a test dependency."""
    (tmp_path / "use.py").write_text(source, encoding="utf-8")
    env = {**os.environ, "MYPYPATH": str(Path(autofix.__file__).parent.parent)}
    done = subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent", f"--cache-dir={os.devnull}",
                           "--strict", str(tmp_path / "use.py")], capture_output=True, text=True, env=env,
                          cwd=tmp_path)
    return done.returncode, done.stdout + done.stderr


def test_mypy_accepts_each_module_where_an_adapter_is_expected(tmp_path):
    status, report = _mypy(tmp_path, """
from autofix.adapters import argv, dockerfile, manifest, srtslurm, yaml_config
from autofix.adapters.contract import Adapter

ADAPTERS: tuple[Adapter, ...] = (yaml_config, argv, srtslurm, manifest, dockerfile)
""")
    assert status == 0, report


def test_mypy_refuses_a_module_that_lacks_a_member(tmp_path):
    # the shell adapter as it was: no looks_like_config (read through getattr)
    (tmp_path / "stale.py").write_text("""
from autofix.adapters.argv import (CONFIG_FILES, NAME, SOURCE, comments, config_argument, edit, edit_entries,
                                   read)
""", encoding="utf-8")
    status, report = _mypy(tmp_path, """
import stale
from autofix.adapters.contract import Adapter

ADAPTER: Adapter = stale
""")
    assert status == 1 and 'Incompatible types in assignment (expression has type Module, variable has type "Adapter")' \
        in report, report
