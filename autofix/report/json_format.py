"""``--output-format json``: a JSON array with one object per diagnostic, in ruff's key names.

Each object holds ``code``, ``name``, ``severity`` (``error``/``warning``), ``message``, ``filename`` (as
given; a name that is not UTF-8 as ``caf\\xe9.yaml``, ``shared.dumps``), ``location`` and ``end_location``
(``{row, column}``: 1-based, columns in characters, the end exclusive), ``fixes`` (best first), ``fix`` (the
first of ``fixes`` or null: what ruff's consumers read), ``fixable`` (the requested mode applies a fix),
``appears_after`` (the codes whose fix makes this one appear) and ``url`` (null).

A fix is ``{applicability, title, message, edits}``: ``applicability`` is ``safe``, ``unsafe`` or
``display-only``; ``message`` repeats ``title`` under ruff's name; ``edits`` is a list of
``{content, location, end_location}`` (each applies on its own to the file as read), or null when the fix
cannot be written on its own. An edit in another file than the diagnostic's (the ``--config`` file a
script's fix also edits) names it in ``filename``.

An input that could not be checked is an object of the same keys with ``code`` and ``name`` null,
``severity`` ``error`` and an empty span at the place it names. Keys are sorted and non-ASCII is escaped, so
the bytes do not depend on the encoding of stdout.
"""

from __future__ import annotations

from collections.abc import Sequence

from autofix.common.diagnostics import Location
from autofix.report.records import ErrorRecord, FixRecord, Record, RenderContext
from autofix.report.shared import dumps


def objects(records: Sequence[Record], ctx: RenderContext) -> list[dict]:
    """One object per record, then one per input in ``ctx.errors`` (shared with ``json-lines``)."""
    return [*(_record(r) for r in records), *(_error(e) for e in ctx.errors)]


def render(records: Sequence[Record], ctx: RenderContext) -> str:
    """The JSON array, indented by two spaces, with a final newline."""
    return dumps(objects(records, ctx), indent=2) + "\n"


def _position(at: Location) -> dict:
    return {"row": at.line, "column": at.col}


def _fix(fix: FixRecord, path: str) -> dict:
    edits = None
    if fix.edits is not None:
        edits = []
        for e in fix.edits:
            edit = {"content": e.content, "location": _position(e.start), "end_location": _position(e.end)}
            if e.path != path:
                edit["filename"] = e.path
            edits.append(edit)
    return {"applicability": fix.applicability_name, "title": fix.title, "message": fix.title, "edits": edits}


def _record(r: Record) -> dict:
    fixes = [_fix(f, r.path) for f in r.fixes]
    return {
        "code": r.code, "name": r.name, "severity": r.severity, "message": r.message, "filename": r.path,
        "location": _position(r.start), "end_location": _position(r.end),
        "fixes": fixes, "fix": fixes[0] if fixes else None, "fixable": r.fixable,
        "appears_after": list(r.after), "url": None,
    }


def _error(e: ErrorRecord) -> dict:
    return {
        "code": None, "name": None, "severity": "error", "message": e.message, "filename": e.path,
        "location": _position(e.start), "end_location": _position(e.start),
        "fixes": [], "fix": None, "fixable": False, "appears_after": [], "url": None,
    }
