"""``handle_context_parallelism``, prefill CP's strategy and attention CP (``arg_groups/parallel_hook.py:150-168``):
the sizes that divide the TP group, no Aiter all-reduce fusion."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.parallel_hook.handle_context_parallelism.common import (
    STEP,
    _aiter_fusion_on,
    _cp_and_moe_dp,
    _divisor_at_most,
    _layout_as_written,
    _no_aiter_fusion,
    _set_or_unset,
)


@settings_rule("CP009", "prefill-cp-needs-strategy", step=STEP, at="arg_groups/parallel_hook.py:152")
def prefill_cp_needs_strategy(view: ResolvingView) -> Violation | None:
    """Flag `--enable-prefill-cp` without `--cp-strategy`.

    ## What it does
    Checks for prefill context parallelism turned on while `--cp-strategy`
    is unset. The strategy has no default.

    ## Why SGLang refuses it
    Prefill CP splits each prompt over the CP ranks, and the split (`zigzag`:
    one early and one late block per rank; `interleave`: tokens modulo the CP
    size) must be chosen. SGLang raises a ValueError while resolving its
    arguments.

    ## Example
    ```yaml
    enable-prefill-cp: true
    ```
    Use instead:
    ```yaml
    enable-prefill-cp: true
    cp-strategy: interleave
    ```

    ## Fix safety
    Which strategy fits depends on the model (DeepSeek V3.2 and other DSA
    models take `interleave`, MiMo V2 only `zigzag`), which the flags do not
    tell: both are offered, `interleave` first, as unsafe, and so is dropping
    `--enable-prefill-cp`.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:152` (`handle_context_parallelism`, 0.5.23)
    """
    if not view["enable_prefill_cp"] or view["cp_strategy"] is not None:
        return None
    return Violation("--enable-prefill-cp needs --cp-strategy (no default; interleave or zigzag, which one depends "
                     "on the model)", args=("enable_prefill_cp", "cp_strategy"))


@prefill_cp_needs_strategy.fix
def _interleave(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("cp_strategy", "interleave"), title="Set --cp-strategy to interleave")


@prefill_cp_needs_strategy.fix
def _zigzag(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("cp_strategy", "zigzag"), title="Set --cp-strategy to zigzag")


@prefill_cp_needs_strategy.fix
def _no_prefill_cp(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("enable_prefill_cp"), title="Remove --enable-prefill-cp")


@settings_rule("CP010", "attn-cp-size-divides-tp", step=STEP, at="arg_groups/parallel_hook.py:159")
def attn_cp_size_divides_tp(view: ResolvingView) -> Violation | None:
    """Flag an attention CP size that does not divide `--tp-size`.

    ## What it does
    Checks for `--attn-cp-size` above 1 that is not a divisor of
    `--tp-size` (the world size of the attention and MoE groups).

    ## Why SGLang refuses it
    Attention CP splits the TP ranks into groups of `attn_cp_size`; a size
    that does not divide them leaves ranks over. SGLang stops on an assert
    while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-cp-size: 3
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-cp-size: 2
    ```

    ## Fix safety
    Lowering `--attn-cp-size` to the largest divisor of `--tp-size` below it
    changes the layout: unsafe. Removing it (no attention CP) is unsafe too,
    offered second. A `--moe-dp-size` equal to it moves with it (CP018).

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:159` (`handle_context_parallelism`, 0.5.23)
    """
    if not _layout_as_written(view):
        return None
    cp_size, tp_size = view["attn_cp_size"], view["tp_size"]
    if cp_size <= 1 or tp_size % cp_size == 0:
        return None
    return Violation(f"--attn-cp-size {cp_size} must divide --tp-size {tp_size}", args=("attn_cp_size", "tp_size"))


@attn_cp_size_divides_tp.fix
def _cp_divisor(view: ResolvingView) -> Fix | None:
    tp_size = view["tp_size"]
    if tp_size < 1:
        return None
    size = _divisor_at_most(tp_size, view["attn_cp_size"])
    return None if size == 1 else _cp_and_moe_dp(view, "attn_cp_size", size)


@attn_cp_size_divides_tp.fix
def _no_attn_cp(view: ResolvingView) -> Fix:
    return _cp_and_moe_dp(view, "attn_cp_size", 1)


@settings_rule("CP011", "attn-dp-times-cp-divides-tp", step=STEP, at="arg_groups/parallel_hook.py:162")
def attn_dp_times_cp_divides_tp(view: ResolvingView) -> Violation | None:
    """Flag attention DP times attention CP that does not divide `--tp-size`.

    ## What it does
    Checks, with `--attn-cp-size` above 1, that `attn_dp_size ×
    attn_cp_size` divides `--tp-size`. `attn_dp_size` is the one earlier
    steps resolve (`--dwdp-size` makes it the DWDP size).

    ## Why SGLang refuses it
    Each attention DP group is split again into CP groups; the product of
    the two sizes must tile the TP ranks. SGLang stops on an assert while
    resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 4
    attn-cp-size: 4
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 4
    attn-cp-size: 2
    ```

    ## Fix safety
    Lowering `--attn-cp-size` (first; with a `--moe-dp-size` equal to it) or
    `--attn-dp-size` until the product divides `--tp-size` changes the
    layout: both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:162` (`handle_context_parallelism`, 0.5.23)
    """
    if not _layout_as_written(view):
        return None
    cp_size, dp_size, tp_size = view["attn_cp_size"], view["attn_dp_size"], view["tp_size"]
    if cp_size <= 1 or dp_size == 0:
        return None  # a size of 0 is refused earlier (handle_data_parallelism)
    if tp_size % cp_size or tp_size % (dp_size * cp_size) == 0:
        return None  # (CP010 refuses the first)
    return Violation(f"--attn-dp-size {dp_size} × --attn-cp-size {cp_size} must divide --tp-size {tp_size}",
                     args=("attn_cp_size", "attn_dp_size", "tp_size"))


@attn_dp_times_cp_divides_tp.fix
def _cp_within_dp(view: ResolvingView) -> Fix | None:
    tp_size, dp_size = view["tp_size"], view["attn_dp_size"]
    if dp_size < 1 or tp_size < 1 or tp_size % dp_size:
        return None
    return _cp_and_moe_dp(view, "attn_cp_size", _divisor_at_most(tp_size // dp_size, view["attn_cp_size"]))


@attn_dp_times_cp_divides_tp.fix
def _dp_within_cp(view: ResolvingView) -> Fix | None:
    tp_size, cp_size = view["tp_size"], view["attn_cp_size"]
    if not view.is_explicit("attn_dp_size") or view["dwdp_size"] > 1 or tp_size % cp_size:
        return None  # a derived attention DP size (DWDP) is not the user's to lower
    return _set_or_unset("attn_dp_size", _divisor_at_most(tp_size // cp_size, view["attn_dp_size"]))


@settings_rule("CP012", "attn-cp-excludes-aiter-fusion", step=STEP, at="arg_groups/parallel_hook.py:166")
def attn_cp_excludes_aiter_fusion(view: ResolvingView) -> Violation | None:
    """Flag AITER all-reduce fusion with attention context parallelism.

    ## What it does
    Checks for `--enable-aiter-allreduce-fusion` (not turned off by
    deterministic inference) while `--attn-cp-size` is above 1.

    ## Why SGLang refuses it
    The fused AITER all-reduce (ROCm) is written for the plain TP group and
    does not know the CP split. SGLang stops on an assert while resolving
    its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-cp-size: 2
    enable-aiter-allreduce-fusion: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-cp-size: 2
    ```

    ## Fix safety
    Dropping the fusion flag keeps the layout and the model's output; only a
    fused kernel is not used: safe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:166` (`handle_context_parallelism`, 0.5.23)
    """
    if not _layout_as_written(view):
        return None
    if view["attn_cp_size"] <= 1 or not _aiter_fusion_on(view):
        return None
    return Violation(f"--enable-aiter-allreduce-fusion does not run with attention CP (--attn-cp-size "
                     f"{view['attn_cp_size']})", args=("enable_aiter_allreduce_fusion", "attn_cp_size"))


attn_cp_excludes_aiter_fusion.fix(_no_aiter_fusion)
