"""``sh -c`` given a launch as several words runs only the first (issue 29, case 18; rule DKR003).

compose splits a string ``command`` into words itself, without a shell (``go-shellwords``: quotes, and it
stops at an unquoted ``;`` ``&`` ``|`` ``<`` ``>``), and appends them to the ``entrypoint``; Kubernetes
appends ``args`` to ``command``; Docker a ``CMD`` list to an ``ENTRYPOINT``. ``sh -c`` takes the next word as
its script and the others as ``$0``, ``$1``.... Each case below is run for real: the container's words are
handed to the shell with a ``python3`` on ``PATH`` that records what it gets, before and after autofix's fix.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from autofix.adapters import dockerfile, manifest
from autofix.core.api import FixOptions, fix_source

SCRIPT = "python3 -m sglang.launch_server --model-path m --tp 2"
SGLANG = ["-m", "sglang.launch_server", "--model-path", "m", "--tp", "2"]


def compose_split(command: str) -> list[str]:
    """A compose string's words, as go-shellwords splits them (up to an unquoted operator)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    words = []
    for token in lexer:
        if token and all(c in ";&|<>" for c in token):
            break
        words.append(token)
    return words


def container_words(text: str) -> list[str]:
    """The words the first container of a compose file or Kubernetes manifest runs (no image defaults)."""
    doc = next(yaml.safe_load_all(text))
    if "services" in doc:
        service = next(iter(doc["services"].values()))
        parts = [service.get("entrypoint"), service.get("command")]
    else:
        container = doc["spec"]["containers"][0]
        parts = [container.get("command"), container.get("args")]
    words: list[str] = []
    for part in parts:
        if part is not None:
            words += compose_split(part) if isinstance(part, str) else [str(w) for w in part]
    return words


def python3_gets(words: list[str], tmp_path: Path) -> list[str] | None:
    """Run ``words`` with a ``python3`` on PATH that records its arguments; what it got, or None if it never ran."""
    stub = tmp_path / "bin" / "python3"
    stub.parent.mkdir(exist_ok=True)
    stub.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done > "$OUT"\n')
    stub.chmod(0o755)
    out = tmp_path / "got"
    out.unlink(missing_ok=True)
    env = {"PATH": f"{stub.parent}:/usr/bin:/bin", "OUT": str(out)}
    subprocess.run(words, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=60, check=False)
    return out.read_text().splitlines() if out.exists() else None


COMPOSE = "services:\n  sglang:\n    image: lmsysorg/sglang:latest\n    entrypoint: {entry}\n    command: {command}\n"
K8S = ("apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n    - name: s\n"
       "      command: {entry}\n      args: {args}\n")

CASES = {
    # the issue's reproducer
    "compose-plain-string": COMPOSE.format(entry='["sh", "-c"]', command=SCRIPT),
    "compose-double-quoted": COMPOSE.format(entry='["/bin/sh", "-c"]', command=f'"{SCRIPT}"'),
    "compose-single-quoted": COMPOSE.format(entry="[bash, -ec]", command=f"'{SCRIPT}'"),
    "compose-entrypoint-string": COMPOSE.format(entry="sh -c", command=SCRIPT),
    "compose-block-literal": COMPOSE.format(entry='["/bin/bash", "-c"]', command=f"|\n      {SCRIPT}\n"),
    "compose-block-folded": COMPOSE.format(
        entry='["sh", "-c"]', command=">\n      python3 -m sglang.launch_server\n      --model-path m --tp 2\n"),
    "compose-and-and": COMPOSE.format(entry='["sh", "-ec"]', command=f"echo start && {SCRIPT}"),
    "compose-flow-list": COMPOSE.format(entry='["sh", "-c"]', command=json.dumps(["python3", *SGLANG])),
    "compose-block-list": COMPOSE.format(
        entry='["sh", "-c"]', command="\n" + "".join(f"      - {w}\n" for w in ["python3", *SGLANG])),
    "k8s-flow-args": K8S.format(entry='["sh", "-c"]', args=json.dumps(["python3", *SGLANG])),
    "k8s-block-args": K8S.format(
        entry="\n        - /bin/bash\n        - -c",
        args="\n" + "".join(f"        - {json.dumps(w)}\n" for w in ["python3", *SGLANG])),
}


@pytest.mark.parametrize("text", list(CASES.values()), ids=list(CASES))
def test_the_split_launch_is_reported_and_fixed_to_run_as_written(text, tmp_path):
    assert python3_gets(container_words(text), tmp_path) in (None, [])  # python3 alone, or never: no SGLang
    r = fix_source(text, manifest, path="deploy.yaml")
    assert [(d.code, d.fixable) for d in r.diagnostics] == [("DKR003", True)]
    assert python3_gets(container_words(r.output), tmp_path) == SGLANG
    again = fix_source(r.output, manifest, path="deploy.yaml")
    assert again.diagnostics == () and again.launches == 1 and again.output == r.output


