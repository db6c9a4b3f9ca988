"""The human formats: a diagnostic line (`full`, `concise`), its fixes, the closing summary (from a run's
``tally.Tally``)."""

from __future__ import annotations

from autofix.common.diagnostics import Applicability, Diagnostic
from autofix.common.escapes import visible
from autofix.report.tally import Tally

_SEVERITY_COLOR = {"error": "red", "warning": "yellow"}
_DIFF_COLOR = {"+": "green", "-": "red", "@": "cyan"}


def _style(text: str, color: bool, **how) -> str:
    if not color:
        return text
    import click  # already loaded with typer; only asked for on a terminal

    return click.style(text, **how)


def diagnostic_line(d: Diagnostic, *, color: bool = False) -> str:
    """``path:line:col: severity: CODE [*] message`` (``[*]``: fixed by the requested mode); ``color``: ANSI
    colours for a terminal (the text is the same). One line: a control character of the name or the message
    (a line break, an escape sequence) is shown as its escape (``escapes.visible``); the colours are autofix's."""
    mark = " [*]" if d.fixable else ""
    after = f" (appears once {', '.join(d.after)} {'is' if len(d.after) == 1 else 'are'} fixed)" if d.after else ""
    severity = d.violation.severity
    return (f"{_style(f'{visible(d.path)}:{d.location.line}:{d.location.col}:', color, bold=True)} "
            f"{_style(severity + ':', color, fg=_SEVERITY_COLOR[severity], bold=True)} "
            f"{_style(d.code, color, bold=True)}{_style(mark, color, fg='cyan')} {visible(d.violation.message)}"
            f"{after}")


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


def statistics(tally: Tally, *, write: bool, machine: bool = False) -> str:
    """One line per rule, most frequent first (ruff's ``--statistics``): count, code, ``[*]`` when the requested
    mode fixes every one, name; a JSON array of the same with ``machine``. ``write``: count what remains."""
    import json

    counts = tally.remaining_by_rule if write else tally.found_by_rule
    rows = sorted(counts.items(), key=lambda kv: (-kv[1].count, kv[0]))
    if machine:
        return json.dumps([{"code": code, "name": c.name, "severity": c.severity, "count": c.count,
                            "fixable": c.fixable} for code, c in rows], indent=2) + "\n"
    width = max((len(str(c.count)) for _, c in rows), default=1)
    return "".join(f"{c.count:>{width}}\t{code}\t{'[*]' if c.fixable == c.count else '[ ]'}\t{c.name}\n"
                   for code, c in rows)


def summary(tally: Tally, *, write: bool, unsafe: bool, errors: int, unwritten: int = 0) -> str:
    """One closing line, ruff-style: found, fixed, remaining, hidden unsafe fixes, failures.

    ``tally`` counts each checked text once (a script's ``--config`` files
    too; what they fix counts for the script); a text whose fix was not
    written is counted unchanged (``one_file.unwritten``), so only what was
    written counts as fixed. ``errors`` counts the inputs that could not be
    checked, ``unwritten`` the files whose fixes could not be written.
    """
    found, remaining, files = tally.found, tally.remaining, tally.changed
    # held back only because it is unsafe (not a rule the project marks unfixable): --unsafe-fixes would apply it
    hidden = 0 if unsafe else tally.hidden
    parts = []
    if not found and not remaining:
        parts.append("No violations found." if errors or unwritten else "All checks passed!")
    elif write:
        later = tally.fixed_later
        uncovered = f" ({later} appeared once another was fixed)" if later else ""
        parts.append(f"Found {found} violation{'s' * (found != 1)}. Fixed {tally.fixed}{uncovered} "
                     f"in {files} file{'s' * (files != 1)}; {remaining} remaining.")
    else:
        fixable, later = tally.fixable, tally.later
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
