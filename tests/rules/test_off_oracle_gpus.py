"""Rules that fire only on GPUs the oracle does not simulate (its nodes are NVIDIA H100/H200/B200).

Their verdicts come from SGLang's code (the line each rule mirrors), with the
oracle's verdict on an NVIDIA node as the accepted neighbour (harness/rules/cases_*.py).
"""

from __future__ import annotations

import pytest

from autofix.common.arguments import Word, parse_words
from autofix.common.diagnostics import Applicability, Location
from autofix.core import engine
from autofix.pipeline.facts import Facts
from autofix.pipeline.run import resolve
from autofix.pipeline.trace import unclearing
from autofix.rules import SETTINGS
from autofix.schema import load

SCHEMA = load()


def explicit(argv: list[str]) -> dict:
    return parse_words(SCHEMA, [Word(t, Location(1, i + 1)) for i, t in enumerate(argv)]).explicit


FI_A2A = ["--tp", "8", "--dcp-size", "2", "--dcp-comm-backend", "fi_a2a"]


@pytest.mark.parametrize("gpu, codes", [("mi300x", ["DCP004"]), ("mi355x", ["DCP004"]), ("h200", []), ("b200", [])])
def test_fi_a2a_is_refused_off_cuda(gpu, codes):
    # parallel_hook.py:259: fi_a2a and not get_platform().is_cuda
    assert [v.code for v in engine.check(explicit(FI_A2A), SCHEMA, Facts.for_gpu(gpu, 8))] == codes


def test_fi_a2a_is_silent_without_gpu():
    assert engine.check(explicit(FI_A2A), SCHEMA) == []


def test_fi_a2a_fix_on_rocm_leaves_it_clean():
    facts = Facts.for_gpu("mi300x", 8)
    outcome = engine.run(explicit(FI_A2A), SCHEMA, Applicability.UNSAFE, facts)
    assert outcome.explicit["dcp_comm_backend"] == "a2a"
    assert engine.check(outcome.explicit, SCHEMA, facts) == []


V2_LORA = ["--lora-paths", "a=/loras/a", "--lora-backend", "triton_v2"]


@pytest.mark.parametrize("gpu, codes", [("mi300x", ["LORA002"]), ("mi355x", ["LORA002"]), ("h200", []), ("b200", [])])
def test_triton_v2_lora_is_refused_on_rocm(gpu, codes):
    # lora_hook.py:27: get_platform().is_hip, whatever SGLANG_EXPERIMENTAL_LORA_OPTI (not given) is
    facts = Facts.for_gpu(gpu, 8, **{"env.SGLANG_EXPERIMENTAL_LORA_OPTI": False})
    assert [v.code for v in engine.check(explicit(V2_LORA), SCHEMA, facts)] == codes
    if gpu.startswith("mi"):
        assert [v.code for v in engine.check(explicit(V2_LORA), SCHEMA, Facts.for_gpu(gpu, 8))] == codes


def test_triton_v2_lora_is_silent_without_gpu():
    assert engine.check(explicit(V2_LORA), SCHEMA) == []


def test_triton_v2_lora_on_rocm_is_not_offered_the_modes_removed():
    """ROCm refuses the V2 kernels whatever the flags: removing the overlap flag is no fix there (test_fixes_clear
    checks the NVIDIA cases)."""
    facts = Facts.for_gpu("mi300x", 8, **{"env.SGLANG_EXPERIMENTAL_LORA_OPTI": False})
    config = explicit([*V2_LORA, "--moe-a2a-backend", "deepep", "--enable-two-batch-overlap"])
    assert list(unclearing(SETTINGS, SCHEMA, config, facts)) == []
    [found] = resolve(config, SCHEMA, SETTINGS, facts).violations
    assert (found.code, [f.title for f in found.fixes]) == ("LORA002", ["Remove --lora-backend (csgmv)"])


def test_triton_v2_lora_fix_on_rocm_leaves_it_clean():
    facts = Facts.for_gpu("mi300x", 8)
    outcome = engine.run(explicit(V2_LORA), SCHEMA, Applicability.UNSAFE, facts)
    assert "lora_backend" not in outcome.explicit
    assert engine.check(outcome.explicit, SCHEMA, facts) == []
