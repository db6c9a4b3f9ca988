"""The command line in code review and CI: modes and exit codes, rule selection, fix safety, output formats,
statistics, colour, project configuration, the GitHub step summary, --add-ignores. In-process (CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autofix.cli.commands import app

BAD = "tp-size: 8\nmoe-a2a-backend: none  # single node\nep-dispatch-algorithm: static\n"
GOOD = BAD.replace("static", "dynamic")
# EP003 (safe fix) and RUN019 (only an unsafe fix: drop the a2a backend)
MARLIN = "tp-size: 8\nep-size: 8\nmoe-runner-backend: experimental_sgl_marlin\nmoe-a2a-backend: deepep\n"


def run(*args, input=None, env=None, cwd: Path | None = None):
    import os

    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return CliRunner().invoke(app, list(args), input=input, env=env, prog_name="autofix")
    finally:
        os.chdir(old)


@pytest.fixture
def bad(tmp_path) -> Path:
    p = tmp_path / "serve.yaml"
    p.write_text(BAD)
    return p


# --- modes and exit codes ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("flags, code, lines, diff, written", [
    ((), 1, True, True, False),
    (("--check",), 1, True, False, False),
    (("--diff",), 1, False, True, False),
    (("--write",), 0, False, False, True),
    (("--exit-zero",), 0, True, True, False),
    (("--check", "--exit-zero"), 0, True, False, False),
    (("--write", "--exit-non-zero-on-fix"), 1, False, False, True),
], ids=["default", "check", "diff", "write", "exit-zero", "check-exit-zero", "exit-non-zero-on-fix"])
def test_mode(bad, flags, code, lines, diff, written):
    r = run(str(bad), *flags)
    assert r.exit_code == code, r.output
    assert ("EP003 [*]" in r.stdout) == lines
    assert ("+ep-dispatch-algorithm: dynamic" in r.stdout) == diff
    assert bad.read_text() == (GOOD if written else BAD)


def test_diff_exits_0_when_nothing_would_change(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text(MARLIN.replace("ep-size: 8\n", ""))  # RUN019 needs EP: clean
    assert run(str(p), "--diff").exit_code == 0


def test_two_modes_at_once_is_a_usage_error(bad):
    r = run(str(bad), "--write", "--check")
    assert r.exit_code == 2 and "exclude each other" in r.stderr
    assert bad.read_text() == BAD


def test_help_shows_the_check_options():
    r = run("--help")
    assert r.exit_code == 0
    for option in ("--write", "--check", "--diff", "--output-format", "--select", "--config-file", "--gpu"):
        assert option in r.stdout
    assert "autofix explain" in r.stdout


# --- rule selection and fix safety ------------------------------------------------------------------------------

@pytest.mark.parametrize("flags, codes", [
    ((), ["ARG001", "EP003"]),
    (("--select", "EP003"), ["EP003"]),
    (("--select", "EP"), ["EP003"]),
    (("--select", "ep-dispatch-needs-a2a"), ["EP003"]),
    (("--select", "EP003,ARG"), ["ARG001", "EP003"]),
    (("--select", "EP003", "--extend-select", "ARG001"), ["ARG001", "EP003"]),
    (("--ignore", "ARG"), ["EP003"]),
    (("--select", "ALL", "--ignore", "EP003"), ["ARG001"]),
    (("--select", "EP003", "--ignore", "EP"), ["EP003"]),  # the more specific selector wins
], ids=["all", "code", "prefix", "name", "comma", "extend-select", "ignore-prefix", "all-but", "specific-wins"])
def test_selection(tmp_path, flags, codes):
    p = tmp_path / "c.yaml"
    p.write_text(BAD + "enable_metrics: true\n")  # EP003, and ARG001 (a key spelt with `_`)
    r = run(str(p), "--check", "--output-format", "json", *flags)
    found = sorted({d["code"] for d in json.loads(r.stdout)})
    assert found == codes, r.stdout + r.stderr


def test_an_unknown_selector_is_a_usage_error(bad):
    r = run(str(bad), "--select", "EPX9")
    assert r.exit_code == 2 and "EPX9" in r.stderr and "names no rule" in r.stderr


@pytest.mark.parametrize("flags, written", [
    (("--write",), BAD),  # RUN019's only fix is unsafe: held back
    (("--write", "--unsafe-fixes"), "drop"),
    (("--write", "--extend-safe-fixes", "RUN019"), "drop"),
    (("--write", "--unsafe-fixes", "--unfixable", "RUN019"), BAD),
    (("--write", "--unsafe-fixes", "--fixable", "EP"), BAD),
], ids=["safe-only", "unsafe-fixes", "extend-safe-fixes", "unfixable", "fixable"])
def test_fix_safety(tmp_path, flags, written):
    p = tmp_path / "c.yaml"
    p.write_text(MARLIN)
    run(str(p), *flags)
    after = p.read_text()
    assert (after == MARLIN) == (written == BAD), after


def test_extend_unsafe_fixes_holds_back_a_safe_fix(bad):
    r = run(str(bad), "--write", "--extend-unsafe-fixes", "EP003")
    assert r.exit_code == 1 and bad.read_text() == BAD
    assert "1 more fixable with --unsafe-fixes" in r.stderr


def test_show_fixes_lists_each_fix_with_its_safety(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text(MARLIN)
    r = run(str(p), "--show-fixes", "--check")
    assert "  unsafe fix: " in r.stdout


def test_statistics(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(BAD)
    b.write_text(BAD)
    r = run(str(a), str(b), "--statistics")
    assert r.exit_code == 1
    assert r.stdout == "2\tEP003\t[*]\tep-dispatch-needs-a2a\n"
    j = run(str(a), str(b), "--statistics", "--output-format", "json")
    assert json.loads(j.stdout) == [{"code": "EP003", "name": "ep-dispatch-needs-a2a", "severity": "error",
                                     "count": 2, "fixable": 2}]


# --- output formats -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["json", "json-lines", "sarif", "rdjson", "gitlab", "github", "concise"])
def test_format_prints_only_the_format_on_stdout(bad, fmt):
    r = run(str(bad), "--output-format", fmt)
    assert r.exit_code == 1
    assert "---" not in r.stdout  # no diff
    if fmt == "concise":
        assert r.stdout == f"{bad}:3:1: error: EP003 [*] --ep-dispatch-algorithm static needs an a2a backend, " \
                           "but --moe-a2a-backend resolves to none\n"
    elif fmt == "json-lines":
        assert [json.loads(line)["code"] for line in r.stdout.splitlines()] == ["EP003"]
    elif fmt == "github":
        assert r.stdout.startswith("::error file=")
    else:
        json.loads(r.stdout)
    assert "\x1b[" not in r.stdout


def test_output_format_from_the_environment(bad):
    r = run(str(bad), env={"AUTOFIX_OUTPUT_FORMAT": "json-lines"})
    assert json.loads(r.stdout.splitlines()[0])["code"] == "EP003"


def test_an_unknown_output_format_is_a_usage_error(bad):
    r = run(str(bad), "--output-format", "xml")
    assert r.exit_code == 2 and "xml" in r.stderr


def test_machine_formats_list_the_files_that_could_not_be_checked(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("tp-size: [8\n")
    r = run(str(broken), "--output-format", "json")
    assert r.exit_code == 2
    (error,) = json.loads(r.stdout)
    assert error["code"] is None and error["filename"] == str(broken)


def test_write_of_stdin_with_a_machine_format_is_a_usage_error():
    r = run("-", "--write", "--output-format", "json", input=BAD)
    assert r.exit_code == 2 and "stdin" in r.stderr


def test_github_step_summary_holds_what_the_annotations_could_not(tmp_path):
    for i in range(12):
        (tmp_path / f"c{i:02}.yaml").write_text(BAD)
    summary = tmp_path / "summary.md"
    r = run(str(tmp_path), "--output-format", "github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert r.exit_code == 1
    assert r.stdout.count("::error ") == 10
    assert summary.read_text().count("EP003") == 2  # the two past the cap


@pytest.mark.parametrize("env, colored", [
    ({}, False),  # CliRunner's stdout is no terminal
    ({"FORCE_COLOR": "1"}, True),
    ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, True),  # FORCE_COLOR wins, as its convention says
    ({"NO_COLOR": "1"}, False),
], ids=["pipe", "force", "force-over-no", "no-color"])
def test_colour(bad, env, colored):
    r = run(str(bad), env=env)
    assert ("\x1b[" in r.stdout) == colored
    machine = run(str(bad), "--output-format", "json", env=env)
    assert "\x1b[" not in machine.stdout


# --- project configuration ------------------------------------------------------------------------------------

def test_the_closest_configuration_applies(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.autofix]\nignore = ["EP003"]\n')
    (tmp_path / "strict").mkdir()
    (tmp_path / "strict" / "autofix.toml").write_text("select = ['ALL']\n")
    for d in (tmp_path, tmp_path / "strict"):
        (d / "serve.yaml").write_text(BAD)
    r = run(".", "--check", "--output-format", "json", cwd=tmp_path)
    assert [d["filename"] for d in json.loads(r.stdout)] == ["strict/serve.yaml"]
    isolated = run(".", "--check", "--output-format", "json", "--isolated", cwd=tmp_path)
    assert len(json.loads(isolated.stdout)) == 2


def test_the_command_line_wins_over_the_file(tmp_path):
    (tmp_path / "autofix.toml").write_text('ignore = ["EP"]\noutput-format = "json"\n')
    (tmp_path / "serve.yaml").write_text(BAD)
    assert run("serve.yaml", cwd=tmp_path).exit_code == 0
    # --select replaces the file's select; its ignore still applies, where it is as specific or more
    r = run("serve.yaml", "--select", "EP003", "--output-format", "concise", cwd=tmp_path)
    assert r.exit_code == 1 and r.stdout.startswith("serve.yaml:3:1: error: EP003")


def test_a_named_configuration_file(tmp_path):
    (tmp_path / "ci.toml").write_text('per-file-ignores = {"legacy/*" = ["EP"]}\n')
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "serve.yaml").write_text(BAD)
    (tmp_path / "serve.yaml").write_text(BAD)
    r = run(".", "--check", "--config-file", "ci.toml", "--output-format", "json", cwd=tmp_path)
    assert [d["filename"] for d in json.loads(r.stdout)] == ["serve.yaml"]


def test_exclude_and_force_exclude(tmp_path):
    (tmp_path / "autofix.toml").write_text('extend-exclude = ["generated"]\n')
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "serve.yaml").write_text(BAD)
    assert run(".", cwd=tmp_path).exit_code == 0  # a walk skips it
    assert run("generated/serve.yaml", cwd=tmp_path).exit_code == 1  # named: checked
    (tmp_path / "autofix.toml").write_text('extend-exclude = ["generated"]\nforce-exclude = true\n')
    assert run("generated/serve.yaml", cwd=tmp_path).exit_code == 0


def _walked(tmp_path, *args) -> list[str]:
    r = run(".", "--check", "--output-format", "json", *args, cwd=tmp_path)
    assert r.exit_code in (0, 1), r.output
    return sorted({d["filename"] for d in json.loads(r.stdout)})


def test_exclude_options_on_the_command_line(tmp_path):
    """--exclude replaces the file's exclude (its defaults too), --extend-exclude adds to the file's lists, as the
    keys do and as in ruff (issue 29, verdicts round 2, case 4: both were `No such option`)."""
    (tmp_path / "autofix.toml").write_text('extend-exclude = ["generated"]\n')
    for d in ("generated", "legacy", "venv", "dev", "prod"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "serve.yaml").write_text(BAD)
    everything = ["dev/serve.yaml", "legacy/serve.yaml", "prod/serve.yaml"]
    assert _walked(tmp_path) == everything
    assert _walked(tmp_path, "--extend-exclude", "legacy") == ["dev/serve.yaml", "prod/serve.yaml"]
    assert _walked(tmp_path, "--extend-exclude", "legacy,{dev,prod}") == []  # a comma in braces is the glob's
    assert _walked(tmp_path, "--extend-exclude", "dev", "--extend-exclude", "prod") == ["legacy/serve.yaml"]
    # replaced: the default list (venv) and the file's exclude go, the file's extend-exclude stays
    assert _walked(tmp_path, "--exclude", "legacy") == ["dev/serve.yaml", "prod/serve.yaml", "venv/serve.yaml"]


def test_force_exclude_on_the_command_line(tmp_path):
    (tmp_path / "autofix.toml").write_text('extend-exclude = ["generated"]\n')
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "serve.yaml").write_text(BAD)
    assert run("generated/serve.yaml", cwd=tmp_path).exit_code == 1  # named: checked
    assert run("generated/serve.yaml", "--force-exclude", cwd=tmp_path).exit_code == 0
    assert run("generated/serve.yaml", "--extend-exclude", "serve.yaml", cwd=tmp_path).exit_code == 1
    assert run("generated/serve.yaml", "--isolated", "--force-exclude", cwd=tmp_path).exit_code == 1  # no file
    assert run("generated/serve.yaml", "--isolated", "--force-exclude", "--extend-exclude", "generated",
               cwd=tmp_path).exit_code == 0
    (tmp_path / "autofix.toml").write_text('extend-exclude = ["generated"]\nforce-exclude = true\n')
    assert run("generated/serve.yaml", cwd=tmp_path).exit_code == 0
    assert run("generated/serve.yaml", "--no-force-exclude", cwd=tmp_path).exit_code == 1


def test_a_bad_exclude_glob_names_the_option(tmp_path):
    (tmp_path / "serve.yaml").write_text(GOOD)
    r = run(".", "--extend-exclude", "/", cwd=tmp_path)
    assert r.exit_code == 2
    assert "--extend-exclude" in r.stderr and "not a glob" in r.stderr, r.stderr


def test_a_bad_configuration_file_stops_the_run_naming_file_key_and_line(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.autofix]\nselct = ["EP"]\n')
    (tmp_path / "serve.yaml").write_text(BAD)
    r = run("serve.yaml", "--write", cwd=tmp_path)
    assert r.exit_code == 2
    assert "pyproject.toml:5:1: error:" in r.stderr and "selct" in r.stderr and "select" in r.stderr
    assert (tmp_path / "serve.yaml").read_text() == BAD


# --- --add-ignores --------------------------------------------------------------------------------------------

def test_add_ignores_suppresses_every_finding_and_changes_no_setting(tmp_path):
    (tmp_path / "serve.yaml").write_text(BAD)
    (tmp_path / "run.sh").write_text("python3 -m sglang.launch_server --model-path m \\\n  --tp 8 \\\n"
                                     "  --moe-a2a-backend none --ep-dispatch-algorithm static\n")
    r = run(".", "--add-ignores", cwd=tmp_path)
    assert r.exit_code == 0, r.stderr
    assert (tmp_path / "serve.yaml").read_text() == BAD.replace(
        "static\n", "static  # autofix: ignore[EP003]\n")
    assert (tmp_path / "run.sh").read_text().startswith("# autofix: ignore[EP003]\npython3 -m sglang")
    again = run(".", cwd=tmp_path)
    assert again.exit_code == 0, again.stdout


# --- progress -------------------------------------------------------------------------------------------------

class _Terminal:
    """A stderr that says it is a terminal (click draws its bar only on one)."""

    def __init__(self) -> None:
        self.text = []

    def isatty(self) -> bool:
        return True

    def write(self, s: str) -> int:
        self.text.append(s)
        return len(s)

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("files, progress, drawn", [(60, True, True), (10, True, False), (60, False, False)],
                         ids=["long-run", "short-run", "not-asked"])
def test_progress_bar_on_a_terminal_for_long_runs(files, progress, drawn):
    from autofix.cli.runner import PROGRESS_FROM, Output, _progress

    assert PROGRESS_FROM <= 60
    items = [(f"c{i}.yaml", False) for i in range(files)]
    err = _Terminal()
    assert list(_progress(items, len(items), Output(progress=progress), err)) == items
    assert ("autofix" in "".join(err.text)) == drawn


@pytest.mark.parametrize("stderr_tty, stdout_tty, fmt, progress", [
    (True, False, "full", True), (True, True, "full", False), (True, True, "json", True), (False, False, "json", False),
], ids=["report-to-a-pipe", "report-on-the-terminal", "machine-format", "no-terminal"])
def test_progress_is_asked_for_only_where_it_does_not_mix_with_the_report(stderr_tty, stdout_tty, fmt, progress):
    from autofix.cli.checking import Request, prepare

    class Stream(_Terminal):
        def __init__(self, tty):
            super().__init__()
            self.tty = tty

        def isatty(self):
            return self.tty

    job = prepare(Request(paths=["x.yaml"], output_format=fmt, isolated=True), env={},
                  stdout=Stream(stdout_tty), stderr=Stream(stderr_tty))
    assert job.output.progress == progress
    assert job.output.color == (stdout_tty and fmt == "full")


# --- what is meant for autofix (pre-commit names every YAML file, script and Dockerfile) --------------------

@pytest.mark.parametrize("name, text", [
    (".github/workflows/ci.yml", "name: ci\non: [pull_request]\njobs: {}\n"),  # `on:` is a boolean key
    ("playbook.yml", "- hosts: all\n  tasks: []\n"),
    ("values.yaml", "image: sglang\nreplicaCount: 2\nservice: {port: 30000}\nresources: {}\nnodeSelector: {}\n"),
    ("tool", "#!/bin/sh\necho hi\n"),
    ("dockerfile.py", '"""FROM x\nCMD ["python3", "-m", "sglang.launch_server", "--model-path", "x",]\n"""\n'),
], ids=["workflow", "playbook", "helm-values", "script-without-suffix", "python-named-like-a-dockerfile"])
def test_a_file_not_meant_for_sglang_passes(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    r = run(str(p), "--isolated")
    assert r.exit_code == 0, r.output
    assert run(str(tmp_path), "--isolated").exit_code == 0  # nor does a walk report it


@pytest.mark.parametrize("text, where", [
    ("model-path: m\ntp-size: 8\nep-size: 8\nmoe-a2a-backend: [deepep\n", "config.yaml:5:1: error: invalid YAML"),
    # SGLang's yaml.safe_load (the pure-Python scanner) refuses a tab before a comment; libyaml takes it
    # (oracle: ScannerError "found character '\t' that cannot start any token", line 2, column 11)
    ("model-path: x/y\ntp-size: 8\t# tab\n", "config.yaml:2:11: error: invalid YAML"),
    ("- tp-size: 8\n", "config.yaml:1:1: error: an SGLang config must be a mapping"),
], ids=["broken", "tab-before-a-comment", "list-of-options"])
def test_an_sglang_config_sglang_cannot_read_is_an_error_named_or_walked(tmp_path, text, where):
    (tmp_path / "config.yaml").write_text(text)
    for target in ("config.yaml", "."):
        r = run(target, "--isolated", cwd=tmp_path)
        assert r.exit_code == 2 and where in r.stderr.replace("./", ""), r.stderr


def test_a_dockerfile_named_with_a_suffix_is_read_when_it_starts_like_one(tmp_path):
    (tmp_path / "Dockerfile.gpu").write_text('FROM x\nCMD ["python3", "-m", "sglang.launch_server", '
                                             '"--model-path", "x",]\n')
    r = run(str(tmp_path), "--isolated")
    assert r.exit_code == 1 and "DKR001" in r.stdout


def test_diff_and_statistics_take_no_machine_format(bad):
    for flags in (("--diff", "--output-format", "json"), ("--diff", "--statistics")):
        r = run(str(bad), *flags)
        assert r.exit_code == 2 and r.stdout == ""


def test_version():
    r = run("--version")
    assert r.exit_code == 0 and r.stdout.startswith("autofix ") and "0.5.23" in r.stdout


def test_machine_paths_are_relative_to_the_repository(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "config.yaml").write_text(BAD)
    r = run("config.yaml", "--output-format", "github", "--isolated", cwd=tmp_path / "deploy")
    assert r.stdout.startswith("::error file=deploy/config.yaml,line=3,")


def test_an_unwritable_step_summary_is_a_warning(tmp_path):
    for i in range(11):
        (tmp_path / f"c{i:02}.yaml").write_text(BAD)
    r = run(str(tmp_path), "--output-format", "github", env={"GITHUB_STEP_SUMMARY": "/nonexistent/summary.md"})
    assert r.exit_code == 1 and "warning: the step summary was not written" in r.stderr


@pytest.mark.parametrize("kind", ["fifo", "symlink-to-fifo", "device"])
def test_a_step_summary_that_is_no_regular_file_is_a_warning_and_never_waited_on(tmp_path, kind):
    # issue 29: GITHUB_STEP_SUMMARY naming a FIFO no one reads hung the run in open() (a real process, under a
    # generous bound only so that a regression fails instead of hanging CI)
    import os
    import subprocess
    import sys

    for i in range(11):
        (tmp_path / f"c{i:02}.yaml").write_text(BAD)
    summary = tmp_path / "summary.fifo"
    if kind == "device":
        summary = Path(os.devnull)
    else:
        os.mkfifo(summary)
        if kind == "symlink-to-fifo":
            (tmp_path / "summary.md").symlink_to(summary)
            summary = tmp_path / "summary.md"
    r = subprocess.run([sys.executable, "-m", "autofix", str(tmp_path), "--output-format", "github"],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path,
                       env={**os.environ, "GITHUB_STEP_SUMMARY": str(summary),
                            "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    what = "a character device" if kind == "device" else "a FIFO"
    assert r.returncode == 1, r.stderr
    assert (f"{summary}:1:1: warning: the step summary was not written: not a regular file ({what})") in r.stderr


def test_no_unsafe_fixes_hint_for_a_rule_marked_unfixable(bad):
    r = run(str(bad), "--unfixable", "EP003", "--unsafe-fixes")
    assert "fixable with --unsafe-fixes" not in r.stderr
    r = run(str(bad), "--unfixable", "EP003")
    assert "fixable with --unsafe-fixes" not in r.stderr


def test_a_suppression_does_not_cover_what_a_fix_makes_appear(tmp_path):
    """The comment covers no EP003 of the file as written; with --unsafe-fixes, RUN019's fix (a2a none)
    makes EP003 appear, and that one is fixed too, not left for SGLang to refuse."""
    p = tmp_path / "g.sh"
    p.write_text("# autofix: ignore[EP003] reviewed\npython3 -m sglang.launch_server --model-path x \\\n"
                 "  --tp 8 --ep-size 8 --moe-runner-backend experimental_sgl_marlin --moe-a2a-backend deepep \\\n"
                 "  --ep-dispatch-algorithm static\n")
    r = run(str(p), "--write", "--unsafe-fixes", "--isolated")
    assert r.exit_code == 0, r.output
    assert "--ep-dispatch-algorithm dynamic" in p.read_text() and "autofix:" not in p.read_text()


def test_add_ignores_places_each_comment_where_its_finding_is(tmp_path):
    twice = "python3 -m sglang.launch_server --model-path x --tp 8 --ep 8 --ep-dispatch-algorithm static &\n"
    (tmp_path / "q.sh").write_text(f"#!/bin/sh\n{twice}{twice}wait\n")
    (tmp_path / "c.yaml").write_text(BAD.replace("static\n", "static  # autofix: ignore[ARG001] stale\n")
                                     + "enable_metrics: true\n")
    r = run(".", "--add-ignores", "--isolated", cwd=tmp_path)
    assert r.exit_code == 0, r.stderr
    assert (tmp_path / "q.sh").read_text() == f"#!/bin/sh\n# autofix: ignore[EP003]\n{twice}" \
                                              f"# autofix: ignore[EP003]\n{twice}wait\n"
    assert (tmp_path / "c.yaml").read_text() == BAD.replace("static\n", "static  # autofix: ignore[EP003]\n") \
        + "enable_metrics: true  # autofix: ignore[ARG001]\n"
    assert run(".", "--isolated", cwd=tmp_path).exit_code == 0


def test_add_ignores_writes_each_comment_in_a_real_comment(tmp_path):
    """Issue 29: marker text in a quoted value, a heredoc's body or a YAML block is data: it neither hides a
    finding from --add-ignores nor keeps a comment off its line, and every comment written is a real one."""
    launch = "python3 -m sglang.launch_server --model-path m"
    files = {
        "served.sh": f'{launch} --served-model-name "m # autofix: ignore[ARG001]" --enable-metricz\n',
        "heredoc.sh": f"cat > notes <<EOF\n# autofix: ignore-file[ARG001]\nEOF\n{launch} --enable-metricz\n",
        "block.yaml": "kind: ConfigMap\ndata:\n  notes: |\n    # autofix: ignore-file[ARG001]\n---\nkind: Pod\n"
                      "spec:\n  containers:\n    - name: s\n      command: [python3, -m, sglang.launch_server]\n"
                      "      args: [--model-path, m, --enable-metricz]\n",
        "Dockerfile": "FROM x\nRUN cat > /notes <<EOF\n# autofix: ignore-file[ARG001]\nEOF\n"
                      f"CMD [\"sh\", \"-c\", \"{launch} --served-model-name 'm # autofix: ignore[ARG001]' "
                      "--enable-metricz\"]\n",
        "c.yaml": 'model-path: m\nenable_metricz: "m # x"\n',
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    r = run(".", "--add-ignores", "--isolated", cwd=tmp_path)
    assert r.exit_code == 0, r.stderr
    marker = "# autofix: ignore[ARG001]"
    for name in ("served.sh", "heredoc.sh"):
        before = files[name].splitlines(keepends=True)
        assert (tmp_path / name).read_text() == "".join(before[:-1]) + f"{marker}\n" + before[-1]
    assert (tmp_path / "block.yaml").read_text() == files["block.yaml"].replace(
        "      command:", f"      {marker}\n      command:")
    assert (tmp_path / "Dockerfile").read_text() == files["Dockerfile"].replace("CMD", f"{marker}\nCMD")
    assert (tmp_path / "c.yaml").read_text() == files["c.yaml"].replace('"m # x"', f'"m # x"  {marker}')
    assert run(".", "--isolated", cwd=tmp_path).exit_code == 0


def test_add_ignores_writes_no_comment_into_a_compose_command_string(tmp_path):
    """A compose command string is data compose splits into words: a comment line written into a `|` block
    would become the script `sh -c` runs. The finding is placed at the string, and the comment above its key;
    a place that changes any finding (DKR003 then says the script is '#') is refused."""
    text = ("services:\n  s:\n    image: lmsysorg/sglang\n    entrypoint: [bash, -lc]\n    command: |\n"
            "      pip install -q x && \\\n      python3 -m sglang.launch_server --model-path m --tp 2\n")
    (tmp_path / "compose.yaml").write_text(text)
    r = run(".", "--add-ignores", "--isolated", cwd=tmp_path)
    assert r.exit_code == 0, r.stderr
    assert (tmp_path / "compose.yaml").read_text() == text.replace(
        "    command: |", "    # autofix: ignore[DKR003]\n    command: |")
    assert run(".", "--isolated", cwd=tmp_path).exit_code == 0
