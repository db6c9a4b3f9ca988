"""Bash's syntax for the shell reader: a script's simple commands and their words, as bash reads them.

``commands(text)`` parses the script with tree-sitter-bash and gives every
simple command bash may run (nested ones too: in ``$(...)``, pipelines,
``case`` arms, functions; not in a heredoc's body, which is data) with its
words: their spans in ``text``, and the pieces each is made of (unquoted
text, double-/single-/ANSI-C-quoted text, expansions), from which
``shell_words.value`` does bash's quote removal and ``shell_words.view``
maps the decoded word back to the text. It is linear in the size of the text, and trees are walked with an
explicit stack (no recursion, however deep ``$( $( ... ) )`` nests).

The script is read off tree-sitter-bash's tree of it, repaired where the grammar reads a script otherwise than
bash (``shell_tree``).

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
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import tree_sitter
from tree_sitter import Node

from autofix.adapters.syntax.shell_tree import (
    ASSIGNMENT,
    LANGUAGE,
    Offsets,
    ShellSyntaxError,
    parse,
    preorder,
    span,
    walk,
)
from autofix.adapters.syntax.shell_words import Piece, ShellWord, word

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
# Reserved words that close or continue a construct: where a command starts, bash stops with
# "syntax error near unexpected token" (tree-sitter-bash reads a command of that name).
_CLOSERS = frozenset({"then", "else", "elif", "fi", "do", "done", "esac", "}", "in", "]]"})
_CASE_ENDS = frozenset({";;", ";&", ";;&"})
# Tokens that close what an earlier token opened (a MISSING one at the end of the file: point at the opener).
_CLOSING = frozenset({")", "}", "]", "]]", "))", "`", '"', "'", "fi", "done", "esac", "then", "do"})


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
    root, at = parse(text)
    return _read_tree(root, text, at, wanted)


def comments(text: str) -> list[tuple[int, int]]:
    """The spans of the comments of the script ``text``, in order: each from its ``#`` to its line's end.

    A comment is what bash reads as one: a ``#`` that starts a word
    (``x#y`` is a word), outside quotes and outside a heredoc's body (data,
    even where bash expands a ``$(...)`` in it: see ``_runs``); one inside a
    ``$(...)`` is a comment of that command. A ``#`` right inside backquotes
    is left out (the parser gets ``:`` there, see ``shell_tree``). Raises
    ``ShellSyntaxError`` as ``commands`` does.
    """
    root, at = parse(text)
    if root.has_error:
        _raise_first_error(root, text, at)
    return [span(n, at) for n in preorder(root, lambda n: n.type != "heredoc_body") if n.type == "comment"]


def _after_compound(parent: Node | None) -> bool:
    """Whether a redirection whose parent is ``parent`` follows a compound command (``{ ...; } >log``,
    ``fi >log``), not a simple one."""
    if parent is None:
        return False
    return parent.type == "function_definition" or (parent.type == "redirected_statement"
                                                     and _last_command(parent.child(0)) is None)


def _read_tree(root: Node, text: str, at: Offsets, wanted: re.Pattern[str] | None) -> list[Command]:
    """The commands of a repaired tree; raises ``ShellSyntaxError`` at its first error."""
    if root.has_error:
        _raise_first_error(root, text, at)
    found: list[Command] = []
    mentions = None if wanted is None else _Mentions(text, wanted)
    doubled = _Doubled(root)
    for node, above in walk(root, lambda n, _: _runs(n, text, at)):
        kind = node.type
        if kind == "command":
            if mentions is None or mentions.wanted(*span(node, at)):
                found.extend(_commands_of(node, above, text, at, doubled))
        elif kind in _CASE_ENDS and (not above or above[-1].type != "case_item"):
            start = at.char(node.start_byte)
            raise ShellSyntaxError(start, f"syntax error near unexpected token `{kind}'")
        elif kind in _REDIRECTS and _after_compound(above[-1] if above else None):
            target = _target(node)
            extra = [c for c in node.children[target + 1:] if c.is_named] if target is not None else []
            if extra and extra[0].type not in _HEREDOC_DATA:  # a compound command takes no words after it
                where = span(extra[0], at)
                raise ShellSyntaxError(where[0], f"syntax error near unexpected token `{text[slice(*where)]}'")
        elif kind == "ansi_c_string":
            a, b = span(node, at)
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


def _runs(node: Node, text: str, at: Offsets) -> bool:
    """Whether the commands under ``node`` are read: not in a heredoc's body, nor in `` `# note` ``.

    A heredoc's body is data, and is read as such even where bash expands a
    ``$(...)`` in an unquoted one: where the parser misreads a body it is
    hidden from it, and the launches in it would be found or not by chance.
    """
    if node.type == "heredoc_body":
        return False
    return node.type not in ("command_substitution", "``") or _runs_a_command(node, text, at)


_DOUBLED: list[tree_sitter.Query] = []  # the query for `` `` `` tokens, made on first use


class _Doubled:
    """Where the parser read a closing backquote, blanks and an opening one as one `` `` `` token (meant for
    empty backquotes): their start bytes, found by one query over the tree when first asked."""

    def __init__(self, root: Node) -> None:
        self.root = root
        self.starts: list[int] | None = None

    def first_in(self, node: Node) -> int | None:
        """The start byte of the first such token inside ``node``, or None."""
        if self.starts is None:
            if not _DOUBLED:
                _DOUBLED.append(tree_sitter.Query(LANGUAGE, '"``" @doubled'))
            found = tree_sitter.QueryCursor(_DOUBLED[0]).captures(self.root).get("doubled", [])
            self.starts = sorted(n.start_byte for n in found)
        i = bisect.bisect_left(self.starts, node.start_byte)
        return self.starts[i] if i < len(self.starts) and self.starts[i] < node.end_byte else None


def _check_backquotes(node: Node, at: Offsets, doubled: _Doubled) -> None:
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


def _raise_first_error(root: Node, text: str, at: Offsets) -> None:
    """Raise ``ShellSyntaxError`` for the first ERROR or MISSING node (a heredoc without its end is none)."""
    def descend(node: Node, above: list[Node]) -> bool:  # none below a node without one
        return node.has_error and not _heredoc_words(node, above[-1] if above else None)

    for node, above in walk(root, descend):
        parent = above[-1] if above else None
        if _heredoc_words(node, parent) or _only_assignments(node, above):
            continue
        if node.is_missing and node.type != "heredoc_end":
            where = at.char(node.start_byte)
            if text[where:].strip() or node.type not in _CLOSING or parent is None or not parent.child_count:
                raise ShellSyntaxError(where, "unexpected end of file" if not text[where:].strip()
                                       else f"syntax error: expected `{node.type}'")
            opener = span(parent.child(0), at)  # at the end of the file: point at what is not closed
            raise ShellSyntaxError(opener[0], f"unexpected end of file: no `{node.type}' closes this "
                                              f"`{text[slice(*opener)]}'")
        if node.type == "ERROR":
            start, end = span(node, at)
            where = start + len(text[start:end]) - len(text[start:end].lstrip())
            raise ShellSyntaxError(where, _error_message(text, where, end))


_OPENERS = {"'": "'", '"': '"', "`": "`", "$'": "'", '$"': '"', "$((": "))", "$(": ")", "${": "}"}


def _error_message(text: str, at: int, end: int) -> str:
    """Bash's words for a syntax error at ``at`` (an ERROR node reaching ``end``)."""
    if not text[end:].strip():
        for opener in sorted(_OPENERS, key=len, reverse=True):
            if text.startswith(opener, at):
                return f"{opener} is never closed: bash reads to the end of the file looking for its {_OPENERS[opener]}"
    token = re.match(r"[^\s]{1,20}", text[at:])
    return f"syntax error near {token.group() if token else text[at:at + 1]!r}"


