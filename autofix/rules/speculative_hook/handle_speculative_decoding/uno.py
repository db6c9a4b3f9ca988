"""``_handle_uno`` (``arg_groups/speculative_hook.py:449-483``, called at :284 through
``SpeculativeAlgorithm.handle_server_args``), its first checks: the platform, the inputs UNO takes and refuses,
the verify width and the top-k; then the linear mode's step and top-k (:571). The tree mode's checks are in
``uno_tree.py``, the serving checks and the last declarations in ``uno_serving.py``."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView

STEP = "handle_speculative_decoding"
VIA = 284  # algo.handle_server_args(server_args): spec_info.py dispatches UNO to _handle_uno
UNO_FLAGS = ("speculative_algorithm", "uno_lora_path", "speculative_num_draft_tokens", "speculative_num_steps",
             "speculative_eagle_topk")


def uno(view: ResolvingView) -> bool:
    """The resolved speculative algorithm is UNO (upper-cased by the hook at :139)."""
    return view["speculative_algorithm"] == "UNO"


def verify_width(view: ResolvingView) -> int | None:
    """Q, `--speculative-num-draft-tokens`, once UNO got past its first checks (:453-476); else None."""
    if not uno(view) or not _cuda(view) or view["speculative_draft_model_path"] is not None:
        return None
    if view["uno_lora_path"] is None or view["enable_deterministic_inference"] or view["enable_strict_thinking"]:
        return None
    q = view["speculative_num_draft_tokens"]
    return None if q is None or q < 1 else q


def top_k(view: ResolvingView) -> int:
    """K, `--speculative-eagle-topk` (unset: 1)."""
    k = view["speculative_eagle_topk"]
    return 1 if k is None else k


def _cuda(view: ResolvingView) -> bool:
    device = view["device"]
    return device is None or device.startswith("cuda")  # unset: detected, cuda on NVIDIA and ROCm


def drop_uno(view: ResolvingView) -> Fix:
    """Stop speculating: remove `--speculative-algorithm` and the settings only UNO reads."""
    ops = [Unset(d) for d in UNO_FLAGS if view.is_explicit(d)]
    return Fix.unsafe(*ops, title="Remove --speculative-algorithm UNO and its settings")


@settings_rule("SPEC031", "uno-needs-cuda", step=STEP, at="arg_groups/speculative_hook.py:453", via=VIA)
def uno_needs_cuda(view: ResolvingView) -> Violation | None:
    """Flag UNO speculative decoding on a device other than CUDA.

    ## What it does
    Checks for `--speculative-algorithm UNO` with a `--device` that does
    not start with `cuda` (unset is detected: `cuda` on NVIDIA and ROCm).

    ## Why SGLang refuses it
    UNO's draft and verify kernels are CUDA kernels. SGLang stops with a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    device: cpu
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Removing `--device` lets SGLang detect the GPU; it changes where the
    server runs: unsafe. Dropping UNO is unsafe too.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:453` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not uno(view) or _cuda(view):
        return None
    return Violation(f"--speculative-algorithm UNO runs on CUDA only, not --device {view['device']}",
                     args=("device", "speculative_algorithm"))


@uno_needs_cuda.fix
def _detect_device(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("device"), title="Remove --device (detect the GPU)")


uno_needs_cuda.fix(drop_uno)


@settings_rule("SPEC032", "uno-no-draft-model", step=STEP, at="arg_groups/speculative_hook.py:455", via=VIA)
def uno_no_draft_model(view: ResolvingView) -> Violation | None:
    """Flag UNO speculative decoding with a draft model path.

    ## What it does
    Checks for `--speculative-algorithm UNO` with
    `--speculative-draft-model-path`.

    ## Why SGLang refuses it
    UNO drafts with the target model itself (through its LoRA, from
    `--uno-lora-path`); a separate draft model has no place in it. SGLang
    stops with a ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-draft-model-path: /models/draft
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Removing the draft path discards a value the user wrote (perhaps meant
    for another algorithm): unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:455` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not uno(view) or not _cuda(view) or view["speculative_draft_model_path"] is None:
        return None
    return Violation("--speculative-algorithm UNO drafts with the target model: it takes no "
                     "--speculative-draft-model-path", args=("speculative_draft_model_path", "speculative_algorithm"))


