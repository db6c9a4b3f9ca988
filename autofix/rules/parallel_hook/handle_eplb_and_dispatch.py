"""``handle_eplb_and_dispatch`` (``arg_groups/parallel_hook.py``, 0.5.23): the EP dispatch default and what EPLB and static/lp dispatch need."""  # noqa: E501

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView


@derivation(step="handle_eplb_and_dispatch", at="arg_groups/parallel_hook.py:753",
            writes=("expert_distribution_recorder_mode",))
def eplb_recorder_mode_default(view: ResolvingView) -> dict | None:
    """EPLB turns on the expert-distribution recorder: an unset recorder mode becomes `stat` (EP001).

    It only fills a mode the user did not write, so it is no override.
    """
    if not view["enable_eplb"] or view["expert_distribution_recorder_mode"] is not None:
        return None
    return {"expert_distribution_recorder_mode": "stat"}


@derivation(step="handle_eplb_and_dispatch", at="arg_groups/parallel_hook.py:769", writes=("ep_dispatch_algorithm",))
def eplb_dispatch_default(view: ResolvingView) -> dict | None:
    """With EPLB or a non-trivial `--init-expert-location` and no dispatch algorithm, SGLang picks one.

    `dynamic` without an a2a backend, `static` with one. It never replaces
    an algorithm the user wrote, so it is no override.
    """
    if view["ep_dispatch_algorithm"] is not None:
        return None
    if not (view["enable_eplb"] or view["init_expert_location"] != "trivial"):
        return None
    return {"ep_dispatch_algorithm": "dynamic" if view["moe_a2a_backend"] == "none" else "static"}


@settings_rule("EP003", "ep-dispatch-needs-a2a", step="handle_eplb_and_dispatch", at="arg_groups/parallel_hook.py:783")
def ep_dispatch_needs_a2a(view: ResolvingView) -> Violation | None:
    """Flag `static` or `lp` expert dispatch while no all-to-all backend is in use.

    ## What it does
    Checks for `--ep-dispatch-algorithm static` or `lp` when the MoE
    all-to-all backend resolves to `none` (the default, an explicit `none`,
    `ascend_tp`, or a backend that `--dwdp-size` overrides). It fires with or
    without EPLB.

    ## Why SGLang refuses it
    Without an a2a backend every expert-parallel rank runs the MoE layer on
    the same tokens and the partial outputs are summed, so every rank must
    pick the same physical replica of a redundant expert. `static` reads a
    per-rank table and `lp` samples per rank, so the picks would differ.
    SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    moe-a2a-backend: none
    ep-dispatch-algorithm: static
    ```
    Use instead:
    ```yaml
    moe-a2a-backend: none
    ep-dispatch-algorithm: dynamic
    ```

    ## Fix safety
    Switching the dispatch to `dynamic` keeps the backend, the parallel layout
    and EPLB as written: safe. Turning on an a2a backend (`deepep`) keeps the
    dispatch algorithm but changes the communication path and makes
    `ep_size` follow `tp_size`: unsafe, offered second.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:783` (`handle_eplb_and_dispatch`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "none":
        return None
    algorithm = view["ep_dispatch_algorithm"]
    if algorithm not in ("static", "lp"):
        return None
    return Violation(
        f"--ep-dispatch-algorithm {algorithm} needs an a2a backend, but --moe-a2a-backend resolves to none",
        args=("ep_dispatch_algorithm", "moe_a2a_backend"),
    )


@ep_dispatch_needs_a2a.fix
def _dynamic_dispatch(view: ResolvingView) -> Fix:
    return Fix.safe(Set("ep_dispatch_algorithm", "dynamic"), title="Set --ep-dispatch-algorithm to dynamic")


@ep_dispatch_needs_a2a.fix
def _deepep(view: ResolvingView) -> Fix | None:
    if view["dwdp_size"] > 1:
        return None  # DWDP forces the backend back to none
    return Fix.unsafe(Set("moe_a2a_backend", "deepep"), title="Set --moe-a2a-backend to deepep")


@settings_rule("EP004", "eplb-needs-expert-parallelism", step="handle_eplb_and_dispatch",
               at="arg_groups/parallel_hook.py:791")
def eplb_needs_expert_parallelism(view: ResolvingView) -> Violation | None:
    """Flag EPLB without an expert-parallel group.

    ## What it does
    Checks for `--enable-eplb` while the resolved `ep_size` is 1 (unless the
    server joins an elastic EP group with `--elastic-ep-join-mode scale`).
    EP-spanning a2a backends such as `deepep` make `ep_size` equal `tp_size`.

    ## Why SGLang refuses it
    The expert-parallel load balancer moves experts between EP ranks; with a
    single rank there is nothing to balance. SGLang stops on a bare assert
    while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    enable-eplb: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ep-size: 8
    enable-eplb: true
    ```

    ## Fix safety
    Both fixes change what runs: setting `--ep-size` to `--tp-size` changes
    the parallel layout, dropping `--enable-eplb` drops a feature the user
    asked for. Both are unsafe; the first is offered only when `tp_size > 1`.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:791` (`handle_eplb_and_dispatch`, 0.5.23)
    """
    if not view["enable_eplb"] or view["ep_join_mode"] == "scale" or view["ep_size"] > 1:
        return None
    return Violation("--enable-eplb needs expert parallelism, but ep_size resolves to 1", args=("enable_eplb", "ep_size"))


@eplb_needs_expert_parallelism.fix
def _ep_size_tp_size(view: ResolvingView) -> Fix | None:
    tp_size = view["tp_size"]
    if tp_size <= 1 or view["moe_a2a_backend"] != "none":
        return None
    return Fix.unsafe(Set("ep_size", tp_size), title=f"Set --ep-size to {tp_size} (the --tp-size)")


@eplb_needs_expert_parallelism.fix
def _no_eplb(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("enable_eplb"), title="Remove --enable-eplb")


