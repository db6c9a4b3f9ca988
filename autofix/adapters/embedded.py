"""Launches found inside another file: the pieces every host adapter shares.

A host adapter (Kubernetes/compose manifests, Dockerfiles) finds where a
launch is written, hands that piece to an inner reader (``argv`` for a
shell script, ``tokens`` for a list of words) and keeps the inner reader's
context wrapped in ``Embedded`` so that edits go back through the same
``View`` to the host text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from autofix.adapters import tokens
from autofix.adapters.launch import Launch
from autofix.adapters.syntax.text_view import View, within
from autofix.common.diagnostics import EntryOp, Location, Op
from autofix.common.edits import Edit, line_col
from autofix.schema import Schema

if TYPE_CHECKING:
    from autofix.adapters.contract import Editor


@dataclass(frozen=True, slots=True)
class Embedded:
    """An inner reader's launch context, and the view of the host text it read.

    ``scripts``: the shell scripts the launch is written in, outermost first
    (a compose string, which no shell runs, is none), each as a chain of
    views: the script seen in its parent's text, then that parent seen in its
    own, up to the host text (``script_comments`` composes them on demand).
    """

    view: View
    inner: Editor  # ``autofix.adapters.argv`` or ``tokens``
    ctx: Any
    scripts: tuple[tuple[View, ...], ...] = ()


def locator(text: str) -> Callable[[int], Location]:
    """``offset -> Location`` (1-based line and column) for ``text``: ``edits.line_col``, whose table of line
    starts is made on the first call (a Dockerfile past its bounds is refused before one) and is compact for a
    big text (a list of ints made here took ~50 bytes a line: 850 MB for a 64 MiB Dockerfile of comments)."""
    return lambda i: Location(*line_col(text, i))


SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh"})

# Commands that take the words after them as data, not as a command to run:
# ``echo bash -c "..."`` prints the script. ``ssh`` joins its words into one
# string the remote shell splits again, so ``-c`` does not get the script word.
DATA_COMMANDS = frozenset({
    "echo", "printf", "cat", "tac", "grep", "egrep", "fgrep", "rg", "test", "[", "[[", "expr", "logger", "tee",
    "sed", "awk", "jq", "yq", "alias", "export", "declare", "local", "readonly", "printenv", "which", "type",
    "ssh",
})


# Commands that run the command after them in a container (``docker run IMAGE python3 -m ...``): with one of
# these sub-commands, a path the command names is the container's, not this host's. ``ssh`` (another host)
# is a data command above: what follows it is never read as a launch.
_CONTAINER_RUNNERS = {
    "docker": frozenset({"run", "create", "exec"}),  # and `docker container run`, `docker compose run|exec`
    "podman": frozenset({"run", "create", "exec"}),
    "nerdctl": frozenset({"run", "create", "exec"}),
    "kubectl": frozenset({"exec", "run", "debug"}),
    "oc": frozenset({"exec", "run", "debug", "rsh"}),
    "enroot": frozenset({"start", "exec"}),
}
_SLURM = frozenset({"srun", "sbatch", "salloc"})  # with pyxis' --container-image: in that container


def runs_elsewhere(values: list[str]) -> str | None:
    """The command among ``values`` (the words before a launch's program, or before the shell that runs
    its script) that runs it in a container: ``docker run``, ``kubectl exec``, ``srun --container-image``;
    None when it runs on this host.

    A runner is a word naming one (any path) followed by one of its sub-commands that run a command
    (``docker [options] run|create|exec``, ``kubectl exec|run|debug``, ``podman``, ``nerdctl``, ``oc``,
    ``enroot start|exec``), or Slurm's ``srun``/``sbatch``/``salloc`` with pyxis'
    ``--container-image``. Volume mounts (``-v host:container``) are not mapped: a path inside a
    container is never taken for this host's.
    """
    for i, v in enumerate(values):
        name = v.rsplit("/", 1)[-1]
        subcommands = _CONTAINER_RUNNERS.get(name)
        if subcommands is not None:
            found = next((w for w in values[i + 1:] if w in subcommands), None)
            if found is not None:
                return f"{name} {found}"
        elif name in _SLURM and any(w == "--container-image" or w.startswith("--container-image=")
                                    for w in values[i + 1:]):
            return f"{name} --container-image"
    return None


def shell_script(values: list[str]) -> int | None:
    """Index of the script word of ``sh -c <script>`` among a command's words, or None when no shell runs one.

    The shell is the first word naming a shell (``sh``, ``bash``, ``dash``,
    ``ash``, ``zsh``, any path) that is followed by its script option, at any
    position: the command word, or after a wrapper and its options
    (``exec``, ``env A=1``, ``srun --nodes 1``, ``docker run --gpus all img``,
    ``timeout 600``, ``kubectl exec pod --``), unless a word before it is a
    command that takes its words as data (``echo``, ``printf``, ``cat``,
    ``grep``, ... ``DATA_COMMANDS``). Options before the script are options,
    the script option a short one ending in ``c`` (``-c``, ``-lc``, ``-ec``,
    ``-x -c``; ``--norc`` is not one). The words after the script are the
    script's ``$0``, ``$1``...
    """
    for i, v in enumerate(values):
        name = v.rsplit("/", 1)[-1]
        if name in DATA_COMMANDS:
            return None
        if name not in SHELLS:
            continue
        j = i + 1
        while j < len(values) and values[j].startswith("-") and not _script_option(values[j]):
            j += 1
        if j + 1 < len(values) and _script_option(values[j]):
            return j + 1
    return None


def shell_script_index(values: list[str]) -> int | None:
    """``shell_script``'s index when the script launches SGLang, else None."""
    from autofix.adapters import LAUNCH

    i = shell_script(values)
    return i if i is not None and LAUNCH.search(values[i]) else None


