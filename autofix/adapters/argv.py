"""Shell scripts and command lines that launch SGLang.

Every ``python[3] -m sglang.launch_server ...`` and ``sglang serve ...``
command in the text is one launch. ``shell_syntax`` reads the script as
bash does (tree-sitter-bash's grammar, with bash's word boundaries) and
``shell_words`` removes quotes as bash does: simple commands wherever they
stand (pipelines, ``&&`` lists, ``case`` arms, ``if`` bodies, ``$(...)``),
continuations, quotes, comments, env-var prefixes and redirections; a
heredoc's body is data. A script bash would not run (an unterminated quote,
an unclosed ``if``) is an ``InputError`` where what is not closed opens,
and nothing is edited.

``read`` gives each launch's own words; ``config_argument`` finds its
``--config FILE`` the way SGLang's merger does, and ``autofix.core.merge`` puts
the file's settings in front (``api.fix_source`` reads the file).
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from autofix.adapters import embedded, yaml_config
from autofix.adapters.launch import ConfigArgument, Launch
from autofix.adapters.syntax import shell_syntax, shell_words
from autofix.adapters.syntax.shell_tree import ShellSyntaxError
from autofix.adapters.syntax.shell_words import ShellWord
from autofix.adapters.syntax.text_view import View
from autofix.common.arguments import Setting, Word, entries_of, parse_words
from autofix.common.diagnostics import Drop, EntryOp, Location, Op, Respell, Revalue, Rewrite, Unset
from autofix.common.edits import Edit, line_col, merge_deletions
from autofix.common.errors import CannotEdit, InputError
from autofix.schema import Schema

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter, Source

NAME = "shell"
SOURCE: Source = "command"  # what the argparse-stage rules see (``written.Written.source``)
# a launch's --config file is read on this host with it, as SGLang's merger reads it: a YAML config
CONFIG_FILES: Adapter | None = yaml_config


@dataclass(frozen=True, slots=True)
class Context:
    """The adapter's handle on one launch: the span of every word, where the launch ends."""

    spans: tuple[tuple[int, int], ...]  # per word: its span in the text (-1, -1: synthetic)
    end: int  # end of the launch's last word
    spans_start: int  # end of the launch's program words (`... -m sglang.launch_server`)


def _location(text: str, index: int) -> Location:
    return Location(*line_col(text, index))


# Text by which a command may launch SGLang (or run a script that does): ``sglang`` in its words, with at most
# quotes, backslashes and continuations in between; or a ``$'...'`` escape, which may spell it. A command is read
# when its text holds a match (``shell_syntax.commands``: no two matches can overlap).
MAY_LAUNCH = re.compile(r"s[\\'\"\n]*g[\\'\"\n]*l[\\'\"\n]*a[\\'\"\n]*n[\\'\"\n]*g|\$'")


def comments(text: str, path: str = "-") -> list[tuple[int, int]]:
    """The spans of the script's comments, as bash reads them (``shell_syntax.comments``; those of a ``bash -c``
    script word are its launches': ``embedded.script_comments``). Raises ``InputError`` as ``read`` does."""
    try:
        return shell_syntax.comments(text)
    except ShellSyntaxError as exc:
        line, col = line_col(text, exc.offset)
        raise InputError(path, line, col, f"cannot read the shell script: {exc.message}") from None


def _launch_args(values: list[str]) -> tuple[int, bool] | None:
    """Index of the first SGLang argument in a command's words, and whether it is ``sglang serve``."""
    for i, t in enumerate(values):
        if t.rsplit("/", 1)[-1] in embedded.DATA_COMMANDS:
            return None  # `echo python3 -m sglang.launch_server ...` prints the words, it runs nothing
        if t == "-m" and i + 1 < len(values) and values[i + 1] == "sglang.launch_server":
            return i + 2, False
        if t.rsplit("/", 1)[-1] == "sglang" and i + 1 < len(values) and values[i + 1] == "serve":
            return i + 2, True
    return None


