"""``handle_a2a_moe``, the ``flashinfer`` a2a backend (``arg_groups/moe_hook.py:471-541``; the
dispatch-type helper ``handle_flashinfer_a2a_dispatch_type`` at :166-211)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.moe_hook import CUTLASS_QUANTIZATIONS
from autofix.rules.moe_hook.handle_a2a_moe.common import (
    _attn_dp_over_tp,
    _attn_dp_tp_message,
    _attn_dp_tp_size,
    _deepep_a2a,
)

# Runners the FlashInfer a2a backend dispatches to (moe_hook.py:531).
FLASHINFER_A2A_RUNNERS = ("flashinfer_cutlass", "flashinfer_cutedsl", "flashinfer_trtllm", "flashinfer_trtllm_routed",
                          "deep_gemm")


def _muse_spark_sp(view: ResolvingView) -> bool:
    """The exception of moe_hook.py:61: Muse Spark's prefill SP, TP4/EP4 or TP8/EP8, no attention DP."""
    if not view["enable_layernorm_sp"] or view["attn_dp_size"] != 1 or view["ep_join_mode"] == "scale":
        return False
    if (view["tp_size"], view["ep_size"]) not in ((4, 4), (8, 8)):
        return False
    return view.fact("model.architecture") == "MuseSparkForConditionalGeneration"


