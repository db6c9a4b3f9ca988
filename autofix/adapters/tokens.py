"""Launches written as lists of tokens: one list item per command-line word.

A Kubernetes container's ``command``/``args``, a compose ``command`` list,
a Dockerfile's exec form (``CMD ["python3", "-m", ...]``). Nothing splits
or expands these words (a ``$(VAR)`` or ``${VAR}`` is filled in by the
orchestrator, so its value is UNKNOWN here). The host adapter finds the
tokens and their spans; this module reads them as SGLang would and edits
them item by item, in the list's own syntax: a YAML block sequence (one
``- item`` per line), or a flow sequence / JSON array (``[a, b]``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from autofix.adapters.launch import Launch
from autofix.common.arguments import Word, entries_of, parse_words
from autofix.common.diagnostics import Drop, EntryOp, Location, Op, Respell, Revalue, Rewrite, Unset
from autofix.common.edits import Edit, merge_deletions
from autofix.common.errors import CannotEdit
from autofix.schema import Schema


@dataclass(frozen=True, slots=True)
class TokenList:
    """One list in the host text: how its items are written.

    ``style`` is ``block`` (YAML ``- item`` lines), ``flow`` (YAML
    ``[a, b]``), ``json`` (a JSON array) or ``string`` (the words of a
    compose command string, read only); ``close`` is the offset of a
    flow list's ``]``; ``render(value, like)`` writes a new item (``like``:
    the text of the item it replaces, to keep its quoting, or None).
    """

    style: str
    close: int
    render: Callable[[str, str | None], str]
    readonly: str | None = None  # why no item may be added to it (a list shared through a YAML alias)
    readonly_at: Location | None = None  # where the launch reads the shared list (its ``*alias``)


@dataclass(frozen=True, slots=True)
class Token:
    """One word: its value as the program receives it, and the span of its item text."""

    value: str
    start: int
    end: int
    list: TokenList
    dynamic: bool = False
    readonly: str | None = None  # why it cannot be edited (shared through a YAML alias, a word of a string)


@dataclass(frozen=True, slots=True)
class Context:
    """The adapter's handle on one token launch: its argument tokens, and the list new ones go to."""

    tokens: tuple[Token | None, ...]  # per word; None for a word the launcher adds
    last: Token  # the last token of the launch (its program token when it has no arguments)


def launch_start(values: list[str]) -> tuple[int, bool] | None:
    """Index of the first SGLang argument among a command's words, and whether it is ``sglang serve``."""
    for i, t in enumerate(values[:-1]):
        if t == "-m" and values[i + 1] == "sglang.launch_server":
            return i + 2, False
        if t.rsplit("/", 1)[-1] == "sglang" and values[i + 1] == "serve":
            return i + 2, True
    return None


def read(tokens: list[Token], schema: Schema, locate: Callable[[int], Location]) -> Launch | None:
    """The SGLang launch in a command's ``tokens``, or None when they launch none.

    ``locate(offset)`` gives the host location of a text offset.
    """
    found = launch_start([t.value for t in tokens])
    if found is None:
        return None
    first, serve = found
    words: list[Word] = []
    spans: list[Token | None] = []
    rest = tokens[first:]
    i = 0
    while i < len(rest):
        t = rest[i]
        if serve and (t.value == "--model-type" or t.value.startswith("--model-type=")):
            i += 2 if t.value == "--model-type" else 1  # taken by `sglang serve` itself
            continue
        if serve and not words and not t.value.startswith("-"):
            words.append(Word("--model-path", locate(t.start), None))  # cli/serve.py:62
            spans.append(None)
        words.append(Word(t.value, locate(t.start), len(spans), t.dynamic))
        spans.append(t)
        i += 1
    parsed = parse_words(schema, words)
    head = tokens[first - 1]
    return Launch(parsed, locate(tokens[0].start), Context(tuple(spans), rest[-1] if rest else head),
                  entries_of(parsed))


def _token(ctx: Context, word: int) -> Token:
    t = ctx.tokens[word]
    if t is None:
        raise CannotEdit("cannot edit an argument autofix did not read from the text")
    if t.readonly:
        raise _refused(t.readonly, t.list.readonly_at if t.readonly == t.list.readonly else None)
    return t


def _refused(reason: str, at: Location | None) -> CannotEdit:
    """``CannotEdit(reason)``; ``location``: where the note should point (the ``*alias`` a launch reads), or None."""
    exc = CannotEdit(reason)
    exc.location = at  # type: ignore[attr-defined]
    return exc


def _replace(text: str, t: Token, values: list[str]) -> Edit:
    """Replace one item with one or more items."""
    like = text[t.start:t.end]
    items = [t.list.render(v, like) for v in values]
    if t.list.style == "block":
        dash = _dash(text, t)
        if dash is None:
            raise CannotEdit("cannot add an item next to a list item that does not start its line")
        nl = "\r\n" if text[t.end:t.end + 2] == "\r\n" else "\n"
        return Edit(t.start, t.end, (nl + dash).join(items))
    return Edit(t.start, t.end, ", ".join(items))


def _delete(text: str, ctx: Context, words: list[int]) -> Edit:
    """Delete consecutive items of one list: whole lines in a block list, with their commas in a flow list."""
    toks = [_token(ctx, w) for w in words]
    first, last = toks[0], toks[-1]
    if first.list is not last.list:
        raise CannotEdit("cannot remove words that span two lists")
    if first.list.style == "block":
        line_start = text.rfind("\n", 0, first.start) + 1
        if _dash(text, first) is None:
            raise CannotEdit("cannot remove a list item that does not start its line")
        end = last.end if text[last.end - 1:last.end] == "\n" else _line_end(text, last.end)
        rest = text[last.end:end].strip()
        if rest and not rest.startswith("#"):
            raise CannotEdit("cannot remove a list item that shares its line")
        return Edit(line_start, end, "")
    same = [t for t in ctx.tokens if t is not None and t.list is first.list]
    pos = next(i for i, t in enumerate(same) if t is first)
    after = pos + len(toks)
    if pos > 0:  # take the comma before: `a, b, c` -> `a, c`
        return Edit(same[pos - 1].end, last.end, "")
    if after < len(same):  # the first item: take the comma after
        return Edit(first.start, same[after].start, "")
    return Edit(first.start, last.end, "")


