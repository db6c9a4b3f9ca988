"""A shell launch with ``--config FILE`` plus flags is one launch, merged as SGLang merges them.

The file's settings come first and the command line's flags win
(``ConfigArgumentMerger`` in ``sglang/srt/utils/server_args_config_parser.py``);
each diagnostic points at the file the effective value is written in, and
its fix goes there. ``sglang`` / ``fixed`` are SGLang 0.5.23's verdicts on
the input and on autofix's output, measured with ../shared/oracle
(``check.py --no-warnings --config FILE -- FLAGS``; 8x H200, DeepSeek-V3),
written as in tests/rules/arg_cases.py (``ok`` or where SGLang raised).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autofix import files
from autofix.api import fix_source
from autofix.cli import app
from autofix.formats import argv as shell

LAUNCH = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "
EP003 = "sglang/srt/arg_groups/parallel_hook.py:783"
EP004 = "sglang/srt/arg_groups/parallel_hook.py:791"


@dataclass(frozen=True)
class MergeCase:
    id: str
    flags: str  # after LAUNCH, ``--config c.yaml`` included
    config: str
    found: tuple[str, ...]  # "path CODE line:col", in report order (script first, then the config)
    script_out: str | None  # the flags after fixing (None: unchanged)
    config_out: str | None  # the config after fixing (None: unchanged)
    sglang: str
    fixed: str = "ok"
    unsafe: bool = False


CASES = [
    MergeCase("value-in-config", "--config c.yaml --tp 8", "tp-size: 8\nep-dispatch-algorithm: static\n",
              ("c.yaml EP003 2:1",), None, "tp-size: 8\nep-dispatch-algorithm: dynamic\n", EP003),
    MergeCase("command-line-overrides-config", "--config c.yaml --ep-dispatch-algorithm lp",
              "tp-size: 8\nep-dispatch-algorithm: static\n", ("a.sh EP003 1:85",),
              "--config c.yaml --ep-dispatch-algorithm dynamic", None, EP003),
    MergeCase("flags-before-config-win-too", "--ep-dispatch-algorithm dynamic --config c.yaml",
              "ep-dispatch-algorithm: static\n", (), None, None, "ok"),
    MergeCase("flag-before-config-wins-too", "--ep-dispatch-algorithm static --config c.yaml",
              "ep-dispatch-algorithm: dynamic\n", ("a.sh EP003 1:69",),
              "--ep-dispatch-algorithm dynamic --config c.yaml", None, EP003),
    MergeCase("config-value-made-valid-by-command-line", "--config c.yaml --moe-a2a-backend deepep",
              "ep-dispatch-algorithm: static\n", (), None, None, "ok"),
    MergeCase("added-flag-goes-to-script", "--config c.yaml", "tp-size: 8\nenable-eplb: true\n",
              ("c.yaml EP004 2:1",), "--config c.yaml --ep-size 8", None, EP004, unsafe=True),
    MergeCase("removal-removes-both", "--config c.yaml --enable-eplb", "tp-size: 1\nenable-eplb: true\n",
              ("a.sh EP004 1:85",), "--config c.yaml", "tp-size: 1\n", EP004, unsafe=True),
    MergeCase("cross-file-value-not-repeated", "--config c.yaml --tp 8", "tp-size: 4\n", (), None, None, "ok"),
]


def _write(tmp_path: Path, case: MergeCase) -> tuple[Path, Path]:
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + case.flags + "\n")
    config = tmp_path / "c.yaml"
    config.write_text(case.config)
    return script, config


def _check(script: Path, unsafe: bool = False):
    return fix_source(script.read_text(), shell, path=str(script), unsafe=unsafe, read_config=files.read_if_file)


def _found(result, tmp_path: Path) -> tuple[str, ...]:
    out = []
    for r in (result, *result.others):
        for d in r.diagnostics:
            out.append(f"{os.path.relpath(d.path, tmp_path)} {d.code} {d.location.line}:{d.location.col}")
    return tuple(out)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_merge(tmp_path, case):
    script, config = _write(tmp_path, case)
    result = _check(script, case.unsafe)
    # the script's own diagnostics, then each config's (the order the CLI prints them in is config first)
    assert _found(result, tmp_path) == tuple(sorted(case.found, key=lambda f: not f.startswith("a.sh")))
    assert result.output == (LAUNCH + (case.script_out or case.flags) + "\n")
    assert [o.path for o in result.others] == [str(config)]
    assert result.others[0].output == (case.config_out or case.config)
    assert (case.sglang == "ok") == (not case.found)


def test_config_diagnostic_names_the_config_file(tmp_path):
    script, config = _write(tmp_path, CASES[0])
    result = _check(script)
    assert result.diagnostics == ()
    [d] = result.others[0].diagnostics
    assert d.path == str(config) and (d.location.line, d.location.col) == (2, 1)
    assert d.fixable
    assert result.others[0].launches == 0


def test_relative_to_the_launching_file(tmp_path):
    (tmp_path / "deploy" / "conf").mkdir(parents=True)
    script = tmp_path / "deploy" / "run.sh"
    script.write_text(LAUNCH + "--config conf/c.yaml\n")
    (tmp_path / "deploy" / "conf" / "c.yaml").write_text("ep-dispatch-algorithm: static\n")
    result = _check(script)
    assert [o.path for o in result.others] == [str(tmp_path / "deploy" / "conf" / "c.yaml")]
    assert [d.code for d in result.others[0].diagnostics] == ["EP003"]


def test_config_keys_are_judged_as_config_keys_once(tmp_path):
    """The file's argparse stage runs as when it is checked alone (``tp_size`` is ARG001 as a key)."""
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + "--config c.yaml\n" + LAUNCH + "--config c.yaml --tp 2\n")
    (tmp_path / "c.yaml").write_text("tp_size: 8\n")
    result = _check(script)
    [other] = result.others
    assert [(d.code, d.location.line) for d in other.diagnostics] == [("ARG001", 1)]
    assert other.output == "tp-size: 8\n"
    assert result.diagnostics == () and result.output == script.read_text()


