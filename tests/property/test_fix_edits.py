"""Each fix's own edits (``Diagnostic.fix_edits``, what the machine formats print) do what the fix says.

Drawn like DESIGN's properties (``test_fix_properties``): configs over the arguments the rules read, as a
``--config`` YAML file and as a shell script, every fix at both levels.
"""

from __future__ import annotations

import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from strategies import FORMATS, cases, path_for, read_explicit

from autofix.common.diagnostics import Set, Unset, applied
from autofix.common.edits import Edit, apply_edits, offset_of
from autofix.core.api import FixOptions, fix_source
from harness.rules.cases import FACTS

EACH_FORMAT = pytest.mark.parametrize("fmt", ("yaml", "shell"))


def apply_text_edits(text: str, edits) -> str:
    """``text`` with ``TextEdit``s (1-based line/col, end exclusive) applied."""
    return apply_edits(text, [Edit(offset_of(text, e.start.line, e.start.col), offset_of(text, e.end.line, e.end.col),
                                   e.content) for e in edits])


@EACH_FORMAT
@given(data=st.data())
def test_a_fix_alone_makes_exactly_its_change(fmt, data):
    """A settings fix's edits, applied alone to the file as read, give that launch exactly the fix's ops
    (and every other launch what it had); an argparse-stage fix's edits give a text that still reads."""
    _, text = data.draw(cases(fmt), label="configs, text")
    result = fix_source(text, FORMATS[fmt], path=path_for(fmt),
                        options=FixOptions(unsafe=True, facts=FACTS, fix_edits=True))
    before = read_explicit(text, fmt)
    for d in result.diagnostics:
        assert len(d.fix_edits) == (0 if d.after else len(d.violation.fixes)), d
        for fix, edits in zip(d.violation.fixes, d.fix_edits):
            if edits is None:
                event("a fix without edits of its own")
                continue
            assert all(e.path == path_for(fmt) for e in edits)
            after = read_explicit(apply_text_edits(text, edits), fmt)
            if not all(isinstance(op, (Set, Unset)) for op in fix.ops):
                event("argparse-stage fix")
                continue
            changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
            assert len(after) == len(before) and len(changed) == 1, (fix, edits)
            assert after[changed[0]] == applied(before[changed[0]], fix.ops), (fix, edits)
            event("settings fix")


@EACH_FORMAT
@given(data=st.data())
def test_a_lone_fix_alone_is_what_write_writes(fmt, data):
    """When the file has one finding and the engine applies just its best fix, that fix's own edits make
    exactly the text ``--write`` writes."""
    _, text = data.draw(cases(fmt), label="configs, text")
    result = fix_source(text, FORMATS[fmt], path=path_for(fmt), options=FixOptions(facts=FACTS, fix_edits=True))
    if len(result.diagnostics) != 1 or not result.changed or result.remaining:
        return
    (d,) = result.diagnostics
    best = next(i for i, f in enumerate(d.violation.fixes) if f.applicability == 2)
    if d.fix_edits[best] is None:
        event("lone fix without edits of its own")
        return
    event("lone fix")
    assert apply_text_edits(text, d.fix_edits[best]) == result.output
