"""``handle_a2a_moe`` (``arg_groups/moe_hook.py``, 0.5.23): the a2a backend and the expert-parallel size it implies."""

from __future__ import annotations

from autofix.model import Fix, Set, Unset, Violation
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


def _attn_dp_tp_size(view: ResolvingView) -> Fix | None:
    """`--attn-dp-size` = `--tp-size`: attention data parallelism over the whole TP group."""
    tp_size = view["tp_size"]
    if tp_size <= 1 or view["dp_size"] > 1:
        return None  # attention DP needs tp > 1; DP replicas refuse attention DP (parallel_hook.py:288)
    return Fix.unsafe(Set("attn_dp_size", tp_size), title=f"Set --attn-dp-size to {tp_size} (the --tp-size)")


def _deepep_a2a(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("moe_a2a_backend", "deepep"), title="Set --moe-a2a-backend to deepep")


def _muse_spark_sp(view: ResolvingView) -> bool:
    """The exception of moe_hook.py:61: Muse Spark's prefill sequence parallelism, TP4/EP4 or TP8/EP8, no attention DP."""
    if not view["enable_layernorm_sp"] or view["attn_dp_size"] != 1 or view["ep_join_mode"] == "scale":
        return False
    if (view["tp_size"], view["ep_size"]) not in ((4, 4), (8, 8)):
        return False
    architectures = view.fact("model.architectures") or []
    return bool(architectures) and architectures[0] == "MuseSparkForConditionalGeneration"


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
    if view["moe_a2a_backend"] != "flashinfer":
        return None
    attn_dp_size, tp_size = view["attn_dp_size"], view["tp_size"]
    attn_dp_enabled = attn_dp_size > 1 or view["ep_join_mode"] == "scale"
    if attn_dp_enabled and attn_dp_size == tp_size:
        return None
    if _muse_spark_sp(view):
        return None
    return Violation(f"--moe-a2a-backend flashinfer needs attention DP over the whole TP group (--attn-dp-size "
                     f"{tp_size}, the --tp-size), not --attn-dp-size {attn_dp_size}; or --moe-a2a-backend deepep "
                     "(which one is your call)", args=("moe_a2a_backend", "attn_dp_size", "tp_size"))


flashinfer_a2a_needs_attn_dp_tp.fix(_attn_dp_tp_size)
flashinfer_a2a_needs_attn_dp_tp.fix(_deepep_a2a)


def _dispatch_type_cause(view: ResolvingView) -> str:
    return f"--flashinfer-a2a-dispatch-type {view['flashinfer_a2a_dispatch_type']}"


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:513", writes=("moe_runner_backend",),
            code="A2A032", name="flashinfer-dispatch-type-routes-trtllm", cause=_dispatch_type_cause)
def flashinfer_dispatch_type_routes_trtllm(view: ResolvingView) -> dict | None:
    """With the `flashinfer` a2a backend, a dispatch type makes the `flashinfer_trtllm` runner `flashinfer_trtllm_routed`.

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


def _runner_for_flashinfer_a2a(view: ResolvingView) -> Fix | None:
    """An explicit runner FlashInfer's a2a takes, for the quantization: flashinfer_cutlass, else deep_gemm for FP8."""
    quantization = view["quantization"]
    if quantization in CUTLASS_QUANTIZATIONS:
        runner = "flashinfer_cutlass"
    elif quantization == "fp8":
        runner = "deep_gemm"
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
    `deep_gemm` for `--quantization fp8`; `--moe-a2a-backend deepep` is
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
                     f"{', '.join(FLASHINFER_A2A_RUNNERS)}, not {runner}", args=("moe_runner_backend", "moe_a2a_backend"))


flashinfer_a2a_runner.fix(_runner_for_flashinfer_a2a)
flashinfer_a2a_runner.fix(_deepep_a2a)
