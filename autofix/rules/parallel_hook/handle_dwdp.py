"""``handle_dwdp`` (``arg_groups/parallel_hook.py``, 0.5.23): the layout DWDP declares."""

from __future__ import annotations

from autofix.model import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView


def _dwdp(view: ResolvingView) -> str:
    return f"--dwdp-size {view['dwdp_size']}"


@derivation(step="handle_dwdp", at="arg_groups/parallel_hook.py:485", writes=("ep_size",),
            code="DWDP008", name="dwdp-overrides-layout", cause=_dwdp)
def dwdp_overrides_layout(view: ResolvingView) -> dict | None:
    """DWDP sets `ep_size` to `--dwdp-size` and the MoE a2a backend to `none`.

    ## What it does
    Warns at an `--ep-size` or a `--moe-a2a-backend` that `--dwdp-size`
    (above 1) replaces.

    ## Why it matters
    DWDP partitions the experts over its own group and exchanges weights,
    not tokens: the expert-parallel size is the DWDP size and no a2a backend
    runs, whatever the config says; checks after DWDP (EP003) see `none`.

    ## Example
    ```yaml
    tp-size: 8
    dwdp-size: 8
    ep-size: 2
    moe-a2a-backend: deepep
    ```
    Use instead:
    ```yaml
    tp-size: 8
    dwdp-size: 8
    ep-size: 8
    ```

    ## Fix safety
    Writing the values DWDP uses (the size; no backend) resolves the launch
    to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:485` and `:495` (`handle_dwdp`, 0.5.23)
    """
    if view["dwdp_size"] <= 1:
        return None
    return {"ep_size": view["dwdp_size"]}


@derivation(step="handle_dwdp", at="arg_groups/parallel_hook.py:495", writes=("moe_a2a_backend",),
            code="DWDP008", name="dwdp-overrides-layout", cause=_dwdp)
def dwdp_a2a_backend(view: ResolvingView) -> dict | None:
    """DWDP sets the MoE a2a backend to `none` (documented with `dwdp_overrides_layout`, DWDP008)."""
    if view["moe_a2a_backend"] == "none":
        return None  # what DWDP would declare, whatever its size
    if view["dwdp_size"] <= 1:
        return None
    return {"moe_a2a_backend": "none"}



@derivation(step="handle_dwdp", at="arg_groups/parallel_hook.py:466", writes=("attn_dp_size", "dp_size"))
def dwdp_attention_dp(view: ResolvingView) -> dict | None:
    """DWDP runs attention DP over its group: `attn_dp_size` = `--dwdp-size`, no replicas (DP003 never sees them)."""
    if view["dwdp_size"] <= 1 or view["dwdp_size"] != view["tp_size"]:
        return None  # DWDP002 (parallel_hook.py:441) refuses a size other than the TP size first
    return {"attn_dp_size": view["dwdp_size"], "dp_size": 1}


@derivation(step="handle_dwdp", at="arg_groups/parallel_hook.py:475", writes=("enable_dp_lm_head",))
def dwdp_dp_lm_head(view: ResolvingView) -> dict | None:
    """DWDP turns the DP LM head on (so `--enable-tp-lm-head-all-to-all` then fails DP011)."""
    if view["dwdp_size"] <= 1 or view["dwdp_size"] != view["tp_size"]:
        return None
    return {"enable_dp_lm_head": True}


@derivation(step="handle_dwdp", at="arg_groups/parallel_hook.py:480", writes=("moe_dense_tp_size",))
def dwdp_dense_tp(view: ResolvingView) -> dict | None:
    """DWDP runs the dense MLP layers without TP: `moe_dense_tp_size` 1 (PAR002 sees 1)."""
    if view["dwdp_size"] <= 1 or view["dwdp_size"] != view["tp_size"]:
        return None
    return {"moe_dense_tp_size": 1}
