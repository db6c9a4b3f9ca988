"""Every combination of a stage's ENTRYPOINT and CMD is read as the command Docker runs (issue 29, case 15).

The expectation is computed apart from autofix: BuildKit's parser (PyPI ``dockerfile``) gives each
instruction's form and words, and ``docker_argv`` joins them the way BuildKit's ``dispatchEntrypoint`` and
``dispatchCmd`` do (a shell form becomes ``/bin/sh -c '<text>'``; a shell-form ENTRYPOINT takes no
arguments: the CMD's words are the shell's ``$0``, ``$1``...; a builder flag on CMD fails the build). Then:

- the launches autofix reads get exactly the words SGLang gets;
- where the file names an SGLang launch that Docker does not run as written (SGLang never starts, or gets
  ``/bin/sh -c ...`` as its arguments), autofix says so (a DKR rule), never silently and never with a
  misleading launch of its own;
- its fixes give a Dockerfile whose launch Docker runs with the words meant.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

import dockerfile as buildkit
import pytest

from autofix.adapters import dockerfile
from autofix.core.api import FixOptions, fix_source
from autofix.schema import load

MEANT = ["--model-path", "m", "--tp", "8"]
LAUNCH = ["python3", "-m", "sglang.launch_server"]

ENTRYPOINTS = {
    "absent": None,
    "exec-launch": 'ENTRYPOINT ["python3", "-m", "sglang.launch_server"]',
    "shell-launch": "ENTRYPOINT python3 -m sglang.launch_server",
    "not-json-launch": "ENTRYPOINT ['python3', '-m', 'sglang.launch_server']",
    "exec-sh-c": 'ENTRYPOINT ["sh", "-c"]',
    "exec-sh-c-script": 'ENTRYPOINT ["sh", "-c", "python3 -m sglang.launch_server --model-path m --tp 8"]',
    "exec-wrapper": 'ENTRYPOINT ["tini", "--"]',
    "shell-wrapper": "ENTRYPOINT /entrypoint.sh",
}
CMDS = {
    "absent": None,
    "exec-args": 'CMD ["--model-path", "m", "--tp", "8"]',
    "shell-args": "CMD --model-path m --tp 8",  # `--model-path` is a builder flag to BuildKit: no build
    "not-json-args": "CMD ['--model-path', 'm', '--tp', '8']",  # the issue's reproducer, with the exec ENTRYPOINT
    "exec-launch": 'CMD ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "8"]',
    "shell-launch": "CMD python3 -m sglang.launch_server --model-path m --tp 8",
    "not-json-launch": "CMD ['python3', '-m', 'sglang.launch_server', '--model-path', 'm', '--tp', '8']",
}
SHELLS = {"sh", "bash", "/bin/sh", "/bin/bash"}


@dataclass(frozen=True)
class Ran:
    """What Docker runs: the container's words, or that the build fails."""

    argv: tuple[str, ...] | None  # None: the build fails


def docker_argv(text: str) -> Ran:
    """The command the last stage's image runs, from BuildKit's parse (stages built FROM an earlier stage's
    name inherit its ENTRYPOINT and CMD; a stage's own ENTRYPOINT drops the inherited CMD)."""
    stages: dict[str, tuple] = {}
    entry = cmd = None
    for c in buildkit.parse_string(text):
        if c.cmd.upper() == "FROM":
            words = c.value
            entry, cmd = stages.get(words[0], (None, None))
            current = words[2] if len(words) == 3 else None
            continue
        if c.cmd.upper() in ("CMD", "ENTRYPOINT") and c.flags:
            return Ran(None)  # instructions.Parse: "unknown flag"
        if c.cmd.upper() == "ENTRYPOINT":
            entry, cmd = c, None
        elif c.cmd.upper() == "CMD":
            cmd = c
        if current:
            stages[current] = (entry, cmd)
    argv: list[str] = []
    for c in (entry, cmd):
        if c is not None:
            argv += list(c.value) if c.json else ["/bin/sh", "-c", c.value[0]]
    return Ran(tuple(argv))


def sglang_args(argv: list[str]) -> list[str] | None:
    """The words SGLang gets from a container command, or None when no SGLang starts."""
    # the program, or the first word after a wrapper that runs its arguments (`tini --`, an entrypoint script)
    for i in range(len(argv)):
        if argv[i:i + 3] == LAUNCH:
            return argv[i + 3:]
        if argv[i] in SHELLS and argv[i + 1:i + 2] == ["-c"]:  # the script word runs; the words after are $0...
            return sglang_args(shlex.split(argv[i + 2])) if i + 2 < len(argv) else None
    return None


def read_words(text: str) -> list[list[str]]:
    """The words of each launch autofix reads as one SGLang runs (host launches left out)."""
    return [[w.text for w in launch.parsed.words] for launch in dockerfile.read(text, "Dockerfile", load())
            if launch.host is None]


