"""``handle_a2a_moe``, the ``flashinfer_megamoe`` a2a backend (``arg_groups/moe_hook.py:315-356``,
with ``validate_flashinfer_megamoe_model`` at :237)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Op, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.moe_hook.handle_a2a_moe.common import (
    _attn_dp_over_tp,
    _attn_dp_tp_message,
    _attn_dp_tp_size,
    _deepep_a2a,
)

# validate_flashinfer_megamoe_model (moe_hook.py:237), called at :316 for the flashinfer_megamoe a2a backend
MEGAMOE_ARCHS = frozenset({
    "BeamForCausalLM", "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
    "DeepseekV4ForCausalLM", "Glm4MoeForCausalLM", "GlmMoeDsaForCausalLM", "NemotronHForCausalLM",
    "NemotronHPuzzleForCausalLM", "Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM", "KimiK3ForConditionalGeneration",
    "KimiK3LinearForCausalLM",
})


@settings_rule("A2A009", "flashinfer-megamoe-model", step="handle_a2a_moe", at="arg_groups/moe_hook.py:258", via=316)
def flashinfer_megamoe_model(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer_megamoe` a2a backend for a model architecture it is not validated on.

    ## What it does
    Checks, with `--moe-a2a-backend flashinfer_megamoe`, that the model's
    architecture (`model.architecture`) is one of the MoE families
    FlashInfer's MegaMoE is validated on (DeepSeek V2-V4, Qwen2/3-MoE,
    GLM-4 MoE, Nemotron-H, Kimi-K3, Beam). Needs the model's config: silent
    without it.

    ## Why SGLang refuses it
    The fused MegaMoE kernels assume the expert layout of those families.
    SGLang raises a ValueError while resolving its arguments.

    ## Example (`--gpu b200`, a Llama model)
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: flashinfer_megamoe
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: deepep
    ```

    ## Fix safety
    Another a2a backend changes the communication path: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:258` (`validate_flashinfer_megamoe_model`, called at
    `arg_groups/moe_hook.py:316`)
    """
    if view["moe_a2a_backend"] != "flashinfer_megamoe" or not view.fact("model.given"):
        return None
    arch = view.fact("model.architecture")
    if arch in MEGAMOE_ARCHS:
        return None
    return Violation(f"the flashinfer_megamoe a2a backend is not validated for {arch}", args=("moe_a2a_backend",))


@settings_rule("A2A010", "flashinfer-megamoe-quantization", step="handle_a2a_moe", at="arg_groups/moe_hook.py:275",
               via=316)
