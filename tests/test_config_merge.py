"""A shell launch with ``--config FILE`` plus flags is one launch, merged as SGLang merges them.

The file's settings come first and the command line's flags win
(``ConfigArgumentMerger`` in ``sglang/srt/utils/server_args_config_parser.py``);
each diagnostic points at the file the effective value is written in, and
its fix goes there. ``sglang`` / ``fixed`` are SGLang 0.5.23's verdicts on
the input and on autofix's output, measured with ../shared/oracle
(``check.py --no-warnings --config FILE -- FLAGS``; 8x H200, or ``gpu``, and
DeepSeek-V3), written as in tests/rules/arg_cases.py (``ok`` or where SGLang
raised). ``differs``, where given, are the resolved fields (``--fields all``)
that differ between the input and autofix's output: a fix that keeps what
SGLang runs changes none but the deprecated inputs' own echoes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autofix.adapters import argv as shell
from autofix.cli.commands import app
from autofix.cli.config_files import on_disk
from autofix.core.api import FixOptions, fix_source
from autofix.disk.reads import read_if_file

LAUNCH = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "


@pytest.fixture(autouse=True)
def _in_a_project(project):
    """Each test runs in its ``tmp_path``, a project: the ``--config`` files beside its scripts are in it
    (``scope.Scope``; tests/test_paths.py checks what is not)."""
EP003 = "sglang/srt/arg_groups/parallel_hook.py:783"
EP004 = "sglang/srt/arg_groups/parallel_hook.py:791"
MERGER = "sglang/srt/utils/server_args_config_parser.py:173"  # a key the --config reader refuses
ARGPARSE = "argparse"
SPEC = "--speculative-algorithm EAGLE --speculative-draft-model-path lmsys/eagle"


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
    gpu: str = "h200"
    differs: tuple[str, ...] | None = None  # None: not compared (refused input, or nothing changed)


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
    # Argparse-stage rules that read other settings read the merged launch (issue 29, case 14): before, DEP001
    # saw the command line alone and removed --enable-dp-attention (SGLang then ran 8 replicas, not attention DP 8).
    MergeCase("dp-attention-dp-size-in-config", "--config c.yaml --enable-dp-attention", "dp-size: 8\ntp-size: 8\n",
              ("a.sh DEP001 1:85",), "--config c.yaml --attn-dp-size 8", "tp-size: 8\n", "ok", differs=()),
    MergeCase("dp-attention-attn-dp-size-in-config", "--config c.yaml --enable-dp-attention",
              "attn-dp-size: 4\ntp-size: 8\n", ("a.sh DEP001 1:85",), "--config c.yaml", None, "ok", differs=()),
    MergeCase("dp-attention-refused-key-set-again", "--config c.yaml --enable-dp-attention",
              "enable-dp-attention: true\ndp-size: 8\ntp-size: 8\n", ("c.yaml DEP001 1:1", "a.sh DEP001 1:85"),
              "--config c.yaml --attn-dp-size 8", "tp-size: 8\n", MERGER),
    # the config reader refuses the key; the fix would have to remove --dp-size from the command line: not fixed
    MergeCase("dp-attention-key-dp-size-on-command-line", "--config c.yaml --dp-size 8",
              "enable-dp-attention: true\ntp-size: 8\n", ("c.yaml DEP001 1:1",), None, None, MERGER, MERGER),
    MergeCase("disable-cuda-graph-decode-backend-in-config", "--config c.yaml --disable-cuda-graph",
              "cuda-graph-backend-decode: full\n", ("a.sh DEP001 1:85",),
              "--config c.yaml --cuda-graph-backend-prefill disabled", None, "ok",
              differs=("cuda_graph_backend_prefill", "disable_cuda_graph")),
    MergeCase("fast-image-processor-auto-in-config", "--config c.yaml --disable-fast-image-processor",
              "image-processor-backend: auto\n", ("a.sh DEP001 1:85",), "--config c.yaml",
              "image-processor-backend: pil\n", "ok", differs=("disable_fast_image_processor",)),
    MergeCase("fast-image-processor-torchvision-in-config", "--config c.yaml --disable-fast-image-processor",
              "image-processor-backend: torchvision\n", ("a.sh DEP001 1:85",), None, None,
              "sglang/srt/arg_groups/serving_hook.py:260", "sglang/srt/arg_groups/serving_hook.py:260"),
    # the fix would rewrite --image-processor-backend on the command line: reported, not fixed (before: the file
    # was rewritten image-processor-backend: pil, and the command line's auto ran)
    MergeCase("fast-image-processor-key-auto-on-command-line", "--config c.yaml --image-processor-backend auto",
              "disable-fast-image-processor: true\n", ("c.yaml DEP001 1:1",), None, None, "ok"),
    MergeCase("allreduce-fusion-backend-in-config", "--config c.yaml --enable-flashinfer-allreduce-fusion",
              "flashinfer-allreduce-fusion-backend: trtllm\n", ("a.sh DEP001 1:85",), "--config c.yaml", None, "ok",
              differs=()),
    MergeCase("deprecated-option-in-both", "--config c.yaml --grpc-mode", "grpc-mode: true\n", ("a.sh DEP001 1:85",),
              "--config c.yaml --smg-grpc-mode", "", "ok", differs=("grpc_mode",)),
    # a value the command line replaces is never used: nothing to say of it
    MergeCase("deprecated-value-overridden", "--config c.yaml --tool-call-parser glm", "tool-call-parser: qwen25\n",
              (), None, None, "ok"),
    MergeCase("null-text-overridden", "--config c.yaml --chat-template chatml", "chat-template: null\n", (), None,
              None, "ok"),
    MergeCase("null-int-overridden-still-refused", "--config c.yaml --max-running-requests 8",
              "max-running-requests: null\ntp-size: 8\n", ("c.yaml CFG002 1:1",), None, "tp-size: 8\n", ARGPARSE),
    MergeCase("vllm-flag-with-parser-in-config", "--config c.yaml --enable-reasoning",
              "reasoning-parser: deepseek-r1\n", ("a.sh ARG001 1:85",), "--config c.yaml", None, ARGPARSE),
    # tokenspeed_mla meant decode-mode speculative verify: before, the rename alone was offered as safe
    MergeCase("tokenspeed-speculative-on-command-line", f"--config c.yaml {SPEC}",
              "attention-backend: tokenspeed_mla\nkv-cache-dtype: fp8_e4m3\ntp-size: 8\n", ("c.yaml DEP002 1:1",),
              None, None, "ok", gpu="b200"),
    MergeCase("tokenspeed-speculative-on-command-line-unsafe", f"--config c.yaml {SPEC}",
              "attention-backend: tokenspeed_mla\nkv-cache-dtype: fp8_e4m3\ntp-size: 8\n", ("c.yaml DEP002 1:1",),
              None, "attention-backend: cutedsl_mla\nspeculative-attention-mode: decode\nkv-cache-dtype: fp8_e4m3\n"
              "tp-size: 8\n", "ok", unsafe=True, gpu="b200", differs=()),
    MergeCase("tokenspeed-kv-dtype-in-config", "--config c.yaml --attention-backend tokenspeed_mla",
              "kv-cache-dtype: bf16\ntp-size: 8\n", ("a.sh DEP002 1:85",), "--config c.yaml --attention-backend cutedsl_mla",
              "kv-cache-dtype: fp8_e4m3\ntp-size: 8\n", "ok", unsafe=True, gpu="b200", differs=()),
]


def _write(tmp_path: Path, case: MergeCase) -> tuple[Path, Path]:
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + case.flags + "\n")
    config = tmp_path / "c.yaml"
    config.write_text(case.config)
    return script, config


def _check(script: Path, unsafe: bool = False):
    return fix_source(script.read_text(), shell, path=str(script), options=FixOptions(unsafe=unsafe),
                      config_reader=on_disk(read_if_file))


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
    assert result.others[0].output == (case.config if case.config_out is None else case.config_out)
    # a launch SGLang refuses is reported; one it starts has no error (a warning: it does not mean what it says)
    assert bool(case.found) if case.sglang != "ok" else \
        not [d for r in (result, *result.others) for d in r.diagnostics if d.violation.severity == "error"]


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
    assert fix_source(text, shell, path="-", config_reader=on_disk(read_if_file)).diagnostics == ()
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
    assert f"{tmp_path / 'c.yaml'}:1:1: error: EP003 [*]" in r.stdout
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


# A config file shared across the run: by real path, over every script the run checks.

SHARED = "tp-size: 8\nmoe-a2a-backend: none\nep-dispatch-algorithm: static\n"
PY3 = "python3 -m sglang.launch_server --model-path m "


def _two_scripts(tmp_path: Path, b_flags: str = " --moe-a2a-backend deepep") -> tuple[Path, Path, Path]:
    """c.yaml read by a.sh (which needs the fix) and by b.sh (valid as written, with ``b_flags``)."""
    (tmp_path / "c.yaml").write_text(SHARED)
    (tmp_path / "a.sh").write_text(PY3 + "--config c.yaml\n")
    (tmp_path / "b.sh").write_text(PY3 + "--config c.yaml" + b_flags + "\n")
    return tmp_path / "a.sh", tmp_path / "b.sh", tmp_path / "c.yaml"


@pytest.mark.parametrize("order", ["dir", "ab", "ba", "cab", "bac"])
def test_cli_config_read_by_two_scripts_keeps_its_values(tmp_path, order):
    """b.sh runs c.yaml's ``static`` with deepep (oracle: ok); rewriting c.yaml would change b.sh's launch.
    The fix goes to a.sh's command line, whatever the order of the paths."""
    a, b, c = _two_scripts(tmp_path)
    paths = {"dir": [tmp_path], "ab": [a, b], "ba": [b, a], "cab": [c, a, b], "bac": [b, a, c]}[order]
    r = run(*map(str, paths), "--write")
    assert r.exit_code == 0, r.output
    assert r.stdout == ""
    assert r.stderr == f"Fixed {a}\nFound 1 violation. Fixed 1 in 1 file; 0 remaining.\n"
    assert c.read_text() == SHARED
    assert a.read_text() == PY3 + "--config c.yaml --ep-dispatch-algorithm dynamic\n"
    assert b.read_text() == PY3 + "--config c.yaml --moe-a2a-backend deepep\n"
    assert run(str(tmp_path)).exit_code == 0


