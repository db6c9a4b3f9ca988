"""The CUDA graph backend of each phase, as autofix declares it (``autofix.rules.cuda_graph_hook``), is SGLang's.

Each case runs through the oracle (``cuda_graph``: the resolved decode and
prefill backends) and through autofix's pipeline with the same GPU and
model facts. SGLang accepts every case here; where autofix cannot tell the
backend it must say so (UNKNOWN), and only where it is known not to model
the input (the attention backend SGLang fills in when none is written, read
by prefill CP's graph support).
"""

from __future__ import annotations

import pytest

from autofix.common.diagnostics import UNKNOWN
from autofix.pipeline.run import resolve
from autofix.rules import SETTINGS
from autofix.schema import load
from harness.oracle.oracle import run_batch
from harness.rules.casekit import oracle_facts
from tests.oracle import requires_oracle
from tests.rules.test_rules import explicit

pytestmark = [pytest.mark.oracle, requires_oracle]
SCHEMA = load()
GPUS = ("h200", "b200")
MODELS = ("deepseek-v3", "llama")
ZIGZAG = ["--tp-size", "8", "--enable-prefill-cp", "--cp-strategy", "zigzag", "--attn-cp-size", "8"]
CASES = {
    "default": [],
    "tp8": ["--tp-size", "8"],
    "pp2": ["--tp-size", "4", "--pp-size", "2"],
    "dcp2": ["--tp-size", "8", "--dcp-size", "2"],
    "tbo": ["--tp-size", "8", "--moe-a2a-backend", "deepep", "--enable-two-batch-overlap"],
    "mooncake": ["--tp-size", "8", "--moe-a2a-backend", "mooncake", "--attn-dp-size", "8"],
    "mooncake-pinned": ["--tp-size", "8", "--moe-a2a-backend", "mooncake", "--attn-dp-size", "8",
                        "--cuda-graph-backend-prefill", "breakable"],
    "pd-decode": ["--disaggregation-mode", "decode"],
    "pd-prefill": ["--disaggregation-mode", "prefill"],
    "pd-decode-pinned": ["--disaggregation-mode", "decode", "--cuda-graph-backend-prefill", "breakable"],
    "no-graphs": ["--disable-cuda-graph"],
    "no-prefill-graph": ["--disable-prefill-cuda-graph"],
    "no-decode-graph": ["--disable-decode-cuda-graph"],
    "prefill-full": ["--cuda-graph-backend-prefill", "full"],
    "decode-breakable": ["--cuda-graph-backend-decode", "breakable"],
    "pinned-over-disable": ["--disable-cuda-graph", "--cuda-graph-backend-decode", "full"],
    "torch-native": ["--attention-backend", "torch_native"],
    "flex": ["--attention-backend", "flex_attention"],
    "deepep-normal": ["--tp-size", "8", "--moe-a2a-backend", "deepep", "--deepep-mode", "normal"],
    "attn-flashinfer": ["--attention-backend", "flashinfer"],
    "prefill-cp": ZIGZAG,
}
# (gpu, case, model) where the default attention backend decides: autofix does not know it
UNKNOWN_PREFILL = {("h200", "prefill-cp", "deepseek-v3"), ("h200", "prefill-cp", "llama"),
                   ("b200", "prefill-cp", "llama")}
B200_ONLY = {"prefill-cp-trtllm-mha": [*ZIGZAG, "--attention-backend", "trtllm_mha"]}  # trtllm_mha needs SM100


def _runs():
    for gpu in GPUS:
        for name in (*CASES, *(B200_ONLY if gpu == "b200" else ())):
            for model in MODELS:
                yield gpu, name, model


@pytest.fixture(scope="module")
def answers() -> dict[tuple, dict]:
    out = {}
    for gpu in GPUS:
        runs = [r for r in _runs() if r[0] == gpu]
        batch = [{"id": f"{g}:{n}:{m}", "argv": {**CASES, **B200_ONLY}[n], "model": m, "fields": "cuda_graph"}
                 for g, n, m in runs]
        out.update(zip(runs, run_batch(batch, gpu=gpu)))
    return out


@pytest.mark.parametrize("gpu,name,model", list(_runs()), ids=lambda v: v)
def test_graph_backends_are_sglangs(gpu, name, model, answers):
    answer = answers[gpu, name, model]
    assert answer["ok"], answer.get("message")
    graphs = answer["resolved"]["cuda_graph"]
    view = resolve(explicit({**CASES, **B200_ONLY}[name]), SCHEMA, SETTINGS, oracle_facts(gpu, model),
                   fixes=False).view
    assert view.value("cuda_graph_backend_decode") == graphs["decode"][0]
    prefill = view.value("cuda_graph_backend_prefill")
    if (gpu, name, model) in UNKNOWN_PREFILL:
        assert prefill is UNKNOWN
    else:
        assert prefill == graphs["prefill"][0]
