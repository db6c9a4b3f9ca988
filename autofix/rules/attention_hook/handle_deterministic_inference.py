"""``handle_deterministic_inference`` (``arg_groups/attention_hook.py:580``, 0.5.23).

Only what the modelled checks read: an RL on-policy target turns deterministic inference on (UNO refuses it,
SPEC034). The attention backend it picks for deterministic inference is not modelled."""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView


@derivation(step="handle_deterministic_inference", at="arg_groups/attention_hook.py:588",
            writes=("enable_deterministic_inference",))
def rl_on_policy_target_is_deterministic(view: ResolvingView) -> dict | None:
    """`--rl-on-policy-target` turns deterministic inference on (a store_true flag: nothing the user set is lost)."""
    if view["rl_on_policy_target"] is None:
        return None
    return {"enable_deterministic_inference": True}
