"""``--output-format rdjson``: reviewdog's Diagnostic Format, one ``DiagnosticResult`` as JSON.

Positions follow ``reviewdog.proto``: lines and columns start at 1, a column counts UTF-8 bytes, an end is
exclusive, and a range whose positions have no column is line-wise (it takes its end line whole). A
diagnostic that takes a line break ends on that line (``shared.shown_end``): reviewdog comments on the
lines a range names.

Each diagnostic gets at most one suggestion, for its best safe fix with edits (``Record.best_safe_fix``),
written line-wise, because reviewdog's GitHub reviewer places the comment on the first suggestion's lines
and posts a suggestion that does not cover exactly those lines as invalid. The suggestion covers every
whole line the fix's edits touch, and its ``text`` is those lines after the edits, without the last ``\\n``
(reviewdog adds one; a ``\\r`` before it is kept, as git keeps it in the line). An insertion at the start of
a line is put after the line before. A fix that also edits another file gets no suggestion, and its message
says so.

reviewdog reads this with protobuf's JSON reader, which refuses unknown fields: only the proto's are
written. An input that could not be checked is an ``ERROR`` diagnostic without a code.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from autofix.common.diagnostics import Location
from autofix.common.edits import Edit, apply_edits, offset_of
from autofix.report.records import Record, RenderContext
from autofix.report.shared import (
    INFORMATION_URI,
    TOOL,
    byte_column,
    display_path,
    dumps,
    full_message,
    level,
    line_starts,
    shown_end,
)


def render(records: Sequence[Record], ctx: RenderContext) -> str:
    """The ``DiagnosticResult`` as indented JSON (sorted keys, non-ASCII escaped), with a final newline."""
    diagnostics = [_diagnostic(r, ctx) for r in records]
    diagnostics += [_unchecked(e.path, e.start, e.message, ctx) for e in ctx.errors]
    result = {"source": _source(), "diagnostics": diagnostics}
    if diagnostics:
        result["severity"] = "ERROR" if any(d["severity"] == "ERROR" for d in diagnostics) else "WARNING"
    return dumps(result, indent=2) + "\n"


def line_suggestion(source: str, edits: Sequence[Edit]) -> tuple[int, int, str] | None:
    """``(first line, last line, text)``: the whole lines ``edits`` touch (1-based, both included) and those
    lines after the edits without the final ``\\n``; None when lines cannot say it (an empty file, or a fix
    that drops the file's final ``\\n``).

    ``edits`` are character offsets into ``source``. When the result would be ambiguous (the edits join the
    last line with the next, or leave one empty line, which reviewdog reads as a deletion) a neighbouring
    line is taken in.
    """
    if not source or not edits:
        return None
    starts = line_starts(source)
    a, b = min(e.start for e in edits), max(e.end for e in edits)
    after_line = a == b and a > 0 and source[a - 1] == "\n"
    first = _line_of(starts, a - 1 if after_line else a)
    last = _line_of(starts, b - 1 if after_line or (b > a and source[b - 1] == "\n") else b)
    while True:
        lo, hi = starts[first], starts[last + 1] if last + 1 < len(starts) else len(source)
        old = source[lo:hi]
        new = apply_edits(old, [Edit(e.start - lo, e.end - lo, e.text) for e in edits])
        if not old.endswith("\n") or new == "":
            return first + 1, last + 1, new
        if new.endswith("\n") and new != "\n":
            return first + 1, last + 1, new[:-1]
        if hi < len(source):
            last += 1
        elif new == "\n" and first > 0:
            first -= 1
        else:
            return None


def _line_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset) - 1


def _source() -> dict:
    return {"name": TOOL, "url": INFORMATION_URI} if INFORMATION_URI else {"name": TOOL}


def _position(source: str | None, at: Location) -> dict:
    if source is None:
        return {"line": at.line}
    return {"line": at.line, "column": byte_column(source, at.line, at.col)}


def _suggestions(r: Record, source: str | None) -> tuple[list[dict], str]:
    """The suggestion of ``r``'s best safe fix (or none) and what the message adds about it."""
    fix = r.best_safe_fix
    if fix is None or fix.edits is None or source is None:  # (a best safe fix has edits)
        return [], ""
    others = sorted({e.path for e in fix.edits if e.path != r.path})
    if others:
        return [], f" (no suggestion: its fix also edits {', '.join(others)})"
    try:
        edits = [Edit(offset_of(source, e.start.line, e.start.col), offset_of(source, e.end.line, e.end.col),
                      e.content) for e in fix.edits]
    except ValueError:
        return [], ""
    lines = line_suggestion(source, edits)
    if lines is None:
        return [], ""
    first, last, text = lines
    return [{"range": {"start": {"line": first}, "end": {"line": last}}, "text": text}], ""


def _diagnostic(r: Record, ctx: RenderContext) -> dict:
    source = ctx.sources.get(r.path)
    suggestions, note = _suggestions(r, source)
    path, message = display_path(r.path, ctx.root), full_message(r)
    return {"message": message + note,
            "location": {"path": path, "range": {"start": _position(source, r.start),
                                                 "end": _position(source, shown_end(source, r.start, r.end))}},
            "severity": level(r.severity).upper(), "source": _source(), "code": {"value": r.code},
            "suggestions": suggestions,
            "original_output": f"{path}:{r.start.line}:{r.start.col}: {r.severity}: {r.code} {message}"}


def _unchecked(path: str, start: Location, message: str, ctx: RenderContext) -> dict:
    shown = display_path(path, ctx.root)
    return {"message": f"could not check: {message}",
            "location": {"path": shown, "range": {"start": _position(ctx.sources.get(path), start)}},
            "severity": "ERROR", "source": _source(),
            "original_output": f"{shown}:{start.line}:{start.col}: error: could not check: {message}"}
