"""``handle_moe_kernel_config``, the runner by quantization: ``_moe_runner_backend_quant_constraints``
(``arg_groups/overrides.py``), the pass the hook runs first (``arg_groups/moe_hook.py:77``)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.moe_hook.handle_moe_kernel_config.common import STEP

# Runners MXFP8 MoE takes on CUDA (arg_groups/choices.py:161).
MXFP8_MOE_RUNNERS = ("cutlass", "deep_gemm", "flashinfer_megamoe", "flashinfer_trtllm", "flashinfer_trtllm_routed")
NVFP4_ONLINE_RUNNERS = ("flashinfer_trtllm", "flashinfer_trtllm_routed", "flashinfer_cutedsl")


def _quantization_cause(view: ResolvingView) -> str | None:
    if view["moe_runner_backend"] == "auto":
        return None  # `auto` asks SGLang to choose: no value of the user's is replaced
    return f"--quantization {view['quantization']}"


@settings_rule("RUN001", "nvfp4-online-needs-sm100", step=STEP, at="arg_groups/overrides.py:1458", via=77)
def nvfp4_online_needs_sm100(view: ResolvingView) -> Violation | None:
    """Flag `--quantization nvfp4_online` on a GPU other than Blackwell SM100/SM103.

    ## What it does
    Checks for `--quantization nvfp4_online` when the GPU is not of the
    SM100 family (B200, GB200, B300). It needs the GPU (`--gpu`): without
    it the rule is silent.

    ## Why SGLang refuses it
    Online NVFP4 quantizes the MoE weights at load time for the FP4 tensor
    cores of SM100/SM103, which other GPUs lack. SGLang raises a ValueError
    while resolving its arguments.

    ## Example
    ```yaml
    quantization: nvfp4_online
    ```
    Use instead (on an H200):
    ```yaml
    quantization: fp8
    ```

    ## Fix safety
    Both fixes change the weights that run: removing `--quantization`
    loads the checkpoint as it is stored, `fp8` quantizes it online to
    FP8 (Hopper runs it). Unsafe. Either also removes a
    `flashinfer_cutedsl` runner, which runs NVFP4 weights only (RUN007).

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1458` (`_moe_runner_backend_quant_constraints`, run at
    `arg_groups/moe_hook.py:77`)
    """
    if view["quantization"] != "nvfp4_online" or view.fact("platform.is_sm100"):
        return None
    return Violation("--quantization nvfp4_online runs only on NVIDIA Blackwell SM100/SM103 GPUs, not on this one",
                     args=("quantization",))


def _without_cutedsl(view: ResolvingView) -> list:
    """Remove a `flashinfer_cutedsl` runner with the NVFP4 quantization: it runs NVFP4 weights only (RUN007)."""
    return [Unset("moe_runner_backend")] if view.written("moe_runner_backend") == "flashinfer_cutedsl" else []


@nvfp4_online_needs_sm100.fix
def _no_quantization(view: ResolvingView) -> Fix:
    ops = _without_cutedsl(view)
    also = " and --moe-runner-backend flashinfer_cutedsl" if ops else ""
    return Fix.unsafe(Unset("quantization"), *ops, title=f"Remove --quantization nvfp4_online{also}")


@nvfp4_online_needs_sm100.fix
def _fp8_quantization(view: ResolvingView) -> Fix:
    ops = _without_cutedsl(view)
    also = " and remove --moe-runner-backend flashinfer_cutedsl" if ops else ""
    return Fix.unsafe(Set("quantization", "fp8"), *ops, title=f"Set --quantization to fp8{also}")


@settings_rule("RUN002", "nvfp4-online-runner", step=STEP, at="arg_groups/overrides.py:1471", via=77)
def nvfp4_online_runner(view: ResolvingView) -> Violation | None:
    """Flag `--quantization nvfp4_online` with a MoE runner that does not run it.

    ## What it does
    Checks for `--quantization nvfp4_online` with a `--moe-runner-backend`
    other than `auto`, `flashinfer_trtllm`, `flashinfer_trtllm_routed` and
    `flashinfer_cutedsl` (or `flashinfer_megamoe` over the
    `flashinfer_megamoe` a2a backend with the environment variable
    `SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16=1`; autofix does not know the
    environment unless told, and is then silent for that runner). It does
    not need the GPU: on SM100 SGLang refuses the runner, elsewhere the
    quantization (RUN001).

    ## Why SGLang refuses it
    Only FlashInfer's TRT-LLM and CuTe DSL MoE kernels take the weights
    NVFP4 makes online. SGLang raises a ValueError while resolving its
    arguments.

    ## Example
    ```yaml
    quantization: nvfp4_online
    moe-runner-backend: triton
    ```
    Use instead (on a B200, no runner: `flashinfer_trtllm`; on this H200,
    a quantization the GPU and the runner run):
    ```yaml
    quantization: fp8
    moe-runner-backend: triton
    ```

    ## Fix safety
    Removing the runner lets SGLang pick `flashinfer_trtllm`: it changes
    the kernels that run, unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1471` (`_moe_runner_backend_quant_constraints`, run at
    `arg_groups/moe_hook.py:77`)
    """
    if view["quantization"] != "nvfp4_online":
        return None
    runner = view["moe_runner_backend"]
    if runner == "auto" or runner in NVFP4_ONLINE_RUNNERS:
        return None
    if (runner == "flashinfer_megamoe" and view["moe_a2a_backend"] == "flashinfer_megamoe"
            and view.fact("env.SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16")):
        return None
    return Violation(f"--quantization nvfp4_online runs on --moe-runner-backend flashinfer_trtllm, "
                     f"flashinfer_trtllm_routed or flashinfer_cutedsl (or auto), not {runner}",
                     args=("moe_runner_backend", "quantization"))


@nvfp4_online_runner.fix
def _auto_nvfp4_runner(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("moe_runner_backend"), title="Remove --moe-runner-backend (auto: flashinfer_trtllm)")


@derivation(step=STEP, at="arg_groups/overrides.py:1524", via=77, writes=("moe_runner_backend",),
            code="RUN003", name="quantization-overrides-moe-runner", cause=_quantization_cause)
def quantization_overrides_moe_runner(view: ResolvingView) -> dict | None:
    """The quantization picks the MoE runner: `auto` resolves, and MXFP8 replaces a runner it does not take.

    ## What it does
    Warns at a `--moe-runner-backend` that `--quantization mxfp8` replaces
    (MXFP8 MoE runs only on `cutlass`, `deep_gemm`, `flashinfer_megamoe`,
    `flashinfer_trtllm` and `flashinfer_trtllm_routed` on CUDA). It also
    resolves `auto` for `nvfp4_online`, `mxfp8`, and `modelopt_fp4` on
    SM110/SM120, which replaces nothing the user chose.

    ## Why it matters
    SGLang logs a warning and runs another runner than the config names;
    checks after this step see the replacement.

    ## Example
    ```yaml
    quantization: mxfp8
    moe-runner-backend: triton
    ```
    Use instead (on an NVIDIA GPU):
    ```yaml
    quantization: mxfp8
    moe-runner-backend: flashinfer_trtllm
    ```

    ## Fix safety
    Writing the runner SGLang picks resolves the launch to the same values:
    safe. It depends on the platform (ROCm gfx95 picks `triton`): without
    `--gpu` the step reads an unknown fact and autofix stays silent.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1524` (`_moe_runner_backend_quant_constraints`, run at
    `arg_groups/moe_hook.py:77`)
    """
    runner = written = view["moe_runner_backend"]
    quantization = view["quantization"]
    if quantization == "nvfp4_online":
        w4a16 = view["moe_a2a_backend"] == "flashinfer_megamoe" and view.fact("env.SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16")
        if not view.fact("platform.is_sm100"):
            return None  # SGLang refuses the quantization here (RUN001)
        if runner == "auto":
            runner = "flashinfer_megamoe" if w4a16 else "flashinfer_trtllm"
        elif runner not in NVFP4_ONLINE_RUNNERS and not (runner == "flashinfer_megamoe" and w4a16):
            return None  # SGLang refuses the runner here (RUN002)
    if quantization == "mxfp8" and not view.fact("platform.is_npu"):
        hip = view.fact("platform.is_hip")
        gfx95 = hip and view.fact("platform.is_gfx95")
        allowed = list(MXFP8_MOE_RUNNERS)
        if gfx95 or (hip and runner == "triton"):
            allowed.append("triton")
        if gfx95 and view.fact("env.SGLANG_USE_AITER"):
            allowed.append("aiter")
        default = ("flashinfer_megamoe" if view["moe_a2a_backend"] == "flashinfer_megamoe"
                   else "triton" if gfx95 else "flashinfer_trtllm")
        if runner == "auto" or runner not in allowed:
            runner = default
    if runner == "auto" and quantization == "modelopt_fp4" and (
            view.fact("platform.is_sm120") or view.fact("platform.is_sm110")):
        runner = "flashinfer_cutlass"
    return {"moe_runner_backend": runner} if runner != written else None
