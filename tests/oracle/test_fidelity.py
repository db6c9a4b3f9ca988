"""autofix agrees with SGLang on drawn configs, and on every shrunk past failure.

The draw is fixed (seed 0) so CI cannot flake; ``scripts/fidelity.py --n
10000`` runs the same comparison at scale and writes new failures, shrunk,
into tests/oracle/regressions/.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.oracle.fidelity import Oracle, Tally, draw_configs, fixed_outcome, judge, report
from tests.oracle import requires_oracle

pytestmark = [pytest.mark.oracle, requires_oracle]
REGRESSIONS = sorted((Path(__file__).parent / "regressions").glob("*.json"))


@pytest.fixture(scope="module")
def oracle():
    with Oracle() as o:
        yield o


@pytest.fixture(scope="module")
def oracle_b200():
    with Oracle(gpu="b200") as o:
        yield o


@pytest.mark.parametrize("gpu, n", [("h200", 400), ("b200", 150)])
def test_drawn_configs_agree(gpu, n, oracle, oracle_b200):
    tally = Tally()
    for v in judge(oracle if gpu == "h200" else oracle_b200, draw_configs(n, seed=0)):
        tally.add(v)
    summary = report(tally, 0)
    assert tally.outcomes["false_positive"] == 0, summary
    assert tally.outcomes["false_negative"] == 0, summary
    assert tally.fixed["refused"] == 0, summary
    assert not tally.resolution, summary
    assert tally.outcomes["agree"] >= 0.9 * tally.n, summary  # the draw reaches the rules


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.stem for p in REGRESSIONS])
def test_regression(oracle, oracle_b200, path):
    case = json.loads(path.read_text())
    [v] = judge(oracle_b200 if case.get("gpu") == "b200" else oracle, [case["config"]])
    assert v.sglang == case["sglang"]  # SGLang's verdict on the input has not moved
    assert v.outcome in ("agree", "uncovered"), report_one(v)
    assert v.fixed is None or fixed_outcome(v) != "refused", report_one(v)
    assert not v.resolution_mismatch


def report_one(v) -> str:
    return f"{v.outcome} {v.rule} codes={v.codes} sglang={v.sglang} fixed={v.fixed} -> {v.fixed_sglang}"
