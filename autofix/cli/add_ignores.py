"""``autofix --add-ignores``: a suppression comment for every current finding (ruff's ``--add-noqa``).

For a team adopting autofix on a large repository: the findings of today are marked, in each file's own
comment syntax, so that CI reports only new ones. Where each comment goes:

* a settings file (a ``--config`` file, an srt-slurm recipe): at the end of the finding's line, or alone on
  the line above it when that line already ends in a comment;
* a launch written as a command (a shell command, a Dockerfile instruction, a container's command): alone on
  the line above the line the launch starts on (a command continued over several lines cannot hold a
  comment inside); failing that, at the end of the finding's line, or alone above it.

A line that already ends in a comment (a real one, where the format's reader sees it: a ``#`` in a quoted
value is none) gets one alone above it. Each comment is checked before it is kept: the file must read as the
same launches, and the findings it is for must be covered, which a marker does only in a real comment
(``autofix.common.suppressions``): none is left in a string or a heredoc's body. A place that fails is given up for
the next, and a finding no place can take is reported (exit 1). Files are written as ``--write`` writes
them (``files.FileSet``: atomically, only if unchanged since read).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from autofix.adapters.embedded import script_comments
from autofix.common.diagnostics import Diagnostic
from autofix.common.edits import line_col
from autofix.common.errors import ConfigError, InputError, WriteError
from autofix.core.api import FixOptions, fix_source
from autofix.disk import files
from autofix.disk.scope import Scope
from autofix.disk.walk import expand

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter
    from autofix.cli.run_options import Checks
    from autofix.core.api import FixResult
    from autofix.core.policy import Policy
    from autofix.pipeline.facts import Facts
    from autofix.report.stream import ReportStream
    from autofix.schema import Schema


def add_ignores(paths: list[str], *, checks: Checks, err: ReportStream, verbose: bool = False) -> int:
    """Add suppression comments for every finding in ``paths`` (files or directories; not stdin).

    ``checks.of(path)`` gives each file's ``FileOptions`` (its policy decides which rules count), and
    ``checks.excluded`` what a walk leaves out. The suppressions that cover nothing any more (SUP001) are
    removed first, so the comments afterwards are exactly today's findings. A file that cannot be checked is
    what it is in a check run (``triage.unchecked``: an error, a note, or passed over quietly), and so is one
    that is no SGLang config (``triage.format_of``, ``triage.passed_over``). Reports on ``err`` only, one line
    each (``ReportStream.line``). Returns the exit code: 0 when every finding got a comment, 1 when some could
    not, 2 when a file could not be checked or written. Raises ``ConfigError`` for a project configuration that cannot be used.
    """
    from dataclasses import replace

    from autofix.cli.triage import format_of, passed_over, unchecked
    from autofix.rules import RULES
    from autofix.schema import load

    others = cast("frozenset[str]", frozenset(r.code for r in RULES)) - {"SUP001"}  # (every rule has a code)
    disk = files.FileSet(scope=Scope(paths))  # a walked symlink to a file outside is not read nor written
    added = changed = left = failed = unwritten = 0
    for path, named in expand(paths, note=err.line, excluded=checks.excluded, scope=disk.scope):
        if path == "-":
            err.line("-:1:1: error: --add-ignores writes files: give paths, not stdin")
            failed += 1
            continue
        text: str | None = None
        adapter: Adapter | None = None
        try:
            text = disk.read(path, named=named)
            adapter = format_of(path, path, text, named)
            if adapter is None:
                continue
            opts = checks.of(path)
            schema = load(opts.target_version)

            def check(t: str, policy: Policy = opts.policy, adapter: Adapter = adapter, path: str = path,
                      schema: Schema = schema, facts: Facts = opts.facts) -> FixResult:
                return fix_source(t, adapter, path=path, options=FixOptions(schema=schema, facts=facts, policy=policy))

            # the unused suppressions removed: the file's own rules judge them, only SUP001's fix is applied
            first = check(text, replace(opts.policy, unfixable=others))
            if not first.is_config:  # YAML that is neither a config nor launches SGLang
                note = passed_over(first, path, named)
                if note is not None:
                    err.line(note)
                continue
            new = first.output
            findings = [d for d in check(new).diagnostics if not d.after and d.path == path
                        and not d.code.startswith("SUP")]
            new, missed = _suppress(new, adapter, path, schema, findings, check)
        except ConfigError:
            raise  # the project's configuration, not this file: it stops the run
        except InputError as exc:
            said = unchecked(exc, path, path, named, text, adapter, disk)
            if said is not None:
                err.line(said[1])
                failed += said[0] == "error"
            continue
        except Exception as exc:  # noqa: BLE001 - the guard, as a check run's: one file never stops the run
            what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            if verbose:
                import traceback

                for line in traceback.format_exc().splitlines():
                    err.line(line)
            err.line(f"{path}:1:1: error: internal error, nothing written: {what[:300]} (please report this"
                     f"{'' if verbose else '; --verbose shows the traceback'})")
            failed += 1
            continue
        for d in missed:
            err.line(f"{d.path}:{d.location.line}:{d.location.col}: warning: {d.code} could not be suppressed "
                     "here: no comment place keeps the launch as it is")
        left += len(missed)
        if new != text:
            try:
                disk.check(path)
                disk.write(path, new)
            except WriteError as exc:
                err.line(str(exc))
                unwritten += 1
                continue
            n = len(findings) - len(missed)
            added += n
            changed += 1
            err.line(f"Added suppressions for {n} finding{'s' * (n != 1)} in {path}")
    tail = [f"{left} could not be suppressed"] if left else []
    tail += [f"{n} file{'s' * (n != 1)} could not be {what}" for n, what in ((failed, "checked"),
                                                                            (unwritten, "written")) if n]
    err.line(f"Added suppressions for {added} finding{'s' * (added != 1)} in {changed} file{'s' * (changed != 1)}"
             f"{''.join(f'; {t}' for t in tail)}.")
    err.flush()
    return 2 if failed or unwritten else 1 if left else 0


def _suppress(text: str, adapter: Adapter, path: str, schema: Schema, findings: list[Diagnostic],
              check: Callable[[str], FixResult]) -> tuple[str, list[Diagnostic]]:
    """``text`` with a comment for every finding, and the findings no place could take.

    Findings are taken bottom up, one group (a line, or a command's launch) at a time, so that a comment
    moves only the lines below it, whose findings are already covered; each comment is kept only when the
    text still reads as the same launches and the group's findings, at their new lines, are gone.
    """
    command = adapter.SOURCE == "command"
    read = lambda t: [x.parsed.explicit for x in adapter.read(t, path, schema)]  # noqa: E731
    launches = adapter.read(text, path, schema)
    before = [x.parsed.explicit for x in launches]
    starts = sorted({launch.start.line for launch in launches}) if command else []
    # the lines that hold a comment; a line is edited only once its group is reached, bottom up, so the
    # lines of a group are still as they are in ``text``
    commented = {line_col(text, a)[0] for a, _ in [*adapter.comments(text, path), *script_comments(launches)]}
    groups: dict[tuple[str, int], list[Diagnostic]] = {}
    for d in findings:
        line = d.location.line
        if command:
            launch = max((s for s in starts if s <= line), default=line)
            groups.setdefault(("launch", launch), []).append(d)
        else:
            groups.setdefault(("line", line), []).append(d)
    known = {(d.code, d.violation.message, d.location.line) for d in findings}
    missed: list[Diagnostic] = []
    for (kind, line), ds in sorted(groups.items(), key=lambda kv: -kv[0][1]):  # bottom up: lines above stay put
        codes = tuple(dict.fromkeys(d.code for d in ds))
        places = [("above", line)] if kind == "launch" else []
        places += [("end", ds[0].location.line), ("above", ds[0].location.line)]
        for how, at in places:
            candidate = _commented(text, how, at, codes, commented)
            moved = 1 if how == "above" else 0  # the group's lines are at or below `at`
            if candidate is not None and _covers(check, read, candidate, before, known, ds, at, moved, path):
                text = candidate
                break
        else:
            missed.extend(ds)
    return text, missed


def _covers(check: Callable[[str], FixResult], read: Callable[[str], list[dict[str, Any]]], text: str,
            before: list[dict[str, Any]], known: set[tuple[str, str, int]],
            ds: list[Diagnostic], at: int, moved: int, path: str) -> bool:
    """Whether ``text`` still reads as the launches ``before`` and reports of the findings ``known``
    (code, message, line) all but ``ds``, and nothing else, where they now are (``moved`` lines further down
    from line ``at`` on): a comment that changed what the file says (one written inside a string, which
    a compose command string's shell then runs as its first word) changes a finding, and is refused."""
    try:
        if read(text) != before:
            return False
        result = check(text)
    except Exception:  # noqa: BLE001 - a comment that breaks the file is no place for it
        return False
    gone = {(d.code, d.violation.message, d.location.line) for d in ds}
    for d in result.diagnostics:
        if d.after or d.path != path:
            continue
        if d.code.startswith("SUP"):  # SUP001: the comment covers nothing; SUP002: it is not one
            return False
        line = d.location.line
        if at <= line < at + moved:  # a finding on the comment's own line: new
            return False
        key = (d.code, d.violation.message, line - moved if line >= at else line)
        if key in gone or key not in known:
            return False
    return True


def _commented(text: str, how: str, line: int, codes: tuple[str, ...], commented: set[int]) -> str | None:
    """``text`` with ``# autofix: ignore[codes]`` at the end of line ``line`` (``how == "end"``) or alone above
    it, in its indentation; None when that line cannot take one (it holds a comment, one of the lines
    ``commented``, or ends in a continuation)."""
    lines = text.splitlines(keepends=True)
    if not 1 <= line <= len(lines):
        return None
    body = lines[line - 1]
    content = body.rstrip("\r\n")
    ending = body[len(content):] or ("\r\n" if "\r\n" in text else "\n")
    comment = f"# autofix: ignore[{', '.join(codes)}]"
    if how == "end":
        if line in commented or content.rstrip().endswith("\\"):
            return None
        lines[line - 1] = content.rstrip() + "  " + comment + body[len(content):]
    else:
        indent = content[:len(content) - len(content.lstrip())]
        lines.insert(line - 1, indent + comment + ending)
    return "".join(lines)
