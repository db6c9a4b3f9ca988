"""What several hooks derive the same way, in one place every hook package may import.

SGLang's hook modules share such values through ``arg_groups/overrides.py``
(``attention_backends_of``, the attention backend defaults) and
``runtime_context.py`` (``attn_dp_enabled_of``), and import another hook
module only for a step of that hook. autofix's hook packages do the same
(``tests/rules/test_hook_imports.py`` allows a hook package to import another
only where SGLang's hook modules import each other): what the checks of
several hook packages read lives here (and the fix builders they share in
``autofix/rules/fixes.py``). This module imports no hook package.
"""

from __future__ import annotations

from autofix.pipeline.view import ResolvingView, Unknown

# The CUDA graph backend of each phase, as autofix models cuda_graph_config (cuda_graph_hook/__init__.py)
DECODE = "cuda_graph_backend_decode"
PREFILL = "cuda_graph_backend_prefill"


def decode_locked(view: ResolvingView) -> bool:
    """Whether a flag chose the decode backend (SGLang's ``_cuda_graph_config_locked``, cuda_graph_hook.py:32):
    the defaulting steps leave it alone then."""
    return bool(view["disable_cuda_graph"] or view["disable_decode_cuda_graph"]
                or view.written(DECODE) is not None)


def prefill_locked(view: ResolvingView) -> bool:
    """Whether a flag chose the prefill backend (see ``decode_locked``)."""
    return bool(view["disable_cuda_graph"] or view["disable_prefill_cuda_graph"]
                or view.written(PREFILL) is not None)


# The attention backends (attention_backends_of and the defaults, overrides.py and model_override_base.py)


def prefill_attention_backend(view: ResolvingView) -> str | None:
    """The prefill attention backend as declared so far (``attention_backends_of``, model_override_base.py:138)."""
    return view["prefill_attention_backend"] or view["attention_backend"]


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


# Architectures whose fallback on Blackwell is Triton, not FlashInfer (overrides.py:1048)
TRITON_FALLBACK = ("DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
                   "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
                   "Glm4MoeLiteForCausalLM")


def chosen_backend(view: ResolvingView) -> str | None:
    """The attention backend before deterministic inference falls back (None: none chosen).

    HPU runs `torch_native` whatever is written (platform_hook.py:182); on a CPU an unset backend is `intel_amx`
    (`torch_native` on an ARM host, platform_hook.py:165); NPU's defaults are not modelled (unknown). Then the
    written backend, or, with no attention backend of any kind written, the model's override (DeepSeek V3 on
    SM100: `trtllm_mla`, model_overrides/deepseek_v2.py:180).
    """
    written = str(view["device"] or "").split(":")[0]
    if written == "hpu":
        return "torch_native"
    if written == "npu":
        raise Unknown("device")
    backend = view["attention_backend"]
    if backend is None and (written == "cpu" or (not written and view.fact("platform.is_cpu"))):
        return "torch_native" if view.fact("platform.is_host_cpu_arm64") else "intel_amx"
    if backend is None and view["prefill_attention_backend"] is None and view["decode_attention_backend"] is None:
        return model_attention_backend(view)
    return backend


def deterministic_backend(view: ResolvingView) -> str:
    """The attention backend deterministic inference runs with (overrides.py:1096): the chosen one, else Triton
    for the DeepSeek-like architectures on Blackwell, FlashInfer for the others there, FA3 elsewhere."""
    backend = chosen_backend(view)
    if backend is not None:
        return backend
    if view.fact("platform.is_sm100") or view.fact("platform.is_sm120"):
        return "triton" if view.fact("model.architecture") in TRITON_FALLBACK else "flashinfer"
    return "fa3"


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


# Attention DP (attn_dp_enabled_of, runtime_context.py)


def attn_dp_enabled(view: ResolvingView) -> bool:
    """Attention DP runs: more than one attention group, or an elastic-EP scale joiner (runtime_context.py:191)."""
    return view["attn_dp_size"] > 1 or view["ep_join_mode"] == "scale"


def attention_dp_over_tp(view: ResolvingView) -> int:
    """The attention-DP size that fills the TP group next to attention CP: `--tp-size` / `--attn-cp-size`
    (the context-parallel step wants the TP size a multiple of both)."""
    tp, cp = view["tp_size"], view["attn_cp_size"]
    return tp // cp if cp >= 1 and tp % cp == 0 else tp


# The chunked-prefill size


GIB = 1024  # MiB
# (memory below, in MiB -> the chunk size), in SGLang's order (memory_hook.py:89-171); 16384 from 160 GiB up.
CHUNKED_PREFILL_BY_MEMORY = ((20 * GIB, 2048), (35 * GIB, 4096), (60 * GIB, 4096), (90 * GIB, 8192),
                             (160 * GIB, 8192))
LARGEST = 16384


def chunked_prefill_size_for(memory_mib: float) -> int:
    """The chunk size SGLang picks for a GPU with ``memory_mib`` of memory (T4: 2048, H100/H200: 8192, B200: 16384)."""
    for below, size in CHUNKED_PREFILL_BY_MEMORY:
        if memory_mib < below:
            return size
    return LARGEST


def chunked_prefill_size(view) -> int | None:
    """The chunked-prefill size a MoE token-budget check (and PD-Multiplexing's, GEN031) reads, or None when it is
    SGLang's positive default.

    Unset, SGLang sizes it from the GPU memory (2048 tokens and up), and
    attention DP's division leaves it positive: it is read only when the
    user wrote it, or with ``--enable-mis``, which turns chunking off (-1).
    So an unknown default (no ``--gpu``; divided by attention DP) silences
    no check, and the overrides around it keep their pin fixes.
    """
    if not view.is_explicit("chunked_prefill_size") and not view["enable_mis"]:
        return None
    return view["chunked_prefill_size"]


# Architectures whose sm100 MoE defaults SGLang declares (overrides.py:745).
DEEPSEEK_FAMILY = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "KimiK25ForConditionalGeneration", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "Glm5NextForConditionalGeneration", "HYV4ForCausalLM",
    "HYV4ForCausalLMNextN", "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM",
})
# _deepseek_family_overrides is registered for the DeepSeek family (model_overrides/deepseek_v2.py:37).
DEEPSEEK_OVERRIDE_ARCHS = DEEPSEEK_FAMILY

# Every a2a backend that makes expert parallelism span the TP group (overrides.py:1577): the MoE hook's
# runners and a2a checks and the runtime context's EP fixes read it.
EP_SPANNING_A2A = frozenset({"megamoe", "deepep", "deepep_v2", "mooncake", "nixl", "ascend_fuseep", "flashinfer",
                             "flashinfer_megamoe", "mori", "pplx"})
