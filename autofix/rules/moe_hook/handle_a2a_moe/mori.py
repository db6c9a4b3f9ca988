"""``handle_a2a_moe``, the ``mori`` a2a backend (``arg_groups/moe_hook.py:543-573``)."""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:546", writes=("deepep_mode",))
def mori_deepep_mode_default(view: ResolvingView) -> dict | None:
    """MoRI resolves `--deepep-mode auto` to `normal` (A2A039; `auto` only: no override).

    MoRI EPv2 also turns an explicit `low_latency` into `normal`
    (moe_hook.py:553); whether EPv2 is used depends on environment variables
    and the model's dtype and architecture, so that override is not modelled.
    """
    if view["moe_a2a_backend"] != "mori" or view["deepep_mode"] != "auto":
        return None
    return {"deepep_mode": "normal"}