def test_shared_config_fixes_go_to_each_command_line(tmp_path):
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + "--config c.yaml\n" + LAUNCH + "--config c.yaml --tp 2\n")
    (tmp_path / "c.yaml").write_text("ep-dispatch-algorithm: static\n")
    result = _check(script)
    assert result.others[0].output == "ep-dispatch-algorithm: static\n"
    assert result.output == (LAUNCH + "--config c.yaml --ep-dispatch-algorithm dynamic\n"
                             + LAUNCH + "--config c.yaml --tp 2 --ep-dispatch-algorithm dynamic\n")
    # one diagnostic in the file for both launches
    assert [d.code for d in result.others[0].diagnostics] == ["EP003"]


def test_equals_form_is_not_merged(tmp_path):
    """``--config=FILE``: SGLang ignores the file (CFG005); once fixed, the file's findings appear.

    Oracle: ``-- --config=c.yaml`` is ``ok`` (the file is not read); the fixed
    pair (``--config c.yaml``, ``dynamic``) is ``ok``; ``--config c.yaml`` with
    the file as written refuses at EP003's place.
    """
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + "--config=c.yaml\n")
    (tmp_path / "c.yaml").write_text("ep-dispatch-algorithm: static\n")
    result = _check(script)
    assert [d.code for d in result.diagnostics] == ["CFG005"]
    assert result.found == 1
    [d] = result.others[0].diagnostics
    assert d.code == "EP003" and d.after == ("CFG005",)
    assert result.others[0].found == 0
    assert result.output == LAUNCH + "--config c.yaml\n"
    assert result.others[0].output == "ep-dispatch-algorithm: dynamic\n"


@pytest.mark.parametrize("flags", ["--config missing.yaml --ep-dispatch-algorithm static",
                                   "--config $CFG --ep-dispatch-algorithm static",
                                   "--config c.json --ep-dispatch-algorithm static"])
def test_unreadable_config_makes_the_rest_unknown(tmp_path, flags):
    """A file autofix cannot read may set anything: the command line's own findings that
    depend on an unwritten setting stay silent (the file could set ``--moe-a2a-backend``)."""
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + flags + "\n")
    result = _check(script)
    # a .json file is refused by its name alone (CFG007); nothing depends on what it holds
    assert [d.code for d in result.diagnostics] == (["CFG007"] if "c.json" in flags else [])
    assert result.others == ()
    assert result.output == script.read_text()


def test_without_a_reader_or_on_stdin_the_config_is_unknown(tmp_path):
    script, _ = _write(tmp_path, CASES[1])
    text = script.read_text()
    assert fix_source(text, shell, path=str(script)).diagnostics == ()
    assert fix_source(text, shell, path="-", read_config=files.read_if_file).diagnostics == ()
    # without --config the same flag is reported as before
    assert [d.code for d in fix_source(LAUNCH + "--ep-dispatch-algorithm lp\n", shell).diagnostics] == ["EP003"]


# The command line: diffs, --write, exit codes.


def run(*args):
    return CliRunner().invoke(app, list(args), prog_name="autofix")