def test_cli_config_read_by_one_launch_of_the_run_is_still_fixed_in_place(tmp_path):
    """Only one launch in the run reads c.yaml (b.sh reads none): the fix goes to the file, as before."""
    a, b, c = _two_scripts(tmp_path)
    b.write_text(PY3 + "--moe-a2a-backend deepep\n")
    r = run(str(tmp_path), "--write")
    assert r.exit_code == 0, r.output
    assert c.read_text() == SHARED.replace("static", "dynamic")
    assert a.read_text() == PY3 + "--config c.yaml\n"


def test_cli_sharing_is_known_only_within_the_run(tmp_path):
    """b.sh not in the run: a.sh is the only reader autofix knows of, so c.yaml is fixed in place."""
    a, _, c = _two_scripts(tmp_path)
    assert run(str(a), "--write").exit_code == 0
    assert c.read_text() == SHARED.replace("static", "dynamic")


def test_cli_a_script_named_twice_is_one_reader(tmp_path):
    a, b, c = _two_scripts(tmp_path)
    b.unlink()
    r = run(str(a), str(a), "--write")
    assert r.exit_code == 0, r.output
    assert c.read_text() == SHARED.replace("static", "dynamic")
    assert a.read_text() == PY3 + "--config c.yaml\n"


def test_shared_configs_goes_to_the_command_line(tmp_path):
    """The library side: a real path in ``ConfigReader.shared`` is read by launches of other texts."""
    a, _, c = _two_scripts(tmp_path)
    result = fix_source(a.read_text(), shell, path=str(a),
                        config_reader=on_disk(read_if_file, shared=frozenset({os.path.realpath(c)})))
    assert result.output == PY3 + "--config c.yaml --ep-dispatch-algorithm dynamic\n"
    assert result.others[0].output == SHARED
    assert [(d.code, d.location.line, d.fixable) for d in result.others[0].diagnostics] == [("EP003", 3, True)]
    alone = _check(a)
    assert alone.others[0].output == SHARED.replace("static", "dynamic") and alone.output == a.read_text()


