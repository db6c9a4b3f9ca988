"""``_handle_eagle_family``, rejection sampling (speculative_hook.py:1197-1255, through the dispatcher at line
284): the algorithms, top-k, device and accept thresholds it takes."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.speculative_hook.handle_speculative_decoding.common import DISPATCH, STEP, algorithm, device
from autofix.rules.speculative_hook.handle_speculative_decoding.eagle import auto_params, eagle_family


def _rejection_sampling(view: ResolvingView) -> bool:
    return eagle_family(view) and bool(view["speculative_use_rejection_sampling"])


@settings_rule("SPEC060", "rejection-sampling-eagle-only", step=STEP, at="arg_groups/speculative_hook.py:1216",
               via=DISPATCH)
def rejection_sampling_eagle_only(view: ResolvingView) -> Violation | None:
    """Flag rejection sampling with STANDALONE speculative decoding.

    ## What it does
    Checks for `--speculative-use-rejection-sampling` with
    `--speculative-algorithm STANDALONE`.

    ## Why SGLang refuses it
    Only the EAGLE and EAGLE3 draft workers propose over the target's
    vocabulary, which the rejection-sampling kernel consumes. SGLang stops
    with a NotImplementedError.

    ## Example
    ```yaml
    speculative-algorithm: STANDALONE
    speculative-use-rejection-sampling: true
    ```
    Use instead:
    ```yaml
    speculative-algorithm: STANDALONE
    ```

    ## Fix safety
    Removing the flag changes how drafts are verified: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1216` (`_handle_eagle_family`, 0.5.23)
    """
    if not _rejection_sampling(view) or algorithm(view) in ("EAGLE", "EAGLE3"):
        return None
    return Violation(f"--speculative-use-rejection-sampling needs EAGLE, EAGLE3 or NEXTN, not {algorithm(view)}",
                     args=("speculative_use_rejection_sampling", "speculative_algorithm"))


@rejection_sampling_eagle_only.fix
def _no_rejection_sampling(view: ResolvingView) -> Fix | None:
    if view["speculative_use_block_verification"]:
        return None
    return remove(view, "speculative_use_rejection_sampling", "--speculative-use-rejection-sampling")


@settings_rule("SPEC061", "rejection-sampling-topk-one", step=STEP, at="arg_groups/speculative_hook.py:1222",
               via=DISPATCH)
def rejection_sampling_topk_one(view: ResolvingView) -> Violation | None:
    """Flag rejection sampling with an EAGLE top-k other than 1.

    ## What it does
    Checks EAGLE and EAGLE3 with `--speculative-use-rejection-sampling`
    (or block verification, which turns it on) for a top-k other than 1:
    written, picked for the model (4 for Llama), or missing.

    ## Why SGLang refuses it
    Rejection sampling verifies one draft chain. SGLang stops with a
    ValueError.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-use-rejection-sampling: true
    speculative-num-steps: 3
    speculative-eagle-topk: 2
    speculative-num-draft-tokens: 4
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    speculative-use-rejection-sampling: true
    speculative-num-steps: 3
    speculative-eagle-topk: 1
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Top-k 1 keeps rejection sampling but drafts one chain (unsafe, unless
    no top-k was written: then safe).

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1222` (`_handle_eagle_family`, 0.5.23)
    """
    if not _rejection_sampling(view) or algorithm(view) not in ("EAGLE", "EAGLE3"):
        return None
    topk = view["speculative_eagle_topk"]
    if topk == 1:
        return None
    return Violation(f"--speculative-use-rejection-sampling needs --speculative-eagle-topk 1, not {topk}",
                     args=("speculative_eagle_topk", "speculative_use_rejection_sampling"))


@rejection_sampling_topk_one.fix
def _rs_topk_one(view: ResolvingView) -> Fix:
    ops = [Set("speculative_eagle_topk", 1)]
    if view["speculative_num_steps"] is None:
        ops.append(Set("speculative_num_steps", auto_params(view)[0]))
    title = "Set --speculative-eagle-topk to 1" + (" and the steps" if len(ops) > 1 else "")
    if view.is_explicit("speculative_eagle_topk"):
        return Fix.unsafe(*ops, title=title)
    return Fix.safe(*ops, title=title) if view["speculative_num_steps"] is not None else Fix.unsafe(*ops, title=title)


rejection_sampling_topk_one.fix(_no_rejection_sampling)


@settings_rule("SPEC062", "deterministic-rejection-sampling-cuda", step=STEP,
               at="arg_groups/speculative_hook.py:1226", via=DISPATCH)
def deterministic_rejection_sampling_cuda(view: ResolvingView) -> Violation | None:
    """Flag deterministic rejection sampling on a device other than CUDA.

    ## What it does
    Checks EAGLE and EAGLE3 with rejection sampling (top-k 1) and
    `--enable-deterministic-inference` on a device that is not `cuda`
    (written, or detected: known with `--gpu`).

    ## Why SGLang refuses it
    Deterministic draft sampling uses a Triton hash kernel that needs a
    CUDA-compatible device. SGLang stops with a ValueError.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-use-rejection-sampling: true
    speculative-num-steps: 3
    speculative-eagle-topk: 1
    enable-deterministic-inference: true
    device: xpu
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    speculative-num-steps: 3
    speculative-eagle-topk: 1
    enable-deterministic-inference: true
    device: xpu
    ```

    ## Fix safety
    Dropping rejection sampling or determinism changes what runs: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1226` (`_handle_eagle_family`, 0.5.23)
    """
    if not _rejection_sampling(view) or algorithm(view) not in ("EAGLE", "EAGLE3"):
        return None
    if view["speculative_eagle_topk"] != 1 or not view["enable_deterministic_inference"]:
        return None
    if device(view).startswith("cuda"):
        return None
    return Violation(f"deterministic rejection sampling needs a CUDA device, not {device(view)}",
                     args=("speculative_use_rejection_sampling", "enable_deterministic_inference", "device"))


deterministic_rejection_sampling_cuda.fix(_no_rejection_sampling)


@settings_rule("SPEC063", "rejection-sampling-no-thresholds", step=STEP, at="arg_groups/speculative_hook.py:1235",
               via=DISPATCH)
def rejection_sampling_no_thresholds(view: ResolvingView) -> Violation | None:
    """Flag rejection sampling with an accept threshold other than 1.0.

    ## What it does
    Checks EAGLE and EAGLE3 with rejection sampling (top-k 1) for
    `--speculative-accept-threshold-single` or
    `--speculative-accept-threshold-acc` other than 1.0.

    ## Why SGLang refuses it
    Rejection sampling accepts by the draft and target distributions; it
    ignores the thresholds, so SGLang stops with a ValueError rather than
    leave them unused.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-use-rejection-sampling: true
    speculative-num-steps: 3
    speculative-eagle-topk: 1
    speculative-accept-threshold-single: 0.5
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    speculative-use-rejection-sampling: true
    speculative-num-steps: 3
    speculative-eagle-topk: 1
    ```

    ## Fix safety
    The thresholds have no effect under rejection sampling: removing them
    keeps what runs, safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1235` (`_handle_eagle_family`, 0.5.23)
    """
    if not _rejection_sampling(view) or algorithm(view) not in ("EAGLE", "EAGLE3"):
        return None
    if view["speculative_eagle_topk"] != 1:
        return None
    if view["enable_deterministic_inference"] and not device(view).startswith("cuda"):
        return None
    single, acc = view["speculative_accept_threshold_single"], view["speculative_accept_threshold_acc"]
    if single == 1.0 and acc == 1.0:
        return None
    return Violation("--speculative-use-rejection-sampling ignores the accept thresholds: "
                     f"--speculative-accept-threshold-single {single}, --speculative-accept-threshold-acc {acc}",
                     args=("speculative_accept_threshold_single", "speculative_accept_threshold_acc",
                           "speculative_use_rejection_sampling"))


@rejection_sampling_no_thresholds.fix
def _default_thresholds(view: ResolvingView) -> Fix:
    ops = []
    for dest in ("speculative_accept_threshold_single", "speculative_accept_threshold_acc"):
        if view[dest] != 1.0:
            ops.append(Unset(dest) if view.is_explicit(dest) else Set(dest, 1.0))
    return Fix.safe(*ops, title="Remove the accept thresholds (rejection sampling ignores them)")
