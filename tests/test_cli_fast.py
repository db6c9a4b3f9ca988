"""``autofix PATH...`` runs without typer (``autofix.cli.main``) and must say exactly what the typer ``check``
command says: the same defaults, the same stdout, stderr and exit code."""

from __future__ import annotations

import dataclasses
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autofix.cli import main as cli
from autofix.cli.checking import Request
from autofix.cli.commands import app, check

ROOT = Path(__file__).resolve().parent.parent

# The check option whose parameter is named otherwise than its Request field (``check`` is the command)
_FIELD = {"check_only": "check"}


def test_the_check_options_default_to_the_request_defaults():
    # the fast path builds Request(paths=...): every other field must be what typer passes for an unset option
    fields = {f.name: f.default for f in dataclasses.fields(Request)}
    params = {_FIELD.get(name, name): p.default for name, p in inspect.signature(check).parameters.items()
              if name not in ("paths", "version")}
    assert params == {name: default for name, default in fields.items() if name != "paths"}
    assert fields["paths"] is dataclasses.MISSING


def test_the_sub_commands_are_the_typer_apps():
    import typer.main

    assert set(cli.COMMANDS) == set(typer.main.get_command(app).commands)


@pytest.mark.parametrize(("args", "plain"), [
    (["a.yaml"], True), (["a.yaml", "dir", "-"], True), (["-"], True), (["./rules"], True),
    ([], False), (["rules"], False), (["check", "a.yaml"], False), (["explain", "EP003"], False),
    (["a.yaml", "--check"], False), (["-j2", "a.yaml"], False), (["--", "a.yaml"], False),
    (["--version"], False), (["-h"], False),
])
def test_only_a_command_line_of_paths_takes_the_fast_path(args, plain):
    assert cli._paths_only(args) is plain


def test_a_shell_completion_request_goes_to_click(monkeypatch):
    monkeypatch.setenv("_AUTOFIX_COMPLETE", "bash_complete")
    assert not cli._paths_only(["a.yaml"])


# A child process running main(), either as installed or with the fast path turned off; it says whether typer
# was loaded, on its last stderr line
_CHILD = """
import sys
from autofix.cli import main as cli
if sys.argv[1] == "typer":
    cli._paths_only = lambda args: False
sys.argv = ["autofix", *sys.argv[2:]]
try:
    cli.main()
finally:
    print("typer loaded:", "typer" in sys.modules, file=sys.stderr)
"""


def _run(how: str, args: list[str], cwd: Path, stdin: str = "", env: dict[str, str] | None = None):
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOFIX_", "GITHUB_", "FORCE_COLOR"))}
    environ.update(env or {}, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", _CHILD, how, *args], input=stdin, capture_output=True,
                          text=True, cwd=cwd, env=environ, timeout=120)
    *err, loaded = proc.stderr.splitlines(keepends=True)
    return proc.returncode, proc.stdout, "".join(err), loaded.strip()


CLEAN = "model-path: meta-llama/Llama-3.1-8B-Instruct\ntp-size: 2\n"
BAD = "model-path: m\nenable-eplb: true\nep-size: 1\ntp-size: 2\nspeculative-algorithm: nope\n"


@pytest.mark.parametrize(("case", "args", "stdin", "env", "fast"), [
    ("clean", ["clean.yaml"], "", {}, True),
    ("violations", ["bad.yaml"], "", {}, True),
    ("bad YAML", ["broken.yaml"], "", {}, True),
    ("missing file", ["missing.yaml"], "", {}, True),
    ("directory", ["configs", "clean.yaml"], "", {}, True),
    ("stdin", ["-"], BAD, {}, True),
    ("json from the environment", ["bad.yaml", "clean.yaml"], "", {"AUTOFIX_OUTPUT_FORMAT": "json"}, True),
    ("project settings", ["project/bad.yaml"], "", {}, True),
    ("bad format in the environment", ["bad.yaml"], "", {"AUTOFIX_OUTPUT_FORMAT": "yaml"}, False),
    ("bad settings beside the file", ["broken-project/clean.yaml"], "", {}, True),
    ("bad settings in the working directory", ["clean.yaml"], "", {}, False),
])
def test_the_fast_path_prints_what_typer_prints(tmp_path, case, args, stdin, env, fast):
    (tmp_path / "clean.yaml").write_text(CLEAN)
    (tmp_path / "bad.yaml").write_text(BAD)
    (tmp_path / "broken.yaml").write_text("model-path: [m\n")
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "one.yaml").write_text(BAD)
    (tmp_path / "configs" / "two.yaml").write_text(CLEAN)
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "pyproject.toml").write_text('[tool.autofix]\noutput-format = "concise"\n'
                                                        'ignore = ["SPEC"]\n')
    (tmp_path / "project" / "bad.yaml").write_text(BAD)
    (tmp_path / "broken-project").mkdir()
    (tmp_path / "broken-project" / "pyproject.toml").write_text('[tool.autofix]\nno-such-key = 1\n')
    (tmp_path / "broken-project" / "clean.yaml").write_text(CLEAN)
    cwd = tmp_path / "broken-project" if case.endswith("working directory") else tmp_path
    code, out, err, loaded = _run("fast", args, cwd, stdin, env)
    assert (code, out, err) == _run("typer", args, cwd, stdin, env)[:3]
    assert loaded == f"typer loaded: {not fast}", (case, code, err)
    assert code in (0, 1, 2) and (out or err)
