"""``handle_elastic_ep``, the deployment runtime scale-up needs: round-robin load balancing,
the mooncake elastic backend, a DCP size that divides attention TP (parallel_hook.py:671-687)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.parallel_hook.handle_elastic_ep.common import STEP, _attn_tp, _no_scale_up, _scaling_active
from autofix.rules.parallel_hook.handle_elastic_ep.elastic import _mooncake_backend


@settings_rule("EEP028", "elastic-scale-up-round-robin", step=STEP, at="arg_groups/parallel_hook.py:671")
def elastic_scale_up_round_robin(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with a load-balance method other than round robin.

    ## What it does
    Under runtime scale-up, checks that the resolved `--load-balance-method`
    is `round_robin` (`auto` resolves to it, except on a PD prefill server,
    where it is `follow_bootstrap_room`).

    ## Why SGLang refuses it
    The load-aware methods read per-rank load snapshots that do not cover
    ranks added at runtime. SGLang stops on an assert while resolving its
    arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    load-balance-method: total_requests
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    load-balance-method: round_robin
    ```

    ## Fix safety
    Round robin changes how requests are spread over the DP ranks: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:671` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view) or view["load_balance_method"] == "round_robin":
        return None
    return Violation(f"runtime elastic EP scale-up needs --load-balance-method round_robin, not "
                     f"{view['load_balance_method']}", args=("load_balance_method", "disaggregation_mode"))


@elastic_scale_up_round_robin.fix
def _round_robin(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("load_balance_method", "round_robin"), title="Set --load-balance-method to round_robin")


elastic_scale_up_round_robin.fix(_no_scale_up)


@settings_rule("EEP029", "elastic-scale-up-needs-mooncake", step=STEP, at="arg_groups/parallel_hook.py:677")
def elastic_scale_up_needs_mooncake(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with an elastic backend other than Mooncake.

    ## What it does
    Under runtime scale-up, checks for `--elastic-ep-backend` other than
    `mooncake` (`nixl`, or the string `none` argparse stores).

    ## Why SGLang refuses it
    Only the Mooncake backend can grow its communicator at runtime. SGLang
    stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: nixl
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
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
    Switching the elastic backend to `mooncake` changes the communication
    library: unsafe. No runtime scale-up (remove `--max-ep-size`) is the
    other unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:677` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view) or view["elastic_ep_backend"] == "mooncake":
        return None
    return Violation(f"runtime elastic EP scale-up needs --elastic-ep-backend mooncake, not "
                     f"{view['elastic_ep_backend']}", args=("elastic_ep_backend", "max_ep_size"))


elastic_scale_up_needs_mooncake.fix(_mooncake_backend)
elastic_scale_up_needs_mooncake.fix(_no_scale_up)


@settings_rule("EEP031", "elastic-scale-up-dcp-size", step=STEP, at="arg_groups/parallel_hook.py:685")
def elastic_scale_up_dcp_size(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with a DCP size that does not divide the attention TP width.

    ## What it does
    Under runtime scale-up, checks that `--dcp-size` divides the attention
    TP width (`tp_size / attn_dp_size / attn_cp_size`; 1 with attention DP
    over the whole TP group).

    ## Why SGLang refuses it
    Decode context parallelism splits the attention TP group, whose width
    scale-up keeps fixed. SGLang stops on an assert while resolving its
    arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    dcp-size: 2
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
    Removing `--dcp-size` (1) turns decode context parallelism off: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:685` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view):
        return None
    attn_tp = _attn_tp(view)
    dcp = view["dcp_size"]
    if attn_tp is None or (dcp > 0 and attn_tp % dcp == 0):
        return None
    return Violation(f"runtime elastic EP scale-up needs --dcp-size to divide the attention TP width {attn_tp}, "
                     f"not {dcp}", args=("dcp_size", "attn_dp_size"))


@elastic_scale_up_dcp_size.fix
def _no_dcp(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("dcp_size"), title="Remove --dcp-size (1)")


elastic_scale_up_dcp_size.fix(_no_scale_up)