def flashinfer_megamoe_quantization(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer_megamoe` a2a backend for MoE weights it does not run.

    ## What it does
    Checks, with `--moe-a2a-backend flashinfer_megamoe`, that the
    quantization is `mxfp8` or `modelopt_fp4` (or `nvfp4_online` with
    `SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16`), or that the checkpoint has FP4
    experts or hybrid NVFP4 MoE layers (`model.is_fp4_experts`,
    `model.nvfp4_moe_meta`: needs the model's config, silent without it).

    ## Why SGLang refuses it
    FlashInfer's MegaMoE kernels take MXFP8 or NVFP4 expert weights only;
    standard FP8 and BF16 checkpoints are not supported. SGLang raises a
    ValueError while resolving its arguments.

    ## Example (`--gpu b200`)
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: flashinfer_megamoe
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: deepep
    ```

    ## Fix safety
    Another a2a backend changes the communication path: unsafe. The other
    way is an FP4 or MXFP8 checkpoint, which autofix cannot choose.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:275` (`validate_flashinfer_megamoe_model`, called at
    `arg_groups/moe_hook.py:316`)
    """
    if view["moe_a2a_backend"] != "flashinfer_megamoe":
        return None
    quantization = view["quantization"]
    if quantization in ("mxfp8", "modelopt_fp4"):
        return None
    if quantization == "nvfp4_online" and view.fact("env.SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16"):
        return None
    if view.fact("model.is_fp4_experts") or view.fact("model.nvfp4_moe_meta") is not None:
        return None
    return Violation(f"the flashinfer_megamoe a2a backend needs MXFP8 or NVFP4 MoE weights, not {quantization}",
                     args=("moe_a2a_backend", "quantization"))


@settings_rule("A2A015", "flashinfer-megamoe-needs-attn-dp-tp", step="handle_a2a_moe", at="arg_groups/moe_hook.py:325")
def flashinfer_megamoe_needs_attn_dp_tp(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer_megamoe` a2a backend without attention data parallelism over the whole TP group.

    ## What it does
    Checks for `--moe-a2a-backend flashinfer_megamoe` unless attention DP is
    on (`--attn-dp-size` above 1, or an elastic EP scale joiner) with
    `--attn-dp-size` equal to `--tp-size`.

    ## Why SGLang refuses it
    The fused MegaMoE kernels dispatch one attention-DP rank's tokens per
    GPU. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    quantization: modelopt_fp4
    moe-a2a-backend: flashinfer_megamoe
    ```
    Use instead (`attn-dp-size: 8` with `flashinfer_megamoe` on an SM100
    GPU; on others, where it cannot run, A2A017):
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    quantization: modelopt_fp4
    moe-a2a-backend: deepep
    ```

    ## Fix safety
    Ambiguous, as A2A029: attention DP over the TP group changes the
    scheduler topology and divides the chunked-prefill size; DeepEP changes
    the communication path. Both unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:325` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "flashinfer_megamoe" or _attn_dp_over_tp(view):
        return None
    return Violation(_attn_dp_tp_message("flashinfer_megamoe", view),
                     args=("moe_a2a_backend", "attn_dp_size", "tp_size"))


def _leave_flashinfer_megamoe(view: ResolvingView) -> Fix:
    """DeepEP instead; an explicit `flashinfer_megamoe` runner goes with the backend (auto)."""
    ops: list[Op] = [Set("moe_a2a_backend", "deepep")]
    if view.is_explicit("moe_runner_backend") and view.written("moe_runner_backend") == "flashinfer_megamoe":
        ops.append(Unset("moe_runner_backend"))
    return Fix.unsafe(*ops, title="Set --moe-a2a-backend to deepep")


flashinfer_megamoe_needs_attn_dp_tp.fix(_attn_dp_tp_size)


flashinfer_megamoe_needs_attn_dp_tp.fix(_leave_flashinfer_megamoe)
flashinfer_megamoe_model.fix(_leave_flashinfer_megamoe)
flashinfer_megamoe_quantization.fix(_leave_flashinfer_megamoe)


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:329", writes=("moe_runner_backend",))
def flashinfer_megamoe_runner_default(view: ResolvingView) -> dict | None:
    """The `flashinfer_megamoe` a2a backend resolves the runner `auto` to `flashinfer_megamoe` (no override)."""
    if view["moe_a2a_backend"] != "flashinfer_megamoe" or view["moe_runner_backend"] != "auto":
        return None
    return {"moe_runner_backend": "flashinfer_megamoe"}


@settings_rule("A2A016", "flashinfer-megamoe-runner", step="handle_a2a_moe", at="arg_groups/moe_hook.py:332")
def flashinfer_megamoe_runner(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer_megamoe` a2a backend with a MoE runner other than `flashinfer_megamoe`.

    ## What it does
    Checks the runner after `auto` resolves: `auto` (and, with
    `--quantization mxfp8`, a runner MXFP8 does not take) becomes
    `flashinfer_megamoe`; any other runner written is refused.

    ## Why SGLang refuses it
    The MegaMoE a2a backend and its expert kernels are one fused
    implementation. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    quantization: modelopt_fp4
    moe-a2a-backend: flashinfer_megamoe
    moe-runner-backend: flashinfer_cutlass
    ```
    Use instead (`moe-runner-backend: flashinfer_megamoe` on an SM100 GPU;
    to keep the runner, another backend):
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    quantization: modelopt_fp4
    moe-a2a-backend: deepep
    moe-runner-backend: flashinfer_cutlass
    ```

    ## Fix safety
    Either way the runner the config names does not run: writing
    `flashinfer_megamoe` is unsafe (another runner than written); DeepEP,
    which keeps it, changes the communication path: unsafe, second.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:332` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "flashinfer_megamoe":
        return None
    runner = view["moe_runner_backend"]
    if runner == "flashinfer_megamoe":
        return None
    return Violation(f"--moe-a2a-backend flashinfer_megamoe needs --moe-runner-backend flashinfer_megamoe, "
                     f"not {runner}",
                     args=("moe_runner_backend", "moe_a2a_backend"))


@flashinfer_megamoe_runner.fix
def _megamoe_runner(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("moe_runner_backend", "flashinfer_megamoe"),
                      title="Set --moe-runner-backend to flashinfer_megamoe")


flashinfer_megamoe_runner.fix(_deepep_a2a)


@settings_rule("A2A017", "flashinfer-megamoe-needs-sm100", step="handle_a2a_moe", at="arg_groups/moe_hook.py:336")
def flashinfer_megamoe_needs_sm100(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer_megamoe` a2a backend on a GPU outside the SM100 family.

    ## What it does
    Checks for `--moe-a2a-backend flashinfer_megamoe` when the GPU is not
    SM100-family (B200, GB200, B300). The GPU is a fact autofix knows only
    when told (`--gpu`); otherwise the rule is silent.

    ## Why SGLang refuses it
    FlashInfer's MegaMoE kernels are built for Blackwell data-centre GPUs
    only, for every quantization they take. SGLang raises a ValueError
    while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    quantization: modelopt_fp4
    moe-a2a-backend: flashinfer_megamoe
    ```
    Use instead (on a Hopper GPU):
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    quantization: modelopt_fp4
    moe-a2a-backend: deepep
    ```

    ## Fix safety
    DeepEP (with the runner `auto` instead of an explicit
    `flashinfer_megamoe`) changes the communication path and the kernels:
    unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:336` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "flashinfer_megamoe" or view.fact("platform.is_sm100"):
        return None
    return Violation("--moe-a2a-backend flashinfer_megamoe needs an SM100-family GPU (B200, GB200, B300)",
                     args=("moe_a2a_backend",))


flashinfer_megamoe_needs_sm100.fix(_leave_flashinfer_megamoe)
