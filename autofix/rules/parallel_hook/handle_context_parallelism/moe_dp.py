"""``handle_context_parallelism``, MoE data parallelism (``arg_groups/parallel_hook.py:170-193``): the sizes
that divide or fill the TP group next to EP, no PP, no Aiter all-reduce fusion, and attention CP equal to it."""

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
    _title,
)


@settings_rule("CP013", "moe-dp-size-divides-tp", step=STEP, at="arg_groups/parallel_hook.py:172")
def moe_dp_size_divides_tp(view: ResolvingView) -> Violation | None:
    """Flag a MoE data-parallel size that does not divide `--tp-size`.

    ## What it does
    Checks for `--moe-dp-size` above 1 that is not a divisor of
    `--tp-size`.

    ## Why SGLang refuses it
    MoE-DP splits the TP ranks into `moe_dp_size` replicas of the MoE
    layers; a size that does not divide them leaves ranks over. SGLang stops
    on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-cp-size: 3
    moe-dp-size: 3
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-cp-size: 2
    moe-dp-size: 2
    ```

    ## Fix safety
    Lowering `--moe-dp-size` to the largest divisor of `--tp-size` below it
    (and an `--attn-cp-size` equal to it with it, as CP018 asks), or
    removing it, changes the layout: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:172` (`handle_context_parallelism`, 0.5.23)
    """
    if not _layout_as_written(view):
        return None
    moe_dp, tp_size = view["moe_dp_size"], view["tp_size"]
    if moe_dp <= 1 or tp_size % moe_dp == 0:
        return None
    return Violation(f"--moe-dp-size {moe_dp} must divide --tp-size {tp_size}", args=("moe_dp_size", "tp_size"))


@moe_dp_size_divides_tp.fix
def _moe_dp_divisor(view: ResolvingView) -> Fix | None:
    tp_size = view["tp_size"]
    if tp_size < 1:
        return None
    size = _divisor_at_most(tp_size, view["moe_dp_size"])
    return None if size == 1 else _cp_and_moe_dp(view, "moe_dp_size", size)


def _no_moe_dp(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("moe_dp_size"), title="Remove --moe-dp-size")


moe_dp_size_divides_tp.fix(_no_moe_dp)


