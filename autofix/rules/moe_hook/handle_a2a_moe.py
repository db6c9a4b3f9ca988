"""``handle_a2a_moe`` (``arg_groups/moe_hook.py``, 0.5.23): the a2a backend and the expert-parallel size it implies."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.moe_hook import EP_SPANNING_A2A


def _waterfill(view: ResolvingView) -> str:
    return "--enable-waterfill"


@derivation(step="handle_a2a_moe", at="arg_groups/overrides.py:1606", via=292, writes=("moe_a2a_backend",),
            code="A2A005", name="waterfill-overrides-a2a-backend", cause=_waterfill)
def waterfill_overrides_a2a_backend(view: ResolvingView) -> dict | None:
    """Waterfill makes the MoE a2a backend `deepep` unless it is `deepep` or `megamoe`.

    ## What it does
    Warns at a `--moe-a2a-backend` (other than `deepep` or `megamoe`) that
    `--enable-waterfill` replaces.

    ## Why it matters
    SGLang logs a warning and runs DeepEP; checks before this step saw the
    backend as written (RUN009), checks after it see `deepep` (EP003, RUN019).

    ## Example
    ```yaml
    enable-waterfill: true
    moe-a2a-backend: mooncake
    ```
    Use instead:
    ```yaml
    enable-waterfill: true
    moe-a2a-backend: deepep
    ```

    ## Fix safety
    Writing `deepep` resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1606` (`_a2a_backend_overrides`, run at `arg_groups/moe_hook.py:292`)
    """
    if view["moe_a2a_backend"] in ("deepep", "megamoe") or not view["enable_waterfill"]:
        return None
    return {"moe_a2a_backend": "deepep"}


def _spanning(view: ResolvingView) -> str:
    return f"the a2a backend {view['moe_a2a_backend']}"


@derivation(step="handle_a2a_moe", at="arg_groups/overrides.py:1619", via=293, writes=("ep_size",),
            code="A2A006", name="a2a-backend-overrides-ep-size", cause=_spanning)
def a2a_backend_overrides_ep_size(view: ResolvingView) -> dict | None:
    """An EP-spanning a2a backend makes `ep_size` equal `tp_size`.

    ## What it does
    Warns at an `--ep-size` that an a2a backend spanning the TP group
    (`deepep`, `deepep_v2`, `mooncake`, `nixl`, `mori`, `pplx`, `flashinfer`,
    `flashinfer_megamoe`, `megamoe`, `ascend_fuseep`) replaces by `--tp-size`.

    ## Why it matters
    SGLang only logs it: `--ep-size 2` runs as 8 with `--tp 8`; checks before
    this step saw 2 (RUN006, RUN008), checks after it see 8 (EP004, RUN019).

    ## Example
    ```yaml
    tp-size: 8
    ep-size: 2
    moe-a2a-backend: deepep
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ep-size: 8
    moe-a2a-backend: deepep
    ```

    ## Fix safety
    Writing the size that runs resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1619` (`_a2a_ep_size`, run at `arg_groups/moe_hook.py:293`)
    """
    if view["moe_a2a_backend"] not in EP_SPANNING_A2A:
        return None
    return {"ep_size": view["tp_size"]}


# Fixes and tests several backends share.


def _attn_dp_tp_size(view: ResolvingView) -> Fix | None:
    """`--attn-dp-size` = `--tp-size`: attention data parallelism over the whole TP group."""
    tp_size = view["tp_size"]
    if tp_size <= 1 or view["dp_size"] > 1:
        return None  # attention DP needs tp > 1; DP replicas refuse attention DP (parallel_hook.py:288)
    return Fix.unsafe(Set("attn_dp_size", tp_size), title=f"Set --attn-dp-size to {tp_size} (the --tp-size)")


def _deepep_a2a(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("moe_a2a_backend", "deepep"), title="Set --moe-a2a-backend to deepep")


def _attn_dp_tp_message(a2a: str, view: ResolvingView) -> str:
    """A2A015 and A2A029: what the backend needs, and what is in the way."""
    tp_size, attn_dp_size = view["tp_size"], view["attn_dp_size"]
    needs = f"--moe-a2a-backend {a2a} needs attention DP over the whole TP group"
    if tp_size == 1:
        return f"{needs}, which one GPU (--tp-size 1) does not have: use another a2a backend, or none"
    return (f"{needs} (--attn-dp-size {tp_size}, the --tp-size), not --attn-dp-size {attn_dp_size}; or another a2a "
            "backend, such as deepep (which one is your call)")


def _attn_dp_over_tp(view: ResolvingView) -> bool:
    """SGLang's `attn_dp_enabled and attn_dp_size == tp_size` (a scale joiner counts as attention DP)."""
    attn_dp_size = view["attn_dp_size"]
    return (attn_dp_size > 1 or view["ep_join_mode"] == "scale") and attn_dp_size == view["tp_size"]


