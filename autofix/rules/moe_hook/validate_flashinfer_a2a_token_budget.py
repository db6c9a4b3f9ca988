"""``validate_flashinfer_a2a_token_budget`` (``arg_groups/moe_hook.py:749``, 0.5.23): FlashInfer a2a's per-rank workspace.

Runs after speculative decoding is resolved. Its first check (chunked
prefill on) is decidable from the settings; the workspace budget (A2A047)
reads ``SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK`` and the CUDA
graph sizes SGLang derives from the GPU memory, and is not modelled.
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.shared import chunked_prefill_size


@settings_rule("A2A046", "flashinfer-a2a-needs-chunked-prefill", step="validate_flashinfer_a2a_token_budget",
               at="arg_groups/moe_hook.py:756")
def flashinfer_a2a_needs_chunked_prefill(view: ResolvingView) -> Violation | None:
    """Flag the `flashinfer` a2a backend with chunked prefill off.

    ## What it does
    Checks for the resolved a2a backend `flashinfer` with a
    `--chunked-prefill-size` of 0 or below (`-1` turns chunking off),
    except on a PD decode server (`--disaggregation-mode decode`). Left
    unset, SGLang sizes the chunk from the GPU memory (positive); the size
    it checks is per attention-DP rank.

    ## Why SGLang refuses it
    Eager prefill sends the whole per-rank batch through FlashInfer's
    fixed-size dispatch workspace, so the prefill must come in bounded
    chunks. SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: flashinfer
    moe-runner-backend: flashinfer_trtllm
    chunked-prefill-size: -1
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    moe-a2a-backend: flashinfer
    moe-runner-backend: flashinfer_trtllm
    ```

    ## Fix safety
    Removing `--chunked-prefill-size` (SGLang sizes the chunk from the GPU
    memory) turns chunked prefill on: unsafe. `--moe-a2a-backend deepep`
    keeps prefill unchunked but changes the communication path: unsafe,
    offered second.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:756` (`validate_flashinfer_a2a_token_budget`, 0.5.23)
    """
    if view["moe_a2a_backend"] != "flashinfer" or view["disaggregation_mode"] == "decode":
        return None
    chunked = chunked_prefill_size(view)
    if chunked is None or chunked > 0:
        return None
    return Violation(f"--moe-a2a-backend flashinfer needs chunked prefill, but --chunked-prefill-size is {chunked}",
                     args=("chunked_prefill_size", "moe_a2a_backend"))


@flashinfer_a2a_needs_chunked_prefill.fix
def _default_chunked_prefill(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("chunked_prefill_size"):
        return None
    return Fix.unsafe(Unset("chunked_prefill_size"),
                      title="Remove --chunked-prefill-size (SGLang sizes it from the GPU memory)")


@flashinfer_a2a_needs_chunked_prefill.fix
def _deepep_unchunked(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("moe_a2a_backend", "deepep"), title="Set --moe-a2a-backend to deepep")
