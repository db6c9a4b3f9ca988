"""File names that hold control characters (issue 29, second round, finding 3): every human format, status,
note and error line shows them as escapes (``\\x1b``, ``\\n``), a diff names the file as git quotes it (so it
applies to that file and no other), autofix's own colours and line breaks stay, and the files are still read and
written by their real names. Real processes: the bytes on the streams are what is under test."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autofix.cli import runner
from autofix.common.diffs import diff_name
from autofix.common.escapes import visible
from autofix.explain.lookup import Explanation, Frame, render

ROOT = Path(__file__).resolve().parent.parent
BAD = "tp-size: 8\nmoe-a2a-backend: none\nep-dispatch-algorithm: static\n"
GOOD = BAD.replace("static", "dynamic")
NAMES = {  # a name, and how a report line shows it
    "osc": ("t\x1b]0;pwned\x07.yaml", "t\\x1b]0;pwned\\x07.yaml"),  # sets the terminal's title
    "csi": ("r\x1b[31mred.yaml", "r\\x1b[31mred.yaml"),  # colours what follows
    "newline": ("nl\n::x.yaml", "nl\\n::x.yaml"),  # splits a line: a forged one follows
    "cr": ("cr\rover.yaml", "cr\\rover.yaml"),  # a terminal writes what follows over the start
    "c1": ("c1\x9b31m.yaml", "c1\\x9b31m.yaml"),  # CSI in one character (C1)
    "del-tab": ("d\x7fe\tl.yaml", "d\\x7fe\\tl.yaml"),
}
# what no report holds: C0 but the line break and the tab (--statistics' columns), DEL, C1
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def autofix(*args: str, cwd: Path, env: dict | None = None, input: bytes | None = None):
    environ = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR") and
               not k.startswith("GITHUB_")}
    return subprocess.run([sys.executable, "-m", "autofix", *args], capture_output=True, cwd=cwd, timeout=120,
                          input=input, env={**environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8",
                                            **(env or {})})


@pytest.fixture
def tree(tmp_path):
    """A repository whose files are named with control characters: each a config with one fixable violation,
    one that cannot be checked (an SGLang config that is not YAML), and a directory with nothing to check."""
    (tmp_path / ".git").mkdir()
    for name, _ in NAMES.values():
        (tmp_path / name).write_text(BAD)
    (tmp_path / "x\x1b]0;bad\x07.yaml").write_text("tp-size: [8\nep-size: 8\n")
    (tmp_path / "empty\x1b[2J").mkdir()
    return tmp_path


@pytest.mark.parametrize("mode", [[], ["--output-format", "concise"], ["--show-fixes"], ["--check"], ["--diff"],
                                  ["--write"], ["--add-ignores"], ["--statistics"], ["--verbose"]],
                         ids=lambda m: " ".join(m) or "full")
def test_no_control_character_reaches_the_terminal(tree, mode):
    r = autofix(".", "empty\x1b[2J", *mode, cwd=tree)
    out, err = r.stdout.decode(), r.stderr.decode()
    assert r.returncode == 2, err  # the file that cannot be checked
    assert not RAW.search(out) and not RAW.search(err), (out, err)  # once: each name as it is
    said = out + err
    assert "x\\x1b]0;bad\\x07.yaml:2:8: error: invalid YAML" in err
    assert "empty\\x1b[2J:1:1: warning: no file to check in this directory" in err
    for name, shown in NAMES.values():
        if mode == ["--statistics"]:
            break
        if mode == ["--diff"]:  # the diff only: the files as its headers name them
            shown = diff_name(f"a/{name}")
        assert shown in said and name not in said, shown
        if mode == ["--write"]:
            assert f"Fixed 1 violation in {shown}\n" in err
        if mode == ["--add-ignores"]:
            assert f"Added suppressions for 1 finding in {shown}\n" in err
    lines = said.splitlines()
    assert not any(line.startswith(("::x.yaml", "over.yaml")) for line in lines)  # no line a name forged
    written = mode in (["--write"], ["--add-ignores"])
    for name, _ in NAMES.values():  # read and written by the real name
        assert ((tree / name).read_text() != BAD) is written


def test_the_github_format_writes_no_control_character(tree):
    """The github format's workflow commands hold the names in ``file=`` and in the message: the runner decodes
    only its own escapes (``%0A``, ``%3A``, ...) and prints the rest to the log, so an escape sequence there is
    shown as its escape too; a line break is still the runner's ``%0A`` (issue 29, third round)."""
    r = autofix(".", "--output-format", "github", cwd=tree)
    out, err = r.stdout.decode(), r.stderr.decode()
    assert r.returncode == 2, err
    assert not RAW.search(out) and not RAW.search(err), (out, err)
    assert "file=t\\x1b]0;pwned\\x07.yaml," in out and "file=nl%0A%3A%3Ax.yaml," in out, out