def _without_line_end(text: str, word: ShellWord, value: str) -> tuple[int, str]:
    """The word's end and value without the carriage returns of a CRLF line ending after it.

    Bash reads them as part of the word (SGLang gets ``8\\r``); autofix
    reads the value the author wrote, and keeps the ``\\r`` out of its edits.
    A ``\\r`` escaped by a backslash (a backslash before ``\\r\\n``: the
    word is ``\\r``, ARG006 says why) and a word of nothing else are kept.
    """
    e = word.end
    while e > word.start and text[e - 1] == "\r":
        e -= 1
    run = len(text[word.start:e]) - len(text[word.start:e].rstrip("\\"))
    if run % 2:
        e += 1  # the first CR is escaped: a character of the word
    if e == word.start or e == word.end or word.pieces[-1].quoting or word.pieces[-1].end != word.end:
        return word.end, value
    return e, value[: len(value) - (word.end - e)]


def read(text: str, path: str, schema: Schema) -> list[Launch]:
    """Every SGLang launch in the script ``text``, in order (``read_script`` with its defaults)."""
    return read_script(text, path, schema)


def read_script(text: str, path: str, schema: Schema, locate: Callable[[int], Location] | None = None,
                dynamic: Callable[[int, int], bool] | None = None, *, elsewhere: str | None = None) -> list[Launch]:
    """Every SGLang launch in the script ``text``, in order.

    ``locate(offset)`` gives the location of a text offset for messages (by
    default its line and column in ``text``; a script inside another file's
    string passes the host file's). ``dynamic(start, end)`` says whether the
    word ``text[start:end]`` is unknown (default: bash expands part of it;
    a compose string, which no shell runs, passes its own rule).

    A launch run in a container (``docker run IMAGE python3 -m ...``, also
    through a script, ``docker run IMAGE bash -c "..."``) has that command in
    ``Launch.elsewhere`` (``embedded.runs_elsewhere``); ``elsewhere`` is the
    one a script given here runs in.

    A shell that runs a script (``bash -lc "<script>"``, ``sh -c '...'``)
    whose script launches SGLang: the script word is read as a script (its
    quotes removed as bash removes them, so a ``$VAR`` in double quotes stays
    an expansion), and its launches are edited inside the word
    (``Launch.ctx`` is then an ``embedded.Embedded``).

    Raises ``InputError`` (at ``locate``'s position of the place bash stops
    reading) for a script bash would not run.
    """
    locate = locate or (lambda i: _location(text, i))
    try:
        commands = shell_syntax.commands(text, MAY_LAUNCH)
    except ShellSyntaxError as exc:
        loc = locate(exc.offset)
        raise InputError(path, loc.line, loc.col, f"cannot read the shell script: {exc.message}") from None
    launches = []
    for cmd in commands:
        values = [shell_words.value(text, w) for w in cmd.words]
        found = _launch_args(values)
        if found is None:
            launches.extend(_shell_c_launches(text, cmd, values, path, schema, locate, elsewhere))
            continue
        first, serve = found
        out: list[Word] = []
        spans: list[tuple[int, int]] = []
        i = first
        while i < len(cmd.words):
            w, v = cmd.words[i], values[i]
            if serve and (v == "--model-type" or v.startswith("--model-type=")):
                i += 2 if v == "--model-type" else 1  # taken by `sglang serve` itself
                continue
            e, v = _without_line_end(text, w, v)
            s = w.start
            if serve and not out and not v.startswith("-"):
                out.append(Word("--model-path", locate(s), None))  # cli/serve.py:62
                spans.append((-1, -1))
            out.append(Word(v, locate(s), len(spans), w.dynamic if dynamic is None else dynamic(s, e)))
            spans.append((s, e))
            i += 1
        program = cmd.words[first - 1]
        head = _without_line_end(text, program, values[first - 1])[0]
        end = max([e for _, e in spans] + [head])
        parsed = parse_words(schema, out)
        launches.append(Launch(parsed, locate(cmd.start), Context(tuple(spans), end, head), entries_of(parsed),
                               elsewhere=elsewhere or embedded.runs_elsewhere(values[:first])))
    return launches