def test_shared_config_removal_is_not_applied(tmp_path):
    """A removal cannot be written on a command line: with the file shared across the run, it is refused."""
    (tmp_path / "c.yaml").write_text("tp-size: 1\nenable-eplb: true\n")
    a = tmp_path / "a.sh"
    a.write_text(LAUNCH + "--config c.yaml --enable-eplb\n")
    shared = frozenset({os.path.realpath(tmp_path / "c.yaml")})
    result = fix_source(a.read_text(), shell, path=str(a), options=FixOptions(unsafe=True),
                        config_reader=on_disk(read_if_file, shared=shared))
    assert result.output == a.read_text() and result.others[0].output == "tp-size: 1\nenable-eplb: true\n"
    assert [d.code for d in result.remaining] == ["EP004"]
    assert any("read by several launches" in c for c in result.conflicts)


def test_config_files_lists_each_launchs_config(tmp_path):
    from autofix.core.api import config_files

    text = PY3 + "--config c.yaml\n" + PY3 + "--config=sub/d.yml\n" + PY3 + "--config $CFG\n" + PY3 + "--tp 2\n"
    assert config_files(text, shell, path=str(tmp_path / "a.sh")) == [str(tmp_path / "c.yaml"),
                                                                        str(tmp_path / "sub" / "d.yml")]
    assert config_files(text, shell, path="-") == []