def test_stdin_filename(tmp_path):
    (tmp_path / ".git").mkdir()
    r = autofix("-", "--stdin-filename", "s\x1b]0;x\x07.yaml", cwd=tmp_path, input=BAD.encode())
    assert r.returncode == 1
    assert "s\\x1b]0;x\\x07.yaml:3:1: error: EP003" in r.stderr.decode()  # stdout: the diff
    assert not RAW.search(r.stderr.decode()) and not RAW.search(r.stdout.decode())
    assert '--- "a/s\\033]0;x\\a.yaml"' in r.stdout.decode()


def test_autofix_colours_stay(tree):
    r = autofix(".", cwd=tree, env={"FORCE_COLOR": "1"})
    out = r.stdout.decode()
    assert "\x1b[1m" in out and "\x1b[31m" in out  # autofix's own colours, bold and red
    assert not RAW.search(re.sub(r"\x1b\[[0-9;]*m", "", out))  # nothing else
    assert "\x1b]0;pwned" not in out and "\x1b[31mred.yaml" not in out
    assert "r\\x1b[31mred.yaml:3:1:" in out


@pytest.mark.parametrize("tool", ["git", "patch"])
def test_the_diff_applies_to_the_files_it_names(tree, tool):
    """A name with a line break once broke the header in two (``--- a/nl`` then a line of its own): a patch
    for another file, or none. Git's quoting (``--- "a/nl\\n::x.yaml"``) names the file itself."""
    if shutil.which(tool) is None:
        pytest.skip(f"needs {tool}")
    victim = tree / "nl"
    victim.write_text(BAD)  # the file the broken header named
    r = autofix(".", "--diff", cwd=tree)
    diff = r.stdout.decode()
    assert r.returncode == 2 and not RAW.search(diff)
    assert '--- "a/nl\\n::x.yaml"\n+++ "b/nl\\n::x.yaml"\n' in diff
    (tree / "fix.patch").write_text(diff)
    apply = ["git", "apply", "-p1", "fix.patch"] if tool == "git" else ["patch", "-p1", "-i", "fix.patch"]
    subprocess.run(apply, cwd=tree, check=True, capture_output=True)
    for name, _ in NAMES.values():
        assert (tree / name).read_text() == GOOD, name
    assert victim.read_text() == BAD


def test_diff_name():
    assert diff_name("a/x.yaml") == "a/x.yaml" and diff_name("a/café.yaml") == "a/café.yaml"
    assert diff_name("a/nl\n.yaml") == '"a/nl\\n.yaml"'
    assert diff_name("a/t\x1b]0;x\x07") == '"a/t\\033]0;x\\a"'
    assert diff_name("a/caf\udce9.yaml") == '"a/caf\\351.yaml"'  # the byte itself, as git quotes it
    assert diff_name("a/c1\x9b") == '"a/c1\\302\\233"'  # its UTF-8 bytes
    assert diff_name('a/q"b\\c') == '"a/q\\"b\\\\c"'


def test_visible():
    assert visible("plain é …") == "plain é …"
    assert visible("a\nb\tc\rd\x1b[0m\x07\x7f\x85") == "a\\nb\\tc\\rd\\x1b[0m\\x07\\x7f\\x85"
    assert visible("caf\udce9\n") == "caf\\xe9\\n"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_shows_names_escaped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for i in range(runner.PROGRESS_FROM):
        (tmp_path / f"{i:02d}\x1b]0;pwned\x07.yaml").write_text(GOOD)
    bar = _Terminal()
    rep = runner.run(["."], runner.Mode.CHECK, out=io.StringIO(), err=bar,
                     output=runner.Output(progress=True))
    assert rep.exit_code == 0
    assert "\\x1b]0;pwned\\x07.yaml" in bar.getvalue() and "\x1b]0;pwned" not in bar.getvalue()


def test_explain_shows_a_pasted_frame_escaped():
    text = render(Explanation("none", frame=Frame("x\x1b]0;pwned\x07.py", 3, "f\x1b[31m")))
    assert "x\\x1b]0;pwned\\x07.py:3 (f\\x1b[31m)" in text and "\x1b" not in text