def _shell_c_launches(text: str, cmd: shell_syntax.Command, values: list[str], path: str, schema: Schema,
                     locate: Callable[[int], Location], elsewhere: str | None) -> list[Launch]:
    """The launches of the script a shell command (``bash -c "<script>"``) runs, read inside its word.

    The shell may follow a wrapper and its options (``srun --nodes 1 bash -c``,
    ``docker run img sh -c``), not a command that prints its words
    (``embedded.shell_script``). ``elsewhere``: the container the command runs in, if any (else the
    wrapper's, ``docker run img sh -c``).
    """
    script = embedded.shell_script_index(values)
    if script is None:
        return []
    return script_launches(shell_words.view(text, cmd.words[script]), path, schema, locate,
                           elsewhere=elsewhere or embedded.runs_elsewhere(values[:script]))


def script_launches(view: View, path: str, schema: Schema, locate: Callable[[int], Location],
                    elsewhere: str | None = None) -> list[Launch]:
    """The SGLang launches of a shell script seen through ``view``: a host file's (a Dockerfile's ``RUN`` or
    ``CMD``, a container's command) or a command line's ``bash -c`` word, located in the host text (``locate``:
    a host offset's place). ``elsewhere``: the container the script runs in, if known (``read_script``)."""
    found = read_script(view.text, path, schema, lambda i: locate(view.offsets[i]), elsewhere=elsewhere)
    return [embedded.nested(launch, view, sys.modules[__name__]) for launch in found]


