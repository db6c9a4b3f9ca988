"""The unified diff: built from the changed regions alone, exact, and the size of the change.

The diffs are applied by an independent reader of the unified format
(``harness.unified.apply_unified``, written from the format's description,
sharing no code with ``autofix.common.edits``), so a test passes only if the diff
really turns the old text into the new one.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from autofix.common.diffs import unified_diff
from autofix.common.edits import Change, Edit, apply_edits, compose, mapper_back
from harness.unified import apply_unified


def regions_hold(before: str, after: str, changes: list[Change]) -> bool:
    """Whether ``after`` is ``before`` with each change's region replaced, and nothing else."""
    out, pos = [], 0
    for c in changes:
        assert c.start >= pos
        out.append(before[pos:c.start])
        out.append(after[c.new_start:c.new_end])
        pos = c.end
    out.append(before[pos:])
    return "".join(out) == after


PIECES = ["a", "b", "\n", "\n", "x\n", "\r", "\r\n", " ", "\f", "\u2028"]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@st.composite
def passes(draw):
    """A text and one to three passes of non-overlapping edits, each on the previous pass's output."""
    text = draw(texts)
    chain, current = [], text
    for _ in range(draw(st.integers(1, 3))):
        edits, pos = [], 0
        while pos <= len(current) and draw(st.booleans()):
            start = draw(st.integers(pos, len(current)))
            end = draw(st.integers(start, min(len(current), start + 4)))
            edits.append(Edit(start, end, draw(texts.map(lambda t: t[:4]))))
            pos = end + 1
        chain.append(edits)
        current = apply_edits(current, edits)
    return text, chain, current


@given(passes())
def test_an_offset_after_the_edits_maps_back_to_its_character_or_to_the_edit_that_wrote_it(case):
    text, chain, _ = case
    edits = chain[0]
    origin, pos = [], 0  # for each offset of the text after the edits (its end too): where it comes from
    for e in sorted(edits):
        origin.extend(range(pos, e.start))
        origin.extend([e.start] * len(e.text))
        pos = e.end
    origin.extend(range(pos, len(text) + 1))
    assert len(origin) == len(apply_edits(text, edits)) + 1
    back = mapper_back(reversed(edits))  # given in any order
    assert [back(k) for k in range(len(origin))] == origin


@given(passes())
def test_composed_changes_describe_the_output_and_the_diff_applies(case):
    text, chain, output = case
    changes: list[Change] = []
    for edits in chain:
        changes = compose(changes, edits)
    assert regions_hold(text, output, changes)
    diff = unified_diff(text, output, "f", changes)
    assert (diff == "") == (text == output)
    if diff:
        assert apply_unified(text, diff) == output
        assert apply_unified(text, unified_diff(text, output, "f")) == output  # without the regions: exact too


def test_one_fixed_line_among_a_million_equal_lines_is_one_small_hunk():
    before = "tp-size: 8\nmoe-a2a-backend: none\nep-dispatch-algorithm: static\n" + "# padding\n" * 1_000_000
    edit = Edit(before.index("static"), before.index("static") + len("static"), "dynamic")
    after = apply_edits(before, [edit])
    diff = unified_diff(before, after, "c.yaml", compose([], [edit]))
    assert diff == (
        "--- a/c.yaml\n+++ b/c.yaml\n@@ -1,6 +1,6 @@\n tp-size: 8\n moe-a2a-backend: none\n"
        "-ep-dispatch-algorithm: static\n+ep-dispatch-algorithm: dynamic\n # padding\n # padding\n # padding\n"
    )


def test_fixes_at_both_ends_of_a_large_file_are_two_hunks():
    body = "host: 0.0.0.0\n" * 200_000
    before = "a: 1\n" + body + "z: 2"
    edits = [Edit(3, 4, "9"), Edit(len(before) - 1, len(before), "3\nextra: 1")]
    after = apply_edits(before, edits)
    diff = unified_diff(before, after, "c.yaml", compose([], edits))
    assert diff.count("@@ -") == 2 and len(diff) < 400
    assert apply_unified(before, diff) == after


def test_lines_end_at_newlines_only():
    before = "# x\rpython3 -m sglang.launch_server\fstatic\u2028\n"
    after = before.replace("static", "dynamic")
    diff = unified_diff(before, after, "s.sh")
    assert diff.split("\n")[2:6] == ["@@ -1 +1 @@", "-" + before[:-1], "+" + after[:-1], ""]
    assert apply_unified(before, diff) == after


def test_missing_final_newline_is_marked():
    diff = unified_diff("a: 1\nb: 2", "a: 1\nb: 3", "c.yaml")
    assert diff.endswith("-b: 2\n\\ No newline at end of file\n+b: 3\n\\ No newline at end of file\n")
