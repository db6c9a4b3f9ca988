"""Suppression comments: ``# autofix: ignore[EP003] <reason>`` and ``# autofix: ignore-file[EP003] <reason>``.

Every format autofix reads writes comments with ``#`` (YAML, shell, Dockerfile), and a marker counts only in
a comment: where the file's own syntax has one, as its reader reads it (the format adapter's ``comments``:
libyaml's scanner, tree-sitter-bash with bash's repairs, BuildKit's lines), or in a comment of a shell script
a launch is read in (a ``sh -c`` script in a container's command, a Dockerfile ``RUN``/``CMD``, a ``bash -c``
word: ``embedded.script_comments``), a comment of what the shell runs. A marker in a string, a heredoc's
body, a YAML scalar (plain, quoted, ``|`` or ``>``) or a word (``a#b``) is data: it suppresses nothing and is
not reported. In a comment, the marker is its ``#`` or a ``#`` after a blank (``# note # autofix: ...``).

What a comment covers:

* ``ignore[CODES]`` at the end of a line: the findings reported on that line;
* ``ignore[CODES]`` alone on its line: the findings on the next line that is not a comment line, and, when a
  launch written as a command (a shell command, a Dockerfile instruction, a container's command) starts on
  that line, every finding of that launch: a command continued over several lines cannot hold a comment
  inside, so the comment above it stands for all of it;
* ``ignore-file[CODES]`` anywhere (alone on its line): the whole file.

CODES are rule codes separated by commas or blanks. A Kubernetes object may say the same in its own
metadata, where comments do not survive ``kubectl apply``: the annotation ``autofix.io/ignore: "EP003,
A2A005: reason"`` (codes before the first colon) covers every launch of the containers under that
``metadata`` (the manifest adapter reads it: ``annotation``).

Pure: ``Suppressions.read(text, comments)`` finds the markers in the comments, ``covers`` answers for a
finding and remembers which codes were used, so ``unused`` can report the rest (SUP001).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

# `#` then `autofix:` (the rest is parsed by _DIRECTIVE); it counts where ``_Comments.mark`` says
_MARK = re.compile(r"#[ \t]*autofix[ \t]*:", re.IGNORECASE)
_DIRECTIVE = re.compile(r"[ \t]*(ignore-file|ignore)[ \t]*\[([^\]\n]*)\][ \t]*([^\r\n]*)", re.IGNORECASE)
_CODE = re.compile(r"^[A-Za-z][A-Za-z0-9]*\d$")


@dataclass(frozen=True, slots=True)
class Suppression:
    """One suppression comment.

    ``start``/``end``: the comment's offsets in the text (from ``#`` to the end of its line, line break
    excluded); ``line``/``col``: where the ``#`` is (1-based). ``target``: the line it covers (its own, or the
    next code line for a comment alone on its line; 0 for ``ignore-file``). ``codes`` as written, upper-cased.
    """

    line: int
    col: int
    start: int
    end: int
    codes: tuple[str, ...]
    reason: str
    whole_file: bool
    alone: bool
    target: int
    annotation: bool = False  # a Kubernetes annotation: ``start``/``end`` span its value's codes


@dataclass(frozen=True, slots=True)
class Malformed:
    """A comment that starts like a suppression but does not read as one (``# autofix: ignore EP003``)."""

    line: int
    col: int
    text: str
    annotation: bool = False  # a Kubernetes annotation, not a comment


ANNOTATION = "autofix.io/ignore"
_ANNOTATION_CODES = re.compile(r"[ \t]*([A-Za-z0-9][A-Za-z0-9, \t]*?)[ \t]*(?::[ \t]*(.*))?$", re.S)


def annotation(value: str, line: int, col: int, start: int, raw: str) -> Suppression | Malformed:
    """The suppression an ``autofix.io/ignore`` annotation's ``value`` holds (written at ``line``:``col``,
    offset ``start``, as ``raw`` in the file), or ``Malformed``.

    ``start``/``end`` of the result span the codes as written in ``raw`` when they can be found there (a
    plain or quoted scalar), else the whole value.
    """
    m = _ANNOTATION_CODES.match(value)
    codes = tuple(c.upper() for c in re.split(r"[,\s]+", m.group(1)) if c) if m else ()
    if m is None or not codes or not all(_CODE.match(c) for c in codes):
        return Malformed(line, col, raw, True)
    at = raw.find(m.group(1))
    span = (start + at, start + at + len(m.group(1))) if at >= 0 else (start, start + len(raw))
    return Suppression(line, col, *span, codes, (m.group(2) or "").strip(), False, False, 0, True)


@dataclass(slots=True)
class Suppressions:
    """The suppression comments of one text, and which of their codes have suppressed a finding."""

    items: tuple[Suppression, ...] = ()
    malformed: tuple[Malformed, ...] = ()
    used: set[tuple[int, str]] = field(default_factory=set)  # (index in items, code)

    @classmethod
    def read(cls, text: str, comments: Callable[[], Iterable[tuple[int, int]]]) -> Suppressions:
        """Every suppression comment in ``text`` (cheap when there is none: one substring search).

        ``comments()`` gives the spans ``(start, end)`` of the text's comments (each from its ``#``); it is
        asked only when the text holds a marker.
        """
        if "autofix" not in text and "AUTOFIX" not in text.upper():
            return cls()
        marks = list(_MARK.finditer(text))
        if not marks:
            return cls()
        where = _Comments(text, comments())
        items: list[Suppression] = []
        bad: list[Malformed] = []
        for m in marks:
            end = where.mark(m.start())
            if end is None:
                continue  # in a string, a heredoc's body, a word: data
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = min(_line_end(text, m.start()), end)
            line = text.count("\n", 0, m.start()) + 1
            col = m.start() - line_start + 1
            d = _DIRECTIVE.match(text, m.end(), line_end)
            codes = tuple(c.upper() for c in re.split(r"[,\s]+", d.group(2).strip()) if c) if d else ()
            if d is None or not codes or not all(_CODE.match(c) for c in codes):
                bad.append(Malformed(line, col, text[m.start():line_end]))
                continue
            alone = not text[line_start:m.start()].strip()
            whole = d.group(1).lower() == "ignore-file"
            target = 0 if whole else where.next_code_line(_line_end(text, m.start()), line) if alone else line
            items.append(Suppression(line, col, m.start(), line_end, codes, d.group(3).strip(), whole, alone, target))
        return cls(tuple(items), tuple(bad))

    def __bool__(self) -> bool:
        return bool(self.items or self.malformed)

    def annotate(self, found: tuple[Suppression | Malformed, ...]) -> None:
        """Add the annotations a launch's object carries (``Launch.suppress``), each once."""
        for s in found:
            if isinstance(s, Malformed):
                if s not in self.malformed:
                    self.malformed += (s,)
            elif s not in self.items:
                self.items += (s,)

    def covers(self, code: str, line: int, launch_line: int | None = None,
               annotations: tuple[tuple[int, int], ...] = ()) -> bool:
        """Whether a finding of ``code`` reported on ``line`` is suppressed (and remember the code as used).

        ``launch_line``: the line the finding's launch starts on, for a launch written as a command (None
        otherwise): a comment alone above that line covers the whole launch. ``annotations``: where (line,
        column) the annotations of the launch's Kubernetes object are written (added with ``annotate``).
        """
        hit = False
        for i, s in enumerate(self.items):
            if code not in s.codes:
                continue
            if s.annotation:
                covered = (s.line, s.col) in annotations
            else:
                covered = s.whole_file or s.target == line or (s.alone and launch_line is not None
                                                               and s.target == launch_line)
            if covered:
                self.used.add((i, code))
                hit = True
        return hit

    def unused(self) -> list[tuple[Suppression, tuple[str, ...], tuple[str, ...]]]:
        """Each suppression with the codes it holds that suppressed nothing, and the used codes it names a
        second time; those with neither left out."""
        out = []
        for i, s in enumerate(self.items):
            stale = tuple(dict.fromkeys(c for c in s.codes if (i, c) not in self.used))
            twice = tuple(dict.fromkeys(c for c in s.codes if (i, c) in self.used and s.codes.count(c) > 1))
            if stale or twice:
                out.append((s, stale, twice))
        return out


def _line_end(text: str, pos: int) -> int:
    """The offset of the line break (``\\r\\n`` or ``\\n``) ending the line ``pos`` is on, or the text's end."""
    end = text.find("\n", pos)
    if end < 0:
        return len(text)
    return end - 1 if end > pos and text[end - 1] == "\r" else end


class _Comments:
    """Where the comments of a text are: ``spans`` ``(start, end)``, each from its ``#`` (they may overlap: a
    shell comment of a Dockerfile ``RUN`` may run over a comment line Docker drops)."""

    def __init__(self, text: str, spans: Iterable[tuple[int, int]]) -> None:
        self.text = text
        spans = sorted(spans)
        self.starts = {a for a, _ in spans}
        merged: list[list[int]] = []
        for a, b in spans:
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            elif a < b:
                merged.append([a, b])
        self.union = merged
        self.union_starts = [a for a, _ in merged]

    def end(self, at: int) -> int | None:
        """The end of the comment ``at`` is in, or None when it is in none."""
        k = bisect.bisect_right(self.union_starts, at) - 1
        return self.union[k][1] if k >= 0 and at < self.union[k][1] else None

    def mark(self, at: int) -> int | None:
        """For a ``#`` at ``at``: the end of its comment when it may hold a marker there (it starts the comment,
        or follows a blank or a line break inside it), else None."""
        end = self.end(at)
        if end is None or (at not in self.starts and at and self.text[at - 1] not in " \t\n"):
            return None
        return end

    def next_code_line(self, pos: int, line: int) -> int:
        """The number of the first line after line ``line`` (ending at ``pos``) that is blank or holds more than
        a comment; a comment line (its first character after blanks is in a comment) is passed over."""
        text = self.text
        while True:
            nl = text.find("\n", pos)
            if nl < 0:
                return line + 1
            line += 1
            end = text.find("\n", nl + 1)
            end = len(text) if end < 0 else end
            first = nl + 1
            while first < end and text[first] in " \t\r":
                first += 1
            if first == end or self.end(first) is None:
                return line
            pos = nl + 1
