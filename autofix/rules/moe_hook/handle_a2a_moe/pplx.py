"""``handle_a2a_moe``, the ``pplx`` a2a backend (``arg_groups/moe_hook.py:575-621``)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.moe_hook.handle_a2a_moe.common import _attn_dp_tp_size, _deep_gemm_runner, _deepep_a2a


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