def _symlinked(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.yaml").write_text(SHARED)
    (tmp_path / "link.yaml").symlink_to("sub/c.yaml")
    return tmp_path / "sub" / "c.yaml"


def test_symlinked_config_read_by_two_launches_of_one_script_is_one_shared_file(tmp_path):
    c = _symlinked(tmp_path)
    script = tmp_path / "a.sh"
    script.write_text(PY3 + "--config link.yaml\n" + PY3 + "--config sub/c.yaml --port 2\n")
    result = _check(script)
    assert [o.path for o in result.others] == [str(tmp_path / "link.yaml")]  # one file, the first name
    assert result.others[0].output == SHARED
    assert result.output == (PY3 + "--config link.yaml --ep-dispatch-algorithm dynamic\n"
                             + PY3 + "--config sub/c.yaml --port 2 --ep-dispatch-algorithm dynamic\n")
    assert [(d.code, d.location.line) for d in result.others[0].diagnostics] == [("EP003", 3)]
    r = run(str(script), "--write")
    assert r.exit_code == 0, r.output
    assert c.read_text() == SHARED and (tmp_path / "link.yaml").is_symlink()
    assert script.read_text() == result.output


@pytest.mark.parametrize("order", ["ab", "ba"])
def test_cli_symlinked_config_read_by_two_scripts(tmp_path, order):
    c = _symlinked(tmp_path)
    a, b = tmp_path / "a.sh", tmp_path / "b.sh"
    a.write_text(PY3 + "--config link.yaml\n")
    b.write_text(PY3 + "--config sub/c.yaml --moe-a2a-backend deepep\n")
    r = run(*(map(str, [a, b] if order == "ab" else [b, a])), "--write")
    assert r.exit_code == 0, r.output
    assert c.read_text() == SHARED and (tmp_path / "link.yaml").is_symlink()
    assert a.read_text() == PY3 + "--config link.yaml --ep-dispatch-algorithm dynamic\n"
    assert b.read_text() == PY3 + "--config sub/c.yaml --moe-a2a-backend deepep\n"


# A config file reached through several scripts is reported once per run.


@pytest.mark.parametrize("order", ["ab", "ba", "dir"])
def test_cli_config_reached_by_two_scripts_is_reported_once(tmp_path, order):
    a, b, c = _two_scripts(tmp_path, b_flags=" --port 2")
    r = run(*map(str, {"ab": [a, b], "ba": [b, a], "dir": [tmp_path]}[order]))
    assert r.exit_code == 1
    first, second = (a, b) if order != "ba" else (b, a)
    line = (f"{c}:3:1: error: EP003 [*] --ep-dispatch-algorithm static needs an a2a backend, "
            "but --moe-a2a-backend resolves to none\n")
    flag = " --ep-dispatch-algorithm dynamic"

    def diff(script: Path, flags: str) -> str:
        name = str(script)
        return (f"--- {name}\n+++ {name}\n@@ -1 +1 @@\n-{PY3}--config c.yaml{flags}\n"
                f"+{PY3}--config c.yaml{flags}{flag}\n")
    flags = {a: "", b: " --port 2"}
    assert r.stdout == line + diff(first, flags[first]) + diff(second, flags[second])
    assert r.stderr == "Found 1 violation. [*] 1 fixable with --write.\n"


def test_cli_config_argparse_fix_reached_by_two_scripts_is_one_diff(tmp_path):
    """A key misspelled in the file (ARG001) is the file's own: one line, one diff, counted once."""
    (tmp_path / "c.yaml").write_text("tp_size: 8\n")
    a, b = tmp_path / "a.sh", tmp_path / "b.sh"
    a.write_text(PY3 + "--config c.yaml\n")
    b.write_text(PY3 + "--config c.yaml --port 2\n")
    r = run(str(a), str(b))
    assert r.exit_code == 1
    assert r.stdout.count("ARG001") == 1
    assert r.stdout.count(f"--- {tmp_path / 'c.yaml'}\n") == 1
    assert r.stdout.count("\n--- ") == 1  # the only diff: the scripts are unchanged
    assert r.stderr == "Found 1 violation. [*] 1 fixable with --write.\n"
    w = run(str(b), str(a), "--write")
    assert w.exit_code == 0, w.output
    assert (tmp_path / "c.yaml").read_text() == "tp-size: 8\n"
    assert w.stderr == f"Fixed {tmp_path / 'c.yaml'}\nFound 1 violation. Fixed 1 in 1 file; 0 remaining.\n"


def test_cli_symlinked_config_reported_once(tmp_path):
    _symlinked(tmp_path)
    a, b = tmp_path / "a.sh", tmp_path / "b.sh"
    a.write_text(PY3 + "--config link.yaml\n")
    b.write_text(PY3 + "--config sub/c.yaml --port 2\n")
    r = run(str(a), str(b))
    assert r.exit_code == 1
    assert r.stdout.count("EP003") == 1 and f"{tmp_path / 'link.yaml'}:3:1: error: EP003" in r.stdout
    assert r.stderr == "Found 1 violation. [*] 1 fixable with --write.\n"


def test_cli_remaining_in_a_config_reached_by_two_scripts_is_listed_once(tmp_path):
    """--write without --unsafe-fixes: EP004's only fix is unsafe; it remains, listed and counted once."""
    (tmp_path / "c.yaml").write_text("tp-size: 8\nenable-eplb: true\n")
    a, b = tmp_path / "a.sh", tmp_path / "b.sh"
    a.write_text(LAUNCH + "--config c.yaml\n")
    b.write_text(LAUNCH + "--config c.yaml --port 2\n")
    r = run(str(a), str(b), "--write")
    assert r.exit_code == 1
    assert r.stdout.count("EP004") == 1 and r.stdout.startswith(f"{tmp_path / 'c.yaml'}:2:1: error: EP004 ")
    assert "Found 1 violation. Fixed 0 in 0 files; 1 remaining." in r.stderr


# A --config file that is there but SGLang refuses to read: an error, once; a missing one stays unknown.

BAD_YAML_ERROR = "2:1: error: invalid YAML: while parsing a flow sequence, did not find expected ',' or ']'"


def test_invalid_yaml_config_is_an_error_and_the_script_is_still_checked(tmp_path):
    (tmp_path / "bad.yaml").write_text("tp-size: [8\n")
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + "--config bad.yaml --ep-dispatch-algorithm static --tp_size 8\n")
    result = _check(script)
    [e] = result.errors
    assert (e.path, e.line, e.col) == (str(tmp_path / "bad.yaml"), 2, 1)
    assert result.others == ()
    # the script's own finding is reported; EP003 needs the backend the file might set: silent
    assert [d.code for d in result.diagnostics] == ["ARG001"]
    r = run(str(script))
    assert r.exit_code == 2
    assert r.stderr == (f"{tmp_path / 'bad.yaml'}:{BAD_YAML_ERROR} (the --config file of {script}: SGLang "
                        "refuses to start)\nFound 1 violation. [*] 1 fixable with --write. "
                        "1 file could not be checked.\n")
    assert r.stdout.startswith(f"{script}:1:") and "ARG001" in r.stdout


