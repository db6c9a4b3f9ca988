"""Check or fix a list of paths: the work behind ``autofix PATH...``.

One ``Report`` collects what happened; its ``exit_code`` is the only place
the exit status is decided.

A shell launch's ``--config`` file is checked, fixed and written through the
launch (``FixResult.others``; its diagnostics and diff, or its write, come
before the script's).
Files are handled one after another, each read just before it is checked,
and a launch reads its config file at that moment too. A config file that a
launch earlier in the run has already handled is not checked again on its
own when the walk (or the command line) reaches it: it was checked there
(its keys as a config's, its settings as the launch runs them) and in
``--write`` mode written once. A config file checked on its own before a
launch that reads it is reached is checked again through the launch, from
what is then on disk, so a second write starts from the first one's output
and cannot undo it.

Before any file is checked, the scripts of the run are read once to count
the launches that read each config file (by real path): a file read by more
than one launch of the run is never edited by a settings fix, whichever
script reaches it first (``ConfigReader.shared``); a launch
outside the run is not known. A config file reached through several scripts
is reported once per run: each of its diagnostics (real path, line, column,
code, message) and its diff are printed and counted once, and so is the
error of a config file SGLang would refuse to read (``FixResult.errors``:
exit 2; the file is not checked again on its own either).
"""

from __future__ import annotations

import enum
import itertools
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, BinaryIO, TextIO

from autofix import report
from autofix.adapters import DOCKERFILE, LAUNCH, by_name, detect
from autofix.adapters.yaml_config import NotAConfig, looks_like_config_text
from autofix.cli import config_files, workers
from autofix.cli.config_files import on_disk
from autofix.cli.inputs import Inputs
from autofix.common.diagnostics import Location
from autofix.common.edits import unified_diff
from autofix.common.errors import ConfigError, InputError, InternalError, OutputError, WriteError
from autofix.common.escapes import visible
from autofix.common.filenames import is_yaml, launcher_kind
from autofix.core.api import ConfigReader, FixOptions, FixResult, fix_source
from autofix.core.policy import DEFAULT as DEFAULT_POLICY
from autofix.core.policy import Policy
from autofix.disk import files
from autofix.disk.backups import left_beside, left_note
from autofix.disk.encoding import as_meant, decode
from autofix.disk.paths import plain, repository_root
from autofix.disk.reads import ReadError, copy_stream, read_stdin
from autofix.disk.scope import Scope
from autofix.pipeline.facts import NO_FACTS, Facts
from autofix.report.stream import ReportStream
from autofix.schema import DEFAULT_VERSION, load

if TYPE_CHECKING:  # the records are made only for a machine format or an error: not on a clean run's start-up
    from autofix.adapters.contract import Adapter
    from autofix.report.records import ErrorRecord, Record

# why a YAML file is not checked: it is no --config file, nor a manifest or recipe that launches SGLang
NOT_A_CONFIG = ("not an SGLang config (fewer than half of its top-level keys name SGLang options), nor a manifest "
                "or srt-slurm recipe that launches SGLang")
PROGRESS_FROM = 50  # files: a shorter run finishes before a bar is worth reading


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


@dataclass(frozen=True, slots=True, eq=False)  # never compared: no __eq__ to compile at start-up (issue 15)
class Output:
    """How a run reports: the format (``report.FORMATS``), and what else it prints.

    ``statistics``: one line per rule with its count instead of each
    diagnostic; ``color``: ANSI colours in the human formats; ``progress``:
    a progress bar on stderr for long runs; ``actions``: the report goes to a
    GitHub Actions log (the github format, or ``GITHUB_ACTIONS``), where a
    line of stderr, or of a human format's stdout, that the runner would read
    as a workflow command is printed between ``::stop-commands::`` lines
    (``report.workflow_commands``).
    """

    format: str = "full"
    show_fixes: bool = False
    statistics: bool = False
    color: bool = False
    progress: bool = False
    actions: bool = False

    @property
    def machine(self) -> bool:
        """Whether the format is one a program reads (the whole document is printed at the end)."""
        return self.format in report.MACHINE


