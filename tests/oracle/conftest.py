"""Oracle answers several test modules read, computed once a session."""

from __future__ import annotations

import pytest

from harness.oracle.oracle import run_batch
from harness.rules.cases import ALL_CASES


@pytest.fixture(scope="session")
def rule_case_answers() -> dict[str, dict]:
    """SGLang's answer to every rule case (``id``) and to its fixed launch (``id:fixed``): one oracle process per
    simulated node. Read by test_rule_verdicts.py and test_explain_messages.py."""
    from tests.rules.test_rules import fixed_argv

    model = lambda c: {"model": c.model} if c.model else {}  # noqa: E731
    out = {}
    for gpu in sorted({c.gpu for c in ALL_CASES}):
        mine = [c for c in ALL_CASES if c.gpu == gpu]
        cases = [{"id": c.id, "argv": list(c.argv), **model(c)} for c in mine]
        cases += [{"id": c.id + ":fixed", "argv": fixed_argv(c), **model(c)} for c in mine if c.codes]
        out.update({a["id"]: a for a in run_batch(cases, gpu=gpu)})
    return out