@uno_no_draft_model.fix
def _drop_draft_path(view: ResolvingView) -> Fix:
    ops = [Unset(d) for d in ("speculative_draft_model_path", "speculative_draft_model_revision")
           if view.is_explicit(d)]
    return Fix.unsafe(*ops, title="Remove --speculative-draft-model-path")


def _reached_lora_path(view: ResolvingView) -> bool:
    return uno(view) and _cuda(view) and view["speculative_draft_model_path"] is None


@settings_rule("SPEC033", "uno-needs-lora-path", step=STEP, at="arg_groups/speculative_hook.py:460", via=VIA)
def uno_needs_lora_path(view: ResolvingView) -> Violation | None:
    """Flag UNO speculative decoding without `--uno-lora-path`.

    ## What it does
    Checks for `--speculative-algorithm UNO` without `--uno-lora-path`.

    ## Why SGLang refuses it
    UNO drafts with the target model and a LoRA adapter trained for it;
    without the adapter there is no drafter. SGLang stops with a ValueError
    while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    speculative-num-draft-tokens: 4
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Only the user knows the adapter's path: no fix writes one. Dropping
    UNO (and its settings) is unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:460` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not _reached_lora_path(view) or view["uno_lora_path"] is not None:
        return None
    return Violation("--speculative-algorithm UNO needs --uno-lora-path (the drafter's LoRA adapter)",
                     args=("speculative_algorithm",))


uno_needs_lora_path.fix(drop_uno)


@settings_rule("SPEC034", "uno-no-deterministic-inference", step=STEP, at="arg_groups/speculative_hook.py:462",
               via=VIA)
def uno_no_deterministic_inference(view: ResolvingView) -> Violation | None:
    """Flag UNO speculative decoding with deterministic inference.

    ## What it does
    Checks for `--speculative-algorithm UNO` with deterministic inference
    on (`--enable-deterministic-inference`, or what turns it on, such as
    `--rl-on-policy-target`).

    ## Why SGLang refuses it
    UNO's sampling does not use the per-request seeds deterministic
    inference needs. SGLang stops with a ValueError while resolving its
    arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    enable-deterministic-inference: true
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Turning deterministic inference off changes what the server promises:
    unsafe. Dropping UNO is unsafe too.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:462` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not _reached_lora_path(view) or view["uno_lora_path"] is None or not view["enable_deterministic_inference"]:
        return None
    return Violation("--speculative-algorithm UNO does not support deterministic inference",
                     args=("enable_deterministic_inference", "speculative_algorithm"))


@uno_no_deterministic_inference.fix
def _no_deterministic(view: ResolvingView) -> Fix | None:
    ops = [Unset(d) for d in ("enable_deterministic_inference", "rl_on_policy_target") if view.is_explicit(d)]
    if not ops:
        return None
    return Fix.unsafe(*ops, title="Turn deterministic inference off")


uno_no_deterministic_inference.fix(drop_uno)


@settings_rule("SPEC035", "uno-no-strict-thinking", step=STEP, at="arg_groups/speculative_hook.py:467", via=VIA)
def uno_no_strict_thinking(view: ResolvingView) -> Violation | None:
    """Flag UNO speculative decoding with strict thinking.

    ## What it does
    Checks for `--speculative-algorithm UNO` with `--enable-strict-thinking`.

    ## Why SGLang refuses it
    Strict thinking is enforced with grammar decoding, which UNO's verify
    path does not run. SGLang stops with a ValueError while resolving its
    arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    enable-strict-thinking: true
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Turning strict thinking off changes the outputs: unsafe. Dropping UNO
    is unsafe too.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:467` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not _reached_lora_path(view) or view["uno_lora_path"] is None or view["enable_deterministic_inference"]:
        return None
    if not view["enable_strict_thinking"]:
        return None
    return Violation("--speculative-algorithm UNO does not support --enable-strict-thinking",
                     args=("enable_strict_thinking", "speculative_algorithm"))


@uno_no_strict_thinking.fix
def _no_strict_thinking(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("enable_strict_thinking"), title="Remove --enable-strict-thinking")


