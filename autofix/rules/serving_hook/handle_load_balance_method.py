"""``handle_load_balance_method`` (``arg_groups/serving_hook.py:217``, 0.5.23): what `--load-balance-method auto` resolves to."""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView


@derivation(step="handle_load_balance_method", at="arg_groups/serving_hook.py:227", writes=("load_balance_method",))
def load_balance_method_default(view: ResolvingView) -> dict | None:
    """`auto` becomes `follow_bootstrap_room` on a PD prefill server and `round_robin` everywhere else.

    `auto` asks SGLang to choose, so it replaces nothing the user chose: no override.
    """
    if view["load_balance_method"] != "auto":
        return None
    prefill = view["disaggregation_mode"] == "prefill"
    return {"load_balance_method": "follow_bootstrap_room" if prefill else "round_robin"}
