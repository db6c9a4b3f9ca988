"""Text edits at character spans, and the changes they make (``diffs`` shows them as a unified diff).

Two types, one per use: an ``Edit`` is an adapter's edit of the exact text it was given (character offsets;
the engine applies it); a ``Change`` is a region where the text as read and the output differ, composed over
every pass (what the diff is made from, so a pass that rewrites another's edit shows once). A report's edit
of a file as read, by line and column, is ``diagnostics.TextEdit``.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from autofix.common.errors import InternalError


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


@dataclass(frozen=True, slots=True, order=True)
class Change:
    """A region that differs between two texts: ``before[start:end]`` became ``after[new_start:new_end]``.

    A fix's changes (``FixResult.changes``) are sorted and disjoint; every
    character outside them is the same in both texts.
    """

    start: int
    end: int
    new_start: int
    new_end: int


def compose(changes: Iterable[Change], edits: Iterable[Edit]) -> list[Change]:
    """The changes from text A to C, given ``changes`` (A to B) and ``edits`` (non-overlapping, on B).

    One sweep over both, in B's order: regions that overlap or touch in B
    are merged into one (its A span ends where its last change ends, its C
    span grows by what its edits add); the text between regions is the same
    in A, B and C, shifted.
    """
    items = sorted([(c.new_start, c.new_end, c) for c in changes] + [(e.start, e.end, e) for e in edits],
                   key=lambda item: (item[0], item[1]))
    out: list[Change] = []
    b_minus_a = 0  # B offset minus A offset, in the text after the changes swept so far
    c_minus_b = 0  # C offset minus B offset, in the text after the edits swept so far
    open_: list[int] | None = None  # [B start, B end, B-A and C-B before the region]

    def close(region: list[int]) -> None:  # the open region, handed over (a closure's variable is not narrowed)
        b0, b1, before_a, before_c = region
        out.append(Change(b0 - before_a, b1 - b_minus_a, b0 + before_c, b1 + c_minus_b))

    for b0, b1, item in items:
        if open_ is not None and b0 <= open_[1]:
            open_[1] = max(open_[1], b1)
        else:
            if open_ is not None:
                close(open_)
            open_ = [b0, b1, b_minus_a, c_minus_b]
        if isinstance(item, Change):
            b_minus_a = item.new_end - item.end
        else:
            c_minus_b += len(item.text) - (item.end - item.start)
    if open_ is not None:
        close(open_)
    return out


def changes_between(before: str, after: str) -> list[Change]:
    """One change covering everything between the common prefix and suffix (none when equal)."""
    if before == after:
        return []
    n = min(len(before), len(after))
    lo, hi = 0, n  # the common prefix is at least lo and less than hi + 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if before[:mid] == after[:mid]:
            lo = mid
        else:
            hi = mid - 1
    prefix = lo
    lo, hi = 0, n - prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if before[len(before) - mid:] == after[len(after) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return [Change(prefix, len(before) - lo, prefix, len(after) - lo)]


def map_back(edits: Iterable[Edit], offset: int) -> int:
    """The offset in the text before ``edits`` of ``offset`` in the text after them.

    An offset inside inserted or replaced text maps to the start of the edit.
    """
    return mapper_back(edits)(offset)


def mapper_back(edits: Iterable[Edit]) -> Callable[[int], int]:
    """``map_back`` for many offsets: ``edits`` (not overlapping) are sorted once and each offset is found by
    bisection (a pass of 50 000 fixes places each of its findings)."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    starts: list[int] = []  # where each edit's text starts in the text after them
    after: list[int] = []  # the length the text gained up to the end of each edit
    delta = 0
    for e in ordered:
        starts.append(e.start + delta)
        delta += len(e.text) - (e.end - e.start)
        after.append(delta)

    def back(offset: int) -> int:
        i = bisect.bisect_right(starts, offset) - 1  # the last edit that starts at or before ``offset``
        if i < 0:
            return offset
        if offset < starts[i] + len(ordered[i].text):
            return ordered[i].start
        return offset - after[i]

    return back


def offset_of(text: str, line: int, col: int) -> int:
    """The index of 1-based ``line``:``col`` in ``text``; ``ValueError`` for a line past its last."""
    starts = _line_starts(text)
    if not 1 <= line <= len(starts):
        raise ValueError(f"line {line} is not in the text's {len(starts)} lines")
    return starts[line - 1] + col - 1


def line_col(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of index ``offset`` in ``text`` (lines end at ``\n``)."""
    starts = _line_starts(text)
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


_BIG_TEXT = 1024 * 1024  # characters: a text's line starts are machine integers from here on


@functools.lru_cache(maxsize=4)
def _line_starts(text: str) -> Sequence[int]:
    """The index of each line's first character: one pass, then a lookup per position (not a count from 0).

    For a text of a MiB or more, machine integers (8 bytes a line): a tuple
    of ints takes 36, 600 MB for a 64 MiB file of short lines
    (``limits.MAX_BYTES``); a small text's tuple is made faster.
    """
    if len(text) < _BIG_TEXT:
        return (0, *(m.end() for m in re.finditer("\n", text)))
    import array  # loaded only for a big text

    starts = array.array("q", (0,))
    starts.extend(m.end() for m in re.finditer("\n", text))
    return starts


def _overlaps(start: int, end: int, a: int, b: int) -> bool:
    """Whether span ``start:end`` overlaps ``a:b``; an empty span (an insertion point) overlaps what it touches."""
    if start == end or a == b:
        return a <= end and start <= b
    return start < b and end > a


def range_before(edits: Iterable[Edit], start: int, end: int) -> tuple[int, int] | None:
    """The span ``start:end`` of the text after ``edits`` as a span of the text before them, or None when it
    overlaps what an edit wrote (an insertion point touching written text counts as inside it)."""
    delta = 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        new_start = e.start + delta
        new_end = new_start + len(e.text)
        if _overlaps(start, end, new_start, new_end):
            return None
        if new_start >= end:
            break
        delta += len(e.text) - (e.end - e.start)
    return start - delta, end - delta


def range_after(changes: Iterable[Change], start: int, end: int) -> tuple[int, int] | None:
    """The span ``start:end`` of a text as a span of the text ``changes`` made from it (``Change``: before ->
    after), or None when it overlaps a changed region (an insertion point touching one counts as inside)."""
    delta = 0
    for c in sorted(changes):
        if _overlaps(start, end, c.start, c.end):
            return None
        if c.start >= end:
            break
        delta = c.new_end - c.end
    return start + delta, end + delta
