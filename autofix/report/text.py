"""The human formats: a diagnostic line (`full`, `concise`), its fixes, the closing summary."""

from __future__ import annotations

from autofix.api import FixResult
from autofix.model import Diagnostic


def diagnostic_line(d: Diagnostic) -> str:
    """``path:line:col: severity: CODE [*] message`` (``[*]``: fixed by the requested mode)."""
    mark = " [*]" if d.fixable else ""
    after = f" (appears once {', '.join(d.after)} {'is' if len(d.after) == 1 else 'are'} fixed)" if d.after else ""
    return (f"{d.path}:{d.location.line}:{d.location.col}: {d.violation.severity}: {d.code}{mark} "
            f"{d.violation.message}{after}")


def fix_lines(d: Diagnostic, indent: str = "  ") -> list[str]:
    """The fixes a diagnostic offers, best first, with their safety."""
    return [f"{indent}{'fix' if f.applicability == 2 else 'unsafe fix'}: {f.title}" for f in d.violation.fixes]


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
    hidden = sum(1 for r in results for d in r.remaining if d.fix_available and not d.fixable)
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
        parts.append(f"Found {found} violation{'s' * (found != 1)}.")
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
