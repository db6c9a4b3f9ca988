"""Dockerfiles whose ``CMD``, ``ENTRYPOINT`` or ``RUN`` launch SGLang.

Where each instruction is comes from ``dockerfile_syntax`` (BuildKit's own
parser, plus exact offsets). The words are read the way Docker runs them:

- exec form (``CMD ["python3", "-m", "sglang.launch_server", ...]``): one
  word per array element; an exec-form ``ENTRYPOINT`` and an exec-form
  ``CMD`` are one command, as Docker joins them;
- ``["sh", "-c", "<script>"]``: the JSON string is read as a shell script
  and edited inside the string;
- shell form (``CMD python3 -m sglang.launch_server ...``): the arguments
  are what ``/bin/sh -c`` runs, read as a shell script. When Docker gives
  the shell the text as written (up to backslash-newlines, which the shell
  joins as Docker does) it is read and edited in place; otherwise (comment
  lines inside continuations, a backtick escape character, blanks after a
  continuation) it is read as Docker's logical line, each character mapped
  to where it is written, and an edit is made only where it lies within
  one run of the source (not across a line Docker joined);
- an exec form that is not JSON (``CMD ["python3", ...,]``): Docker runs
  the text with ``/bin/sh -c``, so it launches nothing; when it names an
  SGLang launch it is read as a launch without words whose ``host`` says
  so (``written.NotJson``, what rule DKR001 reports), and its fix writes the
  words it was meant to hold as the JSON array (``dockerfile_exec``);
- ``RUN <<EOT`` with nothing else on the line: BuildKit runs the heredoc
  body with the shell (or, with a ``#!`` line, with that interpreter), so the
  body is read as a shell script and edited in place (read only for
  ``<<-EOT``, whose leading tabs Docker strips). A heredoc that is the
  input of a command (``RUN python3 <<EOF``) is not a script.

Stages: only the last ``CMD`` and the last ``ENTRYPOINT`` of a stage count
(each ``RUN`` counts). A stage built ``FROM`` an earlier stage's name
inherits its ``ENTRYPOINT`` and ``CMD``; setting ``ENTRYPOINT`` drops the
inherited ``CMD``. A stage's command is read where the stage sets part of
it (an inherited exec ``ENTRYPOINT`` with the stage's own exec ``CMD`` is
one launch); a stage that sets neither is the earlier stage's launch, read
there once. An exec ``ENTRYPOINT`` that later stages complete with their
own ``CMD`` is read as part of those launches, not alone. When several
launches share an instruction (two stages each adding a ``CMD`` to one
``ENTRYPOINT``), only the first launch edits it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from autofix.arguments import Entry, ParsedArgs
from autofix.edits import Edit, apply_edits
from autofix.errors import CannotEdit
from autofix.formats import LAUNCH, dockerfile_exec, dockerfile_syntax, embedded, tokens
from autofix.formats.dockerfile_syntax import Heredoc, Instruction, instructions
from autofix.formats.launch import Launch
from autofix.formats.strings import json_string_view
from autofix.formats.view import View, identity, read_only, within
from autofix.model import Requote
from autofix.schema import Schema
from autofix.written import NotJson

NAME = "dockerfile"
SOURCE = "command"
_RUNS = ("CMD", "ENTRYPOINT", "RUN")
_BLANKS = " \t"
# BuildKit's reHeredoc, matched against the whole command of a RUN: a lone heredoc is run as a script
_LONE_HEREDOC = re.compile(r"^(\d*)<<(-?)([^<]*)$", re.DOTALL)
_SHELLS = frozenset({"sh", "bash", "dash", "ash", "ksh", "zsh"})


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


def _no_newline(piece: str) -> str:
    if "\n" in piece or "\r" in piece:
        raise CannotEdit("a line break would end the Dockerfile instruction")
    return piece


@dataclass(frozen=True, slots=True)
class _LogicalView(View):
    """An instruction's arguments as Docker's logical line (``Instruction.logical``).

    An edit is written back where it lies within one run of the source; one
    that would cross a line Docker joined (a continuation, a comment line
    it drops) raises ``CannotEdit``. A deletion's blanks in another run are
    kept (the shell reads any run of blanks alike).
    """

    def _run(self, i: int, j: int) -> bool:
        return self.offsets[j - 1] - self.offsets[i] == j - 1 - i

    def to_host(self, edit: Edit) -> Edit:
        i, j = edit.start, edit.end
        piece = self.encode(edit.text) if edit.text else ""
        if i == j:
            return Edit(self.offsets[i], self.offsets[i], piece)
        if not edit.text:
            a, b = i, j
            while a < b and self.text[a] in _BLANKS:
                a += 1
            while b > a and self.text[b - 1] in _BLANKS:
                b -= 1
            if a < b:
                while a > i and self.text[a - 1] in _BLANKS and self.offsets[a - 1] == self.offsets[a] - 1:
                    a -= 1
                while b < j and self.text[b] in _BLANKS and self.offsets[b] == self.offsets[b - 1] + 1:
                    b += 1
                i, j = a, b
        if not self._run(i, j):
            raise CannotEdit("Docker joins this instruction's lines before the shell runs it, and this edit "
                             "would cross a line it joined (a continuation, or a comment line it drops)")
        return Edit(self.offsets[i], self.offsets[j - 1] + 1, piece)


def _json_script_view(text: str, group: list[Instruction], token) -> View:
    """The ``sh -c`` script of an exec form: the JSON string ``token`` spans, decoded.

    A string that spans a line Docker joins (a ``\\`` continuation inside
    it) is decoded on the instruction's logical line, as Docker reads it; an
    edit is then written where it lies within one run of the source, and one
    that would cross the join is refused (``_LogicalView``).
    """
    try:
        return json_string_view(text, token.start, token.end)
    except CannotEdit:
        ins = next(i for i in group if i.start <= token.start < i.end)
        outer = _logical_view(ins)
        start, end = outer.offsets.index(token.start), outer.offsets.index(token.end - 1) + 1
        return within(json_string_view(outer.text, start, end), outer)


def _logical_view(ins: Instruction) -> View:
    text, offsets = ins.logical
    return _LogicalView(text, offsets, _no_newline)


def _heredoc_view(text: str, doc: Heredoc) -> View:
    """A heredoc body as the shell runs it: as written, or without leading tabs (``<<-``, read only)."""
    if doc.chomp:
        chars, offsets = [], []
        at_start = True
        for k in range(doc.start, doc.end):
            c = text[k]
            if at_start and c == "\t":
                continue
            at_start = c == "\n"
            chars.append(c)
            offsets.append(k)
        offsets.append(doc.end)
        return read_only(View("".join(chars), tuple(offsets), str),
                          "Docker removes the leading tabs of a '<<-' heredoc before the shell runs it")

    def encode(piece: str) -> str:
        if any(line.rstrip("\r") == doc.name for line in piece.split("\n")):
            raise CannotEdit(f"the edit would write the heredoc's terminator {doc.name!r} on a line of its own")
        return piece

    view = identity(text, doc.start, doc.end)
    return View(view.text, view.offsets, encode)


def _runs_as_script(body: str) -> bool:
    """Whether BuildKit's run of a lone heredoc body is a shell: no ``#!`` line, or one naming a shell."""
    if not body.startswith("#!"):
        return True
    words = body[2:].split("\n", 1)[0].split()
    if words and words[0].rsplit("/", 1)[-1] == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return bool(words) and words[0].rsplit("/", 1)[-1] in _SHELLS


