"""A stdout or stderr whose encoding cannot hold a character (issue 29, case 11): the report is printed whole,
with backslash escapes, the exit code is the findings', and what ``--write`` wrote is said. Real processes,
since the streams' encoding is what is under test."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autofix.cli import runner
from autofix.cli.commands import app
from autofix.report import MACHINE

ROOT = Path(__file__).resolve().parent.parent
BAD = "tp-size: 8\nmoe-a2a-backend: none\nep-dispatch-algorithm: static\n"
GOOD = BAD.replace("static", "dynamic")
ACCENT = "model-path: m\nmodèle: 1\n"  # ARG001, no fix: it remains, and its message is not ASCII
ASCII = {  # the streams' encoding is ASCII
    "PYTHONIOENCODING=ascii": {"PYTHONIOENCODING": "ascii"},
    "PYTHONIOENCODING=ascii:strict": {"PYTHONIOENCODING": "ascii:strict"},
    "LC_ALL=C": {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"},
}


def env_of(extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8", "LC_ALL", "LC_CTYPE")}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def autofix(*args: str, cwd: Path, extra: dict, input: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autofix", *args], capture_output=True, cwd=cwd, input=input,
                          timeout=60, env=env_of(extra))


@pytest.mark.parametrize("how", ASCII)
def test_the_environment_really_makes_ascii_streams(how):
    out = subprocess.run([sys.executable, "-c", "import sys; print(sys.stdout.encoding, sys.stderr.encoding)"],
                         capture_output=True, text=True, env=env_of(ASCII[how]), check=True).stdout.split()
    assert out == ["ascii", "ascii"] or out == ["ANSI_X3.4-1968", "ANSI_X3.4-1968"]


@pytest.mark.parametrize("how", ASCII)
def test_write_on_an_ascii_stdout_reports_everything(tmp_path, how):
    (tmp_path / "a.yaml").write_text(BAD)
    (tmp_path / "b.yaml").write_text(ACCENT)
    r = autofix("a.yaml", "b.yaml", "--write", cwd=tmp_path, extra=ASCII[how])
    out, err = r.stdout.decode("ascii"), r.stderr.decode("ascii")  # ASCII, as asked
    assert r.returncode == 1, err  # one violation remains; once: "cannot write to stdout", exit 2
    assert (tmp_path / "a.yaml").read_text() == GOOD
    assert out == "b.yaml:2:1: error: ARG001 unknown key 'mod\\xe8le'; did you mean model?\n"
    assert "Fixed 1 violation in a.yaml\n" in err
    assert "Found 2 violations. Fixed 1 in 1 file; 1 remaining." in err and "cannot write" not in err


@pytest.mark.parametrize("fmt", sorted(MACHINE))
def test_a_machine_format_on_an_ascii_stdout_is_a_whole_document(tmp_path, fmt):
    (tmp_path / "b.yaml").write_text(ACCENT)
    r = autofix("b.yaml", "--output-format", fmt, cwd=tmp_path, extra=ASCII["PYTHONIOENCODING=ascii:strict"])
    assert r.returncode == 1, r.stderr
    out = r.stdout.decode("ascii")
    if fmt == "github":
        assert "unknown key 'mod\\xe8le'" in out and out.endswith("all annotated.\n")
    else:  # the JSON formats escape non-ASCII: the same bytes on any stream
        docs = [json.loads(line) for line in out.splitlines()] if fmt == "json-lines" else [json.loads(out)]
        assert "unknown key 'modèle'" in json.dumps(docs, ensure_ascii=False)


def test_stdin_write_on_an_ascii_stdout_prints_the_fixed_bytes(tmp_path):
    src = BAD.replace("static", "static  # né")
    r = autofix("-", "--write", cwd=tmp_path, extra=ASCII["PYTHONIOENCODING=ascii:strict"], input=src.encode())
    assert r.returncode == 0, r.stderr
    assert r.stdout == src.replace("static", "dynamic").encode()  # the file's own UTF-8, not escapes


def test_the_diff_on_an_ascii_stdout_is_the_files_text(tmp_path):
    (tmp_path / "c.yaml").write_text(BAD.replace("static", "static  # né"))
    r = autofix("c.yaml", "--diff", cwd=tmp_path, extra=ASCII["LC_ALL=C"])
    assert r.returncode == 1, r.stderr
    assert b"-ep-dispatch-algorithm: static  # n\xc3\xa9\n+ep-dispatch-algorithm: dynamic  # n\xc3\xa9\n" in r.stdout


def test_stdin_that_cannot_be_checked_passes_through_as_it_came():
    data = "tp-size: [8\nmodèle: x\n".encode()
    r = CliRunner().invoke(app, ["-", "--write"], input=data, prog_name="autofix")
    assert r.exit_code == 2 and r.stdout_bytes == data


def test_a_strict_stream_of_the_callers_gets_escapes(tmp_path):
    (tmp_path / "b.yaml").write_text(ACCENT)
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    rep = runner.run([str(tmp_path / "b.yaml")], runner.Mode.CHECK, out=out, err=io.StringIO())
    out.flush()
    assert rep.exit_code == 1
    assert raw.getvalue().endswith(b"unknown key 'mod\\xe8le'; did you mean model?\n")


# --- a closed stdin, a closed stdout, a reader that left (issue 29, second round, findings 4 and 5) ---------------

def closing(fd: int):
    """A ``preexec_fn`` that closes ``fd`` in the child, as ``<&-`` or ``>&-`` does: Python then has None for it."""
    return lambda: os.close(fd)


@pytest.mark.parametrize("args, code", [
    (["a.yaml"], 1),  # a command line of paths only (autofix.cli.main runs it without typer)
    (["a.yaml", "--check"], 1),
    (["a.yaml", "--write"], 0),
    (["explain", "EP003"], 0),
    (["rules"], 0),
])
def test_a_closed_stdin_that_is_not_read(tmp_path, args, code):
    (tmp_path / "a.yaml").write_text(BAD)
    r = subprocess.run([sys.executable, "-m", "autofix", *args], capture_output=True, cwd=tmp_path, timeout=60,
                       env=env_of({}), preexec_fn=closing(0))
    assert r.returncode == code, r.stderr  # once: "internal error: AttributeError: 'NoneType' ...", exit 2
    assert b"internal error" not in r.stderr
    assert (b"a.yaml" in r.stdout + r.stderr) if args[0] == "a.yaml" else r.stdout  # the run's report


@pytest.mark.parametrize("args", [["-"], ["-", "--write"], ["-", "--output-format", "json"], ["explain"],
                                  ["explain", "-"]])
def test_a_closed_stdin_that_is_read(tmp_path, args):
    r = subprocess.run([sys.executable, "-m", "autofix", *args], capture_output=True, cwd=tmp_path, timeout=60,
                       env=env_of({}), preexec_fn=closing(0))
    assert r.returncode == 2, r.stderr
    err = r.stderr.decode()
    assert "cannot read stdin: it is closed" in err and "internal error" not in err
    if args[0] == "-":
        assert "-:1:1: error: cannot read stdin: it is closed\n" in err
        if "--write" in args:
            assert r.stdout == b""  # nothing came in, nothing goes out
        if "json" in args:
            assert [e["message"] for e in json.loads(r.stdout)] == ["cannot read stdin: it is closed"]
        assert err.splitlines()[-1] == "No violations found. 1 file could not be checked."


@pytest.mark.parametrize("args", [["rules"], ["explain", "EP003"], ["--version"], ["a.yaml", "--check"]])
def test_a_closed_stdout(tmp_path, args):
    """As docs/usage.md says: one line, exit 2 (``rules`` once exited 0, its report lost without a word)."""
    (tmp_path / "a.yaml").write_text(BAD)
    r = subprocess.run([sys.executable, "-m", "autofix", *args], capture_output=True, cwd=tmp_path, timeout=60,
                       env=env_of({}), preexec_fn=closing(1))
    assert r.returncode == 2, r.stderr
    assert r.stderr.decode().splitlines()[-1] == "autofix: cannot write to stdout: it is closed"


@pytest.mark.parametrize("args, input", [
    (["-", "--write"], GOOD),  # the tester's: a clean file, once exit 1 ("a violation was found")
    (["-", "--write"], BAD),
    (["a.yaml"], None),  # autofix.cli.main's own path
    (["a.yaml", "--output-format", "json"], None),
    (["rules"], None),
    (["explain", "EP003"], None),
    (["--help"], None),
])
def test_a_reader_that_left(tmp_path, args, input):
    """A broken pipe (``autofix . | head``): quiet, exit 141 as for a process SIGPIPE ends; never 1 (which says
    "violations"), nor a traceback or an error line."""
    (tmp_path / "a.yaml").write_text(BAD)
    read, write = os.pipe()
    os.close(read)  # the reader left before autofix wrote a byte
    try:
        r = subprocess.run([sys.executable, "-m", "autofix", *args], stdout=write, stderr=subprocess.PIPE,
                           input=None if input is None else input.encode(), cwd=tmp_path, timeout=60, env=env_of({}))
    finally:
        os.close(write)
    assert r.returncode == 141, r.stderr
    err = r.stderr.decode()
    assert "autofix:" not in err and "Traceback" not in err and "Exception ignored" not in err, err
