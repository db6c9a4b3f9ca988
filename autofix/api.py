"""The library entry points: fix a text (pure) or a file (reads and writes).

``fix_source`` mirrors black's ``format_file_contents``: no side effects, and
it checks its own output by reading it back before anyone writes it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from types import ModuleType

from autofix import engine
from autofix.edits import Edit, apply_edits, line_col, map_back, offset_of
from autofix.errors import CannotEdit, InternalError
from autofix.formats.launch import Launch
from autofix.model import Applicability, Diagnostic, Location, Respell, Rewrite
from autofix.schema import Schema, load, others_of
from autofix.written import Written


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
    others: tuple[Schema, ...] | None = None,
) -> FixResult:
    """Check every launch in ``text`` and apply the fixes at the requested level.

    Two stages, as SGLang runs them: first how the settings are written
    (argparse and ``--config`` reading: spellings, choices, repeats), fixed
    in place and re-read until nothing changes; then the settings SGLang
    resolves from the corrected text. ``fmt`` is a format adapter module
    (``autofix.formats.yaml_config`` or ``.argv``); ``schema`` is the target
    SGLang version's table (default 0.5.23); ``others`` the tables of other
    versions to recognise migrations by (default: every other shipped one).
    Raises ``InputError`` for
    unreadable input and ``InternalError`` when an edited text does not read
    back as intended.
    """
    schema = schema or load()
    level = Applicability.UNSAFE if unsafe else Applicability.SAFE
    written = _fix_written(text, fmt, path, schema, others_of(schema) if others is None else others, level)
    current, launches = written.text, written.launches
    edits: list[Edit] = []
    outcomes = []
    unfixed: set[int] = set()  # launches whose fixes could not be written
    for index, launch in enumerate(launches):
        before = launch.parsed.explicit_for(schema)
        outcome = engine.run(before, schema, level)
        ops = engine.net_ops(before, outcome.explicit)
        if ops:
            try:
                edits.extend(fmt.edit(current, launch, ops, schema))
            except CannotEdit as exc:  # report the violations, unfixed, and say why
                unfixed.add(index)
                found = tuple(engine.check(before, schema))
                outcome = engine.Outcome(tuple(engine.Finding(v, 1, (), None) for v in found), before, found,
                                         f"fixes not applied: {exc}")
        outcomes.append(outcome)
    output = apply_edits(current, edits)
    if output != current:
        _verify(output, fmt, path, schema, [o.explicit for o in outcomes])
    diagnostics, remaining = list(written.diagnostics), list(written.remaining)
    conflicts = list(written.conflicts)
    back = written.locator(text)
    for index, (launch, outcome) in enumerate(zip(launches, outcomes)):
        editable = index not in unfixed
        for f in outcome.findings:
            diagnostics.append(_diagnostic(path, launch, f.violation, level, f.after, editable, back))
        remaining.extend(_diagnostic(path, launch, v, level, (), editable, back) for v in outcome.remaining)
        if outcome.conflict:
            loc = back(launch.start)
            conflicts.append(f"{path}:{loc.line}:{loc.col}: {outcome.conflict}")
    order = lambda d: (d.location, d.code)  # noqa: E731
    return FixResult(path, fmt.NAME, text, output, tuple(sorted(diagnostics, key=order)),
                     tuple(sorted(remaining, key=order)), len(launches), tuple(conflicts),
                     getattr(fmt, "looks_like_config", lambda _: True)(launches))


@dataclass(slots=True)
class _Written:
    """The argparse-stage pass over a text: the corrected text, read, and what was found."""

    text: str
    launches: list[Launch]
    diagnostics: list[Diagnostic]
    remaining: list[Diagnostic]
    conflicts: list[str]
    chain: list[list[Edit]]  # the edits of each pass, oldest first

    def locator(self, original: str) -> Callable[[Location], Location]:
        """Map a location in the corrected text back to ``original``."""
        return _locator(original, self.text, self.chain)


def _locator(original: str, current: str, chain: list[list[Edit]]) -> Callable[[Location], Location]:
    if not chain:
        return lambda loc: loc

    def back(loc: Location) -> Location:
        offset = offset_of(current, loc.line, loc.col)
        for edits in reversed(chain):
            offset = map_back(edits, offset)
        return Location(*line_col(original, offset))

    return back


def _fix_written(text: str, fmt: ModuleType, path: str, schema: Schema, others: tuple[Schema, ...],
                 level: Applicability) -> _Written:
    """Check how each launch's settings are written; fix in place and re-read, up to ``MAX_PASSES``.

    A pass whose edits would not read back (a layout the adapter cannot
    edit that way) is not applied: its fixes are reported as not applied.
    """
    current, chain = text, []
    diagnostics: list[Diagnostic] = []
    seen: set[tuple] = set()
    fixed: list[tuple[str, frozenset]] = []  # (code, dests) of every fix applied in earlier passes
    conflicts: list[str] = []
    texts = {text}
    launches = fmt.read(current, path, schema)
    checked: list[tuple[Launch, list, bool]] = []  # the last pass's findings on ``current``, and if editable
    for _ in range(engine.MAX_PASSES):
        back = _locator(text, current, chain)
        edits: list[Edit] = []
        applied: list[tuple[str, frozenset]] = []
        new: list[Diagnostic] = []
        checked = []
        for launch in launches:
            found = engine.check_args(Written(launch.entries, launch.parsed, schema, others, fmt.SOURCE))
            chosen = engine.choose_entry_fixes(found, level)
            ops = [op for f in chosen if f for op in f.ops]
            editable = True
            if ops:
                try:
                    edits.extend(fmt.edit_entries(current, launch, ops, schema))
                    applied.extend((v.code, _dests(launch, v) | _fix_dests(launch, f, schema))
                                   for v, f in zip(found, chosen) if f)
                except CannotEdit as exc:
                    editable = False
                    loc = back(launch.start)
                    conflicts.append(f"{path}:{loc.line}:{loc.col}: fixes not applied: {exc}")
            checked.append((launch, found, editable))
            for v in found:
                d = _diagnostic(path, launch, v, level, _causes(fixed, _dests(launch, v)), editable, back)
                key = (v.code, v.message, d.location)
                if key not in seen:
                    seen.add(key)
                    new.append(d)
        if edits:
            candidate = apply_edits(current, edits)
            try:
                again = fmt.read(candidate, path, schema)
            except Exception:  # noqa: BLE001 - an edit this layout cannot take: keep the text
                conflicts.append(f"{path}:1:1: fixes not applied: the edited text would not read back")
                new = [replace(d, fixable=False, fix_available=False) for d in new]
                checked = [(launch, found, False) for launch, found, _ in checked]
                edits = []
        diagnostics.extend(new)
        if not edits:
            break
        current, launches = candidate, again
        chain.append(edits)
        fixed.extend(applied)
        checked = []  # ``current`` changed: what remains is checked below
        if current in texts:
            conflicts.append(f"{path}:1:1: fixes of {', '.join(sorted({c for c, _ in fixed}))} undo each other")
            break
        texts.add(current)
    if not checked:  # stopped with fixes still coming: what is there now remains, unfixed
        checked = [(launch, engine.check_args(Written(launch.entries, launch.parsed, schema, others, fmt.SOURCE)),
                    False) for launch in launches]
    back = _locator(text, current, chain)
    remaining = [_diagnostic(path, launch, v, level, (), editable, back)
                 for launch, found, editable in checked for v in found]
    return _Written(current, launches, diagnostics, remaining, conflicts, chain)


def _dests(launch: Launch, v) -> frozenset:
    """The settings a violation is about: its args and its entry's option."""
    entry = launch.entries[v.entry] if v.entry is not None else None
    return frozenset(v.args) | ({entry.dest} if entry is not None and entry.dest else set())


def _fix_dests(launch: Launch, fix, schema: Schema) -> frozenset:
    """The settings a fix writes: the options it spells, and the entries it edits."""
    out = set()
    for op in fix.ops:
        flags = [op.flag] if isinstance(op, Respell) else [f for f, _ in op.settings] if isinstance(op, Rewrite) else []
        out.update(m.option.dest for m in map(schema.match, flags) if m.option is not None)
        dest = launch.entries[op.entry].dest
        if dest:
            out.add(dest)
    return frozenset(out)


def _causes(fixed: list[tuple[str, frozenset]], dests: frozenset) -> tuple[str, ...]:
    """The codes of earlier fixes that touched the same settings (all of them if none did)."""
    if not fixed:
        return ()
    near = [code for code, touched in fixed if touched & dests]
    return tuple(dict.fromkeys(near or [code for code, _ in fixed]))


def _diagnostic(path: str, launch: Launch, violation, level, after=(), editable=True,
                back: Callable[[Location], Location] = lambda loc: loc) -> Diagnostic:
    return Diagnostic(
        path=path,
        location=back(launch.locate(violation)),
        violation=violation,
        fixable=editable and violation.best_fix(level) is not None,
        fix_available=editable and bool(violation.fixes),
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
