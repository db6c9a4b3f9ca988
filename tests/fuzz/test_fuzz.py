"""The fuzz target in CI: a fixed, derandomized budget (``ci`` profile); longer by hand.

By hand: ``HYPOTHESIS_PROFILE=thorough .venv/bin/python -m pytest tests/fuzz`` (12,000
examples each), or ``python scripts/fuzz.py --minutes 30`` (random, until the time is up).
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests import write_faults
from tests.fuzz.strategies import inputs, mutated_fixture
from tests.fuzz.target import check_input, check_write_fault

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


@given(inputs, inputs, st.sampled_from(write_faults.KINDS), st.sampled_from(write_faults.ACTIONS), st.integers(0, 200))
def test_a_write_with_another_process_acting_between_two_of_its_system_calls(before, after, kind, action, at):
    """The write path, with concurrency: an append, a symlink swapped in (for the file or its directory), SIGTERM
    or SIGKILL between any two of its system calls, any sizes (empty, over a page), any way to write."""
    check_write_fault(before[0], after[0].decode("utf-8", "replace"), kind, action, at)
