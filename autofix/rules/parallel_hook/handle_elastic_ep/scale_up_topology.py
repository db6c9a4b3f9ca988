"""``handle_elastic_ep``, runtime scale-up's attention topology: the attention TP, DP and CP
widths, the EP sizes in whole attention replicas, and the dense TP it allows (parallel_hook.py:583-619)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.parallel_hook.handle_elastic_ep.common import (
    STEP,
    _attn_tp,
    _dense_tp,
    _dense_tp1,
    _joiner,
    _no_scale_up,
    _scaling_active,
)


@settings_rule("EEP013", "elastic-scale-up-attention-topology", step=STEP, at="arg_groups/parallel_hook.py:612")
def elastic_scale_up_attention_topology(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with a TP, attention DP or attention CP size that makes no topology.

    ## What it does
    Under runtime scale-up (`--elastic-ep-backend` and a `--max-ep-size`
    above `--tp-size`), checks that `--tp-size`, `--attn-dp-size` and
    `--attn-cp-size` are positive and `tp_size` is a multiple of
    `attn_dp_size * attn_cp_size`. (Earlier steps refuse most of these; an
    `--attn-cp-size` of 0 or a `--tp-size` of 0 get here.)

    ## Why SGLang refuses it
    Scale-up adds whole attention replicas, so their width must be known.
    SGLang raises a ValueError (line 594) and re-raises it as an
    AssertionError at line 612.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    attn-cp-size: 0
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
    Removing a non-positive `--attn-cp-size` (1) changes the layout the
    launch names: unsafe. Otherwise, removing `--max-ep-size` (no runtime
    scale-up): unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:612` (`handle_elastic_ep`, 0.5.23; the ValueError raised at `:594`)
    """
    if not _scaling_active(view) or _attn_tp(view) is not None:
        return None
    return Violation(f"runtime elastic EP scale-up needs an attention topology: --tp-size {view['tp_size']}, "
                     f"--attn-dp-size {view['attn_dp_size']}, --attn-cp-size {view['attn_cp_size']}",
                     args=("attn_cp_size", "attn_dp_size", "tp_size", "max_ep_size"))


@elastic_scale_up_attention_topology.fix
def _attn_cp1(view: ResolvingView) -> Fix | None:
    if view["attn_cp_size"] > 0:
        return None
    return Fix.unsafe(Unset("attn_cp_size"), title="Remove --attn-cp-size (1)")


elastic_scale_up_attention_topology.fix(_no_scale_up)


def _replica(view: ResolvingView) -> int | None:
    attn_tp = _attn_tp(view)
    return None if attn_tp is None else attn_tp * view["attn_cp_size"]


def _off_replica(size: int, replica: int) -> bool:
    return size <= 0 or size % replica != 0


@settings_rule("EEP014", "elastic-scale-up-replica-multiples", step=STEP, at="arg_groups/parallel_hook.py:612")
def elastic_scale_up_replica_multiples(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with EP sizes that are not whole attention replicas.

    ## What it does
    Under runtime scale-up, checks that `--max-ep-size`, the initial EP
    size (`--elastic-ep-initial-size`, else `--tp-size`) and, for a scale
    joiner, `--elastic-ep-join-rank-offset` are positive multiples of the
    attention replica (`tp_size / attn_dp_size`).

    ## Why SGLang refuses it
    EP ranks are added and lost one attention replica at a time. SGLang
    raises a ValueError in `elastic_ep/topology.py` and re-raises it as an
    AssertionError.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 15
    moe-a2a-backend: nixl
    attn-dp-size: 4
    enable-dp-lm-head: true
    moe-dense-tp-size: 1
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 4
    enable-dp-lm-head: true
    moe-dense-tp-size: 1
    ```

    ## Fix safety
    Rounding `--max-ep-size` up to a multiple of the replica raises the
    cap: unsafe. A joiner's initial size and offset come from the running
    deployment; the only other fix is no runtime scale-up: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:612` (`handle_elastic_ep`, 0.5.23; the check is
    `physical_ep_size_to_dp_size` in `elastic_ep/topology.py`)
    """
    if not _scaling_active(view):
        return None
    replica = _replica(view)
    if replica is None:
        return None  # EEP013
    sizes = [("--max-ep-size", view["max_ep_size"]),
             ("the initial EP size", view["elastic_ep_initial_size"] or view["tp_size"])]
    if _joiner(view) and view["ep_join_rank_offset"] > 0:  # not above 0: EEP007
        sizes.append(("--elastic-ep-join-rank-offset", view["ep_join_rank_offset"]))
    bad = [(name, size) for name, size in sizes if _off_replica(size, replica)]
    if not bad:
        return None
    name, size = bad[0]
    return Violation(f"runtime elastic EP scale-up needs {name} ({size}) to be a positive multiple of the attention "
                     f"replica size {replica}", args=("max_ep_size", "elastic_ep_initial_size", "ep_join_rank_offset"))


@elastic_scale_up_replica_multiples.fix
def _round_max_ep_size(view: ResolvingView) -> Fix | None:
    replica = _replica(view)
    size = view["max_ep_size"]
    if replica is None or not _off_replica(size, replica):
        return None
    if _off_replica(view["elastic_ep_initial_size"] or view["tp_size"], replica):
        return None
    offset = view["ep_join_rank_offset"]
    if _joiner(view) and offset > 0 and _off_replica(offset, replica):
        return None
    rounded = -(-size // replica) * replica
    return Fix.unsafe(Set("max_ep_size", rounded), title=f"Set --max-ep-size to {rounded} (a multiple of {replica})")


elastic_scale_up_replica_multiples.fix(_no_scale_up)


@settings_rule("EEP017", "elastic-scale-up-dense-tp", step=STEP, at="arg_groups/parallel_hook.py:615")
def elastic_scale_up_dense_tp(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with attention TP above 1 and dense TP other than 1.

    ## What it does
    Under runtime scale-up, checks for an attention TP width
    (`tp_size / attn_dp_size / attn_cp_size`) above 1 while
    `--moe-dense-tp-size` is not 1 (unset counts as not 1).

    ## Why SGLang refuses it
    The dense layers would shard over a TP group that a joining group does
    not extend. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 4
    enable-dp-lm-head: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 4
    enable-dp-lm-head: true
    moe-dense-tp-size: 1
    ```

    ## Fix safety
    `--moe-dense-tp-size 1` changes how the dense layers shard: unsafe.
    Removing `--max-ep-size` (no runtime scale-up) is unsafe, offered second.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:615` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view):
        return None
    attn_tp = _attn_tp(view)
    if attn_tp is None or attn_tp <= 1 or view["moe_dense_tp_size"] == 1:
        return None
    return Violation(f"runtime elastic EP scale-up with attention TP {attn_tp} needs --moe-dense-tp-size 1, not "
                     f"{_dense_tp(view)}", args=("moe_dense_tp_size", "max_ep_size"))


elastic_scale_up_dense_tp.fix(_dense_tp1)
elastic_scale_up_dense_tp.fix(_no_scale_up)
