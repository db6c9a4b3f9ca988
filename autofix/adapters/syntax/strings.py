"""Views of quoted strings: a YAML scalar or a JSON string literal as its decoded text.

``yaml_scalar_view`` maps a PyYAML scalar node (any of the five styles) and
``json_string_view`` a JSON string literal (a Dockerfile exec form) to a
``View``: the decoded text, the host offset of each decoded character, and
an ``encode`` that writes replacement text in the region's quoting.

Every view is checked: the decoded text is rebuilt from the host text here,
and a region whose rebuilt text differs from what the parser built raises
``CannotEdit`` instead of giving offsets that might be wrong.

Where decoded characters come from more than one host character, offsets
follow one rule: a decoded character maps to the start of what produced it
(an escape's backslash, the first of a doubled ``''``, the trailing
whitespace before a folded line break), and host characters that produce
nothing (indentation, a line-continuation backslash's break) belong to the
decoded character before or after them so that every insertion lands where
it reads back as inserted.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import yaml

from autofix.adapters.syntax.text_view import View
from autofix.common.edits import Edit
from autofix.common.errors import CannotEdit

# Characters the YAML reader accepts in a stream (PyYAML's Reader.NON_PRINTABLE, negated).
_UNPRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
# YAML 1.1 line breaks we do not map (PyYAML folds or keeps them unlike \n).
_ODD_BREAKS = re.compile("[\x85\u2028\u2029]")
# Double-quoted escapes (PyYAML's ScalarScanner tables).
_ESCAPES = {
    "0": "\0", "a": "\x07", "b": "\x08", "t": "\t", "\t": "\t", "n": "\n", "v": "\x0b", "f": "\x0c",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
# Characters that cannot start a plain scalar ('-' is handled in _plain_encode).
_PLAIN_START = "?:,[]{}#&*!|>'\"%@`"
_BLANK = " \t"


@dataclass(frozen=True, slots=True)
class ScalarView(View):
    """A ``View`` whose ``to_host`` also refuses edits that go wrong only at some positions.

    ``encode`` sees only the replacement text; these checks see where it goes:
    ``fragile`` are decoded offsets no edit may start or end at (between two
    line breaks folded from blank lines, after a block scalar's final line
    break); ``end_not[i]`` are characters a replacement ending at ``i`` must
    not end with (whitespace before a folded line break is dropped), and
    ``start_not[i]`` characters one starting at ``i`` must not start with.
    ``to_host`` raises ``CannotEdit`` for those. An edit that joins the text
    around it into YAML syntax (deleting ``x`` from ``a x#b``) is not caught:
    callers re-read what they write.
    """

    fragile: frozenset[int] = frozenset()
    end_not: dict[int, str] = field(default_factory=dict, hash=False)
    start_not: dict[int, str] = field(default_factory=dict, hash=False)

    def to_host(self, edit: Edit) -> Edit:
        """The host edit for an edit of the decoded text; ``CannotEdit`` if it would not read back."""
        if edit.start in self.fragile or edit.end in self.fragile:
            raise CannotEdit("an edit between folded line breaks or after a block scalar's last line break")
        piece = edit.text
        if piece and piece[-1] in self.end_not.get(edit.end, ""):
            raise CannotEdit(f"{piece[-1]!r} cannot end the replacement here: YAML would drop or misread it")
        if piece and piece[0] in self.start_not.get(edit.start, ""):
            raise CannotEdit(f"{piece[0]!r} cannot start the replacement here: YAML would drop or misread it")
        if not piece and (edit.start, edit.end) == (0, len(self.text)) and self.encode is _plain_encode:
            raise CannotEdit("an empty plain scalar reads as null")
        return View.to_host(self, edit)


class _Out:
    """Decoded characters with their host offsets, and the position checks for ``ScalarView``."""

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.offsets: list[int] = []
        self.pending: int | None = None  # host offset for the next character (after a dropped run)
        self.fragile: set[int] = set()
        self.end_not: defaultdict[int, str] = defaultdict(str)
        self.start_not: defaultdict[int, str] = defaultdict(str)

    def emit(self, ch: str, at: int) -> None:
        self.chars.append(ch)
        self.offsets.append(at if self.pending is None else self.pending)
        self.pending = None

    def emit_run(self, text: str, start: int, end: int) -> None:
        """``text[start:end]`` as written, each character at its own offset (``emit`` in bulk)."""
        if start >= end:
            return
        self.chars.extend(text[start:end])
        if self.pending is not None:
            self.offsets.append(self.pending)
            start, self.pending = start + 1, None
            self.offsets.extend(range(start, end))
        else:
            self.offsets.extend(range(start, end))

    def breaks(self, n: int, first: int, rest: list[int]) -> None:
        """``n`` decoded line breaks: the first at ``first``, the others at ``rest[j]``.

        Offsets between two of them cannot be mapped: the host has one
        line break more than the decoded text there.
        """
        p = len(self.chars)
        for j in range(n):
            self.emit("\n", first if j == 0 else rest[j])
        self.fragile.update(range(p + 1, p + n))

    def view(self, end: int, encode: Callable[[str], str], expected: str) -> ScalarView:
        text = "".join(self.chars)
        if text != expected:
            raise CannotEdit("this string's quoting is not mapped exactly (its decoded text differs)")
        return ScalarView(text, (*self.offsets, self.pending if self.pending is not None else end), encode,
                          frozenset(self.fragile), dict(self.end_not), dict(self.start_not))


def _break_len(text: str, i: int) -> int:
    return 2 if text.startswith("\r\n", i) else 1


def _fold(out: _Out, text: str, i: int, end: int, escaped_at: int | None = None) -> int:
    """Fold whitespace and line breaks in a plain or quoted scalar from ``i``; the index after them.

    One line break reads as a space, ``n`` breaks as ``n - 1`` newlines; the
    whitespace around them is dropped. After a double-quoted ``\\`` (at
    ``escaped_at``; ``i`` is then the break) the first break reads as nothing.
    """
    first = i if escaped_at is None else escaped_at
    breaks = []
    while True:
        while i < end and text[i] in _BLANK:
            i += 1
        if i < end and text[i] in "\r\n":
            breaks.append(i)
            i += _break_len(text, i)
        else:
            break
    p = len(out.chars)
    if escaped_at is None and len(breaks) == 1:
        out.emit(" ", first)
    elif len(breaks) > 1:
        out.breaks(len(breaks) - 1, first, breaks)
    else:
        out.pending = first  # an escaped break alone: nothing to read, the next character owns it
        return i
    if escaped_at is None:
        out.end_not[p] += _BLANK  # whitespace before a folded break is dropped ...
    out.start_not[len(out.chars)] += _BLANK  # ... and so is indentation after it
    return i


# What ends a run of characters a scalar holds as written, per style (plain, single-, double-quoted).
_FLOW_SPECIAL = {None: re.compile(r"[ \t\r\n]"), "'": re.compile(r"[ \t\r\n']"), '"': re.compile(r'[ \t\r\n\\]')}


def _flow(text: str, start: int, end: int, style: str | None) -> _Out:
    """Decode ``text[start:end]``: a plain scalar, or the inside of a quoted one (linear: runs are copied whole)."""
    out = _Out()
    special = _FLOW_SPECIAL[style]
    i = start
    while i < end:
        ch = text[i]
        if ch in " \t\r\n":
            j = i
            while j < end and text[j] in _BLANK:
                j += 1
            if j < end and text[j] in "\r\n":
                i = _fold(out, text, i, end)
                continue
            out.emit_run(text, i, j)  # whitespace inside a line is kept
            i = j
        elif ch == "'" and style == "'":
            out.emit("'", i)
            i += 2  # '' reads as '
        elif ch == "\\" and style == '"':
            nxt = text[i + 1]
            if nxt in _ESCAPES:
                out.emit(_ESCAPES[nxt], i)
                i += 2
            elif nxt in _HEX_ESCAPES:
                n = _HEX_ESCAPES[nxt]
                out.emit(chr(int(text[i + 2 : i + 2 + n], 16)), i)
                i += 2 + n
            elif nxt in "\r\n":
                i = _fold(out, text, i + 1, end, escaped_at=i)
            else:
                raise CannotEdit(f"unknown escape \\{nxt} in a double-quoted YAML string")
        else:
            m = special.search(text, i + 1, end)
            j = m.start() if m else end
            out.emit_run(text, i, j)
            i = j
    return out


def _check_printable(piece: str, what: str) -> None:
    if m := _UNPRINTABLE.search(piece):
        raise CannotEdit(f"{m.group()!r} cannot be written in a {what}")


def _plain_encode(piece: str) -> str:
    """A plain scalar holds text with no line break, tab, ``: ``, `` #`` or flow indicator.

    Flow indicators (``,[]{}``) are refused anywhere: inside a flow
    collection they would end the scalar, and the node does not say where it is.
    """
    _check_printable(piece, "plain YAML scalar")
    if bad := re.search(r"[\r\n\t\x85\u2028\u2029,\[\]{}]|: | #|:$|^#|^-$|^- ", piece):
        raise CannotEdit(f"{bad.group()!r} cannot be written in a plain YAML scalar; quote the value")
    return piece


def _single_encode(piece: str) -> str:
    """Single quotes double ``'``; a line break would need folding, so none is written."""
    _check_printable(piece, "single-quoted YAML string")
    if _ODD_BREAKS.search(piece) or "\n" in piece or "\r" in piece:
        raise CannotEdit("a line break cannot be written in a single-quoted YAML string")
    return piece.replace("'", "''")


def _double_char(ch: str) -> str:
    if ch in '\\"':
        return "\\" + ch
    if ch == "\n":
        return "\\n"
    if ch == "\t":
        return ch
    if _UNPRINTABLE.match(ch) or _ODD_BREAKS.match(ch) or ch == "\r":
        code = ord(ch)
        return f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}"
    return ch


