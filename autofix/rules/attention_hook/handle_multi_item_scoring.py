"""``handle_multi_item_scoring`` (``arg_groups/attention_hook.py:526``, 0.5.23): only the decode CUDA graph it turns off."""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView
from autofix.rules.cuda_graph_hook import DECODE


@derivation(step="handle_multi_item_scoring", at="arg_groups/attention_hook.py:541", writes=(DECODE,))
def multi_item_scoring_disables_decode_graph(view: ResolvingView) -> dict | None:
    """`--enable-mis` turns the decode CUDA graph off."""
    return {DECODE: "disabled"} if view["enable_mis"] else None
