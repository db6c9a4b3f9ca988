"""The YAML loader autofix reads with, SGLang's own (``Loader``: libyaml's C loader where PyYAML has it; ``Composer``
resolves each short scalar's tag once per run), and what its positions mean to autofix: a PyYAML error as an
``InputError`` at autofix's 1-based line:col (``input_error``), nodes' marks renumbered to autofix's lines
(``renumber``), the column YAML gives a character (``yaml_column``).
"""

from __future__ import annotations

import re
from functools import lru_cache

import yaml

from autofix.common.edits import line_col
from autofix.common.errors import InputError

__all__ = ["Composer", "Loader", "input_error", "position", "renumber", "yaml_column"]

try:
    from yaml import CSafeLoader as Loader
except ImportError:  # PyYAML built without libyaml (``yaml.__with_libyaml__`` False)
    # (the ignore: the checker reads ``Loader`` as the C loader; the pure-Python one has the methods autofix calls)
    from yaml import SafeLoader as Loader  # type: ignore[assignment]


class Composer(Loader):
    """``Loader`` with the tag of each short scalar resolved once per run, not once per scalar.

    PyYAML's resolver (Python, called by libyaml's composer for every scalar) tries its implicit
    resolvers' regexes on each; a file's keys and most of its values are the same few hundred words from
    file to file. The tag is a function of the scalar's text and style alone: SafeLoader's resolver has
    no path resolvers.
    """

    def resolve(self, kind: type[yaml.Node], value: str | None, implicit: tuple[bool, bool] | bool) -> str:
        # a scalar's value is its text and ``implicit`` its (plain, quoted) pair, a collection's None and a bool
        # (the ignores: the checker cannot tie them to ``kind``; PyYAML's stubs leave ``resolve`` untyped)
        if kind is yaml.ScalarNode and len(value) <= 64:  # type: ignore[arg-type]
            return _scalar_tag(value, implicit)
        return super().resolve(kind, value, implicit)  # type: ignore[no-any-return, no-untyped-call]


@lru_cache(maxsize=4096)
def _scalar_tag(value: str, implicit: tuple[bool, bool]) -> str:
    return _RESOLVER.resolve(yaml.ScalarNode, value, implicit)  # type: ignore[no-any-return, no-untyped-call]


_RESOLVER = yaml.resolver.Resolver()


def input_error(exc: yaml.YAMLError, text: str, path: str) -> InputError:
    """A PyYAML error as an ``InputError`` at its 1-based line:col (1:1 when it has no position)."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        problem = ", ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
        line, col = position(text, mark.index) if mark is not None else (1, 1)
        return InputError(path, line, col, f"invalid YAML: {problem}")
    if isinstance(exc, yaml.reader.ReaderError):
        # libyaml counts UTF-8 bytes of the text, PyYAML's own reader characters
        at = exc.position
        if yaml.__with_libyaml__:
            at = len(text.encode("utf-8")[:at].decode("utf-8", "ignore"))
        line, col = position(text, at)
        what = f"unacceptable character #x{exc.character:04x}: " if isinstance(exc.character, int) else ""
        return InputError(path, line, col, f"invalid YAML: {what}{exc.reason}")
    return InputError(path, 1, 1, f"invalid YAML: {exc}")


# What YAML counts as a line break and autofix does not (NEL, LS, PS, a CR not before a LF): autofix's lines,
# like its diffs and edits, end at a LF only.
_YAML_ONLY_BREAKS = re.compile("[\x85\u2028\u2029]|\r(?!\n)")


def yaml_column(text: str, index: int) -> int:
    """The 0-based column YAML gives ``text[index]``: from its last YAML line break (LF, CR, NEL, LS, PS).

    A node's marks carry autofix's line and column (``renumber``); indentation is YAML's.
    """
    start = index
    while start > 0 and text[start - 1] not in "\n\r\x85\u2028\u2029":
        start -= 1
    return index - start


def renumber(text: str, roots: list[yaml.Node]) -> None:
    """Give every node's marks the line and column autofix counts (from the mark's character index).

    libyaml counts NEL, LS, PS and a lone CR as line breaks; a position read
    from its marks would then point past the lines autofix (and the diff) has.
    """
    if not ("\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text):
        return  # found by `in` at memchr speed: the pattern's scan of a file was ~1.5% of its check (issue 15)
    if not _YAML_ONLY_BREAKS.search(text):
        return
    seen: set[int] = set()
    todo = list(roots)
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for attr in ("start_mark", "end_mark"):
            mark = getattr(node, attr)
            if mark is not None:
                line, col = position(text, mark.index)
                # no buffer and no pointer, as libyaml's own marks (the ignore: the stubs take the pointer as an int)
                marked = yaml.Mark(mark.name, mark.index, line - 1, col - 1, None, None)  # type: ignore[arg-type]
                setattr(node, attr, marked)
        if isinstance(node, yaml.MappingNode):
            todo.extend(n for pair in node.value for n in pair)
        elif isinstance(node, yaml.SequenceNode):
            todo.extend(node.value)


def position(text: str, index: int) -> tuple[int, int]:
    """autofix's 1-based (line, column) of ``text[index]``, ``index`` clamped into the text."""
    return line_col(text, max(0, min(index, len(text))))
