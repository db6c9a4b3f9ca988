"""Shell scripts and command lines that launch SGLang.

Every ``python[3] -m sglang.launch_server ...`` and ``sglang serve ...``
command in the text is one launch. The text is tokenised by bashlex (a port
of bash's own parser), which gives every word its unquoted value and its
span, and handles backslash continuations, quotes, comments, env-var
prefixes, pipelines and compound commands.

``read`` gives each launch's own words; ``config_argument`` finds its
``--config FILE`` the way SGLang's merger does, and ``autofix.merge`` puts
the file's settings in front (``api.fix_source`` reads the file).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass

import bashlex
import bashlex.errors

from autofix.arguments import Word, entries_of, parse_words
from autofix.edits import Edit, line_col, merge_deletions
from autofix.errors import CannotEdit, InputError
from autofix.formats import LAUNCH, embedded
from autofix.formats.launch import Launch
from autofix.formats.strings import shell_word_view
from autofix.formats.view import View
from autofix.model import Drop, EntryOp, Location, Op, Respell, Revalue, Rewrite, Unset
from autofix.schema import Schema

NAME = "shell"
SOURCE = "command"  # what the argparse-stage rules see (``written.Written.source``)
_EXPANSIONS = {"parameter", "commandsubstitution", "processsubstitution"}


@dataclass(frozen=True, slots=True)
class Context:
    """The adapter's handle on one launch: the span of every word, where the launch ends."""

    spans: tuple[tuple[int, int], ...]  # per word: its span in the text (-1, -1: synthetic)
    end: int  # end of the launch's last word
    spans_start: int  # end of the launch's program words (`... -m sglang.launch_server`)


def _location(text: str, index: int) -> Location:
    return Location(*line_col(text, index))


def _is_dynamic(node) -> bool:
    return any(getattr(p, "kind", None) in _EXPANSIONS for p in getattr(node, "parts", ()) or ())


class _Commands(bashlex.ast.nodevisitor):
    def __init__(self) -> None:
        self.commands: list = []

    def visitcommand(self, node, parts):
        """Collect every simple command, however deeply nested."""
        self.commands.append(node)


def _masked(text: str) -> str:
    """``text`` with what bashlex cannot parse replaced by text of the same length it can.

    An arithmetic expansion ``$((...))`` (bashlex raises NotImplementedError)
    becomes a parameter expansion ``${___}``, so its word is read as a shell
    expansion (UNKNOWN), as it is at launch. A command substitution holding
    only a comment, the `` `# note` `` people put between continued flags
    (bashlex fails on it), becomes spaces: it expands to nothing. Quotes are
    followed so that the same characters inside single quotes stay literal.
    Offsets and line breaks are kept, so spans still index ``text``.
    """
    out = list(text)
    i, n, quote = 0, len(text), None
    while i < n:
        c = text[i]
        if c == "\\" and quote != "'":
            i += 2
            continue
        if quote == "'":
            quote = None if c == "'" else quote
        elif c in "'\"" and (quote is None or quote == c):
            quote = None if quote == c else c
        elif text.startswith("$((", i):
            end = _arithmetic_end(text, i + 3)
            if end is not None:
                out[i:end] = "${" + "_" * (end - i - 3) + "}"
                i = end
                continue
        elif c == "`" and quote is None:
            end = text.find("`", i + 1)
            if end > 0 and text[i + 1:end].lstrip().startswith("#") and "\n" not in text[i:end]:
                out[i:end + 1] = " " * (end + 1 - i)
                i = end + 1
                continue
        i += 1
    return "".join(out)


