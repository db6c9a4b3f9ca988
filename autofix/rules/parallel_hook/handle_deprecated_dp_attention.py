"""``handle_deprecated_dp_attention`` (``arg_groups/parallel_hook.py:39``, 0.5.23): the old `--enable-dp-attention` layout."""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView


@derivation(step="handle_deprecated_dp_attention", at="arg_groups/parallel_hook.py:53",
            writes=("attn_dp_size", "dp_size"))
def deprecated_dp_attention_layout(view: ResolvingView) -> dict | None:
    """`--dp-size N --enable-dp-attention` runs as `--attn-dp-size N` (DP001).

    With `--attn-dp-size` already above 1 the replicas stay (and DP003
    refuses them). The argparse stage reports the flag (DEP001), so this
    declaration does not warn again.
    """
    if not view["enable_dp_attention"] or view["attn_dp_size"] != 1:
        return None
    return {"attn_dp_size": view["dp_size"], "dp_size": 1}
