"""Bash's syntax for the shell reader: a script's simple commands and their words, as bash reads them.

``commands(text)`` parses the script with tree-sitter-bash and gives every
simple command bash may run (nested ones too: in ``$(...)``, pipelines,
``case`` arms, functions; not in a heredoc's body, which is data) with its
words: their spans in ``text``, and the pieces each is made of (unquoted
text, double-/single-/ANSI-C-quoted text, expansions), from which
``shell_words.value`` does bash's quote removal and ``shell_words.view``
maps the decoded word back to the text. It is linear in the size of the text, and trees are walked with an
explicit stack (no recursion, however deep ``$( $( ... ) )`` nests).

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

Words are rebuilt from the nodes *and* the text between them, as bash
splits them: at unquoted blanks, redirections and assignments, and at an
unquoted line break (which ends the command), not at an escaped blank, a
continuation or a ``$"..."``. A redirection takes one word, its target:
the words the grammar hangs on it after that (``p >log --tp 8``, even
where it hangs the redirection on a list, ``a && p >log x``) and words
after a heredoc's delimiter are the command's. Bash refuses what the
grammar takes: a reserved word that closes a construct (``fi``, ``done``,
``}``...) where a command starts, ``;;`` outside ``case``, a word after a
compound command's redirection (``{ a; } >log x``), ``$'...\\'`` with no
quote after.

What the grammar still cannot parse (an ERROR or MISSING node) raises
``ShellSyntaxError`` at the first such place: where an unterminated quote
or an unclosed construct opens, else where the parser stopped. A few
constructs bash accepts are refused that way: a ``<>`` redirection, two
heredocs on one line, ``cat <<EOF >f; next``, a here-string after another
redirection (``p >f <<<x``), ``${...}``/``$((...))`` whose text is no
expansion (bash -n takes it; it fails when run), `` `a` `b` `` (which the
grammar reads as one substitution).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

import tree_sitter
import tree_sitter_bash

from autofix.adapters.syntax.shell_words import Piece, ShellWord, word
from autofix.common.limits import MAX_SHELL_BYTES, MAX_SHELL_DEPTH

# Characters bash reads as ordinary that tree-sitter-bash reads as blanks, and what the parser sees instead.
_ORDINARY_BLANKS = str.maketrans({"\r": "\x01", "\v": "\x01", "\f": "\x01"})
_HIDDEN = "\x01"
# Children of a command that are not its words: env-var prefixes and redirections (with their targets).
_NOT_WORDS = frozenset({"variable_assignment", "variable_assignments", "file_redirect", "herestring_redirect",
                        "heredoc_redirect"})
_REDIRECTS = frozenset({"file_redirect", "herestring_redirect", "heredoc_redirect"})
# Statements that end with the simple command the redirections after them belong to (`a && ! p >log`).
_ENDS_WITH_A_COMMAND = frozenset({"list", "pipeline", "negated_command"})
# Nodes that are (parts of) one word.
_WORD_NODES = frozenset({"word", "number", "string", "raw_string", "ansi_c_string", "translated_string",
                         "concatenation", "simple_expansion", "expansion", "command_substitution",
                         "arithmetic_expansion"})
# What follows a heredoc's command line: its body (data), and what the parser put there (a pipe's next command).
_HEREDOC_DATA = frozenset({"heredoc_body", "heredoc_end", "pipeline", "list", "ERROR", "command"})
# Unquoted text pieces: leaf nodes whose text is the word's own.
_LEAVES = frozenset({"word", "number", "extglob_pattern", "$", "{", "}", "variable_name", "=", "+="})
# An env-var assignment as bash reads one: a name (an array element too), then = or +=.
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_BARE_PREFIX = re.compile(r"[^\s'\"$`\\]*")  # the start of a word, up to its first quote, expansion or escape
# Reserved words that close or continue a construct: where a command starts, bash stops with
# "syntax error near unexpected token" (tree-sitter-bash reads a command of that name).
_CLOSERS = frozenset({"then", "else", "elif", "fi", "do", "done", "esac", "}", "in", "]]"})
_CASE_ENDS = frozenset({";;", ";&", ";;&"})
# Tokens that close what an earlier token opened (a MISSING one at the end of the file: point at the opener).
_CLOSING = frozenset({")", "}", "]", "]]", "))", "`", '"', "'", "fi", "done", "esac", "then", "do"})
# Tokens bash reads as reserved words (or the test command) only when they are a whole word.
_RESERVED_TOKENS = frozenset({"[", "[[", "{", "}"})
_REPAIR_PASSES = 16  # parses after repairs, at most (each pass repairs every place it finds)
_BLANKS = " \t"
_BEFORE_COMMENT = " \t\n;&|()<>`"  # a `#` after one of these starts a comment (it starts a word)
_LINE = re.compile(r"[^\n]+")
_HEREDOC_BLANKS = re.compile(r"[ \t]*")

_LANGUAGE = tree_sitter.Language(tree_sitter_bash.language())
_PARSER = tree_sitter.Parser(_LANGUAGE)
_STOP = "autofix does not read further"


class ShellSyntaxError(Exception):
    """The script is not one bash (or autofix's bash grammar) reads: ``offset`` into the text, and why."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


@dataclass(frozen=True, slots=True)
class Command:
    """A simple command: its span (env-var prefixes and redirections included) and its words."""

    start: int
    end: int
    words: tuple[ShellWord, ...]


def commands(text: str, wanted: re.Pattern[str] | None = None) -> list[Command]:
    """Every simple command of the script ``text``, in document order (an outer command before the ones inside it).

    A heredoc's body is data, and so is a command substitution that runs
    nothing (`` `# note` ``). ``wanted``, when given, says which commands to
    build words for: those whose source text holds a match of it (a pattern
    without lookaround whose matches can neither overlap nor start inside
    one another, so that one scan of the text finds them all: asking each
    command's text would cost a nested command's depth times its size);
    the others are left out (a script of 600 000 ``echo`` lines is read in
    linear time), unless one might be a misplaced reserved word bash
    refuses. Raises ``ShellSyntaxError`` (its offset into ``text``) for a
    script bash would not run, that tree-sitter-bash cannot parse, or past
    ``limits.MAX_SHELL_BYTES`` or ``limits.MAX_SHELL_DEPTH``.
    """
    root, at = _tree(text)
    return _read_tree(root, text, at, wanted)


def comments(text: str) -> list[tuple[int, int]]:
    """The spans of the comments of the script ``text``, in order: each from its ``#`` to its line's end.

    A comment is what bash reads as one: a ``#`` that starts a word
    (``x#y`` is a word), outside quotes and outside a heredoc's body (data,
    even where bash expands a ``$(...)`` in it: see ``_runs``); one inside a
    ``$(...)`` is a comment of that command. A ``#`` right inside backquotes
    is left out (the parser gets ``:`` there, see the module doc). Raises
    ``ShellSyntaxError`` as ``commands`` does.
    """
    root, at = _tree(text)
    if root.has_error:
        _raise_first_error(root, text, at)
    return [_span(n, at) for n in _preorder(root, lambda n: n.type != "heredoc_body") if n.type == "comment"]


def _tree(text: str):
    """The tree of the script ``text`` once every repair is made (see the module doc), and its ``_Offsets``.

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
    source, at = base, _Offsets(base, (), len(text))
    root = None
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


def _repaired(base: str, repairs: set[tuple[int, int, str]], length: int):
    """The parse text with ``repairs`` made: (text, ``_Offsets`` from it back to the script's offsets).

    A repair replaces ``base[start:end]`` by text of the same length, or
    inserts a blank at ``start == end``.
    """
    chars = list(base)
    blanks = sorted(start for start, end, fill in repairs if start == end)
    for start, end, fill in sorted(repairs):
        if start < end:
            chars[start:end] = fill
    pieces, inserted, prev = [], [], 0
    for k in blanks:
        pieces.append("".join(chars[prev:k]))
        inserted.append(k + len(inserted))  # where the blank is in the parse text
        pieces.append(" ")
        prev = k
    pieces.append("".join(chars[prev:]))
    source = "".join(pieces)
    return source, _Offsets(source, tuple(inserted), length)


class _Offsets:
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


def _span(node, at: _Offsets) -> tuple[int, int]:
    return at.char(node.start_byte), at.char(node.end_byte)


def _walk(root, descend=None):
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
    above: list = []
    while True:
        node = cursor.node
        yield node, above
        if node.child_count and (descend is None or descend(node, above)) and cursor.goto_first_child():
            above.append(node)
            continue
        while not cursor.goto_next_sibling():
            if not above:
                return
            cursor.goto_parent()
            above.pop()


def _preorder(root, descend=None):
    """Every node under ``root`` (itself included) in document order, parents first (``_walk``).

    The children of a node for which ``descend(node)`` is false are left out.
    """
    for node, _ in _walk(root, None if descend is None else lambda n, _: descend(n)):
        yield node


def _repairs(root, text: str, base: str, at: _Offsets) -> list[tuple[int, int, str]]:
    """Edits of the parse text where tree-sitter-bash reads ``text`` unlike bash (the module doc lists them).

    Each is ``(start, end, fill)`` in offsets of ``text``: ``fill`` is as
    long as ``text[start:end]``, or one blank inserted at ``start == end``.
    ``base`` is the first parse text (bash's blanks, a final newline).
    Raises ``ShellSyntaxError`` at the first node nested deeper than
    ``MAX_SHELL_DEPTH``: the walk of the first parse is the first to meet it.
    """
    out: list[tuple[int, int, str]] = []
    previous = previous_parent = None  # the last leaf before the node being visited, and its parent
    hidden = 0  # the end of the heredoc bodies hidden so far: a heredoc that starts there is data to bash
    for node, above in _walk(root):
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
            start, end = _span(node, at)
            if not _starts_a_word(text, start):
                out.append((start, start + 1, _HIDDEN))  # `x#y`, `\\ #y`: a `#` inside a word starts no comment
            elif _opens_backquote(previous, previous_parent):
                close = text.find("`", start, end)
                if close > start:  # `:` (runs nothing): the grammar reads `` ` ` `` as no command word
                    out.append((start, close, ":" * (close - start)))
        elif kind == "ERROR" and _after_heredoc(above):
            a, b = _span(node, at)
            if text[a:b] in (";", "&"):  # `cat <<EOF; next`: the grammar takes only `|` `&&` `||` there
                out.append((a, b, "|"))
        elif kind == "variable_name" and parent is not None and parent.type == "ERROR":
            b = at.char(node.end_byte)
            following = node.next_sibling or parent.next_sibling
            if following is not None and at.char(following.start_byte) == b < len(text):
                out.append((b, b + 1, _HIDDEN))  # `x@y` `--tp%x` as a command word: no name and an operator
        elif kind == "variable_assignment":
            a, b = _span(node, at)
            if not _ASSIGNMENT.match(text, a):  # `--k=v`: no shell name, so a word (the parser reads an assignment)
                m = _BARE_PREFIX.match(text, a, b)
                out.extend((k, k + 1, _HIDDEN) for k in range(a, m.end()) if text[k] == "=")
        elif kind in _RESERVED_TOKENS and not node.child_count and not node.is_missing and parent is not None \
                and parent.type in ("test_command", "compound_statement", "ERROR"):
            a, b = _span(node, at)
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


def _after_compound(parent) -> bool:
    """Whether a redirection whose parent is ``parent`` follows a compound command (``{ ...; } >log``,
    ``fi >log``), not a simple one."""
    if parent is None:
        return False
    return parent.type == "function_definition" or (parent.type == "redirected_statement"
                                                     and _last_command(parent.child(0)) is None)


def _after_heredoc(above: list) -> bool:
    """Whether a node whose ancestors are ``above`` is on a heredoc's command line, inside its
    ``heredoc_redirect`` (or a redirection there)."""
    for parent in reversed(above):
        if parent.type != "file_redirect":
            return parent.type == "heredoc_redirect"
    return False


def _opens_backquote(leaf, parent) -> bool:
    """Whether ``leaf`` (its parent ``parent``) is a backquote that opens a command substitution (not one that
    closes it)."""
    if leaf is None or leaf.type != "`":
        return False
    return parent is not None and (parent.type == "ERROR" or parent.child(0) == leaf)


def _heredoc_repairs(start, parent, text: str, at: _Offsets) -> tuple[list[tuple[int, int, str]], int]:
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
    a, b = _span(start, at)
    word = text[a:_delimiter_end(text, a)]
    if a + len(word) < b:
        return [(a + len(word), a + len(word), " ")], 0
    b = a + len(word)  # the parser may leave a trailing \r out of the word
    out = []
    after = _HEREDOC_BLANKS.match(text, b).end()
    if after < len(text) and text[after] in ";&" and not text.startswith(("&&", "&>", ";;", ";&"), after):
        out.append((after, after + 1, "|"))  # `cat <<EOF; next`: the grammar takes only `|` `&&` `||` there
    before = start.prev_sibling
    dash = before is not None and before.type == "<<-"
    own = []  # the nodes after ``start`` up to the next heredoc's: its body and end, if the parser found them
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


def _read_tree(root, text: str, at: _Offsets, wanted: re.Pattern[str] | None) -> list[Command]:
    """The commands of a repaired tree; raises ``ShellSyntaxError`` at its first error."""
    if root.has_error:
        _raise_first_error(root, text, at)
    found: list[Command] = []
    mentions = None if wanted is None else _Mentions(text, wanted)
    doubled = _Doubled(root)
    for node, above in _walk(root, lambda n, _: _runs(n, text, at)):
        kind = node.type
        if kind == "command":
            if mentions is None or mentions.wanted(*_span(node, at)):
                found.extend(_commands_of(node, above, text, at, doubled))
        elif kind in _CASE_ENDS and (not above or above[-1].type != "case_item"):
            start = at.char(node.start_byte)
            raise ShellSyntaxError(start, f"syntax error near unexpected token `{kind}'")
        elif kind in _REDIRECTS and _after_compound(above[-1] if above else None):
            target = _target(node)
            extra = [c for c in node.children[target + 1:] if c.is_named] if target is not None else []
            if extra and extra[0].type not in _HEREDOC_DATA:  # a compound command takes no words after it
                where = _span(extra[0], at)
                raise ShellSyntaxError(where[0], f"syntax error near unexpected token `{text[slice(*where)]}'")
        elif kind == "ansi_c_string":
            a, b = _span(node, at)
            run = len(text[a:b - 1]) - len(text[a:b - 1].rstrip("\\"))
            if run % 2:  # `$'...\'` and no quote after: the parser closes it at the escaped quote
                raise ShellSyntaxError(a, "$' is never closed: bash reads to the end of the file looking for its '")
    return found


# A whole word of the text (no blank on either side) that is a reserved word closing a construct.
_CLOSER_WORD = re.compile(r"(?<!\S)(?:then|else|elif|fi|done|do|esac|\}|in|\]\])(?!\S)")


class _Mentions:
    """Which commands to build the words of: those whose text holds a match of ``wanted``, or a whole word
    that is a reserved word closing a construct (``fi``), which bash refuses where a command starts.

    Each is found by one scan of the text, and a command's span is looked
    up in them: the text of a command holds that of every command nested in
    it, so reading each command's own text would cost its nesting times its
    size. Words are split where ``str.split`` splits them (its blanks are
    ``\\s``'s).
    """

    def __init__(self, text: str, wanted: re.Pattern[str]) -> None:
        self.text = text
        self.matches = [(m.start(), m.end()) for m in wanted.finditer(text)]
        self.closers = [(m.start(), m.end()) for m in _CLOSER_WORD.finditer(text)]

    def wanted(self, start: int, end: int) -> bool:
        """Whether to build the words of the command at ``text[start:end]``."""
        return _within(self.matches, start, end) or _within(self.closers, start, end) or self._edge(start, end)

    def _edge(self, start: int, end: int) -> bool:
        """Whether the first or the last word of ``text[start:end]`` (cut by the span: no whole word of the
        text, perhaps) is a reserved word that closes a construct (none is longer than four characters)."""
        head = self.text[start:min(end, start + 5)]
        if head[:1].strip() and head.split(None, 1)[0] in _CLOSERS:
            return True
        tail = self.text[max(start, end - 5):end]
        return bool(tail[-1:].strip()) and tail.rsplit(None, 1)[-1] in _CLOSERS


def _within(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether one of ``spans`` (in order, none overlapping) lies within ``start``..``end``."""
    i = bisect.bisect_left(spans, (start,))
    return i < len(spans) and spans[i][1] <= end


def _runs(node, text: str, at: _Offsets) -> bool:
    """Whether the commands under ``node`` are read: not in a heredoc's body, nor in `` `# note` ``.

    A heredoc's body is data, and is read as such even where bash expands a
    ``$(...)`` in an unquoted one: where the parser misreads a body it is
    hidden from it, and the launches in it would be found or not by chance.
    """
    if node.type == "heredoc_body":
        return False
    return node.type not in ("command_substitution", "``") or _runs_a_command(node, text, at)


_DOUBLED: list = []  # the query for `` `` `` tokens, made on first use


class _Doubled:
    """Where the parser read a closing backquote, blanks and an opening one as one `` `` `` token (meant for
    empty backquotes): their start bytes, found by one query over the tree when first asked."""

    def __init__(self, root) -> None:
        self.root = root
        self.starts: list[int] | None = None

    def first_in(self, node) -> int | None:
        """The start byte of the first such token inside ``node``, or None."""
        if self.starts is None:
            if not _DOUBLED:
                _DOUBLED.append(tree_sitter.Query(_LANGUAGE, '"``" @doubled'))
            found = tree_sitter.QueryCursor(_DOUBLED[0]).captures(self.root).get("doubled", [])
            self.starts = sorted(n.start_byte for n in found)
        i = bisect.bisect_left(self.starts, node.start_byte)
        return self.starts[i] if i < len(self.starts) and self.starts[i] < node.end_byte else None


def _check_backquotes(node, at: _Offsets, doubled: _Doubled) -> None:
    """Raise ``ShellSyntaxError`` for `` `a` `b` `` (or `` `a``b` ``) in a backquoted substitution ``node``.

    The parser reads the closing backquote, the blanks and the next opening
    one as one token (meant for empty backquotes): one substitution where
    bash has two, and words that are not bash's.
    """
    if node.type != "command_substitution" or not node.child_count or node.child(0).type != "`":
        return
    found = doubled.first_in(node)
    if found is not None:
        raise ShellSyntaxError(at.char(found), "autofix cannot read two backquoted commands with nothing but "
                                               "blanks between them (`a` `b`): write them as $(a) $(b)")


def _raise_first_error(root, text: str, at: _Offsets) -> None:
    """Raise ``ShellSyntaxError`` for the first ERROR or MISSING node (a heredoc without its end is none)."""
    def descend(node, above) -> bool:  # none below a node without one
        return node.has_error and not _heredoc_words(node, above[-1] if above else None)

    for node, above in _walk(root, descend):
        parent = above[-1] if above else None
        if _heredoc_words(node, parent) or _only_assignments(node, above):
            continue
        if node.is_missing and node.type != "heredoc_end":
            where = at.char(node.start_byte)
            if text[where:].strip() or node.type not in _CLOSING or parent is None or not parent.child_count:
                raise ShellSyntaxError(where, "unexpected end of file" if not text[where:].strip()
                                       else f"syntax error: expected `{node.type}'")
            opener = _span(parent.child(0), at)  # at the end of the file: point at what is not closed
            raise ShellSyntaxError(opener[0], f"unexpected end of file: no `{node.type}' closes this "
                                              f"`{text[slice(*opener)]}'")
        if node.type == "ERROR":
            start, end = _span(node, at)
            at = start + len(text[start:end]) - len(text[start:end].lstrip())
            raise ShellSyntaxError(at, _error_message(text, at, end))


_OPENERS = {"'": "'", '"': '"', "`": "`", "$'": "'", '$"': '"', "$((": "))", "$(": ")", "${": "}"}


def _error_message(text: str, at: int, end: int) -> str:
    """Bash's words for a syntax error at ``at`` (an ERROR node reaching ``end``)."""
    if not text[end:].strip():
        for opener in sorted(_OPENERS, key=len, reverse=True):
            if text.startswith(opener, at):
                return f"{opener} is never closed: bash reads to the end of the file looking for its {_OPENERS[opener]}"
    token = re.match(r"[^\s]{1,20}", text[at:])
    return f"syntax error near {token.group() if token else text[at:at + 1]!r}"


def _commands_of(node, above: list, text: str, at: _Offsets, doubled: _Doubled) -> list[Command]:
    """The simple command(s) a ``command`` node holds, their words rebuilt from its children and the text between them.

    Bash's word boundaries: an unquoted blank, a redirection or an env-var
    assignment ends a word; text tree-sitter-bash left between two nodes
    (an escaped blank, a continuation) belongs to the words around it, and
    a concatenation is split where bash splits it (tree-sitter-bash may
    span a blank with one). An unquoted line break it left inside ends the
    command there: what follows is the next command. Raises
    ``ShellSyntaxError`` for a reserved word that cannot start a command.
    ``above``: the ancestors of ``node`` (``_walk``).
    """
    start, end = _span(node, at)
    found: list[Command] = []
    words: list[ShellWord] = []
    pieces: list[Piece] = []
    bounds = [0, 0, start]  # the open word's start and end, the open command's start

    def close() -> None:
        if pieces and not all(p.kind == "nothing" and not p.quoting for p in pieces):
            words.append(word(bounds[0], bounds[1], pieces, text))  # `# note` in backquotes is no word
        pieces.clear()

    def finish(prefixed: bool) -> None:
        close()
        if words and not prefixed and words[0].start == bounds[2]:  # the word where the command starts
            _check_command_word(words[0], text)
        if words or not found:
            found.append(Command(bounds[2], words[-1].end if words else end, tuple(words)))
        words.clear()

    def extend(new: list[Piece], a: int, b: int) -> None:
        if not pieces:
            bounds[0] = a
            if not words and found:
                bounds[2] = a  # the first word of a command that follows a line break
        bounds[1] = b
        pieces.extend(new)

    prefixed = node.child_count > 0 and node.child(0).type != "command_name"
    pos = start
    for child in _items(node, above, text, at):
        if isinstance(child, int):  # a redirection or an env-var assignment ends here
            close()
            pos = child
            continue
        end = max(end, at.char(child.end_byte))
        for unit in _units(child):
            a, b = _span(unit, at)
            bare = unit.type in _LEAVES and not unit.child_count
            for piece in _unquoted(text, pos, b if bare else a):  # a leaf's text too: it may hold a blank
                if piece is None:
                    close()
                elif piece == "\n":
                    finish(prefixed)
                    prefixed = False
                else:
                    extend([piece], piece.start, piece.end)
            if not bare:
                if text.startswith('"', a):
                    _drop_translation_mark(pieces, a, text)
                extend(_unit_pieces(unit, text, at, doubled), a, b)
            pos = b
    finish(prefixed)
    found[-1] = Command(found[-1].start, end, found[-1].words)
    return found


def _items(node, above: list, text: str, at: _Offsets):
    """A command's word nodes, in order, and for each redirection or env-var assignment the offset it ends at.

    A redirection takes one word (its target); tree-sitter-bash also gives
    it the words after that (``p >log --tp 8``: ``--tp`` and ``8``), and
    the command's name when it comes first (``>log p``): those are the
    command's words. So are the words after a heredoc's delimiter on its
    line. The redirections after the command (``redirected_statement``) are
    read with it. ``above``: the ancestors of ``node``.
    """
    nodes = list(node.children) + _trailing_redirects(node, above)
    stack = list(reversed(nodes))
    while stack:
        n = stack.pop()
        if n.type in _REDIRECTS:
            parts = n.children
            target = _target(n)
            yield at.char(parts[target].end_byte) if target is not None else at.char(n.end_byte)
            rest = parts[target + 1:] if target is not None else []
            rest = [w for c in rest for w in (c.children if _heredoc_words(c, n) else [c])]
            stack.extend(reversed([c for c in rest if c.is_named and c.type not in _HEREDOC_DATA]))
        elif n.type in _NOT_WORDS and not _a_word_after_all(n, text, at):
            yield at.char(n.end_byte)
        else:
            yield n


def _trailing_redirects(command, above: list) -> list:
    """The redirections the parser put after ``command`` (a ``redirected_statement``'s), which bash gives it.

    The parser may hang them on a list, pipeline or ``!`` ending in the
    command (``a && p >log --tp 8``): they are the last command's.
    ``above``: the ancestors of ``command``.
    """
    n, i = command, len(above)
    while i and above[i - 1].type in _ENDS_WITH_A_COMMAND and _last_child(above[i - 1]) == n:
        i -= 1
        n = above[i]
    parent = above[i - 1] if i else None
    if parent is None or parent.type != "redirected_statement" or parent.child(0) != n:
        return []
    return [c for c in parent.children[1:] if c.type in _REDIRECTS]


def _last_child(node):
    """The last child of ``node`` (``Node.children`` would make a list of them all)."""
    return node.child(node.child_count - 1)


def _last_command(node):
    """The simple command a list, pipeline or ``!`` ends with (itself, if ``node`` is one), or None."""
    while node.type in _ENDS_WITH_A_COMMAND and node.child_count:
        node = _last_child(node)
    return node if node.type == "command" else None


def _only_assignments(missing, above: list) -> bool:
    """Whether ``missing`` (its ancestors ``above``) is the command name the parser wants in ``a=b >log c=d``
    (bash needs none there)."""
    if not missing.is_missing or len(above) < 2:
        return False
    name, command = above[-1], above[-2]
    return (name.type == "command_name" and any(c.type in _NOT_WORDS for c in command.children)
            and all(c.type in _NOT_WORDS or c == name for c in command.children))


def _heredoc_words(node, parent) -> bool:
    """Whether ``node`` (its parent ``parent``) is the ERROR the grammar makes of words after a heredoc's
    delimiter (``cat <<EOF f``).

    Bash takes them as the command's words; the grammar allows none there
    and wraps them in an ERROR, reading the rest (body, delimiter) right.
    """
    return (node.type == "ERROR" and parent is not None and parent.type == "heredoc_redirect"
            and all(c.type in _WORD_NODES for c in node.children))


def _target(redirect) -> int | None:
    """The index of a redirection's target among its children: the first word after its operator.

    ``<&-``/``>&-`` (close a descriptor) have none: the operator is all of it.
    """
    for i, c in enumerate(redirect.children):
        if c.type in ("<&-", ">&-"):
            return i
        if c.type == "heredoc_start" or (c.is_named and c.type != "file_descriptor"):
            return i
    return None


def _check_command_word(name: ShellWord, text: str) -> None:
    """Raise ``ShellSyntaxError`` when a command's first word is a reserved word that closes a construct (``fi``)."""
    written = text[name.start:name.end]
    if len(name.pieces) == 1 and not name.pieces[0].quoting and written in _CLOSERS:
        raise ShellSyntaxError(name.start, f"syntax error near unexpected token `{written}'")


def _a_word_after_all(node, text: str, at: _Offsets) -> bool:
    """Whether an env-var assignment the parser read (``--k=v``) is a word to bash: its name is no shell name."""
    if node.type != "variable_assignment":
        return False
    a = at.char(node.start_byte)
    return not _ASSIGNMENT.match(text, a)


def _units(node) -> list:
    """The nodes a word node is made of: a concatenation's (a command name's, a false assignment's) parts, else itself."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if n.type in ("concatenation", "command_name", "variable_assignment") and n.child_count:
            stack.extend(reversed(n.children))
        else:
            out.append(n)
    return out


_UNQUOTED_RUN = re.compile(r"(?P<blank>[ \t]+)|(?P<newline>\n)|\\\n|(?P<word>(?:[^ \t\n\\]+|\\[\s\S])+|\\)")


def _unquoted(text: str, start: int, end: int):
    """Unquoted text of a command (between nodes, or a leaf's): a ``Piece`` for word text, None for a
    blank, ``"\\n"`` for a line break (which ends the command).

    A continuation (backslash-newline) is nothing: it neither separates nor adds.
    """
    for m in _UNQUOTED_RUN.finditer(text, start, end):
        if m.lastgroup == "blank":
            yield None
        elif m.lastgroup == "newline":
            yield "\n"
        elif m.lastgroup == "word":
            yield Piece(m.start(), m.end(), "")


def _unit_pieces(node, text: str, at: _Offsets, doubled: _Doubled) -> list[Piece]:
    """The pieces of one part of a word (unquoted text, a quoted string, an expansion)."""
    a, b = _span(node, at)
    kind = node.type
    if kind in ("string", "translated_string"):
        inner = node if kind == "string" else next((c for c in node.children if c.type == "string"), None)
        if inner is None:
            return [Piece(a, b, "", "expansion")]
        return _string_pieces(inner, *_span(inner, at), text, at, doubled)
    if kind == "raw_string":
        return [Piece(a + 1, b - 1, "'")]
    if kind == "ansi_c_string":
        return [Piece(a + 2, b - 1, "$'")]
    _check_backquotes(node, at, doubled)
    if kind in ("command_substitution", "``") and not _runs_a_command(node, text, at):
        return [Piece(a, b, "", "nothing")]
    return [Piece(a, b, "", "expansion")]  # an expansion, or a node this reader does not know: unknown


def _drop_translation_mark(pieces: list[Piece], at: int, text: str) -> None:
    """Drop the ``$`` of ``$"..."`` (a string bash translates: in the C locale, itself) from the piece before it."""
    if not pieces:
        return
    last = pieces[-1]
    if last.quoting or last.kind != "text" or last.end != at or at == 0 or text[at - 1] != "$":
        return
    run = len(text[last.start:at - 1]) - len(text[last.start:at - 1].rstrip("\\"))
    if run % 2:
        return  # `\\$"..."`: an escaped, literal `$`
    pieces[-1] = Piece(last.start, at - 1, "")
    if last.start == at - 1:
        pieces.pop()


def _runs_a_command(node, text: str, at: _Offsets) -> bool:
    """Whether a command substitution holds anything but comments and blanks.

    Backquotes are read from the text (a comment in them is hidden from the parser).
    """
    a = at.char(node.start_byte)
    if text.startswith("`", a):
        pos, stop = a + 1, at.char(node.end_byte) - 1
        while pos <= stop:  # line by line, to the first that runs something (not past it: substitutions nest)
            end = text.find("\n", pos, stop)
            end = stop if end < 0 else end
            line = text[pos:end].strip(" \t")
            if line and not line.startswith("#"):
                return True
            pos = end + 1
        return False
    return any(c.is_named and c.type != "comment" for c in node.children)


def _string_pieces(node, start: int, end: int, text: str, at: _Offsets, doubled: _Doubled) -> list[Piece]:
    """A double-quoted string's pieces: its text (uncovered text too) and its expansions."""
    out: list[Piece] = []
    pos = start + 1
    stop = end - 1
    for c in node.children:
        a, b = _span(c, at)
        if c.type == '"':
            continue
        if a > pos:
            out.append(Piece(pos, a, '"'))
        _check_backquotes(c, at, doubled)
        if c.type in ("string_content", "$"):
            out.append(Piece(a, b, '"'))
        elif c.type in ("command_substitution", "``") and not _runs_a_command(c, text, at):
            out.append(Piece(a, b, '"', "nothing"))
        else:
            out.append(Piece(a, b, '"', "expansion"))
        pos = b
    if stop > pos or not out:
        out.append(Piece(pos, max(pos, stop), '"'))
    return out
