"""A file met in a directory walk that launches SGLang but cannot be checked (issue 29, case 17): an error as
when it is named (exit 2, a ``file:line:col: error:`` line, a record in every machine format), since SGLang
would run it and a CI gate must not pass it; what is only a note, and what is passed over quietly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autofix.cli.commands import app
from autofix.report import FORMATS

SCRIPT = '#!/bin/bash\npython3 -m sglang.launch_server --model-path "m --tp 8\n'  # no closing quote
DOCKERFILE = 'FROM x\nCMD python3 -m sglang.launch_server --model-path "m\n'
WHY = "cannot read the shell script: unexpected end of file: no `\"' closes this `\"'"
BROKEN = {  # a walked file that launches SGLang, its name, its error's line:col, and the message
    "script": ("serve.sh", SCRIPT.encode(), "2:46", WHY),
    "dockerfile": ("Dockerfile", DOCKERFILE.encode(), "2:50", WHY),
    "not-utf8": ("serve.sh", b"# caf\xe9\n" + SCRIPT.replace('"m', "m").encode(), "1:6", "not UTF-8 text (byte 0xe9)"),
    "manifest": ("pod.yaml", b"containers:\n- command: [python3, -m, sglang.launch_server\n  args: [x\n", None,
                 "invalid YAML"),
}


def run(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="autofix")


def unchecked(fmt: str, out: str) -> list[tuple[str, int | None]]:
    """The (path, line) of each input the format's document says could not be checked."""
    if fmt in ("json", "json-lines"):
        objects = json.loads(out) if fmt == "json" else [json.loads(line) for line in out.splitlines()]
        return [(o["filename"], o["location"]["row"]) for o in objects if o["code"] is None]
    if fmt == "sarif":
        (invocation,) = json.loads(out)["runs"][0]["invocations"]
        assert invocation["executionSuccessful"] is False
        return [(n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                 n["locations"][0]["physicalLocation"]["region"]["startLine"])
                for n in invocation["toolExecutionNotifications"]]
    if fmt == "rdjson":
        return [(d["location"]["path"], d["location"]["range"]["start"]["line"])
                for d in json.loads(out)["diagnostics"] if "code" not in d]
    if fmt == "gitlab":
        return [(i["location"]["path"], i["location"]["lines"]["begin"]) for i in json.loads(out)
                if i["check_name"] == "could-not-check"]
    if fmt == "github":
        return [(line.split("file=")[1].split(",")[0], int(line.split(",line=")[1].split(",")[0]))
                for line in out.splitlines() if "title=autofix%3A could not check" in line]
    return []


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", BROKEN)
def test_a_walked_launch_that_cannot_be_checked_is_an_error(tmp_path, monkeypatch, case, fmt):
    name, data, at, why = BROKEN[case]
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / name).write_bytes(data)
    (tmp_path / "d" / "ok.yaml").write_text("tp-size: 8\n")
    monkeypatch.chdir(tmp_path)
    r = run("d", "--output-format", fmt)
    assert r.exit_code == 2, r.output  # once: exit 0, "All checks passed!"
    (line,) = [line for line in r.stderr.splitlines() if line.startswith(f"d/{name}:")]
    assert f": error: {why}" in line and "(skipped)" not in line
    if at is not None:
        assert line.startswith(f"d/{name}:{at}: error: ")
    assert r.stderr.splitlines()[-1] == "No violations found. 1 file could not be checked."
    if fmt not in ("full", "concise"):
        assert [path for path, _ in unchecked(fmt, r.stdout)] == [f"d/{name}"]


