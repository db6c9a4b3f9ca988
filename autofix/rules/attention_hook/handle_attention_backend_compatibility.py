"""``handle_attention_backend_compatibility`` (``arg_groups/attention_hook.py:110``, 0.5.23).

Only what the modelled checks read: the torch-native and Flex attention
backends turn both CUDA graphs off. The attention backend SGLang fills in
when none is written (``_attention_backend_default``) is not modelled: on a
GPU host it is neither of the two (whatever ``--device`` says).
"""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView
from autofix.rules.cuda_graph_hook import DECODE, PREFILL

EAGER_ONLY = ("torch_native", "flex_attention")


@derivation(step="handle_attention_backend_compatibility", at="arg_groups/attention_hook.py:128",
            writes=(DECODE, PREFILL))
def eager_attention_disables_cuda_graphs(view: ResolvingView) -> dict | None:
    """`--attention-backend torch_native` or `flex_attention` turns the decode and prefill CUDA graphs off."""
    if view["attention_backend"] not in EAGER_ONLY:
        return None
    return {DECODE: "disabled", PREFILL: "disabled"}


def _fp8_e5m2_cause(view: ResolvingView) -> str:
    return "--kv-cache-dtype fp8_e5m2"


@derivation(step="handle_attention_backend_compatibility", at="arg_groups/overrides.py:1269", via=239,
            writes=("attention_backend",), code="SPEC120", name="fa3-fp8-e5m2-runs-triton", cause=_fp8_e5m2_cause)
def fa3_fp8_e5m2_runs_triton(view: ResolvingView) -> dict | None:
    """FA3 reads FP8 KV caches in `fp8_e4m3` only: with an `fp8_e5m2` cache SGLang runs Triton attention.

    ## What it does
    Warns at `--attention-backend fa3` with `--kv-cache-dtype fp8_e5m2`,
    which SGLang replaces by `triton`.

    ## Why it matters
    SGLang logs a warning and runs Triton attention: checks after this step
    see `triton` (UNO's FA3 check, SPEC043, refuses it). Equal
    `--prefill-attention-backend` and `--decode-attention-backend` replace
    the base backend first (not modelled), so they are left alone.

    ## Example
    ```yaml
    attention-backend: fa3
    kv-cache-dtype: fp8_e5m2
    ```
    Use instead:
    ```yaml
    attention-backend: triton
    kv-cache-dtype: fp8_e5m2
    ```

    ## Fix safety
    Writing the backend that runs resolves the launch to the same values:
    safe.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1269` (`_attention_backend_fa3_fp8_fallback`, run at
    `arg_groups/attention_hook.py:239`)
    """
    if view["attention_backend"] != "fa3" or view["kv_cache_dtype"] != "fp8_e5m2":
        return None
    prefill = view["prefill_attention_backend"]
    if prefill is not None and prefill == view["decode_attention_backend"]:
        return None  # _attention_backend_default (overrides.py:1130) made the base backend the split one first
    return {"attention_backend": "triton"}
