"""Hand-made records and render contexts for the machine formats' tests, built from a source text.

A span is named by the text it covers (``span(SRC, "static")``), an edit by the text it replaces or the
offset it inserts at, so a test reads as its data: the source, what is flagged, what each fix writes.
"""

from __future__ import annotations

from autofix.common.diagnostics import Applicability, Location
from autofix.common.edits import Edit, apply_edits, line_col, offset_of
from autofix.report.records import ErrorRecord, FixRecord, Record, RenderContext, RuleInfo, TextEdit

ROOT = "/repo"
DOC = """# {code} {name}

{summary}

## What it does
Checks that the {name} setting reads as SGLang reads it.

## Why SGLang refuses it
SGLang stops at start-up.

## SGLang source
`srt/arg_groups/demo.py:42` (0.5.23)
"""


def loc(text: str, offset: int) -> Location:
    """The 1-based line and character column of ``offset`` in ``text``."""
    return Location(*line_col(text, offset))


def offset(text: str, needle: str, nth: int = 0) -> int:
    """Where occurrence ``nth`` (0-based) of ``needle`` starts in ``text``; ValueError when it is not there."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at


def span(text: str, needle: str, nth: int = 0) -> tuple[Location, Location]:
    """The start and (exclusive) end of occurrence ``nth`` of ``needle``."""
    at = offset(text, needle, nth)
    return loc(text, at), loc(text, at + len(needle))


def line_start(text: str, line: int) -> int:
    """The offset of 1-based ``line``'s first character (``len(text)`` for the line after the last)."""
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    return starts[line - 1] if line <= len(starts) else len(text)


def edit_at(path: str, text: str, start: int, end: int, content: str) -> TextEdit:
    """Replace ``text[start:end]`` of file ``path`` with ``content``."""
    return TextEdit(path, loc(text, start), loc(text, end), content)


def replace(path: str, text: str, needle: str, content: str, nth: int = 0) -> TextEdit:
    """Replace occurrence ``nth`` of ``needle`` with ``content``."""
    at = offset(text, needle, nth)
    return edit_at(path, text, at, at + len(needle), content)


def fix(title: str, *edits: TextEdit, applicability: Applicability = Applicability.SAFE,
        writable: bool = True) -> FixRecord:
    """A fix with ``edits`` (None when not ``writable``: it cannot be written on its own)."""
    return FixRecord(applicability, title, tuple(edits) if writable else None)


def unsafe(title: str, *edits: TextEdit) -> FixRecord:
    return fix(title, *edits, applicability=Applicability.UNSAFE)


def record(path: str, text: str, needle: str, *, code: str = "EP003", severity: str = "error",
           message: str | None = None, fixes: tuple[FixRecord, ...] = (), after: tuple[str, ...] = (),
           nth: int = 0) -> Record:
    """A record flagging occurrence ``nth`` of ``needle`` in ``text`` (file ``path``)."""
    start, end = span(text, needle, nth)
    return Record(path, start, end, code, name_of(code), severity, message or f"{needle!r} is refused",
                  fixes, fixable=any(f.applicability == Applicability.SAFE for f in fixes), after=after)


def name_of(code: str) -> str:
    return f"demo-rule-{code.lower()}"


def rule(code: str, severity: str = "error") -> RuleInfo:
    summary = f"The demo rule {code} flags a setting SGLang refuses."
    return RuleInfo(code, name_of(code), severity, summary,
                    DOC.format(code=code, name=name_of(code), summary=summary), "srt/arg_groups/demo.py:42")


def context(sources: dict[str, str], records=(), errors: tuple[ErrorRecord, ...] = (), root: str = ROOT,
            version: str = "0.1.0") -> RenderContext:
    """A context with ``sources`` and a rule for each code in ``records`` (its severity taken from them)."""
    rules = {r.code: rule(r.code, r.severity) for r in records}
    return RenderContext(sources, rules, root, version, "0.5.23", errors)


def applied(text: str, edits, path: str | None = None) -> str:
    """``text`` after ``edits`` (``TextEdit``s; those of file ``path`` only, when given)."""
    chosen = [e for e in edits if path is None or e.path == path]
    return apply_edits(text, [Edit(offset_of(text, e.start.line, e.start.col),
                                   offset_of(text, e.end.line, e.end.col), e.content) for e in chosen])
