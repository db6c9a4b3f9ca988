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
from pathlib import Path

from autofix.pipeline.facts import Facts
from autofix.rules import get
from harness.oracle.oracle import STAND_INS

# The oracle's model configs (../shared/oracle/models) as the facts autofix reads of them; none has NVFP4 MoE layers,
# and none is a KDA, DeepSeek-V4 or multimodal model.
_PLAIN = {"model.uses_kda_attention": False, "model.is_deepseek_v4": False,
          "model.is_multimodal_without_breakable_graph": False, "model.is_fp4_experts": False,
          "model.bundles_dspark_draft": False, "model.dspark_draft_subfolder": None,
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
              "env.SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16": False,
              "env.SGLANG_DISAGG_STAGING_BUFFER": False, "env.SGLANG_RUST_SERVER": False,
              # LoRA (harness/rules/cases_lora.py)
              "env.SGLANG_EXPERIMENTAL_LORA_OPTI": False, "env.SGLANG_ENABLE_OVERLAP_PLAN_STREAM": False,
              "env.SGLANG_RAGGED_VERIFY_MODE": "static",
              "env.SGLANG_AITER_KV_CACHE_LAYOUT": "nhd"}


def oracle_facts(gpu: str = "h200", model: str | None = None) -> Facts:
    """The facts the oracle has: 8 ``gpu``s, the ``model`` config (None: deepseek-v3) and its environment."""
    return Facts.for_gpu(gpu, 8, **{"model.nvfp4_moe_meta": None}, **MODELS[model or "deepseek-v3"], **ORACLE_ENV)


# What the oracle runs on by default: 8 H200s and DeepSeek-V3.
FACTS = oracle_facts()


def facts_of(case: Case) -> Facts:
    """The facts the oracle has for ``case`` (its draft model's too)."""
    argv = list(case.argv)
    draft = argv[argv.index(DRAFT_FLAG) + 1] if DRAFT_FLAG in argv else None
    return with_draft(oracle_facts(case.gpu, case.model), draft)


# The draft models the oracle reads, as the facts autofix reads of them: a draft path that is no local directory (a
# Hub id) is read as ../shared/oracle/models/eagle3-draft (no DFLASH/DSpark keys), one of harness/oracle/models/ as
# that stand-in (their README). Without a draft path the draft facts are unknown.
DRAFT_FLAG = "--speculative-draft-model-path"
_NO_DRAFT_KEYS = {"model.draft_dflash_block_size": None, "model.draft_dspark_gamma": None,
                  "model.draft_all_sliding_attention": False, "model.draft_is_causal": False}
DRAFTS = {
    "eagle3-draft": _NO_DRAFT_KEYS,
    "dflash-draft": {**_NO_DRAFT_KEYS, "model.draft_dflash_block_size": 8, "model.draft_dspark_gamma": 8},
    "dflash-swa-draft": {**_NO_DRAFT_KEYS, "model.draft_dflash_block_size": 4, "model.draft_dspark_gamma": 4,
                         "model.draft_all_sliding_attention": True},
    "dspark-draft": {**_NO_DRAFT_KEYS, "model.draft_dspark_gamma": 5},
}


def stand_in(name: str) -> str:
    """The absolute path of draft stand-in ``name`` (a directory of harness/oracle/models)."""
    return str(STAND_INS / name)


def with_draft(facts: Facts, draft: object) -> Facts:
    """``facts`` and the facts of the draft model at ``draft`` (a path or Hub id, None: none written) as the oracle
    reads it."""
    if not isinstance(draft, str):
        return facts
    path = Path(draft)
    name = path.name if path.is_dir() and path.parent == STAND_INS else "eagle3-draft"
    return Facts({**facts.known, **DRAFTS[name]})


def at(code: str) -> str:
    """Where SGLang raises for ``code``'s check: the rule's own position (it lives there only)."""
    return "sglang/srt/" + get(code).at


# Where SGLang's traceback puts a rule's raise when it is not the statement's first line (a multi-line
# assert names its condition's line): the rule's `at` stays the statement, as tests/test_positions.py reads it.
RAISED_AT = {"PP005": "sglang/srt/arg_groups/validation_hook.py:133",
             "LORA004": "sglang/srt/arg_groups/lora_hook.py:66",
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
