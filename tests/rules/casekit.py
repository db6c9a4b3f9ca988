"""What a rule test case is: flags, the codes autofix must report, SGLang's verdict.

``sglang`` is what SGLang 0.5.23 did with the flags (``ok`` or the
``path:line`` it raised at), measured with ../shared/oracle (8x H200, the
``model`` config: DeepSeek-V3 unless the case says) and re-checked by
tests/oracle/test_rule_verdicts.py. ``codes`` are errors and warnings, in
pipeline order; the errors are exactly the refused cases'. ``fixed_ok``
says SGLang accepts the output of autofix's fixes (safe, then unsafe).
autofix checks each case with the facts the oracle has (``FACTS``).
"""

from __future__ import annotations

from dataclasses import dataclass

from autofix.pipeline.facts import Facts
from autofix.rules import get

# The oracle's model configs (../shared/oracle/models) as the facts autofix reads of them; none has NVFP4 MoE layers,
# and none is a KDA, DeepSeek-V4 or multimodal model.
_PLAIN = {"model.uses_kda_attention": False, "model.is_deepseek_v4": False,
          "model.is_multimodal_without_breakable_graph": False, "model.is_fp4_experts": False,
          # the speculative checks: attention defaults; a draft given as a Hub id is the oracle's EAGLE3 stand-in
          "model.has_asymmetric_kv": False, "model.has_attention_sinks": False,
          "model.draft_architectures": ("LlamaForCausalLMEagle3",)}
MODELS = {
    "deepseek-v3": {"model.architecture": "DeepseekV3ForCausalLM", "model.quant_method": "fp8",
                    "model.index_topk": None, "model.attention_arch": "MLA", **_PLAIN},
    "qwen3-moe": {"model.architecture": "Qwen3MoeForCausalLM", "model.quant_method": None,
                  "model.index_topk": None, "model.attention_arch": "MHA", **_PLAIN},
    "llama": {"model.architecture": "LlamaForCausalLM", "model.quant_method": None,
              "model.index_topk": None, "model.attention_arch": "MHA", **_PLAIN},
}


# The oracle's environment: every SGLANG_* variable at its default (../shared/oracle/README.md; the defaults are
# sglang/srt/environ.py's), for the variables the rules read.
ORACLE_ENV = {"env.SGLANG_ENABLE_PP_SPEC": False, "env.SGLANG_USE_AITER": False,
              "env.SGLANG_FLASHINFER_NVFP4_PER_TOKEN_ACTIVATION": False,
              "env.SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16": False, "env.SGLANG_AITER_KV_CACHE_LAYOUT": "nhd"}


def oracle_facts(gpu: str = "h200", model: str | None = None) -> Facts:
    """The facts the oracle has: 8 ``gpu``s, the ``model`` config (None: deepseek-v3) and its environment."""
    return Facts.for_gpu(gpu, 8, **{"model.nvfp4_moe_meta": None}, **MODELS[model or "deepseek-v3"], **ORACLE_ENV)


# What the oracle runs on by default: 8 H200s and DeepSeek-V3.
FACTS = oracle_facts()


def facts_of(case: Case) -> Facts:
    """The facts the oracle has for ``case``."""
    return oracle_facts(case.gpu, case.model)


def at(code: str) -> str:
    """Where SGLang raises for ``code``'s check: the rule's own position (it lives there only)."""
    return "sglang/srt/" + get(code).sglang_source


# Where SGLang's traceback puts a rule's raise when it is not the statement's first line (a multi-line
# assert names its condition's line): the rule's `at` stays the statement, as tests/test_positions.py reads it.
RAISED_AT = {"PP005": "sglang/srt/arg_groups/validation_hook.py:133",
             "SPEC047": "sglang/srt/arg_groups/speculative_hook.py:1162"}


def raised_at(code: str) -> str:
    """The line the oracle reports for ``code``'s check."""
    return RAISED_AT.get(code) or at(code)


MARLIN = ["--moe-runner-backend", "experimental_sgl_marlin"]
LORA_OK = ["--enable-lora", "--lora-use-virtual-experts", "--lora-backend", "triton",
           "--max-lora-rank", "16", "--lora-target-modules", "all"]


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    codes: tuple[str, ...]  # what autofix reports on the input, in order
    sglang: str  # "ok" or where SGLang 0.5.23 raised
    fixed_ok: bool = True  # SGLang accepts autofix's output (safe + unsafe fixes)
    model: str | None = None  # the oracle's model config (None: deepseek-v3)
    gpu: str = "h200"  # the oracle's GPU (check.py --gpu)


def case(id, argv, codes, sglang, fixed_ok=True, model=None, gpu="h200") -> Case:
    return Case(id, tuple(argv), tuple(codes), sglang, fixed_ok, model, gpu)
