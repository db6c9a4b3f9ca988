"""``handle_moe_kernel_config``, what each runner supports: the compatibility asserts and the fusion
writes that follow the quantization pass (``arg_groups/moe_hook.py:79-164``)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.moe_hook import CUTLASS_QUANTIZATIONS
from autofix.rules.moe_hook.handle_moe_kernel_config.common import STEP, _auto_runner, _quantization
from autofix.rules.shared import EP_SPANNING_A2A

CUTEDSL_QUANTIZATIONS = ("modelopt_fp4", "modelopt_mixed", "nvfp4_online")
CUTEDSL_A2A = ("none", "deepep", "flashinfer")
TRTLLM_QUANTIZATIONS = ("modelopt_fp4", "nvfp4_online", "fp8", "mxfp8", "modelopt_fp8", "modelopt_mixed",
                        "compressed-tensors", None)
TRTLLM_ROUTED_QUANTIZATIONS = ("fp8", "mxfp8", "modelopt_fp4", "modelopt_mixed", "nvfp4_online", "minimax_m3_nvfp4",
                               None)
# Runners that keep shared experts out of the fused MoE (overrides.py:1529)
FUSION_OFF_RUNNERS = ("lora_triton", "lora_cutedsl", "lora_marlin", "flashinfer_cutedsl", "flashinfer_trtllm",
                      "experimental_sgl_trtllm", "flashinfer_trtllm_routed")


def _ep_size_1_or_tp_size(view: ResolvingView, runner: str) -> Violation | None:
    """RUN006 and RUN008: ``runner`` shards experts not at all or over the whole TP group."""
    if view["moe_runner_backend"] != runner:
        return None
    ep_size, tp_size = view["ep_size"], view["tp_size"]
    if ep_size in (1, tp_size):
        return None
    return Violation(f"--moe-runner-backend {runner} needs ep_size 1 or the --tp-size ({tp_size}), not {ep_size}",
                     args=("ep_size", "moe_runner_backend"))


def _ep_size_fixes(view: ResolvingView) -> Fix:
    """`--ep-size` = `--tp-size`: safe when an EP-spanning a2a backend makes it so later anyway."""
    tp_size = view["tp_size"]
    op = Set("ep_size", tp_size)
    title = f"Set --ep-size to {tp_size} (the --tp-size)"
    if view["moe_a2a_backend"] in EP_SPANNING_A2A:
        return Fix.safe(op, title=title)
    return Fix.unsafe(op, title=title)


def _no_ep_size(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("ep_size"):
        return None
    return Fix.unsafe(Unset("ep_size"), title="Remove --ep-size")


@settings_rule("RUN005", "flashinfer-cutlass-quantization", step=STEP, at="arg_groups/moe_hook.py:81")
def flashinfer_cutlass_quantization(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer_cutlass` MoE runner with a quantization it does not run.

    ## What it does
    Checks for the resolved MoE runner `flashinfer_cutlass` with
    `--quantization` other than `modelopt_fp4`, `modelopt_fp8`,
    `modelopt_mixed` or none (bfloat16).

    ## Why SGLang refuses it
    FlashInfer's CUTLASS MoE kernels exist only for those weight formats.
    SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    moe-runner-backend: flashinfer_cutlass
    quantization: fp8
    ```
    Use instead:
    ```yaml
    quantization: fp8
    ```

    ## Fix safety
    Removing the runner lets SGLang pick one for the quantization: it
    changes the kernels that run, unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:81` (`handle_moe_kernel_config`, 0.5.23)
    """
    if view["moe_runner_backend"] != "flashinfer_cutlass":
        return None
    quantization = _quantization(view)
    if quantization in CUTLASS_QUANTIZATIONS:
        return None
    return Violation(f"--moe-runner-backend flashinfer_cutlass does not run --quantization {quantization}; it "
                     "takes modelopt_fp4, modelopt_fp8, modelopt_mixed or none", args=("moe_runner_backend",
                                                                                        "quantization"))


flashinfer_cutlass_quantization.fix(_auto_runner)