# Shared-expert fusion (moe_hook.py:298-306).


def _waterfill_fusion_cause(view: ResolvingView) -> str:
    return f"--enable-waterfill with the a2a backend {view['moe_a2a_backend']}"


@derivation(step="handle_a2a_moe", at="arg_groups/overrides.py:1564", via=298,
            writes=("disable_shared_experts_fusion",), code="A2A007", name="a2a-backend-sets-shared-experts-fusion",
            cause=_waterfill_fusion_cause)
def a2a_backend_sets_shared_experts_fusion(view: ResolvingView) -> dict | None:
    """The a2a backend decides shared-expert fusion: Waterfill needs it, FlashInfer and DeepEP v2 turn it off.

    ## What it does
    Warns at `--disable-shared-experts-fusion` when `--enable-waterfill`
    runs with the a2a backend `deepep` or `megamoe`: SGLang turns fusion
    back on. With `flashinfer`, `flashinfer_megamoe` or `deepep_v2` it turns
    fusion off, which replaces nothing a user can write.

    ## Why it matters
    SGLang logs a warning and fuses the shared experts although the config
    says not to.

    ## Example
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep
    enable-waterfill: true
    disable-shared-experts-fusion: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep
    enable-waterfill: true
    ```

    ## Fix safety
    Removing the ignored flag resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1564` (`_a2a_fusion_adjustments`, run at `arg_groups/moe_hook.py:298`)
    """
    a2a = view["moe_a2a_backend"]
    if a2a in ("deepep", "megamoe") and view["enable_waterfill"]:
        return {"disable_shared_experts_fusion": False} if view["disable_shared_experts_fusion"] else None
    if a2a in ("flashinfer", "flashinfer_megamoe", "deepep_v2"):
        return {"disable_shared_experts_fusion": True}
    return None


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:302", writes=("enforce_shared_experts_fusion",))
def waterfill_enforces_shared_experts_fusion(view: ResolvingView) -> dict | None:
    """Waterfill enforces shared-expert fusion (a store-true flag: it replaces nothing the user wrote)."""
    return {"enforce_shared_experts_fusion": True} if view["enable_waterfill"] else None


# Every backend: the FlashInfer dispatch type (moe_hook.py:308-313).


# Runners the FlashInfer a2a backend dispatches to (moe_hook.py:531).
FLASHINFER_A2A_RUNNERS = ("flashinfer_cutlass", "flashinfer_cutedsl", "flashinfer_trtllm", "flashinfer_trtllm_routed",
                          "deep_gemm")


# Quantizations the flashinfer_cutlass runner takes (moe_hook.py:81), so the runner a fix may pick for them.
CUTLASS_QUANTIZATIONS = ("modelopt_fp4", "modelopt_fp8", "modelopt_mixed", None)


def _no_dispatch_type(view: ResolvingView) -> Fix:
    return Fix.safe(Unset("flashinfer_a2a_dispatch_type"), title="Remove --flashinfer-a2a-dispatch-type")


@settings_rule("A2A008", "flashinfer-dispatch-type-needs-flashinfer-a2a", step="handle_a2a_moe",
               at="arg_groups/moe_hook.py:311")
