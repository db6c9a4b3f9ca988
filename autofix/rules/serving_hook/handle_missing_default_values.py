"""``handle_missing_default_values`` (``arg_groups/serving_hook.py``, 0.5.23): only what the modelled checks read.

``--quantization unquant`` is an explicit opt-out of quantization: SGLang
resolves it to no quantization, and no later step detects one from the
checkpoint (``_quantization_explicitly_unset``; see
``model_hook/handle_model_specific_adjustments.py``).
"""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView


@derivation(step="handle_missing_default_values", at="arg_groups/serving_hook.py:696", writes=("quantization",))
def unquant_is_no_quantization(view: ResolvingView) -> dict | None:
    """`--quantization unquant` resolves to no quantization."""
    return {"quantization": None} if view["quantization"] == "unquant" else None


@derivation(step="handle_missing_default_values", at="arg_groups/serving_hook.py:686",
            writes=("speculative_draft_model_quantization",))
def draft_quantization_default(view: ResolvingView) -> dict | None:
    """The draft model's quantization defaults to the target's, as written (`unquant` included) (SPEC089)."""
    if view["speculative_draft_model_quantization"] is not None:
        return None
    return {"speculative_draft_model_quantization": view["quantization"]}


@derivation(step="handle_missing_default_values", at="arg_groups/serving_hook.py:705",
            writes=("speculative_draft_model_quantization",))
def draft_unquant_is_no_quantization(view: ResolvingView) -> dict | None:
    """A draft quantization `unquant` (written, or inherited) resolves to no quantization."""
    return {"speculative_draft_model_quantization": None} \
        if view["speculative_draft_model_quantization"] == "unquant" else None
