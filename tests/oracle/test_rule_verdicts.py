"""The rule cases' recorded SGLang verdicts still hold, and every fixed case is accepted."""

from __future__ import annotations

import pytest

from tests.oracle.oracle import requires_oracle, run_batch, verdict
from tests.rules.cases import ALL_CASES
from tests.rules.test_rules import fixed_argv

pytestmark = [pytest.mark.oracle, requires_oracle]


@pytest.fixture(scope="module")
def answers() -> dict[str, dict]:
    model = lambda c: {"model": c.model} if c.model else {}  # noqa: E731
    out = {}
    for gpu in sorted({c.gpu for c in ALL_CASES}):  # one oracle process per simulated node
        mine = [c for c in ALL_CASES if c.gpu == gpu]
        cases = [{"id": c.id, "argv": list(c.argv), **model(c)} for c in mine]
        cases += [{"id": c.id + ":fixed", "argv": fixed_argv(c), **model(c)} for c in mine if c.codes]
        out.update({a["id"]: a for a in run_batch(cases, gpu=gpu)})
    return out


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_input_verdict(case, answers):
    assert verdict(answers[case.id]) == case.sglang


@pytest.mark.parametrize("case", [c for c in ALL_CASES if c.codes], ids=[c.id for c in ALL_CASES if c.codes])
def test_fixed_output_is_accepted(case, answers):
    answer = answers[case.id + ":fixed"]
    assert answer["ok"] == case.fixed_ok, answer.get("message")