def _commands_of(node: Node, above: list[Node], text: str, at: Offsets, doubled: _Doubled) -> list[Command]:
    """The simple command(s) a ``command`` node holds, their words rebuilt from its children and the text between them.

    Bash's word boundaries: an unquoted blank, a redirection or an env-var
    assignment ends a word; text tree-sitter-bash left between two nodes
    (an escaped blank, a continuation) belongs to the words around it, and
    a concatenation is split where bash splits it (tree-sitter-bash may
    span a blank with one). An unquoted line break it left inside ends the
    command there: what follows is the next command. Raises
    ``ShellSyntaxError`` for a reserved word that cannot start a command.
    ``above``: the ancestors of ``node`` (``walk``).
    """
    start, end = span(node, at)
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
            a, b = span(unit, at)
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


def _items(node: Node, above: list[Node], text: str, at: Offsets) -> Iterator[Node | int]:
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


def _trailing_redirects(command: Node, above: list[Node]) -> list[Node]:
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


def _last_child(node: Node) -> Node:
    """The last child of ``node`` (``Node.children`` would make a list of them all)."""
    return node.child(node.child_count - 1)


def _last_command(node: Node) -> Node | None:
    """The simple command a list, pipeline or ``!`` ends with (itself, if ``node`` is one), or None."""
    while node.type in _ENDS_WITH_A_COMMAND and node.child_count:
        node = _last_child(node)
    return node if node.type == "command" else None


