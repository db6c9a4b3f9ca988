"""``handle_model_specific_adjustments`` (``arg_groups/model_hook.py:140``, 0.5.23): what the model declares.

Only the MoE defaults that the checks of families A and B read are
modelled: on SM100, the DeepSeek family takes the quantization from the
checkpoint and defaults the runner to ``flashinfer_trtllm``
(``_deepseek_moe_quant_resolution``). The Qwen3-MoE family's same defaults
(``model_overrides/qwen3_moe.py``, declared through the override registry)
are not modelled yet. They read the model's config (``model.architecture``,
``model.quant_method``). Without any fact of the model's config
(``model.given``), no model override is modelled, as for every other model
override SGLang declares (listed as gaps in docs/coverage.md); with some,
what is not given is unknown and the checks that read it stay silent.
"""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView
from autofix.rules.shared import DEEPSEEK_FAMILY, DEEPSEEK_OVERRIDE_ARCHS

STEP = "handle_model_specific_adjustments"
TRTLLM_QUANTIZATIONS = ("fp8", "modelopt_fp8", "modelopt_fp4", "modelopt_mixed", None)


def _checkpoint_quantization(view: ResolvingView, family: frozenset[str]) -> dict | None:
    if view["quantization"] is not None or view.written("quantization") == "unquant" or not view.fact("model.given"):
        return None  # the user's quantization (or opt-out, serving_hook.py:695) stands; or no model config
    if not view.fact("platform.is_sm100"):
        return None
    arch = view.fact("model.architecture")
    if arch not in family:
        return None
    quant_method = view.fact("model.quant_method")
    if quant_method is None and arch == "DeepseekV3ForCausalLM":
        quant_method = "fp8" if view.fact("model.fp8_checkpoint") else None
    return None if quant_method is None else {"quantization": quant_method}


def _trtllm_runner(view: ResolvingView, family: frozenset[str], quantizations: tuple) -> dict | None:
    if view["moe_runner_backend"] != "auto" or view["moe_a2a_backend"] != "none" or not view.fact("model.given"):
        return None
    if not view.fact("platform.is_sm100"):
        return None
    arch = view.fact("model.architecture")
    if arch not in family or arch.startswith("LongcatFlash"):
        return None
    quantization = view["quantization"]
    return {"moe_runner_backend": "flashinfer_trtllm"} if quantization in quantizations else None


@derivation(step=STEP, at="arg_groups/overrides.py:809", via=439, writes=("quantization",))
def deepseek_sm100_quantization(view: ResolvingView) -> dict | None:
    """On SM100, a DeepSeek-family model without `--quantization` takes its checkpoint's quantization method.

    DeepSeek-V3 without a quantization config is FP8 when its checkpoint holds
    FP8 expert weights (`model.fp8_checkpoint`). Unknown without the model.
    """
    return _checkpoint_quantization(view, DEEPSEEK_FAMILY)


@derivation(step=STEP, at="arg_groups/overrides.py:823", via=439, writes=("moe_runner_backend",))
def deepseek_sm100_runner(view: ResolvingView) -> dict | None:
    """On SM100, a DeepSeek-family model with the `auto` runner and no a2a backend runs `flashinfer_trtllm`.

    For FP8, ModelOpt FP8/FP4/mixed or unquantized weights (not LongCat-Flash,
    nor Kimi K2 thinking INT4, which autofix does not tell apart). Needs the
    model's architecture.
    """
    return _trtllm_runner(view, DEEPSEEK_FAMILY, TRTLLM_QUANTIZATIONS)


DSA_ARCHS = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN",
    "Glm5NextForConditionalGenerationNextN", "Glm5NextForConditionalGeneration", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN", "HYV4ForCausalLM",
    "HYV4ForCausalLMNextN",
})


@derivation(step=STEP, at="arg_groups/model_overrides/deepseek_v2.py:202", via=233,
            writes=("attn_dp_size", "dp_size", "moe_dense_tp_size", "moe_a2a_backend", "ep_size", "attn_cp_size"),
            code="A2A060", name="deepseek-mla-prefill-cp-layout",
            cause=lambda view: "DeepSeek's MLA prefill context parallelism (--enable-prefill-cp)")