def _heredoc_scripts(text: str, ins: Instruction) -> list[View]:
    """The heredoc bodies of a ``RUN`` that the shell runs as scripts: ``RUN <<EOT`` alone (BuildKit's rule)."""
    m = _LONE_HEREDOC.match(ins.logical[0])
    if ins.keyword != "RUN" or m is None or len(ins.heredocs) != 1 or len(m.group(3).split()) != 1:
        return []
    doc = ins.heredocs[0]
    if not _runs_as_script(text[doc.start:doc.end]):
        return []
    return [_heredoc_view(text, doc)]


@dataclass
class _Stage:
    """One ``FROM`` stage: its own last ENTRYPOINT and CMD, its RUNs, and the stage it is built on."""

    name: str | None
    base: _Stage | None
    entry: Instruction | None = None
    cmd: Instruction | None = None

    def effective(self) -> tuple[Instruction | None, Instruction | None]:
        """ENTRYPOINT and CMD as Docker sets them for this stage's image (inherited, or the stage's own)."""
        inherited = self.base.effective() if self.base else (None, None)
        entry = self.entry or inherited[0]
        cmd = self.cmd if self.cmd else None if self.entry else inherited[1]
        return entry, cmd


def _stage_of(ins: Instruction, stages: list[_Stage]) -> _Stage:
    """The stage a FROM starts; based on an earlier stage when its image is that stage's name (BuildKit:
    the name as written, against the stage names lower-cased; a build arg in it is not resolved)."""
    words = ins.logical[0].split()
    name = words[2].lower() if len(words) == 3 and words[1].lower() == "as" else None
    base = next((s for s in reversed(stages) if words and s.name == words[0]), None)
    return _Stage(name, base)


