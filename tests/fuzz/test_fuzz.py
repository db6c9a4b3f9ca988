"""The fuzz target in CI: a fixed, derandomized budget (``ci`` profile); longer by hand.

By hand: ``HYPOTHESIS_PROFILE=thorough .venv/bin/python -m pytest tests/fuzz`` (12,000
examples each), or ``python scripts/fuzz.py --minutes 30`` (random, until the time is up).
The target is ``harness/fuzz/target.py`` (shared with ``scripts/fuzz.py``); the write path's is
``check_write_fault`` below: ``original`` (as UTF-8 text) replaced by ``text`` one way or the
other (``kind``), with another process's ``action`` (an append, the path or
its directory swapped for a symlink, SIGTERM, SIGKILL) before one of the
write's system calls (``at``, taken modulo their number); what must hold is
``tests/write_faults.py``'s.
"""

from __future__ import annotations

from hypothesis import event, example, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from harness.fuzz.strategies import inputs, mutated_fixture
from harness.fuzz.target import check_input
from tests import write_faults

# a run is a few milliseconds: four times the profile's budget (600 derandomized examples in CI)
MORE = settings(max_examples=4 * settings.default.max_examples)


@MORE
@given(inputs, st.booleans())
@example((b"", "config.yaml"), False)
@example((b"\xef\xbb\xbf", "serve.sh"), False)
def test_any_input_exits_0_1_or_2_keeps_its_bytes_and_fixes_clean(case, unsafe):
    data, name = case
    check_input(data, name, unsafe)


@MORE
@given(mutated_fixture(), st.booleans())
def test_mutated_fixtures(case, unsafe):
    """The same, on real inputs bent out of shape (most still launch SGLang)."""
    data, name = case
    check_input(data, name, unsafe)


def check_write_fault(original: bytes, text: str, kind: str, action: str, at: int) -> None:
    """Write ``text`` over ``original`` (made UTF-8 text: no zero byte in its first four, which would make it
    UTF-16 or UTF-32, ``encoding.unicode_form``) the ``kind`` way, with ``action`` before system call number
    ``at`` (modulo their number, the end included); raise ``AssertionError`` on a breach."""
    data = original.decode("utf-8", "replace").encode("utf-8")
    case = write_faults.Case(data[:4].replace(b"\0", b" ") + data[4:], text, kind)
    calls = write_faults.count(case)
    at %= len(calls) + 1
    lost = write_faults.run(case, action, at, calls)
    if currently_in_test_context():
        event(f"{action}: an append lost in the window the docs name" if lost else action)


@given(inputs, inputs, st.sampled_from(write_faults.KINDS), st.sampled_from(write_faults.ACTIONS), st.integers(0, 200))
def test_a_write_with_another_process_acting_between_two_of_its_system_calls(before, after, kind, action, at):
    """The write path, with concurrency: an append, a symlink swapped in (for the file or its directory), SIGTERM
    or SIGKILL between any two of its system calls, any sizes (empty, over a page), any way to write."""
    check_write_fault(before[0], after[0].decode("utf-8", "replace"), kind, action, at)