def _only_assignments(missing: Node, above: list[Node]) -> bool:
    """Whether ``missing`` (its ancestors ``above``) is the command name the parser wants in ``a=b >log c=d``
    (bash needs none there)."""
    if not missing.is_missing or len(above) < 2:
        return False
    name, command = above[-1], above[-2]
    return (name.type == "command_name" and any(c.type in _NOT_WORDS for c in command.children)
            and all(c.type in _NOT_WORDS or c == name for c in command.children))


def _heredoc_words(node: Node, parent: Node | None) -> bool:
    """Whether ``node`` (its parent ``parent``) is the ERROR the grammar makes of words after a heredoc's
    delimiter (``cat <<EOF f``).

    Bash takes them as the command's words; the grammar allows none there
    and wraps them in an ERROR, reading the rest (body, delimiter) right.
    """
    return (node.type == "ERROR" and parent is not None and parent.type == "heredoc_redirect"
            and all(c.type in _WORD_NODES for c in node.children))


def _target(redirect: Node) -> int | None:
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


def _a_word_after_all(node: Node, text: str, at: Offsets) -> bool:
    """Whether an env-var assignment the parser read (``--k=v``) is a word to bash: its name is no shell name."""
    if node.type != "variable_assignment":
        return False
    a = at.char(node.start_byte)
    return not ASSIGNMENT.match(text, a)


def _units(node: Node) -> list[Node]:
    """The nodes a word node is made of: a concatenation's (a command name's, a false assignment's) parts, else itself."""
    out: list[Node] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in ("concatenation", "command_name", "variable_assignment") and n.child_count:
            stack.extend(reversed(n.children))
        else:
            out.append(n)
    return out


_UNQUOTED_RUN = re.compile(r"(?P<blank>[ \t]+)|(?P<newline>\n)|\\\n|(?P<word>(?:[^ \t\n\\]+|\\[\s\S])+|\\)")


def _unquoted(text: str, start: int, end: int) -> Iterator[Piece | Literal["\n"] | None]:
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


def _unit_pieces(node: Node, text: str, at: Offsets, doubled: _Doubled) -> list[Piece]:
    """The pieces of one part of a word (unquoted text, a quoted string, an expansion)."""
    a, b = span(node, at)
    kind = node.type
    if kind in ("string", "translated_string"):
        inner = node if kind == "string" else next((c for c in node.children if c.type == "string"), None)
        if inner is None:
            return [Piece(a, b, "", "expansion")]
        return _string_pieces(inner, *span(inner, at), text, at, doubled)
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


def _runs_a_command(node: Node, text: str, at: Offsets) -> bool:
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


def _string_pieces(node: Node, start: int, end: int, text: str, at: Offsets, doubled: _Doubled) -> list[Piece]:
    """A double-quoted string's pieces: its text (uncovered text too) and its expansions."""
    out: list[Piece] = []
    pos = start + 1
    stop = end - 1
    for c in node.children:
        a, b = span(c, at)
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
