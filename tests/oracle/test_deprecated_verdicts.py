"""The SGLang verdicts the DEP001/DEP002 cases record still hold (tests/rules/test_deprecated.py).

Every case is asked as written and as fixed (launch and config file), with
all resolved fields: the fixed form must get the recorded verdict and
resolve like the input but for the recorded fields (the deprecated inputs'
own echoes); a fixed config file must resolve like the fixed launch.
"""

from __future__ import annotations

import shlex

import pytest

from harness.oracle.oracle import run_batch
from tests.oracle import requires_oracle
from tests.rules.test_deprecated import CASES, LAUNCH, MODEL_KEY, Case

pytestmark = [pytest.mark.oracle, requires_oracle]

ASKED = [c for c in CASES if c.oracle is not None]
MODEL = shlex.split(LAUNCH)[3:]  # --model-path deepseek-ai/DeepSeek-V3: picks the oracle's DeepSeek-V3 config


def _questions(case: Case) -> list[dict]:
    out = []
    if case.flags is not None:
        out.append({"id": f"{case.id}:input", "argv": MODEL + shlex.split(case.flags)})
    for key in ("fixed", "safe_fixed"):
        if getattr(case, key):
            out.append({"id": f"{case.id}:{key}", "argv": MODEL + shlex.split(getattr(case, key))})
    if case.yaml is not None:
        out.append({"id": f"{case.id}:yaml", "config_yaml": case.config})
    if case.yaml_fixed:
        out.append({"id": f"{case.id}:yaml_fixed", "config_yaml": MODEL_KEY + case.yaml_fixed})
    return [{**q, "fields": "all"} for q in out]


@pytest.fixture(scope="module")
def answers() -> dict[str, dict]:
    found: dict[str, dict] = {}
    for gpu in ("h200", "b200"):
        questions = [q for c in ASKED if c.gpu == gpu for q in _questions(c)]
        found.update((a["id"], a) for a in run_batch(questions, gpu=gpu))
    return found


def _verdict(answer: dict) -> str:
    return "ok" if answer["ok"] else f"error {answer['where']}"


def _differs(a: dict, b: dict) -> list[str]:
    ra, rb = a.get("resolved", {}), b.get("resolved", {})
    return sorted(k for k in ra.keys() | rb.keys() if k != "random_seed" and ra.get(k) != rb.get(k))


@pytest.mark.parametrize("case", ASKED, ids=[c.id for c in ASKED])
def test_recorded_verdicts(case: Case, answers):
    got = {key.split(":", 1)[1]: _verdict(a) for key, a in answers.items() if key.split(":", 1)[0] == case.id}
    want = {k: v for k, v in case.oracle.items() if not k.endswith("differs")}
    assert got == want


@pytest.mark.parametrize("case", ASKED, ids=[c.id for c in ASKED])
def test_fix_keeps_the_resolved_settings(case: Case, answers):
    a = lambda key: answers[f"{case.id}:{key}"]  # noqa: E731
    if "differs" in case.oracle:  # absent where argparse refused the input: nothing resolved to compare
        assert _differs(a("input"), a("fixed")) == sorted(case.oracle["differs"])
    if case.safe_fixed:
        assert _differs(a("input"), a("safe_fixed")) == sorted(case.oracle["safe_differs"])
    if case.yaml_fixed and case.fixed:
        assert _differs(a("fixed"), a("yaml_fixed")) == []
