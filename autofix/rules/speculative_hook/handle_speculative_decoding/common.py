"""What the speculative checks share: the algorithm as SGLang names it, the device, the attention backend.

No rule or derivation lives here. ``device`` and the attention backend SGLang
fills in when none is written are read here from the hardware facts (given
by ``--gpu``), for the speculative checks only: declaring them for every
step would make every check that reads them silent without ``--gpu``.
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set
from autofix.pipeline.view import ResolvingView
from autofix.rules.attention_hook.handle_deterministic_inference import deterministic_backend
from autofix.rules.fixes import remove
from autofix.rules.parallel_hook.handle_data_parallelism import attn_dp_enabled

STEP = "handle_speculative_decoding"
# speculative_hook.py: the line of the hook that dispatches to the algorithm's handler
# (`algo.handle_server_args(server_args)`: `_handle_eagle_family`, `_handle_ngram`, ...)
DISPATCH = 284
EAGLE_FAMILY = ("EAGLE", "EAGLE3", "STANDALONE")  # what `_handle_eagle_family` handles (FROZEN_KV_MTP has its own)
BUILTIN = ("DFLASH", "UNO", "DSPARK", "EAGLE", "EAGLE3", "FROZEN_KV_MTP", "STANDALONE", "NGRAM", "NEXTN")
# Targets whose checkpoint holds their MTP draft layer (speculative_hook.py:1116): the draft path is the model's
MTP_IN_CHECKPOINT = (
    "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM", "Glm4MoeForCausalLM",
    "Glm4MoeLiteForCausalLM", "GlmMoeDsaForCausalLM", "BailingMoeForCausalLM", "BailingMoeV2ForCausalLM",
    "BailingMoeV2_5ForCausalLM", "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "HYV3ForCausalLM",
    "HYV4ForCausalLM", "Qwen4ExpForConditionalGeneration",
)
GEMMA4_DRAFTS = ("Gemma4AssistantForCausalLM", "Gemma4UnifiedAssistantForCausalLM")
PAGE_TREE_BACKENDS = ("flashinfer", "fa3", "triton")  # speculative_hook.py:1271


def algorithm(view: ResolvingView) -> str | None:
    """The algorithm from the speculative step on (its alias derivation has run): upper case, NEXTN as EAGLE."""
    return view["speculative_algorithm"]


def written_algorithm(view: ResolvingView) -> str | None:
    """The algorithm as an earlier step compares it: upper case, `NEXTN` named `EAGLE` (no Gemma4 draft)."""
    name = view["speculative_algorithm"]
    if name is None:
        return None
    name = name.upper()
    return "EAGLE" if name == "NEXTN" else name


def draft_is_gemma4(view: ResolvingView) -> bool:
    """Whether the draft checkpoint is a Gemma4 assistant (its config's `architectures`).

    A draft model fact: unknown unless the draft's config is given
    (``model.draft_given``); without it autofix models no draft, as it
    models no model override without the model's config.
    """
    if view["speculative_draft_model_path"] is None or not view.fact("model.draft_given"):
        return False
    return any(arch in GEMMA4_DRAFTS for arch in view.fact("model.draft_architectures") or ())


def device(view: ResolvingView) -> str:
    """The device SGLang runs on: the one written (without its index), else the one it detects (serving_hook.py:651).

    Detection reads the platform (``--gpu``): CUDA and ROCm both answer `cuda`.
    """
    written = view["device"]
    if written is not None:
        return written.split(":")[0]
    if view.fact("platform.is_cpu"):
        return "cpu"
    if view.fact("platform.is_cuda") or view.fact("platform.is_hip"):
        return "cuda"
    if view.fact("platform.is_xpu"):
        return "xpu"
    if view.fact("platform.is_npu"):
        return "npu"
    return view.fact("platform.device")  # another platform: not modelled


def default_attention_backend(view: ResolvingView) -> str:
    """The attention backend SGLang picks when none is written (`get_default_attn_backend`,
    model_override_base.py:277), from the platform and the model's attention architecture."""
    if view.fact("platform.is_out_of_tree"):
        return view.fact("platform.default_attention_backend")
    if view.fact("model.architecture") == "WhisperForConditionalGeneration":
        return "flashinfer"
    topk, page = view["speculative_eagle_topk"], view["page_size"]
    no_tree = topk is None or (topk == 1 and page in (1, None))
    if view.fact("model.attention_arch") != "MLA":
        if view.fact("platform.is_hopper_with_cuda_12_3") and no_tree:
            return "fa3"
        if view.fact("platform.is_sm100") and no_tree and (
                view["speculative_algorithm"] is None or topk is not None
                or str(view["speculative_algorithm"]).upper() == "DFLASH"):
            return "fa4" if view.fact("model.has_asymmetric_kv") else "trtllm_mha"
        if view.fact("platform.is_hip"):
            return "aiter"
        if view.fact("platform.is_mps"):
            return "torch_native"
        if view.fact("platform.has_flashinfer") and not view.fact("model.has_attention_sinks"):
            return "flashinfer"
        return "triton"
    if view.fact("platform.is_hopper_with_cuda_12_3"):
        return "fa3"
    if view.fact("platform.is_sm100"):
        return "flashinfer"
    if view.fact("platform.is_hip"):
        return view.fact("model.aiter_mla_backend")  # by the KV heads per rank: not modelled
    if view.fact("platform.is_mps"):
        return "torch_native"
    return "triton"


# Architectures whose model overrides choose no attention backend (the oracle's Llama and Qwen3-MoE)
NO_BACKEND_OVERRIDE = ("LlamaForCausalLM", "Qwen3MoeForCausalLM")


def model_attention_backend(view: ResolvingView) -> str | None:
    """The attention backend the model's overrides choose when none is written (handle_model_specific_adjustments).

    DeepSeek V3/R1 (not DSA) takes `trtllm_mla` on SM100
    (model_overrides/deepseek_v2.py:185); the other architectures' overrides
    are not modelled (unknown), but for those known to choose none. Without
    the model's config no model override is modelled.
    """
    if not view.fact("model.given"):
        return None
    arch = view.fact("model.architecture")
    if arch == "DeepseekV3ForCausalLM" and view.fact("model.index_topk") is None:
        return "trtllm_mla" if view.fact("platform.is_sm100") else None
    if arch in NO_BACKEND_OVERRIDE:
        return None
    return view.fact("model.attention_backend_override")


def attention_backend(view: ResolvingView) -> str:
    """The attention backend from the attention step on (attention_hook.py:120, `_attention_backend_default`).

    Equal prefill and decode backends replace it; none written: the
    deterministic-inference default (``deterministic_backend``), else the
    platform's; FA3 with an FP8 E5M2 KV cache falls back to Triton
    (overrides.py:1243).
    """
    prefill, decode = view["prefill_attention_backend"], view["decode_attention_backend"]
    backend = view["attention_backend"]
    if backend is None and prefill is None and decode is None:
        backend = model_attention_backend(view)
    if prefill is not None and prefill == decode:
        backend = prefill
    elif backend is None:
        if view["enable_deterministic_inference"]:
            backend = deterministic_backend(view)
        else:
            backend = default_attention_backend(view)
    if backend == "fa3" and view["kv_cache_dtype"] == "fp8_e5m2":
        backend = "triton"
    return backend


def attention_backends(view: ResolvingView) -> tuple[str, str]:
    """(prefill, decode) backends: a written split backend, else the attention backend (`attention_backends_of`)."""
    backend = attention_backend(view)
    return view["prefill_attention_backend"] or backend, view["decode_attention_backend"] or backend


def dp_attention(view: ResolvingView) -> bool:
    """Attention DP runs (`attn_dp_enabled_of`)."""
    return attn_dp_enabled(view)


def no_speculation(view: ResolvingView) -> Fix | None:
    """The last resort: no speculative decoding."""
    return remove(view, "speculative_algorithm", "--speculative-algorithm", " (no speculative decoding)")


def dp_lm_head(view: ResolvingView) -> Fix:
    """`--enable-dp-lm-head`: keeps every value the user wrote."""
    return Fix.safe(Set("enable_dp_lm_head", True), title="Add --enable-dp-lm-head")


def no_attention_dp(view: ResolvingView) -> Fix | None:
    """Remove a written `--attn-dp-size` (one attention group)."""
    return remove(view, "attn_dp_size", "--attn-dp-size", " (no attention DP)")


def no_attention_cp(view: ResolvingView) -> Fix | None:
    """Remove a written `--attn-cp-size` (no attention context parallelism)."""
    return remove(view, "attn_cp_size", "--attn-cp-size", " (no attention context parallelism)")


def pp1(view: ResolvingView) -> Fix | None:
    """Remove a written `--pp-size` (one pipeline stage)."""
    return remove(view, "pp_size", "--pp-size", " (one pipeline stage)")
