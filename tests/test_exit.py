"""How the console script ends (``cli.main.console_entry``): once a command line of paths is checked and its
report flushed, the process ends without the interpreter's teardown; ``main`` run by a caller ends in
``SystemExit`` as before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BAD = "model-path: m\nenable-eplb: true\nep-size: 1\ntp-size: 2\n"

# A child that registers a teardown handler, then runs the entry named in argv[1] on the paths after it
_CHILD = """
import atexit, sys
atexit.register(lambda: print("teardown ran", file=sys.stderr))
from autofix.cli import main as cli
how = sys.argv[1]
sys.argv = ["autofix", *sys.argv[2:]]
if how == "console":
    cli.console_entry()
else:
    try:
        cli.main()
    except SystemExit as exc:
        print("SystemExit", exc.code, file=sys.stderr)
        raise
"""


def _child(how: str, *args: str, cwd: Path, **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOFIX_", "GITHUB_", "FORCE_COLOR"))}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-c", _CHILD, how, *args], cwd=cwd, env=env, timeout=120, **kw)


def _files(tmp_path: Path, n: int) -> list[str]:
    names = []
    for i in range(n):
        (tmp_path / f"c{i}.yaml").write_text(BAD, encoding="utf-8")
        names.append(f"c{i}.yaml")
    return names


def test_the_console_script_skips_the_teardown_and_loses_no_output(tmp_path):
    # stdout a pipe (block-buffered): every report line and the summary reach it before the process ends
    names = _files(tmp_path, 40)
    fast = _child("console", *names, cwd=tmp_path, capture_output=True, text=True)
    slow = _child("main", *names, cwd=tmp_path, capture_output=True, text=True)
    assert fast.returncode == slow.returncode == 1
    assert fast.stdout == slow.stdout and fast.stdout.count("EP0") >= 40
    assert "teardown ran" not in fast.stderr
    assert slow.stderr.splitlines()[-2:] == ["SystemExit 1", "teardown ran"]


def test_a_reader_that_left_before_the_last_flush_is_exit_141(tmp_path):
    # the report is still in stdout's buffer when the run ends; the reader is gone: the flush before the process
    # ends meets the broken pipe, and main says it as any other write's (quietly, 141), not a traceback
    names = _files(tmp_path, 5)
    r, w = os.pipe()
    os.close(r)
    try:
        done = _child("console", *names, cwd=tmp_path, stdout=w, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(w)
    assert done.returncode == 141
    assert done.stderr == ""


def test_a_full_stdout_at_the_last_flush_is_one_error_line_and_exit_2(tmp_path):
    names = _files(tmp_path, 5)
    with open("/dev/full", "w") as full:
        done = _child("console", *names, cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2
    said = [line for line in done.stderr.splitlines() if line != "teardown ran"]  # (an error ends as before)
    assert len(said) == 1 and said[0].startswith("autofix: cannot write to stdout: ")
