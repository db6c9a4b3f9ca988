"""``_handle_uno``'s tree mode, the features it lacks (``arg_groups/speculative_hook.py:548-558``): PD-Multiplexing,
two-batch overlap, accept thresholds below 1."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.speculative_hook.handle_speculative_decoding.uno import STEP, VIA
from autofix.rules.speculative_hook.handle_speculative_decoding.uno_tree import _linear, _tree_ok


@settings_rule("SPEC040", "uno-tree-no-pdmux", step=STEP, at="arg_groups/speculative_hook.py:549", via=VIA)
def uno_tree_no_pdmux(view: ResolvingView) -> Violation | None:
    """Flag UNO's tree mode with PD multiplexing.

    ## What it does
    Checks for UNO's tree mode (`--speculative-eagle-topk` above 1) with
    `--enable-pdmux`.

    ## Why SGLang refuses it
    The tree mode does not support PD multiplexing yet. SGLang stops with a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-eagle-topk: 2
    speculative-num-steps: 3
    enable-pdmux: true
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-eagle-topk: 2
    speculative-num-steps: 3
    ```

    ## Fix safety
    Removing `--enable-pdmux`, or the linear mode, change how the server
    runs: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:549` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not _tree_ok(view) or not view["enable_pdmux"]:
        return None
    return Violation("UNO's tree mode (--speculative-eagle-topk above 1) does not support --enable-pdmux",
                     args=("enable_pdmux", "speculative_eagle_topk"))


@uno_tree_no_pdmux.fix
def _no_pdmux(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("enable_pdmux"), title="Remove --enable-pdmux")


uno_tree_no_pdmux.fix(_linear)


@settings_rule("SPEC115", "uno-tree-no-two-batch-overlap", step=STEP, at="arg_groups/speculative_hook.py:551",
               via=VIA)
def uno_tree_no_two_batch_overlap(view: ResolvingView) -> Violation | None:
    """Flag UNO's tree mode with two-batch overlap.

    ## What it does
    Checks for UNO's tree mode (`--speculative-eagle-topk` above 1) with
    `--enable-two-batch-overlap`.

    ## Why SGLang refuses it
    The tree mode does not support two-batch overlap yet. SGLang stops with
    a ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-eagle-topk: 2
    speculative-num-steps: 3
    enable-two-batch-overlap: true
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-eagle-topk: 2
    speculative-num-steps: 3
    ```

    ## Fix safety
    Removing `--enable-two-batch-overlap`, or the linear mode, change how
    the server runs: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:551` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not _tree_ok(view) or view["enable_pdmux"] or not view["enable_two_batch_overlap"]:
        return None
    return Violation("UNO's tree mode (--speculative-eagle-topk above 1) does not support --enable-two-batch-overlap",
                     args=("enable_two_batch_overlap", "speculative_eagle_topk"))


@uno_tree_no_two_batch_overlap.fix
def _no_tbo(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("enable_two_batch_overlap"), title="Remove --enable-two-batch-overlap")


uno_tree_no_two_batch_overlap.fix(_linear)

THRESHOLDS = ("speculative_accept_threshold_single", "speculative_accept_threshold_acc")


@settings_rule("SPEC116", "uno-tree-accept-thresholds", step=STEP, at="arg_groups/speculative_hook.py:556", via=VIA)
def uno_tree_accept_thresholds(view: ResolvingView) -> Violation | None:
    """Flag UNO's tree mode with a speculative accept threshold other than 1.0.

    ## What it does
    Checks for UNO's tree mode (`--speculative-eagle-topk` above 1) with
    `--speculative-accept-threshold-single` or
    `--speculative-accept-threshold-acc` other than 1.0.

    ## Why SGLang refuses it
    The tree mode verifies with EAGLE's target-only sampling, which has no
    relaxed acceptance. SGLang stops with a ValueError while resolving its
    arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-eagle-topk: 2
    speculative-num-steps: 3
    speculative-accept-threshold-single: 0.5
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-eagle-topk: 2
    speculative-num-steps: 3
    ```

    ## Fix safety
    Strict acceptance, or the linear mode, change what is accepted: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:556` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not _tree_ok(view) or view["enable_pdmux"] or view["enable_two_batch_overlap"]:
        return None
    off = [d for d in THRESHOLDS if view[d] != 1.0]
    if not off:
        return None
    shown = ", ".join(f"--{d.replace('_', '-')} {view[d]}" for d in off)
    return Violation(f"UNO's tree mode (--speculative-eagle-topk above 1) needs both accept thresholds at 1.0, not "
                     f"{shown}", args=(off[0], "speculative_eagle_topk"))


@uno_tree_accept_thresholds.fix
def _strict_acceptance(view: ResolvingView) -> Fix:
    ops = [Unset(d) if view.is_explicit(d) else Set(d, 1.0) for d in THRESHOLDS if view[d] != 1.0]
    return Fix.unsafe(*ops, title="Leave both speculative accept thresholds at 1.0")


uno_tree_accept_thresholds.fix(_linear)