# A word the shell reads as itself: no quotes, expansions, globs, operators or blanks
_PLAIN_WORD = re.compile(r"[\w./:=+@%^,-]+")
# What makes a text more than words to split and unquote for the shell (``plain_words``)
_SHELL_SYNTAX = re.compile(r"[$`\\*?\[\]{}~;&|<>()!#\n\r]")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def split_script(values: list[str]) -> int | None:
    """Index of the script word of ``sh -c <script>`` when that one word is only the start of a launch
    written as several (``sh -c python3 -m sglang.launch_server ...``: the shell runs ``python3`` alone,
    the other words are its ``$0``, ``$1``...), else None.

    The script must be a plain word (a script with blanks or ``"$@"`` is a real script) and the words from
    it on must launch SGLang.
    """
    i = shell_script(values)
    if i is None or not _PLAIN_WORD.fullmatch(values[i]) or tokens.launch_start(values[i:]) is None:
        return None
    return i


def script_of(words: list[str]) -> str | None:
    """The script that runs ``words`` as they are, when each is a plain word (no quoting is needed and
    none is lost), else None."""
    if not words or _ASSIGNMENT.match(words[0]) or not all(_PLAIN_WORD.fullmatch(w) for w in words):
        return None
    return " ".join(words)


def plain_words(text: str) -> tuple[str, ...] | None:
    """The words the shell splits ``text`` into, when it does no more than split and unquote them (no
    expansion, glob, operator, comment or assignment), else None."""
    import shlex

    if _SHELL_SYNTAX.search(text):
        return None
    try:
        words = shlex.split(text)
    except ValueError:  # an unclosed quote
        return None
    if not words or _ASSIGNMENT.match(words[0]):
        return None
    return tuple(words)


def _script_option(word: str) -> bool:
    """``-c``, ``-lc``, ``-ec``: short options, the last one ``c`` (``--norc`` is a long option)."""
    return len(word) > 1 and word[0] == "-" and word[1] != "-" and word.endswith("c")


def nested(launch: Launch, view: View, inner: Editor, script: bool = True) -> Launch:
    """``launch``, read by ``inner`` from ``view.text``, as a launch of the host text.

    A launch that is itself nested (a ``bash -c`` script inside the script)
    keeps one ``Embedded`` whose view goes through both. ``script``: a shell
    runs ``view.text`` (a compose string is split by compose, no shell).
    """
    ctx = launch.ctx
    own = ((view,),) if script else ()
    if isinstance(ctx, Embedded):
        scripts = own + tuple((*chain, view) for chain in ctx.scripts)
        return replace(launch, ctx=Embedded(within(ctx.view, view), ctx.inner, ctx.ctx, scripts))
    return replace(launch, ctx=Embedded(view, inner, ctx, own))


def script_comments(launches: list[Launch]) -> list[tuple[int, int]]:
    """The spans in the host text of the comments of the shell scripts ``launches`` are written in.

    Each script once (the launches of one script share its views), read by
    ``shell_syntax.comments`` and carried to the host text through its views.
    """
    from autofix.adapters.syntax import shell_syntax

    seen: set[tuple[int, ...]] = set()
    out: list[tuple[int, int]] = []
    for launch in launches:
        ctx = launch.ctx
        for chain in ctx.scripts if isinstance(ctx, Embedded) else ():
            key = tuple(map(id, chain))
            if key in seen:
                continue
            seen.add(key)
            for a, b in shell_syntax.comments(chain[0].text):
                for view in chain:
                    a, b = view.offsets[a], view.offsets[b]
                out.append((a, b))
    return out


def edit(text: str, launch: Launch, ops: list[Op], schema: Schema) -> list[Edit]:
    """Settings edits for a launch a host adapter found (see each inner reader's ``edit``)."""
    ctx = launch.ctx
    if isinstance(ctx, Embedded):
        inner = replace(launch, ctx=ctx.ctx)
        return [ctx.view.to_host(e) for e in ctx.inner.edit(ctx.view.text, inner, ops, schema)]
    return tokens.edit(text, launch, ops, schema)


def edit_entries(text: str, launch: Launch, ops: list[EntryOp], schema: Schema) -> list[Edit]:
    """Argparse-stage edits for a launch a host adapter found."""
    ctx = launch.ctx
    if isinstance(ctx, Embedded):
        inner = replace(launch, ctx=ctx.ctx)
        return [ctx.view.to_host(e) for e in ctx.inner.edit_entries(ctx.view.text, inner, ops, schema)]
    return tokens.edit_entries(text, launch, ops, schema)
