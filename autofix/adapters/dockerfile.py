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
  the text with ``/bin/sh -c``, so it launches nothing; when its words, with
  those Docker joins to them (an exec ``ENTRYPOINT``'s before a ``CMD``'s),
  launch SGLang it is read as a launch without words whose ``host`` says
  so (``written.NotJson``, what rule DKR001 reports), and its fix writes the
  words it was meant to hold as the JSON array (``dockerfile_exec``);
- ``RUN <<EOT`` with nothing else on the line: BuildKit runs the heredoc
  body with the shell (or, with a ``#!`` line, with that interpreter), so the
  body is read as a shell script and edited in place (read only for
  ``<<-EOT``, whose leading tabs Docker strips). A heredoc that is the
  input of a command (``RUN python3 <<EOF``) is not a script.

Which instructions make which command (the stages, an ``ENTRYPOINT`` and a ``CMD`` joined as BuildKit
joins them) is ``dockerfile_commands``; where Docker does not run a command as written, the command is a
launch without words whose ``host`` says why (``written.ShellForm``, rule DKR002; ``written.SplitScript``,
rule DKR003), and its fix writes the words as the JSON array of the launch (one item, for a split script).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from autofix.adapters import LAUNCH, argv, embedded, tokens
from autofix.adapters.dockerfile_commands import Command, commands
from autofix.adapters.launch import Launch, no_config_argument
from autofix.adapters.syntax import dockerfile_exec, dockerfile_syntax
from autofix.adapters.syntax.dockerfile_instruction import Heredoc, Instruction
from autofix.adapters.syntax.dockerfile_syntax import instructions
from autofix.adapters.syntax.strings import json_string_view
from autofix.adapters.syntax.text_view import View, identity, read_only, within
from autofix.common.arguments import Entry, ParsedArgs
from autofix.common.diagnostics import EntryOp, Location, Op, Requote
from autofix.common.edits import Edit, apply_edits
from autofix.common.errors import CannotEdit
from autofix.common.written import Host, NotJson, ShellForm, SplitScript
from autofix.schema import Schema

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter, Source

NAME = "dockerfile"
SOURCE: Source = "command"
CONFIG_FILES: Adapter | None = None  # a container's --config FILE is the container's: never read on this host
config_argument = no_config_argument
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


def _json_script_view(text: str, group: list[Instruction], token: tokens.Token) -> View:
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


@dataclass(frozen=True, slots=True)
class _Shared:
    """A token launch some of whose instructions an earlier launch holds (and edits): their spans are locked."""

    ctx: tokens.Context
    locked: tuple[tuple[int, int, int], ...]  # (start, end, line) of each shared instruction


def _guard(launch: Launch, make: Callable[[Launch], list[Edit]]) -> list[Edit]:
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


def _exec_words(group: tuple[Instruction, ...]) -> list[str] | None:
    """The words of exec-form instructions, joined; None when one of them is not an exec form."""
    if any(i.form != "exec" for i in group):
        return None
    return [t.value for i in group for t in i.tokens]


def _not_json(command: Command, locate: Callable[[int], Location]) -> Launch | None:
    """The launch-to-be of an exec form that is not JSON (``command.at``), or None when it launches no SGLang:
    its words, with the exec-form words Docker joins to them (an ENTRYPOINT's before a CMD's), or, when they
    are not known, the text of the instructions naming an SGLang launch."""
    ins = command.at
    assert ins is not None  # a "broken" command's instruction
    args = ins.logical[0]
    if ins.keyword not in _RUNS or ins.heredoc:
        return None
    intent = dockerfile_exec.read(args)
    if intent is None:
        return None
    k = command.group.index(ins)
    before, after = _exec_words(command.group[:k]), _exec_words(command.group[k + 1:])
    if intent.words is not None and before is not None and after is not None:
        words = [*before, *intent.words, *after]
        if tokens.launch_start(words) is None and embedded.shell_script_index(words) is None \
                and embedded.split_script(words) is None:
            return None  # the words it means launch no SGLang (``["echo", "sglang.launch_server",]``)
    elif not any(LAUNCH.search(i.logical[0]) for i in command.group):
        return None
    at = locate(ins.args_start)  # the ``[``
    return Launch(ParsedArgs(()), at, _NotJson(ins, intent), (Entry(0, None, (args,), (), at),),
                  NotJson(ins.keyword, intent.errors, intent.words))


@dataclass(frozen=True, slots=True)
class _Rewrite:
    """A host launch's fix, written once its words are known: ``Requote(0, words)`` is ``edit``."""

    words: tuple[str, ...] | None
    edit: Edit | None


def _args_span(ins: Instruction) -> tuple[int, int] | None:
    """The source span of an instruction's arguments when they are written as Docker reads them, on one
    run of the source (no continuation, comment line or CRLF inside), else None."""
    text, offsets = ins.logical
    if not text or offsets[len(text) - 1] - offsets[0] != len(text) - 1:
        return None
    return offsets[0], offsets[len(text) - 1] + 1


def _host(at: int, shown: str, host: Host, words: tuple[str, ...] | None, span: tuple[int, int] | None, new: str,
          locate: Callable[[int], Location]) -> Launch:
    """A launch its Dockerfile does not run as written: no words, ``host`` for the rules, and the fix
    that writes ``new`` over ``span`` (when ``words`` are known and the span is one run)."""
    loc = locate(at)
    edit = Edit(span[0], span[1], new) if words is not None and span is not None else None
    return Launch(ParsedArgs(()), loc, _Rewrite(words if edit else None, edit), (Entry(0, None, (shown,), (), loc),),
                  host)


def _as_array(words: Iterable[str]) -> str:
    return json.dumps(list(words), ensure_ascii=False)


def _written(text: str, ins: Instruction) -> tuple[str, tuple[int, int] | None, str | None]:
    """A shell-form instruction's arguments as written after its keyword, the span to rewrite them in (one
    run of the source, else None), and the first builder flag BuildKit takes from them (``CMD --model-path
    m``: ``--model-path``, which ``CMD`` does not take: Docker refuses to build it), or None."""
    flags = text[ins.start + len(ins.keyword):ins.args_start].split()
    if not flags:
        return ins.logical[0], _args_span(ins), None
    a = ins.start + len(ins.keyword)
    while text[a] in _BLANKS:
        a += 1
    written = text[a:ins.end].rstrip(_BLANKS)
    return written, None if "\n" in written or "\r" in written else (a, a + len(written)), flags[0]


def _shell_cmd(text: str, command: Command, path: str, schema: Schema,
               locate: Callable[[int], Location]) -> list[Launch]:
    """An exec ENTRYPOINT and a shell-form CMD: the ENTRYPOINT gets the words ``/bin/sh -c '<CMD>'``."""
    entry, cmd = command.group
    ew = [t.value for t in entry.tokens]
    args, span, flag = _written(text, cmd)
    if tokens.launch_start(ew) is not None:  # SGLang gets /bin/sh -c '<CMD>' as its arguments: DKR002
        words = embedded.plain_words(args) if span is not None else None
        if words is not None and tokens.launch_start(list(words)) is not None:
            words = None  # a launch of its own after the ENTRYPOINT's: which words were meant is unclear
        host: Host = ShellForm("CMD", args, False, words, flag=flag)
        return [_host(span[0] if span else cmd.args_start, args, host, words, span, _as_array(words or ()), locate)]
    if embedded.shell_script(ew) is not None:  # ``["sh", "-c", "<script>"]`` runs its script; the CMD is its $0...
        own = _token_launches(text, replace(command, kind="tokens", group=(entry,),
                                            shared=command.shared & {0}), path, schema, locate)
        if flag is None or not own:
            return own
        # a launch, but no image to run it in: the build fails on the flag (DKR002, with no words to write)
        return [_host(span[0] if span else cmd.args_start, args, ShellForm("CMD", args, False, None, flag=flag),
                      None, None, "", locate)]
    if flag is None and embedded.shell_script([*ew, "/bin/sh"]) == len(ew):  # ``["sh", "-c"]``: /bin/sh is its script
        if not LAUNCH.search(args):
            return []
        words = (args,) if span is not None else None
        shell = " ".join(ew[_shell_at(ew, len(ew)):])
        host = SplitScript(shell, "/bin/sh", ("-c", args), "CMD in shell form", words)
        return [_host(cmd.args_start, args, host, words, span, _as_array(words or ()), locate)]
    return _shell_launches(text, cmd, path, schema, locate)  # a wrapper (``tini --``) runs /bin/sh -c '<CMD>'


def _shell_entry(text: str, command: Command, path: str, schema: Schema,
                 locate: Callable[[int], Location]) -> list[Launch]:
    """A shell-form ENTRYPOINT and a CMD: ``/bin/sh -c '<ENTRYPOINT>'`` runs, the CMD's words are its ``$0``...
    (DKR002 when either launches SGLang: the launch never gets the CMD's words, or the CMD's never runs)."""
    entry, cmd = command.group
    cw = _exec_words((cmd,))
    cmd_launches = bool(LAUNCH.search(cmd.logical[0])) if cw is None else \
        tokens.launch_start(cw) is not None or embedded.shell_script_index(cw) is not None
    launches = _shell_launches(text, entry, path, schema, locate)
    if not launches and not cmd_launches:
        return []
    args = entry.logical[0]
    span = _args_span(entry)
    words = embedded.plain_words(args) if span is not None and not (launches and cmd_launches) else None
    host = ShellForm("ENTRYPOINT", args, True, words, runs_cmd=not launches, safe=bool(launches))
    return [_host(entry.args_start, args, host, words, span, _as_array(words or ()), locate)]


def _shell_at(values: list[str], script: int) -> int:
    """Index of the shell word that runs the script word ``values[script]``."""
    return max(k for k in range(script) if values[k].rsplit("/", 1)[-1] in embedded.SHELLS)


def _split(text: str, toks: list[tokens.Token], i: int, group: tuple[Instruction, ...],
           locate: Callable[[int], Location]) -> Launch:
    """``sh -c`` whose script word ``toks[i]`` is only the first word of the launch (DKR003); its fix writes the
    words from it on as one JSON string, when they are plain words of one instruction on one line."""
    values = [t.value for t in toks]
    first, last = toks[i], toks[-1]
    ins = next(g for g in group if g.start <= first.start < g.end)
    script = embedded.script_of(values[i:])
    one = last.start < ins.end and "\n" not in text[first.start:last.end]
    words = (script,) if script is not None and one else None
    host = SplitScript(" ".join(values[_shell_at(values, i):i]), values[i], tuple(values[i + 1:]),
                       f"{ins.keyword} items", words)
    return _host(first.start, " ".join(values[i:]), host, words, (first.start, last.end),
                 json.dumps(script, ensure_ascii=False), locate)


def _token_launches(text: str, command: Command, path: str, schema: Schema,
                    locate: Callable[[int], Location]) -> list[Launch]:
    """The launch of exec-form words: SGLang's, or the script of ``sh -c <script>`` (its words after are $0...)."""
    group = command.group
    toks = [t for ins in group for t in _tokens(ins)]
    values = [t.value for t in toks]
    locked = tuple((i.start, i.end, i.line) for k, i in enumerate(group) if k in command.shared)
    script = embedded.shell_script(values)
    if script is not None:  # `sh -c <script>`: the script is the launch, if any (the words after are its $0...)
        t = toks[script]
        if any(a <= t.start < b for a, b, _ in locked):
            return []  # the script of an inherited ``sh -c`` ENTRYPOINT: read where it is set
        if embedded.split_script(values) is not None:
            return [_split(text, toks, script, group, locate)]
        if not LAUNCH.search(t.value):
            return []
        return argv.script_launches(_json_script_view(text, list(group), t), path, schema, locate)
    launch = tokens.read(toks, schema, locate)
    if launch is None:
        return []
    return [replace(launch, ctx=_Shared(launch.ctx, locked)) if locked else launch]


def _as_json(ctx: _NotJson, ops: list[EntryOp]) -> list[Edit]:
    """The edits that write a not-JSON exec form as the JSON array of the words it was meant to hold:
    each item not written as a JSON string yet, and a comma before the ``]``; nothing else."""
    words = ctx.intent.words
    if words is None or len(ops) != 1 or type(ops[0]) is not Requote or ops[0].words != words:
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


def edit(text: str, launch: Launch, ops: list[Op], schema: Schema) -> list[Edit]:
    """Settings edits for one launch (see ``embedded.edit``)."""
    if isinstance(launch.ctx, (_NotJson, _Rewrite)):
        raise CannotEdit("Docker does not run this command as written: SGLang never reads its settings")
    return _guard(launch, lambda at: embedded.edit(text, at, ops, schema))


def edit_entries(text: str, launch: Launch, ops: list[EntryOp], schema: Schema) -> list[Edit]:
    """Argparse-stage edits for one launch (see ``embedded.edit_entries``); for a command Docker does not run
    as written, ``Requote`` writes it as a JSON array (DKR001, DKR002, DKR003's fix)."""
    ctx = launch.ctx
    if isinstance(ctx, _NotJson):
        return _as_json(ctx, ops)
    if isinstance(ctx, _Rewrite):
        if ctx.edit is None or len(ops) != 1 or type(ops[0]) is not Requote or ops[0].words != ctx.words:
            raise CannotEdit("Docker does not run this command as written: only writing it as JSON applies")
        return [ctx.edit]
    return _guard(launch, lambda at: embedded.edit_entries(text, at, ops, schema))


def _shell_launches(text: str, ins: Instruction, path: str, schema: Schema,
                    locate: Callable[[int], Location]) -> list[Launch]:
    if ins.heredocs:
        out = []
        for view in _heredoc_scripts(text, ins):
            if LAUNCH.search(view.text):
                out.extend(argv.script_launches(view, path, schema, locate))
        if out or not LAUNCH.search(ins.logical[0]):
            return out
        # a command fed by a heredoc (``RUN python3 -m sglang.launch_server ... <<EOF``): its line, read only
        return argv.script_launches(
            read_only(_logical_view(ins), "Docker joins a heredoc to this instruction before the shell runs it"),
            path, schema, locate)
    if not LAUNCH.search(ins.logical[0]):
        return []
    if not ins.verbatim:
        return argv.script_launches(_logical_view(ins), path, schema, locate)
    view = identity(text, ins.args_start, ins.end)
    if "\r\n" in view.text:
        view = _lf(view)
    return argv.script_launches(view, path, schema, locate)


def read(text: str, path: str, schema: Schema) -> list[Launch]:
    """Every SGLang launch in the Dockerfile, in file order. Raises ``InputError`` when Docker would refuse it."""
    locate = embedded.locator(text)
    launches: list[Launch] = []
    hosts = set()  # a command Docker does not run as written, reported once where two stages share it
    for command in commands(instructions(text, path)):
        kind = command.kind
        if kind == "script":
            found = _shell_launches(text, command.group[0], path, schema, locate)
        elif kind == "broken":
            broken = _not_json(command, locate)
            found = [broken] if broken else []
        elif kind == "shell-cmd":
            found = _shell_cmd(text, command, path, schema, locate)
        elif kind == "shell-entry":
            found = _shell_entry(text, command, path, schema, locate)
        else:
            found = _token_launches(text, command, path, schema, locate)
        for launch in found:
            if launch.host is not None:
                key = (launch.start, type(launch.host))
                if key in hosts:
                    continue
                hosts.add(key)
            launches.append(launch)
    return launches


def comments(text: str, path: str = "-") -> list[tuple[int, int]]:
    """The spans of the Dockerfile's comment lines (``dockerfile_syntax.comments``); those of the shell scripts
    its instructions run are their launches' (``embedded.script_comments``). Raises ``InputError`` as ``read``."""
    return dockerfile_syntax.comments(text, instructions(text, path))


def looks_like_config(launches: list[Launch], schema: Schema | None = None) -> bool:
    """A Dockerfile counts when one of its instructions launches SGLang."""
    return bool(launches)
