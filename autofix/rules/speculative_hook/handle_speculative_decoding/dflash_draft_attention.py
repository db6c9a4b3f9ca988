"""``_resolve_dflash_draft_attention_backend`` (speculative_hook.py:886-987, called by ``_handle_dflash`` at 436).

The DFLASH draft worker's attention backend: the one written, else the
target's prefill backend, replaced by a fallback when the draft worker does
not support it. Whether the draft may run `trtllm_mha` depends on its layers
(``model.draft_all_sliding_attention``, ``model.draft_is_causal``: the draft
model's config, unknown unless given).
"""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView, Unknown
from autofix.rules.speculative_hook.handle_speculative_decoding.common import DISPATCH, STEP

# SGLang's DRAFT_ATTENTION_BACKEND_CHOICES (arg_groups/choices.py)
DRAFT_ATTENTION_BACKENDS = ("flashinfer", "fa3", "fa4", "triton", "ascend", "trtllm_mha", "intel_xpu")


def _fallback(view: ResolvingView) -> str:
    """FlashInfer, or Triton on XPU and ROCm (FlashInfer is CUDA only)."""
    return "triton" if view.fact("platform.is_xpu") or view.fact("platform.is_hip") else "flashinfer"


def _draft_backend_cause(view: ResolvingView) -> str:
    return "the DFLASH draft worker"


@derivation(step=STEP, at="arg_groups/speculative_hook.py:983", via=DISPATCH,
            writes=("speculative_draft_attention_backend",), code="SPEC100",
            name="dflash-draft-attention-backend-fallback", cause=_draft_backend_cause)
def dflash_draft_attention_backend_fallback(view: ResolvingView) -> dict | None:
    """DFLASH replaces a draft attention backend its draft worker does not support.

    ## What it does
    Warns at a `--speculative-draft-attention-backend` that DFLASH replaces:
    one outside `flashinfer`, `fa3`, `fa4`, `triton`, `ascend`,
    `trtllm_mha`, `intel_xpu` becomes `flashinfer` (`triton` on ROCm and
    XPU); `trtllm_mha` becomes `fa4` on SM100 (else the same fallback)
    unless every draft layer uses sliding attention or the draft is causal
    (the draft model's config, unknown unless given). Unset, the draft takes
    the target's prefill attention backend, under the same rules.

    ## Why it matters
    SGLang only logs the replacement: the draft runs another kernel than
    the one written.

    ## Example
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    speculative-draft-attention-backend: aiter
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    speculative-draft-attention-backend: flashinfer
    ```

    ## Fix safety
    Writing the backend that runs resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:983` (`_resolve_dflash_draft_attention_backend`, called by
    `_handle_dflash` at line 436, reached at line 284, 0.5.23)
    """
    if view["speculative_algorithm"] != "DFLASH":
        return None
    backend = view["speculative_draft_attention_backend"]
    if backend is None:
        backend = view["prefill_attention_backend"] or view["attention_backend"]
        if backend is None:
            raise Unknown("attention_backend")  # SGLang's default fill is not modelled
    if view.fact("platform.is_out_of_tree"):
        raise Unknown("platform.supports_speculative_draft_attention_backend")  # the plugin decides
    if backend not in DRAFT_ATTENTION_BACKENDS:
        backend = _fallback(view)
    elif backend == "trtllm_mha" and not (view.fact("model.draft_all_sliding_attention")
                                          or view.fact("model.draft_is_causal")):
        backend = "fa4" if view.fact("platform.is_sm100") else _fallback(view)
    return {"speculative_draft_attention_backend": backend}
