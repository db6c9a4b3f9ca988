"""``handle_a2a_moe``, the ``deepep_v2`` a2a backend (``arg_groups/moe_hook.py:400-458``)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.moe_hook.handle_a2a_moe.common import _deep_gemm_runner


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:407", writes=("moe_runner_backend",))
def deepep_v2_runner_default(view: ResolvingView) -> dict | None:
    """DeepEP v2 resolves the MoE runner `auto` to `deep_gemm` (A2A023's override; `auto` only, so no warning)."""
    if view["moe_a2a_backend"] != "deepep_v2" or view["moe_runner_backend"] != "auto":
        return None
    return {"moe_runner_backend": "deep_gemm"}


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
