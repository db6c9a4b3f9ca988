"""``handle_context_parallelism`` (``arg_groups/parallel_hook.py:94``, 0.5.23): what prefill CP, attention CP and MoE-DP need.

The model-gated checks at the top of the step (CP002–CP008, the CP-TP group
sharing hook) need the model's config and have no rule. The checks here
read the layout as it is *then*: `ep_size` before an EP-spanning a2a
backend sets it to `tp_size` (`handle_a2a_moe` runs later). With
`--enable-prefill-cp`, DeepSeek-family model hooks lay CP out themselves
(attention CP over the TP group, EP = TP) before this step: the layout checks
then read the model's architecture, and without the model's config they stay
silent.
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.model_hook.handle_model_specific_adjustments import DEEPSEEK_OVERRIDE_ARCHS

STEP = "handle_context_parallelism"
# Models whose hooks lay prefill CP out themselves (attn_cp/attn_dp/ep sizes), before this step
# (model_overrides/deepseek_v2.py:37, deepseek_v4_hook.py:220).
CP_RELAYOUT_ARCHITECTURES = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "KimiK25ForConditionalGeneration", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "Glm5NextForConditionalGeneration", "HYV4ForCausalLM",
    "HYV4ForCausalLMNextN", "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM",
    "DeepseekV4ForCausalLM"})


def _divisor_at_most(n: int, most: int) -> int:
    """The largest divisor of ``n`` (> 0) that is at most ``most`` (1 at least)."""
    return max(d for d in range(1, min(n, max(most, 1)) + 1) if n % d == 0)


def _op(dest: str, value: int) -> Set | Unset:
    return Unset(dest) if value == 1 else Set(dest, value)


def _title(ops) -> str:
    flags = {"attn_cp_size": "--attn-cp-size", "moe_dp_size": "--moe-dp-size", "attn_dp_size": "--attn-dp-size",
             "ep_size": "--ep-size"}
    return ", ".join(f"Remove {flags[op.dest]}" if isinstance(op, Unset) else f"Set {flags[op.dest]} to {op.value}"
                     for op in ops)


def _set_or_unset(dest: str, value: int) -> Fix:
    """`dest` := ``value`` (the default 1: the setting removed), unsafe: it changes the parallel layout."""
    return Fix.unsafe(_op(dest, value), title=_title([_op(dest, value)]))


def _cp_and_moe_dp(view: ResolvingView, dest: str, value: int) -> Fix:
    """`dest` (attention CP or MoE-DP) := ``value``, and the other one with it while the two are equal (CP018)."""
    other = "moe_dp_size" if dest == "attn_cp_size" else "attn_cp_size"
    ops = [_op(dest, value)]
    if view[other] == view[dest] and view[other] != value:
        ops.append(_op(other, value))
    return Fix.unsafe(*ops, title=_title(ops))


def _layout_as_written(view: ResolvingView) -> bool:
    """Whether the CP layout the checks see is the one SGLang checks: with prefill CP, DeepSeek-family model hooks
    re-lay it. The MLA layout is modelled (A2A060, model_hook); the others are not, so the checks stay silent for
    them, and without the model's config (its architecture is read)."""
    if not view["enable_prefill_cp"]:
        return True
    return view.fact("model.architecture") not in CP_RELAYOUT_ARCHITECTURES - DEEPSEEK_OVERRIDE_ARCHS


def _aiter_fusion_on(view: ResolvingView) -> bool:
    # deterministic inference turns the fusion off before this step (attention_hook.py:599)
    if view["enable_deterministic_inference"] or view["rl_on_policy_target"] is not None:
        return False
    return bool(view["enable_aiter_allreduce_fusion"])


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


@attn_cp_excludes_aiter_fusion.fix
def _no_aiter_fusion(view: ResolvingView) -> Fix:
    return Fix.safe(Unset("enable_aiter_allreduce_fusion"), title="Remove --enable-aiter-allreduce-fusion")


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
