"""The unified diff of a change, as ``git diff`` writes it: what ``autofix`` prints for a file it would fix.

Made from the changed regions (``edits.Change``), so the work follows the change, not the file. Loaded only
when a diff is printed: a clean run never needs it (nor difflib).
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Iterable, Iterator
from typing import Literal

from autofix.common.edits import Change, changes_between

_CONTEXT = 3
_REFINE = 4_000_000  # compare a region's lines pairwise (difflib) only below this many pairs


def unified_diff(before: str, after: str, path: str, changes: Iterable[Change] | None = None) -> str:
    """A ``git diff``-style unified diff, ``\\ No newline at end of file`` included.

    ``changes`` are the regions that differ (``compose``); without them the
    texts' common prefix and suffix are found. Only those regions are
    compared line by line (difflib, within each region), so the work and
    the diff's size follow the change, not the file: one fixed line in a
    file of a million equal lines is one small hunk. Lines end at ``\\n``
    only (a ``\\r`` or a form feed inside a line is part of it, as for git and patch).
    """
    regions = changes_between(before, after) if changes is None else sorted(changes)
    if not regions or before == after:
        return ""
    a_lines, b_lines = _lines(before), _lines(after)
    ops = _line_ops(before, a_lines, b_lines, regions)
    if ops is None:  # regions that do not line up (a caller's mistake): compare the one region between
        ops = _line_ops(before, a_lines, b_lines, changes_between(before, after))
        assert ops is not None, "the one region between the common prefix and suffix lines up"
    old, new = (path, path) if path.startswith("/") else (f"a/{path}", f"b/{path}")
    out = [f"--- {diff_name(old)}\n", f"+++ {diff_name(new)}\n"]
    for group in _Known(ops).get_grouped_opcodes(_CONTEXT):
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_marked(" ", a_lines[i1:i2]))
                continue
            out.extend(_marked("-", a_lines[i1:i2]))
            out.extend(_marked("+", b_lines[j1:j2]))
    return "".join(out)


# the characters git writes as a letter after a backslash in a quoted name (quote.c, sq_lookup)
_GIT_ESCAPES = {"\a": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v", "\f": "f", "\r": "r", '"': '"', "\\": "\\"}


def diff_name(name: str) -> str:
    """How a diff header names a file (``name``: its path, with its ``a/`` or ``b/``): as it is, or, when it holds
    a control character (C0, DEL, C1), a ``"`` or a backslash, or a byte that is not UTF-8, quoted as git quotes
    it: between double quotes, those as C escapes (``"a/nl\\n.yaml"``, ``"a/caf\\351.yaml"``), so that the
    header stays one line a terminal shows as it is and ``git apply`` and GNU patch read back the name's bytes.

    ``str -> str``; the other characters stay as they are (git's ``core.quotePath=false``).
    """
    if name.isprintable() and '"' not in name and "\\" not in name:
        return name
    out, quoted = [], False
    for ch in name:
        n = ord(ch)
        if ch in _GIT_ESCAPES:
            out.append("\\" + _GIT_ESCAPES[ch])
        elif 0xDC80 <= n <= 0xDCFF:  # a byte that is not UTF-8 (os.fsdecode): the byte itself
            out.append(f"\\{n - 0xDC00:03o}")
        elif n < 0x20 or 0x7F <= n <= 0x9F:
            out.append("".join(f"\\{b:03o}" for b in ch.encode("utf-8")))
        else:
            out.append(ch)
            continue
        quoted = True
    return f'"{"".join(out)}"' if quoted else name


# difflib's opcode: (tag, a start, a end, b start, b end), lines of a and b
Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]


class _Known(difflib.SequenceMatcher[str]):
    """difflib's hunk grouping (``get_grouped_opcodes``) over opcodes found another way."""

    def __init__(self, opcodes: list[Opcode]) -> None:
        super().__init__(None, [], [])
        self._known = opcodes

    def get_opcodes(self) -> list[Opcode]:
        """The opcodes given (difflib's grouping reads them from here)."""
        return list(self._known)


def _lines(text: str) -> list[str]:
    """The lines of ``text``, each with its ``\\n`` (the last may have none)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _line_ops(before: str, a_lines: list[str], b_lines: list[str], regions: list[Change]) -> list[Opcode] | None:
    """difflib-style opcodes over whole lines, from the changed regions; None if they do not line up."""
    a_starts, b_starts = _starts(a_lines), _starts(b_lines)
    a_open = not a_lines or a_lines[-1].endswith("\n")  # the text's end starts a line of its own
    b_open = not b_lines or b_lines[-1].endswith("\n")
    ops: list[Opcode] = []
    ai = bi = 0  # the lines before these are in ``ops``
    for c in _by_line(regions, before):
        a0, b0 = _first_line(a_starts, c.start, a_open), _first_line(b_starts, c.new_start, b_open)
        # the text around a region is the same on both sides: both blocks start and end at line breaks
        a1, b1 = bisect.bisect_left(a_starts, c.end), bisect.bisect_left(b_starts, c.new_end)
        while a_starts[a1] - c.end != b_starts[b1] - c.new_end:
            if a_starts[a1] - c.end < b_starts[b1] - c.new_end:
                a1 += 1
            else:
                b1 += 1
        if c.start - a_starts[a0] != c.new_start - b_starts[b0] or a0 - ai != b0 - bi or a0 < ai:
            return None
        if a0 > ai:
            ops.append(("equal", ai, a0, bi, b0))
        ops.extend(_region_ops(a_lines, b_lines, a0, max(a1, a0), b0, max(b1, b0)))
        ai, bi = max(a1, a0), max(b1, b0)
    if len(a_lines) - ai != len(b_lines) - bi:
        return None
    if ai < len(a_lines):
        ops.append(("equal", ai, len(a_lines), bi, len(b_lines)))
    merged: list[Opcode] = []  # as difflib gives them: no two "equal" in a row
    for op in ops:
        if merged and op[0] == merged[-1][0] == "equal":
            merged[-1] = ("equal", merged[-1][1], op[2], merged[-1][3], op[4])
        else:
            merged.append(op)
    return merged


def _by_line(regions: list[Change], before: str) -> list[Change]:
    """``regions`` merged wherever no line break stands between two of them: each then owns whole lines."""
    out: list[Change] = []
    for c in regions:
        if out and before.find("\n", out[-1].end, c.start) < 0:
            prev = out.pop()
            c = Change(prev.start, c.end, prev.new_start, c.new_end)
        out.append(c)
    return out


def _starts(lines: list[str]) -> list[int]:
    """The offset each line starts at, then the text's length."""
    out, pos = [], 0
    for line in lines:
        out.append(pos)
        pos += len(line)
    out.append(pos)
    return out


def _first_line(starts: list[int], offset: int, open_end: bool) -> int:
    """The index of the line ``offset`` is in; the text's end is in its last line unless that ends in a break."""
    if offset < starts[-1]:
        return bisect.bisect_right(starts, offset) - 1
    return len(starts) - 1 if open_end else len(starts) - 2


def _region_ops(a: list[str], b: list[str], a0: int, a1: int, b0: int, b1: int) -> list[Opcode]:
    """The line opcodes of one changed region: difflib inside it when small enough, else one replace."""
    if a1 == a0 and b1 == b0:
        return []
    if (a1 - a0) * (b1 - b0) > _REFINE:
        return [("replace", a0, a1, b0, b1)]
    matcher = difflib.SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
    return [(tag, a0 + i1, a0 + i2, b0 + j1, b0 + j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]


def _range(start: int, stop: int) -> str:
    """A hunk header's range, as difflib writes it (1-based; an empty range names the line before it)."""
    length = stop - start
    first = start + 1
    if length == 1:
        return f"{first}"
    if not length:
        first -= 1
    return f"{first},{length}"


def _marked(mark: str, lines: list[str]) -> Iterator[str]:
    for line in lines:
        yield mark + line if line.endswith("\n") else mark + line + "\n\\ No newline at end of file\n"
