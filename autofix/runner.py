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
script reaches it first (``fix_source``'s ``shared_configs``); a launch
outside the run is not known. A config file reached through several scripts
is reported once per run: each of its diagnostics (real path, line, column,
code, message) and its diff are printed and counted once, and so is the
error of a config file SGLang would refuse to read (``FixResult.errors``:
exit 2; the file is not checked again on its own either).
"""

from __future__ import annotations

import enum
import os
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import BinaryIO, TextIO

from autofix import files, report
from autofix.api import FixResult, config_files, fix_source
from autofix.edits import unified_diff
from autofix.errors import InputError, InternalError, OutputError, WriteError
from autofix.formats import DOCKERFILE, LAUNCH, by_name, detect
from autofix.pipeline.facts import NO_FACTS, Facts
from autofix.schema import DEFAULT_VERSION, load


class Mode(enum.Enum):
    """What to do with the fixes, decided once from the flags."""

    DIFF = "diff"  # report, print the diff --write would apply (the default)
    WRITE = "write"  # apply the fixes in place (stdin: print the fixed text)

    @classmethod
    def from_flags(cls, *, write: bool) -> Mode:
        """The mode the command-line flags ask for."""
        return cls.WRITE if write else cls.DIFF


class _Output:
    """A stream whose write failures stop the run with one ``OutputError`` (not one error per file)."""

    def __init__(self, stream, name: str) -> None:
        self._stream, self._name = stream, name

    def _call(self, method: str, *args):
        if self._stream is None:
            raise OutputError(f"cannot write to {self._name}: it is closed")
        try:
            return getattr(self._stream, method)(*args)
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:  # ENOSPC, EIO; ValueError: "I/O operation on closed file"
            raise OutputError(f"cannot write to {self._name}: {getattr(exc, 'strerror', None) or exc}") from None

    def write(self, text):
        return self._call("write", text)

    def writelines(self, lines) -> None:
        self._call("writelines", lines)

    def flush(self) -> None:
        self._call("flush")

    @property
    def buffer(self) -> _Output:
        return _Output(getattr(self._stream, "buffer", None), self._name)


@dataclass(slots=True)
class Report:
    """Counters of one run.

    Exit code: 2 if any input could not be checked or any fix could not be
    written; otherwise, in DIFF mode 1
    when a violation was found, in WRITE mode 1 when a violation remains
    after fixing; else 0.
    """

    mode: Mode
    results: list[FixResult] = field(default_factory=list)
    errors: int = 0  # inputs that could not be checked
    unwritten: int = 0  # files whose fixes could not be written

    @property
    def exit_code(self) -> int:
        """0, 1 or 2, as the class docstring says."""
        if self.errors or self.unwritten:
            return 2
        if self.mode is Mode.WRITE:
            return 1 if any(r.remaining for r in self.results) else 0
        return 1 if any(r.found for r in self.results) else 0


def run(
    paths: list[str],
    mode: Mode,
    *,
    unsafe: bool,
    out: TextIO,
    err: TextIO,
    stdin_filename: str | None = None,
    stdin_format: str | None = None,
    show_fixes: bool = False,
    target_version: str = DEFAULT_VERSION,
    verbose: bool = False,
    stdin: BinaryIO | None = None,
    facts: Facts = NO_FACTS,
) -> Report:
    """Check (and, in WRITE mode, fix) every path; write reports to ``out``/``err``.

    Files that are not YAML (scripts, Dockerfiles) are checked first, then
    YAML files, each group in the order given (directories walked in sorted
    order): a ``--config`` file a launch reads is then checked merged with
    that launch's flags and not again on its own, whatever the order of the
    paths. A walked file that cannot be read, or that launches SGLang but
    cannot be parsed, gets a note on stderr; a named one is an error (exit 2).

    Each file is checked inside one guard: whatever goes wrong with it (an
    ``InternalError``, or any exception, a ``MemoryError`` or
    ``RecursionError`` included) is an error line for that file (exit 2), the
    run goes on with the next, and no traceback is printed unless
    ``verbose``; a report that cannot be written (stdout closed or on a full
    disk) raises ``OutputError`` at once. A fix is written only if the file is still what was read
    (``files.FileSet``); the summary counts only what was written.

    Parsable lines and diffs go to ``out``; status and error lines to
    ``err``. For stdin, ``out`` carries only the diff or, in WRITE mode,
    always the whole text: fixed, or as it came when there is nothing to fix
    or it could not be checked. ``stdin`` is the stream ``-`` reads (default:
    the process's). ``target_version`` picks the SGLang argument table to
    check against; ``facts`` are the hardware every launch of every file runs on (``--gpu``; default:
    none known, and the checks that need it stay silent).
    """
    out, err = _Output(out, "stdout"), _Output(err, "stderr")
    rep = Report(mode)
    schema = load(target_version)
    disk = files.FileSet()
    through_launch: set[str] = set()  # real paths of config files a launch has handled
    # scripts before YAML: a --config file is then checked through the launches that read it
    # (merged with their flags) before a walk reaches it alone, whatever the order of the paths
    items = list(files.expand(paths, note=lambda line: err.write(line + "\n")))
    ordered = [i for i in items if not files.is_yaml(i[0])] + [i for i in items if files.is_yaml(i[0])]
    ordered = _once_each(ordered, disk.real)
    shared = _shared_configs([p for p, _ in ordered if not files.is_yaml(p)], schema)
    once = _Once()
    run_one = _One(rep, mode, schema, disk, once, through_launch, shared, out, err, unsafe=unsafe,
                   show_fixes=show_fixes, stdin_filename=stdin_filename, stdin_format=stdin_format, stdin=stdin,
                   facts=facts)
    for path, named in ordered:
        if path != "-" and disk.real(path) in through_launch:
            continue
        try:
            run_one(path, named)
        except (BrokenPipeError, OutputError):
            raise
        except Exception as exc:  # noqa: BLE001 - the guard: one file never stops the run
            rep.errors += 1
            what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            how = "" if verbose else "; --verbose shows the traceback"
            err.write(f"{run_one.shown(path)}:1:1: error: internal error, nothing written: {what[:300]} "
                      f"(please report this{how})\n")
            if verbose:
                traceback.print_exc(file=err)
            run_one.pass_through()
    err.write(report.summary(rep.results, write=mode is Mode.WRITE, unsafe=unsafe, errors=rep.errors,
                             unwritten=rep.unwritten) + "\n")
    out.flush()  # a full disk shows here, as one error, not at exit
    err.flush()
    return rep


class _One:
    """Check one path of a run (the body of ``run``'s loop): read, check, report, write."""

    def __init__(self, rep: Report, mode: Mode, schema, disk: files.FileSet, once: _Once, through_launch: set[str],
                 shared: frozenset[str], out: TextIO, err: TextIO, *, unsafe: bool, show_fixes: bool,
                 stdin_filename: str | None, stdin_format: str | None, stdin: BinaryIO | None,
                 facts: Facts = NO_FACTS) -> None:
        self.rep, self.mode, self.schema, self.disk, self.once = rep, mode, schema, disk, once
        self.facts = facts
        self.through_launch, self.shared, self.out, self.err = through_launch, shared, out, err
        self.unsafe, self.show_fixes = unsafe, show_fixes
        self.stdin_filename, self.stdin_format, self.stdin = stdin_filename, stdin_format, stdin
        self.stdin_data: bytes | None = None  # what stdin held, while it still has to be printed

    def shown(self, path: str) -> str:
        """The name ``path`` is reported by."""
        return (self.stdin_filename or "-") if path == "-" else path

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
            self.out.write(data.decode("utf-8", "replace"))

    def __call__(self, path: str, named: bool) -> None:
        err, shown = self.err, self.shown(path)
        text = None
        try:
            if path == "-":
                self.stdin_data = self._read_stdin()
                text = files.decode(self.stdin_data, shown)
            else:
                text = self.disk.read(path)
            if path == "-" and self.stdin_format:
                fmt = by_name(self.stdin_format)
            else:
                fmt = detect(shown, text)
            if fmt is None:
                # a shell script or Dockerfile that launches no SGLang is fine (pre-commit passes every *.sh)
                launcher = files.launcher_kind(shown) or (path == "-" and DOCKERFILE.match(text) is not None)
                if named and not launcher:
                    raise InputError(shown, 1, 1, "not an SGLang config (.yaml/.yml) and runs no SGLang launch")
                self.pass_through()
                return
            result = fix_source(text, fmt, path=shown, unsafe=self.unsafe, schema=self.schema,
                                read_config=None if path == "-" else self.disk.read_config,
                                shared_configs=self.shared, facts=self.facts)
        except InputError as exc:
            if named:
                err.write(f"{exc}\n")
                self.rep.errors += 1
            elif isinstance(exc, files.ReadError) or text is None and path != "-" and _launches_bytes(path):
                err.write(_skipped(exc))  # a walked file we cannot read: say so
            elif text is not None and LAUNCH.search(text):  # it launches SGLang but cannot be parsed
                err.write(_skipped(exc))
            self.pass_through()
            return
        except InternalError as exc:
            err.write(f"{shown}:1:1: error: internal error, nothing written: {exc} (please report this)\n")
            self.rep.errors += 1
            self.pass_through()
            return
        if not result.is_config:  # YAML that is neither a config nor launches SGLang: no false alarms
            if named:
                why = "no SGLang launch, and most keys are not SGLang options" if result.format == "yaml" \
                    else "no SGLang launch found"
                err.write(f"{shown}: skipped: {why}\n")
            self.pass_through()
            return
        self._report(path, result)

    def _read_stdin(self) -> bytes:
        try:
            return files.read_stdin(self.stdin)
        except files.ReadError as exc:
            if self.mode is Mode.WRITE:  # still a filter: what came in goes out
                files.copy_stream(exc.data, self.stdin, self.out)
            raise

    def _report(self, path: str, result: FixResult) -> None:
        rep, once, err = self.rep, self.once, self.err
        for error in result.errors:  # --config files SGLang would refuse to read
            real = self.disk.real(error.path)
            self.through_launch.add(real)
            if once.first(("error", real)):  # one error per file, whoever reads it
                err.write(f"{error}\n")
                rep.errors += 1
        result = replace(result, others=tuple(once.config(o) for o in result.others))
        for other in result.others:
            self.through_launch.add(self.disk.real(other.path))
        merged = bool(result.others)
        group = [(o, once.first(("diff", self.disk.real(o.path), o.source, o.output))) for o in result.others]
        group.append((result, True))
        if self.mode is Mode.WRITE and path != "-":
            group = self._write(group)
        for r, show_diff in group:  # the --config files first: the script is written once they are
            rep.results.append(r)
            self._emit(r, path == "-" and r is group[-1][0], merged, show_diff)
        self.stdin_data = None

    def _write(self, group: list[tuple[FixResult, bool]]) -> list[tuple[FixResult, bool]]:
        """Write every changed text of ``group`` (a script and its ``--config`` files), all or none.

        Each file is checked first (unchanged since read, writable); if one
        write then fails, those already written are put back. A text not
        written is returned as unchanged (its violations remain).
        """
        changed = [r for r, _ in group if r.changed]
        try:
            for r in changed:
                self.disk.check(r.path)
        except WriteError as exc:
            return self._not_written(group, exc)
        done: list[FixResult] = []
        for r in changed:
            try:
                self.disk.write(r.path, r.output)
            except WriteError as exc:
                for back in reversed(done):
                    try:
                        self.disk.write(back.path, back.source)
                    except WriteError as again:
                        self.err.write(f"{again.path}:1:1: error: written, but its launch's other file could not "
                                       f"be, and putting it back failed: {again.message}\n")
                        self.rep.unwritten += 1
                return self._not_written(group, exc)
            done.append(r)
        return group

    def _not_written(self, group: list[tuple[FixResult, bool]], exc: WriteError) -> list[tuple[FixResult, bool]]:
        """``group`` as it stands on disk after ``exc``: nothing written (the script still holds its configs)."""
        self.err.write(f"{exc}\n")
        self.rep.unwritten += 1
        others = [(unwritten(o), show) for o, show in group[:-1]]
        script, show = group[-1]
        return [*others, (replace(unwritten(script), others=tuple(o for o, _ in others)), show)]

    def _emit(self, result: FixResult, stdin: bool, merged: bool, show_diff: bool) -> None:
        """Print one result's diagnostics and diff (or, for stdin in WRITE mode, the fixed text).

        ``merged``: a script or config of a merged launch; ``show_diff``:
        False when the same diff was already printed.
        """
        out, err, mode = self.out, self.err, self.mode
        lines_to = err if stdin else out
        shown = result.remaining if mode is Mode.WRITE else result.diagnostics
        for d in shown:
            lines_to.write(report.diagnostic_line(d) + "\n")
            if self.show_fixes:
                lines_to.write("".join(line + "\n" for line in report.fix_lines(d)))
        err.writelines(f"{c}\n" for c in result.conflicts)
        if mode is Mode.DIFF:
            if result.changed and show_diff:
                out.write(unified_diff(result.source, result.output, result.path, result.changes))
            return
        if stdin:
            out.write(result.output)
        elif result.changed:
            if merged:  # a fix may land in the script for a violation reported in its --config file
                err.write(f"Fixed {result.path}\n")
            else:
                fixed = sum(1 for d in result.diagnostics if d.fixable)
                err.write(f"Fixed {fixed} violation{'s' * (fixed != 1)} in {result.path}\n")


def _once_each(items: list[tuple[str, bool]], real: Callable[[str], str]) -> list[tuple[str, bool]]:
    """Each file once, under the first name it was given by (``a.yaml ./a.yaml``, a symlink to it); ``real``
    gives a path's real path."""
    seen: dict[str, int] = {}
    out: list[tuple[str, bool]] = []
    for path, named in items:
        real_path = path if path == "-" else real(path)
        if real_path in seen:
            if named:  # named again: it stays a named file (its errors are errors)
                out[seen[real_path]] = (out[seen[real_path]][0], True)
            continue
        seen[real_path] = len(out)
        out.append((path, named))
    return out


def unwritten(result: FixResult) -> FixResult:
    """``result`` as it stands when its fixed text was not written: unchanged, every violation remaining."""
    if not result.changed:
        return result
    return replace(result, output=result.source, changes=(),
                   remaining=tuple(d for d in result.diagnostics if not d.after))


def _skipped(exc: InputError) -> str:
    """The note for a walked file that is skipped: a warning (it does not change the exit code)."""
    return f"{exc.path}:{exc.line}:{exc.col}: warning: {exc.message} (skipped)\n"


def _launches_bytes(path: str) -> bool:
    """Whether the (undecodable) file at ``path`` mentions an SGLang launch."""
    try:
        data = files.read_bytes(path)[0]
    except files.ReadError:
        return False
    return LAUNCH.search(data.decode("utf-8", "replace")) is not None


def _shared_configs(scripts: list[str], schema) -> frozenset[str]:
    """The real paths of the ``--config`` files more than one launch of ``scripts`` reads.

    Each script is counted once (by real path), read as it is now; one that
    cannot be read counts for nothing (it is reported when it is checked).
    """
    count: Counter[str] = Counter()
    seen: set[str] = set()
    for path in scripts:
        if path == "-" or os.path.realpath(path) in seen:
            continue
        seen.add(os.path.realpath(path))
        try:
            text = files.read_text(path)
            fmt = detect(path, text)
            if fmt is None or "config" not in text:  # no --config word (cheap: most scripts)
                continue
            count.update(os.path.realpath(c) for c in config_files(text, fmt, path=path, schema=schema))
        except Exception:  # noqa: BLE001 - reported when the script is checked (in the guard)
            continue
    return frozenset(p for p, n in count.items() if n > 1)


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
