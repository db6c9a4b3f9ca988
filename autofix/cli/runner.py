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

import itertools
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import replace
from types import ModuleType
from typing import TextIO

from autofix import report
from autofix.cli import config_files, workers
from autofix.cli.inputs import Inputs
from autofix.cli.one_file import Leftovers, Once, OneFile
from autofix.cli.run_options import Checks, Exits, FileOptions, Mode, Output, Stdin
from autofix.cli.run_report import Report
from autofix.common.errors import ConfigError, OutputError
from autofix.common.escapes import visible
from autofix.disk import files
from autofix.disk.paths import plain, repository_root
from autofix.disk.scope import Scope
from autofix.report.stream import ReportStream
from autofix.schema import load

__all__ = ["Checks", "Exits", "FileOptions", "Mode", "Output", "Report", "Stdin", "run"]

PROGRESS_FROM = 50  # files: a shorter run finishes before a bar is worth reading
_CHECKS, _OUTPUT, _STDIN, _EXITS = Checks(), Output(), Stdin(), Exits()


def run(paths: list[str], mode: Mode, *, out: TextIO, err: TextIO, checks: Checks = _CHECKS,
        output: Output = _OUTPUT, stdin: Stdin = _STDIN, exits: Exits = _EXITS, jobs: int = 1) -> Report:
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
    strings mention; named, it is skipped with a note (``autofix.cli.triage``).

    What is read, and so what can be written, stays in the project
    (``scope.Scope``: the repository holding the working directory, else
    that directory, after resolving symlinks) and what ``paths`` name: a
    walked symlink to a file outside is not read (a note on stderr), nor is
    a ``--config`` file outside, excluded (``checks.excluded``), or inside the
    container its launch runs in (the launch is checked with the settings not
    on its command line unknown, and a note on stderr says why, once per file).

    Each file is checked inside one guard: whatever goes wrong with it (an
    ``InternalError``, or any exception, a ``MemoryError`` or
    ``RecursionError`` included) is an error line for that file (exit 2), the
    run goes on with the next, and no traceback is printed unless
    ``output.verbose``; a report that cannot be written (stdout closed or on a full
    disk) raises ``OutputError`` at once. A fix is written only if the file is still what was read
    (``files.FileSet``); the summary counts only what was written.

    ``output`` says how to report (default: the ``full`` format). The human formats print parsable lines and
    diffs on ``out`` as each file is done, status and error lines on ``err``; a machine format prints one
    document on ``out`` at the end (errors are in it too, and on ``err``). For stdin, ``out`` carries only the
    diff or, in WRITE mode, always the whole text: fixed, or as it came when there is nothing to fix or it
    could not be checked; ``stdin`` says what ``-`` reads. ``checks`` says what each file is checked with
    (policy, fix level, SGLang release, hardware: ``checks.of(path)``; default: the safe fixes, 0.5.23, no
    hardware known, and the checks that need it stay silent) and which files are left out; ``exits`` what
    else decides the exit code (``Report.exit_code``).

    ``jobs`` above 1 checks the files in that many worker processes when the
    run has at least ``workers.PARALLEL_FROM`` of them (``autofix.cli.workers``);
    what is printed and written, and in what order, is the same as with 1.
    """
    raw_err = err
    # the github format guards its own log lines: its annotations must stay commands
    report_out = ReportStream(out, "stdout", guard=output.actions and not output.machine)
    report_err = ReportStream(err, "stderr", guard=output.actions)
    run_wide = checks.run_wide
    rep = Report(mode, exits)
    scope = Scope(paths)
    disk = files.FileSet(writes=mode is Mode.WRITE, scope=scope, excluded=checks.excluded)
    once = Once()
    # scripts first, each file once; the YAML files are walked, not listed (autofix.cli.inputs)
    left = Leftovers(report_err)
    inputs = Inputs(paths, note=report_err.line, excluded=checks.excluded, left=left, scope=scope)
    shared = config_files.shared(inputs.scripts, load(run_wide.target_version), scope)
    one_file = OneFile(rep, report_out, report_err, output, checks, stdin, disk, once, shared, left)
    count = inputs.count if jobs > 1 or output.progress else 0  # asked only if used: it may cost a walk
    ordered, for_workers = itertools.tee(inputs) if jobs > 1 and count >= workers.PARALLEL_FROM \
        else (iter(inputs), None)  # the workers take the files of the same walk, a few chunks ahead
    ready = _ready(for_workers, count, jobs, checks, shared, output, report_out, report_err, scope)
    try:
        for path, named in _progress(ordered, count, output, raw_err):
            answer = next(ready)
            if path != "-" and once.through_launch and disk.real(path) in once.through_launch:
                continue
            _guarded(one_file, path, named, answer, rep, output.verbose)
            disk.done()  # what it read is not needed again: the run's memory stays flat in its files
    finally:
        if hasattr(ready, "close"):  # stop the workers now, on an error or Ctrl-C too
            ready.close()
    if output.statistics:
        report_out.write(report.statistics(rep.tally, write=mode is Mode.WRITE, machine=output.machine))
    elif output.machine:
        _render(rep, output.format, run_wide.target_version, report_out)
    report_err.line(report.summary(rep.tally, write=mode is Mode.WRITE, unsafe=run_wide.unsafe, errors=rep.errors,
                                   unwritten=rep.unwritten))
    report_out.flush()  # a full disk shows here, as one error, not at exit
    report_err.flush()
    return rep


def _guarded(one_file: OneFile, path: str, named: bool, answer: workers.Ready | None, rep: Report,
             verbose: bool) -> None:
    """``one_file(path, named, answer)`` inside the run's guard: whatever goes wrong with the file is its error
    line (exit 2), with the traceback when ``verbose``; the report's own failures stop the run."""
    try:
        one_file(path, named, answer)
    except (BrokenPipeError, OutputError, ConfigError):
        raise
    except Exception as exc:  # noqa: BLE001 - the guard: one file never stops the run
        what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        how = "" if verbose else "; --verbose shows the traceback"
        rep.errors += 1
        one_file.failed(one_file.shown(path), 1, 1, f"internal error, nothing written: {what[:300]} "
                        f"(please report this{how})")
        if verbose:
            import traceback

            for line in traceback.format_exc().splitlines():
                one_file.err.line(line)
        one_file.pass_through()


