"""The defaults SGLang derives from the GPU (``handle_gpu_memory_settings``) are the ones autofix derives with ``--gpu``.

Each case runs through the oracle on each simulated GPU (check.py --gpu h100|h200|b200) and through
autofix's pipeline with ``Facts.for_gpu`` of the same GPU; the resolved values must agree.
"""

from __future__ import annotations

import pytest

from autofix.pipeline.facts import Facts
from autofix.pipeline.run import resolve
from autofix.rules import SETTINGS
from autofix.schema import load
from tests.oracle.oracle import requires_oracle, run_batch
from tests.rules.test_rules import explicit

pytestmark = [pytest.mark.oracle, requires_oracle]
SCHEMA = load()
GPUS = ("h100", "h200", "b200")  # the oracle's
FIELDS = ("chunked_prefill_size",)

CASES = {
    "default": [],
    "tp8": ["--tp-size", "8"],
    "tp2-max-running-64": ["--tp-size", "2", "--max-running-requests", "64"],
    "explicit-1024": ["--chunked-prefill-size", "1024"],
    "explicit-off": ["--chunked-prefill-size", "-1"],
    "explicit-16384": ["--chunked-prefill-size", "16384"],
    "cuda-graph-max-bs": ["--cuda-graph-max-bs-decode", "32"],
}
MODELS = (None, "llama")


def _id(gpu: str, name: str, model: str | None) -> str:
    return f"{gpu}:{name}:{model or 'deepseek-v3'}"


@pytest.fixture(scope="module")
def answers() -> dict[str, dict]:
    out = {}
    for gpu in GPUS:  # one oracle process per simulated node
        batch = [{"id": _id(gpu, name, model), "argv": argv, **({"model": model} if model else {})}
                 for name, argv in CASES.items() for model in MODELS]
        out.update({a["id"]: a for a in run_batch(batch, gpu=gpu)})
    return out


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m or "deepseek-v3")
@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("gpu", GPUS)
def test_hardware_defaults_match_sglang(gpu, name, model, answers):
    answer = answers[_id(gpu, name, model)]
    assert answer["ok"], answer.get("message")
    view = resolve(explicit(CASES[name]), SCHEMA, SETTINGS, Facts.for_gpu(gpu, 8), fixes=False).view
    assert {f: view[f] for f in FIELDS} == {f: answer["resolved"][f] for f in FIELDS}