def _double_encode(piece: str) -> str:
    """Double quotes escape ``\\``, ``"``, line breaks and unprintable characters."""
    return "".join(_double_char(ch) for ch in piece)


def _lines(text: str, pos: int) -> Iterator[tuple[int, int, bool]]:
    """(start, end of content, has a line break) of each line from ``pos`` to the end of ``text``."""
    while pos < len(text):
        e = min((p for p in (text.find("\n", pos), text.find("\r", pos)) if p >= 0), default=len(text))
        yield pos, e, e < len(text)
        pos = e + _break_len(text, e) if e < len(text) else len(text)


def _literal_encoder(prefix: str) -> Callable[[str], str]:
    """``encode`` for a literal block: ``prefix`` is a line break and the block's indentation."""

    def encode(piece: str) -> str:
        """A literal block: each line break is followed by the block's indentation."""
        _check_printable(piece, "YAML block scalar")
        if re.search("[\r\x85\u2028\u2029]", piece):
            raise CannotEdit("only \\n line breaks can be written in a YAML block scalar")
        return piece.replace("\n", prefix)
    return encode


def _folded_encode(piece: str) -> str:
    """A folded block holds one line's text: a line break would be folded."""
    _check_printable(piece, "YAML block scalar")
    if re.search("[\r\n\x85\u2028\u2029]", piece):
        raise CannotEdit("a line break cannot be written in a folded YAML block scalar")
    return piece