@pytest.mark.parametrize("order", ["ab", "ba", "dir", "named-config-last", "named-config-first"])
def test_cli_invalid_yaml_config_is_reported_once_per_run(tmp_path, order):
    bad = tmp_path / "bad.yaml"
    bad.write_text("tp-size: [8\n")
    a, b = tmp_path / "a.sh", tmp_path / "b.sh"
    a.write_text(PY3 + "--config bad.yaml\n" + PY3 + "--config bad.yaml --port 2\n")
    b.write_text(PY3 + "--config bad.yaml --port 3\n")
    paths = {"ab": [a, b], "ba": [b, a], "dir": [tmp_path], "named-config-last": [a, b, bad],
             "named-config-first": [bad, b, a]}[order]
    for mode in ([], ["--write"]):
        r = run(*map(str, paths), *mode)
        assert r.exit_code == 2, r.output
        assert r.stdout == ""
        first = b if order in ("ba", "named-config-first") else a
        assert r.stderr == (f"{bad}:{BAD_YAML_ERROR} (the --config file of {first}: SGLang refuses to start)\n"
                            "No violations found. 1 file could not be checked.\n")
    assert bad.read_text() == "tp-size: [8\n"


@pytest.mark.parametrize("config", ["- tp-size: 8\n", "1: 8\n"])
def test_cli_config_sglang_refuses_to_read_is_an_error(tmp_path, config):
    """Not a mapping (SGLang: ``Config file must contain a dictionary``), a key not a string (it fails on
    ``key.replace``): SGLang refuses both at start-up."""
    (tmp_path / "c.yaml").write_text(config)
    script = tmp_path / "a.sh"
    script.write_text(PY3 + "--config c.yaml\n")
    r = run(str(script))
    assert r.exit_code == 2
    assert r.stderr.startswith(f"{tmp_path / 'c.yaml'}:1:")


