"""The limits of ``autofix.common.limits`` on a YAML stream, held before anything is built (``check_limits``): at
most ``MAX_YAML_DEPTH`` nested collections and ``MAX_YAML_NODES`` values once
aliases are expanded (per file, all documents together; an alias counts
every value of the node it names, so alias bombs stop at the alias that
crosses the bound, and so does an alias inside the node it names). The
text's characters alone prove most files within bounds (``surely_within``,
a few ``str.count`` calls); only the others get an iterative pass over
libyaml's events before the C composer runs (which overflows the C stack on
deep nesting in PyYAML 6.0.3). Crossing a limit is an ``InputError`` at the
event where it is crossed.
"""

from __future__ import annotations

import re
from typing import NoReturn

import yaml

from autofix.adapters.syntax.yaml_loader import Loader, input_error, position
from autofix.common.errors import InputError
from autofix.common.limits import MAX_YAML_DEPTH, MAX_YAML_NODES

STOP = "autofix does not read further"  # how the message of a bound crossed ends (``yaml_nodes``'s too)

# Where libyaml can start an alias token: the start of the text, or after
# whitespace, a flow indicator, `:`/`?` (indicators in flow context even when
# followed by a non-blank), a closing quote, or a BOM. A `*` anywhere else is
# inside a plain scalar, a tag or a comment. Over-matching only costs an event pass.
# (Patterns, compiled on first use by re's cache: not every start needs them.)
_ALIAS_START = "(?<![^\\s\\[\\]{},:?\"'\ufeff])\\*"
# What follows a `-` that starts a block sequence entry: libyaml's blank-or-break-or-end.
_ENTRY_BLANKS = ("- ", "-\t", "-\r", "-\n", "-\x85", "-\u2028", "-\u2029", "-\0")


def surely_within(text: str) -> bool:
    """Whether the characters of ``text`` alone prove it within both limits (no alias, shallow, small).

    Sound bounds, cheap enough for every file. Without an alias token
    nothing expands. Values: a document has at most 3 per character (an
    empty key, an empty value and a mapping from one `?` or `:`), and at
    most 4 per indicator (`-`, `:`, `?`, `,`, `[`, `{`): every value is a
    document's root (one more document needs a `---`) or a child of an
    entry, and an entry (a `-` item, a `?`/`:` pair, a flow item after a
    `[`, `{` or `,`) holds at most 3 (a flow pair `[a: b]`). Nesting: every
    collection needs an indicator of its own (`[`, `{`, `:`, `?`, or `-`
    before a blank), so it is at most their count; and block collections
    nest by indentation, two levels per column at most (a sequence may sit
    at its parent mapping's column, nothing else), plus one per bracket.
    """
    if "*" in text and re.search(_ALIAS_START, text):
        return False
    n = len(text)
    if n <= MAX_YAML_DEPTH:
        return True  # 3 * 400 + 1 values at most
    count = text.count
    brackets = count("[") + count("{")
    keys = brackets + count(":") + count("?")
    dashes = count("-")
    if 3 * n + 1 > MAX_YAML_NODES and 4 * (keys + dashes + count(",")) + 1 > MAX_YAML_NODES:
        return False
    if keys + dashes <= MAX_YAML_DEPTH:
        return True
    if keys + sum(map(count, _ENTRY_BLANKS)) + text.endswith("-") <= MAX_YAML_DEPTH:
        return True
    # a line split at "\n" only is never shorter than libyaml's (which also breaks at \r, \x85, \u2028, \u2029)
    return 2 * (max(map(len, text.split("\n"))) + 1) + brackets <= MAX_YAML_DEPTH


def check_limits(text: str, path: str) -> None:
    """Raise ``InputError`` where ``text`` crosses a limit (see the module docstring); else nothing.

    One pass over libyaml's events (iterative), with an anchor's expanded
    size and height taken when it closes: an alias adds them at once.
    """
    if surely_within(text):
        return
    loader = Loader(text)
    try:
        anchors: dict[str, tuple[int, int]] = {}  # anchor -> (values, height) of the node it names
        open_anchors: set[str] = set()
        # the open collections, innermost last: (values before it, its anchor), and the deepest level under it
        stack: list[tuple[int, str | None]] = []
        deepest: list[int] = []
        total = 0
        while True:
            event = loader.get_event()
            if type(event) is yaml.ScalarEvent:
                total += 1
                if total > MAX_YAML_NODES:
                    _too_many(text, path, event, None)
                if event.anchor is not None:
                    anchors[event.anchor] = (1, 0)
            elif type(event) is yaml.MappingStartEvent or type(event) is yaml.SequenceStartEvent:
                level = len(stack) + 1
                if level > MAX_YAML_DEPTH:
                    _too_deep(text, path, event, None)
                total += 1
                if total > MAX_YAML_NODES:
                    _too_many(text, path, event, None)
                stack.append((total - 1, event.anchor))
                deepest.append(level)
                if event.anchor is not None:
                    open_anchors.add(event.anchor)
            elif type(event) is yaml.MappingEndEvent or type(event) is yaml.SequenceEndEvent:
                before, anchor = stack.pop()
                under = deepest.pop()
                if deepest:
                    deepest[-1] = max(deepest[-1], under)
                if anchor is not None:
                    anchors[anchor] = (total - before, under - len(stack))
                    open_anchors.discard(anchor)
            elif type(event) is yaml.AliasEvent:
                name = event.anchor
                if name in open_anchors:
                    raise InputError(path, *_at(text, event), f"the YAML alias *{name} is inside the node it names "
                                     f"(a recursive alias); {STOP}")
                # undefined: the composer refuses it (the ignore: an alias names its anchor; the stubs let it be None)
                values, height = anchors.get(name, (1, 0))  # type: ignore[arg-type]
                total += values
                if total > MAX_YAML_NODES:
                    _too_many(text, path, event, name)
                if len(stack) + height > MAX_YAML_DEPTH:
                    _too_deep(text, path, event, name)
                if deepest:
                    deepest[-1] = max(deepest[-1], len(stack) + height)
            elif type(event) is yaml.DocumentStartEvent:
                anchors.clear()  # anchors are the document's
            elif event is None or type(event) is yaml.StreamEndEvent:
                return
    except yaml.YAMLError as exc:
        raise input_error(exc, text, path) from None
    finally:
        loader.dispose()


def _at(text: str, event: yaml.Event) -> tuple[int, int]:
    return position(text, event.start_mark.index)  # type: ignore[union-attr]  # a parsed event has its marks


def _too_many(text: str, path: str, event: yaml.Event, alias: str | None) -> NoReturn:
    if alias is not None:
        raise InputError(path, *_at(text, event), f"YAML aliases expand to more than {MAX_YAML_NODES:,} values "
                         f"(alias *{alias} here); {STOP}")
    raise InputError(path, *_at(text, event), f"more than {MAX_YAML_NODES:,} YAML values; {STOP}")


def _too_deep(text: str, path: str, event: yaml.Event, alias: str | None) -> NoReturn:
    if alias is not None:
        raise InputError(path, *_at(text, event), f"YAML aliases nest collections more than {MAX_YAML_DEPTH} levels "
                         f"deep (alias *{alias} here); {STOP}")
    raise InputError(path, *_at(text, event), f"YAML collections nested more than {MAX_YAML_DEPTH} levels deep; {STOP}")
