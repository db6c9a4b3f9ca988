"""A shell word as bash reads it: the pieces it is written in, its value, and a view of it.

``shell_syntax`` finds a command's words and the pieces of each (unquoted
text, double-, single- or ANSI-C-quoted text, expansions); here ``value``
does bash's quote removal, ``view`` maps the decoded word back to the text
(and writes edits in the word's own quoting), and ``word`` marks what bash
expands when the script runs (``~``, a glob, ``{a,b}``) as unknown. All of
it is linear: runs without escapes are copied whole.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from autofix.adapters.syntax.strings import bash_double_quoted, bash_single_quoted, bash_unquoted, word_view
from autofix.adapters.syntax.text_view import View

# Unquoted brace expansion: {a,b} or {1..3} (one word becomes several).
_BRACES = re.compile(r"\{[^{}\s]*(?:,|\.\.)[^{}\s]*\}")
# Unquoted pathname expansion (a glob).
_GLOB = re.compile(r"[*?]|\[[^\]]*\]")
# A `$` the parser left as text before what bash expands (`{$V`: it splits `$` from `V`).
_BARE_EXPANSION = re.compile(r"\$[A-Za-z0-9_{(@*#?!$-]|`")


@dataclass(frozen=True, slots=True)
class Piece:
    """A run of a word's text read one way.

    ``quoting`` is ``""`` (unquoted), ``'"'``, ``"'"`` or ``"$'"`` (ANSI-C);
    ``kind`` is ``"text"`` (decoded by the quoting's rules), ``"expansion"``
    (a ``$VAR``, ``$(...)``, glob...: kept as written, its value unknown) or
    ``"nothing"`` (a command substitution that runs no command: expands to
    the empty string). ``start``/``end`` span the content, quotes excluded.
    """

    start: int
    end: int
    quoting: str
    kind: str = "text"


@dataclass(frozen=True, slots=True)
class ShellWord:
    """One word of a simple command: its span in the text (quotes included) and its pieces, in order."""

    start: int
    end: int
    pieces: tuple[Piece, ...]

    @property
    def dynamic(self) -> bool:
        """Whether bash computes part of it when the script runs (an expansion, a glob, ``~``, braces)."""
        return any(p.kind == "expansion" for p in self.pieces)


def word(start: int, end: int, pieces: list[Piece], text: str) -> ShellWord:
    """A word from its pieces; unquoted text that bash expands (``~``, a glob, braces) becomes an expansion."""
    pieces = list(pieces)
    first = pieces[0]
    if first.quoting == "" and first.kind == "text" and text.startswith("~", first.start):
        pieces[0] = Piece(first.start, first.end, "", "expansion")  # tilde expansion: $HOME or a user's home
    bare = "".join(_unquoted_mask(text, p) for p in pieces)
    if _BRACES.search(bare) or _GLOB.search(bare) or _BARE_EXPANSION.search(bare):
        pieces = [Piece(p.start, p.end, p.quoting, "expansion" if p.quoting == "" and p.kind == "text" else p.kind)
                  for p in pieces]
    return ShellWord(start, end, tuple(pieces))


def _unquoted_mask(text: str, piece: Piece) -> str:
    """The piece's text where bash may expand it (unquoted, unescaped), other characters as ``\\0``."""
    if piece.quoting or piece.kind != "text":
        return "\0"
    return re.sub(r"\\(.)", "\0\0", text[piece.start:piece.end], flags=re.DOTALL)


def value(text: str, word: ShellWord) -> str:
    """The word as the program receives it (bash's quote removal); an expansion stays as written."""
    return "".join(_decode(text, p) for p in word.pieces)


_UNQUOTED_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_DOUBLE_ESCAPE = re.compile(r'\\([$`"\\\n])')


def _decode(text: str, piece: Piece) -> str:
    raw = text[piece.start:piece.end]
    if piece.kind == "nothing":
        return ""
    if piece.kind == "expansion" or piece.quoting == "'":
        return raw
    if piece.quoting == "":
        return _UNQUOTED_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), raw)
    if piece.quoting == '"':
        return _DOUBLE_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), raw)
    return "".join(ch for ch, _ in _ansi_c(text, piece.start, piece.end))


