"""The human formats: a diagnostic line (`full`, `concise`), its fixes, the closing summary."""

from __future__ import annotations

from autofix.api import FixResult
from autofix.model import Applicability, Diagnostic


_SEVERITY_COLOR = {"error": "red", "warning": "yellow"}
_DIFF_COLOR = {"+": "green", "-": "red", "@": "cyan"}


def _style(text: str, color: bool, **how) -> str:
    if not color:
        return text
    import click  # already loaded with typer; only asked for on a terminal

    return click.style(text, **how)


def diagnostic_line(d: Diagnostic, *, color: bool = False) -> str:
    """``path:line:col: severity: CODE [*] message`` (``[*]``: fixed by the requested mode); ``color``: ANSI
    colours for a terminal (the text is the same)."""
    mark = " [*]" if d.fixable else ""
    after = f" (appears once {', '.join(d.after)} {'is' if len(d.after) == 1 else 'are'} fixed)" if d.after else ""
    severity = d.violation.severity
    return (f"{_style(f'{d.path}:{d.location.line}:{d.location.col}:', color, bold=True)} "
            f"{_style(severity + ':', color, fg=_SEVERITY_COLOR[severity], bold=True)} "
            f"{_style(d.code, color, bold=True)}{_style(mark, color, fg='cyan')} {d.violation.message}{after}")


def colored_diff(diff: str, color: bool) -> str:
    """``diff`` (unified) with its added, removed and hunk lines coloured when ``color``."""
    if not color or not diff:
        return diff
    out = []
    for line in diff.splitlines(keepends=True):
        head = line[:1] if not line.startswith(("+++", "---")) else ""
        out.append(_style(line.rstrip("\n"), True, fg=_DIFF_COLOR[head]) + "\n" if head in _DIFF_COLOR
                   else _style(line.rstrip("\n"), True, bold=True) + "\n" if line.startswith(("+++", "---"))
                   else line)
    return "".join(out)


def fix_lines(d: Diagnostic, indent: str = "  ") -> list[str]:
    """The fixes a diagnostic offers, best first, with their safety."""
    names = {Applicability.SAFE: "fix", Applicability.UNSAFE: "unsafe fix"}
    return [f"{indent}{names.get(f.applicability, 'display-only fix')}: {f.title}" for f in d.violation.fixes]


def statistics(results: list[FixResult], *, write: bool, machine: bool = False) -> str:
    """One line per rule, most frequent first (ruff's ``--statistics``): count, code, ``[*]`` when the requested
    mode fixes every one, name; a JSON array of the same with ``machine``. ``write``: count what remains."""
    import json

    counts: dict[str, list] = {}
    for r in results:
        for d in (r.remaining if write else [d for d in r.diagnostics if not d.after]):
            entry = counts.setdefault(d.code, [0, 0, d.violation.name, d.violation.severity])
            entry[0] += 1
            entry[1] += d.fixable
    rows = sorted(counts.items(), key=lambda kv: (-kv[1][0], kv[0]))
    if machine:
        return json.dumps([{"code": code, "name": name, "severity": sev, "count": n, "fixable": fixable}
                           for code, (n, fixable, name, sev) in rows], indent=2) + "\n"
    width = max((len(str(n)) for _, (n, *_r) in rows), default=1)
    return "".join(f"{n:>{width}}\t{code}\t{'[*]' if fixable == n else '[ ]'}\t{name}\n"
                   for code, (n, fixable, name, _sev) in rows)


def fixed_in(result: FixResult) -> list[Diagnostic]:
    """The violations the written text of ``result`` (and of its ``--config`` files) fixed.

    A config file's violation can be fixed on the command line that reads it
    (a file several launches share is left alone): it counts for the script.
    """
    group = [result, *result.others]
    if not any(r.changed for r in group):
        return []
    return [d for r in group for d in r.diagnostics if d.fixable]


def summary(results: list[FixResult], *, write: bool, unsafe: bool, errors: int, unwritten: int = 0) -> str:
    """One closing line, ruff-style: found, fixed, remaining, hidden unsafe fixes, failures.

    ``results`` holds each checked text once (a script's ``--config`` files
    are listed in it too, and counted through the script's ``others``); a
    text whose fix was not written is in it unchanged (``runner.unwritten``),
    so only what was written counts as fixed. ``errors`` counts the inputs
    that could not be checked, ``unwritten`` the files whose fixes could not
    be written.
    """
    found = sum(r.found for r in results)
    remaining = sum(len(r.remaining) for r in results)
    # held back only because it is unsafe (not a rule the project marks unfixable): --unsafe-fixes would apply it
    hidden = 0 if unsafe else sum(1 for r in results for d in r.remaining if d.fix_available and not d.fixable
                                  and any(f.applicability == Applicability.UNSAFE for f in d.violation.fixes))
    files = sum(1 for r in results if r.changed)
    parts = []
    if not found and not remaining:
        parts.append("No violations found." if errors or unwritten else "All checks passed!")
    elif write:
        inside = {id(o) for r in results for o in r.others}
        fixed = [d for r in results if id(r) not in inside for d in fixed_in(r)]
        later = sum(1 for d in fixed if d.after)
        uncovered = f" ({later} appeared once another was fixed)" if later else ""
        parts.append(f"Found {found} violation{'s' * (found != 1)}. Fixed {len(fixed)}{uncovered} "
                     f"in {files} file{'s' * (files != 1)}; {remaining} remaining.")
    else:
        fixable = sum(1 for r in results for d in r.diagnostics if d.fixable and not d.after)
        later = sum(1 for r in results for d in r.diagnostics if d.after)
        also = f" ({later} more appear{'s' * (later == 1)} once another is fixed)" if later else ""
        parts.append(f"Found {found} violation{'s' * (found != 1)}{also}.")
        if fixable:
            how = "--write --unsafe-fixes" if unsafe else "--write"
            parts.append(f"[*] {fixable} fixable with {how}.")
    if hidden:
        parts.append(f"{hidden} more fixable with --unsafe-fixes.")
    if errors:
        parts.append(f"{errors} file{'s' * (errors != 1)} could not be checked.")
    if unwritten:
        parts.append(f"{unwritten} file{'s' * (unwritten != 1)} could not be written.")
    return " ".join(parts)