def _arithmetic_end(text: str, i: int) -> int | None:
    """The index just past the ``))`` closing an arithmetic expansion whose body starts at ``i``."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i + 2 if text.startswith("))", i) else None
            depth -= 1
        elif c == "\n":
            return None
        i += 1
    return None


def _commands(text: str, path: str, locate) -> list[tuple[int, object]]:
    """(offset, command node) for every simple command; falls back to per-line parsing."""
    text = _masked(text)
    try:
        trees = bashlex.parse(text)
        offsets = [0] * len(trees)
    except (bashlex.errors.ParsingError, NotImplementedError, AttributeError, IndexError, TypeError):
        trees, offsets = [], []
        for start, chunk in _launch_chunks(text):
            try:
                parsed = bashlex.parse(chunk)
            except (bashlex.errors.ParsingError, NotImplementedError, AttributeError, IndexError, TypeError) as exc:
                pos = getattr(exc, "position", 0) or 0
                loc = locate(start + min(pos, len(chunk)))
                raise InputError(path, loc.line, loc.col, f"cannot read the shell command: {exc}") from None
            trees.extend(parsed)
            offsets.extend([start] * len(parsed))
    out = []
    for off, tree in zip(offsets, trees):
        v = _Commands()
        v.visit(tree)
        out.extend((off, c) for c in v.commands)
    return out


def _launch_chunks(text: str):
    """The logical lines (backslash continuations joined) that mention SGLang."""
    lines = text.splitlines(keepends=True)
    i, pos = 0, 0
    while i < len(lines):
        start, chunk = pos, lines[i]
        while chunk.rstrip("\r\n").endswith("\\") and i + 1 < len(lines):
            i += 1
            chunk += lines[i]
        pos = start + len(chunk)
        i += 1
        if LAUNCH.search(chunk):
            yield start, chunk


def _unquote(source: str, fallback: str) -> str:
    """The word as the program receives it.

    bashlex finds the words and their spans, but its quote removal drops
    double quotes inside single quotes (``'{"a": 1}'`` becomes ``{a: 1}``);
    the standard library's POSIX tokeniser unquotes the word's own text.
    """
    try:
        parts = shlex.split(source, comments=False, posix=True)
    except ValueError:
        return fallback
    return parts[0] if len(parts) == 1 else fallback


def _launch_args(words: list) -> tuple[int, bool] | None:
    """Index of the first SGLang argument in a command's words, and whether it is ``sglang serve``."""
    texts = [w.word for w in words]
    for i, t in enumerate(texts):
        if t.rsplit("/", 1)[-1] in embedded.DATA_COMMANDS:
            return None  # `echo python3 -m sglang.launch_server ...` prints the words, it runs nothing
        if t == "-m" and i + 1 < len(texts) and texts[i + 1] == "sglang.launch_server":
            return i + 2, False
        if t.rsplit("/", 1)[-1] == "sglang" and i + 1 < len(texts) and texts[i + 1] == "serve":
            return i + 2, True
    return None


def read(text: str, path: str, schema: Schema, locate: Callable[[int], Location] | None = None,
         dynamic: Callable[[int, int], bool] | None = None) -> list[Launch]:
    """Every SGLang launch in ``text``, in order. Raises ``InputError`` when it cannot be tokenised.

    ``locate(offset)`` gives the location of a text offset for messages (by
    default its line and column in ``text``; a script inside another file's
    string passes the host file's). ``dynamic(start, end)`` says whether the
    word ``text[start:end]`` is unknown (default: it holds a shell expansion;
    a compose string, which no shell runs, passes its own rule).

    A shell that runs a script (``bash -lc "<script>"``, ``sh -c '...'``)
    whose script launches SGLang: the script word is read as a script (its
    quotes removed as bash removes them, so a ``$VAR`` in double quotes stays
    an expansion), and its launches are edited inside the word
    (``Launch.ctx`` is then an ``embedded.Embedded``).
    """
    locate = locate or (lambda i: _location(text, i))
    launches = []
    for off, cmd in _commands(text, path, locate):
        words = [p for p in cmd.parts if p.kind == "word"]
        found = _launch_args(words)
        if found is None:
            launches.extend(_script_launches(text, off, words, path, schema, locate))
            continue
        first, serve = found
        args = words[first:]
        out: list[Word] = []
        spans: list[tuple[int, int]] = []
        i = 0
        while i < len(args):
            w = args[i]
            if serve and (w.word == "--model-type" or w.word.startswith("--model-type=")):
                i += 2 if w.word == "--model-type" else 1  # taken by `sglang serve` itself
                continue
            s, e = off + w.pos[0], off + w.pos[1]
            while e > s and text[e - 1] == "\r":  # CRLF script: the \r is not ours to edit
                e -= 1
            if serve and not out and not w.word.startswith("-"):
                out.append(Word("--model-path", locate(s), None))  # cli/serve.py:62
                spans.append((-1, -1))
            out.append(Word(_unquote(text[s:e], w.word), locate(s), len(spans),
                            _is_dynamic(w) if dynamic is None else dynamic(s, e)))
            spans.append((s, e))
            i += 1
        head = off + words[first - 1].pos[1]
        end = max([e for _, e in spans] + [head])
        start = locate(off + cmd.pos[0])
        parsed = parse_words(schema, out)
        launches.append(Launch(parsed, start, Context(tuple(spans), end, head), entries_of(parsed)))
    return launches