def flashinfer_dispatch_type_needs_flashinfer_a2a(view: ResolvingView) -> Violation | None:
    """Flag `--flashinfer-a2a-dispatch-type` with an a2a backend other than `flashinfer`.

    ## What it does
    Checks for a dispatch type other than `auto` while the a2a backend, as
    `--enable-waterfill` leaves it, is not `flashinfer`. `auto` is accepted
    with any backend.

    ## Why SGLang refuses it
    The dispatch dtype is a setting of FlashInfer's a2a kernels only; with
    another backend nothing would read it. SGLang raises a ValueError while
    resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep
    flashinfer-a2a-dispatch-type: bf16
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep
    ```

    ## Fix safety
    Removing the dispatch type changes nothing that runs (no kernel reads
    it with this backend): safe. Switching the backend to `flashinfer`
    changes the communication path (and needs attention DP over the whole
    TP group, A2A029): unsafe, offered second.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:311` (`handle_a2a_moe`, 0.5.23)
    """
    dispatch_type = view["flashinfer_a2a_dispatch_type"]
    if dispatch_type in (None, "auto"):
        return None
    a2a = view["moe_a2a_backend"]
    if a2a == "flashinfer":
        return None
    return Violation(f"--flashinfer-a2a-dispatch-type {dispatch_type} needs --moe-a2a-backend flashinfer, not {a2a}",
                     args=("flashinfer_a2a_dispatch_type", "moe_a2a_backend"))


flashinfer_dispatch_type_needs_flashinfer_a2a.fix(_no_dispatch_type)


@flashinfer_dispatch_type_needs_flashinfer_a2a.fix
def _flashinfer_a2a(view: ResolvingView) -> Fix | None:
    if view["enable_waterfill"]:
        return None  # Waterfill makes it deepep again
    return Fix.unsafe(Set("moe_a2a_backend", "flashinfer"), title="Set --moe-a2a-backend to flashinfer")


# flashinfer_megamoe (moe_hook.py:315-356).


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
    ops = [Set("moe_a2a_backend", "deepep")]
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


# deepep (moe_hook.py:358-398).


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:365", writes=("deepep_mode",))
def deepep_cutedsl_low_latency(view: ResolvingView) -> dict | None:
    """DeepEP with the `flashinfer_cutedsl` runner resolves `--deepep-mode auto` to `low_latency` (A2A018).

    Only `auto` is replaced (a request for SGLang to choose): no override.
    """
    if view["moe_a2a_backend"] != "deepep" or view["moe_runner_backend"] != "flashinfer_cutedsl":
        return None
    return {"deepep_mode": "low_latency"} if view["deepep_mode"] == "auto" else None


def _low_latency(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("deepep_mode", "low_latency"), title="Set --deepep-mode to low_latency")


@settings_rule("A2A019", "deepep-cutedsl-needs-low-latency", step="handle_a2a_moe", at="arg_groups/moe_hook.py:377")
def deepep_cutedsl_needs_low_latency(view: ResolvingView) -> Violation | None:
    """Flag DeepEP's `normal` mode with the `flashinfer_cutedsl` MoE runner.

    ## What it does
    Checks for `--deepep-mode normal` when the a2a backend is `deepep`
    (`--enable-waterfill` makes it so) and the MoE runner is
    `flashinfer_cutedsl`.

    ## Why SGLang refuses it
    The CuTe DSL FP4 kernels have no handler for DeepEP's normal (prefill)
    dispatch layout, only for the masked low-latency one. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    quantization: modelopt_fp4
    moe-runner-backend: flashinfer_cutedsl
    moe-a2a-backend: deepep
    deepep-mode: normal
    ```
    Use instead:
    ```yaml
    tp-size: 8
    quantization: modelopt_fp4
    moe-runner-backend: flashinfer_cutedsl
    moe-a2a-backend: deepep
    deepep-mode: low_latency
    ```

    ## Fix safety
    `low_latency` (what `auto` resolves to with this runner) changes the
    prefill dispatch and keeps the CUDA graphs that `normal` turns off:
    unsafe. Removing the runner is the other way, also unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:377` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "deepep" or view["moe_runner_backend"] != "flashinfer_cutedsl":
        return None
    if view["deepep_mode"] != "normal":
        return None
    return Violation("--moe-runner-backend flashinfer_cutedsl with --moe-a2a-backend deepep needs --deepep-mode "
                     "low_latency or auto, not normal", args=("deepep_mode", "moe_runner_backend"))


deepep_cutedsl_needs_low_latency.fix(_low_latency)


@deepep_cutedsl_needs_low_latency.fix
def _auto_runner(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("moe_runner_backend"):
        return None
    return Fix.unsafe(Unset("moe_runner_backend"), title="Remove --moe-runner-backend (auto)")


def _deepep_normal(view: ResolvingView) -> str:
    return "--deepep-mode normal with the a2a backend deepep"


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:385",
            writes=("cuda_graph_backend_decode", "cuda_graph_backend_prefill"), code="A2A020",
            name="deepep-normal-disables-cuda-graphs", cause=_deepep_normal)
def deepep_normal_disables_cuda_graphs(view: ResolvingView) -> dict | None:
    """DeepEP's `normal` mode turns the decode and prefill CUDA graphs off, whatever the config chose.

    ## What it does
    Warns at `--cuda-graph-backend-decode` or `--cuda-graph-backend-prefill`
    (other than `disabled`) when the a2a backend is `deepep` and
    `--deepep-mode` is `normal`. SGLang declares both phases of its
    `cuda_graph_config` disabled; autofix, which does not model that
    composite value, declares the two backend settings it is built from.

    ## Why it matters
    SGLang only logs it: the server runs without CUDA graphs, although the
    config asks for them.

    ## Example
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep
    deepep-mode: normal
    cuda-graph-backend-decode: full
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep
    deepep-mode: normal
    cuda-graph-backend-decode: disabled
    ```
    (or `deepep-mode: low_latency` / `auto` to keep the graphs).

    ## Fix safety
    Writing `disabled`, what runs, resolves the launch to the same values:
    safe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:385` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "deepep" or view["deepep_mode"] != "normal":
        return None
    return {"cuda_graph_backend_decode": "disabled", "cuda_graph_backend_prefill": "disabled"}


