"""``handle_layernorm_sp`` (``arg_groups/layernorm_sp_hook.py:15``, 0.5.23): LayerNorm sequence parallelism.

Only its first check runs before the model is read. The others (SP002 to
SP008) come after an architecture allow-list (Qwen3 dense and Muse Spark)
and are not modelled: with any other model SGLang refuses the flag there.
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView


@settings_rule("SP001", "megamoe-for-layernorm-sp-needs-sp", step="handle_layernorm_sp",
               at="arg_groups/layernorm_sp_hook.py:25")
def megamoe_for_layernorm_sp_needs_sp(view: ResolvingView) -> Violation | None:
    """Flag `--enable-megamoe-for-layernorm-sp` without `--enable-layernorm-sp`.

    ## What it does
    Checks for `--enable-megamoe-for-layernorm-sp` while LayerNorm sequence
    parallelism (`--enable-layernorm-sp`) is off.

    ## Why SGLang refuses it
    The flag runs the MoE layers of the sequence-parallel region with
    MegaMoE; without that region it has nothing to apply to. SGLang raises
    a ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    enable-megamoe-for-layernorm-sp: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    enable-megamoe-for-layernorm-sp: true
    enable-layernorm-sp: true
    ```
    (on Muse Spark, the one model that takes both), or neither flag.

    ## Fix safety
    Turning LayerNorm SP on keeps every value the user wrote: safe, offered
    when the settings leave it possible (`--tp-size` above 1, no attention
    DP, no `--pp-size` above 1, no speculative algorithm but `DFLASH`). It
    is Muse Spark only: with another model SGLang then refuses the MegaMoE
    flag. Removing `--enable-megamoe-for-layernorm-sp` is unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/layernorm_sp_hook.py:25` (`handle_layernorm_sp`, 0.5.23)
    """
    if not view["enable_megamoe_for_layernorm_sp"] or view["enable_layernorm_sp"]:
        return None
    return Violation("--enable-megamoe-for-layernorm-sp needs --enable-layernorm-sp",
                     args=("enable_megamoe_for_layernorm_sp", "enable_layernorm_sp"))


@megamoe_for_layernorm_sp_needs_sp.fix
def _enable_layernorm_sp(view: ResolvingView) -> Fix | None:
    algorithm = view["speculative_algorithm"]
    if view["tp_size"] <= 1 or view["attn_dp_size"] > 1 or view["pp_size"] > 1 or algorithm not in (None, "DFLASH"):
        return None  # SGLang refuses layernorm SP with these (layernorm_sp_hook.py:136, :173, :181, :187)
    return Fix.safe(Set("enable_layernorm_sp", True), title="Add --enable-layernorm-sp")


@megamoe_for_layernorm_sp_needs_sp.fix
def _no_megamoe_for_sp(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("enable_megamoe_for_layernorm_sp"), title="Remove --enable-megamoe-for-layernorm-sp")