def test_cli_shows_both_diffs_and_exits_1(tmp_path):
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + "--config c.yaml --tp_size 8\n")
    (tmp_path / "c.yaml").write_text("ep-dispatch-algorithm: static\n")
    r = run(str(script))
    assert r.exit_code == 1
    assert f"{tmp_path / 'c.yaml'}:1:1: EP003 [*]" in r.stdout
    assert f"{script}:1:" in r.stdout and "ARG001" in r.stdout
    heads = [line for line in r.stdout.splitlines() if line.startswith("--- ")]
    assert len(heads) == 2 and heads[0].endswith("/c.yaml") and heads[1].endswith("/a.sh")
    assert "+ep-dispatch-algorithm: dynamic" in r.stdout
    assert "Found 2 violations." in r.stderr
    assert script.read_text().endswith("--tp_size 8\n")  # the default mode writes nothing


def test_cli_write_fixes_both_then_nothing_remains(tmp_path):
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + "--config c.yaml --tp_size 8\n")
    config = tmp_path / "c.yaml"
    config.write_text("ep-dispatch-algorithm: static\n")
    os.chmod(config, 0o640)
    r = run(str(script), "--write")
    assert r.exit_code == 0, r.output
    assert config.read_text() == "ep-dispatch-algorithm: dynamic\n"
    assert script.read_text() == LAUNCH + "--config c.yaml --tp-size 8\n"
    assert os.stat(config).st_mode & 0o777 == 0o640  # written atomically, mode kept
    assert "in 2 files" in r.stderr
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".autofix")]
    again = run(str(script))
    assert again.exit_code == 0 and again.stdout == ""


def test_cli_script_and_its_config_named_together(tmp_path):
    """The config is handled through the launch and not checked (or written) again on its own."""
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + "--config c.yaml --moe-a2a-backend deepep\n")
    config = tmp_path / "c.yaml"
    config.write_text("ep-dispatch-algorithm: static\n")
    # alone, the file is wrong (no a2a backend); through the launch it is fine
    assert run(str(config)).exit_code == 1
    r = run(str(script), str(config), "--write")
    assert r.exit_code == 0, r.output
    assert config.read_text() == "ep-dispatch-algorithm: static\n"
    # the other order gives the same: scripts are checked before YAML files
    r = run(str(config), str(script), "--write")
    assert r.exit_code == 0, r.output
    assert config.read_text() == "ep-dispatch-algorithm: static\n"
    assert run(str(config), str(script)).exit_code == 0


def test_cli_directory_walk_checks_a_config_once(tmp_path):
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + "--config c.yaml\n")
    (tmp_path / "c.yaml").write_text("ep-dispatch-algorithm: static\n")
    r = run(str(tmp_path))
    assert r.exit_code == 1
    assert r.stdout.count("EP003") == 1
    assert r.stdout.count("\n--- ") == 1


def test_cli_directory_walk_reads_a_config_through_its_launch_whatever_the_names(tmp_path):
    """a.yaml sorts before run.sh: still checked merged with run.sh's flags, and left alone."""
    (tmp_path / "a.yaml").write_text("tp-size: 8\nmoe-a2a-backend: none\nep-dispatch-algorithm: static\n")
    (tmp_path / "run.sh").write_text(LAUNCH + "--config a.yaml --moe-a2a-backend deepep\n")
    r = run(str(tmp_path), "--write")
    assert r.exit_code == 0 and "EP003" not in r.stdout, r.output
    assert (tmp_path / "a.yaml").read_text().endswith("static\n")


def test_cli_shared_config_is_fixed_on_the_command_line_that_needs_it(tmp_path):
    (tmp_path / "c.yaml").write_text("tp-size: 8\nep-dispatch-algorithm: static\n")
    two = (LAUNCH + "--config c.yaml --port 1\n") + (LAUNCH + "--config c.yaml --port 2 --moe-a2a-backend deepep\n")
    (tmp_path / "two.sh").write_text(two)
    r = run(str(tmp_path), "--write")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "c.yaml").read_text() == "tp-size: 8\nep-dispatch-algorithm: static\n"
    assert (tmp_path / "two.sh").read_text().splitlines()[0].endswith("--port 1 --ep-dispatch-algorithm dynamic")
    assert "Found 1 violation. Fixed 1 in 1 file; 0 remaining." in r.stderr
    assert run(str(tmp_path)).exit_code == 0


def test_cli_stdin_does_not_read_the_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text("ep-dispatch-algorithm: static\n")
    r = CliRunner().invoke(app, ["-"], input=LAUNCH + "--config c.yaml\n", prog_name="autofix")
    assert r.exit_code == 0, r.output