def _ready(items: Iterator[tuple[str, bool]] | None, count: int, jobs: int, checks: Checks, shared: frozenset[str],
           output: Output, out: ReportStream, err: ReportStream, scope: Scope) -> Iterator[workers.Ready | None]:
    """A worker's answer (``workers.Ready``) or None for each of ``items`` (``count`` of them), in order: all
    None in-process (``items`` None). The workers may read what the run may (``workers.Bounds``)."""
    if items is None:
        return itertools.repeat(None)

    def flush() -> None:  # a forked worker must hold no unwritten output of ours (it flushes at exit)
        for stream in (out, err, sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()

    bounds = workers.Bounds(scope, checks.excluded, checks.config_policy)
    return workers.results(items, count, jobs, checks.of, shared=shared, fix_edits=output.machine,
                            before_start=flush, bounds=bounds)


def _progress(items: Iterable[tuple[str, bool]], count: int, output: Output,
              stream: TextIO) -> Iterable[tuple[str, bool]]:
    """``items`` (``count`` of them), with a progress bar on ``stream`` when ``output`` asks for one and the run is
    long."""
    if not output.progress or count < PROGRESS_FROM:
        return items
    import click

    return _ProgressItems(items, count, click, stream)


class _ProgressItems:
    """Iterate ``items`` inside click's progress bar (cleared when done)."""

    def __init__(self, items: Iterable[tuple[str, bool]], count: int, click: ModuleType, stream: TextIO) -> None:
        self.items, self.count, self.click, self.stream = items, count, click, stream

    def __iter__(self) -> Iterator[tuple[str, bool]]:
        with self.click.progressbar(self.items, length=self.count, label="autofix", file=self.stream, show_pos=True,
                                    item_show_func=lambda item: visible(item[0]) if item else None) as bar:
            yield from bar


def _render(rep: Report, output_format: str, target_version: str, out: ReportStream) -> None:
    """Print the machine format ``output_format``'s document of ``rep``; keep the github format's step summary.

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

    dotted = any(".." in p for p in rep.sources) or any(".." in r.path for r in rep.records) or \
        any(".." in e.path for e in rep.error_records)
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
    module = report.machine(output_format)
    out.write(module.render(records, ctx))
    if hasattr(module, "step_summary"):
        rep.step_summary = module.step_summary(records, ctx)
