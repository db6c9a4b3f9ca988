"""``handle_attention_backend_compatibility`` (``arg_groups/attention_hook.py:110``, 0.5.23).

Only what the modelled checks read: the torch-native and Flex attention
backends turn both CUDA graphs off. The attention backend SGLang fills in
when none is written (``_attention_backend_default``) is not modelled: on a
GPU host it is neither of the two (whatever ``--device`` says).
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.shared import DECODE, PREFILL, attention_backend, prefill_attention_backend

EAGER_ONLY = ("torch_native", "flex_attention")


@derivation(step="handle_attention_backend_compatibility", at="arg_groups/attention_hook.py:128",
            writes=(DECODE, PREFILL))
def eager_attention_disables_cuda_graphs(view: ResolvingView) -> dict | None:
    """`--attention-backend torch_native` or `flex_attention` turns the decode and prefill CUDA graphs off."""
    if view["attention_backend"] not in EAGER_ONLY:
        return None
    return {DECODE: "disabled", PREFILL: "disabled"}


# The page-size snaps of the attention backends (the speculative tree checks read the page size, SPEC049/SPEC067).
# The backend SGLang fills in when none is written is read from the platform and model facts
# (``autofix/rules/shared.py``): unknown without `--gpu`, and so is the page size then.
MLA_PAGE_CALL = 184  # attention_hook.py: run_post_process_pass(_mla_backend_page_constraints)
FA4_PAGE_CALL = 241  # attention_hook.py: run_post_process_pass(_fa4_page_constraint)
XPU_PAGE_CALL = 278  # attention_hook.py: run_post_process_pass(_intel_xpu_page_constraint)


def _backends(view: ResolvingView) -> tuple[str | None, ...]:
    return attention_backend(view), view["prefill_attention_backend"], view["decode_attention_backend"]


@derivation(step="handle_attention_backend_compatibility", at="arg_groups/overrides.py:1199", via=MLA_PAGE_CALL,
            writes=("page_size",))
def backend_page_size(view: ResolvingView) -> dict | None:
    """FlashMLA pages by 64; TRT-LLM MLA and CuteDSL MLA by 32 or 64, TRT-LLM MHA by 16 to 128 (else 64); HPC-Ops by 64.

    SGLang snaps the page size to what the backend pages by
    (`_mla_backend_page_constraints`), the draft's TRT-LLM MHA backend
    included. Before the page-size default, an unset page size snaps too.
    """
    backend, prefill, decode = _backends(view)
    page = original = view["page_size"]
    if "flashmla" in (backend, decode):
        page = 64
    if "trtllm_mla" in (backend, decode) and page not in (32, 64):
        page = 64
    if "cutedsl_mla" in (backend, decode, prefill) and page not in (32, 64):
        page = 64
    if "trtllm_mha" in (backend, decode, prefill, view["speculative_draft_attention_backend"]) and \
            page not in (16, 32, 64, 128):
        page = 64
    if "hpc_ops" in (backend, decode, prefill) and page != 64:
        page = 64
    return {"page_size": page} if page != original else None


@derivation(step="handle_attention_backend_compatibility", at="arg_groups/overrides.py:1296", via=FA4_PAGE_CALL,
            writes=("page_size",))
def fa4_page_size(view: ResolvingView) -> dict | None:
    """FA4 on SM100 pages by 128 for a non-MLA model, unless EAGLE's tree (top-k above 1) needs page 1."""
    if "fa4" not in _backends(view) or view.fact("model.attention_arch") == "MLA":
        return None
    if not view.fact("platform.is_sm100") or (view["speculative_eagle_topk"] or 0) > 1:
        return None
    if view.fact("model.architecture") == "DiffusionGemmaForBlockDiffusion":
        return {"page_size": 1}
    return {"page_size": 128}


@derivation(step="handle_attention_backend_compatibility", at="arg_groups/overrides.py:1336", via=XPU_PAGE_CALL,
            writes=("page_size",))
def intel_xpu_page_size(view: ResolvingView) -> dict | None:
    """The Intel XPU backend pages by 64 or 128 (16 and 32 too for MLA); another page size becomes 128."""
    written = (view["attention_backend"], view["prefill_attention_backend"], view["decode_attention_backend"])
    if "intel_xpu" not in written:
        return None  # no default backend is intel_xpu: without it written, the platform's facts do not matter
    backend, prefill, decode = _backends(view)
    if "intel_xpu" not in (prefill or backend, decode or backend):
        return None
    sizes = (64, 128, 16, 32) if view.fact("model.attention_arch") == "MLA" else (64, 128)
    return None if view["page_size"] in sizes else {"page_size": 128}


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


@settings_rule("KV022", "trtllm-mha-prefill-cp-needs-sm100", step="handle_attention_backend_compatibility",
               at="arg_groups/attention_hook.py:233")
def trtllm_mha_prefill_cp_needs_sm100(view: ResolvingView) -> Violation | None:
    """Flag attention context parallelism with TRT-LLM MHA prefill off SM100.

    ## What it does
    Checks for `--attn-cp-size` above 1 while `trtllm_mha` runs prefill
    attention (written as `--attention-backend` or
    `--prefill-attention-backend`) on a GPU that is not SM100 (B200, GB200;
    known with `--gpu`).

    ## Why SGLang refuses it
    Only the SM100 TRT-LLM context kernel masks a CP shard; the SM90 and
    SM120 prefill path does not. SGLang stops with a ValueError.

    ## Example
    ```yaml
    # on H200
    tp-size: 4
    attn-cp-size: 2
    attention-backend: trtllm_mha
    ```
    Use instead:
    ```yaml
    tp-size: 4
    attn-cp-size: 2
    ```

    ## Fix safety
    Without the written backend SGLang picks its default for the GPU
    (FA3 on Hopper): other kernels, unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/attention_hook.py:233` (`handle_attention_backend_compatibility`, 0.5.23)
    """
    # the written prefill backend: trtllm_mha is never SGLang's default off SM100, where the check passes
    if view["attn_cp_size"] <= 1 or prefill_attention_backend(view) != "trtllm_mha" or view.fact("platform.is_sm100"):
        return None
    return Violation(f"--attn-cp-size {view['attn_cp_size']} with the trtllm_mha prefill backend needs an SM100 GPU, "
                     f"not {view.fact('gpu.name')}", args=("attn_cp_size", "attention_backend"))


@trtllm_mha_prefill_cp_needs_sm100.fix
def _default_prefill_backend(view: ResolvingView) -> Fix | None:
    written = [d for d in ("prefill_attention_backend", "attention_backend") if view.is_explicit(d)]
    if not written:
        return None
    dest = written[0]  # the split prefill backend wins (attention_backends_of)
    return Fix.unsafe(Unset(dest), title=f"Remove --{dest.replace('_', '-')} (SGLang's default for the GPU)")