def layouts(entry: str | None, cmd: str | None) -> dict[str, str]:
    lines = [i for i in (entry, cmd) if i]
    out = {"one-stage": "FROM lmsysorg/sglang:latest\n" + "".join(f"{i}\n" for i in lines)}
    if entry and cmd:  # the CMD completes an ENTRYPOINT the stage inherits
        out["inherited"] = f"FROM lmsysorg/sglang:latest AS base\n{entry}\nFROM base AS serve\n{cmd}\n"
    return out


CASES = [(f"{e}+{c}+{layout}", text)
         for e, entry in ENTRYPOINTS.items() for c, cmd in CMDS.items()
         for layout, text in layouts(entry, cmd).items()]


@pytest.mark.parametrize("text", [t for _, t in CASES], ids=[i for i, _ in CASES])
def test_the_launch_read_is_the_launch_docker_runs(text):
    ran = docker_argv(text)
    real = None if ran.argv is None else sglang_args(list(ran.argv))
    result = fix_source(text, dockerfile, path="Dockerfile", options=FixOptions(unsafe=True))
    hosts = [d for d in result.diagnostics if d.code.startswith("DKR") and not d.after]
    read = read_words(text)
    # what autofix reads is what SGLang gets; a launch Docker does not run is never read as one
    assert all(words == real for words in read), (read, real)
    if real is not None and not hosts:
        assert read == [real]
    named = "sglang.launch_server" in text
    if named and (real is None or real[:1] == ["/bin/sh"]):
        assert hosts, f"SGLang {'never starts' if real is None else 'gets /bin/sh -c'}: silently skipped"
    if real == MEANT:
        assert result.diagnostics == () and result.output == text
    # a fixed file runs the launch as read: SGLang gets the words meant, or what autofix now reads
    again = docker_argv(result.output)
    after = None if again.argv is None else sglang_args(list(again.argv))
    if hosts and all(d.fixable for d in hosts):
        assert all(words == after for words in read_words(result.output))
        assert after is not None


# -- what each combination reports, where, and its fix --------------------------------------------------------


def fixed_lines(text: str) -> tuple[list[tuple[str, int]], list[str]]:
    r = fix_source(text, dockerfile, path="Dockerfile", options=FixOptions(unsafe=True))
    return [(d.code, d.location.line) for d in r.diagnostics if not d.after], r.output.splitlines()[1:]


@pytest.mark.parametrize("entry, cmd, found, output", [
    # the issue's reproducer: the CMD is a shell form; SGLang would get /bin/sh -c "['--model-path', ...]"
    ("exec-launch", "not-json-args", [("DKR001", 3)], [ENTRYPOINTS["exec-launch"], CMDS["exec-args"]]),
    ("exec-launch", "shell-args", [("DKR002", 3)], [ENTRYPOINTS["exec-launch"], CMDS["exec-args"]]),
    ("shell-launch", "exec-args", [("DKR002", 2)], [ENTRYPOINTS["exec-launch"], CMDS["exec-args"]]),
    ("shell-launch", "not-json-args", [("DKR002", 2)], [ENTRYPOINTS["exec-launch"], CMDS["exec-args"]]),
    ("not-json-launch", "exec-args", [("DKR001", 2)], [ENTRYPOINTS["exec-launch"], CMDS["exec-args"]]),
    ("exec-sh-c", "exec-launch", [("DKR003", 3)],
     [ENTRYPOINTS["exec-sh-c"], 'CMD ["python3 -m sglang.launch_server --model-path m --tp 8"]']),
    ("exec-sh-c", "shell-launch", [("DKR003", 3)],
     [ENTRYPOINTS["exec-sh-c"], 'CMD ["python3 -m sglang.launch_server --model-path m --tp 8"]']),
    # a shell-form ENTRYPOINT running a script: the CMD's launch never runs; writing it in exec form gives the
    # script arguments it never had (unsafe, applied here)
    ("shell-wrapper", "exec-launch", [("DKR002", 2)], ['ENTRYPOINT ["/entrypoint.sh"]', CMDS["exec-launch"]]),
    # an exec ENTRYPOINT that runs its own script: the CMD is its $0...; the script is the launch, but
    # `CMD --model-path` fails the build (a builder flag): reported, and there are no words to write
    ("exec-sh-c-script", "shell-args", [("DKR002", 3)], [ENTRYPOINTS["exec-sh-c-script"], CMDS["shell-args"]]),
    ("exec-sh-c-script", "shell-launch", [], [ENTRYPOINTS["exec-sh-c-script"], CMDS["shell-launch"]]),
    ("exec-sh-c-script", "not-json-args", [], [ENTRYPOINTS["exec-sh-c-script"], CMDS["not-json-args"]]),
    # the words meant launch SGLang twice: reported, not fixed
    ("exec-launch", "shell-launch", [("DKR002", 3)], [ENTRYPOINTS["exec-launch"], CMDS["shell-launch"]]),
    ("shell-launch", "exec-launch", [("DKR002", 2)], [ENTRYPOINTS["shell-launch"], CMDS["exec-launch"]]),
])
def test_what_is_reported_and_fixed(entry, cmd, found, output):
    text = f"FROM lmsysorg/sglang:latest\n{ENTRYPOINTS[entry]}\n{CMDS[cmd]}\n"
    assert fixed_lines(text) == (found, output)