def _dash(text: str, t: Token) -> str | None:
    """The ``- `` (with its indentation) that starts a block item's line, without the item's anchor or tag."""
    line_start = text.rfind("\n", 0, t.start) + 1
    m = re.fullmatch(r"([ \t]*-[ \t]+)(?:[&!][^ \t]*[ \t]+)*", text[line_start:t.start])
    return m.group(1) if m else None


def _line_end(text: str, i: int) -> int:
    j = text.find("\n", i)
    return len(text) if j < 0 else j + 1


def join_items(text: str, toks: list[Token], value: str) -> list[Edit]:
    """Edits that write the consecutive items ``toks`` of one list as the one item ``value``, in the list's
    style (the first item rewritten in its quoting, the others removed); raises ``CannotEdit`` for a layout
    this cannot change item by item."""
    ctx = Context(tuple(toks), toks[-1])
    edits = [_replace(text, _token(ctx, 0), [value])]
    if len(toks) > 1:
        edits.append(_delete(text, ctx, list(range(1, len(toks)))))
    return edits


def _append(text: str, ctx: Context, values: list[str]) -> Edit:
    """Add items after the launch's last token, in its list's style."""
    t = ctx.last
    if t.list.readonly:
        raise _refused(t.list.readonly, t.list.readonly_at)
    items = [t.list.render(v, None) for v in values]
    if t.list.style == "block":
        dash = _dash(text, t)
        if dash is None:
            raise CannotEdit("cannot add an item after a list item that does not start its line")
        at = t.end if text[t.end - 1:t.end] == "\n" else _line_end(text, t.end)
        nl = "\r\n" if "\r\n" in text else "\n"
        block = "".join(f"{dash}{item}{nl}" for item in items)
        if at == len(text) and not text.endswith("\n"):
            return Edit(at, at, nl + block.rstrip("\r\n"))
        return Edit(at, at, block)
    return Edit(t.end, t.end, "".join(f", {item}" for item in items))


def edit(text: str, launch: Launch, ops: list[Op], schema: Schema) -> list[Edit]:
    """Edits that make this launch's settings follow ``ops``, item by item.

    Set on a written flag replaces its value item (or its ``--flag=value``
    item); Set on an absent flag adds items after the last argument; Unset
    removes every occurrence's items. Raises ``CannotEdit`` for a layout
    this cannot change item by item.
    """
    ctx: Context = launch.ctx
    parsed = launch.parsed
    edits: list[Edit] = []
    deletions: list[Edit] = []
    added: list[str] = []
    for op in ops:
        option = schema[op.dest]
        if isinstance(op, Unset):
            deletions.extend(_delete(text, ctx, [s.option_index, *s.value_indexes])
                             for s in parsed.occurrences if s.dest == op.dest)
            continue
        s = parsed.settings.get(op.dest)
        if isinstance(op.value, list):  # an option of several values (nargs '*'): one item each
            values = [_text(v) for v in op.value]
            if s is not None and ctx.tokens[s.option_index] is not None:
                edits.append(_replace(text, _token(ctx, s.option_index), [s.written, *values]))
                if s.value_indexes and not s.inline:
                    deletions.append(_delete(text, ctx, list(s.value_indexes)))
            else:
                added.extend([option.flag, *values])
            continue
        value = _text(op.value)
        if s is not None and ctx.tokens[s.option_index] is not None:
            if option.nargs == 0:
                continue
            if s.inline:
                edits.append(_replace(text, _token(ctx, s.option_index), [f"{s.written}={value}"]))
            else:
                edits.append(_replace(text, _token(ctx, s.value_indexes[0]), [value]))
            continue
        added.extend([option.flag] if option.nargs == 0 else [option.flag, value])
    if added:
        edits.append(_append(text, ctx, added))
    return edits + merge_deletions(deletions)


def edit_entries(text: str, launch: Launch, ops: list[EntryOp], schema: Schema) -> list[Edit]:
    """Edits for argparse-stage fixes: each op rewrites one entry's items in place."""
    ctx: Context = launch.ctx
    edits: list[Edit] = []
    deletions: list[Edit] = []
    for op in ops:
        entry = launch.entries[op.entry]
        first = _token(ctx, entry.words[0])
        if isinstance(op, Drop):
            deletions.append(_delete(text, ctx, list(entry.words)))
        elif isinstance(op, Respell):
            edits.append(_replace(text, first, [f"{op.flag}={entry.values[0]}" if entry.inline else op.flag]))
        elif isinstance(op, Revalue):
            if entry.inline and op.item == 0:
                edits.append(_replace(text, first, [f"{entry.flag}={_text(op.value)}"]))
            else:
                edits.append(_replace(text, _token(ctx, entry.words[op.item + (0 if entry.inline else 1)]),
                                      [_text(op.value)]))
        elif isinstance(op, Rewrite):
            words = [w for flag, values in op.settings for w in (flag, *map(_text, values))]
            edits.append(_replace(text, first, words))
            if len(entry.words) > 1:
                deletions.append(_delete(text, ctx, list(entry.words[1:])))
    return edits + merge_deletions(deletions)


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)