def test_cli_missing_config_stays_unknown_and_silent(tmp_path):
    """It may exist on the launch host: nothing to report, exit 0."""
    script = tmp_path / "a.sh"
    script.write_text(PY3 + "--config missing.yaml --ep-dispatch-algorithm static\n")
    r = run(str(script))
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", "All checks passed!\n")


# Issue 29, case 14: an argparse-stage rule that reads other settings reads the launch, from both files.

CASE_14 = "dp-size: 8\ntp-size: 8\n"


def test_cli_write_keeps_attention_dp_set_in_two_files(tmp_path):
    """``--write`` no longer removes --enable-dp-attention (SGLang runs attention DP 8 with the file's dp-size):
    it writes what the same launch gets with both on the command line, each where it is written; oracle:
    tests/test_config_merge.py ``dp-attention-dp-size-in-config``."""
    script = tmp_path / "run.sh"
    script.write_text("python3 -m sglang.launch_server --config cfg.yaml --enable-dp-attention\n")
    (tmp_path / "cfg.yaml").write_text(CASE_14)
    r = run(str(script), "--write")
    assert r.exit_code == 0, r.output
    assert script.read_text() == "python3 -m sglang.launch_server --config cfg.yaml --attn-dp-size 8\n"
    assert (tmp_path / "cfg.yaml").read_text() == "tp-size: 8\n"
    assert "Fixed 1 in 2 files" in r.stderr
    assert run(str(script)).exit_code == 0


def test_the_fix_of_a_flag_is_placed_in_both_files(tmp_path):
    """Machine formats place each fix on its own: the rewrite in the script, the removal in the file."""
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + "--config c.yaml --enable-dp-attention\n")
    (tmp_path / "c.yaml").write_text(CASE_14)
    result = fix_source(script.read_text(), shell, path=str(script), options=FixOptions(fix_edits=True),
                        config_reader=on_disk(read_if_file))
    [d] = result.diagnostics
    [edits] = d.fix_edits
    assert [(os.path.basename(e.path), e.start.line, e.start.col, e.content) for e in edits] == [
        ("a.sh", 1, 85, "--attn-dp-size 8"), ("c.yaml", 1, 1, "")]


