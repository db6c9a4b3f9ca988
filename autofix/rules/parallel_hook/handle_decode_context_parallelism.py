"""``handle_decode_context_parallelism`` (``arg_groups/parallel_hook.py:240``, 0.5.23): the DCP size, and what the
DCP communication backend and the replicated Q projection need.

The check that `fi_a2a` runs on CUDA (:259) has no rule: every GPU autofix
knows is CUDA.
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView

STEP = "handle_decode_context_parallelism"
A2A_BACKENDS = ("a2a", "fi_a2a")


@derivation(step=STEP, at="arg_groups/overrides.py:1396", via=241, writes=("dcp_comm_backend",))
def dcp_comm_backend_default(view: ResolvingView) -> dict | None:
    """With no `--dcp-comm-backend`, SGLang picks one by the DCP size and the platform.

    `ag_rs` without DCP (`dcp_size` 1 or less); with DCP, `fi_a2a` where
    FlashInfer's MNNVL all-to-all runs (SM100, and the DCP group within a
    node's TP ranks or an MNNVL fabric), else `a2a` on CUDA, ROCm and XPU,
    else `ag_rs`. It never replaces a backend the user wrote, so it is no
    override.
    """
    if view["dcp_comm_backend"] is not None:
        return None
    dcp_size = view["dcp_size"]
    if dcp_size <= 1:
        return {"dcp_comm_backend": "ag_rs"}
    if view.fact("platform.is_sm100"):
        pp_size, nnodes = view["pp_size"], view["nnodes"]
        if pp_size < 1:
            return None  # SGLang divides by it (is_fi_a2a_supported): another check refuses it
        per_node = view["tp_size"] // max(nnodes // pp_size, 1)
        if per_node % dcp_size == 0 or view.fact("platform.is_mnnvl_fabric_device"):
            return {"dcp_comm_backend": "fi_a2a"}
    if view.fact("platform.is_cuda") or view.fact("platform.is_hip") or view.fact("platform.is_xpu"):
        return {"dcp_comm_backend": "a2a"}
    return {"dcp_comm_backend": "ag_rs"}


@settings_rule("DCP001", "dcp-size-at-least-1", step=STEP, at="arg_groups/parallel_hook.py:244")
def dcp_size_at_least_1(view: ResolvingView) -> Violation | None:
    """Flag a decode context-parallel size below 1.

    ## What it does
    Checks for `--dcp-size` (`--decode-context-parallel-size`) 0 or
    negative.

    ## Why SGLang refuses it
    The DCP size is the number of ranks a decode request's KV cache is
    split over; 1 means no DCP. SGLang raises a ValueError while resolving
    its arguments.

    ## Example
    ```yaml
    dcp-size: 0
    ```
    Use instead:
    ```yaml
    dcp-size: 1
    ```

    ## Fix safety
    Removing `--dcp-size` gives 1, no DCP, the only reading of a size below
    1 that runs: safe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:244` (`handle_decode_context_parallelism`, 0.5.23)
    """
    dcp_size = view["dcp_size"]
    if dcp_size >= 1:
        return None
    return Violation(f"--dcp-size must be at least 1, not {dcp_size}", args=("dcp_size",))


@dcp_size_at_least_1.fix
def _no_dcp_safe(view: ResolvingView) -> Fix:
    return Fix.safe(Unset("dcp_size"), title="Remove --dcp-size")


@settings_rule("DCP002", "dcp-excludes-prefill-cp", step=STEP, at="arg_groups/parallel_hook.py:250")
def dcp_excludes_prefill_cp(view: ResolvingView) -> Violation | None:
    """Flag decode context parallelism with prefill context parallelism.

    ## What it does
    Checks for `--dcp-size` above 1 with `--enable-prefill-cp`.

    ## Why SGLang refuses it
    The two split the KV cache over ranks in different ways, and SGLang
    runs one of them at a time. It raises a ValueError while resolving its
    arguments.

    ## Example
    ```yaml
    tp-size: 8
    dcp-size: 2
    enable-prefill-cp: true
    cp-strategy: zigzag
    ```
    Use instead:
    ```yaml
    tp-size: 8
    dcp-size: 2
    ```

    ## Fix safety
    Which one to keep is the user's call: removing `--enable-prefill-cp`
    (first) and removing `--dcp-size` are both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:250` (`handle_decode_context_parallelism`, 0.5.23)
    """
    if view["dcp_size"] <= 1 or not view["enable_prefill_cp"]:
        return None
    return Violation(f"--dcp-size {view['dcp_size']} does not run with --enable-prefill-cp; keep one of them",
                     args=("dcp_size", "enable_prefill_cp"))


@dcp_excludes_prefill_cp.fix
def _no_prefill_cp(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("enable_prefill_cp"), title="Remove --enable-prefill-cp")


@dcp_excludes_prefill_cp.fix
def _no_dcp(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("dcp_size"), title="Remove --dcp-size")


@settings_rule("DCP003", "dcp-a2a-backend-needs-dcp", step=STEP, at="arg_groups/parallel_hook.py:252")
def dcp_a2a_backend_needs_dcp(view: ResolvingView) -> Violation | None:
    """Flag an all-to-all DCP communication backend without decode context parallelism.

    ## What it does
    Checks for `--dcp-comm-backend a2a` or `fi_a2a` while `--dcp-size` is
    1 or less.

    ## Why SGLang refuses it
    The backend only does the DCP attention reduction; without DCP there is
    none to do, and SGLang takes the flag for a mistake: it raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    dcp-comm-backend: a2a
    ```
    Use instead:
    ```yaml
    tp-size: 8
    dcp-size: 2
    dcp-comm-backend: a2a
    ```
    (or no `--dcp-comm-backend`, without DCP)

    ## Fix safety
    Without DCP the backend does nothing, so removing `--dcp-comm-backend`
    changes nothing that runs: safe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:252` (`handle_decode_context_parallelism`, 0.5.23)
    """
    backend = view["dcp_comm_backend"]
    if backend not in A2A_BACKENDS or view["dcp_size"] > 1:
        return None
    return Violation(f"--dcp-comm-backend {backend} needs --dcp-size above 1, not {view['dcp_size']}",
                     args=("dcp_comm_backend", "dcp_size"))


@dcp_a2a_backend_needs_dcp.fix
def _no_comm_backend(view: ResolvingView) -> Fix:
    return Fix.safe(Unset("dcp_comm_backend"), title="Remove --dcp-comm-backend")


@settings_rule("DCP004", "dcp-fi-a2a-needs-cuda", step=STEP, at="arg_groups/parallel_hook.py:259")
def dcp_fi_a2a_needs_cuda(view: ResolvingView) -> Violation | None:
    """Flag `--dcp-comm-backend fi_a2a` on a GPU that is not NVIDIA's.

    ## What it does
    Checks for the FlashInfer all-to-all DCP backend on ROCm (`--gpu mi300x`,
    `mi355x`). Silent without `--gpu`.

    ## Why SGLang refuses it
    `fi_a2a` hands the exchange to FlashInfer's MNNVL all-to-all kernel, a
    CUDA kernel; SGLang raises a ValueError while resolving its arguments on
    any other platform.

    ## Example (`--gpu mi300x`)
    ```yaml
    tp-size: 8
    dcp-size: 2
    dcp-comm-backend: fi_a2a
    ```
    Use instead:
    ```yaml
    tp-size: 8
    dcp-size: 2
    dcp-comm-backend: a2a
    ```

    ## Fix safety
    `a2a` does the same exchange with SGLang's own kernel: the reduction is
    the same, its speed may differ. Unsafe; removing the setting (the
    default backend) is the other unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:259` (`handle_decode_context_parallelism`, 0.5.23)
    """
    if view["dcp_comm_backend"] != "fi_a2a" or view.fact("platform.is_cuda"):
        return None
    return Violation("--dcp-comm-backend fi_a2a runs FlashInfer's CUDA all-to-all, and this GPU is not NVIDIA's: "
                     "use a2a or ag_rs", args=("dcp_comm_backend",))


@settings_rule("DCP005", "dcp-replicate-q-proj-needs-dcp", step=STEP, at="arg_groups/parallel_hook.py:267")
def dcp_replicate_q_proj_needs_dcp(view: ResolvingView) -> Violation | None:
    """Flag `--dcp-replicate-q-proj` without decode context parallelism.

    ## What it does
    Checks for `--dcp-replicate-q-proj` while `--dcp-size` is 1 or less.

    ## Why SGLang refuses it
    Replicating the Q projection saves the all-gather of Q over the DCP
    ranks; without DCP there is no such all-gather. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --dcp-replicate-q-proj
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path m
    ```

    ## Fix safety
    Without DCP the flag does nothing, so removing it changes nothing that
    runs: safe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:267` (`handle_decode_context_parallelism`, 0.5.23)
    """
    if not view["dcp_replicate_q_proj"] or view["dcp_size"] > 1:
        return None
    return Violation(f"--dcp-replicate-q-proj needs --dcp-size above 1, not {view['dcp_size']}",
                     args=("dcp_replicate_q_proj", "dcp_size"))


@dcp_replicate_q_proj_needs_dcp.fix
def _no_replicate_q_safe(view: ResolvingView) -> Fix:
    return Fix.safe(Unset("dcp_replicate_q_proj"), title="Remove --dcp-replicate-q-proj")


@settings_rule("DCP006", "dcp-replicate-q-proj-needs-a2a", step=STEP, at="arg_groups/parallel_hook.py:269")
def dcp_replicate_q_proj_needs_a2a(view: ResolvingView) -> Violation | None:
    """Flag `--dcp-replicate-q-proj` with a DCP backend other than `a2a` or `fi_a2a`.

    ## What it does
    Checks, with `--dcp-size` above 1, for `--dcp-replicate-q-proj` while
    the DCP communication backend resolves to `ag_rs` (written, or the
    default off CUDA, ROCm and XPU).

    ## Why SGLang refuses it
    Only the all-to-all backends exchange whole-head outputs; `ag_rs`
    all-gathers Q by head dimension, which a replicated Q projection cannot
    replace. SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --tp 8 --dcp-size 2 --dcp-comm-backend ag_rs --dcp-replicate-q-proj
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path m --tp 8 --dcp-size 2 --dcp-comm-backend a2a --dcp-replicate-q-proj
    ```

    ## Fix safety
    Which one the user meant is not known: switching the backend to `a2a`
    (first) and removing `--dcp-replicate-q-proj` both change what runs:
    unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:269` (`handle_decode_context_parallelism`, 0.5.23)
    """
    if not view["dcp_replicate_q_proj"] or view["dcp_size"] <= 1:
        return None
    backend = view["dcp_comm_backend"]
    if backend in A2A_BACKENDS:
        return None
    return Violation(f"--dcp-replicate-q-proj needs --dcp-comm-backend a2a or fi_a2a, not {backend}",
                     args=("dcp_replicate_q_proj", "dcp_comm_backend"))


@dcp_replicate_q_proj_needs_a2a.fix
def _a2a_backend(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("dcp_comm_backend", "a2a"), title="Set --dcp-comm-backend to a2a")


dcp_fi_a2a_needs_cuda.fix(_a2a_backend)  # DCP004's fixes, best first: SGLang's own a2a, then the default backend


@dcp_fi_a2a_needs_cuda.fix
def _default_comm_backend(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("dcp_comm_backend"), title="Remove --dcp-comm-backend")


@dcp_replicate_q_proj_needs_a2a.fix
def _no_replicate_q(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("dcp_replicate_q_proj"), title="Remove --dcp-replicate-q-proj")
