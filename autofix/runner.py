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
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TextIO

from autofix import files, report
from autofix.api import FixResult, config_files, fix_source
from autofix.edits import unified_diff
from autofix.errors import InputError, InternalError
from autofix.formats import LAUNCH, by_name, detect
from autofix.schema import DEFAULT_VERSION, load


class Mode(enum.Enum):
    """What to do with the fixes, decided once from the flags."""

    DIFF = "diff"  # report, print the diff --write would apply (the default)
    WRITE = "write"  # apply the fixes in place (stdin: print the fixed text)

    @classmethod
    def from_flags(cls, *, write: bool) -> Mode:
        """The mode the command-line flags ask for."""
        return cls.WRITE if write else cls.DIFF


@dataclass(slots=True)
class Report:
    """Counters of one run.

    Exit code: 2 if any input could not be checked; otherwise, in DIFF mode 1
    when a violation was found, in WRITE mode 1 when a violation remains
    after fixing; else 0.
    """

    mode: Mode
    results: list[FixResult] = field(default_factory=list)
    errors: int = 0

    @property
    def exit_code(self) -> int:
        """0, 1 or 2, as the class docstring says."""
        if self.errors:
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
) -> Report:
    """Check (and, in WRITE mode, fix) every path; write reports to ``out``/``err``.

    Files that are not YAML (scripts, Dockerfiles) are checked first, then
    YAML files, each group in the order given (directories walked in sorted
    order): a ``--config`` file a launch reads is then checked merged with
    that launch's flags and not again on its own, whatever the order of the
    paths. A walked file that launches SGLang but cannot be read gets a
    note on stderr; a named one is an error (exit 2).

    Parsable lines and diffs go to ``out``; status and error lines to
    ``err``. For stdin, ``out`` carries only the diff or the fixed text.
    ``target_version`` picks the SGLang argument table to check against.
    """
    rep = Report(mode)
    schema = load(target_version)
    through_launch: set[str] = set()  # real paths of config files a launch has handled
    # scripts before YAML: a --config file is then checked through the launches that read it
    # (merged with their flags) before a walk reaches it alone, whatever the order of the paths
    items = list(files.expand(paths))
    ordered = [i for i in items if not files.is_yaml(i[0])] + [i for i in items if files.is_yaml(i[0])]
    shared = _shared_configs([p for p, _ in ordered if not files.is_yaml(p)], schema)
    once = _Once()
    for path, named in ordered:
        shown = (stdin_filename or "-") if path == "-" else path
        if path != "-" and os.path.realpath(path) in through_launch:
            continue
        text = ""
        try:
            text = files.read_text(path)
            fmt = by_name(stdin_format) if (path == "-" and stdin_format) else detect(shown, text)
            if fmt is None:
                # a shell script that launches no SGLang is fine (pre-commit passes every *.sh)
                if named and not files.launcher_kind(shown):
                    raise InputError(shown, 0, 0, "not an SGLang config (.yaml/.yml) and runs no SGLang launch")
                continue
            result = fix_source(text, fmt, path=shown, unsafe=unsafe, schema=schema,
                                read_config=None if path == "-" else files.read_if_file, shared_configs=shared)
        except InputError as exc:
            if named:
                err.write(f"{exc}\n")
                rep.errors += 1
            elif LAUNCH.search(text):  # a walked file that launches SGLang but cannot be read: say so
                err.write(f"{exc} (skipped)\n")
            continue
        except InternalError as exc:
            err.write(f"{shown}:0:0: error: internal error, nothing written: {exc} (please report this)\n")
            rep.errors += 1
            continue
        if not result.is_config:  # YAML that is neither a config nor launches SGLang: no false alarms
            if named:
                why = "no SGLang launch, and most keys are not SGLang options" if result.format == "yaml" \
                    else "no SGLang launch found"
                err.write(f"{shown}: skipped: {why}\n")
            continue
        for error in result.errors:  # --config files SGLang would refuse to read
            through_launch.add(os.path.realpath(error.path))
            if once.first(("error", os.path.realpath(error.path))):  # one error per file, whoever reads it
                err.write(f"{error}\n")
                rep.errors += 1
        result = replace(result, others=tuple(once.config(o) for o in result.others))
        for other in result.others:  # the --config files first: the script is written once they are
            through_launch.add(os.path.realpath(other.path))
            rep.results.append(other)
            show_diff = once.first(("diff", os.path.realpath(other.path), other.source, other.output))
            try:
                _emit(other, False, mode, out, err, show_fixes, merged=True, show_diff=show_diff)
            except BrokenPipeError:
                raise
            except OSError as exc:
                err.write(f"{other.path}:0:0: error: cannot write: {exc.strerror or exc}; the file is unchanged\n")
                rep.errors += 1
        rep.results.append(result)
        try:
            _emit(result, path == "-", mode, out, err, show_fixes, merged=bool(result.others))
        except BrokenPipeError:
            raise
        except OSError as exc:
            err.write(f"{shown}:0:0: error: cannot write: {exc.strerror or exc}; the file is unchanged\n")
            rep.errors += 1
    err.write(report.summary(rep.results, write=mode is Mode.WRITE, unsafe=unsafe, errors=rep.errors) + "\n")
    return rep


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
        except (InputError, InternalError):  # reported when the script is checked
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


def _emit(result: FixResult, stdin: bool, mode: Mode, out: TextIO, err: TextIO, show_fixes: bool,
          merged: bool = False, show_diff: bool = True) -> None:
    """Print one result's diagnostics and diff, or write it. ``merged``: a script or config of a merged launch;
    ``show_diff``: False when the same diff was already printed."""
    lines_to = err if stdin else out
    shown = result.remaining if mode is Mode.WRITE else result.diagnostics
    for d in shown:
        lines_to.write(report.diagnostic_line(d) + "\n")
        if show_fixes:
            lines_to.write("".join(line + "\n" for line in report.fix_lines(d)))
    err.writelines(f"{c}\n" for c in result.conflicts)
    if mode is Mode.DIFF:
        if result.changed and show_diff:
            out.write(unified_diff(result.source, result.output, result.path))
        return
    if stdin:
        out.write(result.output)
    elif result.changed:
        files.write_atomic(result.path, result.output)
        if merged:  # a fix may land in the script for a violation reported in its --config file
            err.write(f"Fixed {result.path}\n")
        else:
            fixed = sum(1 for d in result.diagnostics if d.fixable)
            err.write(f"Fixed {fixed} violation{'s' * (fixed != 1)} in {result.path}\n")