@pytest.mark.parametrize("shared", ["two-launches", "other-texts"])
def test_a_fix_that_would_edit_a_shared_config_is_not_offered(tmp_path, shared):
    """The file's dp-size cannot leave it when other launches read it: reported, not fixed (and not removed)."""
    script = tmp_path / "a.sh"
    text = LAUNCH + "--config c.yaml --enable-dp-attention\n"
    script.write_text(text + (LAUNCH + "--config c.yaml --port 2\n" if shared == "two-launches" else ""))
    (tmp_path / "c.yaml").write_text(CASE_14)
    others = frozenset({os.path.realpath(tmp_path / "c.yaml")}) if shared == "other-texts" else frozenset()
    result = fix_source(script.read_text(), shell, path=str(script), config_reader=on_disk(read_if_file, shared=others))
    assert result.output == script.read_text() and result.others[0].output == CASE_14
    [d] = result.diagnostics
    assert d.code == "DEP001" and not d.fixable
    assert d.violation.message == ("--enable-dp-attention is deprecated; write --attn-dp-size 8 instead of dp-size: 8 "
                                   "(in the --config file) with --enable-dp-attention")


@pytest.mark.parametrize("flags", ["--config $CFG --enable-dp-attention",
                                   "--config missing.yaml --dp-size 8 --attn-dp-size 1 --enable-dp-attention"])
def test_a_config_file_autofix_cannot_read_may_set_what_the_rule_reads(tmp_path, flags):
    """The file may set --dp-size (or hold a copy the removal would bring back): the flag stays, reported."""
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + flags + "\n")
    result = _check(script)
    [d] = result.diagnostics
    assert d.code == "DEP001" and not d.fixable
    assert result.output == script.read_text()


def test_a_config_file_judges_what_its_launches_agree_on(tmp_path):
    """Two launches read the file, one with --image-processor-backend auto (SGLang: pil; oracle
    ``fast-image-processor-key-auto-on-command-line``): the backend is not known for the file, so its
    deprecated key is reported, not rewritten; read by the other launch alone, it is."""
    (tmp_path / "c.yaml").write_text("disable-fast-image-processor: true\n")
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + "--config c.yaml --port 1\n" + LAUNCH + "--config c.yaml --image-processor-backend auto\n")
    result = _check(script)
    [d] = result.others[0].diagnostics
    assert (d.code, d.fixable) == ("DEP001", False)
    assert result.others[0].output == "disable-fast-image-processor: true\n"
    script.write_text(LAUNCH + "--config c.yaml --port 1\n")
    assert _check(script).others[0].output == "image-processor-backend: pil\n"


def test_a_config_file_read_by_other_texts_too_knows_no_other_setting(tmp_path):
    """Launches of other texts may set anything: a deprecated key whose replacement reads another setting is
    reported, not fixed; a plain rename (the value alone decides it) is still fixed."""
    (tmp_path / "c.yaml").write_text("disable-fast-image-processor: true\ntool-call-parser: qwen25\n")
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + "--config c.yaml\n")
    shared = frozenset({os.path.realpath(tmp_path / "c.yaml")})
    result = fix_source(script.read_text(), shell, path=str(script),
                        config_reader=on_disk(read_if_file, shared=shared))
    assert [(d.code, d.location.line, d.fixable) for d in result.others[0].diagnostics] == [
        ("DEP001", 1, False), ("DEP002", 2, True)]
    assert result.others[0].output == "disable-fast-image-processor: true\ntool-call-parser: qwen\n"


def test_a_config_key_only_some_launches_override_is_still_judged(tmp_path):
    """One launch of two sets --tool-call-parser again: the other runs the file's qwen25."""
    (tmp_path / "c.yaml").write_text("tool-call-parser: qwen25\n")
    script = tmp_path / "a.sh"
    script.write_text(LAUNCH + "--config c.yaml --tool-call-parser glm\n" + LAUNCH + "--config c.yaml --port 2\n")
    result = _check(script)
    assert [d.code for d in result.others[0].diagnostics] == ["DEP002"]
    assert result.others[0].output == "tool-call-parser: qwen\n"