def _block(text: str, start: int, node: yaml.ScalarNode) -> ScalarView:
    """A literal (``|``) or folded (``>``) block scalar whose indicator is at ``start``."""
    folded = node.style == ">"
    i = start + 1
    chomp, explicit = "", False
    while i < len(text) and text[i] in "+-123456789":
        chomp = text[i] if text[i] in "+-" else chomp
        explicit = explicit or text[i].isdigit()
        i += 1
    header = next(_lines(text, i))
    if not header[2]:
        raise CannotEdit("a block scalar with no lines")
    body = header[1] + _break_len(text, header[1])
    first = next((s for s, e, _ in _lines(text, body) if text[s:e].strip(" ")), len(text))
    lead = len(text[first:]) - len(text[first:].lstrip(" "))
    if lead == 0:  # the first line with text is not the scalar's (a key, "...")
        raise CannotEdit("a block scalar with no content lines: nothing to anchor an edit to")
    # The indentation is the first content line's unless a digit gives it relative
    # to the parent's, which the node does not tell: try each, keep the one that reads back.
    for indent in range(1, lead + 1) if explicit else (lead,):
        out, end = _block_with(text, body, indent, folded, chomp, explicit)
        if "".join(out.chars) == node.value:
            newline = "\r\n" if text.startswith("\r\n", header[1]) else "\n"
            encode = _folded_encode if folded else _literal_encoder(newline + " " * indent)
            return out.view(end, encode, node.value)
    raise CannotEdit("this block scalar's indentation is not mapped exactly")