@dataclass(frozen=True, slots=True, eq=False)  # never compared: no __eq__ to compile at start-up (issue 15)
class FileOptions:
    """What a file is checked with (the command line over its project configuration, ``autofix.project.configuration``)."""

    policy: Policy = DEFAULT_POLICY
    unsafe: bool = False
    target_version: str = DEFAULT_VERSION
    facts: Facts = NO_FACTS

    def fix(self, text: str, adapter: Adapter, path: str, *, configs: ConfigReader | None,
            fix_edits: bool) -> FixResult:
        """``api.fix_source`` of ``text`` (read by ``adapter``, shown as ``path``) with these options, its
        ``--config`` files reached through ``configs``: what the main process and a ``-j`` worker
        (``autofix.cli.workers``) both run for a file."""
        options = FixOptions(self.unsafe, load(self.target_version), None, self.facts, self.policy, fix_edits,
                             check_non_configs=False)
        return fix_source(text, adapter, path=path, options=options, config_reader=configs)


@dataclass(slots=True, eq=False)  # never compared: no __eq__ to compile at start-up (issue 15)
class Report:
    """Counters of one run.

    Exit code: 2 if any input could not be checked or any fix could not be
    written; otherwise 1 when a violation was found (DIFF and CHECK), when a
    file would change (DIFF_ONLY, ruff's ``--diff``), when a violation
    remains after fixing or, with ``exit_non_zero_on_fix``, a file was
    fixed (WRITE); else 0. ``exit_zero`` turns every 1 into 0.

    Each file's results are reported as they come and then only counted
    (``tally``), so a run's memory stays flat in the number of files; a
    machine format keeps each diagnostic's record (and the text of the files
    they name) for the document it prints at the end.
    """

    mode: Mode
    tally: report.Tally = field(default_factory=report.Tally)  # what the summary and --statistics count
    errors: int = 0  # inputs that could not be checked
    unwritten: int = 0  # files whose fixes could not be written
    exit_zero: bool = False  # --exit-zero: violations do not fail the run
    exit_non_zero_on_fix: bool = False  # --exit-non-zero-on-fix: a file written fails it
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
            failed = tally.remaining > 0 or (self.exit_non_zero_on_fix and tally.changed > 0)
        elif self.mode is Mode.DIFF_ONLY:
            failed = tally.changed > 0
        else:
            failed = tally.found > 0
        return 1 if failed and not self.exit_zero else 0


