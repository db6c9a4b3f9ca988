"""What the modules of ``handle_a2a_moe`` share: fixes and tests the checks of several a2a backends use."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set
from autofix.pipeline.view import ResolvingView


def _attn_dp_tp_size(view: ResolvingView) -> Fix | None:
    """`--attn-dp-size` = `--tp-size`: attention data parallelism over the whole TP group."""
    tp_size = view["tp_size"]
    if tp_size <= 1 or view["dp_size"] > 1:
        return None  # attention DP needs tp > 1; DP replicas refuse attention DP (parallel_hook.py:288)
    return Fix.unsafe(Set("attn_dp_size", tp_size), title=f"Set --attn-dp-size to {tp_size} (the --tp-size)")


def _deepep_a2a(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("moe_a2a_backend", "deepep"), title="Set --moe-a2a-backend to deepep")


def _attn_dp_tp_message(a2a: str, view: ResolvingView) -> str:
    """A2A015 and A2A029: what the backend needs, and what is in the way."""
    tp_size, attn_dp_size = view["tp_size"], view["attn_dp_size"]
    needs = f"--moe-a2a-backend {a2a} needs attention DP over the whole TP group"
    if tp_size == 1:
        return f"{needs}, which one GPU (--tp-size 1) does not have: use another a2a backend, or none"
    return (f"{needs} (--attn-dp-size {tp_size}, the --tp-size), not --attn-dp-size {attn_dp_size}; or another a2a "
            "backend, such as deepep (which one is your call)")


def _attn_dp_over_tp(view: ResolvingView) -> bool:
    """SGLang's `attn_dp_enabled and attn_dp_size == tp_size` (a scale joiner counts as attention DP)."""
    attn_dp_size = view["attn_dp_size"]
    return (attn_dp_size > 1 or view["ep_join_mode"] == "scale") and attn_dp_size == view["tp_size"]


def _deep_gemm_runner(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("moe_runner_backend", "deep_gemm"), title="Set --moe-runner-backend to deep_gemm")
