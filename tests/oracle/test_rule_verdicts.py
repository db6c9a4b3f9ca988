"""The rule cases' recorded SGLang verdicts still hold, and every fixed case is accepted.

Recorded twice: in each case (``sglang``), and in harness/rules/oracle-verdicts.json, which the offline tests read
(``python scripts/oracle_verdicts.py --rule-cases`` writes it).
"""

from __future__ import annotations

import pytest

from harness.oracle.oracle import verdict
from harness.rules.cases import ALL_CASES
from tests.oracle import requires_oracle
from tests.rules.test_rules import RECORDED

pytestmark = [pytest.mark.oracle, requires_oracle]


@pytest.fixture(scope="module")
def answers(rule_case_answers) -> dict[str, dict]:
    return rule_case_answers  # tests/oracle/conftest.py


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_input_verdict(case, answers):
    assert verdict(answers[case.id]) == case.sglang


@pytest.mark.parametrize("case", [c for c in ALL_CASES if c.codes], ids=[c.id for c in ALL_CASES if c.codes])
def test_fixed_output_is_accepted(case, answers):
    answer = answers[case.id + ":fixed"]
    assert answer["ok"] == case.fixed_ok, answer.get("message")


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_recorded_verdict(case, answers):
    assert verdict(RECORDED[case.id]) == verdict(answers[case.id])