uno_no_strict_thinking.fix(drop_uno)


@settings_rule("SPEC036", "uno-needs-num-draft-tokens", step=STEP, at="arg_groups/speculative_hook.py:474", via=VIA)
def uno_needs_num_draft_tokens(view: ResolvingView) -> Violation | None:
    """Flag UNO speculative decoding without a positive `--speculative-num-draft-tokens`.

    ## What it does
    Checks for `--speculative-algorithm UNO` with
    `--speculative-num-draft-tokens` unset or below 1.

    ## Why SGLang refuses it
    The number of draft tokens is UNO's verify width Q (the linear width, or
    the tree's verify nodes); UNO picks no default for it. SGLang stops with
    a ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    The width is a tuning choice: writing one (the steps plus one in tree
    mode, else 4) is unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:474` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not _reached_lora_path(view) or view["uno_lora_path"] is None or view["enable_deterministic_inference"]:
        return None
    if view["enable_strict_thinking"]:
        return None
    q = view["speculative_num_draft_tokens"]
    if q is not None and q >= 1:
        return None
    shown = "unset" if q is None else f"--speculative-num-draft-tokens {q}"
    return Violation(f"--speculative-algorithm UNO needs --speculative-num-draft-tokens of 1 or more (the verify "
                     f"width), not {shown}", args=("speculative_num_draft_tokens", "speculative_algorithm"))


@uno_needs_num_draft_tokens.fix
def _some_width(view: ResolvingView) -> Fix:
    steps = view["speculative_num_steps"]
    width = steps + 1 if top_k(view) > 1 and steps is not None and steps >= 1 else 4
    return Fix.unsafe(Set("speculative_num_draft_tokens", width), title=f"Set --speculative-num-draft-tokens to {width}")


@settings_rule("SPEC037", "uno-topk-positive", step=STEP, at="arg_groups/speculative_hook.py:489", via=VIA)
def uno_topk_positive(view: ResolvingView) -> Violation | None:
    """Flag UNO speculative decoding with `--speculative-eagle-topk` below 1.

    ## What it does
    Checks for `--speculative-algorithm UNO` with `--speculative-eagle-topk`
    0 or negative (unset means 1: linear mode).

    ## Why SGLang refuses it
    The top-k is the number of candidates per tree node; UNO needs at least
    one. SGLang stops with a ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-eagle-topk: 0
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Removing the top-k runs UNO's linear mode, which may not be what was
    meant: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:489` (`_handle_uno`, called at :284, 0.5.23)
    """
    if verify_width(view) is None or top_k(view) >= 1:
        return None
    return Violation(f"--speculative-algorithm UNO needs --speculative-eagle-topk of 1 or more, not {top_k(view)}",
                     args=("speculative_eagle_topk", "speculative_algorithm"))


@uno_topk_positive.fix
def _linear_topk(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("speculative_eagle_topk"), title="Remove --speculative-eagle-topk (linear mode)")


def _linear_cause(view: ResolvingView) -> str:
    return "--speculative-algorithm UNO in linear mode (top-k 1)"


@derivation(step=STEP, at="arg_groups/speculative_hook.py:571", via=VIA,
            writes=("speculative_num_steps", "speculative_eagle_topk"), code="SPEC044",
            name="uno-linear-overrides-num-steps", cause=_linear_cause)
def uno_linear_overrides_num_steps(view: ResolvingView) -> dict | None:
    """UNO's linear mode (top-k unset or 1) runs one step with top-k 1, whatever `--speculative-num-steps` says.

    ## What it does
    Warns at a `--speculative-num-steps` other than 1 that UNO's linear
    mode (`--speculative-eagle-topk` unset or 1) replaces by 1.

    ## Why it matters
    SGLang logs a warning and runs one step: the linear mode's width is
    `--speculative-num-draft-tokens` alone. Checks after this step see 1.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-num-steps: 3
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Writing what runs (one step, top-k 1) resolves the launch to the same
    values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:571` (`_handle_uno`, called at :284, 0.5.23)
    """
    if verify_width(view) is None or top_k(view) != 1:
        return None
    return {"speculative_num_steps": 1, "speculative_eagle_topk": 1}