# deepep_v2 (moe_hook.py:400-458).


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:407", writes=("moe_runner_backend",))
def deepep_v2_runner_default(view: ResolvingView) -> dict | None:
    """DeepEP v2 resolves the MoE runner `auto` to `deep_gemm` (A2A023's override; `auto` only, so no warning)."""
    if view["moe_a2a_backend"] != "deepep_v2" or view["moe_runner_backend"] != "auto":
        return None
    return {"moe_runner_backend": "deep_gemm"}


def _deep_gemm_runner(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("moe_runner_backend", "deep_gemm"), title="Set --moe-runner-backend to deep_gemm")


def _deepep_v1(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("moe_a2a_backend", "deepep"), title="Set --moe-a2a-backend to deepep (DeepEP v1)")


@settings_rule("A2A023", "deepep-v2-needs-deep-gemm", step="handle_a2a_moe", at="arg_groups/moe_hook.py:414")
def deepep_v2_needs_deep_gemm(view: ResolvingView) -> Violation | None:
    """Flag the `deepep_v2` a2a backend with a MoE runner other than `deep_gemm`.

    ## What it does
    Checks for `--moe-a2a-backend deepep_v2` when the runner, as earlier
    steps resolve it, is neither `auto` (which becomes `deep_gemm`) nor
    `deep_gemm`. `--quantization mxfp8` resolves `auto` to
    `flashinfer_trtllm` before this step, so it is refused too.

    ## Why SGLang refuses it
    DeepEP v2 has a runner adapter for DeepGEMM only. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep_v2
    moe-runner-backend: triton
    chunked-prefill-size: 1024
    cuda-graph-max-bs-decode: 64
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep_v2
    moe-runner-backend: deep_gemm
    chunked-prefill-size: 1024
    cuda-graph-max-bs-decode: 64
    ```

    ## Fix safety
    `deep_gemm` changes the kernels that run; `--moe-a2a-backend deepep`
    (DeepEP v1) the communication path. Both unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:414` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "deepep_v2":
        return None
    runner = view["moe_runner_backend"]
    if runner == "deep_gemm":
        return None
    return Violation(f"--moe-a2a-backend deepep_v2 runs only the deep_gemm MoE runner, not {runner}",
                     args=("moe_runner_backend", "moe_a2a_backend", "quantization"))


deepep_v2_needs_deep_gemm.fix(_deep_gemm_runner)


deepep_v2_needs_deep_gemm.fix(_deepep_v1)


@settings_rule("A2A024", "deepep-v2-no-batch-overlap", step="handle_a2a_moe", at="arg_groups/moe_hook.py:421")
def deepep_v2_no_batch_overlap(view: ResolvingView) -> Violation | None:
    """Flag two-batch or single-batch overlap with the `deepep_v2` a2a backend.

    ## What it does
    Checks for `--enable-two-batch-overlap` or `--enable-single-batch-overlap`
    with `--moe-a2a-backend deepep_v2`.

    ## Why SGLang refuses it
    DeepEP v2 does not implement the overlap hooks yet. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep_v2
    enable-two-batch-overlap: true
    chunked-prefill-size: 1024
    cuda-graph-max-bs-decode: 64
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep_v2
    chunked-prefill-size: 1024
    cuda-graph-max-bs-decode: 64
    ```

    ## Fix safety
    Dropping the overlap drops a feature the config asks for; DeepEP v1
    (`deepep`) changes the communication path. Both unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:421` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "deepep_v2":
        return None
    on = [f for f, dest in (("--enable-two-batch-overlap", "enable_two_batch_overlap"),
                            ("--enable-single-batch-overlap", "enable_single_batch_overlap")) if view[dest]]
    if not on:
        return None
    return Violation(f"--moe-a2a-backend deepep_v2 has no batch overlap: {' and '.join(on)} cannot be used with it",
                     args=("enable_two_batch_overlap", "enable_single_batch_overlap", "moe_a2a_backend"))