def test_the_issue_reproducer():
    text = ("services:\n  sglang:\n    image: lmsysorg/sglang:latest\n    entrypoint: [\"sh\", \"-c\"]\n"
            "    command: python3 -m sglang.launch_server --model-path m --tp 8 --enable_metrics\n")
    r = fix_source(text, manifest, path="compose.yaml")
    assert [(d.code, d.location.line, d.location.col) for d in r.diagnostics] == [
        ("DKR003", 5, 14), ("ARG001", 5, 68)]
    assert r.diagnostics[0].violation.message == (
        "sh -c runs only 'python3' as its script: compose splits the command string into words, and the others "
        "become its $0, $1..., so SGLang never starts")
    assert r.diagnostics[1].after == ("DKR003",)
    assert r.output == text.replace(
        "command: python3 -m sglang.launch_server --model-path m --tp 8 --enable_metrics",
        'command: ["python3 -m sglang.launch_server --model-path m --tp 8 --enable-metrics"]')


@pytest.mark.parametrize("text", [
    # the script is the whole launch: nothing to report
    COMPOSE.format(entry='["sh", "-c"]', command=f'["{SCRIPT}"]'),
    COMPOSE.format(entry="x", command=f'sh -c "{SCRIPT}"').replace("    entrypoint: x\n", ""),
    K8S.format(entry='["sh", "-c"]', args=f'["{SCRIPT}"]'),
    # the script runs "$@": its $1... are the launch (not read as one yet: no launch, nothing reported)
    K8S.format(entry='["sh", "-c", "exec \\"$@\\"", "--"]', args=json.dumps(["python3", *SGLANG])),
    # a launch without a shell
    COMPOSE.format(entry='["python3", "-m", "sglang.launch_server"]', command="--model-path m --tp 2"),
], ids=["compose-one-item", "compose-sh-c-quoted", "k8s-one-item", "k8s-exec-args", "compose-no-shell"])
def test_what_is_not_split(text, tmp_path):
    r = fix_source(text, manifest, path="deploy.yaml")
    assert r.diagnostics == () and r.launches == (0 if '"$@' in text else 1)
    assert python3_gets(container_words(text), tmp_path) == SGLANG


@pytest.mark.parametrize("text", [
    # items that hold blanks or quotes: the script they were meant as is unclear
    K8S.format(entry='["sh", "-c"]', args='["python3", "-m", "sglang.launch_server", "--served-model-name", "a b"]'),
    # the script word in the middle of a compose string that holds the shell too
    COMPOSE.format(entry="x", command=SCRIPT.replace("python3", "sh -c python3")).replace("    entrypoint: x\n", ""),
    # words split over the entrypoint and the command
    COMPOSE.format(entry='["sh", "-c", "python3"]', command='["-m", "sglang.launch_server", "--model-path", "m"]'),
], ids=["item-with-a-blank", "string-holds-the-shell", "across-two-keys"])
def test_reported_not_fixed(text):
    r = fix_source(text, manifest, path="deploy.yaml", options=FixOptions(unsafe=True))
    assert [(d.code, d.fixable) for d in r.diagnostics] == [("DKR003", False)]
    assert r.output == text


def test_a_dockerfile_cmd_list_after_sh_c(tmp_path):
    text = f'FROM x\nENTRYPOINT ["sh", "-c"]\nCMD {json.dumps(["python3", *SGLANG])}\n'
    r = fix_source(text, dockerfile, path="Dockerfile")
    assert [(d.code, d.location.line, d.location.col) for d in r.diagnostics] == [("DKR003", 3, 6)]
    assert r.output == f'FROM x\nENTRYPOINT ["sh", "-c"]\nCMD ["{SCRIPT}"]\n'
    assert python3_gets(["sh", "-c", "python3", *SGLANG], tmp_path) == []
    assert python3_gets(["sh", "-c", SCRIPT], tmp_path) == SGLANG


def test_a_shared_string_is_reported_not_fixed():
    text = ("x-cmd: &cmd python3 -m sglang.launch_server --model-path m\n"
            "services:\n  a:\n    entrypoint: [sh, -c]\n    command: *cmd\n")
    r = fix_source(text, manifest, path="compose.yaml")
    assert [(d.code, d.fixable) for d in r.diagnostics] == [("DKR003", False)]
    assert r.output == text


def test_a_string_that_only_names_sglang_is_no_launch():
    text = COMPOSE.format(entry='["sh", "-c"]', command="echo sglang.launch_server is starting")
    r = fix_source(text, manifest, path="compose.yaml")
    assert r.diagnostics == () and r.launches == 0


def test_a_dockerfile_list_on_several_lines_is_reported_not_fixed():
    text = ('FROM x\nENTRYPOINT ["sh", "-c"]\nCMD ["python3", "-m", "sglang.launch_server", \\\n'
            '     "--model-path", "m"]\n')
    r = fix_source(text, dockerfile, path="Dockerfile", options=FixOptions(unsafe=True))
    assert [(d.code, d.fixable) for d in r.diagnostics] == [("DKR003", False)]
    assert r.output == text
