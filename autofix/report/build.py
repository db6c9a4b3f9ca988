"""Records from results: what the machine formats print of each diagnostic (``records.Record``).

The span a diagnostic points at is the word written at its place: a flag or key as written (``--tp``,
``ep-dispatch-algorithm``, a quoted list item), found in the file's text from the start the adapters give.
"""

from __future__ import annotations

import re

from autofix.common.diagnostics import Diagnostic, Location
from autofix.common.edits import line_col, offset_of
from autofix.explain.rule_docs import render_rule
from autofix.report.records import FixRecord, Record, RuleInfo

_PLAIN_END = re.compile(r"[\s,\]}]|:(?=\s|$)")


def span_end(text: str, at: Location) -> Location:
    """Where the word that starts at ``at`` in ``text`` ends (exclusive): a quoted word at its closing quote,
    any other at a blank, a YAML key's ``:``, or a flow collection's ``,``/``]``/``}``; ``at`` itself when it
    is past the text."""
    try:
        start = offset_of(text, at.line, at.col)
    except ValueError:
        return Location(at.line, at.col)
    line_end = text.find("\n", start)
    line_end = len(text) if line_end < 0 else line_end
    if start >= line_end:
        return Location(at.line, at.col)
    quote = text[start]
    if quote in "'\"":
        close = text.find(quote, start + 1, line_end)
        end = line_end if close < 0 else close + 1
    else:
        m = _PLAIN_END.search(text, start, line_end)
        end = m.start() if m else line_end
    end = max(end, start + 1) if text[start:line_end].strip() else start
    if end > start and text[end - 1] == "\r":
        end -= 1
    return Location(*line_col(text, end))


def record(d: Diagnostic, source: str) -> Record:
    """The record of diagnostic ``d``, ``source`` being the text of its file as read."""
    edits = d.fix_edits or (None,) * len(d.violation.fixes)
    fixes = tuple(FixRecord(f.applicability, f.title, e) for f, e in zip(d.violation.fixes, edits))
    start = Location(d.location.line, d.location.col)
    return Record(d.path, start, span_end(source, start), d.code, d.violation.name, d.violation.severity,
                  d.violation.message, fixes, d.fixable, d.after)


def rule_info(code: str) -> RuleInfo | None:
    """What reports say of rule ``code``, or None when no rule has it."""
    from autofix.rules import BY_CODE

    rule = BY_CODE.get(code)
    if rule is None:
        return None
    # (a derivation is in BY_CODE only with its code, and so its name)
    return RuleInfo(rule.code, rule.name, "error" if rule.refuses else "warning",  # type: ignore[arg-type]
                    rule.summary, render_rule(rule), rule.at)
