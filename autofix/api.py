"""The library entry points: fix a text (pure) or a file (reads and writes).

``fix_source`` mirrors black's ``format_file_contents``: no side effects, and
it checks its own output by reading it back before anyone writes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from autofix import engine
from autofix.edits import Edit, apply_edits
from autofix.errors import CannotEdit, InternalError
from autofix.formats.launch import Launch
from autofix.model import Applicability, Diagnostic
from autofix.schema import Schema, load


@dataclass(frozen=True, slots=True)
class FixResult:
    """What autofix found in one text and the text after the fixes.

    ``diagnostics`` holds every violation found (those that only appeared
    after another fix carry ``after``), ordered by position; ``remaining``
    holds those the fixes at the requested level did not remove.
    """

    path: str
    format: str
    source: str
    output: str
    diagnostics: tuple[Diagnostic, ...]
    remaining: tuple[Diagnostic, ...]
    launches: int
    conflicts: tuple[str, ...] = ()
    is_config: bool = True  # False: YAML whose keys are mostly not SGLang options

    @property
    def changed(self) -> bool:
        """Whether the fixes changed the text."""
        return self.output != self.source

    @property
    def found(self) -> int:
        """Violations in the input itself (what SGLang would refuse)."""
        return sum(1 for d in self.diagnostics if not d.after)


def fix_source(
    text: str,
    fmt: ModuleType,
    *,
    path: str = "-",
    unsafe: bool = False,
    schema: Schema | None = None,
) -> FixResult:
    """Check every launch in ``text`` and apply the fixes at the requested level.

    ``fmt`` is a format adapter module (``autofix.formats.yaml_config`` or
    ``.argv``). Raises ``InputError`` for unreadable input and
    ``InternalError`` when the edited text does not read back as intended.
    """
    schema = schema or load()
    level = Applicability.UNSAFE if unsafe else Applicability.SAFE
    launches = fmt.read(text, path, schema)
    edits: list[Edit] = []
    outcomes = []
    unfixed: set[int] = set()  # launches whose fixes could not be written
    for index, launch in enumerate(launches):
        before = launch.parsed.explicit_for(schema)
        outcome = engine.run(before, schema, level)
        ops = engine.net_ops(before, outcome.explicit)
        if ops:
            try:
                edits.extend(fmt.edit(text, launch, ops, schema))
            except CannotEdit as exc:  # report the violations, unfixed, and say why
                unfixed.add(index)
                found = tuple(engine.check(before, schema))
                outcome = engine.Outcome(tuple(engine.Finding(v, 1, (), None) for v in found), before, found,
                                         f"fixes not applied: {exc}")
        outcomes.append(outcome)
    output = apply_edits(text, edits)
    if output != text:
        _verify(output, fmt, path, schema, [o.explicit for o in outcomes])
    diagnostics, remaining, conflicts = [], [], []
    for index, (launch, outcome) in enumerate(zip(launches, outcomes)):
        editable = index not in unfixed
        for f in outcome.findings:
            diagnostics.append(_diagnostic(path, launch, f.violation, level, f.after, editable))
        remaining.extend(_diagnostic(path, launch, v, level, (), editable) for v in outcome.remaining)
        if outcome.conflict:
            conflicts.append(f"{path}:{launch.start.line}:{launch.start.col}: {outcome.conflict}")
    order = lambda d: (d.location, d.code)  # noqa: E731
    return FixResult(path, fmt.NAME, text, output, tuple(sorted(diagnostics, key=order)),
                     tuple(sorted(remaining, key=order)), len(launches), tuple(conflicts),
                     getattr(fmt, "looks_like_config", lambda _: True)(launches))


def _diagnostic(path: str, launch: Launch, violation, level, after=(), editable=True) -> Diagnostic:
    return Diagnostic(
        path=path,
        location=launch.location_of(violation.args),
        violation=violation,
        fixable=editable and violation.best_fix(level) is not None,
        fix_available=bool(violation.fixes),
        after=tuple(after),
    )


def _verify(output: str, fmt: ModuleType, path: str, schema: Schema, intended: list[dict]) -> None:
    """Read the edited text back: it must mean exactly the intended settings."""
    try:
        again = fmt.read(output, path, schema)
    except Exception as exc:  # noqa: BLE001 - any failure here is ours
        raise InternalError(f"{path}: the fixed text does not read back ({exc})") from None
    got = [launch.parsed.explicit_for(schema) for launch in again]
    if got != intended:
        raise InternalError(f"{path}: the fixed text reads back as {got}, not {intended}")
