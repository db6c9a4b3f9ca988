"""``handle_pd_disaggregation``: runtime PD role switching (pd_disaggregation_hook.py:164-196)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.pd_disaggregation_hook.handle_pd_disaggregation.common import PD_ROLES, STEP
from autofix.rules.shared import attn_dp_enabled


def _unsupported(view: ResolvingView) -> list[str]:
    """The features a role flip does not rebuild, as this step sees them (before the a2a step's EP size and
    Waterfill's backend)."""
    found = []
    if view["ep_size"] > 1:
        found.append(f"--ep-size {view['ep_size']}")
    if view["moe_a2a_backend"] != "none":
        found.append(f"--moe-a2a-backend {view['moe_a2a_backend']}")
    if view["pp_size"] > 1:
        found.append(f"--pp-size {view['pp_size']}")
    if attn_dp_enabled(view) and view["enable_dp_attention_local_control_broadcast"]:
        found.append("--enable-dp-attention-local-control-broadcast")
    if view["dcp_size"] > 1:
        found.append(f"--dcp-size {view['dcp_size']}")
    if view["speculative_algorithm"] is not None:
        found.append(f"--speculative-algorithm {view['speculative_algorithm']}")
    return found


@settings_rule("PD015", "pd-role-switch-limits", step=STEP, at="arg_groups/pd_disaggregation_hook.py:191")
def pd_role_switch_limits(view: ResolvingView) -> Violation | None:
    """Flag runtime PD role switching with a feature a role flip does not rebuild.

    ## What it does
    Checks, on a PD node with `--enable-pd-role-switch`, for any of:
    `--ep-size` above 1, an MoE a2a backend other than `none`, `--pp-size`
    above 1, attention DP with `--enable-dp-attention-local-control-broadcast`,
    `--dcp-size` above 1, a speculative algorithm. It sees the EP size and
    a2a backend as written: the a2a step (which makes `--ep-size` the TP
    size) and `--enable-waterfill` (which picks DeepEP) come later.

    ## Why SGLang refuses it
    A flip between prefill and decode rebuilds only the role's own state;
    expert, pipeline and decode-CP layouts, DP control broadcast and the
    draft model would be left as the other role built them. SGLang raises
    a ValueError listing them while resolving its arguments.

    ## Example
    ```yaml
    disaggregation-mode: decode
    enable-pd-role-switch: true
    tp-size: 8
    ep-size: 8
    ```
    Use instead:
    ```yaml
    disaggregation-mode: decode
    tp-size: 8
    ep-size: 8
    ```

    ## Fix safety
    Dropping role switching removes the `/pd_role_switch` endpoint: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:191` (`handle_pd_disaggregation`, 0.5.23)
    """
    if view["disaggregation_mode"] not in PD_ROLES or not view["enable_pd_role_switch"]:
        return None
    found = _unsupported(view)
    if not found:
        return None
    return Violation("--enable-pd-role-switch does not rebuild the state of " + ", ".join(found),
                     args=("enable_pd_role_switch",))


@pd_role_switch_limits.fix
def _no_role_switch(view: ResolvingView) -> Fix | None:
    return remove(view, "enable_pd_role_switch", "--enable-pd-role-switch")
