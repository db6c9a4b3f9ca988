"""``--output-format gitlab``: a GitLab Code Quality report (``artifacts:reports:codequality``).

A JSON array of issues with the fields GitLab reads: ``description`` (code and message), ``check_name``
(the code), ``fingerprint``, ``severity`` and ``location`` (``path`` relative to the root, without ``./``,
or as given for a file outside it; ``lines.begin``/``lines.end``, 1-based and both included, a span that
takes a line break ending on that line). GitLab shows issues of one fingerprint once, so
each gets its own (``shared.identities``: stable across line moves, never shared).

Severity (GitLab's scale is ``info``, ``minor``, ``major``, ``critical``, ``blocker``): a launch SGLang
refuses is ``major``, one it starts but not as written is ``minor``, and an input that could not be checked
(``check_name`` ``could-not-check``) is ``critical``, since any number of refusals may hide in it.
``blocker`` and ``info`` are not used. The text has no byte order mark, which GitLab refuses.
"""

from __future__ import annotations

from collections.abc import Sequence

from autofix.common.diagnostics import Location
from autofix.report.records import Record, RenderContext
from autofix.report.shared import display_path, dumps, full_message, identities, shown_end

SEVERITY = {"error": "major", "warning": "minor"}
UNCHECKED = "critical"


def render(records: Sequence[Record], ctx: RenderContext) -> str:
    """The issues as an indented JSON array (sorted keys, non-ASCII escaped), with a final newline."""
    found = [(r.code, r.path, r.start.line, r.start.col) for r in records]
    found += [("", e.path, e.start.line, e.start.col) for e in ctx.errors]
    prints = iter(identities(found, ctx.sources, ctx.root))
    issues = [_issue(f"{r.code}: {full_message(r)}", r.code, next(prints), SEVERITY.get(r.severity, "minor"),
                     display_path(r.path, ctx.root), r.start, shown_end(ctx.sources.get(r.path), r.start, r.end).line)
              for r in records]
    issues += [_issue(f"could not check: {e.message}", "could-not-check", next(prints), UNCHECKED,
                      display_path(e.path, ctx.root), e.start, e.start.line) for e in ctx.errors]
    return dumps(issues, indent=2) + "\n"


def _issue(description: str, check: str, fingerprint: str, severity: str, path: str, start: Location,
           last: int) -> dict:
    return {"description": description, "check_name": check, "fingerprint": fingerprint, "severity": severity,
            "location": {"path": path, "lines": {"begin": start.line, "end": max(last, start.line)}}}
