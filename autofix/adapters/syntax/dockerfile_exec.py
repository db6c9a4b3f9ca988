"""An exec form Docker does not read as one, and the words its author meant.

BuildKit takes the arguments of ``CMD``, ``ENTRYPOINT`` and ``RUN`` as the
exec form only when they are a JSON array of strings (``parseMaybeJSON``,
``frontend/dockerfile/parser/line_parsers.go``). Any other text is the shell
form, silently, even when it starts with ``[``: ``CMD ["python3", "-m",
"sglang.launch_server",]`` runs ``/bin/sh -c '["python3", "-m", ...,]'``,
whose first word ``[python3,`` is no command. (A JSON array that holds
something other than strings, ``["a", 8]``, is not this case: Docker refuses
to build it, see ``dockerfile_syntax``.)

``read(args)`` reads such a text (an instruction's logical line, after the
keyword) the way people write a list of words: as a YAML or Python flow
sequence of scalars. Items are JSON strings, single-quoted or curly-quoted
strings, or plain words and numbers, separated by commas, with at most one
comma before the ``]``. Each item's word is known when that reading leaves
no doubt: a single-quoted string without a backslash (YAML and Python read
one differently), a curly-quoted one without other quotes inside, a plain
word made of the characters flags, paths and model names use. Anything else
(a missing comma, which Python reads as two strings joined and YAML as one
word; an empty item; no closing ``]``; text after it; a nested list) leaves
the words unknown.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

__all__ = ["Intent", "Item", "looks_like_exec", "read"]

_BLANKS = " \t"
# a plain word that means itself in YAML, in Python's eye and on a command line
_PLAIN = re.compile(r"[\w./:=+@%~^-]+")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
# curly quotes: an opening one, and the quotes that may close it
_CURLY = {"\u201c": "\u201d\u201c", "\u201d": "\u201d\u201c", "\u201e": "\u201d\u201c",
          "\u2018": "\u2019\u2018", "\u2019": "\u2019\u2018", "\u201a": "\u2019\u2018"}
_QUOTES = frozenset("\"'") | frozenset(_CURLY)


@dataclass(frozen=True, slots=True)
class Item:
    """One item of the array: its span in the arguments text and the word it stands for.

    ``value`` is None when the text does not say which word was meant;
    ``json`` is True when the item is written as a JSON string already.
    """

    start: int
    end: int
    value: str | None
    json: bool = False


@dataclass(frozen=True, slots=True)
class Intent:
    """What an exec form that is not JSON was meant to say.

    ``errors`` says what keeps the text from being a JSON array (``a
    trailing comma``), each kind once, in the order met; ``items`` are its
    items; ``stray`` the offset of a comma before the ``]``; ``clear`` is
    True when every word is known and nothing else is amiss.
    """

    errors: tuple[str, ...]
    items: tuple[Item, ...]
    stray: tuple[int, ...]
    clear: bool

    @property
    def words(self) -> tuple[str, ...] | None:
        """The words the author meant, or None when the text does not say."""
        if not self.clear:
            return None
        return tuple(it.value for it in self.items if it.value is not None)


def _words(args: str) -> list[str]:
    """``args`` split at blanks outside quotes, roughly as a shell splits words."""
    out, word, quote, i = [], [], "", 0
    while i < len(args):
        c = args[i]
        if quote:
            if c == "\\" and quote == '"' and i + 1 < len(args):
                word.append(args[i:i + 2])
                i += 2
                continue
            if c == quote:
                quote = ""
            word.append(c)
        elif c in _BLANKS:
            if word:
                out.append("".join(word))
                word = []
        else:
            if c in "\"'":
                quote = c
            word.append(c)
        i += 1
    if word:
        out.append("".join(word))
    return out


def looks_like_exec(args: str) -> bool:
    """Whether ``args`` reads as an exec form: it starts with ``[``, and not with the shell's test
    command (``[ -f x ] && ...``: the word ``[`` or ``[[``, closed by ``]``/``]]`` before the last word)."""
    if not args.startswith("["):
        return False
    words = _words(args)
    if words[0] in ("[", "[["):
        closer = "]" if words[0] == "[" else "]]"
        if closer in words[1:-1]:
            return False
    return True


def read(args: str) -> Intent | None:
    """The words the exec form ``args`` (not a JSON array) was meant to hold; None when
    ``args`` does not read as an exec form at all (``looks_like_exec``)."""
    if not looks_like_exec(args):
        return None
    errors: dict[str, str] = {}
    items: list[Item] = []
    stray: list[int] = []
    clear = True
    n, i = len(args), 1
    comma = -1  # offset of the comma the next item should follow, -1 after an item
    start = True  # no item or comma read yet
    while True:
        while i < n and args[i] in _BLANKS:
            i += 1
        if i == n:
            errors.setdefault("unclosed", "no closing ]")
            clear = False
            break
        c = args[i]
        if c == "]":
            if comma >= 0 and items:
                errors.setdefault("trailing", "a trailing comma")
                stray.append(comma)
            elif comma >= 0:
                errors.setdefault("empty", "an empty item")
                clear = False
            if args[i + 1:].strip(_BLANKS):
                errors.setdefault("after", "text after the closing ]")
                clear = False
            break
        if c == ",":
            if comma >= 0 or start:
                errors.setdefault("empty", "an empty item")
                clear = False
            comma, start = i, False
            i += 1
            continue
        if not start and comma < 0:
            errors.setdefault("comma", "a missing comma")
            clear = False
        if c in "[{":
            errors.setdefault("nested", f"a nested {c}")
            clear = False
            break
        item = _item(args, i, errors)
        items.append(item)
        clear = clear and item.value is not None
        comma, start, i = -1, False, item.end
    if not errors:  # not JSON by BuildKit's reading, for a reason not named above
        errors["json"] = "not valid JSON"
        clear = False
    return Intent(tuple(errors.values()), tuple(items), tuple(stray), clear)


def _item(args: str, i: int, errors: dict[str, str]) -> Item:
    """The item that starts at ``args[i]`` (not a blank, comma or bracket)."""
    n, c = len(args), args[i]
    if c == '"':
        j = i + 1
        while j < n and args[j] != '"':
            j += 2 if args[j] == "\\" else 1
        if j >= n:
            errors.setdefault("unclosed-string", "a string without its closing quote")
            return Item(i, n, None)
        try:
            return Item(i, j + 1, json.loads(args[i:j + 1]), json=True)
        except ValueError:
            errors.setdefault("string", "a string JSON does not allow")
            return Item(i, j + 1, None)
    if c == "'" or c in _CURLY:
        closers = "'" if c == "'" else _CURLY[c]
        j = i + 1
        while j < n and args[j] not in closers:
            j += 1
        if j >= n:
            errors.setdefault("unclosed-string", "a string without its closing quote")
            return Item(i, n, None)
        body = args[i + 1:j]
        errors.setdefault("single" if c == "'" else "curly", "single quotes" if c == "'" else "curly quotes")
        clear = "\\" not in body and (c == "'" or not any(q in body for q in _QUOTES))
        return Item(i, j + 1, body if clear else None)
    j = i
    while j < n and args[j] not in _BLANKS and args[j] not in ",]":
        j += 1
    word = args[i:j]
    if _NUMBER.fullmatch(word):
        errors.setdefault("number", f"a number without quotes ({word})")
        return Item(i, j, word)
    errors.setdefault("plain", f"a word without quotes ({word})")
    return Item(i, j, word if _PLAIN.fullmatch(word) else None)
