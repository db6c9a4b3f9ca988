"""Values shared by every layer: locations, fixes, violations.

Nothing here knows a file format or an SGLang rule.

A found problem has two types here, one per stage: a ``Violation`` is what a rule returns, about settings and
with no place in any file (the engine fills in its code, its name and the fixes it appeared ``after``); a
``Diagnostic`` is a violation placed in the file it points into, with whether this run can apply its fix (the
machine formats' own shape of it is ``report.records.Record``). A fix's ops come in two families, one per
stage: ``Set``/``Unset`` change what a launch runs (the settings stage's fixes; an adapter writes them where
the value is written), the entry ops (``Respell``, ``Revalue``, ``Drop``, ``Rewrite``, ``Requote``) change how
one written setting is spelt, in place (the argparse stage's). A ``TextEdit`` is one edit of a fix placed by
line and column in a file as read, for a report (``Diagnostic.fix_edits``); an adapter's own edits are
``edits.Edit``, by offset in the text it was given.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


class _Unknown:
    """The value of a setting only known when the launch runs (``--tp $TP``)."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


@dataclass(frozen=True, slots=True, order=True)
class Location:
    """A 1-based line and column in the source a launch was read from.

    ``path`` names another file when the place is not in the text being
    checked (a ``--config`` file a shell launch reads); None means that text.
    It takes no part in comparisons: locations order by line and column.
    """

    line: int
    col: int
    path: str | None = field(default=None, compare=False)


class Applicability(enum.IntEnum):
    """How sure a fix is (ordered as in ruff: a bigger value is safer)."""

    DISPLAY_ONLY = 0  # shown, never applied (a rule the project marks unfixable)
    UNSAFE = 1  # changes what the user asked for; applied only with --unsafe-fixes
    SAFE = 2  # keeps every choice the user made; applied by --write


@dataclass(frozen=True, slots=True)
class Set:
    """Make ``dest`` explicitly ``value`` (a Python value of the option's type)."""

    dest: str
    value: Any

    def __hash__(self) -> int:
        # an option of several values (--lora-target-modules) holds a list: hashed as its tuple
        value = tuple(self.value) if isinstance(self.value, list) else self.value
        return hash((self.dest, value))


@dataclass(frozen=True, slots=True)
class Unset:
    """Remove every explicit setting of ``dest`` so SGLang's default applies."""

    dest: str


Op = Set | Unset


def applied(settings: Mapping[str, Any], ops: Iterable[Op]) -> dict[str, Any]:
    """A copy of ``settings`` (``dest -> value``) with ``ops`` (``Set``/``Unset``) applied in order."""
    out = dict(settings)
    for op in ops:
        if isinstance(op, Set):
            out[op.dest] = op.value
        else:
            out.pop(op.dest, None)
    return out


# Ops on how a setting is written (argparse-stage fixes). ``entry`` indexes
# the launch's entries (``autofix.common.arguments.Entry``); adapters turn these into
# in-place text edits, so a renamed flag stays where it was.


@dataclass(frozen=True, slots=True)
class Respell:
    """Write entry ``entry``'s option as ``flag``; its values stay as written."""

    entry: int
    flag: str


@dataclass(frozen=True, slots=True)
class Revalue:
    """Write ``value`` (a Python value) as value number ``item`` of entry ``entry``."""

    entry: int
    value: Any
    item: int = 0


@dataclass(frozen=True, slots=True)
class Drop:
    """Remove entry ``entry``: its option and its values."""

    entry: int


@dataclass(frozen=True, slots=True)
class Rewrite:
    """Replace entry ``entry`` by ``flag`` with ``values`` (none for a flag that takes
    none), followed by the settings in ``more`` (``(flag, values)`` pairs)."""

    entry: int
    flag: str
    values: tuple[Any, ...] = ()
    more: tuple[tuple[str, tuple[Any, ...]], ...] = ()

    @property
    def settings(self) -> tuple[tuple[str, tuple[Any, ...]], ...]:
        """Every ``(flag, values)`` the entry becomes, in order."""
        return ((self.flag, self.values), *self.more)


