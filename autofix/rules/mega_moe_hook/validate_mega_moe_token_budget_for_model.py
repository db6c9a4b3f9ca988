"""``validate_mega_moe_token_budget_for_model`` (``arg_groups/mega_moe_hook.py:78``, 0.5.23): MegaMoE's token budgets.

They apply to the models with no fused-MoE fallback (by architecture) and
to NVFP4 experts (``--quantization modelopt_fp4`` or ``minimax_m3_nvfp4``:
decidable without the model). Only the chunked-prefill check is modelled:
the decode and prefill budgets read
``SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK``, and the per-rank
chunk the size ``handle_data_parallelism`` divides.
"""

from __future__ import annotations

import re

from autofix.common.diagnostics import Fix, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.shared import chunked_prefill_size

# MoE blocks with no fused-MoE fallback under megamoe (mega_moe_hook.py:51)
NO_FALLBACK_ARCHITECTURES = frozenset({
    "DeepseekV4ForCausalLM", "InternS2PreviewForConditionalGeneration", "MellumForCausalLM", "Qwen2MoeForCausalLM",
    "Qwen3MoeForCausalLM", "Qwen3NextForCausalLM", "Qwen3VLMoeForConditionalGeneration", "Qwen3_5MoeForCausalLM",
    "Qwen3_5MoeForConditionalGeneration"})
NVFP4_EXPERT_QUANTIZATIONS = ("modelopt_fp4", "minimax_m3_nvfp4")


def _needs_budget(view: ResolvingView) -> bool:
    """``mega_moe_needs_token_budget``: NVFP4 experts, else the model's architecture (a fact, unknown unless given)."""
    if view["quantization"] in NVFP4_EXPERT_QUANTIZATIONS:
        return True
    return view.fact("model.architecture") in NO_FALLBACK_ARCHITECTURES


@settings_rule("A2A048", "megamoe-needs-chunked-prefill", step="validate_mega_moe_token_budget_for_model",
               at="arg_groups/mega_moe_hook.py:192", via=91)
def megamoe_needs_chunked_prefill(view: ResolvingView) -> Violation | None:
    """Flag the `megamoe` a2a backend with chunked prefill off, for NVFP4 experts or a model with no fallback.

    ## What it does
    Checks for the resolved a2a backend `megamoe` with a
    `--chunked-prefill-size` of 0 or below (`-1` turns chunking off), when
    the experts are NVFP4 (`--quantization modelopt_fp4` or
    `minimax_m3_nvfp4`) or the model's architecture has no fused-MoE
    fallback (Qwen3-MoE, DeepSeek-V4, ...: that needs the model config,
    else the rule is silent). Not on a PD decode server, an encoder-only
    server, ROCm, or with `--pp-size` above 1 and
    `--enable-dynamic-chunking`. SGLang checks the decode budget first
    (same code, with `SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK`),
    which the default passes.

    ## Why SGLang refuses it
    MegaMoE's per-rank token buffer is sized for a bounded prefill forward;
    unchunked prefill has no bound. SGLang raises a ValueError while
    resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    moe-a2a-backend: megamoe
    quantization: modelopt_fp4
    chunked-prefill-size: -1
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-a2a-backend: megamoe
    quantization: modelopt_fp4
    ```

    ## Fix safety
    Removing `--chunked-prefill-size` (SGLang sizes it from the GPU
    memory) turns chunked prefill on: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/mega_moe_hook.py:192` (`validate_mega_moe_token_budget`, from
    `validate_mega_moe_token_budget_for_model`)
    """
    if view["moe_a2a_backend"] != "megamoe" or view["encoder_only"]:
        return None
    if view["disaggregation_mode"] == "decode" or (view["pp_size"] > 1 and view["enable_dynamic_chunking"]):
        return None
    chunked = chunked_prefill_size(view)
    if chunked is None or chunked > 0:
        return None
    connector = re.match(r"(.+)://(.*)", view["model_path"] or "")  # parse_connector_type
    if (connector and connector.group(1) == "instance") or view.fact("platform.is_hip") or not _needs_budget(view):
        return None
    return Violation(f"--moe-a2a-backend megamoe needs chunked prefill here, but --chunked-prefill-size is {chunked}",
                     args=("chunked_prefill_size", "moe_a2a_backend"))


@megamoe_needs_chunked_prefill.fix
def _default_chunked_prefill(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("chunked_prefill_size"):
        return None
    return Fix.unsafe(Unset("chunked_prefill_size"),
                      title="Remove --chunked-prefill-size (SGLang sizes it from the GPU memory)")
