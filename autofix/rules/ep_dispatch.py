"""Expert-parallel dispatch and EPLB: SGLang's ``handle_eplb_and_dispatch``.

Mirrors ``sglang/srt/arg_groups/parallel_hook.py:750`` (0.5.23).
"""

from __future__ import annotations

from autofix.model import Fix, Set, Unset, Violation
from autofix.resolve import View
from autofix.rules.base import rule


@rule(
    "EP003",
    "ep-dispatch-needs-a2a",
    reads=("ep_dispatch_algorithm", "moe_a2a_backend", "dwdp_size"),
    sglang_source="arg_groups/parallel_hook.py:783",
)
def ep_dispatch_needs_a2a(view: View) -> Violation | None:
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
    algorithm = view["ep_dispatch_algorithm"]
    if algorithm not in ("static", "lp") or view["moe_a2a_backend"] != "none":
        return None
    fixes = [Fix.safe(Set("ep_dispatch_algorithm", "dynamic"), title="Set --ep-dispatch-algorithm to dynamic")]
    if view["dwdp_size"] <= 1:  # DWDP forces the backend back to none
        fixes.append(Fix.unsafe(Set("moe_a2a_backend", "deepep"), title="Set --moe-a2a-backend to deepep"))
    return Violation(
        f"--ep-dispatch-algorithm {algorithm} needs an a2a backend, but --moe-a2a-backend resolves to none",
        args=("ep_dispatch_algorithm", "moe_a2a_backend"),
        fixes=tuple(fixes),
    )


@rule(
    "EP004",
    "eplb-needs-expert-parallelism",
    reads=("enable_eplb", "ep_join_mode", "ep_size", "tp_size", "moe_a2a_backend"),
    sglang_source="arg_groups/parallel_hook.py:791",
)
def eplb_needs_expert_parallelism(view: View) -> Violation | None:
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
    fixes = []
    tp_size = view["tp_size"]
    if tp_size > 1 and view["moe_a2a_backend"] == "none":
        fixes.append(Fix.unsafe(Set("ep_size", tp_size), title=f"Set --ep-size to {tp_size} (the --tp-size)"))
    fixes.append(Fix.unsafe(Unset("enable_eplb"), title="Remove --enable-eplb"))
    return Violation(
        "--enable-eplb needs expert parallelism, but ep_size resolves to 1",
        args=("enable_eplb", "ep_size"),
        fixes=tuple(fixes),
    )


RULES = (ep_dispatch_needs_a2a, eplb_needs_expert_parallelism)