@settings_rule("RUN006", "flashinfer-cutlass-ep-size", step=STEP, at="arg_groups/moe_hook.py:89")
def flashinfer_cutlass_ep_size(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer_cutlass` MoE runner with an expert-parallel size other than 1 or `--tp-size`.

    ## What it does
    Checks for the resolved MoE runner `flashinfer_cutlass` with `ep_size`
    neither 1 nor `tp_size`. It reads `ep_size` before an EP-spanning a2a
    backend sets it to `tp_size` (that happens in the next step), so
    `--tp 8 --ep-size 2 --moe-a2a-backend deepep` is refused although it
    would run with `ep_size` 8.

    ## Why SGLang refuses it
    The runner shards experts either not at all or over the whole TP group.
    SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    ep-size: 2
    moe-runner-backend: flashinfer_cutlass
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ep-size: 8
    moe-runner-backend: flashinfer_cutlass
    ```

    ## Fix safety
    Setting `--ep-size` to `--tp-size` is safe with an EP-spanning a2a
    backend (`deepep`, ...: it makes `ep_size` that later anyway) and
    unsafe without one (it changes the layout). Removing `--ep-size`
    (`ep_size` 1) is unsafe, offered second.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:89` (`handle_moe_kernel_config`, 0.5.23)
    """
    return _ep_size_1_or_tp_size(view, "flashinfer_cutlass")


flashinfer_cutlass_ep_size.fix(_ep_size_fixes)
flashinfer_cutlass_ep_size.fix(_no_ep_size)


@settings_rule("RUN007", "flashinfer-cutedsl-needs-nvfp4", step=STEP, at="arg_groups/moe_hook.py:96")
def flashinfer_cutedsl_needs_nvfp4(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer_cutedsl` MoE runner without NVFP4 MoE weights.

    ## What it does
    Checks for the resolved MoE runner `flashinfer_cutedsl` with
    `--quantization` other than `modelopt_fp4`, `modelopt_mixed` or
    `nvfp4_online`, when the model's config has no NVFP4 MoE layers. Without
    the model's config that is unknown, and the rule is silent.

    ## Why SGLang refuses it
    The CuTe DSL MoE kernels run NVFP4 weights only. SGLang stops on an
    assert while resolving its arguments.

    ## Example
    ```yaml
    moe-runner-backend: flashinfer_cutedsl
    ```
    Use instead:
    ```yaml
    moe-runner-backend: flashinfer_cutedsl
    quantization: modelopt_fp4
    ```
    (with an NVFP4 checkpoint), or no runner.

    ## Fix safety
    Removing the runner changes the kernels that run: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:96` (`handle_moe_kernel_config`, 0.5.23)
    """
    if view["moe_runner_backend"] != "flashinfer_cutedsl":
        return None
    quantization = _quantization(view)
    if quantization in CUTEDSL_QUANTIZATIONS or view.fact("model.nvfp4_moe_meta") is not None:
        return None
    return Violation(f"--moe-runner-backend flashinfer_cutedsl needs NVFP4 MoE weights (--quantization "
                     f"modelopt_fp4, modelopt_mixed or nvfp4_online), not {quantization}",
                     args=("moe_runner_backend", "quantization"))


flashinfer_cutedsl_needs_nvfp4.fix(_auto_runner)


@settings_rule("RUN008", "flashinfer-cutedsl-ep-size", step=STEP, at="arg_groups/moe_hook.py:102")
def flashinfer_cutedsl_ep_size(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer_cutedsl` MoE runner with an expert-parallel size other than 1 or `--tp-size`.

    ## What it does
    As RUN006, for the `flashinfer_cutedsl` runner: `ep_size` as it is
    before an EP-spanning a2a backend sets it to `tp_size`.

    ## Why SGLang refuses it
    The runner shards experts either not at all or over the whole TP group.
    SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    ep-size: 2
    quantization: modelopt_fp4
    moe-runner-backend: flashinfer_cutedsl
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ep-size: 8
    quantization: modelopt_fp4
    moe-runner-backend: flashinfer_cutedsl
    ```

    ## Fix safety
    As RUN006: `--ep-size` = `--tp-size` is safe with an EP-spanning a2a
    backend, unsafe otherwise; removing `--ep-size` is unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:102` (`handle_moe_kernel_config`, 0.5.23)
    """
    return _ep_size_1_or_tp_size(view, "flashinfer_cutedsl")


flashinfer_cutedsl_ep_size.fix(_ep_size_fixes)
flashinfer_cutedsl_ep_size.fix(_no_ep_size)


@settings_rule("RUN009", "flashinfer-cutedsl-a2a-backend", step=STEP, at="arg_groups/moe_hook.py:106")
def flashinfer_cutedsl_a2a_backend(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer_cutedsl` MoE runner with an a2a backend other than `none`, `deepep` or `flashinfer`.

    ## What it does
    Checks the a2a backend as it is at this step: before `--enable-waterfill`
    makes it `deepep` and `ascend_tp` collapses to `none` (both happen in
    the next step), so `--moe-a2a-backend mooncake --enable-waterfill` and
    `--moe-a2a-backend ascend_tp` are refused although they would run with
    an a2a backend this runner takes.

    ## Why SGLang refuses it
    The runner's dispatch and combine are written for those three paths.
    SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    quantization: modelopt_fp4
    moe-runner-backend: flashinfer_cutedsl
    moe-a2a-backend: mooncake
    ```
    Use instead:
    ```yaml
    quantization: modelopt_fp4
    moe-runner-backend: flashinfer_cutedsl
    moe-a2a-backend: deepep
    ```

    ## Fix safety
    Writing the backend the launch runs with anyway is safe: `deepep` with
    `--enable-waterfill`, `none` for `ascend_tp`. Otherwise `deepep` (keeps
    expert parallelism over the TP group) and `none` change the
    communication path: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:106` (`handle_moe_kernel_config`, 0.5.23)
    """
    if view["moe_runner_backend"] != "flashinfer_cutedsl":
        return None
    a2a = view["moe_a2a_backend"]
    if a2a in CUTEDSL_A2A:
        return None
    return Violation(f"--moe-runner-backend flashinfer_cutedsl takes --moe-a2a-backend none, deepep or "
                     f"flashinfer, not {a2a}", args=("moe_a2a_backend", "moe_runner_backend"))


@flashinfer_cutedsl_a2a_backend.fix
def _deepep(view: ResolvingView) -> Fix:
    op = Set("moe_a2a_backend", "deepep")
    if view["enable_waterfill"]:  # Waterfill makes it deepep in the next step
        return Fix.safe(op, title="Set --moe-a2a-backend to deepep (what --enable-waterfill makes it)")
    return Fix.unsafe(op, title="Set --moe-a2a-backend to deepep")


@flashinfer_cutedsl_a2a_backend.fix
def _no_a2a(view: ResolvingView) -> Fix | None:
    if view["enable_waterfill"]:
        return None  # Waterfill would make it deepep again
    op = Unset("moe_a2a_backend")
    if view["moe_a2a_backend"] == "ascend_tp":  # collapses to none in the next step
        return Fix.safe(op, title="Remove --moe-a2a-backend ascend_tp (it runs as none)")
    return Fix.unsafe(op, title="Remove --moe-a2a-backend (none)")


@settings_rule("RUN010", "flashinfer-cutedsl-deepep-per-token-nvfp4", step=STEP, at="arg_groups/moe_hook.py:118")
def flashinfer_cutedsl_deepep_per_token_nvfp4(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer_cutedsl` MoE runner over DeepEP with per-token NVFP4 activations.

    ## What it does
    Checks for the resolved runner `flashinfer_cutedsl` with the a2a
    backend `deepep` and `--quantization nvfp4_online` (or the environment
    variable `SGLANG_FLASHINFER_NVFP4_PER_TOKEN_ACTIVATION`, which autofix
    does not know unless told: then the rule is silent).

    ## Why SGLang refuses it
    DeepEP's dispatch carries one activation scale per block, not per token.
    SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    quantization: nvfp4_online
    moe-runner-backend: flashinfer_cutedsl
    moe-a2a-backend: deepep
    ```
    Use instead (no a2a backend, or block-scaled NVFP4 weights, which
    DeepEP carries):
    ```yaml
    quantization: modelopt_fp4
    moe-runner-backend: flashinfer_cutedsl
    moe-a2a-backend: deepep
    ```

    ## Fix safety
    No a2a backend (`none`) changes the communication path: unsafe.
    (`flashinfer` is the other one SGLang names; it needs attention data
    parallelism over the whole TP group, so it is not offered.)

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:118` (`handle_moe_kernel_config`, 0.5.23)
    """
    if view["moe_runner_backend"] != "flashinfer_cutedsl" or view["moe_a2a_backend"] != "deepep":
        return None
    if view["quantization"] != "nvfp4_online" and not view.fact("env.SGLANG_FLASHINFER_NVFP4_PER_TOKEN_ACTIVATION"):
        return None
    return Violation("--moe-runner-backend flashinfer_cutedsl with per-token NVFP4 activations needs "
                     "--moe-a2a-backend none or flashinfer, not deepep", args=("moe_a2a_backend", "quantization"))


@flashinfer_cutedsl_deepep_per_token_nvfp4.fix
def _none_a2a(view: ResolvingView) -> Fix | None:
    if view["enable_waterfill"]:
        return None  # Waterfill would make it deepep again
    # not flashinfer: that backend needs attention DP over the whole TP group (moe_hook.py:475)
    return Fix.unsafe(Unset("moe_a2a_backend"), title="Remove --moe-a2a-backend (none)")



def _quantization_allow_list(view: ResolvingView, runners: tuple[str, ...], allowed: tuple, kernels: str
                             ) -> Violation | None:
    """RUN011 and RUN012: the resolved runner is one of ``runners`` and runs only ``allowed`` weights."""
    runner = view["moe_runner_backend"]
    if runner not in runners:
        return None
    quantization = _quantization(view)
    if quantization in allowed:
        return None
    names = ", ".join(q for q in allowed if q is not None)
    return Violation(f"--moe-runner-backend {runner} does not run --quantization {quantization}; {kernels} "
                     f"take {names} or none", args=("moe_runner_backend", "quantization"))


@settings_rule("RUN011", "flashinfer-trtllm-quantization", step=STEP, at="arg_groups/moe_hook.py:124")
def flashinfer_trtllm_quantization(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer_trtllm` (or `experimental_sgl_trtllm`) MoE runner with a quantization it does not run.

    ## What it does
    Checks for the resolved MoE runner `flashinfer_trtllm` or
    `experimental_sgl_trtllm` with `--quantization` other than
    `modelopt_fp4`, `nvfp4_online`, `fp8`, `mxfp8`, `modelopt_fp8`,
    `modelopt_mixed`, `compressed-tensors` or none (bfloat16).

    ## Why SGLang refuses it
    The TRT-LLM MoE kernels exist only for those weight formats. SGLang
    stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    moe-runner-backend: flashinfer_trtllm
    quantization: w8a8_fp8
    ```
    Use instead:
    ```yaml
    quantization: w8a8_fp8
    ```

    ## Fix safety
    Removing the runner lets SGLang pick one for the quantization: it
    changes the kernels that run, unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:124` (`handle_moe_kernel_config`, 0.5.23)
    """
    return _quantization_allow_list(view, ("flashinfer_trtllm", "experimental_sgl_trtllm"), TRTLLM_QUANTIZATIONS,
                                    "the TRT-LLM MoE kernels")


flashinfer_trtllm_quantization.fix(_auto_runner)


@settings_rule("RUN012", "flashinfer-trtllm-routed-quantization", step=STEP, at="arg_groups/moe_hook.py:138")
def flashinfer_trtllm_routed_quantization(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer_trtllm_routed` MoE runner with a quantization it does not run.

    ## What it does
    Checks for the resolved MoE runner `flashinfer_trtllm_routed` with
    `--quantization` other than `fp8`, `mxfp8`, `modelopt_fp4`,
    `modelopt_mixed`, `nvfp4_online`, `minimax_m3_nvfp4` or none
    (bfloat16). The check runs before `--flashinfer-a2a-dispatch-type`
    switches `flashinfer_trtllm` to this runner (A2A032), so a runner made
    so is not checked.

    ## Why SGLang refuses it
    The routed TRT-LLM MoE kernels exist only for those weight formats.
    SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    moe-runner-backend: flashinfer_trtllm_routed
    quantization: modelopt_fp8
    ```
    Use instead:
    ```yaml
    quantization: modelopt_fp8
    ```

    ## Fix safety
    Removing the runner lets SGLang pick one for the quantization: it
    changes the kernels that run, unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:138` (`handle_moe_kernel_config`, 0.5.23)
    """
    return _quantization_allow_list(view, ("flashinfer_trtllm_routed",), TRTLLM_ROUTED_QUANTIZATIONS,
                                    "the routed TRT-LLM MoE kernels")


flashinfer_trtllm_routed_quantization.fix(_auto_runner)


@derivation(step=STEP, at="arg_groups/overrides.py:1537", via=153, writes=("disable_shared_experts_fusion",))
def moe_runner_disables_shared_experts_fusion(view: ResolvingView) -> dict | None:
    """RUN013: the TRT-LLM, CuTe DSL and LoRA MoE runners keep the shared experts apart (fusion disabled).

    The runners `flashinfer_trtllm`, `experimental_sgl_trtllm`,
    `flashinfer_trtllm_routed`, `flashinfer_cutedsl`, `lora_triton`,
    `lora_cutedsl` and `lora_marlin` make `disable_shared_experts_fusion`
    true; later steps read it (Waterfill with an a2a backend turns it back
    off). It is no override: the flag is store-true, and SGLang's config
    merger drops `disable-shared-experts-fusion: false`, so no value the
    user wrote is replaced.
    """
    if view["moe_runner_backend"] not in FUSION_OFF_RUNNERS:
        return None
    return {"disable_shared_experts_fusion": True}


def _ep_spanning(view: ResolvingView) -> bool:
    """The next step makes ``ep_size`` the ``tp_size`` (A2A006): an EP-spanning a2a backend, or Waterfill's."""
    return view["moe_a2a_backend"] in EP_SPANNING_A2A or view["enable_waterfill"]


@settings_rule("RUN014", "cutlass-fp8-needs-ep-size-1", step=STEP, at="arg_groups/moe_hook.py:161")
def cutlass_fp8_needs_ep_size_1(view: ResolvingView) -> Violation | None:
    """Flag the `cutlass` MoE runner with FP8 or MXFP8 weights and an expert-parallel size other than 1.

    ## What it does
    Checks for the resolved MoE runner `cutlass` with `--quantization fp8`
    or `mxfp8` and `ep_size` other than 1. It reads `ep_size` before an
    EP-spanning a2a backend sets it to `tp_size` (the next step), so
    `--moe-a2a-backend deepep` without `--ep-size` passes although it runs
    with `ep_size` = `tp_size`, and with `--ep-size 8` it is refused.

    ## Why SGLang refuses it
    The CUTLASS FP8 MoE kernels hold every expert on each rank. SGLang stops
    on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    ep-size: 8
    quantization: fp8
    moe-runner-backend: cutlass
    ```
    Use instead:
    ```yaml
    tp-size: 8
    quantization: fp8
    moe-runner-backend: cutlass
    ```

    ## Fix safety
    Removing `--ep-size` is safe with an EP-spanning a2a backend (or
    Waterfill): `ep_size` becomes `tp_size` in the next step either way.
    Otherwise it changes the parallel layout: unsafe. Removing the runner
    (SGLang picks one) changes the kernels: unsafe, offered second.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:161` (`handle_moe_kernel_config`, 0.5.23)
    """
    if view["moe_runner_backend"] != "cutlass":
        return None
    quantization = _quantization(view)
    if quantization not in ("fp8", "mxfp8"):
        return None
    ep_size = view["ep_size"]
    if ep_size == 1:
        return None
    return Violation(f"--moe-runner-backend cutlass with --quantization {quantization} needs ep_size 1, not {ep_size}",
                     args=("ep_size", "moe_runner_backend", "quantization"))


@cutlass_fp8_needs_ep_size_1.fix
def _drop_ep_size(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("ep_size"):
        return None
    if _ep_spanning(view):
        return Fix.safe(Unset("ep_size"), title="Remove --ep-size (the a2a backend makes it the --tp-size anyway)")
    return Fix.unsafe(Unset("ep_size"), title="Remove --ep-size")


cutlass_fp8_needs_ep_size_1.fix(_auto_runner)
