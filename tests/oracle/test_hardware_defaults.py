"""With ``--gpu``, autofix knows what SGLang knows on that GPU: its platform facts and the defaults it derives.

The oracle simulates h100, h200 and b200 (check.py --gpu). Its platform answers (SGLang's own probes,
``runtime_context.get_platform()`` and ``utils.common``, read under the oracle's patches) must be
``GPUS[gpu]``; and each case, run through the oracle and through autofix's pipeline with
``oracle_facts`` of the same GPU and model, must resolve the hardware-derived defaults
(``handle_gpu_memory_settings``), and the quantization and MoE runner the model's SM100 defaults read, to
the same values.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from autofix.pipeline.facts import GPUS as KNOWN
from autofix.pipeline.facts import Facts
from autofix.pipeline.run import resolve
from autofix.rules import SETTINGS
from autofix.schema import load
from harness.oracle.oracle import CHECK_PY, PYTHON, run_batch
from harness.rules.casekit import oracle_facts
from tests.oracle import requires_oracle
from tests.rules.test_rules import explicit

pytestmark = [pytest.mark.oracle, requires_oracle]
SCHEMA = load()
GPUS = ("h100", "h200", "b200")  # the oracle's
FIELDS = ("chunked_prefill_size", "quantization", "moe_runner_backend")

CASES = {
    "default": [],
    "tp8": ["--tp-size", "8"],
    "tp2-max-running-64": ["--tp-size", "2", "--max-running-requests", "64"],
    "explicit-1024": ["--chunked-prefill-size", "1024"],
    "explicit-off": ["--chunked-prefill-size", "-1"],
    "explicit-16384": ["--chunked-prefill-size", "16384"],
    "cuda-graph-max-bs": ["--cuda-graph-max-bs-decode", "32"],
    "unquant": ["--quantization", "unquant"],  # an explicit opt-out: no quantization detected from the checkpoint
    "fp8": ["--quantization", "fp8"],
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
    view = resolve(explicit(CASES[name]), SCHEMA, SETTINGS, oracle_facts(gpu, model), fixes=False).view
    assert {f: view[f] for f in FIELDS} == {f: answer["resolved"][f] for f in FIELDS}


# Runs in the oracle's interpreter: load check.py's patches (not its main), then ask SGLang's probes.
PROBE = """
import contextlib, io, json, runpy, sys
check, gpu, names = sys.argv[1:4]
sys.argv = ["check.py", "--gpu", gpu, "--batch", "-"]
with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
    runpy.run_path(check, run_name="oracle_probe")
    import torch
    from sglang.srt.platforms import current_platform
    from sglang.srt.runtime_context import get_platform
    from sglang.srt.utils import common
    p = get_platform()
    out = {"platform." + n: getattr(p, n) for n in names.split(",")}
    out.update({
        "platform.is_gfx95": common.is_gfx95_supported(), "platform.is_gfx942": common.is_gfx942_supported(),
        "platform.is_cpu": common.is_cpu(), "platform.is_out_of_tree": current_platform.is_out_of_tree(),
        "platform.is_mnnvl_fabric": common.is_mnnvl_fabric_device(),
        "platform.is_host_cpu_arm64": common.is_host_cpu_arm64(),
        "gpu.memory_mib": common.get_device_memory_capacity(), "gpu.name": common.get_device_name(),
        "gpu.count": torch.cuda.device_count(),
    })
print(json.dumps(out))
"""
PROBED = ("is_cuda", "is_hip", "is_npu", "is_xpu", "is_musa", "is_mps", "is_sm90", "is_sm100", "is_sm100_or_sm110",
          "is_sm110", "is_sm120", "is_blackwell", "is_hopper_with_cuda_12_3", "has_flashinfer", "device_sm",
          "device_capability")


@pytest.mark.parametrize("gpu", GPUS)
def test_the_platform_facts_are_what_sglang_probes_answer(gpu):
    proc = subprocess.run([str(PYTHON), "-c", PROBE, str(CHECK_PY), gpu, ",".join(PROBED)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    probed = json.loads(proc.stdout.strip().splitlines()[-1])
    probed["platform.device_capability"] = tuple(probed["platform.device_capability"])
    ours = Facts.for_gpu(gpu, 8)
    assert {name: ours.get(name) for name in probed} == probed
    assert set(probed) | {"gpu.memory_gb", "platform.gfx_arch"} >= set(KNOWN[gpu])  # every fact is checked
