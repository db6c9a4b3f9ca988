"""The shell reader against bash itself: the same scripts, the words bash runs, ``bash -n``'s verdict.

Hypothesis builds scripts from pieces (quotes of every kind, escapes,
``$VAR``, continuations, comments, heredocs terminated or not, ``case``
arms, ``;``/``&&``/pipes, CRLF and lone CR bytes, a trailing backslash,
``bash -c`` script words, data commands, syntax errors) around SGLang
launches, each launch marked ``--host hN``. ``/bin/bash`` runs each script
with a stub ``python3``/``sglang`` first on ``PATH`` that records its
argv; ``autofix.adapters.argv.read`` reads the same text. Held:

- ``read`` raises ``InputError`` exactly when ``bash -n`` refuses the script
  (or a ``bash -c`` script word in it, which ``bash -n`` does not read: the
  inner bash then refuses it when the script runs);
- the launches ``read`` finds are the ones bash runs (a heredoc body, a
  comment, an ``echo``'s words run nothing);
- each launch's words are bash's, in order: every word autofix knows (not
  an expansion) equal to the one bash passes, a word bash expands standing
  for any number of bash's (``"$@"``, an unset ``$V8``: none). Autofix
  keeps the ``\\r`` of a CRLF line ending out of a word
  (``argv._without_line_end``), so a word bash ends with ``\\r`` may be read
  without it.

Left out of the generated space, on purpose: what autofix reads statically
but bash decides when it runs (``set -e``, a failing ``a && L``, a function
never called or defined in a pipeline's subshell, ``bash -l`` whose profile
resets ``PATH``, ``sh``, which is dash here); ``${`` and ``$((`` with text the grammar cannot read (``bash
-n`` takes anything up to the matching ``}``; it fails when run), which
autofix refuses; `` `a` `b` ``, which it refuses too; and a ``$(...)``
launch inside an unterminated heredoc's body, which bash runs and autofix
reads as data (see ``shell_syntax._runs``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from autofix.adapters import argv
from autofix.common.errors import InputError
from autofix.schema import load

BASH = shutil.which("bash", path="/bin:/usr/bin")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")
SCHEMA = load()

# Parts a word is made of (several may be written together, as one word).
PARTS = [
    "--tp", "8", "--x=y", "a", "x#y", "a=b", "/p/q", "--k=v=w", "-c", "@x", "%x", "x,y", "a:b", "{", "}", "!x",
    '"a b"', "'a b'", '"a\\"b"', "'x'\"'\"'y'", "$'a\\tb'", "$'\\x41\\'x'", '$"loc"', '""', "''", '"\\$x"', "'$x'",
    '"a\\\\b"', '"a\\b"', '"${V}"', '"$V"', '"$U"', "\\ x", "a\\ b", "a\\\tb", "\\\\", "\\$x", "\\#x", "\\'",
    '"$(echo hi)"', "$(echo hi)", "`echo hi`", "$((1+2))", '"$((2*3))"', "$V", "${V}", "${V:-d}", "~/x", "x*",
    '"--f=v"', '--f="v w"', "--f='v'", '"a\nb"', "'a\nb'", '"a\\\nb"', "a\\\nb", '"$@"', "$'\\n'",
    "\\ #x", "\\\t#x", "x\\\n#y", "x\\\n\\\n#y", "\\\\ #x",  # `#` after an escaped blank, a continuation: a word
]
SEPARATORS = [" ", "  ", "\t", " \\\n  ", " \\\n", " `# note` ", " \\\n  `# tp` ", " \\\n# comment\n  ", " >>out.log ",
              " 2>&1 "]
PROGRAMS = ["python3 -m sglang.launch_server", "sglang serve", "FOO=1 python3 -m sglang.launch_server",
            'A="x y" B=2 sglang serve', "env A=1 python3 -m sglang.launch_server", "nohup python3 -m sglang.launch_server"]
# Where a launch runs ({L}: the launch).
PLACES = [
    "{L}", "true && {L}", "false || {L}", "{L} | cat", "{ {L}; }", "( {L} )", "if true; then {L}; fi",
    "if true\nthen\n  {L}\nfi", 'case "$1" in big) {L} ;; *) echo no ;; esac', "case x in\n  x)\n    {L}\n    ;;\nesac",
    "{L} & wait", "{L}; echo ok", "echo $({L})", "f() { {L}; }; f; true", "for i in 1; do {L}; done",
    # {L} >out.log sends stdout away, not stderr: stderr tells an inner bash -c refusal
    "while true; do {L}; break; done", "! {L}", "{L} # trailing comment", "{L} >out.log"
]
# Statements that hold launch text bash does not run ({P}: a launch program and its marker).
DATA = [
    "echo {P}", "# {P}", "printf '%s\\n' {P}", "cat <<EOF\n{P}\nEOF", "cat <<'EOF'\n{P}\nEOF",
    "cat <<-EOF\n\t{P}\n\tEOF", "cat <<EOF\n{P}\nEOF \n{P}\nEOF", "cat <<EOF\n$(weird\n{P}\nEOF", "cat <<EOF\n{P}",
    "# x\r{P}", "echo 'a\n{P}\n'", 'echo "$(cat <<X\n{P}\nX\n)"', "cat <<EOF; echo done\n{P}\nEOF",
]
OTHER = ["echo hi", "x=1", "export A=1", 'cat <<< "x"', "f() { echo f; }", "true", "cd ."]  # no `set -e`: it stops runs
# Fragments bash refuses (most of them, wherever they stand). Not `${` or `$((`: bash -n takes any text up
# to the matching `}` / `))` (`${\necho hi\n}` is a runtime "bad substitution"); autofix refuses what the
# grammar cannot read there.
ERRORS = [
    "echo 'oops", 'echo "oops', "echo $(oops", "if true; then echo", "fi", "done", "then", "esac", ";;", ")",
    "echo (", "{ a", "| a", "true &&", "echo `oops", "a & ; b", "case x in", "echo $'oops",
]


@st.composite
def words(draw):
    parts = draw(st.lists(st.sampled_from(PARTS), min_size=1, max_size=3))
    return "".join(parts)


def adjacent_backquotes(text: str) -> bool:
    """Whether a backquoted command is followed by another with only blanks between (the parts pair their backquotes)."""
    ticks = [i for i, c in enumerate(text) if c == "`"]
    return any(re.fullmatch(r"[ \t]*", text[ticks[j] + 1:ticks[j + 1]]) for j in range(1, len(ticks) - 1, 2))


@st.composite
def launch(draw, marker: int):
    """A launch: program words, the marker, then drawn words; maybe as a `bash -c` script word."""
    text = f"{draw(st.sampled_from(PROGRAMS))} --host h{marker}"
    for _ in range(draw(st.integers(0, 4))):
        text += draw(st.sampled_from(SEPARATORS)) + draw(words())
    assume(not adjacent_backquotes(text))  # `a` `b`: refused (the grammar reads one substitution), see shell_syntax
    if draw(st.integers(0, 4)) == 0:
        shell = draw(st.sampled_from(["bash -c", "bash -ec", "bash -x -c"]))  # not -l (resets PATH), not sh (dash here)
        if draw(st.booleans()):
            text = f"{shell} '" + text.replace("'", "'\\''") + "'"
        else:
            text = f'{shell} "' + "".join("\\" + c if c in '\\"$`' else c for c in text) + '"'
    return text


@st.composite
def scripts(draw):
    """A script, and the markers of its launches."""
    crlf = draw(st.integers(0, 3)) == 0
    statements, marker, in_heredoc = [], 0, False
    for _ in range(draw(st.integers(1, 5))):
        marker += 1
        kind = draw(st.sampled_from(["launch", "launch", "launch", "data", "other", "error"]))
        if kind == "launch":
            # a heredoc's body is data to autofix, also where bash runs a $(...) in it
            places = [p for p in PLACES if not in_heredoc or "$(" not in p]
            statements.append(draw(st.sampled_from(places)).replace("{L}", draw(launch(marker))))
        elif kind == "data":
            program = draw(st.sampled_from(["python3 -m sglang.launch_server", "sglang serve"]))
            data = draw(st.sampled_from(DATA))
            # unterminated: no delimiter line, or (CRLF) a delimiter an operator ends (`EOF`), and lines `EOF\r`
            in_heredoc = in_heredoc or data == "cat <<EOF\n{P}" or (crlf and data.startswith("cat <<EOF;"))
            statements.append(data.replace("{P}", f"{program} --host h{marker}"))
        elif kind == "other":
            statements.append(draw(st.sampled_from(OTHER)))
        elif draw(st.integers(0, 2)) == 0:  # an error, now and then
            statements.append(draw(st.sampled_from(ERRORS)))
    text = "\n".join(statements)
    text += draw(st.sampled_from(["\n", "\n", "", " \\", "\\", " \\\n"]))
    if crlf:
        text = text.replace("\n", "\r\n")
    return text


_STUB = "#!/bin/bash\nprintf '%s\\0' \"$@\" > \"$ARGV_OUT/$BASHPID.$RANDOM$RANDOM\"\n"


@pytest.fixture(scope="module")
def sandbox():
    with tempfile.TemporaryDirectory() as root:
        root = Path(root)
        (root / "bin").mkdir()
        for name in ("python3", "sglang"):
            stub = root / "bin" / name
            stub.write_text(_STUB)
            stub.chmod(0o755)
        (root / "cwd").mkdir()
        yield root


def bash_verdict(script: Path) -> bool:
    """Whether ``bash -n`` accepts the script."""
    return subprocess.run([BASH, "-n", str(script)], capture_output=True, timeout=10).returncode == 0


def run_bash(root: Path, script: Path) -> tuple[dict[str, list[str]], str]:
    """Run the script (``$1`` is ``big``): marker -> the words after the program for every launch that ran, and stderr."""
    out = Path(tempfile.mkdtemp(dir=root))
    env = {"PATH": f"{root / 'bin'}:/usr/bin:/bin", "HOME": str(root / "home"), "V": "val", "LC_ALL": "C",
           "ARGV_OUT": str(out)}
    done = subprocess.run([BASH, str(script), "big"], cwd=root / "cwd", env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=20)
    found: dict[str, list[str]] = {}
    for record in out.iterdir():
        args = record.read_bytes().decode("utf-8", "surrogateescape").split("\0")[:-1]
        if args[:2] == ["-m", "sglang.launch_server"]:
            args = args[2:]
        elif args[:1] == ["serve"]:
            args = args[1:]
        else:
            continue
        if len(args) >= 2 and args[0] == "--host":
            found[args[1].rstrip("\r")] = args
    shutil.rmtree(out)
    return found, done.stderr.decode("utf-8", "replace")


def same_words(ours, bash: list[str]) -> bool:
    """Autofix's words (``arguments.Word``) are bash's: each known word equal to bash's, in order; a word
    bash expands (``$V``, ``"$@"``, a glob) stands for any number of bash's (an unset ``$V8`` for none)."""
    if not ours:
        return not bash
    w, rest = ours[0], ours[1:]
    if w.dynamic:
        return any(same_words(rest, bash[k:]) for k in range(len(bash) + 1))
    return bool(bash) and same_word(w.text, bash[0]) and same_words(rest, bash[1:])