def test_what_a_walk_only_notes_or_passes_over(tmp_path, monkeypatch):
    (tmp_path / "tool.sh").write_text('#!/bin/sh\necho "unclosed\n')  # launches nothing: quiet, parsed or not
    (tmp_path / "helm.yaml").write_text(  # a Helm template: what runs is what it renders to
        "containers:\n- args: [python3, -m, sglang.launch_server, --tp, {{ .Values.tp }}]\n  x: [\n")
    (tmp_path / "ci.yaml").write_text("on: [push]\njobs: {build: [\n")  # YAML that is no SGLang config: quiet
    monkeypatch.chdir(tmp_path)
    r = run(".", "--output-format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == []
    notes = [line for line in r.stderr.splitlines() if line.split(":")[0] in ("helm.yaml", "tool.sh", "ci.yaml")]
    assert notes == ["helm.yaml:4:1: warning: invalid YAML: while parsing a flow node, did not find expected node "
                     "content (skipped)"]


def test_the_named_script_is_the_same_error(tmp_path, monkeypatch):
    (tmp_path / "serve.sh").write_text(SCRIPT)
    monkeypatch.chdir(tmp_path)
    named, walked = run("serve.sh"), run(".")
    assert named.exit_code == walked.exit_code == 2
    assert named.stderr.replace("serve.sh", "X") == walked.stderr.replace("serve.sh", "X")
    assert Path("serve.sh").read_text() == SCRIPT


# --- --add-ignores decides as a check run does (issue 29, second round, finding 2) -------------------------------

def diagnosed(stderr: str) -> list[str]:
    """The error and warning lines of a run's stderr about files (not its closing line)."""
    return [line for line in stderr.splitlines() if ": error: " in line or ": warning: " in line]


@pytest.mark.parametrize("case", BROKEN)
def test_add_ignores_on_a_walked_launch_that_cannot_be_checked(tmp_path, monkeypatch, case):
    name, data, at, why = BROKEN[case]
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / name).write_bytes(data)
    (tmp_path / "d" / "ok.yaml").write_text("tp-size: 8\n")
    monkeypatch.chdir(tmp_path)
    check, add = run("d"), run("d", "--add-ignores")
    assert add.exit_code == check.exit_code == 2, add.output  # once: exit 0, "0 findings in 0 files"
    assert diagnosed(add.stderr) == diagnosed(check.stderr) and len(diagnosed(add.stderr)) == 1
    assert add.stderr.splitlines()[-1] == "Added suppressions for 0 findings in 0 files; 1 file could not be checked."
    assert (tmp_path / "d" / name).read_bytes() == data


def test_add_ignores_notes_and_passes_over_what_a_check_run_does(tmp_path, monkeypatch):
    """The tester's reproducer, and what a walk only notes or passes over, and a named file that is none of
    autofix's: the same lines and exit code as a check run, from the same decision (``triage.unchecked``)."""
    (tmp_path / "bad.yaml").write_text("tp-size: 8\n::bad\n")  # an SGLang config that is not YAML: an error
    (tmp_path / "bad.sh").write_text('python3 -m sglang.launch_server --tp 8 "x\n')  # an error
    (tmp_path / "tool.sh").write_text('#!/bin/sh\necho "unclosed\n')  # launches nothing: quiet
    (tmp_path / "helm.yaml").write_text(  # a template: a note
        "containers:\n- args: [python3, -m, sglang.launch_server, --tp, {{ .Values.tp }}]\n  x: [\n")
    (tmp_path / "ci.yaml").write_text("on: [push]\njobs: {build: [\n")  # YAML that is no SGLang config: quiet
    (tmp_path / "notes.txt").write_text("hello\n")
    monkeypatch.chdir(tmp_path)
    for args in ([".", "ci.yaml"], [".", "notes.txt"], ["."]):
        check, add = run(*args), run(*args, "--add-ignores")
        assert add.exit_code == check.exit_code == 2, add.output
        said = [sorted(line for line in r.stderr.splitlines() if line in diagnosed(r.stderr) or "skipped" in line)
                for r in (add, check)]  # a check run takes the scripts first
        assert said[0] == said[1]
    assert sorted(line.split(":")[0] for line in diagnosed(add.stderr)) == ["bad.sh", "bad.yaml", "helm.yaml"]
    assert add.stderr.splitlines()[-1] == "Added suppressions for 0 findings in 0 files; 2 files could not be checked."
    named = run("ci.yaml", "--add-ignores")  # pre-commit names every YAML file: not ours is a note, exit 0
    assert named.exit_code == 0 and "ci.yaml: skipped: not an SGLang config" in named.stderr
