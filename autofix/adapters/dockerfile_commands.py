"""What Docker runs for a Dockerfile: each ``RUN``, and each stage's ``ENTRYPOINT`` and ``CMD`` joined
(``commands``), as BuildKit builds them; which instructions make a command, and how its words are read
(``Command.kind``). Names only the instructions (``dockerfile_syntax``): reading their words is the adapter's
(``autofix.adapters.dockerfile``).

Stages: only the last ``CMD`` and the last ``ENTRYPOINT`` of a stage count
(each ``RUN`` counts). A stage built ``FROM`` an earlier stage's name
inherits its ``ENTRYPOINT`` and ``CMD``; setting ``ENTRYPOINT`` drops the
inherited ``CMD``. A stage's command is read where the stage sets part of
it (an inherited exec ``ENTRYPOINT`` with the stage's own exec ``CMD`` is
one launch); a stage that sets neither is the earlier stage's launch, read
there once. An ``ENTRYPOINT`` that later stages complete with their own
``CMD`` is read as part of those launches, not alone. When several
launches share an instruction (two stages each adding a ``CMD`` to one
``ENTRYPOINT``), only the first launch edits it.

An ``ENTRYPOINT`` and a ``CMD`` make one command whatever their forms, as
BuildKit builds it (``plan``): a shell form is ``/bin/sh -c '<text>'``, so
an exec ``ENTRYPOINT`` that launches SGLang gets a shell-form ``CMD`` as
those three words, and a shell-form ``ENTRYPOINT`` runs alone (the
``CMD``'s words become the shell's ``$0``, ``$1``...). Where the launch
does not get the words written, the command is a launch without words
whose ``host`` says why (``written.ShellForm``, rule DKR002), and its fix
writes the shell-form instruction as the JSON array of its words. An exec
``ENTRYPOINT ["sh", "-c"]`` takes one word as its script: a ``CMD`` list
that spreads the launch over several words runs only the first, a
shell-form ``CMD`` makes the script ``/bin/sh`` (``written.SplitScript``,
rule DKR003; the fix writes the script as one item).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from autofix.adapters import embedded
from autofix.adapters.syntax import dockerfile_exec
from autofix.adapters.syntax.dockerfile_instruction import Instruction


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


def _kind(ins: Instruction | None) -> str | None:
    """How Docker runs an instruction's arguments: ``exec`` (a JSON array), ``broken`` (written as one, but
    not JSON: the shell form, DKR001), ``shell``; None for no instruction."""
    if ins is None:
        return None
    if ins.form == "exec":
        return "exec"
    return "broken" if not ins.heredoc and dockerfile_exec.looks_like_exec(ins.logical[0]) else "shell"


@dataclass(frozen=True, slots=True)
class Command:
    """What Docker runs for one ``RUN``, or for one stage's ``ENTRYPOINT`` and ``CMD``, and how it is read.

    Docker runs an exec-form ``ENTRYPOINT`` with the ``CMD``'s words after it, a shell-form one (or
    ``CMD``) as ``/bin/sh -c '<text>'`` (``dispatchEntrypoint``, ``dispatchCmd``: ``withShell``). ``kind``:
    ``tokens`` (exec forms: the words, an ENTRYPOINT's and a CMD's joined), ``script`` (one shell form),
    ``broken`` (``at`` is an exec form that is not JSON), ``shell-cmd`` (an exec ENTRYPOINT and a
    shell-form CMD, ``at``: it gets ``/bin/sh -c '<CMD>'`` as words), ``shell-entry`` (a shell-form
    ENTRYPOINT, ``at``, and a CMD: its words become the shell's ``$0``, ``$1``...). ``group`` holds the
    instructions in the order Docker joins their words; ``shared`` the indexes of those an earlier command
    holds too (read, not edited, here).
    """

    kind: str
    group: tuple[Instruction, ...]
    at: Instruction | None = None
    shared: frozenset[int] = frozenset()


def plan(entry: Instruction | None, cmd: Instruction | None) -> Command:
    """The command a stage's effective ``ENTRYPOINT`` and ``CMD`` make, one of each form or absent."""
    e, c = _kind(entry), _kind(cmd)
    group = tuple(i for i in (entry, cmd) if i is not None)
    if e == "broken":  # /bin/sh -c '[...]' runs, whatever the CMD
        return Command("broken", group, entry)
    if e == "shell":
        return Command("script" if c is None else "shell-entry", group, entry)
    if e == "exec" and entry is not None and c == "broken" and \
            embedded.shell_script([t.value for t in entry.tokens]) is not None:
        return Command("tokens", (entry,))  # ``["sh", "-c", "<script>"]`` runs its script; the CMD is its $0...
    if c == "broken":
        return Command("broken", group, cmd)
    if c == "shell":
        return Command("script" if e is None else "shell-cmd", group, cmd)
    return Command("tokens", group)


def commands(found: list[Instruction]) -> list[Command]:
    """What each ``RUN`` and each stage's ``ENTRYPOINT`` and ``CMD`` make Docker run, in file order (a
    stage's command where it sets part of it)."""
    stages: list[_Stage] = []
    runs: list[tuple[int, Command]] = []  # (position, command)
    stage = _Stage(None, None)
    for ins in found:
        if ins.keyword == "FROM":
            stage = _stage_of(ins, stages)
            stages.append(stage)
        elif ins.keyword == "RUN":
            runs.append((ins.start, plan(None, ins)))
        elif ins.keyword == "ENTRYPOINT":
            stage.entry = ins
        elif ins.keyword == "CMD":
            stage.cmd = ins
    if not stages:
        stages.append(stage)
    owned = []
    for st in stages:
        own = [i for i in (st.entry, st.cmd) if i is not None]
        if own:  # else all inherited: the earlier stage's launch
            owned.append((min(i.start for i in own), plan(*st.effective())))
    completed = {id(c.group[0]) for _, c in owned if len(c.group) == 2}
    # an ENTRYPOINT later stages complete with their CMD: read with them
    alone = [(pos, c) for pos, c in owned if len(c.group) == 1 and c.group[0].keyword == "ENTRYPOINT"
             and id(c.group[0]) in completed]
    ordered = runs + [p for p in owned if p not in alone]
    ordered.sort(key=lambda p: p[0])
    out: list[Command] = []
    seen: set[int] = set()
    for _, c in ordered:
        out.append(replace(c, shared=frozenset(k for k, i in enumerate(c.group) if id(i) in seen)))
        seen.update(id(i) for i in c.group)
    return out
