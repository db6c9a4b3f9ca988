"""SGLang's ``arg_groups/cuda_graph_hook.py`` (0.5.23): one module per step, and the breakable-graph rules they share.

SGLang resolves one composite value, ``cuda_graph_config`` (a backend, batch
sizes and more per phase, decode and prefill). autofix models only the two
backends, and declares them on the settings they are built from:
``cuda_graph_backend_decode`` and ``cuda_graph_backend_prefill`` hold, from
``handle_cuda_graph_config`` on, the backend each phase runs (``full``,
``breakable`` or ``disabled``), not what the user wrote. The steps that
change a backend between that step and ``handle_elastic_ep`` (the last that
reads one) are modelled at their own steps; later ones are not. The two dests
(``DECODE``, ``PREFILL``) and whether a flag chose a phase's backend are read by
other hooks too: they are in ``autofix/rules/shared.py``.
"""

from __future__ import annotations

from autofix.pipeline.view import ResolvingView
from autofix.rules.shared import prefill_attention_backend


def supports_prefill_cp_bcg(view: ResolvingView, attention: str | None) -> bool:
    """Whether prefill CP can capture a breakable graph (``layers/cp/bcg/__init__.py:42``), with prefill
    attention backend ``attention``: zigzag over ``trtllm_mha``, or interleave over ``dsa`` for GLM-5 Next."""
    if not (view["enable_prefill_cp"] and view["pp_size"] == 1 and view["attn_cp_size"] == view["tp_size"]):
        return False
    strategy = view["cp_strategy"]
    if strategy == "zigzag":
        return attention == "trtllm_mha"
    if strategy == "interleave" and attention == "dsa":
        return (view["dp_size"] == 1 and view["ep_size"] == 1 and view["attn_cp_size"] > 1
                and view.fact("model.architecture") == "Glm5NextForConditionalGeneration")
    return False


def breakable_incompatible(view: ResolvingView) -> bool:
    """Whether a breakable prefill graph is turned off for this launch (cuda_graph_hook.py:170). Every rule
    turns it off, so their order does not matter: the flags' rules are read first (``flags_turn_off_breakable``),
    the model's last (unknown without the model, and only read when the flags do not decide)."""
    if flags_turn_off_breakable(view):
        return True
    bcg = supports_prefill_cp_bcg(view, prefill_attention_backend(view))
    if view.fact("model.uses_kda_attention") and view.fact("model.architecture") != "Glm5NextForConditionalGeneration":
        return True
    if view.fact("model.is_deepseek_v4") and not bcg:
        return True
    return bool(view.fact("model.is_multimodal_without_breakable_graph"))


def flags_turn_off_breakable(view: ResolvingView) -> bool:
    """The rules of ``breakable_incompatible`` that the settings alone decide (PP's, cuda_graph_hook.py:146,
    included)."""
    if view["pp_size"] > 1 or view["dcp_size"] > 1 or view["enable_two_batch_overlap"]:
        return True
    if view["moe_a2a_backend"] not in ("none", "deepep", "megamoe", "flashinfer"):
        return True
    return view["attn_cp_size"] > 1 and not supports_prefill_cp_bcg(view, prefill_attention_backend(view))


def compatible_prefill(view: ResolvingView, backend: str) -> str:
    """The prefill backend after ``apply_cuda_graph_compatibility`` (cuda_graph_hook.py:136), unlocked."""
    if backend == "breakable" and breakable_incompatible(view):
        return "disabled"
    return backend
