"""Where the keys of a TOML document are written: ``tomllib`` gives values, not positions.

Best effort, for error messages: ``locate`` never raises, and falls back to the closest enclosing key or
table it can find (1:1 at worst). The scanner reads documents ``tomllib`` has accepted, in their common
forms: table headers (``[a.b]``, ``[[a]]``), dotted and quoted keys, inline tables, arrays over several
lines, and the four kinds of string.
"""

from __future__ import annotations

import re
import tomllib


def locate(text: str, path: tuple[str | int, ...], *, value: bool, table: tuple[str, ...]) -> tuple[int, int]:
    """(line, column) of key path ``path`` in ``text`` (its value when ``value``, else its key), or of the
    closest enclosing key or table that can be found; 1:1 at worst. Never raises."""
    try:
        keys, values, tables = scan(text)
    except Exception:  # noqa: BLE001 - the scanner is a best effort: the error is still reported, at 1:1
        return 1, 1
    for n in range(len(path), len(table) - 1, -1):  # the path, then each enclosing key, up to the table
        head = path[:n]
        offset = (values if value and n == len(path) else keys).get(head, tables.get(head))
        if offset is not None:
            return line_col(text, offset)
    return 1, 1


def decode_error(text: str, message: str) -> tuple[int, int, str]:
    """(line, column, message) of a ``tomllib.TOMLDecodeError``'s message: its position taken off its end
    (``(at line 3, column 10)``; ``(at end of document)`` is the position just past the last character)."""
    found = re.search(r" \(at (?:line (\d+), column (\d+)|(end of document))\)$", message)
    if found is None:
        return 1, 1, message
    if found.group(3):
        return (*line_col(text, len(text)), message[: found.start()])
    return int(found.group(1)), int(found.group(2)), message[: found.start()]


def deepest(text: str) -> tuple[int, int]:
    """(offset, depth) of the deepest nest of arrays and inline tables in ``text``: the offset of its
    outermost bracket. Skips strings and comments; never recurses (for a document too deep for tomllib), and
    jumps from one bracket, quote or ``#`` to the next."""
    n, i = len(text), 0
    opened: list[int] = []  # offsets of the brackets still open
    best = (0, 0)
    mark = re.compile(r"[\[\]{}#\"']")  # a bracket, a comment or a string starts
    while (found := mark.search(text, i)) is not None:
        i, c = found.start(), found.group()
        if c in "[{":
            opened.append(i)
            if len(opened) > best[1]:
                best = (opened[0], len(opened))
        elif c in "]}":
            if opened:
                opened.pop()
        elif c == "#":
            i = text.find("\n", i)
            if i < 0:
                break
        else:
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                i += 2 if c == '"' and text[i] == "\\" else 1
            i += len(quote) - 1
        i += 1
    return best


# One token of a line, for ``long_key``: a part of a key (bare, or a one-line string), a dot between parts,
# anything else. A string, compiled (and cached by ``re``) when first needed: a run's start does not pay for it.
_KEY_TOKEN = (r"""(?P<part>[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')|(?P<dot>[ \t]*\.[ \t]*)"""
              r"""|[^.A-Za-z0-9_"'-]+|.""")


def long_key(text: str, most: int) -> int | None:
    """The offset of the first dotted key or table name of more than ``most`` parts, or None.

    Only a line with ``most`` dots or more can hold one (a key is on one line); each such line is cut into
    tokens, so that a dot in a string is no dot between parts. Time linear in ``text``.
    """
    if text.count(".") < most:  # most files
        return None
    offset = 0
    for line in text.split("\n"):
        if line.count(".") >= most:
            parts, start, after_dot = 0, 0, False
            for token in re.finditer(_KEY_TOKEN, line):
                if token.group("part") is not None:
                    if not after_dot:
                        parts, start = 0, token.start()
                    parts, after_dot = parts + 1, False
                    if parts > most:
                        return offset + start
                elif token.group("dot") is not None and parts and not after_dot:
                    after_dot = True
                else:
                    parts, after_dot = 0, False
        offset += len(line) + 1
    return None


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of ``offset``."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