def _commands(found: list[Instruction]) -> list[tuple[list[Instruction], frozenset[int]]]:
    """The instructions that make one command each, in file order, with the indexes of the
    instructions in it that an earlier command holds too (read, not edited, here)."""
    stages: list[_Stage] = []
    groups: list[tuple[int, list[Instruction]]] = []  # (position, instructions)
    owners: list[tuple[_Stage, list[Instruction]]] = []
    stage = _Stage(None, None)
    for ins in found:
        if ins.keyword == "FROM":
            stage = _stage_of(ins, stages)
            stages.append(stage)
        elif ins.keyword == "RUN":
            groups.append((ins.start, [ins]))
        elif ins.keyword == "ENTRYPOINT":
            stage.entry = ins
        elif ins.keyword == "CMD":
            stage.cmd = ins
    if not stages:
        stages.append(stage)
    for st in stages:
        own = [i for i in (st.entry, st.cmd) if i is not None]
        if not own:
            continue  # all inherited: the earlier stage's launch
        entry, cmd = st.effective()
        if entry is not None and cmd is not None and entry.form == cmd.form == "exec":
            owners.append((st, [entry, cmd]))
        else:
            owners.extend((st, [i]) for i in own)
    completed = {id(g[0]) for _, g in owners if len(g) == 2}
    for st, g in owners:
        if len(g) == 1 and g[0].keyword == "ENTRYPOINT" and g[0].form == "exec" and id(g[0]) in completed:
            continue  # an ENTRYPOINT later stages complete with their CMD: read with them
        groups.append((min(i.start for i in g if i is st.entry or i is st.cmd), g))
    groups.sort(key=lambda p: p[0])
    out, seen = [], set()
    for _, g in groups:
        out.append((g, frozenset(k for k, i in enumerate(g) if id(i) in seen)))
        seen.update(id(i) for i in g)
    return out


@dataclass(frozen=True, slots=True)
class _Shared:
    """A token launch some of whose instructions an earlier launch holds (and edits): their spans are locked."""

    ctx: tokens.Context
    locked: tuple[tuple[int, int, int], ...]  # (start, end, line) of each shared instruction


def _guard(launch: Launch, make) -> list[Edit]:
    ctx = launch.ctx
    if not isinstance(ctx, _Shared):
        return make(launch)
    edits = make(replace(launch, ctx=ctx.ctx))
    for e in edits:
        for a, b, line in ctx.locked:
            if (e.start < b and e.end > a) if e.start < e.end else a < e.start < b:
                raise CannotEdit(f"the instruction on line {line} is part of an earlier stage's launch too: "
                                 "it is edited there")
    return edits


@dataclass(frozen=True, slots=True)
class _NotJson:
    """A ``CMD``/``ENTRYPOINT``/``RUN`` written as an exec form that Docker runs as the shell form."""

    ins: Instruction
    intent: dockerfile_exec.Intent


def _not_json(ins: Instruction, locate) -> Launch | None:
    """The launch-to-be of an exec form that is not JSON and names an SGLang launch, or None."""
    args = ins.logical[0]
    if ins.keyword not in _RUNS or ins.heredoc or not LAUNCH.search(args):
        return None
    intent = dockerfile_exec.read(args)
    if intent is None:
        return None
    words = intent.words
    if words is not None and tokens.launch_start(list(words)) is None \
            and embedded.shell_script_index(list(words)) is None:
        return None  # the words it means launch no SGLang (``["echo", "sglang.launch_server",]``)
    at = locate(ins.args_start)  # the ``[``
    return Launch(ParsedArgs(()), at, _NotJson(ins, intent), (Entry(0, None, (args,), (), at),),
                  NotJson(ins.keyword, intent.errors, intent.words))