def _quote(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return shlex.quote(str(value))


def _same_quotes(original: str, new: str) -> str:
    """Keep the quote style of the word being replaced when it is simple to."""
    if len(original) >= 2 and original[0] == original[-1] and original[0] in "'\"":
        q = original[0]
        if q not in new and "\\" not in new and "$" not in new:
            return f"{q}{new}{q}"
    return _quote(new)


def edit(text: str, launch: Launch, ops: list[Op], schema: Schema) -> list[Edit]:
    """Edits that make this launch's settings follow ``ops``.

    Set on a written flag replaces its value word (or the whole
    ``--flag=value`` word); Set on an absent flag appends it after the last
    argument, on a continuation line of its own when the command is written
    one flag per line; Unset deletes every occurrence's words (whole lines
    when they stand alone, and the continuation that led to a deleted last line).
    """
    if isinstance(launch.ctx, embedded.Embedded):  # a launch inside a `bash -c` script word
        return embedded.edit(text, launch, ops, schema)
    ctx: Context = launch.ctx
    parsed = launch.parsed
    settings = parsed.settings
    edits: list[Edit] = []
    deletions: list[Edit] = []
    added: list[str] = []
    for op in ops:
        option = schema[op.dest]
        if isinstance(op, Unset):
            deletions.extend(_delete(text, ctx, s) for s in parsed.occurrences if s.dest == op.dest)
            continue
        s = settings.get(op.dest)
        if s is not None:
            if option.nargs == 0:
                continue
            if isinstance(op.value, list):  # an option of several values (nargs '*'): all its words
                edits.append(_set_words(text, ctx, s, op.value))
                continue
            if s.inline:
                a, b = ctx.spans[s.option_index]
                edits.append(Edit(a, b, _inline(text[a:b], s.written, _text(op.value))))
            else:
                a, b = ctx.spans[s.value_indexes[0]]
                word = str(op.value) if not isinstance(op.value, bool) else _quote(op.value)
                edits.append(Edit(a, b, _same_quotes(text[a:b], word)))
            continue
        added.append(option.flag if option.nargs == 0 else " ".join((option.flag, *_value_words(op.value))))
    deletions = [_drop_dangling_continuation(text, ctx, d) for d in merge_deletions(deletions)]
    if added:
        edits.append(_append(text, ctx, added, deletions))
    return edits + deletions


def _value_words(value: object) -> list[str]:
    """The quoted words of a value: one, or one per item of a list (an option of several values)."""
    return [_quote(v) for v in value] if isinstance(value, list) else [_quote(value)]


def _set_words(text: str, ctx: Context, s: Setting, values: list[Any]) -> Edit:
    """Write ``values`` as the value words of setting ``s`` (``--flag a b``), replacing the ones written."""
    words = " ".join(_quote(v) for v in values)
    a, b = ctx.spans[s.option_index]
    if a < 0:
        raise CannotEdit("cannot edit an argument autofix did not read from the text")
    if s.inline:
        return Edit(a, b, " ".join([s.written, words]) if words else s.written)
    if not s.value_indexes:
        return Edit(b, b, " " + words if words else "")
    start, end = ctx.spans[s.value_indexes[0]][0], ctx.spans[s.value_indexes[-1]][1]
    return Edit(start, end, words)


def edit_entries(text: str, launch: Launch, ops: list[EntryOp], schema: Schema) -> list[Edit]:
    """Edits for argparse-stage fixes: each op rewrites one entry's words in place.

    Raises ``CannotEdit`` for words autofix did not read from the text (the
    model path ``sglang serve`` takes as a positional).
    """
    if isinstance(launch.ctx, embedded.Embedded):
        return embedded.edit_entries(text, launch, ops, schema)
    ctx: Context = launch.ctx
    edits: list[Edit] = []
    deletions: list[Edit] = []
    for op in ops:
        entry = launch.entries[op.entry]
        first = _span(ctx, entry.words[0])
        if isinstance(op, Drop):
            deletions.append(_delete_words(text, ctx, entry.words))
        elif isinstance(op, Respell):
            new = _inline(text[first[0]:first[1]], op.flag, entry.values[0]) if entry.inline else op.flag
            edits.append(Edit(*first, new))
        elif isinstance(op, Revalue):
            if entry.inline and op.item == 0:
                edits.append(Edit(*first, _inline(text[first[0]:first[1]], str(entry.flag), _text(op.value))))
            else:
                a, b = _span(ctx, entry.words[op.item + (0 if entry.inline else 1)])
                edits.append(Edit(a, b, _same_quotes(text[a:b], _text(op.value))))
        elif isinstance(op, Rewrite):
            last = _span(ctx, entry.words[-1])
            words = [w for flag, values in op.settings for w in (flag, *(_quote(v) for v in values))]
            edits.append(Edit(first[0], last[1], " ".join(words)))
    deletions = [_drop_dangling_continuation(text, ctx, d) for d in merge_deletions(deletions)]
    return edits + deletions


def _inline(original: str, flag: str, value: str) -> str:
    """The word ``flag=value``, keeping the quotes of a written ``--flag="value"`` when simple to."""
    head, sep, rest = original.partition("=")
    if sep and len(rest) >= 2 and rest[0] == rest[-1] and rest[0] in "'\"" and "'" not in head and '"' not in head:
        q = rest[0]
        if q not in value and "\\" not in value and "$" not in value:
            return f"{_quote(flag)}={q}{value}{q}"
    return _quote(f"{flag}={value}")


def _text(value: object) -> str:
    return _quote(value) if isinstance(value, bool) else str(value)


def _span(ctx: Context, word: int) -> tuple[int, int]:
    a, b = ctx.spans[word]
    if a < 0:
        raise CannotEdit("cannot edit an argument autofix did not read from the text")
    return a, b


def _delete(text: str, ctx: Context, s: Setting) -> Edit:
    """The setting's words; their whole line when nothing else (but a continuation) is on it."""
    return _delete_words(text, ctx, [s.option_index, *s.value_indexes])


def _delete_words(text: str, ctx: Context, idx: Sequence[int]) -> Edit:
    """Words ``idx`` (consecutive); their whole line when nothing else (but a continuation) is on it.

    Only the blanks next to the words are looked at, not their whole line:
    a launch of 50 000 flags on one line is edited in linear time.
    """
    a = ctx.spans[idx[0]][0]
    b = ctx.spans[idx[-1]][1]
    if a < 0:
        raise CannotEdit("cannot remove an argument autofix did not read from the text")
    k = a
    while k > 0 and text[k - 1] in _BLANKS:
        k -= 1
    opens_line = k == 0 or text[k - 1] == "\n"  # only blanks before the words on their line
    j = b
    while j < len(text) and text[j] in _BLANKS:
        j += 1
    rest = _rest_of_line(text, j)
    if opens_line and rest != "more" and k > ctx.spans_start:
        line_end = text.find("\n", j)
        return Edit(k, len(text) if line_end < 0 else line_end + 1, "")  # the line, and its comment
    if opens_line and rest in ("more", "comment"):
        return Edit(a, j, "")  # the words open a line that goes on: keep its indentation, take the blanks after
    k = a
    while k > 0 and text[k - 1] in " \t":
        k -= 1
    return Edit(k, b, "")


_BLANKS = frozenset(" \t\r\v\f")


def _rest_of_line(text: str, j: int) -> str:
    """What the line holds from ``j`` (after blanks): ``end``, a ``comment``, a lone continuation
    (``continued``), or ``more`` words."""
    if j >= len(text) or text[j] == "\n":
        return "end"
    if text[j] == "#":
        return "comment"
    if text[j] == "\\":
        k = j + 1
        while k < len(text) and text[k] in _BLANKS:
            k += 1
        if k >= len(text) or text[k] == "\n":
            return "continued"
    return "more"


def _continued(line: str) -> bool:
    """Whether ``line`` (without its line end) ends in a continuation: an odd run of backslashes."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _drop_dangling_continuation(text: str, ctx: Context, d: Edit) -> Edit:
    """A deletion that takes the command's last line also takes the `` \\`` before it."""
    last_kept = max((e for a, e in ctx.spans if a >= 0 and not (d.start <= a < d.end)), default=-1)
    takes_last_word = any(d.start <= a < d.end for a, _ in ctx.spans if a >= 0) and last_kept < d.start
    before = text[: d.start]
    if not takes_last_word or not before.endswith("\n"):
        return d
    removed = text[: d.end]
    if removed.endswith("\n") and _continued(removed.rstrip("\r\n")):
        return d  # the deleted lines were continued: the command goes on (`;`, `&&`) on the line after them
    kept = before.rstrip("\r\n")
    if not _continued(kept):
        return d
    cut = len(kept[:-1].rstrip(" \t"))
    end = d.end
    if text[:end].endswith("\n"):  # keep the newline that ends the command
        end -= 2 if text[:end].endswith("\r\n") else 1
    return Edit(cut, max(end, cut), "")


def _append(text: str, ctx: Context, flags: list[str], deletions: list[Edit]) -> Edit:
    """Insert ``flags`` after the last argument that stays."""
    kept = [(a, e) for a, e in ctx.spans if a >= 0 and not any(d.start <= a < d.end for d in deletions)]
    end = max([e for _, e in kept] + [ctx.spans_start])
    first_arg = next((a for a, _ in kept), end)
    segment = text[first_arg:end]
    if "\\\n" in segment or "\\\r\n" in segment:
        nl = "\r\n" if "\\\r\n" in segment else "\n"
        line_start = text.rfind("\n", 0, end) + 1
        last_line = text[line_start:end]
        indent = last_line[: len(last_line) - len(last_line.lstrip(" \t"))]
        line_end = text.find("\n", end)
        rest = text[end : len(text) if line_end < 0 else line_end].strip()
        splits_a_word = any(a < line_start < e for a, e in ctx.spans if a >= 0)  # `-\` + newline + `-flag`
        if rest and splits_a_word:
            return Edit(end, end, "".join(f" {f}" for f in flags))
        if rest and line_start > first_arg and not any(d.start <= end < d.end for d in deletions):
            # the last line carries a comment or redirect: add the flags above it
            return Edit(line_start, line_start, "".join(f"{indent}{f} \\{nl}" for f in flags))
        return Edit(end, end, "".join(f" \\{nl}{indent}{f}" for f in flags))
    return Edit(end, end, "".join(f" {f}" for f in flags))


def looks_like_config(launches: list[Launch], schema: Schema | None = None) -> bool:
    """A script is always checked: one that launches nothing has nothing to report."""
    return True


def config_argument(launch: Launch) -> ConfigArgument | None:
    """The launch's ``--config FILE``, or None when it has none.

    Only the exact word ``--config`` counts (``server_args_config_parser.py:113``):
    ``--config=FILE`` and abbreviations are read by argparse alone and the
    file is ignored (CFG005).
    """
    words = launch.parsed.words
    found = [i for i, w in enumerate(words) if w.text == "--config" and not w.dynamic]
    if not found:
        return None
    i = found[0]
    if len(found) > 1 or i + 1 >= len(words) or words[i + 1].dynamic:
        return ConfigArgument(i, None)
    return ConfigArgument(i, words[i + 1].text)