def deepseek_mla_prefill_cp_layout(view: ResolvingView) -> dict | None:
    """With `--enable-prefill-cp`, a DeepSeek MLA model runs a fixed layout: DeepEP, EP = TP, attention DP x CP = TP.

    ## What it does
    Warns at a `--moe-a2a-backend`, `--ep-size`, `--attn-cp-size`,
    `--dp-size` or `--moe-dense-tp-size` that SGLang replaces when prefill
    context parallelism is on for a DeepSeek model with MLA attention: the
    data-parallel groups (`--dp-size` and `--attn-dp-size` together) run as
    attention DP, the rest of TP as attention CP, with DeepEP over the
    whole TP group and a dense TP of 1.

    ## Why it matters
    The config does not say what runs; the checks after this step see the
    replaced values. Needs the model's config: without it autofix models
    no model override and stays silent.

    ## Example
    ```yaml
    model-path: deepseek-ai/DeepSeek-V3
    tp-size: 8
    enable-prefill-cp: true
    cp-strategy: zigzag
    ep-size: 2
    ```
    Use instead:
    ```yaml
    model-path: deepseek-ai/DeepSeek-V3
    tp-size: 8
    enable-prefill-cp: true
    cp-strategy: zigzag
    ```

    ## Fix safety
    Writing what runs (or removing the replaced setting) resolves the launch
    to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/model_overrides/deepseek_v2.py:202` (`_deepseek_family_overrides`, collected at
    `arg_groups/model_hook.py:233`)
    """
    if not view["enable_prefill_cp"] or not view.fact("model.given"):
        return None
    arch = view.fact("model.architecture")
    if arch not in DEEPSEEK_OVERRIDE_ARCHS or arch in ("HYV4ForCausalLM", "HYV4ForCausalLMNextN"):
        return None  # HYV4 refuses prefill CP (a model check autofix does not model)
    if arch in DSA_ARCHS and view.fact("model.index_topk") is not None:
        view.fact("model.dsa_prefill_cp_layout")  # the DSA layout is not modelled: unknown
    if view.fact("model.attention_arch") != "MLA":
        return None
    attn_dp, dp, tp = view["attn_dp_size"], view["dp_size"], view["tp_size"]
    if attn_dp > 1 and dp > 1 or attn_dp * dp <= 0:
        return None  # SGLang refuses the pair here (model_override_base.py:235) or a later check the sizes
    groups = attn_dp * dp
    return {"attn_dp_size": groups, "dp_size": 1, "moe_dense_tp_size": 1, "moe_a2a_backend": "deepep",
            "ep_size": tp, "attn_cp_size": tp // groups}


# The DeepSeek family's attention branch (model_hook.py:267-430), for the prefill CUDA graph only.
DEEPSEEK_ATTENTION_ARCHS = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "KimiK25ForConditionalGeneration", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "Glm5NextForConditionalGeneration", "HYV4ForCausalLM",
    "HYV4ForCausalLMNextN", "LongcatFlashForCausalLM", "Dots3NoteForCausalLM",
})


@derivation(step=STEP, at="arg_groups/model_hook.py:422", writes=("cuda_graph_backend_prefill",))
def deepseek_mla_prefill_cp_disables_prefill_graph(view: ResolvingView) -> dict | None:
    """A DeepSeek-family MLA model with `--enable-prefill-cp` runs prefill without a CUDA graph.

    Whatever a flag chose (SGLang declares it over the lock). The DSA models'
    branch (model_hook.py:310, a CP graph where supported) is not modelled:
    unknown there. Needs the model's config.
    """
    if not view["enable_prefill_cp"] or not view.fact("model.given"):
        return None
    if view.fact("model.architecture") not in DEEPSEEK_ATTENTION_ARCHS:
        return None
    if view.fact("model.architecture") in DSA_ARCHS and view.fact("model.index_topk") is not None:
        view.fact("model.dsa_cuda_graph")  # the DSA branch: not modelled, unknown
    if view.fact("model.attention_arch") != "MLA":
        return None
    return {"cuda_graph_backend_prefill": "disabled"}
