"""``handle_kv_cache_sharding`` (``arg_groups/kv_shard_hook.py:87``, 0.5.23): only the CUDA graphs it turns off."""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView
from autofix.rules.shared import DECODE, PREFILL


@derivation(step="handle_kv_cache_sharding", at="arg_groups/kv_shard_hook.py:343", writes=(DECODE, PREFILL))
def kv_cache_sharding_disables_cuda_graphs(view: ResolvingView) -> dict | None:
    """`--enable-kv-cache-sharding` turns the prefill CUDA graph off, and the decode one with speculative decoding."""
    if not view["enable_kv_cache_sharding"]:
        return None
    out = {PREFILL: "disabled"}
    if view["speculative_algorithm"] is not None:
        out[DECODE] = "disabled"
    return out