def view(text: str, word: ShellWord) -> View:
    """The word as the program receives it, each character mapped to where it is written in ``text``.

    An escape maps to its backslash; a continuation (backslash-newline)
    belongs to the character after it; the last offset is the end of the
    last piece's content (before a closing quote), so an insertion at the
    end stays inside the quotes. ``encode`` writes in the word's quoting
    (``\\"`` and ``\\$`` in double quotes; single quotes refuse ``'``; ANSI-C
    escapes in ``$'...'``); a word that mixes quoting styles cannot be edited.
    Linear: runs without escapes are copied whole.
    """
    chars: list[str] = []  # decoded text, in runs
    offsets: list[int] = []
    pending = [-1]  # where a continuation starts (-1: none): the next character owns it

    def run(i: int, j: int) -> None:
        if i < j:
            chars.append(text[i:j])
            if pending[0] >= 0:
                offsets.append(pending[0])
                offsets.extend(range(i + 1, j))
                pending[0] = -1
            else:
                offsets.extend(range(i, j))

    def one(ch: str, at: int) -> None:
        chars.append(ch)
        offsets.extend([pending[0] if pending[0] >= 0 else at] * len(ch))
        pending[0] = -1

    for p in word.pieces:
        if p.kind == "nothing":
            continue
        if p.kind == "expansion" or p.quoting == "'":
            run(p.start, p.end)
        elif p.quoting == "$'":
            for ch, at in _ansi_c(text, p.start, p.end):
                one(ch, at)
        else:
            i = p.start
            for m in (_DOUBLE_ESCAPE if p.quoting else _UNQUOTED_ESCAPE).finditer(text, p.start, p.end):
                run(i, m.start())
                if m.group(1) == "\n":
                    pending[0] = pending[0] if pending[0] >= 0 else m.start()
                else:
                    one(m.group(1), m.start())
                i = m.end()
            run(i, p.end)
    final = pending[0] if pending[0] >= 0 else word.pieces[-1].end
    styles = {p.quoting for p in word.pieces if p.kind != "nothing"}
    return word_view(chars, offsets, final, styles, {"'": bash_single_quoted, '"': bash_double_quoted,
                                                      "": bash_unquoted, "$'": _ansi_c_encode})


_ANSI_C = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
           "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _ansi_c(text: str, start: int, stop: int) -> Iterator[tuple[str, int]]:
    """(character, offset of what wrote it) for the body ``text[start:stop]`` of a ``$'...'`` word.

    Escapes are decoded as bash decodes them (``\\n``, ``\\t``, ``\\'``,
    ``\\\\``, octal ``\\nnn``, ``\\xHH``, ``\\uHHHH``, ``\\UHHHHHHHH``,
    ``\\cx``; an unknown escape keeps its backslash).
    """
    i = start
    while i < stop:
        at, c = i, text[i]
        if c != "\\" or i + 1 >= stop:
            yield c, at
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
            code = int(text[i + 2:j], 16) if j > i + 2 else None
            if code is None:
                ch, i = "\\" + e, i + 2
            elif code > sys.maxunicode or 0xD800 <= code < 0xE000:
                ch, i = "\ufffd", j  # bash writes bytes that are no UTF-8 text
            else:
                ch, i = chr(code), j
        elif e == "c" and i + 2 < stop:
            ch, i = chr(ord(text[i + 2]) & 0x1F), i + 3
        else:
            ch, i = "\\" + e, i + 2
        for k in ch:
            yield k, at


def _ansi_c_encode(piece: str) -> str:
    """Replacement text inside ``$'...'``: a backslash, a single quote and a line break escaped."""
    return piece.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