def _ep_for_moe_dp(view: ResolvingView) -> Fix | None:
    """`--ep-size` := `tp_size // moe_dp_size`, the one EP size > 1 that MoE-DP takes."""
    tp_size, moe_dp = view["tp_size"], view["moe_dp_size"]
    if tp_size % moe_dp:
        return None
    return _set_or_unset("ep_size", tp_size // moe_dp)


def _no_ep_size(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("ep_size"):
        return None
    return Fix.unsafe(Unset("ep_size"), title="Remove --ep-size")


@settings_rule("CP014", "ep-times-moe-dp-within-tp", step=STEP, at="arg_groups/parallel_hook.py:175")
def ep_times_moe_dp_within_tp(view: ResolvingView) -> Violation | None:
    """Flag an expert-parallel size times the MoE-DP size above `--tp-size`.

    ## What it does
    Checks, with `--moe-dp-size` above 1, that `ep_size × moe_dp_size` is
    at most `--tp-size`. It reads `ep_size` before an EP-spanning a2a backend
    sets it to `tp_size` (a later step), as SGLang does.

    ## Why SGLang refuses it
    Each MoE-DP replica holds its own EP group inside the TP ranks, so the
    replicas' EP groups must fit in them. SGLang stops on an assert while
    resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-cp-size: 2
    moe-dp-size: 2
    ep-size: 8
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-cp-size: 2
    moe-dp-size: 2
    ep-size: 4
    ```

    ## Fix safety
    Setting `--ep-size` to `tp_size // moe_dp_size` (or removing it) changes
    the expert layout: unsafe. Removing `--moe-dp-size` is unsafe too.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:175` (`handle_context_parallelism`, 0.5.23)
    """
    if not _layout_as_written(view):
        return None
    moe_dp, ep_size, tp_size = view["moe_dp_size"], view["ep_size"], view["tp_size"]
    if moe_dp <= 1 or ep_size * moe_dp <= tp_size:
        return None
    return Violation(f"--ep-size {ep_size} × --moe-dp-size {moe_dp} exceeds --tp-size {tp_size}",
                     args=("ep_size", "moe_dp_size", "tp_size"))


ep_times_moe_dp_within_tp.fix(_ep_for_moe_dp)
ep_times_moe_dp_within_tp.fix(_no_ep_size)
ep_times_moe_dp_within_tp.fix(_no_moe_dp)


@settings_rule("CP015", "moe-dp-excludes-pp", step=STEP, at="arg_groups/parallel_hook.py:178")
def moe_dp_excludes_pp(view: ResolvingView) -> Violation | None:
    """Flag MoE data parallelism with pipeline parallelism.

    ## What it does
    Checks for `--moe-dp-size` above 1 with `--pp-size` other than 1.
    (SGLang's message says "context parallelism": MoE-DP comes with
    attention CP.)

    ## Why SGLang refuses it
    The MoE-DP groups are laid over the TP ranks of a single pipeline
    stage. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-cp-size: 2
    moe-dp-size: 2
    pp-size: 2
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-cp-size: 2
    pp-size: 2
    ```

    ## Fix safety
    Which to keep, MoE-DP or pipeline stages, is the user's call: removing
    `--moe-dp-size` (first) and removing `--pp-size` are both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:178` (`handle_context_parallelism`, 0.5.23)
    """
    if not _layout_as_written(view):
        return None
    moe_dp, pp_size = view["moe_dp_size"], view["pp_size"]
    if moe_dp <= 1 or pp_size == 1:
        return None
    return Violation(f"--moe-dp-size {moe_dp} does not run with --pp-size {pp_size}; drop one of them",
                     args=("moe_dp_size", "pp_size"))


moe_dp_excludes_pp.fix(_no_moe_dp)


@moe_dp_excludes_pp.fix
def _no_pp(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("pp_size"), title="Remove --pp-size")


@settings_rule("CP016", "ep-times-moe-dp-is-tp", step=STEP, at="arg_groups/parallel_hook.py:181")
def ep_times_moe_dp_is_tp(view: ResolvingView) -> Violation | None:
    """Flag expert parallelism with MoE-DP that does not span `--tp-size` exactly.

    ## What it does
    Checks, with `--moe-dp-size` above 1 and `ep_size` above 1, that
    `ep_size × moe_dp_size` equals `--tp-size`. It reads `ep_size` before an
    EP-spanning a2a backend sets it to `tp_size`, as SGLang does.

    ## Why SGLang refuses it
    With expert parallelism on, each MoE-DP replica's EP group must be the
    whole of its share of the TP ranks. SGLang stops on an assert while
    resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-cp-size: 2
    moe-dp-size: 2
    ep-size: 2
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-cp-size: 2
    moe-dp-size: 2
    ep-size: 4
    ```

    ## Fix safety
    Setting `--ep-size` to `tp_size // moe_dp_size`, or removing it (no
    expert parallelism), changes the expert layout: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:181` (`handle_context_parallelism`, 0.5.23)
    """
    if not _layout_as_written(view):
        return None
    moe_dp, ep_size, tp_size = view["moe_dp_size"], view["ep_size"], view["tp_size"]
    if moe_dp <= 1 or ep_size <= 1 or ep_size * moe_dp == tp_size:
        return None
    if ep_size * moe_dp > tp_size:
        return None  # refused at :175 first (CP014)
    return Violation(f"--ep-size {ep_size} × --moe-dp-size {moe_dp} must equal --tp-size {tp_size}",
                     args=("ep_size", "moe_dp_size", "tp_size"))


ep_times_moe_dp_is_tp.fix(_ep_for_moe_dp)
ep_times_moe_dp_is_tp.fix(_no_ep_size)


@settings_rule("CP017", "moe-dp-excludes-aiter-fusion", step=STEP, at="arg_groups/parallel_hook.py:185")
def moe_dp_excludes_aiter_fusion(view: ResolvingView) -> Violation | None:
    """Flag AITER all-reduce fusion with MoE data parallelism.

    ## What it does
    Checks for `--enable-aiter-allreduce-fusion` (not turned off by
    deterministic inference) while `--moe-dp-size` is above 1. With
    attention CP on as well, CP012 refuses it first.

    ## Why SGLang refuses it
    The fused AITER all-reduce (ROCm) is written for the plain TP group and
    does not know the MoE-DP split. SGLang stops on an assert while
    resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    moe-dp-size: 2
    enable-aiter-allreduce-fusion: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-dp-size: 2
    attn-cp-size: 2
    ```

    ## Fix safety
    Dropping the fusion flag keeps the layout and the model's output; only a
    fused kernel is not used: safe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:185` (`handle_context_parallelism`, 0.5.23)
    """
    if not _layout_as_written(view):
        return None
    if view["moe_dp_size"] <= 1 or not _aiter_fusion_on(view):
        return None
    if view["attn_cp_size"] > 1:
        return None  # refused at :166 first (CP012)
    return Violation(f"--enable-aiter-allreduce-fusion does not run with --moe-dp-size {view['moe_dp_size']}",
                     args=("enable_aiter_allreduce_fusion", "moe_dp_size"))


moe_dp_excludes_aiter_fusion.fix(_no_aiter_fusion)


@settings_rule("CP018", "moe-dp-equals-attn-cp", step=STEP, at="arg_groups/parallel_hook.py:190")
def moe_dp_equals_attn_cp(view: ResolvingView) -> Violation | None:
    """Flag a MoE-DP size other than 1 that differs from the attention CP size.

    ## What it does
    Checks for `--moe-dp-size` other than 1 while it differs from
    `--attn-cp-size` (1 by default). `--moe-dp-size 0` fires too.

    ## Why SGLang refuses it
    MoE-DP replicates the MoE layers over the attention CP groups: each CP
    rank runs its own tokens through its own MoE replica, so the two sizes
    must be equal. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    moe-dp-size: 2
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-dp-size: 2
    attn-cp-size: 2
    ```

    ## Fix safety
    Which size the user meant is not known: making both the written
    `--attn-cp-size` (else the `--moe-dp-size`), taken down to a divisor of
    `--tp-size`, comes first, then removing `--moe-dp-size`; both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:190` (`handle_context_parallelism`, 0.5.23)
    """
    if not _layout_as_written(view):
        return None
    moe_dp, cp_size = view["moe_dp_size"], view["attn_cp_size"]
    if moe_dp == cp_size or moe_dp == 1:
        return None
    return Violation(f"--moe-dp-size {moe_dp} must equal --attn-cp-size {cp_size} (or be 1)",
                     args=("moe_dp_size", "attn_cp_size"))


@moe_dp_equals_attn_cp.fix
def _match_sizes(view: ResolvingView) -> Fix | None:
    moe_dp, cp_size, tp_size = view["moe_dp_size"], view["attn_cp_size"], view["tp_size"]
    if tp_size < 1:
        return None
    if cp_size > 1 and view.is_explicit("attn_cp_size"):
        size = cp_size  # both written: the CP size wins
    elif moe_dp > 1:
        size = moe_dp
    else:
        return None
    size = _divisor_at_most(tp_size, size)  # what CP010 / CP013 would make it
    if size == 1:
        return None
    ops = [Set("moe_dp_size", size), Set("attn_cp_size", size)]
    ops = [op for op in ops if view[op.dest] != size]
    return Fix.unsafe(*ops, title=_title(ops))


moe_dp_equals_attn_cp.fix(_no_moe_dp)
