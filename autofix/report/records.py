"""What the machine formats read: one ``Record`` per diagnostic, each fix with its own text edits.

A ``Record`` is a ``Diagnostic`` as the machine formats print it, a type of its own so that the core's stays
free of what only a report needs (the end of its span, each fix's edits resolved, the rule's severity).
A record is built once from a ``Diagnostic`` (``autofix.core.api``), with the span it points at and, when the run
asks for them, the text edits of each of its fixes *on its own*, against the file as it was read (ruff's JSON
model: applying one fix's edits to the original file makes that change alone). ``--write`` applies the
engine's fixpoint instead, where one fix may make or undo another: the unified diff shows that.

Positions are 1-based lines and columns, columns in characters (Unicode code points) of the line; an end is
exclusive (the position just past the last character). Renderers that need other units (rdjson: UTF-8
bytes) convert with ``RenderContext.sources``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from autofix.common.diagnostics import Applicability, Location, TextEdit  # noqa: F401 - TextEdit is part of this interface


@dataclass(frozen=True, slots=True)
class FixRecord:
    """One fix of a diagnostic: its safety, what it does, and its edits.

    ``edits`` is None when the fix cannot be written on its own (the file's layout refuses it, or it only
    makes sense after the fixes of how the launch is written): ``--write`` still applies it, with the others.
    """

    applicability: Applicability
    title: str
    edits: tuple[TextEdit, ...] | None

    @property
    def applicability_name(self) -> str:
        """``safe``, ``unsafe`` or ``display-only`` (ruff's words)."""
        return {Applicability.SAFE: "safe", Applicability.UNSAFE: "unsafe"}.get(self.applicability, "display-only")


@dataclass(frozen=True, slots=True)
class Record:
    """One diagnostic as the machine formats print it.

    ``start``/``end`` span what the diagnostic points at (a flag or key as written). ``fixes`` are ranked
    best first; ``fixable`` says whether the requested mode applies one. ``after`` holds the codes whose fix
    makes this one appear (empty for a violation of the file as it is).
    """

    path: str
    start: Location
    end: Location
    code: str
    name: str
    severity: str  # "error": SGLang refuses; "warning": it starts, but not as the file says
    message: str
    fixes: tuple[FixRecord, ...] = ()
    fixable: bool = False
    after: tuple[str, ...] = ()

    @property
    def best_safe_fix(self) -> FixRecord | None:
        """The first safe fix with edits, if any (what a review suggestion offers)."""
        return next((f for f in self.fixes if f.applicability == Applicability.SAFE and f.edits), None)


@dataclass(frozen=True, slots=True)
class ErrorRecord:
    """An input autofix could not check (exit 2): the file, the place, why."""

    path: str
    start: Location
    message: str


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """What a report says of a rule: code, name, severity, the docstring's summary and its Markdown page, and
    the SGLang source location it mirrors."""

    code: str
    name: str
    severity: str
    summary: str
    doc: str  # the rule's page (Markdown), as ``autofix explain CODE`` prints it
    source: str  # ``arg_groups/moe_hook.py:89`` or the host's code for a Dockerfile rule


@dataclass(frozen=True, slots=True)
class RenderContext:
    """Everything a renderer may read besides the records.

    ``sources``: path (as in the records) -> the text as read, for every file a record or an edit names.
    ``rules``: code -> ``RuleInfo`` for every code in the records. ``root``: the directory relative URIs are
    made from (the working directory). ``version``: autofix's; ``target_version``: the SGLang release checked.
    ``errors``: the inputs that could not be checked. ``nonce``: random, for what the text of the records
    must not be able to guess (the github format's ``::stop-commands::`` token).
    """

    sources: Mapping[str, str]
    rules: Mapping[str, RuleInfo]
    root: str
    version: str
    target_version: str
    errors: Sequence[ErrorRecord] = field(default_factory=tuple)
    nonce: str = field(default_factory=lambda: os.urandom(16).hex())
