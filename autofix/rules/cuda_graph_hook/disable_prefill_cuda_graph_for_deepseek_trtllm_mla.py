"""``disable_prefill_cuda_graph_for_deepseek_trtllm_mla`` (``arg_groups/cuda_graph_hook.py:279``, 0.5.23)."""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView, Unknown
from autofix.rules.shared import PREFILL, prefill_attention_backend, prefill_locked


def deepseek_v3_prefill_attention(view: ResolvingView) -> str | None:
    """DeepSeek-V3's prefill attention backend after the model overrides: the one written, else `trtllm_mla` on
    SM100 (model_overrides/deepseek_v2.py:185); elsewhere SGLang's default fill, which is not `trtllm_mla`."""
    written = prefill_attention_backend(view)
    if written is not None:
        return written
    if view["decode_attention_backend"] is not None:
        raise Unknown("prefill_attention_backend")  # the default fill next to a decode backend: not modelled
    return "trtllm_mla" if view.fact("platform.is_sm100") else None


@derivation(step="disable_prefill_cuda_graph_for_deepseek_trtllm_mla", at="arg_groups/cuda_graph_hook.py:306",
            writes=(PREFILL,))
def deepseek_trtllm_mla_disables_prefill_graph(view: ResolvingView) -> dict | None:
    """DeepSeek-V3 on the `trtllm_mla` attention backend runs prefill without a CUDA graph, unless a flag chose one.

    Needs the model (`model.architecture`); without it no model default is modelled.
    """
    if prefill_locked(view) or view[PREFILL] == "disabled" or not view.fact("model.given"):
        return None
    if view.fact("model.architecture") != "DeepseekV3ForCausalLM":
        return None
    if deepseek_v3_prefill_attention(view) != "trtllm_mla":
        return None
    return {PREFILL: "disabled"}