@settings_rule("A2A029", "flashinfer-a2a-needs-attn-dp-tp", step="handle_a2a_moe", at="arg_groups/moe_hook.py:475")
def flashinfer_a2a_needs_attn_dp_tp(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer` a2a backend without attention data parallelism over the whole TP group.

    ## What it does
    Checks for `--moe-a2a-backend flashinfer` unless attention DP is on
    (`--attn-dp-size` above 1, or an elastic EP scale joiner) with
    `--attn-dp-size` equal to `--tp-size`. Muse Spark's prefill sequence
    parallelism (`--enable-layernorm-sp`, TP4/EP4 or TP8/EP8, no attention
    DP) is the one exception; it needs the model's architecture, so without
    the model's config autofix stays silent in that shape.

    ## Why SGLang refuses it
    FlashInfer's dispatch needs the same token geometry on every rank,
    which attention DP over the whole TP group gives. SGLang stops on an
    assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    moe-a2a-backend: flashinfer
    moe-runner-backend: flashinfer_cutlass
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: flashinfer
    moe-runner-backend: flashinfer_cutlass
    ```

    ## Fix safety
    Ambiguous: turning on attention DP (`--attn-dp-size` = `--tp-size`)
    changes the scheduler topology and divides the chunked-prefill size;
    switching to `--moe-a2a-backend deepep` changes the communication path.
    Both are unsafe, offered in that order (attention DP only with
    `--tp-size` above 1 and no `--dp-size` replicas).

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:475` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "flashinfer" or _attn_dp_over_tp(view) or _muse_spark_sp(view):
        return None
    return Violation(_attn_dp_tp_message("flashinfer", view), args=("moe_a2a_backend", "attn_dp_size", "tp_size"))


flashinfer_a2a_needs_attn_dp_tp.fix(_attn_dp_tp_size)


flashinfer_a2a_needs_attn_dp_tp.fix(_deepep_a2a)


def _dispatch_type_cause(view: ResolvingView) -> str:
    return f"--flashinfer-a2a-dispatch-type {view['flashinfer_a2a_dispatch_type']}"


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:513", writes=("moe_runner_backend",),
            code="A2A032", name="flashinfer-dispatch-type-routes-trtllm", cause=_dispatch_type_cause)
def flashinfer_dispatch_type_routes_trtllm(view: ResolvingView) -> dict | None:
    """With FlashInfer's a2a, a dispatch type makes the `flashinfer_trtllm` runner `flashinfer_trtllm_routed`.

    ## What it does
    Warns at `--moe-runner-backend flashinfer_trtllm` when the a2a backend
    is `flashinfer` and `--flashinfer-a2a-dispatch-type` is given (any
    value, `auto` too).

    ## Why it matters
    SGLang logs a warning and runs the routed TRT-LLM kernels (the a2a
    dispatch hands them top-k ids and weights). The routed runner's
    quantization list (moe_hook.py:138) was checked before, on the
    unrouted runner, and is not checked again.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: flashinfer
    moe-runner-backend: flashinfer_trtllm
    flashinfer-a2a-dispatch-type: bf16
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: flashinfer
    moe-runner-backend: flashinfer_trtllm_routed
    flashinfer-a2a-dispatch-type: bf16
    ```

    ## Fix safety
    Writing the runner that runs resolves the launch to the same values:
    safe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:513` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "flashinfer" or view["flashinfer_a2a_dispatch_type"] is None:
        return None
    if view["moe_runner_backend"] != "flashinfer_trtllm":
        return None
    return {"moe_runner_backend": "flashinfer_trtllm_routed"}


def _dispatch_type(view: ResolvingView) -> str | None:
    """The dispatch type moe_hook.py:176-186 resolves, as far as the settings decide it (mxfp8 or not)."""
    if view["moe_a2a_backend"] != "flashinfer":
        return None
    written = view["flashinfer_a2a_dispatch_type"]
    if written is None:
        return None  # the helper is not called (moe_hook.py:498)
    if written == "auto":
        return "mxfp8" if view["quantization"] == "mxfp8" else None  # else nvfp4 or bf16: the model decides
    return written


@settings_rule("A2A035", "mxfp8-dispatch-needs-mxfp8", step="handle_a2a_moe", at="arg_groups/moe_hook.py:193", via=530)
def mxfp8_dispatch_needs_mxfp8(view: ResolvingView) -> Violation | None:
    """Flag `--flashinfer-a2a-dispatch-type mxfp8` without `--quantization mxfp8`.

    ## What it does
    Checks, with the `flashinfer` a2a backend, for the dispatch type `mxfp8`
    while the quantization is not `mxfp8` (`auto` picks `mxfp8` only for
    MXFP8 weights, so it never fails here).

    ## Why SGLang refuses it
    The MXFP8 dispatch hands the experts MXFP8 activations, which only the
    MXFP8 MoE kernels read. SGLang raises a ValueError while resolving its
    arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: flashinfer
    moe-runner-backend: flashinfer_cutlass
    flashinfer-a2a-dispatch-type: mxfp8
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: flashinfer
    moe-runner-backend: flashinfer_cutlass
    flashinfer-a2a-dispatch-type: auto
    ```

    ## Fix safety
    `auto` (NVFP4 for FP4 weights, else BF16) changes the dispatched dtype:
    unsafe. The other way is an MXFP8 checkpoint, which autofix cannot
    choose.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:193` (`handle_flashinfer_a2a_dispatch_type`, run at
    `arg_groups/moe_hook.py:530`)
    """
    if _dispatch_type(view) != "mxfp8":
        return None
    quantization = view["quantization"]
    if quantization == "mxfp8":
        return None
    return Violation(f"--flashinfer-a2a-dispatch-type mxfp8 needs --quantization mxfp8, not {quantization}",
                     args=("flashinfer_a2a_dispatch_type", "quantization"))


@mxfp8_dispatch_needs_mxfp8.fix
def _auto_dispatch_type(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("flashinfer_a2a_dispatch_type", "auto"), title="Set --flashinfer-a2a-dispatch-type to auto")


@settings_rule("A2A036", "mxfp8-dispatch-needs-routed-trtllm", step="handle_a2a_moe", at="arg_groups/moe_hook.py:197",
               via=530)
def mxfp8_dispatch_needs_routed_trtllm(view: ResolvingView) -> Violation | None:
    """Flag the MXFP8 FlashInfer dispatch with a MoE runner other than the routed TRT-LLM one.

    ## What it does
    Checks, with the `flashinfer` a2a backend and `--quantization mxfp8`,
    for a dispatch type that resolves to `mxfp8` (`mxfp8` or `auto`) while
    the runner is not `flashinfer_trtllm_routed`. `flashinfer_trtllm`, and
    `auto` (MXFP8 resolves it to `flashinfer_trtllm`), become the routed
    runner first, so they pass.

    ## Why SGLang refuses it
    Only the routed TRT-LLM kernels take the MXFP8 activations and top-k
    ids the dispatch delivers. SGLang raises a ValueError while resolving
    its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    quantization: mxfp8
    moe-a2a-backend: flashinfer
    moe-runner-backend: deep_gemm
    flashinfer-a2a-dispatch-type: mxfp8
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    quantization: mxfp8
    moe-a2a-backend: flashinfer
    moe-runner-backend: flashinfer_trtllm_routed
    flashinfer-a2a-dispatch-type: mxfp8
    ```

    ## Fix safety
    The routed runner changes the kernels; `bf16` dispatch keeps the runner
    and changes the dispatched dtype. Both unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:197` (`handle_flashinfer_a2a_dispatch_type`, run at
    `arg_groups/moe_hook.py:530`)
    """
    if _dispatch_type(view) != "mxfp8" or view["quantization"] != "mxfp8":
        return None
    runner = view["moe_runner_backend"]
    if runner == "flashinfer_trtllm_routed":
        return None
    return Violation(f"--flashinfer-a2a-dispatch-type mxfp8 needs --moe-runner-backend flashinfer_trtllm_routed, "
                     f"not {runner}", args=("moe_runner_backend", "flashinfer_a2a_dispatch_type"))


@mxfp8_dispatch_needs_routed_trtllm.fix
def _routed_runner(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("moe_runner_backend", "flashinfer_trtllm_routed"),
                      title="Set --moe-runner-backend to flashinfer_trtllm_routed")


@mxfp8_dispatch_needs_routed_trtllm.fix
def _bf16_dispatch(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("flashinfer_a2a_dispatch_type", "bf16"), title="Set --flashinfer-a2a-dispatch-type to bf16")


@settings_rule("A2A037", "nvfp4-dispatch-needs-fp4", step="handle_a2a_moe", at="arg_groups/moe_hook.py:202", via=530)
def nvfp4_dispatch_needs_fp4(view: ResolvingView) -> Violation | None:
    """Flag `--flashinfer-a2a-dispatch-type nvfp4` for a model without NVFP4 MoE weights.

    ## What it does
    Checks, with the `flashinfer` a2a backend, for the dispatch type `nvfp4`
    while the quantization is not `modelopt_fp4` and the model has no
    hybrid NVFP4 MoE layers (`model.nvfp4_moe_meta`: needs the model's
    config, silent without it). `auto` picks NVFP4 only where it runs.

    ## Why SGLang refuses it
    The NVFP4 dispatch hands the experts NVFP4 activations, which only FP4
    MoE kernels read. SGLang raises a ValueError while resolving its
    arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: flashinfer
    moe-runner-backend: flashinfer_cutlass
    flashinfer-a2a-dispatch-type: nvfp4
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: flashinfer
    moe-runner-backend: flashinfer_cutlass
    flashinfer-a2a-dispatch-type: auto
    ```

    ## Fix safety
    `auto` (BF16 here) changes the dispatched dtype: unsafe. The other way is
    an NVFP4 checkpoint (`--quantization modelopt_fp4`), which autofix
    cannot choose.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:202` (`handle_flashinfer_a2a_dispatch_type`, run at
    `arg_groups/moe_hook.py:530`)
    """
    if _dispatch_type(view) != "nvfp4":
        return None
    quantization = view["quantization"]
    if quantization == "modelopt_fp4" or view.fact("model.nvfp4_moe_meta") is not None:
        return None
    return Violation(f"--flashinfer-a2a-dispatch-type nvfp4 needs NVFP4 MoE weights (--quantization modelopt_fp4), "
                     f"not {quantization}", args=("flashinfer_a2a_dispatch_type", "quantization"))


nvfp4_dispatch_needs_fp4.fix(_auto_dispatch_type)


def _runner_for_flashinfer_a2a(view: ResolvingView) -> Fix | None:
    """An explicit runner FlashInfer's a2a takes, for the quantization: flashinfer_cutlass, else deep_gemm for FP8,
    the routed TRT-LLM runner for MXFP8 (what its dispatch needs, A2A036)."""
    quantization = view["quantization"]
    if quantization in CUTLASS_QUANTIZATIONS:
        runner = "flashinfer_cutlass"
    elif quantization == "fp8":
        runner = "deep_gemm"
    elif quantization == "mxfp8":
        runner = "flashinfer_trtllm_routed"
    else:
        return None
    return Fix.unsafe(Set("moe_runner_backend", runner), title=f"Set --moe-runner-backend to {runner}")


@settings_rule("A2A038", "flashinfer-a2a-runner", step="handle_a2a_moe", at="arg_groups/moe_hook.py:531")
def flashinfer_a2a_runner(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer` a2a backend with a MoE runner it does not dispatch to (`auto` included).

    ## What it does
    Checks for `--moe-a2a-backend flashinfer` when the resolved MoE runner
    is not `flashinfer_cutlass`, `flashinfer_cutedsl`, `flashinfer_trtllm`,
    `flashinfer_trtllm_routed` or `deep_gemm`. `auto` is not resolved here,
    so it is refused unless the quantization already picked a runner (for
    example `--quantization mxfp8`).

    ## Why SGLang refuses it
    The a2a dispatch and combine are wired only to those runners. SGLang
    stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: flashinfer
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: flashinfer
    moe-runner-backend: flashinfer_cutlass
    ```

    ## Fix safety
    Any runner picks the kernels that run: unsafe. The fix writes
    `flashinfer_cutlass` for bfloat16 and ModelOpt checkpoints,
    `deep_gemm` for `--quantization fp8`, `flashinfer_trtllm_routed` for
    `mxfp8`; `--moe-a2a-backend deepep` is
    offered second (unsafe: another communication path).

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:531` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "flashinfer":
        return None
    runner = view["moe_runner_backend"]
    if runner in FLASHINFER_A2A_RUNNERS:
        return None
    return Violation(f"--moe-a2a-backend flashinfer needs an explicit --moe-runner-backend of "
                     f"{', '.join(FLASHINFER_A2A_RUNNERS)}, not {runner}",
                     args=("moe_runner_backend", "moe_a2a_backend"))


flashinfer_a2a_runner.fix(_runner_for_flashinfer_a2a)


flashinfer_a2a_runner.fix(_deepep_a2a)