@dataclass(frozen=True, slots=True)
class Requote:
    """Write entry ``entry``, a whole command its file runs as one string (a Dockerfile exec
    form that is not JSON), as the list of ``words``, in the file's syntax for one (a JSON array)."""

    entry: int
    words: tuple[str, ...]


EntryOp = Respell | Revalue | Drop | Rewrite | Requote


@dataclass(frozen=True, slots=True)
class Fix:
    """A change at the argument level, with its safety. Knows nothing of files.

    A settings rule's fix holds settings ops (``Op``); an argparse-stage fix entry ops (``EntryOp``), and
    settings ops for what the launch's other file writes (``Written.unset``, ``Written.revalue``).
    """

    ops: tuple[Op | EntryOp, ...]
    applicability: Applicability
    title: str  # imperative: "Set --ep-dispatch-algorithm to dynamic"

    @classmethod
    def safe(cls, *ops: Op | EntryOp, title: str) -> Fix:
        """A fix that keeps every choice the user made (applied by ``--write``)."""
        return cls(tuple(ops), Applicability.SAFE, title)

    @classmethod
    def unsafe(cls, *ops: Op | EntryOp, title: str) -> Fix:
        """A fix that changes behaviour (applied only with ``--unsafe-fixes``)."""
        return cls(tuple(ops), Applicability.UNSAFE, title)

    def applies(self, level: Applicability) -> bool:
        """Whether this fix is applied when fixes down to ``level`` are asked for."""
        return self.applicability >= level


@dataclass(frozen=True, slots=True)
class Violation:
    """What a rule found: a message, the args involved, fixes best first.

    ``args`` are SGLang dest names; the reporter points at the first one the
    user wrote, or at entry ``entry`` when an argparse-stage rule names one.
    ``code`` and ``name`` are filled in by the engine, and so is ``after``:
    the codes whose fixes made it appear (a fixpoint's earlier passes; empty
    for a violation of the input as written). ``refuses`` says
    whether SGLang refuses this input, when that differs from the rule's
    usual answer (a deprecated flag is accepted on the command line and
    refused as a ``--config`` key); None means the rule's ``refuses``.
    """

    message: str
    args: tuple[str, ...]
    fixes: tuple[Fix, ...] = ()
    code: str = ""
    name: str = ""
    entry: int | None = None
    refuses: bool | None = None
    after: tuple[str, ...] = ()

    def best_fix(self, level: Applicability) -> Fix | None:
        """The first fix (they are ranked best first) that ``level`` allows, or None."""
        return next((f for f in self.fixes if f.applies(level)), None)

    @property
    def severity(self) -> str:
        """``error`` when SGLang refuses the launch, ``warning`` when it starts but the config does not mean
        what it says (deprecated, ignored, overridden, repeated)."""
        return "error" if self.refuses is not False else "warning"


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace the text from ``start`` to ``end`` (exclusive) of file ``path`` with ``content``.

    Positions are 1-based lines and columns (characters) of the file as it was read; ``start == end``
    inserts, ``content == ""`` deletes. ``path`` is the file's name as reported.
    """

    path: str
    start: Location
    end: Location
    content: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A violation placed in a file: what the reporters print.

    ``fix_edits``, when the caller asked for them (``FixOptions(fix_edits=True)``), holds for each fix
    of ``violation.fixes`` the text edits that make that fix alone on the file as read, or None when it
    cannot be written alone (the file's layout refuses it, or it only exists after other fixes); empty when
    not asked for.
    """

    path: str
    location: Location
    violation: Violation
    fixable: bool  # a fix at the requested applicability exists
    fix_available: bool  # any fix exists (e.g. only with --unsafe-fixes)
    fix_edits: tuple[tuple[TextEdit, ...] | None, ...] = field(default=())

    @property
    def code(self) -> str:
        """The rule code, e.g. ``EP003``."""
        return self.violation.code

    @property
    def after(self) -> tuple[str, ...]:
        """The codes whose fixes made this one appear (``Violation.after``; empty for the file as written)."""
        return self.violation.after