def _script_launches(text: str, off: int, words: list, path: str, schema: Schema, locate) -> list[Launch]:
    """The launches of the script a shell command (``bash -c "<script>"``) runs, read inside its word.

    The shell may follow a wrapper and its options (``srun --nodes 1 bash -c``,
    ``docker run img sh -c``), not a command that prints its words
    (``embedded.shell_script``).
    """
    values = [w.word for w in words]
    script = embedded.shell_script_index(values)
    if script is None:
        return []
    w = words[script]
    start, end = off + w.pos[0], off + w.pos[1]
    try:
        view = shell_word_view(text, start, end)
    except CannotEdit:
        view = _ansi_c_view(text, start, end)
        if view is None:
            return []
    found = read(view.text, path, schema, lambda i: locate(view.offsets[i]))
    return [embedded.nested(launch, view, sys.modules[__name__]) for launch in found]


_ANSI_C = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
           "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _ansi_c_view(text: str, start: int, end: int) -> View | None:
    """The word ``$'...'`` (ANSI-C quoting, the whole word) as the program receives it, or None.

    Escapes are decoded as bash decodes them (``\\n``, ``\\t``, ``\\'``,
    ``\\\\``, octal ``\\nnn``, ``\\xHH``, ``\\uHHHH``, ``\\UHHHHHHHH``,
    ``\\cx``; an unknown escape keeps its backslash). An edit is written
    back in the same quoting: a backslash, a single quote and a line break
    are escaped.
    """
    word = text[start:end]
    if not (word.startswith("$'") and word.endswith("'") and len(word) >= 3):
        return None
    chars: list[str] = []
    offsets: list[int] = []
    i, stop = start + 2, end - 1
    while i < stop:
        at, c = i, text[i]
        if c == "'":
            return None  # the quote closes before the word ends: more than one part
        if c != "\\" or i + 1 >= stop:
            chars.append(c)
            offsets.append(at)
            i += 1
            continue
        e = text[i + 1]
        if e in _ANSI_C:
            ch, i = _ANSI_C[e], i + 2
        elif e in "01234567":
            j = i + 1
            while j < min(i + 4, stop) and text[j] in "01234567":
                j += 1
            ch, i = chr(int(text[i + 1:j], 8) & 0xFF), j
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            j = i + 2
            while j < min(i + 2 + width, stop) and text[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i + 2:
                ch, i = "\\" + e, i + 2
            elif int(text[i + 2:j], 16) > sys.maxunicode:
                return None
            else:
                ch, i = chr(int(text[i + 2:j], 16)), j
        elif e == "c" and i + 2 < stop:
            ch, i = chr(ord(text[i + 2]) & 0x1F), i + 3
        else:
            ch, i = "\\" + e, i + 2
        for k in ch:
            chars.append(k)
            offsets.append(at)
    offsets.append(stop)

    def encode(piece: str) -> str:
        return piece.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")

    return View("".join(chars), tuple(offsets), encode)


def _quote(value) -> str:
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
            if s.inline:
                a, b = ctx.spans[s.option_index]
                edits.append(Edit(a, b, _inline(text[a:b], s.written, _text(op.value))))
            else:
                a, b = ctx.spans[s.value_indexes[0]]
                edits.append(Edit(a, b, _same_quotes(text[a:b], str(op.value) if not isinstance(op.value, bool) else _quote(op.value))))
            continue
        added.append(option.flag if option.nargs == 0 else f"{option.flag} {_quote(op.value)}")
    deletions = [_drop_dangling_continuation(text, ctx, d) for d in merge_deletions(deletions)]
    if added:
        edits.append(_append(text, ctx, added, deletions))
    return edits + deletions


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
                edits.append(Edit(*first, _inline(text[first[0]:first[1]], entry.flag, _text(op.value))))
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


def _text(value) -> str:
    return _quote(value) if isinstance(value, bool) else str(value)


def _span(ctx: Context, word: int) -> tuple[int, int]:
    a, b = ctx.spans[word]
    if a < 0:
        raise CannotEdit("cannot edit an argument autofix did not read from the text")
    return a, b


def _delete(text: str, ctx: Context, s) -> Edit:
    """The setting's words; their whole line when nothing else (but a continuation) is on it."""
    return _delete_words(text, ctx, [s.option_index, *s.value_indexes])


def _delete_words(text: str, ctx: Context, idx) -> Edit:
    """Words ``idx`` (consecutive); their whole line when nothing else (but a continuation) is on it."""
    a = ctx.spans[idx[0]][0]
    b = ctx.spans[idx[-1]][1]
    if a < 0:
        raise CannotEdit("cannot remove an argument autofix did not read from the text")
    line_start = text.rfind("\n", 0, a) + 1
    line_end = text.find("\n", b)
    line_end = len(text) if line_end < 0 else line_end
    before, after = text[line_start:a], text[b:line_end].rstrip("\r")
    rest = after.strip()
    if not before.strip() and (rest in ("\\", "") or rest.startswith("#")) and line_start > ctx.spans_start:
        return Edit(line_start, min(line_end + 1, len(text)), "")  # the line, and its comment
    if not before.strip() and rest and rest != "\\":
        # the words open a line that goes on: keep its indentation, take the space after them
        k = b
        while k < len(text) and text[k] in " \t":
            k += 1
        return Edit(a, k, "")
    k = a
    while k > 0 and text[k - 1] in " \t":
        k -= 1
    return Edit(k, b, "")


def _drop_dangling_continuation(text: str, ctx: Context, d: Edit) -> Edit:
    """A deletion that takes the command's last line also takes the `` \\`` before it."""
    last_kept = max((e for a, e in ctx.spans if a >= 0 and not (d.start <= a < d.end)), default=-1)
    takes_last_word = any(d.start <= a < d.end for a, _ in ctx.spans if a >= 0) and last_kept < d.start
    before = text[: d.start]
    if not takes_last_word or not before.endswith("\n"):
        return d
    kept = before.rstrip("\r\n")
    if not kept.endswith("\\"):
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
        if rest and line_start > first_arg and not any(d.start <= end < d.end for d in deletions):
            # the last line carries a comment or redirect: add the flags above it
            return Edit(line_start, line_start, "".join(f"{indent}{f} \\{nl}" for f in flags))
        return Edit(end, end, "".join(f" \\{nl}{indent}{f}" for f in flags))
    return Edit(end, end, "".join(f" {f}" for f in flags))


@dataclass(frozen=True, slots=True)
class ConfigArgument:
    """A launch's ``--config FILE``, as SGLang's merger finds it.

    ``index`` is the ``--config`` word's index in ``Launch.parsed.words``;
    ``path`` is FILE as written, or None when autofix cannot know which file
    SGLang reads (FILE is a shell expansion, is missing, or ``--config`` is
    given twice, which SGLang refuses).
    """

    index: int
    path: str | None


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
