"""What a run over paths is asked to do (``runner.run``'s options), each decided once from the command line:
the mode (``Mode``), how it reports (``Output``), what each file is checked with and which are left out
(``Checks``, of ``FileOptions``), where stdin comes from and what it is (``Stdin``), and what fails it
(``Exits``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO

from autofix import report
from autofix.core.api import FixOptions, FixResult, fix_source
from autofix.core.policy import DEFAULT as DEFAULT_POLICY
from autofix.core.policy import Policy
from autofix.pipeline.facts import NO_FACTS, Facts
from autofix.schema import DEFAULT_VERSION, load

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter
    from autofix.core.api import ConfigReader


class Mode(enum.Enum):
    """What to do with the fixes, decided once from the flags (black's ``WriteBack``)."""

    DIFF = "diff"  # report, and print the diff --write would apply (the default)
    CHECK = "check"  # report only (--check)
    DIFF_ONLY = "diff-only"  # print only the diff (--diff)
    WRITE = "write"  # apply the fixes in place (stdin: print the fixed text)

    @classmethod
    def from_flags(cls, *, write: bool = False, check: bool = False, diff: bool = False) -> Mode:
        """The mode the command-line flags ask for. Raises ``ValueError`` for two of them at once."""
        if write + check + diff > 1:
            raise ValueError("--write, --check and --diff exclude each other")
        return cls.WRITE if write else cls.CHECK if check else cls.DIFF_ONLY if diff else cls.DIFF


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Output:
    """How a run reports: the format (``report.FORMATS``), and what else it prints.

    ``show_fixes``: each fix under its diagnostic (the ``full`` format); ``statistics``: one line per rule
    with its count instead of each diagnostic; ``color``: ANSI colours in the human formats; ``progress``:
    a progress bar on stderr for long runs; ``actions``: the report goes to a GitHub Actions log (the github
    format, or ``GITHUB_ACTIONS``), where a line of stderr, or of a human format's stdout, that the runner
    would read as a workflow command is printed between ``::stop-commands::`` lines
    (``report.workflow_commands``); ``verbose``: the traceback of a file's internal error.
    """

    format: str = "full"
    show_fixes: bool = False
    statistics: bool = False
    color: bool = False
    progress: bool = False
    actions: bool = False
    verbose: bool = False

    @property
    def machine(self) -> bool:
        """Whether the format is one a program reads (the whole document is printed at the end)."""
        return self.format in report.MACHINE


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class FileOptions:
    """What a file is checked with (the command line over its project configuration, ``autofix.project.configuration``).

    Its fields are the ones a project sets per file; a ``-j`` worker is handed them, so they stay small (a
    release's name, not its table).
    """

    policy: Policy = DEFAULT_POLICY
    unsafe: bool = False
    target_version: str = DEFAULT_VERSION
    facts: Facts = NO_FACTS

    def fix(self, text: str, adapter: Adapter, path: str, *, configs: ConfigReader | None,
            fix_edits: bool) -> FixResult:
        """``api.fix_source`` of ``text`` (read by ``adapter``, shown as ``path``) with these options, its
        ``--config`` files reached through ``configs``: what the main process and a ``-j`` worker
        (``autofix.cli.workers``) both run for a file. A text that is no SGLang config is not checked."""
        options = FixOptions(self.unsafe, load(self.target_version), None, self.facts, self.policy, fix_edits,
                             check_non_configs=False)
        return fix_source(text, adapter, path=path, options=options, config_reader=configs)


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Checks:
    """What the files of a run are checked with, and which it leaves out.

    ``run_wide``: the options of the run as a whole (the command line over the top-level project
    configuration), every file's when ``per_file`` is None; its ``unsafe`` is the one the summary's hint
    reads, its ``target_version`` the release a machine format's report names and the table the ``--config``
    files of the run's scripts are counted with. ``per_file(path)``: a file's own (its closest configuration
    file's, ``project.Resolver.checks``); it also gives a ``--config`` file's policy (``config_policy``).
    ``excluded(path, named, is_dir)`` leaves a walked file or directory (or a named file, when the project says
    ``force-exclude``) out of the run (``walk.expand``), and a ``--config`` file a launch names out of what is
    read.
    """

    run_wide: FileOptions = FileOptions()
    per_file: Callable[[str], FileOptions] | None = None
    excluded: Callable[[str, bool, bool], bool] | None = None

    def of(self, path: str) -> FileOptions:
        """What the file at ``path`` is checked with."""
        return self.run_wide if self.per_file is None else self.per_file(path)

    @property
    def config_policy(self) -> Callable[[str], Policy] | None:
        """The policy of the diagnostics located in a ``--config`` file (its own options'), None when every file
        has the same."""
        per_file = self.per_file
        return None if per_file is None else lambda path: per_file(path).policy


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Stdin:
    """What ``-`` reads: ``stream`` (None: the process's stdin), reported as ``filename`` (None: ``-``), read as
    the input format ``format`` names (``adapters.NAMES``; None: found from its name and content)."""

    stream: BinaryIO | None = None
    filename: str | None = None
    format: str | None = None


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Exits:
    """What turns a run's exit code to 1 or 0 beyond the mode (``Report.exit_code``): ``zero`` (``--exit-zero``:
    violations do not fail the run), ``non_zero_on_fix`` (``--exit-non-zero-on-fix``: a file written fails it)."""

    zero: bool = False
    non_zero_on_fix: bool = False
