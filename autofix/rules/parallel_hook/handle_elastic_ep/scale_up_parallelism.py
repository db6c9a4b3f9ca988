"""``handle_elastic_ep``, the parallel layout runtime scale-up needs once the CUDA graphs are
checked: attention DP, the DP LM head, no attention CP, EP over the TP group, the nixl a2a backend
(parallel_hook.py:721-747)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Op, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.parallel_hook.handle_elastic_ep.common import STEP, _attn_tp, _joiner, _no_scale_up, _scaling_active


@settings_rule("EEP041", "elastic-scale-up-needs-attn-dp", step=STEP, at="arg_groups/parallel_hook.py:722")
def elastic_scale_up_needs_attn_dp(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up without attention data parallelism.

    ## What it does
    Under runtime scale-up, checks for `--attn-dp-size` above 1 (a scale
    joiner counts as attention-DP whatever its size).

    ## Why SGLang refuses it
    Without attention DP the TP group is not the whole world of ranks, and
    the collectives after a scale-up would span the wrong group. SGLang
    stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    moe-dense-tp-size: 1
    enable-dp-lm-head: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    moe-dense-tp-size: 1
    enable-dp-lm-head: true
    attn-dp-size: 8
    ```

    ## Fix safety
    Attention DP over the whole TP group changes the scheduler topology:
    unsafe. No runtime scale-up is the other unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:722` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view) or view["attn_dp_size"] > 1 or _joiner(view):
        return None
    return Violation("runtime elastic EP scale-up needs attention DP (--attn-dp-size above 1)",
                     args=("attn_dp_size", "max_ep_size"))


@elastic_scale_up_needs_attn_dp.fix
def _attn_dp_tp(view: ResolvingView) -> Fix | None:
    tp_size = view["tp_size"]
    if tp_size <= 1 or view["dp_size"] > 1:
        return None
    return Fix.unsafe(Set("attn_dp_size", tp_size), title=f"Set --attn-dp-size to {tp_size} (the --tp-size)")


elastic_scale_up_needs_attn_dp.fix(_no_scale_up)


@settings_rule("EEP042", "elastic-scale-up-needs-dp-lm-head", step=STEP, at="arg_groups/parallel_hook.py:727")
def elastic_scale_up_needs_dp_lm_head(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up without the DP LM head.

    ## What it does
    Under runtime scale-up, checks that `--enable-dp-lm-head` resolves on
    (SGLang turns it off when there is a single DP rank).

    ## Why SGLang refuses it
    A TP-sharded output projection would depend on the joining group's TP
    size. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    ```

    ## Fix safety
    The DP LM head replicates the output projection on every DP rank (more
    memory): unsafe. SGLang keeps it only with more than one DP rank (DP005):
    without attention DP the fix also sets `--attn-dp-size` to the
    `--tp-size`, which changes the scheduler topology. No runtime scale-up is
    the other unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:727` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view) or view["enable_dp_lm_head"]:
        return None
    return Violation("runtime elastic EP scale-up needs --enable-dp-lm-head", args=("enable_dp_lm_head", "max_ep_size"))


@elastic_scale_up_needs_dp_lm_head.fix
def _dp_lm_head(view: ResolvingView) -> Fix | None:
    """`--enable-dp-lm-head`, with the DP ranks it needs: on a single one (no attention DP, no replicas) SGLang turns
    the flag off (DP005), written or not, so attention DP over the TP group comes with it, as EEP041's fix sets it.
    A scale joiner keeps the flag whatever its DP ranks."""
    ops, titles = [], []
    if view["dp_size"] * view["attn_dp_size"] == 1 and not _joiner(view):
        tp_size = view["tp_size"]
        if tp_size <= 1:
            return None  # no attention DP on one GPU: only no scale-up is left
        ops.append(Set("attn_dp_size", tp_size))
        titles.append(f"Set --attn-dp-size to {tp_size} (the --tp-size)")
    if view.written("enable_dp_lm_head") is not True:
        ops.append(Set("enable_dp_lm_head", True))
        titles.append("add --enable-dp-lm-head" if titles else "Add --enable-dp-lm-head")
    return Fix.unsafe(*ops, title=" and ".join(titles))


elastic_scale_up_needs_dp_lm_head.fix(_no_scale_up)


@settings_rule("EEP043", "elastic-scale-up-attn-cp", step=STEP, at="arg_groups/parallel_hook.py:731")
def elastic_scale_up_attn_cp(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with attention context parallelism.

    ## What it does
    Under runtime scale-up, checks for `--attn-cp-size` other than 1.

    ## Why SGLang refuses it
    Scale-up adds attention replicas of a fixed TP width and no CP
    dimension. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 4
    attn-cp-size: 2
    moe-dense-tp-size: 1
    enable-dp-lm-head: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 4
    moe-dense-tp-size: 1
    enable-dp-lm-head: true
    ```

    ## Fix safety
    Removing `--attn-cp-size` (1) turns attention CP off: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:731` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view) or _attn_tp(view) is None or view["attn_cp_size"] == 1:
        return None
    return Violation(f"runtime elastic EP scale-up needs --attn-cp-size 1, not {view['attn_cp_size']}",
                     args=("attn_cp_size", "max_ep_size"))


@elastic_scale_up_attn_cp.fix
def _no_attn_cp(view: ResolvingView) -> Fix:
    ops = [Unset("attn_cp_size")]
    if view.is_explicit("moe_dp_size"):
        ops.append(Unset("moe_dp_size"))  # it must equal the CP size or be 1 (parallel_hook.py:190)
    return Fix.unsafe(*ops, title="Remove --attn-cp-size (1)")


elastic_scale_up_attn_cp.fix(_no_scale_up)


@settings_rule("EEP045", "elastic-scale-up-ep-is-tp", step=STEP, at="arg_groups/parallel_hook.py:739")
def elastic_scale_up_ep_is_tp(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up whose resolved `ep_size` is not `--tp-size`.

    ## What it does
    Under runtime scale-up, checks that the resolved `ep_size` equals
    `--tp-size`. The `nixl` a2a backend that scale-up needs (EEP046) makes
    it so; without an EP-spanning backend `ep_size` is `--ep-size` (1).

    ## Why SGLang refuses it
    The physical EP group must be the launch-time TP group that joiners
    extend. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    attn-dp-size: 8
    enable-dp-lm-head: true
    cuda-graph-backend-prefill: disabled
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    attn-dp-size: 8
    enable-dp-lm-head: true
    cuda-graph-backend-prefill: disabled
    moe-a2a-backend: nixl
    ```

    ## Fix safety
    `--moe-a2a-backend nixl` (needed anyway, EEP046) makes `ep_size` the
    `--tp-size` but changes the communication path: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:739` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view):
        return None
    ep_size, tp_size = view["ep_size"], view["tp_size"]
    if ep_size == tp_size:
        return None
    return Violation(f"runtime elastic EP scale-up needs ep_size == --tp-size ({tp_size}), but it resolves to {ep_size}",
                     args=("ep_size", "moe_a2a_backend", "max_ep_size"))


def _nixl(view: ResolvingView) -> Fix | None:
    if view["dwdp_size"] > 1:
        return None  # DWDP forces the backend back to none
    ops: list[Op] = [Set("moe_a2a_backend", "nixl")]
    if view["enable_waterfill"]:
        ops.append(Unset("enable_waterfill"))  # Waterfill would make it deepep
    return Fix.unsafe(*ops, title="Set --moe-a2a-backend to nixl")


elastic_scale_up_ep_is_tp.fix(_nixl)
elastic_scale_up_ep_is_tp.fix(_no_scale_up)


@settings_rule("EEP046", "elastic-scale-up-needs-nixl", step=STEP, at="arg_groups/parallel_hook.py:744")
def elastic_scale_up_needs_nixl(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with an MoE a2a backend other than NIXL.

    ## What it does
    Under runtime scale-up, checks that the resolved `--moe-a2a-backend` is
    `nixl` (after `--enable-waterfill`, DWDP and the other steps that
    replace it).

    ## Why SGLang refuses it
    Only the NIXL dispatcher follows EP ranks that join at runtime. SGLang
    stops on an assert while resolving its arguments. (With an a2a backend
    that leaves the prefill CUDA graph on, SGLang stops earlier, at the
    prefill graph check, line 696.)

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: deepep
    attn-dp-size: 8
    enable-dp-lm-head: true
    cuda-graph-backend-prefill: disabled
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    cuda-graph-backend-prefill: disabled
    ```

    ## Fix safety
    `--moe-a2a-backend nixl` changes the communication path: unsafe. No
    runtime scale-up is the other unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:744` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view) or view["moe_a2a_backend"] == "nixl":
        return None
    return Violation(f"runtime elastic EP scale-up needs --moe-a2a-backend nixl, not {view['moe_a2a_backend']}",
                     args=("moe_a2a_backend", "max_ep_size"))


elastic_scale_up_needs_nixl.fix(_nixl)
elastic_scale_up_needs_nixl.fix(_no_scale_up)