def run(
    paths: list[str],
    mode: Mode,
    *,
    unsafe: bool = False,
    out: TextIO,
    err: TextIO,
    stdin_filename: str | None = None,
    stdin_format: str | None = None,
    show_fixes: bool = False,
    target_version: str = DEFAULT_VERSION,
    verbose: bool = False,
    stdin: BinaryIO | None = None,
    facts: Facts = NO_FACTS,
    output: Output | None = None,
    options: Callable[[str], FileOptions] | None = None,
    excluded: Callable[[str, bool, bool], bool] | None = None,
    exit_zero: bool = False,
    exit_non_zero_on_fix: bool = False,
    jobs: int = 1,
) -> Report:
    """Check (and, in WRITE mode, fix) every path; write reports to ``out``/``err``.

    Files that are not YAML (scripts, Dockerfiles) are checked first, then
    YAML files, each group in the order given (directories walked in sorted
    order): a ``--config`` file a launch reads is then checked merged with
    that launch's flags and not again on its own, whatever the order of the
    paths. A file that cannot be checked is an error (exit 2, in a machine
    format's document too) when it is named, or walked and meant for SGLang
    (a script, Dockerfile or manifest that mentions an SGLang launch, YAML
    whose top-level keys are mostly SGLang options, YAML that does not parse
    and mentions a launch, a file that is not UTF-8 and does); a walked file
    that cannot be read at all (not a regular file, no permission, too
    large), or a template that launches SGLang (Helm's ``{{ }}``), gets a
    note on stderr; any other walked file is passed over quietly (a script
    that launches nothing, a YAML file that is not a config). YAML that
    parses but is no mapping of options SGLang reads (``NotAConfig``: a
    workflow's ``on:`` key, a playbook's list, a ``!Ref`` tag) is an error
    only when its top-level keys are mostly SGLang options, whatever its
    strings mention; named, it is skipped with a note.
    ``excluded(path, named, is_dir)`` leaves a walked file or directory (or
    a named file, when the project says ``force-exclude``) out of the run
    (``walk.expand``), and a ``--config`` file a launch names out of what
    is read.

    What is read, and so what can be written, stays in the project
    (``scope.Scope``: the repository holding the working directory, else
    that directory, after resolving symlinks) and what ``paths`` name: a
    walked symlink to a file outside is not read (a note on stderr), nor is
    a ``--config`` file outside, excluded, or inside the container its
    launch runs in (the launch is checked with the settings not on its
    command line unknown, and a note on stderr says why, once per file).

    Each file is checked inside one guard: whatever goes wrong with it (an
    ``InternalError``, or any exception, a ``MemoryError`` or
    ``RecursionError`` included) is an error line for that file (exit 2), the
    run goes on with the next, and no traceback is printed unless
    ``verbose``; a report that cannot be written (stdout closed or on a full
    disk) raises ``OutputError`` at once. A fix is written only if the file is still what was read
    (``files.FileSet``); the summary counts only what was written.

    ``output`` says how to report (default: the ``full`` format, with
    ``show_fixes``). The human formats print parsable lines and diffs on
    ``out`` as each file is done, status and error lines on ``err``; a
    machine format prints one document on ``out`` at the end (errors are in
    it too, and on ``err``). For stdin, ``out`` carries only the diff or, in WRITE mode,
    always the whole text: fixed, or as it came when there is nothing to fix
    or it could not be checked. ``stdin`` is the stream ``-`` reads (default:
    the process's). ``options(path)`` gives what each file is checked with
    (policy, fix level, SGLang release, hardware); without it every file is
    checked with ``unsafe``, ``target_version`` (the SGLang argument table)
    and ``facts`` (the hardware every launch runs on, ``--gpu``; default:
    none known, and the checks that need it stay silent).

    ``jobs`` above 1 checks the files in that many worker processes when the
    run has at least ``workers.PARALLEL_FROM`` of them (``autofix.cli.workers``);
    what is printed and written, and in what order, is the same as with 1.
    """
    raw_err = err
    output = output or Output(show_fixes=show_fixes)
    # the github format guards its own log lines: its annotations must stay commands
    out = ReportStream(out, "stdout", guard=output.actions and not output.machine)
    err = ReportStream(err, "stderr", guard=output.actions)
    config_policy = None  # one policy for every file
    if options is None:
        fixed_options = FileOptions(DEFAULT_POLICY, unsafe, target_version, facts)
        options = lambda _path: fixed_options  # noqa: E731
    else:
        config_policy = lambda p: options(p).policy  # noqa: E731 - a --config file's own (per-file-ignores)
    rep = Report(mode, exit_zero=exit_zero, exit_non_zero_on_fix=exit_non_zero_on_fix)
    schema = load(target_version)
    scope = Scope(paths)
    disk = files.FileSet(writes=mode is Mode.WRITE, scope=scope, excluded=excluded)
    through_launch: set[str] = set()  # real paths of config files a launch has handled
    # scripts first, each file once; the YAML files are walked, not listed (autofix.cli.inputs)
    left = _Leftovers(err)
    inputs = Inputs(paths, note=err.line, excluded=excluded, left=left, scope=scope)
    shared = config_files.shared(inputs.scripts, schema, scope)
    once = _Once()
    run_one = _One(rep, mode, disk, once, through_launch, shared, out, err, output, options, left=left,
                   stdin_filename=stdin_filename, stdin_format=stdin_format, stdin=stdin,
                   config_policy=config_policy)
    count = inputs.count if jobs > 1 or output.progress else 0  # asked only if used: it may cost a walk
    ordered, for_workers = itertools.tee(inputs) if jobs > 1 and count >= workers.PARALLEL_FROM \
        else (iter(inputs), None)  # the workers take the files of the same walk, a few chunks ahead
    ready = _ready(for_workers, count, jobs, options, shared, output, out, err,
                   workers.Bounds(scope, excluded, config_policy))
    try:
        for path, named in _progress(ordered, count, output, raw_err):
            answer = next(ready)
            if path != "-" and through_launch and disk.real(path) in through_launch:
                continue
            try:
                run_one(path, named, answer)
            except (BrokenPipeError, OutputError, ConfigError):
                raise
            except Exception as exc:  # noqa: BLE001 - the guard: one file never stops the run
                what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                how = "" if verbose else "; --verbose shows the traceback"
                rep.errors += 1
                run_one.failed(run_one.shown(path), 1, 1, f"internal error, nothing written: {what[:300]} "
                               f"(please report this{how})")
                if verbose:
                    import traceback

                    for line in traceback.format_exc().splitlines():
                        err.line(line)
                run_one.pass_through()
            disk.done()  # what it read is not needed again: the run's memory stays flat in its files
    finally:
        if hasattr(ready, "close"):  # stop the workers now, on an error or Ctrl-C too
            ready.close()
    if output.statistics:
        out.write(report.statistics(rep.tally, write=mode is Mode.WRITE, machine=output.machine))
    elif output.machine:
        _render(rep, output.format, target_version, out)
    err.line(report.summary(rep.tally, write=mode is Mode.WRITE, unsafe=unsafe, errors=rep.errors,
                            unwritten=rep.unwritten))
    out.flush()  # a full disk shows here, as one error, not at exit
    err.flush()
    return rep


