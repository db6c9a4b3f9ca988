"""``handle_elastic_ep``, runtime scale-up's joining group and the primary's initial EP size
(parallel_hook.py:639-670)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.parallel_hook.handle_elastic_ep.common import (
    STEP,
    _dense_tp,
    _dense_tp1,
    _joiner,
    _no_scale_up,
    _scaling_active,
)
from autofix.rules.parallel_hook.handle_elastic_ep.elastic import _no_initial_size


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
