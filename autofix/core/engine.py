"""Check a launch's settings, apply the fixes, re-check, until nothing changes.

Pure: takes ``dest -> value`` and returns what was found, what was fixed and
the settings after fixing. Knows neither file formats nor SGLang specifics:
``check`` asks the pipeline (``autofix.pipeline.run.resolve``), ``run``
applies fixes to a fixpoint, ``check_args`` runs the rules of how a launch
is written. ``fixpoint`` is the loop both stages go round: ``run`` over a
launch's settings, ``argparse_stage`` over a file's text.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeAlias, TypeVar

from autofix import rules as _rules
from autofix.common.diagnostics import Applicability, Fix, Op, Set, Unset, Violation, applied
from autofix.common.written import Written
from autofix.pipeline.facts import NO_FACTS, Facts
from autofix.pipeline.run import Item, resolve
from autofix.rules import WRITTEN
from autofix.rules.base import HostRule, WrittenRule
from autofix.schema import Schema

__all__ = ["Applicability", "Outcome", "Screen", "check", "check_args", "choose_entry_fixes", "fixpoint",
           "net_ops", "run", "screened"]

MAX_PASSES = 10
S = TypeVar("S")
# an argparse-stage rule: an ArgsRule or a HostRule, which find violations (a string: nothing to build at start-up)
_ArgparseRule: TypeAlias = "WrittenRule[Violation]"

# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Screen:
    """What the caller keeps of each violation found; one left out is neither reported nor fixed.

    ``select`` is the run's policy: the violation as reported (its fixes' safety adjusted), or None for a
    rule the run does not select. ``suppressed`` says whether a suppression comment covers it: only a
    violation of the launch as written can be, not one a fix makes appear (the comment was written for the
    file as it is; a fix that makes a suppressed finding would write a launch SGLang refuses).
    """

    select: Callable[[Violation], Violation | None]
    suppressed: Callable[[Violation], bool] = lambda _v: False


def screened(found: Sequence[Violation], screen: Screen | None, written: set[tuple[str, str]] | None = None,
             *, as_written: bool = True) -> list[Violation]:
    """``found`` through ``screen`` (None: as found), in order, without the ones it leaves out.

    ``as_written``: ``found`` is the launch as written, whose suppressed violations are added to ``written``
    (when given); otherwise (a later pass, after fixes) a comment covers only the violations in ``written``.
    """
    if screen is None:
        return list(found)
    out = []
    for v in found:
        kept = screen.select(v)
        if kept is None:
            continue
        key = (v.code, v.message)
        if (as_written or (written is not None and key in written)) and screen.suppressed(kept):
            if as_written and written is not None:
                written.add(key)
            continue
        out.append(kept)
    return out


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Outcome:
    """The whole run: every violation once, in the order first seen (one a fix of an earlier pass made appear
    carries that pass's fixes in ``Violation.after``), the fixed settings, what remains.

    ``conflict`` names the rules when fixes went round in a circle or the
    pass bound was hit; their violations are then in ``remaining``.
    """

    findings: tuple[Violation, ...]
    explicit: dict[str, Any]
    remaining: tuple[Violation, ...]
    conflict: str | None


def check(explicit: Mapping[str, Any], schema: Schema, facts: Facts = NO_FACTS,
          items: tuple[Item, ...] | None = None, screen: Screen | None = None) -> list[Violation]:
    """Every settings violation of ``explicit`` (``dest -> value``), in SGLang's pipeline order.

    Errors (SGLang refuses) and warnings (a value the user set is replaced).
    A check that reads a value nobody knows (``UNKNOWN``, or a fact not in
    ``facts``) is silent: autofix reports nothing it cannot back. ``items``:
    the derivations and rules to run (default: ``autofix.rules.SETTINGS``);
    ``screen``: what the caller keeps of each violation (see ``Screen``).
    """
    if not schema.steps:
        return []  # a release without a step list: no settings rule is written for it
    return screened(resolve(explicit, schema, _rules.SETTINGS if items is None else items, facts).violations, screen)


def check_args(written: Written, rules: Sequence[_ArgparseRule] = WRITTEN) -> list[Violation]:
    """Every argparse-stage violation in ``written``, rule by rule, entries in order.

    The host rules come first: a command its file does not run as written
    (``written.host``) gets only theirs, since SGLang never reads its words.
    None for a launch that asks for ``--help``: argparse prints the usage and
    exits there, and no server starts.
    """
    host_rules, arg_rules = _split(rules, written.schema.version)
    host = [v for r in host_rules for v in r.find(written)]
    if host or written.host is not None:
        return host
    if written.parsed.help_index >= 0:
        return []
    return [v for r in arg_rules for v in r.find(written)]


_SPLITS: dict[tuple[int, str],
              tuple[Sequence[_ArgparseRule], tuple[_ArgparseRule, ...], tuple[_ArgparseRule, ...]]] = {}


def _split(rules: Sequence[_ArgparseRule], version: str) -> tuple[tuple[_ArgparseRule, ...], tuple[_ArgparseRule, ...]]:
    """(the host rules, the other rules that check ``version``) of ``rules``, in order; kept per tuple of
    rules (by object: hashing the rules would cost what splitting them once saves) and version."""
    if not isinstance(rules, tuple):  # a list may change: split each time
        return (tuple(r for r in rules if isinstance(r, HostRule)),
                tuple(r for r in rules if not isinstance(r, HostRule) and r.applies_to(version)))
    kept = _SPLITS.get((id(rules), version))
    if kept is None or kept[0] is not rules:
        kept = _SPLITS[(id(rules), version)] = (rules, *_split(list(rules), version))
    return kept[1], kept[2]


def choose_entry_fixes(violations: Sequence[Violation], level: Applicability) -> list[Fix | None]:
    """The fix to apply for each violation now: its best at ``level``, unless an
    earlier chosen fix already edits one of its entries (that one waits for the
    next pass, on the re-read text)."""
    touched: set[object] = set()  # entry indexes, ("dest", dest) pairs
    chosen: list[Fix | None] = []
    for v in violations:
        fix = v.best_fix(level)
        # a Set/Unset is on the launch's other file (``Written.unset``): it edits that file's setting of a dest
        entries = {("dest", op.dest) if isinstance(op, (Set, Unset)) else op.entry for op in fix.ops} if fix else set()
        if fix and not entries & touched:
            touched |= entries
            chosen.append(fix)
        else:
            chosen.append(None)
    return chosen


def _freeze(state: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, repr(v)) for k, v in state.items()))


class _Findings:
    """Each violation once, by (code, message), as first seen: with the fixes it appeared after (``after``: the
    codes fixed in the passes before it, none for a violation of the input)."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str], Violation] = {}

    def add(self, v: Violation, after: tuple[str, ...]) -> None:
        key = (v.code, v.message)
        if key not in self.found:
            self.found[key] = replace(v, after=after) if after else v

    def codes(self) -> list[str]:
        return sorted({v.code for v in self.found.values()})


def fixpoint(state: S, one_pass: Callable[[S], S | None], key: Callable[[S], Hashable]) -> tuple[S, str | None]:
    """Apply ``one_pass`` to ``state`` until a pass changes nothing (returns None): the state reached, and why it
    is no fixpoint when it is not: ``"cycle"`` (a state seen before, by ``key``: fixes undoing each other) or
    ``"bound"`` (``MAX_PASSES`` passes, each a change). The one fixpoint loop of a check: the settings of a launch
    (``run``) and the text of a file (``autofix.core.argparse_stage``) both go round it.
    """
    seen: set[Hashable] | None = None  # the states passed through, once a pass changes one (most: none)
    for _ in range(MAX_PASSES):
        new = one_pass(state)
        if new is None:
            return state, None
        if seen is None:
            seen = {key(state)}
        state = new
        frozen = key(state)
        if frozen in seen:
            return state, "cycle"
        seen.add(frozen)
    return state, "bound"


def run(
    explicit: Mapping[str, Any],
    schema: Schema,
    level: Applicability = Applicability.SAFE,
    facts: Facts = NO_FACTS,
    items: tuple[Item, ...] | None = None,
    screen: Screen | None = None,
) -> Outcome:
    """Detect, apply the best fix at ``level`` for each violation, repeat (``fixpoint``).

    Within a pass, a fix that touches a dest an earlier fix of the same pass
    touched waits for the next pass (it is re-checked on the new state).
    Stops when a pass applies nothing; a state seen before is a conflict
    (fixes undoing each other), as is ``MAX_PASSES`` passes without a fixpoint.
    A violation ``screen`` leaves out is neither fixed nor reported, and
    takes no part in a pass (it holds back no other fix).
    """
    suppressed: set[tuple[str, str]] = set()  # the suppressed violations of the launch as written
    findings = _Findings()
    fixed: list[str] = []  # codes fixed so far, in order
    last: list[Violation] = []  # what the last pass found
    pass_no = 0

    def one_pass(state: dict[str, Any]) -> dict[str, Any] | None:
        nonlocal pass_no, last
        pass_no += 1
        after = tuple(fixed) if pass_no > 1 else ()
        touched: set[str] = set()
        found = last = screened(check(state, schema, facts, items), screen, suppressed, as_written=pass_no == 1)
        for v in found:
            fix = v.best_fix(level)
            dests = {op.dest for op in fix.ops} if fix else set()  # type: ignore[union-attr]  # settings fixes: Set, Unset
            use = fix if fix and not dests & touched else None
            if use:
                state = applied(state, use.ops)  # type: ignore[arg-type]  # settings fixes: Set, Unset
                touched |= dests
                fixed.append(v.code)
            findings.add(v, after)
        return state if touched else None

    state, stop = fixpoint(dict(explicit), one_pass, _freeze)
    conflict = None if stop is None else f"no fixpoint after {MAX_PASSES} passes" if stop == "bound" else \
        "fixes of " + ", ".join(findings.codes()) + " undo each other"
    # a pass that applied nothing checked the final state already (a clean launch is resolved once)
    remaining = tuple(last) if stop is None else tuple(screened(check(state, schema, facts, items), screen,
                                                                  suppressed, as_written=False))
    return Outcome(tuple(findings.found.values()), state, remaining, conflict if remaining else None)


def net_ops(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[Op]:
    """The ops that turn ``before`` into ``after``, in a stable order."""
    ops: list[Op] = []
    for dest in before:
        if dest not in after:
            ops.append(Unset(dest))
        elif after[dest] is not before[dest] and (  # the value read (a NaN is never equal, not even to itself)
                after[dest] != before[dest] or type(after[dest]) is not type(before[dest])):
            ops.append(Set(dest, after[dest]))
    ops.extend(Set(dest, after[dest]) for dest in after if dest not in before)
    return ops