@deepep_v2_no_batch_overlap.fix
def _no_overlap(view: ResolvingView) -> Fix:
    ops = [Unset(d) for d in ("enable_two_batch_overlap", "enable_single_batch_overlap") if view.is_explicit(d)]
    return Fix.unsafe(*ops, title="Remove the batch-overlap flags")


deepep_v2_no_batch_overlap.fix(_deepep_v1)


@settings_rule("A2A025", "deepep-v2-no-enforced-fusion", step="handle_a2a_moe", at="arg_groups/moe_hook.py:427")
def deepep_v2_no_enforced_fusion(view: ResolvingView) -> Violation | None:
    """Flag `--enforce-shared-experts-fusion` with the `deepep_v2` a2a backend.

    ## What it does
    Checks for `--enforce-shared-experts-fusion` with
    `--moe-a2a-backend deepep_v2` (Waterfill, which also enforces fusion,
    makes the backend `deepep`, so it never reaches this check).

    ## Why SGLang refuses it
    Fused shared experts are not validated with DeepEP v2 (it turns fusion
    off). SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep_v2
    enforce-shared-experts-fusion: true
    chunked-prefill-size: 1024
    cuda-graph-max-bs-decode: 64
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep_v2
    chunked-prefill-size: 1024
    cuda-graph-max-bs-decode: 64
    ```

    ## Fix safety
    Removing the flag runs the shared experts unfused, as DeepEP v2 does;
    DeepEP v1 keeps the fusion but changes the communication path. Both
    change what the config asks for: unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:427` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "deepep_v2" or not view["enforce_shared_experts_fusion"]:
        return None
    return Violation("--moe-a2a-backend deepep_v2 does not fuse shared experts: remove "
                     "--enforce-shared-experts-fusion", args=("enforce_shared_experts_fusion", "moe_a2a_backend"))


@deepep_v2_no_enforced_fusion.fix
def _no_enforced_fusion(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("enforce_shared_experts_fusion"), title="Remove --enforce-shared-experts-fusion")


deepep_v2_no_enforced_fusion.fix(_deepep_v1)


@settings_rule("A2A026", "deepep-v2-direct-single-node", step="handle_a2a_moe", at="arg_groups/moe_hook.py:433")
def deepep_v2_direct_single_node(view: ResolvingView) -> Violation | None:
    """Flag DeepEP v2's `direct` mode (the default) across more than one node.

    ## What it does
    Checks for `--moe-a2a-backend deepep_v2` with `--deepep-v2-mode direct`
    (written or by default) and `--nnodes` above 1.

    ## Why SGLang refuses it
    Direct mode goes over NVLink only, within a node; `hybrid` crosses
    nodes. SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 16
    nnodes: 2
    dist-init-addr: 10.0.0.1:5000
    moe-a2a-backend: deepep_v2
    chunked-prefill-size: 2048
    cuda-graph-max-bs-decode: 64
    ```
    Use instead:
    ```yaml
    tp-size: 16
    nnodes: 2
    dist-init-addr: 10.0.0.1:5000
    moe-a2a-backend: deepep_v2
    deepep-v2-mode: hybrid
    chunked-prefill-size: 2048
    cuda-graph-max-bs-decode: 64
    ```

    ## Fix safety
    `hybrid` is the only mode that runs across nodes: safe when the mode
    was the default, unsafe when the config wrote `direct`.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:433` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "deepep_v2" or view["deepep_v2_mode"] != "direct":
        return None
    nnodes = view["nnodes"]
    if nnodes <= 1:
        return None
    return Violation(f"--deepep-v2-mode direct is NVLink-only and cannot span --nnodes {nnodes}: use hybrid",
                     args=("deepep_v2_mode", "nnodes", "moe_a2a_backend"))


