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