def _block_with(text: str, body: int, indent: int, folded: bool, chomp: str, explicit: bool) -> tuple[_Out, int]:
    """Decode block lines from ``body`` at this indentation (PyYAML's ``scan_block_scalar``).

    Returns the decoded characters and the host offset where the last
    content line ends (before its line break).
    """
    out = _Out()
    blank: list[int] = []  # line breaks of blank lines since the last content line
    last = None  # (end, has break, starts with whitespace) of the last content line
    for s, e, has_break in _lines(text, body):
        if text[s:e].strip(" ") == "" and e - s <= indent:
            if not has_break:
                break
            blank.append(e)  # a blank line: at most ``indent`` spaces, then a break
            continue
        if text[s : s + indent] != " " * indent:
            break  # a less indented line ends the scalar
        content = s + indent
        starts_blank = text[content] in _BLANK
        if last is None:
            out.breaks(len(blank), blank[0] if blank else 0, blank)  # leading blank lines
            if blank:
                out.fragile.add(0)
            if not explicit:
                out.start_not[len(out.chars)] += " "  # more spaces would change the detected indentation
        elif folded and not last[2] and not starts_blank:
            if blank:
                out.breaks(len(blank), last[0], blank)  # the content line's own break is folded away
            else:
                out.emit(" ", last[0])
        else:
            out.breaks(1 + len(blank), last[0], [last[0], *blank])
        if folded:
            out.start_not[len(out.chars)] += _BLANK  # a more indented line is not folded
        for k in range(content, e):
            out.emit(text[k], k)
        last, blank = (e, has_break, starts_blank), []
    if last is None:
        return out, body
    c = len(out.chars)
    if chomp != "-":
        for _ in range((1 if last[1] else 0) + (len(blank) if chomp == "+" else 0)):
            out.emit("\n", last[0])  # the final break and kept trailing blank lines: one host offset
        out.fragile.update(range(c + 1, len(out.chars) + 1))
    if chomp != "+":
        out.end_not[c] += "\n"  # a break written before the final one would be chomped
    return out, last[0]


def content_start(text: str, start: int, end: int) -> int:
    """Where a node's content starts: after the anchor (``&name``) and tag (``!tag``) its mark includes."""
    i = start
    while i < end and text[i] in "&!":
        while i < end and text[i] not in " \t\r\n":
            i += 1
        while i < end and text[i] in " \t\r\n":
            i += 1
    return i