@deepep_v2_direct_single_node.fix
def _hybrid(view: ResolvingView) -> Fix:
    op = Set("deepep_v2_mode", "hybrid")
    title = "Set --deepep-v2-mode to hybrid"
    return Fix.unsafe(op, title=title) if view.is_explicit("deepep_v2_mode") else Fix.safe(op, title=title)


def _deepep_v2(view: ResolvingView) -> str:
    return "the a2a backend deepep_v2"


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:438", writes=("cuda_graph_backend_prefill",),
            code="A2A027", name="deepep-v2-disables-prefill-cuda-graph", cause=_deepep_v2)
def deepep_v2_disables_prefill_cuda_graph(view: ResolvingView) -> dict | None:
    """DeepEP v2 turns the prefill CUDA graph off, whatever the config chose (decode keeps its graph).

    ## What it does
    Warns at `--cuda-graph-backend-prefill` (other than `disabled`) with
    `--moe-a2a-backend deepep_v2`. As for A2A020, autofix declares the
    backend setting SGLang's `cuda_graph_config` prefill phase is built from.

    ## Why it matters
    SGLang does not warn: DeepEP v2's prefill reads host-side
    counts and cannot be captured, so prefill runs without a graph although
    the config asks for one.

    ## Example
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep_v2
    chunked-prefill-size: 1024
    cuda-graph-max-bs-decode: 64
    cuda-graph-backend-prefill: full
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep_v2
    chunked-prefill-size: 1024
    cuda-graph-max-bs-decode: 64
    cuda-graph-backend-prefill: disabled
    ```

    ## Fix safety
    Writing `disabled`, what runs, resolves the launch to the same values:
    safe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:438` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "deepep_v2":
        return None
    return {"cuda_graph_backend_prefill": "disabled"}


# ascend_tp, and none on an NPU (moe_hook.py:462-469).


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:465", writes=("moe_a2a_backend",),
            code="A2A028", name="ascend-tp-runs-as-none",
            cause=lambda view: "SGLang's a2a step")
def ascend_tp_runs_as_none(view: ResolvingView) -> dict | None:
    """The a2a backend `ascend_tp` runs as `none` (and `none` stays `none` on NPUs).

    ## What it does
    Warns at `--moe-a2a-backend ascend_tp`: SGLang replaces it by `none`
    before the expert-parallel checks read it.

    ## Why it matters
    Checks after this step see `none`: `--ep-dispatch-algorithm static`
    with `ascend_tp` is refused (EP003) as with no backend.

    ## Example
    ```yaml
    moe-a2a-backend: ascend_tp
    ```
    Use instead:
    ```yaml
    moe-a2a-backend: none
    ```

    ## Fix safety
    Removing the backend (`none`) resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:465` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] == "ascend_tp":
        return {"moe_a2a_backend": "none"}
    return None  # `none` on an NPU: declared `none` again, no change


# flashinfer (moe_hook.py:471-541; the dispatch-type helper at :166-211).


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


# mori (moe_hook.py:543-573).


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:546", writes=("deepep_mode",))
def mori_deepep_mode_default(view: ResolvingView) -> dict | None:
    """MoRI resolves `--deepep-mode auto` to `normal` (A2A039; `auto` only: no override).

    MoRI EPv2 also turns an explicit `low_latency` into `normal`
    (moe_hook.py:553); whether EPv2 is used depends on environment variables
    and the model's dtype and architecture, so that override is not modelled.
    """
    if view["moe_a2a_backend"] != "mori" or view["deepep_mode"] != "auto":
        return None
    return {"deepep_mode": "normal"}


# pplx (moe_hook.py:575-621).


@settings_rule("A2A041", "pplx-low-latency-only", step="handle_a2a_moe", at="arg_groups/moe_hook.py:577")
def pplx_low_latency_only(view: ResolvingView) -> Violation | None:
    """Flag `--deepep-mode normal` with the `pplx` a2a backend.

    ## What it does
    Checks for `--moe-a2a-backend pplx` with `--deepep-mode normal`.

    ## Why SGLang refuses it
    PPLX's kernels have a low-latency mode only. SGLang raises a ValueError
    while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: pplx
    deepep-mode: normal
    chunked-prefill-size: 1024
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: pplx
    deepep-mode: low_latency
    chunked-prefill-size: 1024
    ```

    ## Fix safety
    `low_latency` is the one mode PPLX runs (`auto` resolves to it): safe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:577` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "pplx" or view["deepep_mode"] != "normal":
        return None
    return Violation("--moe-a2a-backend pplx runs only --deepep-mode low_latency (or auto), not normal",
                     args=("deepep_mode", "moe_a2a_backend"))


@pplx_low_latency_only.fix
def _pplx_low_latency(view: ResolvingView) -> Fix:
    return Fix.safe(Set("deepep_mode", "low_latency"), title="Set --deepep-mode to low_latency")


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:582", writes=("deepep_mode",))
def pplx_deepep_mode_default(view: ResolvingView) -> dict | None:
    """PPLX resolves `--deepep-mode auto` to `low_latency` (`auto` only: no override)."""
    if view["moe_a2a_backend"] != "pplx" or view["deepep_mode"] != "auto":
        return None
    return {"deepep_mode": "low_latency"}


@settings_rule("A2A043", "pplx-needs-attn-dp", step="handle_a2a_moe", at="arg_groups/moe_hook.py:591")
def pplx_needs_attn_dp(view: ResolvingView) -> Violation | None:
    """Flag the `pplx` a2a backend without at least two attention-DP groups.

    ## What it does
    Checks for `--moe-a2a-backend pplx` with `--attn-dp-size` below 2 (an
    elastic EP scale joiner does not count here: the size itself is read).

    ## Why SGLang refuses it
    PPLX's all-to-all is built over the attention-DP groups and cannot be
    constructed with one. SGLang stops on an assert while resolving its
    arguments.

    ## Example
    ```yaml
    tp-size: 8
    moe-a2a-backend: pplx
    chunked-prefill-size: 1024
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: pplx
    chunked-prefill-size: 1024
    ```

    ## Fix safety
    Ambiguous: attention DP over the TP group (`--attn-dp-size` =
    `--tp-size`, when above 1 and without `--dp-size` replicas) changes the
    scheduler topology and divides the chunked-prefill size; DeepEP changes
    the communication path. Both unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:591` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "pplx":
        return None
    attn_dp_size = view["attn_dp_size"]
    if attn_dp_size >= 2:
        return None
    return Violation(f"--moe-a2a-backend pplx needs --attn-dp-size 2 or more, not {attn_dp_size}",
                     args=("moe_a2a_backend", "attn_dp_size"))


