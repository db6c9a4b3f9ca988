"""``handle_elastic_ep``, runtime scale-up (``--max-ep-size`` above ``--tp-size``, parallel_hook.py:583-690, 722-744)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.parallel_hook.handle_elastic_ep.elastic import (
    STEP,
    _mooncake_backend,
    _no_initial_size,
    _scaling_active,
)

# Runtime scale-up (`--max-ep-size` above `--tp-size`): parallel_hook.py:583-744.

def _attn_tp(view: ResolvingView) -> int | None:
    """The attention TP width under scale-up, or None when the attention topology is invalid (EEP013)."""
    tp, dp, cp = view["tp_size"], view["attn_dp_size"], view["attn_cp_size"]
    if tp <= 0 or dp <= 0 or cp <= 0 or tp % (dp * cp):
        return None
    return tp // dp // cp


def _joiner(view: ResolvingView) -> bool:
    return view["ep_join_mode"] == "scale"


def _no_scale_up(view: ResolvingView) -> Fix:
    """The fallback of every scale-up check: no runtime scale-up at all."""
    return Fix.unsafe(Unset("max_ep_size"), title="Remove --max-ep-size (no runtime scale-up)")


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


def _dense_tp(view: ResolvingView) -> str:
    size = view["moe_dense_tp_size"]
    return "unset" if size is None else str(size)


def _dense_tp1(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("moe_dense_tp_size", 1), title="Set --moe-dense-tp-size to 1")


elastic_scale_up_dense_tp.fix(_dense_tp1)
elastic_scale_up_dense_tp.fix(_no_scale_up)


@settings_rule("EEP018", "elastic-scale-timeout-positive", step=STEP, at="arg_groups/parallel_hook.py:621")
def elastic_scale_timeout_positive(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with a scale timeout of 0 or below.

    ## What it does
    Under runtime scale-up, checks for `--elastic-ep-scale-timeout` at most 0.

    ## Why SGLang refuses it
    A scale-up waits that long for the joining group. SGLang stops on an
    assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    elastic-ep-scale-timeout: 0
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
    A timeout of 0 or below means nothing; removing it (600 s) is safe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:621` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view) or view["elastic_ep_scale_timeout"] > 0:
        return None
    return Violation(f"--elastic-ep-scale-timeout must be above 0, not {view['elastic_ep_scale_timeout']}",
                     args=("elastic_ep_scale_timeout",))


@elastic_scale_timeout_positive.fix
def _default_timeout(view: ResolvingView) -> Fix:
    return Fix.safe(Unset("elastic_ep_scale_timeout"), title="Remove --elastic-ep-scale-timeout (600 s)")


def _scale_up_refuses(view: ResolvingView, dest: str, what: str) -> Violation | None:
    """EEP019-EEP021: a setting runtime scale-up does not support."""
    if not _scaling_active(view):
        return None
    value = view[dest]
    if (value == 1) if dest == "tokenizer_worker_num" else not value:
        return None
    return Violation(f"runtime elastic EP scale-up {what}", args=(dest, "max_ep_size"))


@settings_rule("EEP019", "elastic-scale-up-tokenizer-workers", step=STEP, at="arg_groups/parallel_hook.py:624")
def elastic_scale_up_tokenizer_workers(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with more than one tokenizer worker.

    ## What it does
    Under runtime scale-up, checks for `--tokenizer-worker-num` other than 1.

    ## Why SGLang refuses it
    The scale-up is driven through a single tokenizer manager. SGLang stops
    on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    tokenizer-worker-num: 2
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
    One tokenizer worker changes the front end's throughput: unsafe. No
    runtime scale-up is the unsafe alternative.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:624` (`handle_elastic_ep`, 0.5.23)
    """
    return _scale_up_refuses(view, "tokenizer_worker_num",
                             f"needs --tokenizer-worker-num 1, not {view['tokenizer_worker_num']}")


@elastic_scale_up_tokenizer_workers.fix
def _one_tokenizer(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("tokenizer_worker_num"), title="Remove --tokenizer-worker-num (1)")


elastic_scale_up_tokenizer_workers.fix(_no_scale_up)


