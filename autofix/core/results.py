"""What a check of one text gives back (``FixResult``, with ``Unread`` notes), and how it is put together from
the two stages: each violation placed as a ``Diagnostic`` (``diagnostic``), each file's diagnostics once, in
order, and the regions its fixes rewrote (``changes``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from autofix.adapters.launch import Launch
from autofix.common.diagnostics import Applicability, Diagnostic, Location, TextEdit, Violation
from autofix.common.edits import Change, Edit, compose
from autofix.common.errors import InputError


@dataclass(frozen=True, slots=True)
class Unread:
    """A ``--config`` file a launch names that autofix did not read, for a note (a warning): on purpose (outside the
    project, excluded, in a container) or because it cannot (there, but a FIFO, a directory, no permission).

    ``path`` and ``location`` are the launch's ``--config`` word; ``file`` is the file's path on this host
    (as ``ConfigReader.read`` was given it), None for one inside a container; ``message`` names it and says why.
    """

    path: str
    location: Location
    file: str | None
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.location.line}:{self.location.col}: warning: {self.message}"


@dataclass(frozen=True, slots=True)
class FixResult:
    """What autofix found in one text and the text after the fixes.

    ``diagnostics`` holds every violation found (those that only appeared
    after another fix carry ``after``), ordered by position; ``remaining``
    holds those the fixes at the requested level did not remove.
    ``others`` holds the ``--config`` files the text's shell launches read
    (see ``fix_source``): one result per file, with the diagnostics located
    in it (``launches`` is 0). ``errors`` holds the ``--config`` files they
    read that SGLang refuses to read (invalid YAML, not a mapping, not UTF-8
    text): one ``InputError`` per file, naming it and the position. ``changes`` are
    the regions of ``source`` the fixes rewrote, sorted and disjoint
    (``edits.Change``): every character outside them is kept, and the
    diff is computed from them alone. ``unread`` holds the ``--config``
    files of its launches that autofix did not read (``Unread``: outside the
    project, excluded or there but unreadable, which ``ConfigReader.read`` says
    with a ``Withheld``, or inside a container), one per file.
    """

    path: str
    format: str
    source: str
    output: str
    diagnostics: tuple[Diagnostic, ...]
    remaining: tuple[Diagnostic, ...]
    launches: int
    conflicts: tuple[str, ...] = ()
    is_config: bool = True  # False: YAML whose keys are mostly not SGLang options, as written
    others: tuple[FixResult, ...] = field(default=())  # --config files read by the launches
    errors: tuple[InputError, ...] = field(default=())  # --config files the launches name that SGLang would not read
    changes: tuple[Change, ...] = field(default=())  # the regions of ``source`` that ``output`` rewrites
    unread: tuple[Unread, ...] = field(default=())  # --config files autofix did not read on purpose, and why

    @property
    def changed(self) -> bool:
        """Whether the fixes changed the text."""
        return self.output != self.source

    @property
    def found(self) -> int:
        """Violations in the input itself (what SGLang would refuse)."""
        return sum(1 for d in self.diagnostics if not d.after)


def diagnostic(path: str, launch: Launch, violation: Violation, level: Applicability, editable: bool = True,
               back: Callable[[Location], Location] = lambda loc: loc,
               edits: tuple[tuple[TextEdit, ...] | None, ...] = ()) -> Diagnostic:
    """``violation`` of ``launch`` (read from ``path``) placed where it points in the text as read (``back``):
    fixable when ``editable`` and it has a fix at ``level``; ``edits``: each fix's own (``fix_edits``)."""
    location = back(launch.locate(violation))
    return Diagnostic(
        path=location.path or path,
        location=location,
        violation=violation,
        fixable=editable and violation.best_fix(level) is not None,
        fix_available=editable and bool(violation.fixes),
        fix_edits=edits if editable else tuple(None for _ in edits),
    )


def in_order(diagnostics: list[Diagnostic]) -> tuple[Diagnostic, ...]:
    """One diagnostic per (code, message, place), by place then code: launches that read the same text (a
    sweep's variants, the launches of one ``--config`` file) find the same things there; each is said once."""
    out: dict[tuple[str, str, int, int], Diagnostic] = {}
    for d in diagnostics:
        out.setdefault((d.code, d.violation.message, d.location.line, d.location.col), d)
    return tuple(sorted(out.values(), key=lambda d: (d.location, d.code)))


def changes(chain: list[list[Edit]], last: list[Edit]) -> tuple[Change, ...]:
    """The regions of the original text that the passes' edits (``chain``, then ``last``) rewrote."""
    out: list[Change] = []
    for edits in [*chain, last]:
        out = compose(out, edits)
    return tuple(out)
