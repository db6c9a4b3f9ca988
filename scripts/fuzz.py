"""Fuzz autofix for a while: the fuzz target CI runs (harness/fuzz), at random, until the time is up.

    .venv/bin/python scripts/fuzz.py --minutes 30

Each round runs the two input properties of ``tests/fuzz/test_fuzz.py`` and the trees
of files and symlinks of ``tests/fuzz/test_fuzz_paths.py`` (their targets, ``harness/fuzz/``) with a fresh
random seed. A failure is shrunk by hypothesis and printed (the input's bytes and
file name, or the tree, ready to paste into a regression test), and the
script exits 1; with no failure it prints how many inputs it tried.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from harness.fuzz.paths import check_tree, trees  # noqa: E402
from harness.fuzz.strategies import inputs, mutated_fixture  # noqa: E402
from harness.fuzz.target import check_input  # noqa: E402


def _one_file(case, unsafe) -> None:
    check_input(case[0], case[1], unsafe)


def _tree(tree, _unsafe) -> None:
    check_tree(tree)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to fuzz (default 10)")
    parser.add_argument("--round", type=int, default=500, help="examples per property per round (default 500)")
    args = parser.parse_args()
    tried = 0
    deadline = time.monotonic() + 60 * args.minutes
    rounds = 0
    while time.monotonic() < deadline:
        rounds += 1
        for strategy, check in ((inputs, _one_file), (mutated_fixture(), _one_file), (trees(), _tree)):
            count = [0]

            @settings(max_examples=args.round, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck))
            @given(strategy, st.booleans())
            def prop(case, unsafe):
                count[0] += 1  # noqa: B023 - the loop's counter, run within this iteration
                check(case, unsafe)  # noqa: B023 - the loop's check, run within this iteration

            try:
                prop()
            except Exception as exc:  # noqa: BLE001 - report whatever hypothesis found, shrunk
                print(f"FAILED after {tried + count[0]} inputs: {type(exc).__name__}: {exc}", file=sys.stderr)
                for note in getattr(exc, "__notes__", ()):  # hypothesis: the shrunk falsifying example
                    print(note, file=sys.stderr)
                return 1
            tried += count[0]
        print(f"round {rounds}: {tried} inputs so far, no failure", file=sys.stderr)
    print(f"{tried} inputs in {args.minutes:g} min, no failure")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