@settings_rule("EEP020", "elastic-scale-up-ray", step=STEP, at="arg_groups/parallel_hook.py:627")
def elastic_scale_up_ray(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up launched through Ray.

    ## What it does
    Under runtime scale-up, checks for `--use-ray`.

    ## Why SGLang refuses it
    A joining group is launched as its own server, outside Ray's placement.
    SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    use-ray: true
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
    Dropping `--use-ray` changes how the workers are launched: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:627` (`handle_elastic_ep`, 0.5.23)
    """
    return _scale_up_refuses(view, "use_ray", "does not support --use-ray")


@elastic_scale_up_ray.fix
def _no_ray(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("use_ray"), title="Remove --use-ray")


elastic_scale_up_ray.fix(_no_scale_up)


@settings_rule("EEP021", "elastic-scale-up-expert-backup", step=STEP, at="arg_groups/parallel_hook.py:630")
def elastic_scale_up_expert_backup(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with elastic expert backup.

    ## What it does
    Under runtime scale-up, checks for `--enable-elastic-expert-backup`.

    ## Why SGLang refuses it
    The expert backup is laid out for a fixed set of ranks. SGLang stops on
    an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    enable-elastic-expert-backup: true
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
    Dropping the backup drops a feature the user asked for: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:630` (`handle_elastic_ep`, 0.5.23)
    """
    return _scale_up_refuses(view, "enable_elastic_expert_backup",
                             "does not support --enable-elastic-expert-backup")


@elastic_scale_up_expert_backup.fix
def _no_backup(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("enable_elastic_expert_backup"), title="Remove --enable-elastic-expert-backup")


elastic_scale_up_expert_backup.fix(_no_scale_up)


@derivation(step=STEP, at="arg_groups/parallel_hook.py:634", writes=("enable_dp_attention_local_control_broadcast",))
def scale_up_local_control_broadcast(view: ResolvingView) -> dict | None:
    """Runtime scale-up turns on the DP-attention local control broadcast (a switch nobody sets off)."""
    if not _scaling_active(view) or view["enable_dp_attention_local_control_broadcast"]:
        return None
    return {"enable_dp_attention_local_control_broadcast": True}


def _scale_joiner(view: ResolvingView) -> bool:
    return _scaling_active(view) and _joiner(view)


@settings_rule("EEP022", "scale-joiner-needs-initial-size", step=STEP, at="arg_groups/parallel_hook.py:640")
def scale_joiner_needs_initial_size(view: ResolvingView) -> Violation | None:
    """Flag a scale joiner under runtime scale-up without `--elastic-ep-initial-size`.

    ## What it does
    Under runtime scale-up, checks that a scale joiner
    (`--elastic-ep-join-mode scale`) gives `--elastic-ep-initial-size`.

    ## Why SGLang refuses it
    The joiner must know the EP size the primary deployment launched with.
    SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    elastic-ep-join-mode: scale
    node-rank: 1
    elastic-ep-join-rank-offset: 8
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    elastic-ep-join-mode: scale
    node-rank: 1
    elastic-ep-join-rank-offset: 8
    elastic-ep-initial-size: 8
    ```

    ## Fix safety
    The primary's launch size is not in this config. Setting it to the join
    offset (the current EP size) holds only if the deployment has not grown
    since launch: unsafe. No runtime scale-up is the other unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:640` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scale_joiner(view) or view["elastic_ep_initial_size"] is not None:
        return None
    return Violation("an elastic EP scale joiner needs --elastic-ep-initial-size (the primary's launch EP size)",
                     args=("ep_join_mode", "elastic_ep_initial_size"))


def _initial_is_offset(view: ResolvingView) -> Fix | None:
    offset = view["ep_join_rank_offset"]
    if offset <= 0:
        return None
    return Fix.unsafe(Set("elastic_ep_initial_size", offset),
                      title=f"Set --elastic-ep-initial-size to {offset} (the join offset: no scale-up since launch)")


scale_joiner_needs_initial_size.fix(_initial_is_offset)
scale_joiner_needs_initial_size.fix(_no_scale_up)


@settings_rule("EEP023", "scale-joiner-initial-size-above-offset", step=STEP, at="arg_groups/parallel_hook.py:644")
def scale_joiner_initial_size_above_offset(view: ResolvingView) -> Violation | None:
    """Flag a scale joiner whose initial EP size exceeds its join offset.

    ## What it does
    Under runtime scale-up, checks that a scale joiner's
    `--elastic-ep-initial-size` is at most `--elastic-ep-join-rank-offset`.

    ## Why SGLang refuses it
    The offset is the deployment's current EP size, and a deployment never
    shrinks below its launch size. SGLang stops on an assert while resolving
    its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 32
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    elastic-ep-join-mode: scale
    node-rank: 1
    elastic-ep-join-rank-offset: 8
    elastic-ep-initial-size: 16
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 32
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    elastic-ep-join-mode: scale
    node-rank: 1
    elastic-ep-join-rank-offset: 8
    elastic-ep-initial-size: 8
    ```

    ## Fix safety
    Which of the two values is wrong cannot be read from the config:
    setting the initial size to the offset is unsafe, and so is no runtime
    scale-up.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:644` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scale_joiner(view):
        return None
    initial, offset = view["elastic_ep_initial_size"], view["ep_join_rank_offset"]
    if initial is None or initial <= offset:
        return None
    return Violation(f"--elastic-ep-initial-size {initial} exceeds the current EP size "
                     f"(--elastic-ep-join-rank-offset {offset})", args=("elastic_ep_initial_size", "ep_join_rank_offset"))


scale_joiner_initial_size_above_offset.fix(_initial_is_offset)
scale_joiner_initial_size_above_offset.fix(_no_scale_up)


@settings_rule("EEP024", "scale-joiner-exceeds-max-ep-size", step=STEP, at="arg_groups/parallel_hook.py:650")
def scale_joiner_exceeds_max_ep_size(view: ResolvingView) -> Violation | None:
    """Flag a scale joiner that would grow the deployment past `--max-ep-size`.

    ## What it does
    Under runtime scale-up, checks that a scale joiner's
    `--elastic-ep-join-rank-offset` plus its `--tp-size` is at most
    `--max-ep-size`.

    ## Why SGLang refuses it
    The joining TP group adds `tp_size` EP ranks after the current ones.
    SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 12
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    elastic-ep-join-mode: scale
    node-rank: 1
    elastic-ep-join-rank-offset: 8
    elastic-ep-initial-size: 8
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    elastic-ep-join-mode: scale
    node-rank: 1
    elastic-ep-join-rank-offset: 8
    elastic-ep-initial-size: 8
    ```

    ## Fix safety
    Raising `--max-ep-size` to the join target changes the deployment's
    cap (the primary's must match): unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:650` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scale_joiner(view):
        return None
    target = view["ep_join_rank_offset"] + view["tp_size"]
    if target <= view["max_ep_size"]:
        return None
    return Violation(f"the joining group reaches EP size {target} (--elastic-ep-join-rank-offset + --tp-size), "
                     f"above --max-ep-size {view['max_ep_size']}", args=("max_ep_size", "ep_join_rank_offset"))


@scale_joiner_exceeds_max_ep_size.fix
def _max_ep_size_target(view: ResolvingView) -> Fix:
    target = view["ep_join_rank_offset"] + view["tp_size"]
    return Fix.unsafe(Set("max_ep_size", target), title=f"Set --max-ep-size to {target} (the join target)")


@settings_rule("EEP025", "single-rank-joiner-dense-tp", step=STEP, at="arg_groups/parallel_hook.py:655")
def single_rank_joiner_dense_tp(view: ResolvingView) -> Violation | None:
    """Flag a one-rank scale joiner without `--moe-dense-tp-size 1`.

    ## What it does
    Under runtime scale-up, checks that a scale joiner with `--tp-size 1`
    sets `--moe-dense-tp-size 1` (unset counts as not 1).

    ## Why SGLang refuses it
    The dense layers of a one-rank group must not expect TP peers. SGLang
    stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    enable-dp-lm-head: true
    elastic-ep-join-mode: scale
    node-rank: 1
    elastic-ep-join-rank-offset: 8
    elastic-ep-initial-size: 8
    ```
    Use instead:
    ```yaml
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    enable-dp-lm-head: true
    elastic-ep-join-mode: scale
    node-rank: 1
    elastic-ep-join-rank-offset: 8
    elastic-ep-initial-size: 8
    moe-dense-tp-size: 1
    ```

    ## Fix safety
    `--moe-dense-tp-size 1` is the one value a single rank can run, but it
    is a layout setting the user did not write: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:655` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scale_joiner(view) or view["tp_size"] != 1 or view["moe_dense_tp_size"] == 1:
        return None
    return Violation(f"a one-rank elastic EP joining group needs --moe-dense-tp-size 1, not {_dense_tp(view)}",
                     args=("moe_dense_tp_size", "tp_size"))


single_rank_joiner_dense_tp.fix(_dense_tp1)


@derivation(step=STEP, at="arg_groups/parallel_hook.py:661", writes=("elastic_ep_initial_size",))
def primary_initial_size_default(view: ResolvingView) -> dict | None:
    """Under runtime scale-up the primary's unset initial EP size becomes its `--tp-size` (no override: it was unset)."""
    if not _scaling_active(view) or _joiner(view) or view["elastic_ep_initial_size"] is not None:
        return None
    return {"elastic_ep_initial_size": view["tp_size"]}


@settings_rule("EEP026", "primary-initial-size-is-tp-size", step=STEP, at="arg_groups/parallel_hook.py:666")
def primary_initial_size_is_tp_size(view: ResolvingView) -> Violation | None:
    """Flag a primary elastic EP deployment whose initial EP size is not its `--tp-size`.

    ## What it does
    Under runtime scale-up, checks that a launch that is no scale joiner has
    `--elastic-ep-initial-size` equal to `--tp-size` (unset resolves to it).

    ## Why SGLang refuses it
    The primary deployment starts with exactly its own TP group as the EP
    group. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    elastic-ep-initial-size: 4
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
    A primary's initial size can only be its TP size; removing the setting
    resolves to it and changes nothing else: safe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:666` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view) or _joiner(view):
        return None
    initial, tp_size = view["elastic_ep_initial_size"], view["tp_size"]
    if initial == tp_size:
        return None
    return Violation(f"the primary's --elastic-ep-initial-size must be its --tp-size ({tp_size}), not {initial}",
                     args=("elastic_ep_initial_size", "tp_size"))


primary_initial_size_is_tp_size.fix(_no_initial_size)


@settings_rule("EEP027", "elastic-initial-size-positive", step=STEP, at="arg_groups/parallel_hook.py:670")
def elastic_initial_size_positive(view: ResolvingView) -> Violation | None:
    """Flag a scale joiner with an initial EP size of 0.

    ## What it does
    Under runtime scale-up, checks that the initial EP size is positive. A
    primary's is its `--tp-size` (EEP026); a scale joiner's
    `--elastic-ep-initial-size 0` gets here (a negative one fails the
    replica check, EEP014, first).

    ## Why SGLang refuses it
    The deployment launched with at least one EP rank. SGLang stops on a
    bare assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    elastic-ep-join-mode: scale
    node-rank: 1
    elastic-ep-join-rank-offset: 8
    elastic-ep-initial-size: 0
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    elastic-ep-join-mode: scale
    node-rank: 1
    elastic-ep-join-rank-offset: 8
    elastic-ep-initial-size: 8
    ```

    ## Fix safety
    As EEP022: the join offset as the initial size holds only if the
    deployment has not grown since launch: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:670` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scale_joiner(view):
        return None
    initial = view["elastic_ep_initial_size"]
    if initial is None or initial > 0:
        return None  # None: EEP022
    return Violation(f"--elastic-ep-initial-size must be positive, not {initial}", args=("elastic_ep_initial_size",))


elastic_initial_size_positive.fix(_initial_is_offset)
elastic_initial_size_positive.fix(_no_scale_up)


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
    memory): unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:727` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view) or view["enable_dp_lm_head"]:
        return None
    return Violation("runtime elastic EP scale-up needs --enable-dp-lm-head", args=("enable_dp_lm_head", "max_ep_size"))


@elastic_scale_up_needs_dp_lm_head.fix
def _dp_lm_head(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("enable_dp_lm_head", True), title="Add --enable-dp-lm-head")


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
    ops = [Set("moe_a2a_backend", "nixl")]
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
