"""What a run's closing lines and exit code need of its results, counted as each file is reported.

A run keeps these counters instead of its ``FixResult`` objects, so its memory stays flat in the number of
files (issue 15; ``bench/bench_memory.py``): each result is printed (or, in a machine format, turned into
records) as it comes, counted here, and dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from autofix.common.diagnostics import Applicability, Diagnostic

if TYPE_CHECKING:
    from autofix.core.api import FixResult


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(slots=True, eq=False, repr=False)
class RuleCount:
    """One rule's line of ``--statistics``: how many, how many of them the requested mode fixes, its name and
    severity (those of the first one counted)."""

    count: int
    fixable: int
    name: str
    severity: str


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(slots=True, eq=False, repr=False)
class Tally:
    """The counts of every checked text of a run (a script's ``--config`` files are texts of their own).

    ``add`` takes the texts of one file as the runner reports them: its ``--config`` files, then the file,
    whose ``others`` are those same results (as written, or not: ``one_file.unwritten``).
    """

    texts: int = 0  # texts reported
    found: int = 0  # violations in the inputs (``FixResult.found``)
    remaining: int = 0  # violations left after the fixes
    hidden: int = 0  # remaining ones an unsafe fix would remove (not a rule the project marks unfixable)
    changed: int = 0  # texts the fixes change (written, in WRITE mode)
    fixable: int = 0  # violations of the inputs the requested mode fixes
    later: int = 0  # violations that appear once another is fixed
    fixed: int = 0  # violations a written text fixed (``fixed_in``), each counted for its script once
    fixed_later: int = 0  # of those, the ones that appeared once another was fixed
    found_by_rule: dict[str, RuleCount] = field(default_factory=dict)  # --statistics without --write
    remaining_by_rule: dict[str, RuleCount] = field(default_factory=dict)  # --statistics with --write

    def add(self, group: Sequence[FixResult]) -> None:
        """Count one file's texts, ``group`` (its ``--config`` files first, the file last)."""
        for r in group:
            self.texts += 1
            self.found += r.found
            self.remaining += len(r.remaining)
            self.changed += r.changed
            self.hidden += sum(1 for d in r.remaining if d.fix_available and not d.fixable
                               and any(f.applicability == Applicability.UNSAFE for f in d.violation.fixes))
            self.fixable += sum(1 for d in r.diagnostics if d.fixable and not d.after)
            self.later += sum(1 for d in r.diagnostics if d.after)
            _count(self.found_by_rule, (d for d in r.diagnostics if not d.after))
            _count(self.remaining_by_rule, r.remaining)
        fixed = fixed_in(group[-1])  # a --config file's fixes count for the script that wrote them
        self.fixed += len(fixed)
        self.fixed_later += sum(1 for d in fixed if d.after)


def _count(by_rule: dict[str, RuleCount], diagnostics: Iterable[Diagnostic]) -> None:
    for d in diagnostics:
        entry = by_rule.get(d.code)
        if entry is None:
            entry = by_rule[d.code] = RuleCount(0, 0, d.violation.name, d.violation.severity)
        entry.count += 1
        entry.fixable += d.fixable


def fixed_in(result: FixResult) -> list[Diagnostic]:
    """The violations the written text of ``result`` (and of its ``--config`` files) fixed.

    A config file's violation can be fixed on the command line that reads it
    (a file several launches share is left alone): it counts for the script.
    """
    group = [result, *result.others]
    if not any(r.changed for r in group):
        return []
    return [d for r in group for d in r.diagnostics if d.fixable]