def test_the_issue_reproducer():
    text = ("FROM lmsysorg/sglang:latest\nENTRYPOINT [\"python3\", \"-m\", \"sglang.launch_server\"]\n"
            "CMD ['--model-path', 'm', '--tp', '8']\n")
    r = fix_source(text, dockerfile, path="Dockerfile")
    assert [(d.code, d.location.line, d.location.col, d.fixable) for d in r.diagnostics] == [("DKR001", 3, 5, True)]
    assert r.diagnostics[0].violation.message == (
        "CMD is not a valid JSON array (single quotes): Docker runs it as a /bin/sh -c command, which fails as "
        "the container starts")
    assert r.output == text.replace("['--model-path', 'm', '--tp', '8']", '["--model-path", "m", "--tp", "8"]')
    assert fix_source(r.output, dockerfile, path="Dockerfile").diagnostics == ()


def test_messages():
    def messages(entry: str, cmd: str) -> list[str]:
        text = f"FROM x\n{entry}\n{cmd}\n"
        return [d.violation.message for d in fix_source(text, dockerfile, path="Dockerfile").diagnostics
                if not d.after]

    assert messages(ENTRYPOINTS["exec-launch"], CMDS["shell-args"]) == [
        "CMD is in shell form, and Docker reads its --model-path as a build flag: the build fails (unknown flag: "
        "model-path); as a JSON array it would be the ENTRYPOINT's arguments"]
    assert messages(ENTRYPOINTS["exec-launch"], "CMD m --tp 8") == [
        "CMD is in shell form: the ENTRYPOINT's launch gets it as the words /bin/sh -c 'm --tp 8', which SGLang "
        "refuses"]
    assert messages(ENTRYPOINTS["shell-launch"], CMDS["exec-args"]) == [
        "ENTRYPOINT is in shell form: Docker runs it with /bin/sh -c alone, so its launch never gets the CMD's words"]
    assert messages(ENTRYPOINTS["shell-wrapper"], CMDS["exec-launch"]) == [
        "ENTRYPOINT is in shell form: Docker runs it with /bin/sh -c alone, so the CMD's launch never runs"]
    assert messages(ENTRYPOINTS["exec-sh-c"], CMDS["exec-launch"]) == [
        "sh -c runs only 'python3' as its script: the other words of the launch ('-m sglang.launch_server "
        "--model-path m --tp 8') become its $0, $1..., so SGLang never starts"]
    assert messages(ENTRYPOINTS["exec-sh-c"], CMDS["shell-launch"]) == [
        "sh -c gets the CMD in shell form as /bin/sh -c 'python3 -m sglang.launch_server --model-path m --tp 8': it "
        "runs /bin/sh as its script, so SGLang never starts"]


@pytest.mark.parametrize("cmd", [
    "CMD --model-path m --tp $TP",  # the shell would expand $TP: which word was meant?
    "CMD --model-path m \\\n    --tp 8",  # on two lines
    "CMD --model-path m && echo done",
])
def test_a_shell_form_that_is_more_than_words_is_reported_not_fixed(cmd):
    text = f"FROM x\n{ENTRYPOINTS['exec-launch']}\n{cmd}\n"
    r = fix_source(text, dockerfile, path="Dockerfile", options=FixOptions(unsafe=True))
    assert [(d.code, d.fixable) for d in r.diagnostics] == [("DKR002", False)]
    assert r.output == text


def test_two_stages_sharing_a_shell_form_entrypoint_report_it_once():
    text = ("FROM x AS base\nENTRYPOINT python3 -m sglang.launch_server\nCMD [\"--model-path\", \"a\"]\n"
            "FROM base AS other\nCMD [\"--model-path\", \"b\"]\n")
    r = fix_source(text, dockerfile, path="Dockerfile")
    assert [(d.code, d.location.line) for d in r.diagnostics] == [("DKR002", 2)]
    assert r.output == text.replace("ENTRYPOINT python3 -m sglang.launch_server",
                                    'ENTRYPOINT ["python3", "-m", "sglang.launch_server"]')
