"""What the GitHub Actions runner reads in autofix's output (issue 29, case 6): the annotations autofix means,
and no command a file's name or text makes, on stdout or stderr, in the github format or in any format of a
run in Actions (``GITHUB_ACTIONS=true``). Real processes, read with a model of the runner
(``tests/report/actions_runner.py``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.report.actions_runner import Runner

ROOT = Path(__file__).resolve().parent.parent
BAD = "tp-size: 8\nmoe-a2a-backend: none\nep-dispatch-algorithm: static\n"
FAKE = "::error file=README.md,line=1::FAKE.yaml"


def autofix(*args: str, cwd: Path, actions: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(PYTHONPATH=str(ROOT), **({"GITHUB_ACTIONS": "true"} if actions else {}))
    return subprocess.run([sys.executable, "-m", "autofix", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=60, env=env)


def commands(r: subprocess.CompletedProcess) -> list[tuple[str, dict, str]]:
    """What the runner runs of the step's output, whichever stream it reads first (it reads the two
    separately), both orders giving the same."""
    first = Runner().feed(r.stderr).feed(r.stdout).commands
    assert Runner().feed(r.stdout).feed(r.stderr).commands == first
    return first


@pytest.mark.parametrize("actions", [False, True], ids=["", "GITHUB_ACTIONS"])
def test_a_file_named_like_a_workflow_command_past_the_cap(tmp_path, actions):
    """The issue's reproducer: past the 10 annotations, a finding's log line starts with the file's name."""
    for i in range(12):
        (tmp_path / f"{i:02d}.yaml").write_text(BAD)
    (tmp_path / FAKE).write_text(BAD)  # sorts after the digits: the 13th finding, a log line
    r = autofix(".", "--output-format", "github", cwd=tmp_path, actions=actions)
    assert r.returncode == 1, r.stderr
    ran = commands(r)
    assert [(name, props["file"]) for name, props, _ in ran] == [("error", f"{i:02d}.yaml") for i in range(10)]
    assert f"\n{FAKE}:3:1: error: EP003 " in r.stdout  # still printed, as text


def test_stderr_of_the_github_format(tmp_path):
    name = "##[error]bad.yaml"
    (tmp_path / name).write_text("tp-size: [8\nep-size: 8\n")  # an SGLang config that is not YAML
    r = autofix(name, "--output-format", "github", cwd=tmp_path, actions=False)
    assert r.returncode == 2
    assert f"{name}:2:8: error: invalid YAML" in r.stderr
    assert [(n, props["file"], props["title"]) for n, props, _ in commands(r)] == [
        ("error", name, "autofix: could not check")]


@pytest.mark.parametrize("mode", [[], ["--write"], ["--diff"], ["--output-format", "concise"]],
                         ids=["full", "write", "diff", "concise"])
def test_any_format_in_actions(tmp_path, mode):
    (tmp_path / "::warning::w ##[error]x.yaml").write_text(BAD)
    (tmp_path / "c.yaml").write_text(BAD.replace("tp-size: 8\n", "tp-size: 8\n# ##[error]fake\nserved-model-name: |\n"
                                                                  "  ::add-mask::x\n"))  # the diff shows them
    r = autofix(".", *mode, cwd=tmp_path, actions=True)
    assert r.returncode in (0, 1), r.stderr
    assert commands(r) == []
    assert "::warning::w ##[error]x.yaml" in r.stdout + r.stderr
    plain = autofix(".", *mode, cwd=tmp_path, actions=False) if mode != ["--write"] else None
    if plain is not None:  # outside Actions, the same report, without the stop-commands lines
        assert "stop-commands" not in plain.stdout + plain.stderr
        assert [line for line in r.stdout.splitlines() if not line.startswith("::")] == [
            line for line in plain.stdout.splitlines() if not line.startswith("::")]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_guarded_diff_still_applies(tmp_path):
    src = "tp-size: 8\nmoe-a2a-backend: none\n# ##[error]fake\nep-dispatch-algorithm: static\n"
    (tmp_path / "c.yaml").write_text(src)
    (tmp_path / "d.yaml").write_text(BAD)
    r = autofix(".", "--diff", cwd=tmp_path, actions=True)
    assert r.returncode == 1 and "::stop-commands::" in r.stdout
    (tmp_path / "fix.patch").write_text(r.stdout)
    subprocess.run(["git", "apply", "-p1", "fix.patch"], cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "c.yaml").read_text() == src.replace("static", "dynamic")
    assert (tmp_path / "d.yaml").read_text() == BAD.replace("static", "dynamic")