def _as_json(ctx: _NotJson, ops) -> list[Edit]:
    """The edits that write a not-JSON exec form as the JSON array of the words it was meant to hold:
    each item not written as a JSON string yet, and a comma before the ``]``; nothing else."""
    words = ctx.intent.words
    if words is None or [type(op) for op in ops] != [Requote] or ops[0].words != words:
        raise CannotEdit("Docker runs this instruction as a shell command: only writing it as JSON applies")
    args, offsets = ctx.ins.logical
    edits = [Edit(it.start, it.end, json.dumps(it.value, ensure_ascii=False))
             for it in ctx.intent.items if not it.json]
    edits += [Edit(k, k + 1, "") for k in ctx.intent.stray]
    try:
        again = json.loads(apply_edits(args, edits))
    except ValueError:
        again = None
    if again != list(words):
        raise CannotEdit(f"the {ctx.ins.keyword} arguments do not read back as the intended JSON array")
    view = _LogicalView(args, offsets, _no_newline)
    try:
        return [view.to_host(e) for e in edits]
    except CannotEdit:
        raise CannotEdit(f"an item of the {ctx.ins.keyword} array is cut by a line Docker joins (a continuation "
                         "or a comment line): write it as JSON by hand") from None


def edit(text: str, launch: Launch, ops, schema: Schema) -> list[Edit]:
    """Settings edits for one launch (see ``embedded.edit``)."""
    if isinstance(launch.ctx, _NotJson):
        raise CannotEdit("Docker runs this instruction as a shell command: SGLang never reads its settings")
    return _guard(launch, lambda l: embedded.edit(text, l, ops, schema))


def edit_entries(text: str, launch: Launch, ops, schema: Schema) -> list[Edit]:
    """Argparse-stage edits for one launch (see ``embedded.edit_entries``); for an exec form that is
    not JSON, ``Requote`` (DKR001's fix) writes it as one."""
    if isinstance(launch.ctx, _NotJson):
        return _as_json(launch.ctx, ops)
    return _guard(launch, lambda l: embedded.edit_entries(text, l, ops, schema))


def _shell_launches(text: str, ins: Instruction, path: str, schema: Schema, locate) -> list[Launch]:
    if ins.heredocs:
        out = []
        for view in _heredoc_scripts(text, ins):
            if LAUNCH.search(view.text):
                out.extend(embedded.script_launches(view, path, schema, locate))
        if out or not LAUNCH.search(ins.logical[0]):
            return out
        # a command fed by a heredoc (``RUN python3 -m sglang.launch_server ... <<EOF``): its line, read only
        return embedded.script_launches(
            read_only(_logical_view(ins), "Docker joins a heredoc to this instruction before the shell runs it"),
            path, schema, locate)
    if not LAUNCH.search(ins.logical[0]):
        return []
    if not ins.verbatim:
        return embedded.script_launches(_logical_view(ins), path, schema, locate)
    view = identity(text, ins.args_start, ins.end)
    if "\r\n" in view.text:
        view = _lf(view)
    return embedded.script_launches(view, path, schema, locate)


def read(text: str, path: str, schema: Schema) -> list[Launch]:
    """Every SGLang launch in the Dockerfile, in file order. Raises ``InputError`` when Docker would refuse it."""
    locate = embedded.locator(text)
    launches: list[Launch] = []
    for group, shared in _commands(instructions(text, path)):
        if group[0].form == "shell":
            broken = _not_json(group[0], locate)
            launches.extend([broken] if broken else _shell_launches(text, group[0], path, schema, locate))
            continue
        toks = [t for ins in group for t in _tokens(ins)]
        script = embedded.shell_script([t.value for t in toks])
        locked = tuple((i.start, i.end, i.line) for k, i in enumerate(group) if k in shared)
        if script is not None:  # `sh -c <script>`: the script is the launch, if any (the words after are its $0...)
            t = toks[script]
            if not LAUNCH.search(t.value):
                continue
            if any(a <= t.start < b for a, b, _ in locked):
                continue  # the script of an inherited ``sh -c`` ENTRYPOINT: read where it is set
            launches.extend(embedded.script_launches(_json_script_view(text, group, t), path, schema, locate))
            continue
        launch = tokens.read(toks, schema, locate)
        if launch is not None:
            launches.append(replace(launch, ctx=_Shared(launch.ctx, locked)) if locked else launch)
    return launches


def comments(text: str, path: str = "-") -> list[tuple[int, int]]:
    """The spans of the Dockerfile's comment lines (``dockerfile_syntax.comments``); those of the shell scripts
    its instructions run are their launches' (``embedded.script_comments``). Raises ``InputError`` as ``read``."""
    return dockerfile_syntax.comments(text, instructions(text, path))


def looks_like_config(launches: list[Launch], schema: Schema | None = None) -> bool:
    """A Dockerfile counts when one of its instructions launches SGLang."""
    return bool(launches)