def yaml_scalar_view(text: str, node: yaml.ScalarNode, offset: int = 0) -> ScalarView:
    """The decoded text of one YAML scalar and where each of its characters is in ``text``.

    ``node`` is a composed scalar (``yaml.CSafeLoader`` or ``yaml.SafeLoader``)
    of the stream ``text[offset:]``. The view's text is ``node.value``; its
    last offset is the end of the scalar's content (a quoted scalar's closing
    quote, the end of a block scalar's last content line), so an insertion at
    the end stays inside the scalar.

    Raises ``CannotEdit`` for what is not mapped exactly: the YAML 1.1 line
    breaks U+0085/U+2028/U+2029, a block scalar without content lines,
    anything whose rebuilt text differs from ``node.value`` (tabs in
    indentation, say). ``encode`` and ``to_host`` raise it for text the
    scalar's style cannot hold (see ``ScalarView``).
    """
    start, end = node.start_mark.index + offset, node.end_mark.index + offset
    start = content_start(text, start, end)
    if _ODD_BREAKS.search(text, start, end):
        raise CannotEdit("a YAML string with U+0085/U+2028/U+2029 line breaks")
    style = node.style
    if style in ("|", ">"):
        return _block(text, start, node)
    if style in ("'", '"'):
        out = _flow(text, start + 1, end - 1, style)
        return out.view(end - 1, _single_encode if style == "'" else _double_encode, node.value)
    if style:  # plain is None (SafeLoader) or "" (CSafeLoader)
        raise CannotEdit(f"unknown YAML scalar style {style!r}")
    out = _flow(text, start, end, None)
    out.start_not[0] += _PLAIN_START + _BLANK  # indicators and spaces only matter at the start ...
    out.end_not[len(out.chars)] += _BLANK  # ... and trailing spaces are dropped
    for m in re.finditer("[#:]", "".join(out.chars)):
        if m.group() == "#":
            out.end_not[m.start()] += _BLANK  # " #" starts a comment
        else:
            out.start_not[m.start() + 1] += _BLANK  # ": " is a mapping value
    return out.view(end, _plain_encode, node.value)


def json_string_view(text: str, start: int, end: int) -> View:
    """The decoded text of the JSON string literal ``text[start:end]`` (quotes included).

    Offsets: an escape maps to its backslash (a surrogate pair ``\\uD83D\\uDE00``
    to the first one), the last offset is the closing quote. ``encode`` writes
    JSON escapes without the quotes, non-ASCII as is. Raises ``CannotEdit``
    when the region is not one JSON string.
    """
    literal = text[start:end]
    try:
        value = json.loads(literal)
    except ValueError as e:
        raise CannotEdit(f"not a JSON string: {e}") from None
    if not isinstance(value, str) or not literal.startswith('"'):
        raise CannotEdit("not a JSON string literal")
    chars, offsets = [], []
    i = start + 1
    while i < end - 1:
        ch = text[i]
        if ch != "\\":
            chars.append(ch)
            step = 1
        elif text[i + 1] in _JSON_ESCAPES:
            chars.append(_JSON_ESCAPES[text[i + 1]])
            step = 2
        else:  # \uXXXX, and a \uXXXX\uXXXX surrogate pair is one character
            code, step = int(text[i + 2 : i + 6], 16), 6
            low = text[i + 8 : i + 12] if text.startswith("\\u", i + 6) else ""
            if 0xD800 <= code < 0xDC00 and re.fullmatch("[dD][c-fC-F][0-9a-fA-F]{2}", low):
                code, step = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00), 12
            chars.append(chr(code))
        offsets.append(i)
        i += step
    if "".join(chars) != value:
        raise CannotEdit("this JSON string is not mapped exactly")
    return View(value, (*offsets, end - 1), lambda piece: json.dumps(piece, ensure_ascii=False)[1:-1])


# Characters a shell word can hold unquoted without a backslash.
_SHELL_SAFE = re.compile(r"[A-Za-z0-9_\-./,:@+=%^]")


def word_view(chars: list[str], offsets: list[int], final: int, styles: set[str],
              encoders: dict[str, Callable[[str], str]]) -> View:
    """A shell word's decoded ``chars`` as a ``View`` (``offsets`` per character, then ``final``).

    ``encoders`` maps each quoting style to its encoder; a word written in
    more than one style (``styles``) cannot be edited: its encoder raises ``CannotEdit``.
    """
    encode: Callable[[str], str]
    if len(styles) > 1:
        def encode(piece: str) -> str:
            raise CannotEdit("this word mixes quoting styles: edit it by hand")
    else:
        encode = encoders[next(iter(styles), "")]
    return View("".join(chars), (*offsets, final), encode)


def bash_single_quoted(piece: str) -> str:
    """Replacement text inside single quotes; raises ``CannotEdit`` for a ``'``."""
    if "'" in piece:
        raise CannotEdit("a ' cannot be written inside a single-quoted shell word")
    return piece


