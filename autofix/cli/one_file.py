"""One path of a run (the body of ``runner.run``'s loop): read it, check it (or take a ``-j`` worker's answer),
report it, write its fixes; and what the run keeps across paths to do that once per file (``Once``,
``Leftovers``).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from autofix import report
from autofix.cli import workers
from autofix.cli.config_files import on_disk
from autofix.cli.run_options import Checks, Mode, Output, Stdin
from autofix.cli.run_report import Report
from autofix.cli.triage import format_of, passed_over, unchecked
from autofix.common.diagnostics import Diagnostic, Location
from autofix.common.errors import ConfigError, InputError, InternalError, WriteError
from autofix.core.api import FixResult
from autofix.disk import files
from autofix.disk.backups import left_beside, left_note
from autofix.disk.encoding import decode
from autofix.disk.reads import ReadError, copy_stream, read_stdin
from autofix.report.stream import ReportStream

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter


class OneFile:
    """Check one path of a run (the body of ``runner.run``'s loop): read, check, report, write.

    ``rep`` is the run's report (its mode says what to do with the fixes), ``out`` and ``err`` its streams,
    ``output`` how it reports, ``checks`` what each file is checked with, ``stdin`` what ``-`` is; ``disk``
    reads and writes the files, ``once`` remembers what was reported (and which ``--config`` files a launch
    handled), ``shared`` are the real paths of the ``--config`` files several launches of the run read, and
    ``left`` names what autofix writes left next to a file.
    """

    def __init__(self, rep: Report, out: ReportStream, err: ReportStream, output: Output, checks: Checks,
                 stdin: Stdin, disk: files.FileSet, once: Once, shared: frozenset[str],
                 left: Leftovers | None = None) -> None:
        self.rep, self.out, self.err, self.output, self.checks, self.stdin = rep, out, err, output, checks, stdin
        self.disk, self.once, self.shared = disk, once, shared
        self.left = left if left is not None else Leftovers(err)
        self.configs = on_disk(disk.read_config, shared=shared, policy=checks.config_policy)
        self.stdin_data: bytes | None = None  # what stdin held, while it still has to be printed
        self.texts: dict[str, str] = {}  # machine formats: path -> text of the file being reported
        self.first_record = self.first_error = 0  # where the records and errors of that file start

    def shown(self, path: str) -> str:
        """The name ``path`` is reported by."""
        return (self.stdin.filename or "-") if path == "-" else path

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
        if data is None or self.rep.mode is not Mode.WRITE:
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
        text: str | None = None
        adapter: Adapter | None = None
        try:
            if path == "-":
                self.stdin_data = self._read_stdin()
                text = decode(self.stdin_data, shown)
            else:
                text = self.disk.read(path, named=named)
            adapter = format_of(path, shown, text, named, self.stdin.format)
            if adapter is None:
                self.pass_through()
                return None
            result = self.checks.of(shown).fix(text, adapter, shown, configs=None if path == "-" else self.configs,
                                               fix_edits=self.output.machine)
        except ConfigError:
            raise  # the project's configuration, not this file: it stops the run
        except InputError as exc:
            said = unchecked(exc, path, shown, named, text, adapter, self.disk)
            if said is not None and said[0] == "error":
                self.failed(exc.path, exc.line, exc.col, exc.message)
                self.rep.errors += 1
            elif said is not None:
                err.line(said[1])
            self.pass_through()
            return None
        except InternalError as exc:
            self.failed(shown, 1, 1, f"internal error, nothing written: {exc} (please report this)")
            self.rep.errors += 1
            self.pass_through()
            return None
        return result

    def _read_stdin(self) -> bytes:
        try:
            return read_stdin(self.stdin.stream)
        except ReadError as exc:
            if self.rep.mode is Mode.WRITE:  # still a filter: what came in goes out
                copy_stream(exc.data, self.stdin.stream, self.out)
            raise

    def _report(self, path: str, result: FixResult) -> None:
        rep, once = self.rep, self.once
        self.first_record, self.first_error = len(rep.records), len(rep.error_records)
        self.texts.clear()
        for error in result.errors:  # --config files SGLang would refuse to read
            real = self.disk.real(error.path)
            self.once.through_launch.add(real)
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
            self.once.through_launch.add(real)
            self.left.beside(other.path, real)
        merged = bool(result.others)
        group = [(o, once.first(("diff", self.disk.real(o.path), o.source, o.output))) for o in result.others]
        group.append((result, True))
        if self.rep.mode is Mode.WRITE and path != "-":
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
        out, err, mode, output = self.out, self.err, self.rep.mode, self.output
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
                from autofix.common.diffs import unified_diff  # a clean run prints none: it never loads difflib

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


class Leftovers:
    """Names what autofix writes left next to the files of a run (``backups.left_note``: a warning on stderr),
    each once: what a walk finds (called with the file and what is next to it), a backup next to a file named
    on the command line or a ``--config`` file a launch read (``beside``: one ``lstat`` each)."""

    def __init__(self, err: ReportStream) -> None:
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


class Once:
    """What this run has already printed: a config file reached through several scripts is reported once; and
    which ``--config`` files a launch has handled (``through_launch``, real paths): not checked again on their
    own."""

    def __init__(self) -> None:
        self.seen: set[tuple[object, ...]] = set()
        self.through_launch: set[str] = set()

    def first(self, key: tuple[object, ...]) -> bool:
        """Whether ``key`` is new (and remember it)."""
        if key in self.seen:
            return False
        self.seen.add(key)
        return True

    def config(self, result: FixResult) -> FixResult:
        """``result`` (a ``--config`` file) without the diagnostics already reported for that file."""
        real = os.path.realpath(result.path)

        def new(kind: str, ds: tuple[Diagnostic, ...]) -> tuple[Diagnostic, ...]:
            return tuple(d for d in ds if self.first((kind, real, d.location.line, d.location.col, d.code,
                                                      d.violation.message)))
        return replace(result, diagnostics=new("found", result.diagnostics), remaining=new("left", result.remaining))
