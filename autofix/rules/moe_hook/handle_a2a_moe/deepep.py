"""``handle_a2a_moe``, the ``deepep`` a2a backend (``arg_groups/moe_hook.py:358-398``): the CuteDSL
runner's dispatch mode, and the CUDA graphs normal mode turns off."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView


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