def _ready(items: Iterator[tuple[str, bool]] | None, count: int, jobs: int, options: Callable[[str], FileOptions],
           shared: frozenset[str], output: Output, out: TextIO, err: TextIO, bounds: workers.Bounds):
    """A worker's answer (``workers.Ready``) or None for each of ``items`` (``count`` of them), in order: all
    None in-process (``items`` None). ``bounds``: what the workers may read."""
    if items is None:
        return itertools.repeat(None)

    def flush() -> None:  # a forked worker must hold no unwritten output of ours (it flushes at exit)
        for stream in (out, err, sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()

    return workers.results(items, count, jobs, options, shared=shared, fix_edits=output.machine,
                            before_start=flush, bounds=bounds)


def _progress(items: Iterable, count: int, output: Output, stream):
    """``items`` (``count`` of them), with a progress bar on ``stream`` when ``output`` asks for one and the run is
    long."""
    if not output.progress or count < PROGRESS_FROM:
        return items
    import click

    return _ProgressItems(items, count, click, stream)


class _ProgressItems:
    """Iterate ``items`` inside click's progress bar (cleared when done)."""

    def __init__(self, items: Iterable, count: int, click, stream) -> None:
        self.items, self.count, self.click, self.stream = items, count, click, stream

    def __iter__(self):
        with self.click.progressbar(self.items, length=self.count, label="autofix", file=self.stream, show_pos=True,
                                    item_show_func=lambda item: visible(item[0]) if item else None) as bar:
            yield from bar


def _render(rep: Report, fmt: str, target_version: str, out: TextIO) -> None:
    """Print the machine format ``fmt``'s document of ``rep``; keep the github format's step summary.

    Paths are made relative to the repository (``paths.repository_root``), where GitHub, reviewdog and GitLab
    look for them, wherever in it autofix runs; an absolute path stays absolute.
    """
    import autofix
    from autofix.report.build import rule_info
    from autofix.report.records import RenderContext

    cwd = os.getcwd()
    root = repository_root(cwd)

    def rebased(path: str) -> str:
        if path == "-":
            return path
        path = plain(path)  # a report reads ``..`` as text: ``lnk/../c.yaml`` is where lnk leads, not c.yaml
        if root == cwd or os.path.isabs(path):
            return path
        return os.path.relpath(os.path.join(cwd, path), root)

    dotted = any(".." in p for p in rep.sources) or any(".." in r.path for r in (*rep.records, *rep.error_records))
    if root == cwd and not dotted:  # every path stays as it is: no second copy of the records
        records, errors, sources = rep.records, tuple(rep.error_records), rep.sources
    else:
        records = [replace(r, path=rebased(r.path), fixes=tuple(
            replace(f, edits=None if f.edits is None else tuple(replace(e, path=rebased(e.path)) for e in f.edits))
            for f in r.fixes)) for r in rep.records]
        errors = tuple(replace(e, path=rebased(e.path)) for e in rep.error_records)
        sources = {rebased(p): text for p, text in rep.sources.items()}
    infos = {code: info for code in dict.fromkeys(r.code for r in records) if (info := rule_info(code)) is not None}
    ctx = RenderContext(sources, infos, root, autofix.__version__, target_version, errors)
    module = report.machine(fmt)
    out.write(module.render(records, ctx))
    if hasattr(module, "step_summary"):
        rep.step_summary = module.step_summary(records, ctx)


class _One:
    """Check one path of a run (the body of ``run``'s loop): read, check, report, write."""

    def __init__(self, rep: Report, mode: Mode, disk: files.FileSet, once: _Once, through_launch: set[str],
                 shared: frozenset[str], out: TextIO, err: TextIO, output: Output,
                 options: Callable[[str], FileOptions], *, stdin_filename: str | None, stdin_format: str | None,
                 stdin: BinaryIO | None, config_policy: Callable[[str], Policy] | None = None,
                 left: _Leftovers | None = None) -> None:
        self.rep, self.mode, self.disk, self.once = rep, mode, disk, once
        self.left = left if left is not None else _Leftovers(err)
        self.through_launch, self.shared, self.out, self.err = through_launch, shared, out, err
        self.output, self.options, self.config_policy = output, options, config_policy
        self.stdin_filename, self.stdin_format, self.stdin = stdin_filename, stdin_format, stdin
        self.stdin_data: bytes | None = None  # what stdin held, while it still has to be printed
        self.texts: dict[str, str] = {}  # machine formats: path -> text of the file being reported
        self.first_record = self.first_error = 0  # where the records and errors of that file start

    def shown(self, path: str) -> str:
        """The name ``path`` is reported by."""
        return (self.stdin_filename or "-") if path == "-" else path

    def failed(self, path: str, line: int, col: int, message: str) -> None:
        """An input that could not be checked, or a fix that could not be written: one error line (exit 2)."""
        self.err.line(f"{path}:{line}:{col}: error: {message}")
        from autofix.report.records import ErrorRecord

        self.rep.error_records.append(ErrorRecord(path, Location(line, col), message))
        if self.texts:  # the guard's error for a file that failed while it was being reported
            self._keep_texts()

    def pass_through(self) -> None:
        """In WRITE mode, print stdin as it came, if nothing has been printed for it yet."""
        data, self.stdin_data = self.stdin_data, None
        if data is None or self.mode is not Mode.WRITE:
            return
        if hasattr(self.out, "buffer"):  # the bytes as they came, UTF-8 or not
            self.out.flush()
            self.out.buffer.write(data)
            self.out.buffer.flush()
        else:  # a text stream of the caller's (tests): as text
            self.out.write_utf8(data.decode("utf-8", "replace"), report=False)

    def __call__(self, path: str, named: bool, ready: workers.Ready | None = None) -> None:
        """Check ``path`` and report it; ``ready``: a worker's answer for it (``-j``), used if still current."""
        if named and path != "-":  # (a walk names what it finds itself) next to the file a symlink leads to
            self.left.beside(path, self.disk.real(path) if os.path.islink(path) else None)
        result = self._adopt(ready) if ready is not None else None
        if result is None:
            result = self._check(path, named)
            if result is None:
                return
        if not result.is_config:  # YAML that is neither a config nor launches SGLang: no false alarms
            note = passed_over(result, self.shown(path), named)
            if note is not None:
                self.err.line(note)
            self.pass_through()
            return
        self._report(path, result)

    def _adopt(self, ready: workers.Ready) -> FixResult | None:
        """A worker's result, if every file it read is still what this run last wrote there (or read, for this
        file)."""
        disk = self.disk
        if any(disk.snapshot(real) not in (None, snap) for real, snap in ready.snapshots.items()):
            return None  # an earlier --write of this run rewrote one: check it again here
        disk.snapshots.update(ready.snapshots)
        disk.reals.update(ready.reals)  # what each path led to when it was read, not now
        return ready.result

    def _check(self, path: str, named: bool) -> FixResult | None:
        """Read and check ``path``; None when it is done with (an error or a note was reported, or skipped)."""
        err, shown = self.err, self.shown(path)
        text = fmt = None
        try:
            if path == "-":
                self.stdin_data = self._read_stdin()
                text = decode(self.stdin_data, shown)
            else:
                text = self.disk.read(path, named=named)
            fmt = format_of(path, shown, text, named, self.stdin_format)
            if fmt is None:
                self.pass_through()
                return
            opts = self.options(shown)
            configs = None if path == "-" else on_disk(self.disk.read_config, shared=self.shared,
                                                       policy=self.config_policy)
            result = opts.fix(text, fmt, shown, configs=configs, fix_edits=self.output.machine)
        except ConfigError:
            raise  # the project's configuration, not this file: it stops the run
        except InputError as exc:
            said = unchecked(exc, path, shown, named, text, fmt, self.disk)
            if said is not None and said[0] == "error":
                self.failed(exc.path, exc.line, exc.col, exc.message)
                self.rep.errors += 1
            elif said is not None:
                err.line(said[1])
            self.pass_through()
            return
        except InternalError as exc:
            self.failed(shown, 1, 1, f"internal error, nothing written: {exc} (please report this)")
            self.rep.errors += 1
            self.pass_through()
            return None
        return result

    def _read_stdin(self) -> bytes:
        try:
            return read_stdin(self.stdin)
        except ReadError as exc:
            if self.mode is Mode.WRITE:  # still a filter: what came in goes out
                copy_stream(exc.data, self.stdin, self.out)
            raise

    def _report(self, path: str, result: FixResult) -> None:
        rep, once = self.rep, self.once
        self.first_record, self.first_error = len(rep.records), len(rep.error_records)
        self.texts.clear()
        for error in result.errors:  # --config files SGLang would refuse to read
            real = self.disk.real(error.path)
            self.through_launch.add(real)
            if once.first(("error", real)):  # one error per file, whoever reads it
                self.failed(error.path, error.line, error.col, error.message)
                rep.errors += 1
        for note in result.unread:  # --config files not read on purpose: said once per file (a warning)
            key = ("unread", self.disk.real(note.file)) if note.file is not None else \
                ("unread", self.disk.real(note.path), note.location, note.message)
            if once.first(key):
                self.err.line(str(note))
        if result.others:  # (a replace of every result would cost what a clean file's rules do)
            result = replace(result, others=tuple(once.config(o) for o in result.others))
        for other in result.others:
            real = self.disk.real(other.path)
            self.through_launch.add(real)
            self.left.beside(other.path, real)
        merged = bool(result.others)
        group = [(o, once.first(("diff", self.disk.real(o.path), o.source, o.output))) for o in result.others]
        group.append((result, True))
        if self.mode is Mode.WRITE and path != "-":
            group = self._write(group)
        rep.tally.add([r for r, _ in group])
        for r, show_diff in group:  # the --config files first: the script is written once they are
            self._emit(r, path == "-" and r is group[-1][0], merged, show_diff)
        self._keep_texts()
        self.stdin_data = None

    def _keep_texts(self) -> None:
        """Keep, for the machine format's document, the text of each file just reported that it will look up.

        The renderers read a file's text (``RenderContext.sources``) for the records that name it (their own
        path or an edit's) and for the errors (a file that could not be written): only those texts are kept,
        so a run of clean files keeps none. A file reported again (a ``--config`` file several launches read)
        keeps its latest text, as if every text were kept.
        """
        sources, texts = self.rep.sources, self.texts
        if not texts:
            return
        records, errors = self.rep.records[self.first_record:], self.rep.error_records[self.first_error:]
        named = {r.path for r in records} | {e.path for r in records for f in r.fixes for e in f.edits or ()}
        named.update(e.path for e in errors)
        for path, text in texts.items():
            if path in named or path in sources:
                sources[path] = text
        texts.clear()

    def _write(self, group: list[tuple[FixResult, bool]]) -> list[tuple[FixResult, bool]]:
        """Write every changed text of ``group`` (a script and its ``--config`` files), all or none
        (``files.FileSet.write_all``: a kill leaves a backup next to each file of a group half written), and
        none while a file of it that is not to change has a backup next to it (the texts were worked out
        from what an interrupted write left).

        A text not written is returned as unchanged (its violations remain). Ctrl-C and SIGTERM wait until
        the group is written (or put back).
        """
        changed = [r for r, _ in group if r.changed]
        if not changed:
            return group
        for r, _ in group:  # a file the launch reads, unchanged, that an interrupted write may have left half done
            backup = None if r.changed else left_beside(self.disk.real(r.path))
            if backup is not None:
                return self._not_written(group, WriteError(changed[-1].path, (
                    f"its launch reads {r.path}, and a backup of an autofix write is next to that file ({backup}): "
                    "compare the two, then delete the backup")))
        with files.SignalsHeld():  # Ctrl-C or SIGTERM now stops the run once all are written, or put back
            failed = self.disk.write_all([(r.path, r.output) for r in changed])
        if not failed:
            return group
        for again in failed[1:]:
            self.err.line(f"{again.path}:1:1: error: written, but its launch's other file could not be, and "
                          f"putting it back failed: {again.message}")
            self.rep.unwritten += 1
        return self._not_written(group, failed[0])

    def _not_written(self, group: list[tuple[FixResult, bool]], exc: WriteError) -> list[tuple[FixResult, bool]]:
        """``group`` as it stands on disk after ``exc``: nothing written (the script still holds its configs)."""
        self.err.line(str(exc))
        from autofix.report.records import ErrorRecord

        self.rep.error_records.append(ErrorRecord(exc.path, Location(1, 1), exc.message))
        self.rep.unwritten += 1
        others = [(unwritten(o), show) for o, show in group[:-1]]
        script, show = group[-1]
        return [*others, (replace(unwritten(script), others=tuple(o for o, _ in others)), show)]

    def _emit(self, result: FixResult, stdin: bool, merged: bool, show_diff: bool) -> None:
        """Print one result's diagnostics and diff (or, for stdin in WRITE mode, the fixed text).

        ``merged``: a script or config of a merged launch; ``show_diff``:
        False when the same diff was already printed.
        """
        out, err, mode, output = self.out, self.err, self.mode, self.output
        lines_to = err if stdin else out
        shown = result.remaining if mode is Mode.WRITE else result.diagnostics
        if output.machine:
            from autofix.report.build import record

            self.texts[result.path] = result.source  # kept if a record names it (``_keep_texts``)
            for other in result.others:
                self.texts.setdefault(other.path, other.source)

            self.rep.records.extend(record(d, result.source) for d in shown)
        elif not output.statistics and mode is not Mode.DIFF_ONLY:
            for d in shown:
                lines_to.write(report.diagnostic_line(d, color=output.color) + "\n")
                if output.show_fixes and output.format == "full":
                    for line in report.fix_lines(d):
                        lines_to.line(line)
        for conflict in result.conflicts:
            err.line(conflict)
        if mode in (Mode.DIFF, Mode.DIFF_ONLY, Mode.CHECK):
            diff = mode is Mode.DIFF_ONLY or (mode is Mode.DIFF and output.format == "full" and not output.statistics)
            if diff and result.changed and show_diff:
                out.write_utf8(report.colored_diff(unified_diff(result.source, result.output, result.path,
                                                                result.changes), output.color))
            return
        if stdin:
            out.write_utf8(result.output, report=False)
        elif result.changed:
            if merged:  # a fix may land in the script for a violation reported in its --config file
                err.line(f"Fixed {result.path}")
            else:
                fixed = sum(1 for d in result.diagnostics if d.fixable)
                err.line(f"Fixed {fixed} violation{'s' * (fixed != 1)} in {result.path}")


def unwritten(result: FixResult) -> FixResult:
    """``result`` as it stands when its fixed text was not written: unchanged, every violation remaining."""
    if not result.changed:
        return result
    return replace(result, output=result.source, changes=(),
                   remaining=tuple(d for d in result.diagnostics if not d.after))


def format_of(path: str, shown: str, text: str, named: bool, stdin_format: str | None = None):
    """The format adapter that checks ``text``, the file at ``path`` (``-``: stdin, whose format ``stdin_format``
    names, if given) reported as ``shown``; None for a file passed over: a shell script or Dockerfile that
    launches no SGLang is fine (pre-commit passes every ``*.sh``). Raises ``InputError`` for a named file that
    is neither an SGLang config nor a launcher. What a check run and ``--add-ignores`` both decide."""
    if path == "-" and stdin_format:
        return by_name(stdin_format)
    fmt = detect(shown, text)
    if fmt is None:
        launcher = launcher_kind(shown) or text.startswith("#!") \
            or (path == "-" and DOCKERFILE.match(text) is not None)
        if named and not launcher:
            raise InputError(shown, 1, 1, "not an SGLang config (.yaml/.yml) and runs no SGLang launch")
    return fmt


def passed_over(result: FixResult, shown: str, named: bool) -> str | None:
    """The note for ``result``, a text that is neither an SGLang config nor launches SGLang (no false alarms):
    a line when the file was named (reported as ``shown``), else None (a walk passes it over quietly)."""
    if not named:
        return None
    why = NOT_A_CONFIG if by_name(result.format).SOURCE == "config" else "no SGLang launch found"
    return f"{shown}: skipped: {why}"


def unchecked(exc: InputError, path: str, shown: str, named: bool, text: str | None,
              fmt, disk: files.FileSet) -> tuple[str, str] | None:
    """What a run makes of ``path`` (named on the command line, or met in a walk; reported as ``shown``), which
    could not be checked (``exc``; ``text`` None when it was not read as text, ``fmt`` None when no format was
    found): the one decision of a check run and of ``--add-ignores``.

    - ``("error", line)``: exit 2 (and a record in a machine format's document): the file is named, or it is
      meant for SGLang as it is (YAML whose keys are mostly SGLang options, or that does not parse and launches
      SGLang, or what ``_walked`` says is an error): a CI gate must not pass it;
    - ``("note", line)``: a warning on stderr, the exit code unchanged: a named YAML file that does not read as
      a config and is none (a GitHub workflow, a playbook: pre-commit names every YAML file), or a walked file
      ``_walked`` only notes;
    - None: passed over quietly.

    ``disk``: the run's ``files.FileSet``, which reads a walked file again when it is not UTF-8 (``_walked``).
    """
    yaml = text is not None and fmt is not None and fmt.SOURCE == "config" and exc.path == shown
    parsed = isinstance(exc, NotAConfig)  # YAML that parses but is no mapping of strings (a workflow's `on:`)
    # YAML meant as an SGLang config: half its top-level keys name SGLang options, or it does not parse and
    # launches SGLang (a broken manifest: what it meant cannot be known, and SGLang would run it). The strings
    # of YAML that parses say nothing: a workflow's `run:` step is no --config file.
    config = yaml and (looks_like_config_text(text, load()) or (not parsed and LAUNCH.search(text) is not None))
    if yaml and not config and (parsed or exc.message.startswith("invalid YAML")):
        # a GitHub workflow, a playbook (pre-commit names every YAML file): not ours; a walk passes it quietly
        return ("note", f"{shown}: skipped: {NOT_A_CONFIG}") if named else None
    if named or config:
        return "error", str(exc)
    walked = _walked(path, text, exc, disk)
    if walked == "error":  # walked and meant for SGLang as it is (a config, a launch)
        return "error", str(exc)
    if walked == "note":  # walked: nothing is known of what it holds, or a template (Helm's)
        return "note", _skipped(exc)
    return None


def _skipped(exc: InputError) -> str:
    """The note for a walked file that is skipped: a warning (it does not change the exit code)."""
    return f"{exc.path}:{exc.line}:{exc.col}: warning: {exc.message} (skipped)"


def _walked(path: str, text: str | None, exc: InputError, disk: files.FileSet) -> str | None:
    """What a file met in a walk that could not be checked (``exc``; ``text`` None when it is not UTF-8) is:

    - ``"error"`` (exit 2, in the document) when SGLang would read it as it is: it mentions an SGLang launch
      (a script, a Dockerfile, a manifest), or it is YAML whose keys are mostly SGLang options; a file that
      is not UTF-8 text is judged on the text it most likely holds (``encoding.as_meant``: in the UTF-16 or
      UTF-32 form its first bytes name, else its ASCII words), so no encoding hides a config or a launch.
      A CI gate must not pass it, as when it is named;
    - ``"note"`` (a warning on stderr) when nothing is known of what it holds (``reads.ReadError``: not a
      regular file, no permission, too large), or it is a template that launches SGLang (``{{ }}``, a Helm
      chart's), which is not what runs until it is rendered;
    - None (passed over quietly): any other file, a script that launches nothing.

    ``disk`` reads the file again (as a walked file: within the run's bounds) when it is not UTF-8.
    """
    if isinstance(exc, ReadError):
        return "note"
    if text is None:
        try:
            text = as_meant(disk.read_bytes(path, named=False))
        except ReadError:  # gone since, or leads elsewhere now
            return "note"
        if is_yaml(path) and looks_like_config_text(text, load()):
            return "error"
    if LAUNCH.search(text) is None:
        return None
    return "note" if "{{" in text and "}}" in text else "error"


class _Leftovers:
    """Names what autofix writes left next to the files of a run (``backups.left_note``: a warning on stderr),
    each once: what a walk finds (called with the file and what is next to it), a backup next to a file named
    on the command line or a ``--config`` file a launch read (``beside``: one ``lstat`` each)."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.seen: set[tuple[int, int]] = set()  # (device, inode) of each one named

    def __call__(self, path: str, leftover: str, real: str | None = None) -> None:
        try:
            st = os.lstat(leftover)
        except OSError:
            return
        if (st.st_dev, st.st_ino) not in self.seen:
            self.seen.add((st.st_dev, st.st_ino))
            self.err.line(left_note(path, leftover, real))

    def beside(self, path: str, real: str | None = None) -> None:
        """Name the backup next to the file ``path`` (at real path ``real``, when known: a write through a
        symlink leaves its backup next to the file it leads to), if there is one; shown relative to the working
        directory when it is in it."""
        backup = left_beside(real or path)
        if backup is not None:
            shown = os.path.relpath(backup) if real is not None else backup
            self(path, backup if shown.startswith(os.pardir) else shown, real)


class _Once:
    """What this run has already printed: a config file reached through several scripts is reported once."""

    def __init__(self) -> None:
        self.seen: set[tuple] = set()

    def first(self, key: tuple) -> bool:
        """Whether ``key`` is new (and remember it)."""
        if key in self.seen:
            return False
        self.seen.add(key)
        return True

    def config(self, result: FixResult) -> FixResult:
        """``result`` (a ``--config`` file) without the diagnostics already reported for that file."""
        real = os.path.realpath(result.path)

        def new(kind: str, ds: tuple) -> tuple:
            return tuple(d for d in ds if self.first((kind, real, d.location.line, d.location.col, d.code,
                                                      d.violation.message)))
        return replace(result, diagnostics=new("found", result.diagnostics), remaining=new("left", result.remaining))
