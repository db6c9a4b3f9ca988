"""Dockerfiles whose ``CMD``, ``ENTRYPOINT`` or ``RUN`` launch SGLang.

Where each instruction is comes from ``dockerfile_syntax`` (BuildKit's own
parser, plus exact offsets). The words are read the way Docker runs them:

- exec form (``CMD ["python3", "-m", "sglang.launch_server", ...]``): one
  word per array element; within a stage, an exec-form ``ENTRYPOINT`` and
  the stage's last exec-form ``CMD`` are one command, as Docker joins them;
- ``["sh", "-c", "<script>"]``: the JSON string is read as a shell script
  and edited inside the string;
- shell form (``CMD python3 -m sglang.launch_server ...``): the arguments
  are what ``/bin/sh -c`` runs, read as a shell script in place. An
  instruction Docker rewrites before the shell sees it (comment lines
  inside continuations, a backtick escape character, heredocs) is read but
  not edited.
"""

from __future__ import annotations

import json

from autofix.errors import CannotEdit
from autofix.formats import LAUNCH, embedded, tokens
from autofix.formats.dockerfile_syntax import Instruction, instructions
from autofix.formats.launch import Launch
from autofix.formats.manifest import _script_index
from autofix.formats.strings import json_string_view
from autofix.formats.view import View, identity
from autofix.schema import Schema

NAME = "dockerfile"
SOURCE = "command"
edit = embedded.edit
edit_entries = embedded.edit_entries
_RUNS = ("CMD", "ENTRYPOINT", "RUN")


def _render(value: str, like: str | None) -> str:
    return json.dumps(value, ensure_ascii=False)


def _tokens(ins: Instruction) -> list[tokens.Token]:
    lst = tokens.TokenList("json", ins.array_end, _render)
    return [tokens.Token(t.value, t.start, t.end, lst) for t in ins.tokens]


def _lf(view: View) -> View:
    """A CRLF file's instruction as the shell gets it: Docker ends lines at ``\\n`` and drops the ``\\r``."""
    text, offsets = [], []
    for i, c in enumerate(view.text):
        if c == "\r" and view.text.startswith("\r\n", i):
            continue
        text.append(c)
        offsets.append(view.offsets[i])
    offsets.append(view.offsets[len(view.text)])
    return View("".join(text), tuple(offsets), lambda piece: view.encode(piece.replace("\n", "\r\n")))


def _read_only(view: View) -> View:
    def refuse(piece: str) -> str:
        raise CannotEdit("Docker rewrites this instruction before the shell runs it "
                         "(comment lines in a continuation, a backtick escape or a heredoc)")

    return View(view.text, view.offsets, refuse)


def _commands(found: list[Instruction]) -> list[list[Instruction]]:
    """The instructions that make one command each: an exec ENTRYPOINT is joined with its stage's last exec CMD."""
    out: list[list[Instruction]] = []
    stage: list[Instruction] = []
    for ins in [*found, None]:
        if ins is None or ins.keyword == "FROM":
            entry = [i for i in stage if i.keyword == "ENTRYPOINT"][-1:]
            cmd = [i for i in stage if i.keyword == "CMD"][-1:]
            joined = entry and cmd and entry[0].form == cmd[0].form == "exec"
            for i in stage:
                if joined and i is entry[0]:
                    out.append([entry[0], cmd[0]])
                elif not (joined and i is cmd[0]):
                    out.append([i])
            stage = []
            continue
        if ins.keyword in _RUNS:
            stage.append(ins)
    return out


def read(text: str, path: str, schema: Schema) -> list[Launch]:
    """Every SGLang launch in the Dockerfile, in file order. Raises ``InputError`` when Docker would refuse it."""
    locate = embedded.locator(text)
    launches: list[Launch] = []
    for group in _commands(instructions(text, path)):
        if group[0].form == "shell":
            ins = group[0]
            region = text[ins.args_start:ins.end]
            if not LAUNCH.search(region):
                continue
            view = identity(text, ins.args_start, ins.end)
            if "\r\n" in view.text:
                view = _lf(view)
            launches.extend(embedded.script_launches(view if ins.verbatim else _read_only(view), path, schema,
                                                     locate))
            continue
        toks = [t for ins in group for t in _tokens(ins)]
        script = _script_index([t.value for t in toks])
        if script is not None:
            t = toks[script]
            launches.extend(embedded.script_launches(json_string_view(text, t.start, t.end), path, schema, locate))
            continue
        launch = tokens.read(text, toks, schema, locate)
        if launch is not None:
            launches.append(launch)
    return launches


def looks_like_config(launches: list[Launch]) -> bool:
    """A Dockerfile counts when one of its instructions launches SGLang."""
    return bool(launches)
