"""What a run over paths did: its counters and records, and its exit code (``Report.exit_code``, the one place
it is decided, as black's ``Report.return_code``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from autofix import report
from autofix.cli.run_options import Exits, Mode

if TYPE_CHECKING:  # the records are made only for a machine format or an error: not on a clean run's start-up
    from autofix.report.records import ErrorRecord, Record


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(slots=True, eq=False, repr=False)
class Report:
    """Counters of one run.

    Exit code: 2 if any input could not be checked or any fix could not be
    written; otherwise 1 when a violation was found (DIFF and CHECK), when a
    file would change (DIFF_ONLY, ruff's ``--diff``), when a violation
    remains after fixing or, with ``exits.non_zero_on_fix``, a file was
    fixed (WRITE); else 0. ``exits.zero`` turns every 1 into 0.

    Each file's results are reported as they come and then only counted
    (``tally``), so a run's memory stays flat in the number of files; a
    machine format keeps each diagnostic's record (and the text of the files
    they name) for the document it prints at the end.
    """

    mode: Mode
    exits: Exits = Exits()  # --exit-zero, --exit-non-zero-on-fix
    tally: report.Tally = field(default_factory=report.Tally)  # what the summary and --statistics count
    errors: int = 0  # inputs that could not be checked
    unwritten: int = 0  # files whose fixes could not be written
    records: list[Record] = field(default_factory=list)  # the machine formats' diagnostics
    error_records: list[ErrorRecord] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # path -> text as read, of every file a record names
    step_summary: str | None = None  # the github format's Markdown for $GITHUB_STEP_SUMMARY

    @property
    def exit_code(self) -> int:
        """0, 1 or 2, as the class docstring says (``--exit-zero`` makes 1 a 0; errors stay 2)."""
        if self.errors or self.unwritten:
            return 2
        tally = self.tally
        if self.mode is Mode.WRITE:
            failed = tally.remaining > 0 or (self.exits.non_zero_on_fix and tally.changed > 0)
        elif self.mode is Mode.DIFF_ONLY:
            failed = tally.changed > 0
        else:
            failed = tally.found > 0
        return 1 if failed and not self.exits.zero else 0