def bash_double_quoted(piece: str) -> str:
    """Replacement text inside double quotes: ``\\`` ``"`` ``$`` and a backquote escaped."""
    return re.sub(r'([\\"$`])', r"\\\1", piece)


def bash_unquoted(piece: str) -> str:
    """Replacement text outside quotes: every character but the safe ones escaped; raises ``CannotEdit`` for a line break."""
    if "\n" in piece or "\r" in piece:
        raise CannotEdit("a line break cannot be written in an unquoted shell word")
    return "".join(ch if _SHELL_SAFE.match(ch) else "\\" + ch for ch in piece)


def _dollars(encode: Callable[[str], str]) -> Callable[[str], str]:
    return lambda piece: encode(piece).replace("$", "$$")


def _compose_double(piece: str) -> str:
    return re.sub(r'([\\"])', r"\\\1", piece)


def _compose_bare(piece: str) -> str:
    return "".join(ch if ch == "$" or _SHELL_SAFE.match(ch) else "\\" + ch for ch in piece)


_COMPOSE_STOP = ";&|<>"


# One compose word: unquoted characters, a backslash and what it escapes, a quoted run (to the end if unclosed).
_COMPOSE_WORD = re.compile(r"""(?:[^ \t\r\n;&|<>'"\\]+|\\[\s\S]?|'[^']*'?|"(?:[^"\\]+|\\[\s\S]?)*"?)+""")
_COMPOSE_BLANKS = re.compile(r"[ \t\r\n]*")


def compose_words(text: str) -> list[tuple[int, int]]:
    """The spans of the words compose splits a ``command``/``entrypoint`` string into.

    Compose (``go-shellwords``, no shell) splits at unquoted blanks, reads
    quotes and backslashes, and stops at an unquoted ``;`` ``&`` ``|`` ``<``
    ``>`` (what follows is not part of the command).
    """
    spans: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        i = _COMPOSE_BLANKS.match(text, i).end()  # type: ignore[union-attr]  # `*`: it matches anywhere
        if i >= n or text[i] in _COMPOSE_STOP:
            break
        end = _COMPOSE_WORD.match(text, i).end()  # type: ignore[union-attr]  # any character but a blank or a stop
        spans.append((i, end))
        i = end
    return spans


_COMPOSE_SPECIAL = re.compile(r"""[$\\'"]""")


def compose_word_view(text: str, start: int, end: int) -> View:
    """One word of a compose command string (``text`` as YAML decoded it) as the container receives it.

    ``go-shellwords`` rules: single quotes hold their text as is, a backslash
    escapes any character (in double quotes too), and ``$$`` is a literal
    ``$``. ``encode`` writes in the word's quoting and doubles ``$``.
    """
    chars: list[str] = []
    offsets: list[int] = []
    styles: set[str] = set()
    quote, i, final = None, start, end
    while i < end:
        ch = text[i]
        if ch == "$" and text.startswith("$$", i):
            chars.append("$")
            offsets.append(i)
            i += 2
        elif quote != "'" and ch == "\\" and i + 1 < end:
            chars.append(text[i + 1])
            offsets.append(i)
            i += 2
        elif quote is None and ch in "'\"":
            quote = ch
            styles.add(ch)
            i += 1
        elif quote is not None and ch == quote:
            quote, final = None, i
            i += 1
            continue
        else:
            styles.add("" if quote is None else quote)
            m = _COMPOSE_SPECIAL.search(text, i + 1, end)
            j = m.start() if m else end
            chars.extend(text[i:j])  # a run of ordinary characters, as written
            offsets.extend(range(i, j))
            i = j
        if quote is None:
            final = i
    if quote is not None:
        raise CannotEdit("an unterminated quote")
    return word_view(chars, offsets, final, styles, {"'": _dollars(bash_single_quoted), '"': _dollars(_compose_double),
                                                      "": _dollars(_compose_bare)})


def compose_dynamic(raw: str) -> bool:
    """Whether compose interpolates something in ``raw`` (a ``$VAR`` or ``${VAR}``; ``$$`` is a literal ``$``)."""
    return bool(re.search(r"\$(\{|[A-Za-z_])", raw.replace("$$", "")))