_BARE = re.compile(r"[A-Za-z0-9_-]+")
_SPACE = " \t"


def scan(text: str) -> tuple[dict, dict, dict]:
    """Where each key, value and table header of a TOML document (one tomllib accepted) starts.

    Three maps from key path to text offset: keys, values (array items under their index, inline-table
    keys under their name) and table headers. What it cannot follow it leaves out; a later part of an odd
    document may go unrecorded, never misplaced before it.
    """
    keys: dict[tuple, int] = {}
    values: dict[tuple, int] = {}
    tables: dict[tuple, int] = {}
    counts: dict[tuple, int] = {}
    n, i = len(text), 0

    def skip(newlines: bool) -> None:
        nonlocal i
        while i < n:
            c = text[i]
            if c in _SPACE or (newlines and c in "\r\n"):
                i += 1
            elif c == "#":
                while i < n and text[i] != "\n":
                    i += 1
            else:
                return

    def string() -> str:
        """Skip the string at ``i``; its value when it is a one-line one (keys are)."""
        nonlocal i
        start, quote = i, text[i]
        if text.startswith(quote * 3, i):
            i += 3
            while i < n:
                if quote == '"' and text[i] == "\\":
                    i += 2
                elif text.startswith(quote * 3, i):
                    while i < n and text[i] == quote:
                        i += 1
                    return ""
                else:
                    i += 1
            return ""
        i += 1
        while i < n and text[i] != quote:
            i += 2 if quote == '"' and text[i] == "\\" else 1
        i += 1
        raw = text[start:i]
        return raw[1:-1] if quote == "'" else tomllib.loads(f"k = {raw}")["k"]

    def key() -> tuple[str, ...]:
        nonlocal i
        parts = []
        while True:
            skip(False)
            if text[i] in "\"'":
                parts.append(string())
            else:
                found = _BARE.match(text, i)
                if found is None:
                    raise ValueError(f"no key at {i}")  # a form it cannot follow: the scan stops there (below)
                parts.append(found.group())
                i = found.end()
            skip(False)
            if i < n and text[i] == ".":
                i += 1
                continue
            return tuple(parts)

    def value(path: tuple) -> None:
        nonlocal i
        values.setdefault(path, i)
        c = text[i]
        if c in "\"'":
            string()
        elif c == "[":
            i += 1
            index = 0
            while True:
                skip(True)
                if text[i] == "]":
                    i += 1
                    return
                before = i
                value((*path, index))
                index += 1
                skip(True)
                if text[i] == ",":
                    i += 1
                elif i == before:
                    raise ValueError("no value here")  # not TOML: never loop on it
        elif c == "{":
            i += 1
            while True:
                skip(True)
                if text[i] == "}":
                    i += 1
                    return
                keyval(path)
                skip(True)
                if text[i] == ",":
                    i += 1
        else:
            while i < n and text[i] not in ",]}#\r\n":
                i += 1

    def keyval(prefix: tuple) -> None:
        nonlocal i
        start = i
        parts = key()
        for k in range(1, len(parts) + 1):
            keys.setdefault((*prefix, *parts[:k]), start)
        i += 1  # "="
        skip(False)
        value((*prefix, *parts))

    table: tuple = ()
    try:
        while True:
            skip(True)
            if i >= n:
                break
            if text[i] == "[":
                start = i
                double = text.startswith("[[", i)
                i += 2 if double else 1
                table = key()
                i += 2 if double else 1
                tables.setdefault(table, start)
                if double:
                    counts[table] = counts.get(table, -1) + 1
                    table = (*table, counts[table])
            else:
                keyval(table)
    except Exception:  # noqa: BLE001 - a form it cannot follow: what it found before stays
        pass
    return keys, values, tables
