"""The SGLang verdicts the DEP001/DEP002 cases record still hold (tests/rules/test_deprecated.py).

Every case is asked as written and as fixed (launch and config file), with
all resolved fields: the fixed form must get the recorded verdict and
resolve like the input but for the recorded fields (the deprecated inputs'
own echoes); a fixed config file must resolve like the fixed launch.
"""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

from tests.oracle.oracle import CHECK_PY, PYTHON, requires_oracle, run_batch
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


def _run_on(gpu: str, cases: list[dict]) -> list[dict]:
    """``run_batch`` on another simulated GPU (``check.py --gpu``)."""
    proc = subprocess.run([str(PYTHON), str(CHECK_PY), "--gpu", gpu, "--no-warnings", "--batch", "-"],
                          input="\n".join(map(json.dumps, cases)) + "\n", capture_output=True, text=True,
                          timeout=900, check=False)
    out = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    if [o.get("id") for o in out] != [c["id"] for c in cases]:
        raise RuntimeError(f"oracle answered {len(out)} of {len(cases)} cases:\n{proc.stderr[-3000:]}")
    suspect = [o["id"] for o in out if o.get("oracle_suspect")]
    if suspect:
        raise RuntimeError(f"oracle-suspect failures (not SGLang's verdict): {suspect}")
    return out


@pytest.fixture(scope="module")
def answers() -> dict[str, dict]:
    found: dict[str, dict] = {}
    for gpu in ("h200", "b200"):
        questions = [q for c in ASKED if c.gpu == gpu for q in _questions(c)]
        found.update((a["id"], a) for a in (run_batch(questions) if gpu == "h200" else _run_on(gpu, questions)))
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