def test_a_configuration_error_in_actions(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.autofix]\nselect = ["##[error]x"]\n')
    (tmp_path / "c.yaml").write_text(BAD)
    r = autofix("c.yaml", cwd=tmp_path, actions=True)
    assert r.returncode == 2 and "names no rule" in r.stderr
    assert commands(r) == []


# --- every other path autofix prints by (issue 29, second round, finding 1) --------------------------------------

HOSTILE = ["x##[error]FAKE.yaml", f"nl\n{FAKE}", "cr\r::warning::CR.yaml"]


def run_python(code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``autofix ARGS`` run by ``autofix.cli.main`` after ``code`` (which replaces something to fail), in Actions."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(PYTHONPATH=str(ROOT), GITHUB_ACTIONS="true")
    script = f"import sys\n{code}\nfrom autofix.cli.main import main\nsys.argv = ['autofix', *{list(args)!r}]\nmain()\n"
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=cwd, timeout=60,
                          env=env)


def test_add_ignores_in_actions(tmp_path):
    """The tester's reproducer: --add-ignores printed each name raw, outside any stop-commands region."""
    (tmp_path / ".git").mkdir()
    for name in HOSTILE:
        (tmp_path / name).write_text(BAD)
    r = autofix(".", "--add-ignores", cwd=tmp_path, actions=True)
    assert r.returncode == 0, r.stderr
    assert commands(r) == []  # once: an ::error annotation on README.md, a ::warning, an ##[error]
    assert "Added suppressions for 3 findings in 3 files." in r.stderr
    for shown in ["x##[error]FAKE.yaml", f"nl\\n{FAKE}", "cr\\r::warning::CR.yaml"]:  # a line break as \n
        assert f"Added suppressions for 1 finding in {shown}\n" in r.stderr


@pytest.mark.parametrize("args", [
    ["c.yaml", "--select", f"##[error]x\n{FAKE}"],  # a usage error (typer and click word it)
    ["c.yaml", "--output-format", "##[error]x"],
    ["c.yaml", "--##[error]x"],  # an option click does not know
    ["c.yaml", "--config-file", "##[error]x.toml"],  # a configuration file that cannot be read
    ["explain", 'File "/x/sglang/srt/##[error]x.py", line 3, in f\nValueError: nothing known'],
], ids=["select", "output-format", "option", "config-file", "explain"])
def test_usage_and_other_commands_in_actions(tmp_path, args):
    (tmp_path / "c.yaml").write_text(BAD)
    r = autofix(*args, cwd=tmp_path, actions=True)
    assert r.returncode in (1, 2), r.stderr
    assert commands(r) == []
    assert "##[error]x" in r.stdout + r.stderr  # still shown, as text


@pytest.mark.parametrize("verbose", [False, True], ids=["", "verbose"])
def test_the_last_resort_error_in_actions(tmp_path, verbose):
    """A failure outside any one file: one error line (with --verbose, the traceback too), guarded."""
    (tmp_path / "c.yaml").write_text(BAD)
    code = (f"import autofix.cli.checking\ndef boom(*a, **k):\n    raise ValueError({f'##[error]x{chr(10)}{FAKE}'!r})\n"
            "autofix.cli.checking.prepare = boom")
    r = run_python(code, "c.yaml", "--check", *(["--verbose"] if verbose else []), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert commands(r) == []
    assert f"autofix: internal error: ValueError: ##[error]x\\n{FAKE} (please report this" in r.stderr
    assert ("Traceback (most recent call last):" in r.stderr) is verbose

