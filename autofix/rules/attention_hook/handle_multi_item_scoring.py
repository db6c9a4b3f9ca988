"""``handle_multi_item_scoring`` (``arg_groups/attention_hook.py:526``, 0.5.23): the decode CUDA graph and the radix
cache and chunked prefill it turns off (not yet: the prefill graph)."""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView
from autofix.rules.shared import DECODE


@derivation(step="handle_multi_item_scoring", at="arg_groups/attention_hook.py:541", writes=(DECODE,))
def multi_item_scoring_disables_decode_graph(view: ResolvingView) -> dict | None:
    """`--enable-mis` turns the decode CUDA graph off."""
    return {DECODE: "disabled"} if view["enable_mis"] else None


@derivation(step="handle_multi_item_scoring", at="arg_groups/attention_hook.py:558", writes=("disable_radix_cache",))
def multi_item_scoring_disables_radix_cache(view: ResolvingView) -> dict | None:
    """`--enable-mis` turns the radix cache off (`--disable-radix-cache` is a store-true flag: no value the user
    wrote is replaced)."""
    return {"disable_radix_cache": True} if view["enable_mis"] else None


@derivation(step="handle_multi_item_scoring", at="arg_groups/attention_hook.py:566", writes=("chunked_prefill_size",))
def multi_item_scoring_disables_chunked_prefill(view: ResolvingView) -> dict | None:
    """`--enable-mis` turns chunked prefill off (-1). SGLang logs it; a written `--chunked-prefill-size` it replaces
    gets no warning from autofix yet."""
    return {"chunked_prefill_size": -1} if view["enable_mis"] else None
