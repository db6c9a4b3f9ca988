"""tree-sitter-bash's tree of a script, as bash reads the script: ``parse(text)`` gives the root of the tree and
the ``Offsets`` that map its nodes' byte offsets back to ``text``; ``walk`` and ``preorder`` walk it with an
explicit stack (no recursion, however deep ``$( $( ... ) )`` nests). ``ShellSyntaxError`` is what a script
autofix does not read raises, here and in ``shell_syntax`` (which reads the commands and words off the tree).

tree-sitter-bash is a grammar for editors, not bash. Where it reads a
script otherwise than bash, the parser is given a *repaired* text (the
script's characters at their offsets, some replaced, a blank inserted here
and there) and the script parsed again, until no repair is left to make;
node offsets are mapped back to the script. What the repairs cover (each
found by ``tests/property/test_shell_vs_bash.py``, which runs bash itself):

- ``\\r``, ``\\v`` and ``\\f`` are ordinary characters for bash (only space,
  tab and newline separate), blanks for the grammar: the parser gets
  ``\\x01`` there. A CRLF line's ``\\r`` stays in its last word, ``\\``
  before ``\\r\\n`` escapes the ``\\r`` (no continuation), a CR-only script
  is one line, and a heredoc delimiter line ``EOF\\r`` is not ``EOF``.
- A backslash that is the script's last byte (or followed only by the final
  newline) is dropped by bash; the parser gets a blank, and a final newline.
- ``#`` starts a comment only at the start of a word (``x#y``, ``\\ #y`` and
  ``x\\<newline>#y`` are words: an escaped blank is a word's, a continuation joins);
  ``--k=v`` is a word, not an assignment (``--k`` is no shell name), and
  so is ``x@y`` or ``--tp%x`` where a command starts;
  ``[``, ``{`` and ``}`` are reserved only as whole words (``["python3",``
  and ``{\\r`` are words), and ``[`` is a command like any other (the
  grammar refuses ``[ "$OP" "$L" ]``, which has no operator it knows).
- A comment right inside backquotes (`` `# note` ``) ends at the closing
  backquote (bash cuts the backquoted text out first); the parser gets
  ``:`` there.
- A heredoc's delimiter word ends at an operator (``<<EOF;``, ``<<EOF>f``:
  a blank is inserted), ``;``/``&`` after it are read as ``|`` (the same
  commands), and its body ends at the first line that *is* the delimiter
  (after the tabs of ``<<-``; the end of the file if none is: bash warns,
  no error). Where the grammar ends it elsewhere (a line that only starts
  with the delimiter, an unclosed ``$(`` in the body) the body is hidden
  from the parser.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator

import tree_sitter
import tree_sitter_bash
from tree_sitter import Node

from autofix.common.limits import MAX_SHELL_BYTES, MAX_SHELL_DEPTH

# Characters bash reads as ordinary that tree-sitter-bash reads as blanks, and what the parser sees instead.
_ORDINARY_BLANKS = str.maketrans({"\r": "\x01", "\v": "\x01", "\f": "\x01"})
_HIDDEN = "\x01"
# An env-var assignment as bash reads one: a name (an array element too), then = or +=.
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_BARE_PREFIX = re.compile(r"[^\s'\"$`\\]*")  # the start of a word, up to its first quote, expansion or escape
# Tokens bash reads as reserved words (or the test command) only when they are a whole word.
_RESERVED_TOKENS = frozenset({"[", "[[", "{", "}"})
_REPAIR_PASSES = 16  # parses after repairs, at most (each pass repairs every place it finds)
_BEFORE_COMMENT = " \t\n;&|()<>`"  # a `#` after one of these starts a comment (it starts a word)
_LINE = re.compile(r"[^\n]+")
_HEREDOC_BLANKS = re.compile(r"[ \t]*")

LANGUAGE = tree_sitter.Language(tree_sitter_bash.language())
_PARSER = tree_sitter.Parser(LANGUAGE)
_STOP = "autofix does not read further"


class ShellSyntaxError(Exception):
    """The script is not one bash (or autofix's bash grammar) reads: ``offset`` into the text, and why."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message



def parse(text: str) -> tuple[Node, Offsets]:
    """The tree of the script ``text`` once every repair is made (see the module doc), and its ``Offsets``.

    Raises ``ShellSyntaxError`` when the repairs do not settle, or at the
    first byte past ``MAX_SHELL_BYTES`` (tree-sitter keeps a few hundred
    bytes of tree per byte) or node past ``MAX_SHELL_DEPTH`` (see ``_repairs``).
    """
    if 4 * len(text) > MAX_SHELL_BYTES:  # else within: four bytes a character at most
        head = text[:MAX_SHELL_BYTES + 1].encode("utf-8")  # past the bound if and only if this is (no copy of it all)
        if len(head) > MAX_SHELL_BYTES:
            past = len(head[:MAX_SHELL_BYTES].decode("utf-8", "ignore"))  # the first character not wholly within
            raise ShellSyntaxError(past, f"a shell script of more than {MAX_SHELL_BYTES:,} bytes; {_STOP}")
    base = _parse_text(text)
    data = base.encode("utf-8")
    applied: set[tuple[int, int, str]] = set()  # (start, end, text the parser gets there), offsets of ``text``
    source, at = base, Offsets(base, (), len(text))
    root: Node | None = None
    for _ in range(_REPAIR_PASSES):
        root = None  # the last tree goes before the next is made: one at a time (a few hundred bytes a byte)
        root = _PARSER.parse(data if source is base else source.encode("utf-8")).root_node
        repairs = set(_repairs(root, text, base, at)) - applied
        if not repairs:  # the tree is read as bash reads the text, or as near as the repairs get
            return root, at
        applied |= repairs
        source, at = _repaired(base, applied, len(text))
    raise ShellSyntaxError(min(applied)[0], "autofix cannot read this as bash does (too many places "
                                            "tree-sitter-bash reads otherwise)")


def _parse_text(text: str) -> str:
    """``text`` as tree-sitter-bash is first given it, read by it as bash reads ``text`` (see the module doc).

    The same characters at the same offsets, and a final newline if there
    is none (bash reads a last line without one alike; tree-sitter-bash
    does not end a heredoc at the end of the file otherwise).
    """
    source = text.translate(_ORDINARY_BLANKS)
    body = source[:-1] if source.endswith("\n") else source
    run = len(body) - len(body.rstrip("\\"))
    if run % 2:  # an unescaped backslash before the end of the file: bash drops it
        body = body[:-1] + " "
    return body + "\n"


def _repaired(base: str, repairs: set[tuple[int, int, str]], length: int) -> tuple[str, Offsets]:
    """The parse text with ``repairs`` made: (text, ``Offsets`` from it back to the script's offsets).

    A repair replaces ``base[start:end]`` by text of the same length, or
    inserts a blank at ``start == end``.
    """
    chars = list(base)
    blanks = sorted(start for start, end, fill in repairs if start == end)
    for start, end, fill in sorted(repairs):
        if start < end:
            chars[start:end] = fill
    pieces: list[str] = []
    inserted: list[int] = []
    prev = 0
    for k in blanks:
        pieces.append("".join(chars[prev:k]))
        inserted.append(k + len(inserted))  # where the blank is in the parse text
        pieces.append(" ")
        prev = k
    pieces.append("".join(chars[prev:]))
    source = "".join(pieces)
    return source, Offsets(source, tuple(inserted), length)


class Offsets:
    """Offsets into the script from the UTF-8 byte offsets tree-sitter gives in the parse text.

    The parse text has the script's characters (some replaced) at their
    offsets, but for ``inserted`` blanks (their offsets in the parse text)
    and a final newline; offsets past the script's ``length`` are its end.
    """

    def __init__(self, source: str, inserted: tuple[int, ...], length: int) -> None:
        self.length = length
        self.inserted = inserted
        self.ascii = source.isascii()
        self.bytes_at: list[int] = []  # byte offset of each non-ASCII character
        self.extra: list[int] = []  # bytes beyond one, in the non-ASCII characters up to this one
        if not self.ascii:
            extra = 0
            for m in re.finditer(r"[^\x00-\x7f]", source):
                self.bytes_at.append(m.start() + extra)
                extra += len(m.group().encode("utf-8")) - 1
                self.extra.append(extra)

    def char(self, byte: int) -> int:
        """The script offset of a parse-text byte offset that starts a character."""
        i = byte
        if not self.ascii:
            k = bisect.bisect_left(self.bytes_at, byte)
            i = byte - (self.extra[k - 1] if k else 0)
        if self.inserted:
            i -= bisect.bisect_left(self.inserted, i)
        return min(i, self.length)


def span(node: Node, at: Offsets) -> tuple[int, int]:
    return at.char(node.start_byte), at.char(node.end_byte)


def walk(root: Node, descend: Callable[[Node, list[Node]], bool] | None = None) -> Iterator[tuple[Node, list[Node]]]:
    """Every node under ``root`` (itself included) in document order, parents first, with its ancestors:
    ``(node, above)``, ``above`` the list of the ancestors of ``node`` below ``root``, ``root`` first.

    ``above`` is one list the walk keeps up to date: read it before the
    next step. The children of a node for which ``descend(node, above)`` is
    false are left out. A cursor walk, with no recursion and nothing held
    but the path: tree-sitter answers ``Node.parent`` (and a sibling) by
    walking down from the root, in time growing with the node's depth, so
    a walk never asks a node for them.
    """
    cursor = root.walk()
    above: list[Node] = []
    while True:
        node = cursor.node
        assert node is not None  # a cursor made from a node is on a node wherever its moves left it
        yield node, above
        if node.child_count and (descend is None or descend(node, above)) and cursor.goto_first_child():
            above.append(node)
            continue
        while not cursor.goto_next_sibling():
            if not above:
                return
            cursor.goto_parent()
            above.pop()


def preorder(root: Node, descend: Callable[[Node], bool] | None = None) -> Iterator[Node]:
    """Every node under ``root`` (itself included) in document order, parents first (``walk``).

    The children of a node for which ``descend(node)`` is false are left out.
    """
    for node, _ in walk(root, None if descend is None else lambda n, _: descend(n)):
        yield node


def _repairs(root: Node, text: str, base: str, at: Offsets) -> list[tuple[int, int, str]]:
    """Edits of the parse text where tree-sitter-bash reads ``text`` unlike bash (the module doc lists them).

    Each is ``(start, end, fill)`` in offsets of ``text``: ``fill`` is as
    long as ``text[start:end]``, or one blank inserted at ``start == end``.
    ``base`` is the first parse text (bash's blanks, a final newline).
    Raises ``ShellSyntaxError`` at the first node nested deeper than
    ``MAX_SHELL_DEPTH``: the walk of the first parse is the first to meet it.
    """
    out: list[tuple[int, int, str]] = []
    previous: Node | None = None  # the last leaf before the node being visited
    previous_parent: Node | None = None  # and its parent
    hidden = 0  # the end of the heredoc bodies hidden so far: a heredoc that starts there is data to bash
    for node, above in walk(root):
        if len(above) >= MAX_SHELL_DEPTH:
            raise ShellSyntaxError(at.char(node.start_byte), f"a shell script nested more than {MAX_SHELL_DEPTH} "
                                                             f"levels deep (of bash's grammar); {_STOP}")
        kind = node.type
        parent = above[-1] if above else None
        if kind == "heredoc_start":
            if at.char(node.start_byte) >= hidden:
                repairs, body_end = _heredoc_repairs(node, parent, text, at)
                out.extend(repairs)
                hidden = max(hidden, body_end)
        elif kind == "comment":
            start, end = span(node, at)
            if not _starts_a_word(text, start):
                out.append((start, start + 1, _HIDDEN))  # `x#y`, `\\ #y`: a `#` inside a word starts no comment
            elif _opens_backquote(previous, previous_parent):
                close = text.find("`", start, end)
                if close > start:  # `:` (runs nothing): the grammar reads `` ` ` `` as no command word
                    out.append((start, close, ":" * (close - start)))
        elif kind == "ERROR" and _after_heredoc(above):
            a, b = span(node, at)
            if text[a:b] in (";", "&"):  # `cat <<EOF; next`: the grammar takes only `|` `&&` `||` there
                out.append((a, b, "|"))
        elif kind == "variable_name" and parent is not None and parent.type == "ERROR":
            b = at.char(node.end_byte)
            following = node.next_sibling or parent.next_sibling
            if following is not None and at.char(following.start_byte) == b < len(text):
                out.append((b, b + 1, _HIDDEN))  # `x@y` `--tp%x` as a command word: no name and an operator
        elif kind == "variable_assignment":
            a, b = span(node, at)
            if not ASSIGNMENT.match(text, a):  # `--k=v`: no shell name, so a word (the parser reads an assignment)
                m = _BARE_PREFIX.match(text, a, b)  # `*`: it matches anywhere (the ignore below)
                out.extend((k, k + 1, _HIDDEN) for k in range(a, m.end()) if text[k] == "=")  # type: ignore[union-attr]
        elif kind in _RESERVED_TOKENS and not node.child_count and not node.is_missing and parent is not None \
                and parent.type in ("test_command", "compound_statement", "ERROR"):
            a, b = span(node, at)
            if b < len(base) and base[b] not in " \t\n;&|()<>":  # ``base``: with bash's blanks, a final newline
                out.append((a, b, _HIDDEN * (b - a)))  # `["python3",` `{\r`: a word that starts with `[`, `{`
            elif kind == "[" and parent.type == "ERROR":
                out.append((a, b, _HIDDEN))  # `[ "$OP" "$L" ]`: to bash the command `[` and its words
        if not node.child_count:
            previous, previous_parent = node, parent
    return out


def _starts_a_word(text: str, at: int) -> bool:
    """Whether the character at ``at`` starts a word to bash: it follows the start of the text, or a blank, a
    line break or an operator character that no backslash escapes, continuations (backslash-newline) left
    out: ``a \\ #b`` is the word `` #b``, ``a\\<newline>#b`` the word ``a#b``, ``a \\<newline>#b`` a comment."""
    i = at - 1
    while i >= 1 and text[i] == "\n" and _escaped(text, i):
        i -= 2  # a continuation: bash reads on as if it were not there
    return i < 0 or (text[i] in _BEFORE_COMMENT and not _escaped(text, i))


def _escaped(text: str, at: int) -> bool:
    """Whether an odd run of backslashes stands right before ``at``."""
    k = at
    while k > 0 and text[k - 1] == "\\":
        k -= 1
    return (at - k) % 2 == 1


def _after_heredoc(above: list[Node]) -> bool:
    """Whether a node whose ancestors are ``above`` is on a heredoc's command line, inside its
    ``heredoc_redirect`` (or a redirection there)."""
    for parent in reversed(above):
        if parent.type != "file_redirect":
            return parent.type == "heredoc_redirect"
    return False


def _opens_backquote(leaf: Node | None, parent: Node | None) -> bool:
    """Whether ``leaf`` (its parent ``parent``) is a backquote that opens a command substitution (not one that
    closes it)."""
    if leaf is None or leaf.type != "`":
        return False
    return parent is not None and (parent.type == "ERROR" or parent.child(0) == leaf)


def _heredoc_repairs(start: Node, parent: Node | None, text: str,
                     at: Offsets) -> tuple[list[tuple[int, int, str]], int]:
    """Repairs for the heredoc ``start`` opens (a ``heredoc_start`` node, in ``parent``: a ``heredoc_redirect``
    or an ERROR), and the end of its body when they hide it (else 0).

    Its delimiter word ends at an unquoted operator (``<<EOF;``): the
    parser gets a blank before it (tree-sitter-bash reads ``EOF;`` as the
    delimiter). Its body: bash takes the lines after the command line up to
    the first that *is* the delimiter (the end of the file if none is) as
    data, before it reads anything in them; tree-sitter-bash parses
    expansions inside the body (an unclosed ``$(`` runs past the delimiter)
    and ends it at a line that only starts with the delimiter. When it ends
    it elsewhere than bash, the body is hidden from the parser (every
    character but line breaks made ``\\x01``): it cannot end early or late.
    """
    a, b = span(start, at)
    word = text[a:_delimiter_end(text, a)]
    if a + len(word) < b:
        return [(a + len(word), a + len(word), " ")], 0
    b = a + len(word)  # the parser may leave a trailing \r out of the word
    out: list[tuple[int, int, str]] = []
    after = _HEREDOC_BLANKS.match(text, b).end()  # type: ignore[union-attr]  # `*`: it matches anywhere
    if after < len(text) and text[after] in ";&" and not text.startswith(("&&", "&>", ";;", ";&"), after):
        out.append((after, after + 1, "|"))  # `cat <<EOF; next`: the grammar takes only `|` `&&` `||` there
    before = start.prev_sibling
    dash = before is not None and before.type == "<<-"
    # the nodes after ``start`` up to the next heredoc's: its body and end, if the parser found them
    own: list[Node] = []
    node = start.next_sibling
    while node is not None and node.type not in ("heredoc_start", "<<", "<<-"):
        own.append(node)
        node = node.next_sibling
    body = next((c for c in own if c.type in ("heredoc_body", "heredoc_end")), None)
    if body is not None:
        first = text.rfind("\n", 0, at.char(body.start_byte)) + 1
    else:
        first = text.find("\n", b) + 1
        if first == 0:
            return out, 0
    end = _heredoc_end(text, first, _delimiter(word), dash)
    found = next((c for c in own if c.type == "heredoc_end" and not c.is_missing), None)
    parsed = len(text) if found is None else text.rfind("\n", 0, at.char(found.start_byte)) + 1
    if parsed != end or body is None or parent is None or parent.type != "heredoc_redirect":
        out.extend((m.start(), m.end(), _HIDDEN * (m.end() - m.start())) for m in _LINE.finditer(text, first, end))
        return out, end
    if found is not None:
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        stop = at.char(found.end_byte)
        if stop < line_end:  # `<<'EOF'\r` ends at `EOF\r`: the parser matched `EOF`, the \r must not be a word
            out.append((stop, line_end, " " * (line_end - stop)))
    return out, 0


def _delimiter_end(text: str, start: int) -> int:
    """The end of the heredoc delimiter word at ``start``: its first unquoted blank, line break or operator."""
    i, quote = start, None
    while i < len(text):
        c = text[i]
        if quote is not None:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                i += 1
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote = c
        elif c in " \t\n;&|<>()":
            return i
        i += 1
    return len(text)


def _heredoc_end(text: str, first: int, delimiter: str, dash: bool) -> int:
    """Where bash's delimiter line starts, for a heredoc body from ``first`` (the end of the text if none).

    One regular-expression search (heredocs nested in the ``$(...)`` of a
    body each search past the ones inside them).
    """
    if "\n" in delimiter:  # a quoted line break: no line is the delimiter
        return len(text)
    found = re.compile("^" + ("\t*" if dash else "") + re.escape(delimiter) + "$", re.MULTILINE).search(text, first)
    return len(text) if found is None else found.start()


def _delimiter(word: str) -> str:
    """A heredoc's delimiter word after quote removal (bash expands nothing in it)."""
    out, i, quote = [], 0, None
    while i < len(word):
        c = word[i]
        if quote == "'":
            if c == "'":
                quote = None
            else:
                out.append(c)
        elif c == "\\" and i + 1 < len(word) and (quote is None or word[i + 1] in '"\\$`'):
            out.append(word[i + 1])
            i += 1
        elif c in "'\"" and quote in (None, c):
            quote = None if quote == c else c
        else:
            out.append(c)
        i += 1
    return "".join(out)