pplx_needs_attn_dp.fix(_attn_dp_tp_size)


pplx_needs_attn_dp.fix(_deepep_a2a)


@settings_rule("A2A044", "pplx-needs-deep-gemm", step="handle_a2a_moe", at="arg_groups/moe_hook.py:599")
def pplx_needs_deep_gemm(view: ResolvingView) -> Violation | None:
    """Flag the `pplx` a2a backend with a MoE runner other than `deep_gemm` or `auto`.

    ## What it does
    Checks the runner as earlier steps resolve it: `--quantization mxfp8`
    makes `auto` `flashinfer_trtllm` before this step, which is refused.

    ## Why SGLang refuses it
    PPLX runs DeepGEMM's masked expert path only. SGLang stops on an assert
    while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: pplx
    moe-runner-backend: triton
    chunked-prefill-size: 1024
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: pplx
    moe-runner-backend: deep_gemm
    chunked-prefill-size: 1024
    ```

    ## Fix safety
    `deep_gemm` changes the kernels that run; DeepEP the communication
    path. Both unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:599` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "pplx":
        return None
    runner = view["moe_runner_backend"]
    if runner in ("deep_gemm", "auto"):
        return None
    return Violation(f"--moe-a2a-backend pplx runs only the deep_gemm MoE runner, not {runner}",
                     args=("moe_runner_backend", "moe_a2a_backend", "quantization"))


pplx_needs_deep_gemm.fix(_deep_gemm_runner)


pplx_needs_deep_gemm.fix(_deepep_a2a)


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:604", writes=("moe_runner_backend",))
def pplx_runner_default(view: ResolvingView) -> dict | None:
    """PPLX resolves the MoE runner `auto` to `deep_gemm` (`auto` only: no override)."""
    if view["moe_a2a_backend"] != "pplx" or view["moe_runner_backend"] != "auto":
        return None
    return {"moe_runner_backend": "deep_gemm"}