def same_word(ours: str, bash: str) -> bool:
    """Equal, but for the ``\\r`` of a line ending bash keeps in a word's end and autofix leaves out."""
    return ours == bash or (bash.endswith("\r") and ours.rstrip("\r") == bash.rstrip("\r"))


@given(scripts())
def test_the_reader_reads_what_bash_runs(sandbox, text):
    script = sandbox / "script.sh"
    script.write_bytes(text.encode("utf-8"))
    accepted = bash_verdict(script)
    try:
        launches = argv.read(text, "s.sh", SCHEMA)
    except InputError as exc:
        # bash -n does not read a `bash -c` script word: the inner bash refuses it when it runs
        inner = re.search(r"-c: line \d+: (syntax error|unexpected EOF)", run_bash(sandbox, script)[1]) if accepted else 0
        assert not accepted or inner, f"bash -n accepts, autofix refuses: {exc}"
        assert exc.line >= 1 and exc.col >= 1 and exc.line <= text.count("\n") + 1
        return
    assert accepted, "bash -n refuses, autofix reads it"
    ours = {}
    for launch in launches:
        words = launch.parsed.words
        assert words[0].text == "--host", [w.text for w in words]
        ours[words[1].text.rstrip("\r")] = words
    ran = run_bash(sandbox, script)[0]
    assert sorted(ours) == sorted(ran), "launches bash runs != launches autofix reads"
    for marker, words in ours.items():
        assert same_words(words, ran[marker]), (marker, [(w.text, w.dynamic) for w in words], ran[marker])
