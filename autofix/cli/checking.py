"""``autofix check``: from the command line's options to a run (the work between ``cli`` and ``runner``).

``prepare`` reads the options once: the mode, the output format (``--output-format``, else
``AUTOFIX_OUTPUT_FORMAT``, else the project's, else ``full``), colour (a terminal only; ``NO_COLOR`` and
``FORCE_COLOR`` as their conventions say), progress, and for each checked file the project configuration
that applies to it, overridden by the command line (``autofix.project.configuration``). A usage mistake raises
``UsageError`` before any file is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO, TextIO

from autofix.common.errors import ConfigError, UsageError
from autofix.report import FORMATS, MACHINE

if TYPE_CHECKING:  # the runner and the project's reader load with the run, not with the command line
    from autofix.cli.run_options import Checks, Mode, Output
    from autofix.project.configuration import Resolver


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Request:
    """What the command line asked for; None: not given (the project's value, else the default, applies)."""

    paths: list[str]
    write: bool = False
    check: bool = False
    diff: bool = False
    unsafe_fixes: bool | None = None
    add_ignores: bool = False
    exit_zero: bool = False
    exit_non_zero_on_fix: bool = False
    select: list[str] | None = None
    extend_select: list[str] | None = None
    ignore: list[str] | None = None
    fixable: list[str] | None = None
    unfixable: list[str] | None = None
    extend_safe_fixes: list[str] | None = None
    extend_unsafe_fixes: list[str] | None = None
    output_format: str | None = None
    show_fixes: bool | None = None
    statistics: bool = False
    stdin_filename: str | None = None
    stdin_format: str | None = None
    verbose: bool = False
    jobs: int | None = None  # -j: worker processes (None: all cores)
    config_file: str | None = None
    isolated: bool = False
    exclude: list[str] | None = None
    extend_exclude: list[str] | None = None
    force_exclude: bool | None = None
    target_version: str | None = None
    gpu: str | None = None
    gpus_per_node: int | None = None


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(slots=True, eq=False, repr=False)
class Job:
    """A prepared run: ``run`` checks (or adds suppressions) and gives the exit code."""

    request: Request
    mode: Mode
    output: Output
    checks: Checks  # what each checked file is checked with, and which are left out
    env: Mapping[str, str]
    stdout: TextIO
    stderr: TextIO
    resolver: Resolver | None = None

    @property
    def jobs(self) -> int:
        """The worker processes of the run: ``-j``, else every core this process may run on."""
        if self.request.jobs is not None:
            return self.request.jobs
        from autofix.cli.workers import default_jobs

        return default_jobs()

    def run(self, stdin: BinaryIO | None = None) -> int:
        """Check every path, write what the mode says, print the report; the exit code (0, 1, 2).

        A configuration file that cannot be used stops the run at once: one error line, exit 2 (files already
        written stay written, each one whole).
        """
        from autofix.cli import runner
        from autofix.common.errors import WriteError
        from autofix.disk import files
        from autofix.report.stream import ReportStream

        r = self.request
        err = ReportStream(self.stderr, "stderr", guard=self.output.actions)
        try:
            if r.add_ignores:
                from autofix.cli.add_ignores import add_ignores

                return add_ignores(r.paths, checks=self.checks, err=err, verbose=r.verbose)
            rep = runner.run(r.paths, self.mode, out=self.stdout, err=self.stderr, checks=self.checks,
                             output=self.output, stdin=runner.Stdin(stdin, r.stdin_filename, r.stdin_format),
                             exits=runner.Exits(r.exit_zero, r.exit_non_zero_on_fix), jobs=self.jobs)
        except ConfigError as exc:
            err.line(str(exc))
            err.flush()
            return 2
        summary_path = self.env.get("GITHUB_STEP_SUMMARY")
        if rep.step_summary and summary_path:
            try:
                files.append_text(summary_path, rep.step_summary)
            except WriteError as exc:  # the findings are in the log all the same: a warning, not a failure
                err.line(f"{exc.path}:1:1: warning: the step summary was not written: {exc.message}")
                err.flush()
        return rep.exit_code


def in_actions(env: Mapping[str, str]) -> bool:
    """Whether this is a GitHub Actions step (its runner sets ``GITHUB_ACTIONS=true``), whose log reads
    workflow commands in what autofix prints."""
    return env.get("GITHUB_ACTIONS") == "true"


def color_wanted(env: Mapping[str, str], stream: TextIO) -> bool:
    """ANSI colours: ``FORCE_COLOR`` set and not empty forces them, else ``NO_COLOR`` set and not empty (or
    ``TERM=dumb``) turns them off, else only on a terminal."""
    if env.get("FORCE_COLOR"):
        return True
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    return _isatty(stream)


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def prepare(request: Request, *, env: Mapping[str, str], stdout: TextIO, stderr: TextIO) -> Job:
    """A ``Job`` for ``request``. Raises ``UsageError`` for options that cannot go together or name nothing,
    and ``ConfigError`` for a configuration file that cannot be used (exit 2 either way)."""
    from autofix.adapters import NAMES
    from autofix.cli.run_options import Checks, FileOptions, Mode, Output
    from autofix.project import configuration

    r = request
    try:
        mode = Mode.from_flags(write=r.write, check=r.check, diff=r.diff)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if r.add_ignores and (r.write or r.check or r.diff):
        raise UsageError("--add-ignores writes the files itself: give it without --write, --check or --diff")
    if r.add_ignores and "-" in r.paths:
        raise UsageError("--add-ignores writes files: give paths, not stdin")
    if r.stdin_format not in (None, *NAMES):
        raise UsageError(f"must be one of {', '.join(NAMES)}", "--stdin-format")
    if r.jobs is not None and r.jobs < 1:
        raise UsageError("must be at least 1", "--jobs")
    if r.select == [] or r.extend_select == []:
        raise UsageError("selects no rule: give a code, a prefix, a name or ALL", "--select")
    from_env = env.get("AUTOFIX_OUTPUT_FORMAT")
    if r.output_format is None and from_env is not None and from_env not in FORMATS:
        raise UsageError(f"AUTOFIX_OUTPUT_FORMAT={from_env!r} is no output format; one of: {', '.join(FORMATS)}")
    overrides = {
        "target-version": r.target_version, "gpu": r.gpu, "gpus-per-node": r.gpus_per_node, "select": r.select,
        "extend-select": r.extend_select, "ignore": r.ignore, "fixable": r.fixable, "unfixable": r.unfixable,
        "extend-safe-fixes": r.extend_safe_fixes, "extend-unsafe-fixes": r.extend_unsafe_fixes,
        "unsafe-fixes": r.unsafe_fixes, "show-fixes": r.show_fixes, "exclude": r.exclude,
        "extend-exclude": r.extend_exclude, "force-exclude": r.force_exclude,
        "output-format": r.output_format if r.output_format is not None else from_env}
    try:
        resolver = configuration.Resolver(overrides, config_file=r.config_file, isolated=r.isolated,
                                    stdin_filename=r.stdin_filename)
        top = resolver.run_settings()  # the run-wide choices (format, --show-fixes) and a first bad file show now
    except configuration.OptionError as exc:
        raise UsageError(str(exc).removeprefix(f"{exc.param}: "), exc.param) from None
    output_format = top.output_format
    if mode is Mode.DIFF_ONLY and (output_format in MACHINE or r.statistics):
        raise UsageError(f"--diff prints only the diff: it takes no {'--statistics' if r.statistics else output_format} "
                         "report (use --check or the default mode)")
    if mode is Mode.WRITE and "-" in r.paths and output_format in MACHINE:
        raise UsageError("--write with stdin prints the fixed text on stdout: use --output-format full or concise")

    def options(path: str) -> FileOptions:
        return FileOptions(*resolver.checks(path))

    def excluded(path: str, named: bool, is_dir: bool) -> bool:
        return resolver.excluded(path, is_dir=True) if is_dir else resolver.skips(path, named)

    output = Output(output_format, top.show_fixes, r.statistics,
                    color=output_format in ("full", "concise") and color_wanted(env, stdout),
                    progress=_isatty(stderr) and (output_format in MACHINE or r.statistics or not _isatty(stdout)),
                    actions=output_format == "github" or in_actions(env), verbose=r.verbose)
    # the run-wide options: the summary's hint at --unsafe-fixes, the release a machine format's report names
    run_wide = FileOptions(unsafe=top.unsafe_fixes, target_version=top.target_version)
    return Job(r, mode, output, Checks(run_wide, options, excluded), env, stdout, stderr, resolver)
