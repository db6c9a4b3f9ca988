"""The command line, in-process: exit codes, --write, stdin, bad input, directories."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autofix.cli.commands import app
from autofix.explain.rule_docs import rule_record
from autofix.rules import RULES, get

BAD = "tp-size: 8\nmoe-a2a-backend: none  # single node\nep-dispatch-algorithm: static\n"
GOOD = BAD.replace("static", "dynamic")
MARLIN = "tp-size: 8\nmoe-runner-backend: experimental_sgl_marlin\nmoe-a2a-backend: deepep\nep-dispatch-algorithm: static\n"


def run(*args, input=None):
    return CliRunner().invoke(app, list(args), input=input, prog_name="autofix")


@pytest.fixture
def cfg(tmp_path):
    def make(text: str, name: str = "config.yaml") -> Path:
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode())
        return p

    return make


def test_clean_file_exits_0(cfg):
    r = run(str(cfg(GOOD)))
    assert r.exit_code == 0
    assert r.stdout == ""
    assert "All checks passed!" in r.stderr


def test_dry_run_reports_and_prints_the_diff_and_exits_1(cfg):
    p = cfg(BAD)
    r = run(str(p))
    assert r.exit_code == 1
    assert f"{p}:3:1: error: EP003 [*] --ep-dispatch-algorithm static needs an a2a backend" in r.stdout
    assert "-ep-dispatch-algorithm: static\n+ep-dispatch-algorithm: dynamic\n" in r.stdout
    assert p.read_text() == BAD


def test_write_fixes_in_place_and_exits_0(cfg):
    p = cfg(BAD)
    r = run(str(p), "--write")
    assert r.exit_code == 0, r.output
    assert p.read_text() == GOOD
    assert f"Fixed 1 violation in {p}" in r.stderr
    assert run(str(p)).exit_code == 0


def test_write_keeps_the_mode_and_leaves_no_temp_file(cfg):
    p = cfg(BAD)
    p.chmod(0o640)
    run(str(p), "--write")
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    assert sorted(x.name for x in p.parent.iterdir()) == ["config.yaml"]


def test_unchanged_file_is_not_rewritten(cfg):
    p = cfg(GOOD)
    before = p.stat()
    run(str(p), "--write")
    after = p.stat()
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


def test_unsafe_fix_is_held_back_without_the_flag(cfg):
    p = cfg(MARLIN)
    r = run(str(p), "--write")
    assert r.exit_code == 1
    assert p.read_text() == MARLIN
    assert "RUN019" in r.stdout
    assert "1 more fixable with --unsafe-fixes" in r.stderr


def test_unsafe_fixes_run_to_a_fixpoint(cfg):
    p = cfg(MARLIN)
    r = run(str(p), "--write", "--unsafe-fixes")
    assert r.exit_code == 0, r.output
    assert p.read_text() == (
        "tp-size: 8\nmoe-runner-backend: experimental_sgl_marlin\nmoe-a2a-backend: none\n"
        "ep-dispatch-algorithm: dynamic\nep-size: 8\n"
    )


def test_stdin_dry_run_prints_only_the_diff_on_stdout():
    r = run("-", input=BAD)
    assert r.exit_code == 1
    assert r.stdout.startswith("--- a/-\n+++ b/-\n")
    assert "-:3:1: error: EP003" in r.stderr


def test_stdin_write_prints_the_fixed_text():
    r = run("-", "--write", input=BAD)
    assert r.exit_code == 0
    assert r.stdout == GOOD


def test_stdin_shell_launch_with_filename():
    r = run("-", "--write", "--stdin-filename", "serve.sh",
            input="python -m sglang.launch_server --tp 8 --ep-dispatch-algorithm lp\n")
    assert r.stdout == "python -m sglang.launch_server --tp 8 --ep-dispatch-algorithm dynamic\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tp-size: [8\n", "config.yaml:2:1: error: invalid YAML"),
        ("- tp-size: 8\n", "config.yaml:1:1: error: an SGLang config must be a mapping at the top level, not a list"),
        ("tp-size: 8\n\xff\n", None),
        ("tp-size: 8\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
         + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)),
         "config.yaml:7:10: error: YAML aliases expand to more than 200,000 values (alias *a4 here); "
         "autofix does not read further"),
        ("tp-size: 8\ncuda-graph-bs-decode: " + "[" * 450 + "\n",
         "config.yaml:2:422: error: YAML collections nested more than 400 levels deep"),
    ],
    ids=["malformed", "list-root", "not-utf8", "alias-bomb", "too-deep"],
)
def test_bad_input_exits_2_names_the_position_and_keeps_the_file(tmp_path, text, message):
    p = tmp_path / "config.yaml"
    data = text.encode("latin-1")
    p.write_bytes(data)
    other = tmp_path / "other.yaml"
    other.write_text(BAD)
    r = run(str(p), str(other), "--write")
    assert r.exit_code == 2
    assert p.read_bytes() == data
    assert other.read_text() == GOOD  # the other file is still processed
    shown = r.stderr.replace(str(tmp_path) + "/", "")
    assert (message or "config.yaml:2:1: error: not UTF-8 text") in shown


def test_missing_file_exits_2(tmp_path):
    r = run(str(tmp_path / "nope.yaml"))
    assert r.exit_code == 2
    assert "nope.yaml:1:1: error: cannot read" in r.stderr


def test_named_file_that_is_no_config_exits_2(cfg):
    r = run(str(cfg("hello\n", "notes.txt")))
    assert r.exit_code == 2
    assert "runs no SGLang launch" in r.stderr


def test_directory_walk_checks_configs_and_launch_scripts_and_skips_the_rest(tmp_path, cfg):
    cfg(BAD, "a/config.yaml")
    cfg("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n", "a/pod.yaml")
    cfg("not: [valid\n", "a/broken.yaml")
    cfg("#!/bin/sh\necho hi\n", "b/other.sh")
    cfg("sglang serve m --ep-dispatch-algorithm static\n", "b/serve.sh")
    cfg(BAD, ".git/config.yaml")
    r = run(str(tmp_path))
    assert r.exit_code == 1
    lines = [line.replace(str(tmp_path) + "/", "") for line in r.stdout.splitlines() if ": EP" in line]
    # scripts first (a --config file is then seen through the launches that read it), then YAML
    assert lines == [
        "b/serve.sh:1:16: error: EP003 [*] --ep-dispatch-algorithm static needs an a2a backend, "
        "but --moe-a2a-backend resolves to none",
        "a/config.yaml:3:1: error: EP003 [*] --ep-dispatch-algorithm static needs an a2a backend, "
        "but --moe-a2a-backend resolves to none",
    ]


def test_write_path_spelled_first_or_last(cfg):
    p = cfg(BAD)
    assert run("--write", str(p)).exit_code == 0
    assert p.read_text() == GOOD


def test_rules_and_explain():
    r = run("rules")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert any(line.startswith("EP003   ep-dispatch-needs-a2a ") for line in lines)
    assert any(line.startswith("ARG001  unknown-option ") for line in lines)
    r = run("explain", "ep003")
    assert r.exit_code == 0
    assert r.stdout.startswith("# EP003 ep-dispatch-needs-a2a\n")
    assert "## Fix safety" in r.stdout
    r = run("explain", "NOPE1")
    assert r.exit_code == 1
    assert r.stdout.startswith("Not recognised: no rule code or name")


def test_rules_json_lists_every_rule():
    r = run("rules", "--output-format", "json")
    assert r.exit_code == 0
    records = json.loads(r.stdout)  # nothing else on stdout
    assert [x["code"] for x in records] == [rule.code for rule in RULES]
    assert records == [rule_record(rule) for rule in RULES]
    by_code = {x["code"]: x for x in records}
    assert {k: v for k, v in by_code["EP003"].items() if k not in ("summary", "fix_safety")} == {
        "code": "EP003", "name": "ep-dispatch-needs-a2a", "severity": "error",
        "sglang_source": "arg_groups/parallel_hook.py:783", "step": "handle_eplb_and_dispatch"}
    assert by_code["EP003"]["summary"] == get("EP003").summary
    assert (by_code["ARG001"]["step"], by_code["DEP001"]["severity"], by_code["A2A006"]["severity"]) == (
        None, "warning", "warning")
    assert all(x["fix_safety"] and "##" not in x["fix_safety"] for x in records)


def test_rules_text_is_the_default_and_a_bad_format_is_a_usage_error():
    assert run("rules").stdout == run("rules", "--output-format", "text").stdout
    assert run("rules", "--output-format", "yaml").exit_code == 2


def test_usage_error_exits_2():
    assert run("config.yaml", "--no-such-option").exit_code == 2


def test_cli_import_stays_light():
    heavy = ('yaml', 'tree_sitter', 'ruamel', 'autofix.core.engine', 'autofix.rules', 'autofix.explain.lookup',
             'autofix.explain.sites')
    for module, also in (("autofix.cli.commands", ()), ("autofix.cli.main", ("typer", "click"))):
        unwanted = heavy + also
        code = f"import sys, {module}; print(sorted(m for m in {unwanted} if m in sys.modules))"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
        assert out.stdout.strip() == "[]", module


def test_named_shell_script_without_a_launch_is_clean(cfg):
    r = run(str(cfg("#!/bin/sh\necho hi\n", "tool.sh")))
    assert r.exit_code == 0


def test_walk_notes_a_file_that_launches_sglang_but_cannot_be_read(tmp_path, cfg):
    cfg("args: [python3, -m, sglang.launch_server, --tp, {{ .Values.tp }}]\ncommand: x\n  bad: [\n", "t/helm.yaml")
    cfg("not: [valid\n", "t/broken.yaml")  # launches nothing: skipped without a word
    r = run(str(tmp_path))
    assert r.exit_code == 0, r.output
    notes = [line for line in r.stderr.splitlines() if line.endswith("(skipped)")]
    assert len(notes) == 1 and "helm.yaml:" in notes[0] and "invalid YAML" in notes[0]


def test_a_named_file_that_launches_nothing_is_skipped_with_a_note(tmp_path, cfg):
    p = cfg('FROM x\nCMD ["echo", "sglang.launch_server"]\n', "Dockerfile")
    r = run(str(p))
    assert r.exit_code == 0 and r.stdout == ""
    assert f"{p}: skipped: no SGLang launch found" in r.stderr
