"""The text edits of one fix on its own, placed in the file as it was read (``Diagnostic.fix_edits``).

The engine writes the fixpoint of every fix at once; a review tool shows each fix where it applies, and a
reader applies them one at a time (ruff's JSON model). An adapter renders a fix's ops on the text the stage
that found it reads: the original text for the argparse stage's first pass, the corrected text (after that
stage's own fixes, ``chain``) for the settings stage. Here those edits are carried back to the original
text; one that lands in what an earlier fix wrote has no place there, and the fix is None (``--write`` still
applies it, with the fixes it comes after).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from autofix.common.diagnostics import Fix, Location, TextEdit
from autofix.common.edits import Edit, line_col, range_before
from autofix.common.errors import CannotEdit

Render = Callable[[Fix], Sequence[Edit]]  # a fix's edits on the stage's text; raises CannotEdit


def placed(edits: Sequence[Edit], original: str, chain: Sequence[Sequence[Edit]], path: str) -> tuple[TextEdit, ...] | None:
    """``edits`` (on the text ``chain``'s passes made of ``original``) as ``TextEdit``s of ``original`` at
    ``path``; None if one overlaps what a pass wrote."""
    out = []
    for e in edits:
        start, end = e.start, e.end
        for step in reversed(chain):
            span = range_before(step, start, end)
            if span is None:
                return None
            start, end = span
        out.append(TextEdit(path, Location(*line_col(original, start)), Location(*line_col(original, end)), e.text))
    return tuple(out)


def of_fixes(fixes: Sequence[Fix],
             render: Callable[[Fix], tuple[TextEdit, ...] | None]) -> tuple[tuple[TextEdit, ...] | None, ...]:
    """Each fix's placed edits (``render``), None for one its file cannot take (``CannotEdit``) or that changes
    nothing."""
    out = []
    for fix in fixes:
        try:
            edits = render(fix)
        except CannotEdit:
            edits = None
        out.append(edits or None)
    return tuple(out)
