"""Run the rules to a fixpoint over one launch's explicit settings.

Pure: takes ``dest -> value`` and returns what was found, what was fixed and
the settings after fixing. Knows neither file formats nor SGLang specifics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from autofix.model import UNKNOWN, Applicability, Fix, Op, Set, Unset, Violation
from autofix.resolve import View
from autofix.rules import RULES
from autofix.rules.base import Rule
from autofix.schema import Schema
from autofix.written import Written

__all__ = ["Applicability", "Finding", "Outcome", "check", "check_args", "choose_entry_fixes", "net_ops", "run"]

MAX_PASSES = 10


@dataclass(frozen=True, slots=True)
class Finding:
    """A violation seen during the run.

    ``pass_no`` is 1 for violations of the input; a later pass means a fix of
    an earlier one (``after``, their codes) made it appear. ``applied`` is the
    fix the engine applied for it, if any.
    """

    violation: Violation
    pass_no: int
    after: tuple[str, ...]
    applied: Fix | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """The whole run: findings in order, the fixed settings, what remains.

    ``conflict`` names the rules when fixes went round in a circle or the
    pass bound was hit; their violations are then in ``remaining``.
    """

    findings: tuple[Finding, ...]
    explicit: dict[str, Any]
    remaining: tuple[Violation, ...]
    conflict: str | None


def check(explicit: Mapping[str, Any], schema: Schema, rules: Sequence[Rule] = RULES) -> list[Violation]:
    """Every violation of ``explicit``, in rule (SGLang pipeline) order.

    A rule that reads a value only known at launch time (``UNKNOWN``) is
    skipped: autofix reports nothing it cannot back.
    """
    view = View(explicit, schema)
    found = []
    for r in rules:
        if r.stage != "settings" or not r.applies_to(schema.version):
            continue
        if any(view[d] is UNKNOWN for d in r.reads):
            continue
        v = r(view)
        if v is not None:
            found.append(v)
    return found


def check_args(written: Written, rules: Sequence[Rule] = RULES) -> list[Violation]:
    """Every argparse-stage violation in ``written``, rule by rule, entries in order.

    The host rules come first: a command its file does not run as written
    (``written.host``) gets only theirs, since SGLang never reads its words.
    None for a launch that asks for ``--help``: argparse prints the usage and
    exits there, and no server starts.
    """
    host = [v for r in rules if r.stage == "host" for v in r.find(written)]
    if host or written.host is not None:
        return host
    if written.parsed.help_index >= 0:
        return []
    found: list[Violation] = []
    for r in rules:
        if r.stage == "args" and r.applies_to(written.schema.version):
            found.extend(r.find(written))
    return found


def choose_entry_fixes(violations: Sequence[Violation], level: Applicability) -> list[Fix | None]:
    """The fix to apply for each violation now: its best at ``level``, unless an
    earlier chosen fix already edits one of its entries (that one waits for the
    next pass, on the re-read text)."""
    touched: set[int] = set()
    chosen: list[Fix | None] = []
    for v in violations:
        fix = v.best_fix(level)
        entries = {op.entry for op in fix.ops} if fix else set()
        if fix and not entries & touched:
            touched |= entries
            chosen.append(fix)
        else:
            chosen.append(None)
    return chosen


def _apply(state: dict[str, Any], ops: Sequence[Op]) -> None:
    for op in ops:
        if isinstance(op, Set):
            state[op.dest] = op.value
        else:
            state.pop(op.dest, None)


def _freeze(state: Mapping[str, Any]) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in state.items()))


def run(
    explicit: Mapping[str, Any],
    schema: Schema,
    level: Applicability = Applicability.SAFE,
    rules: Sequence[Rule] = RULES,
) -> Outcome:
    """Detect, apply the best fix at ``level`` for each violation, repeat.

    Within a pass, a fix that touches a dest an earlier fix of the same pass
    touched waits for the next pass (it is re-checked on the new state).
    """
    state = dict(explicit)
    seen = {_freeze(state)}
    findings: list[Finding] = []
    reported: set[tuple[str, str]] = set()
    applied_codes: list[str] = []
    conflict = None
    for pass_no in range(1, MAX_PASSES + 1):
        fixed_before = tuple(applied_codes)  # what earlier passes fixed
        violations = check(state, schema, rules)
        touched: set[str] = set()
        progress = False
        for v in violations:
            fix = v.best_fix(level)
            dests = {op.dest for op in fix.ops} if fix else set()
            use = fix if fix and not (dests & touched) else None
            if use:
                _apply(state, use.ops)
                touched |= dests
                progress = True
            key = (v.code, v.message)
            if key not in reported:
                reported.add(key)
                findings.append(Finding(v, pass_no, fixed_before if pass_no > 1 else (), use))
            elif use:  # seen before, fixed now: record the fix on the first sighting
                i = next(i for i, f in enumerate(findings) if (f.violation.code, f.violation.message) == key)
                findings[i] = Finding(findings[i].violation, findings[i].pass_no, findings[i].after, use)
            if use:
                applied_codes.append(v.code)
        if not progress:
            break
        frozen = _freeze(state)
        if frozen in seen:
            conflict = "fixes of " + ", ".join(sorted({f.violation.code for f in findings})) + " undo each other"
            break
        seen.add(frozen)
    else:
        conflict = f"no fixpoint after {MAX_PASSES} passes"
    remaining = tuple(check(state, schema, rules))
    return Outcome(tuple(findings), state, remaining, conflict if remaining else None)


def net_ops(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[Op]:
    """The ops that turn ``before`` into ``after``, in a stable order."""
    ops: list[Op] = []
    for dest in before:
        if dest not in after:
            ops.append(Unset(dest))
        elif after[dest] != before[dest] or type(after[dest]) is not type(before[dest]):
            ops.append(Set(dest, after[dest]))
    ops.extend(Set(dest, after[dest]) for dest in after if dest not in before)
    return ops
