"""``apply_prefill_cp_cuda_graph_default`` (``arg_groups/cuda_graph_hook.py:104``, 0.5.23): prefill CP's graph.

Runs only with ``--enable-prefill-cp`` (pipeline.py:279). Where prefill CP
can capture a breakable graph, it selects one (then the compatibility and
PD-role rules run again).
"""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView, Unknown
from autofix.rules.cuda_graph_hook import compatible_prefill, supports_prefill_cp_bcg
from autofix.rules.cuda_graph_hook.disable_prefill_cuda_graph_for_deepseek_trtllm_mla import (
    deepseek_v3_prefill_attention,
)
from autofix.rules.shared import PREFILL, prefill_attention_backend, prefill_locked


def _resolved_prefill_attention(view: ResolvingView) -> str:
    """The prefill attention backend by this step: the one written, or DeepSeek-V3's SM100 default."""
    if view.fact("model.given") and view.fact("model.architecture") == "DeepseekV3ForCausalLM":
        backend = deepseek_v3_prefill_attention(view)
    else:
        backend = prefill_attention_backend(view)
    if backend is None:
        raise Unknown("attention_backend")  # SGLang's default fill is not modelled
    return backend


@derivation(step="apply_prefill_cp_cuda_graph_default", at="arg_groups/cuda_graph_hook.py:114", writes=(PREFILL,))
def prefill_cp_breakable_graph(view: ResolvingView) -> dict | None:
    """With prefill CP that supports it (zigzag over `trtllm_mha`, ...), the prefill CUDA graph is `breakable`."""
    if not view["enable_prefill_cp"] or prefill_locked(view):
        return None
    if view["cp_strategy"] not in ("zigzag", "interleave") or view["pp_size"] != 1 \
            or view["attn_cp_size"] != view["tp_size"]:
        return None  # no CP graph support whatever the attention backend
    if not supports_prefill_cp_bcg(view, _resolved_prefill_attention(view)):
        return None
    backend = compatible_prefill(view, "breakable")
    if view["disaggregation_mode"] == "decode":
        backend = "disabled"
    return {PREFILL: backend}
