"""Text edits at character spans, and the unified diff of a change."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from autofix.errors import InternalError


@dataclass(frozen=True, slots=True, order=True)
class Edit:
    """Replace ``text[start:end]`` with ``text``: ``start == end`` inserts, ``""`` deletes.

    Offsets are indexes into the exact string the adapter was given.
    """

    start: int
    end: int
    text: str


def apply_edits(source: str, edits: Iterable[Edit]) -> str:
    """Apply non-overlapping edits; every character outside them is kept.

    Raises ``InternalError`` if two edits overlap (two insertions at one
    point are kept in the order given).
    """
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    out, pos = [], 0
    for e in ordered:
        if e.start < pos or e.end < e.start or e.end > len(source):
            raise InternalError(f"overlapping or out-of-range edit at offset {e.start}")
        out.append(source[pos : e.start])
        out.append(e.text)
        pos = e.end
    out.append(source[pos:])
    return "".join(out)


def merge_deletions(edits: Iterable[Edit]) -> list[Edit]:
    """Union overlapping or touching deletions; other edits pass through unchanged."""
    out: list[Edit] = []
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        prev = out[-1] if out else None
        if prev is not None and not e.text and not prev.text and e.start <= prev.end:
            out[-1] = Edit(prev.start, max(prev.end, e.end), "")
        else:
            out.append(e)
    return out


def unified_diff(before: str, after: str, path: str) -> str:
    """A ``git diff``-style unified diff, ``\\ No newline at end of file`` included."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    old, new = (path, path) if path.startswith("/") else (f"a/{path}", f"b/{path}")
    lines = []
    for line in difflib.unified_diff(a, b, old, new):
        if line.endswith("\n"):
            lines.append(line)
        else:
            lines.append(line + "\n\\ No newline at end of file\n")
    return "".join(lines)


def map_back(edits: Iterable[Edit], offset: int) -> int:
    """The offset in the text before ``edits`` of ``offset`` in the text after them.

    An offset inside inserted or replaced text maps to the start of the edit.
    """
    delta = 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        new_start = e.start + delta
        if offset < new_start:
            break
        if offset < new_start + len(e.text):
            return e.start
        delta += len(e.text) - (e.end - e.start)
    return offset - delta


def offset_of(text: str, line: int, col: int) -> int:
    """The index of 1-based ``line``:``col`` in ``text``."""
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + col - 1


def line_col(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of index ``offset`` in ``text``."""
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1
