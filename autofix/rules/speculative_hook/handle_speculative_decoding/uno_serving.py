"""``_handle_uno``'s serving checks and last declarations (``arg_groups/speculative_hook.py:578-612``): one GPU
without attention DP or CP, no multi-LoRA (and the LoRA loading UNO sets), no rejection sampling, no mixed chunks,
FA3 for prefill and decode."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView, Unknown
from autofix.rules.shared import attn_dp_enabled
from autofix.rules.speculative_hook.handle_speculative_decoding.uno import STEP, VIA, drop_uno, top_k, verify_width
from autofix.rules.speculative_hook.handle_speculative_decoding.uno_tree import _tree_ok
from autofix.rules.speculative_hook.handle_speculative_decoding.uno_tree_features import THRESHOLDS


def reached(view: ResolvingView) -> bool:
    """UNO got past its width and tree checks (:453-558)."""
    if verify_width(view) is None:
        return False
    k = top_k(view)
    if k < 1:
        return False
    if k == 1:
        return True
    if not _tree_ok(view) or view["enable_pdmux"] or view["enable_two_batch_overlap"]:
        return False
    return all(view[d] == 1.0 for d in THRESHOLDS)


def _one_gpu(view: ResolvingView) -> bool:
    return view["tp_size"] == 1 and view["pp_size"] == 1


@settings_rule("SPEC030", "uno-needs-tp1-pp1", step=STEP, at="arg_groups/speculative_hook.py:579", via=VIA)
def uno_needs_tp1_pp1(view: ResolvingView) -> Violation | None:
    """Flag UNO speculative decoding with tensor or pipeline parallelism.

    ## What it does
    Checks for `--speculative-algorithm UNO` with `--tp-size` or
    `--pp-size` other than 1.

    ## Why SGLang refuses it
    UNO runs its drafter and verifier on one GPU. SGLang stops with a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    tp-size: 2
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    One GPU instead of several changes what the server can hold: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:579` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not reached(view) or _one_gpu(view):
        return None
    return Violation(f"--speculative-algorithm UNO runs on one GPU (--tp-size 1, --pp-size 1), not --tp-size "
                     f"{view['tp_size']} --pp-size {view['pp_size']}", args=("tp_size", "pp_size", "speculative_algorithm"))


@uno_needs_tp1_pp1.fix
def _one_gpu_fix(view: ResolvingView) -> Fix:
    ops = [Unset(d) if view.is_explicit(d) else Set(d, 1) for d in ("tp_size", "pp_size") if view[d] != 1]
    return Fix.unsafe(*ops, title="Run on one GPU (--tp-size 1, --pp-size 1)")


uno_needs_tp1_pp1.fix(drop_uno)

_ATTENTION_SPLITS = ("attn_dp_size", "enable_dp_attention", "ep_join_mode", "attn_cp_size")


@settings_rule("SPEC117", "uno-no-attention-dp-or-cp", step=STEP, at="arg_groups/speculative_hook.py:581", via=VIA)
def uno_no_attention_dp_or_cp(view: ResolvingView) -> Violation | None:
    """Flag UNO speculative decoding with attention data or context parallelism.

    ## What it does
    Checks for `--speculative-algorithm UNO` (on one GPU) with attention DP
    (`--attn-dp-size` above 1, or an elastic-EP scale joiner) or
    `--attn-cp-size` other than 1.

    ## Why SGLang refuses it
    UNO's verify path has no attention DP or context-parallel variant.
    SGLang stops with a ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    attn-cp-size: 0
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Removing the attention split changes how the server runs: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:581` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not reached(view) or not _one_gpu(view):
        return None
    if not attn_dp_enabled(view) and view["attn_cp_size"] == 1:
        return None
    return Violation(f"--speculative-algorithm UNO supports no attention DP or CP (--attn-dp-size "
                     f"{view['attn_dp_size']}, --attn-cp-size {view['attn_cp_size']})",
                     args=("attn_dp_size", "attn_cp_size", "speculative_algorithm"))


@uno_no_attention_dp_or_cp.fix
def _no_attention_split(view: ResolvingView) -> Fix | None:
    ops = [Unset(d) for d in _ATTENTION_SPLITS if view.is_explicit(d)]
    if not ops:
        return None
    return Fix.unsafe(*ops, title="Remove the attention DP and CP settings")


uno_no_attention_dp_or_cp.fix(drop_uno)


def _past_parallel(view: ResolvingView) -> bool:
    return reached(view) and _one_gpu(view) and not attn_dp_enabled(view) and view["attn_cp_size"] == 1


@settings_rule("SPEC041", "uno-no-multi-lora", step=STEP, at="arg_groups/speculative_hook.py:583", via=VIA)
def uno_no_multi_lora(view: ResolvingView) -> Violation | None:
    """Flag UNO speculative decoding with multi-LoRA serving.

    ## What it does
    Checks for `--speculative-algorithm UNO` with `--enable-lora` or
    `--lora-paths`.

    ## Why SGLang refuses it
    UNO's drafter is itself a LoRA adapter (`--uno-lora-path`) and holds the
    LoRA machinery; serving users' adapters next to it is not supported.
    SGLang stops with a ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    enable-lora: true
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Dropping the served adapters changes what the server offers: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:583` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not _past_parallel(view) or not (view["enable_lora"] or view["lora_paths"]):
        return None
    return Violation("--speculative-algorithm UNO does not support multi-LoRA serving (--enable-lora, --lora-paths)",
                     args=("enable_lora", "lora_paths", "speculative_algorithm"))


@uno_no_multi_lora.fix
def _no_lora(view: ResolvingView) -> Fix | None:
    ops = [Unset(d) for d in ("enable_lora", "lora_paths") if view.is_explicit(d)]
    if not ops:
        return None
    return Fix.unsafe(*ops, title="Remove --enable-lora and --lora-paths")


uno_no_multi_lora.fix(drop_uno)


def _uno_cause(view: ResolvingView) -> str:
    return "--speculative-algorithm UNO"


def _past_lora(view: ResolvingView) -> bool:
    return _past_parallel(view) and not view["enable_lora"] and not view["lora_paths"]


@derivation(step=STEP, at="arg_groups/speculative_hook.py:584", via=VIA,
            writes=("enable_lora_overlap_loading", "lora_strict_loading"), code="SPEC118",
            name="uno-sets-lora-loading", cause=_uno_cause)
def uno_sets_lora_loading(view: ResolvingView) -> dict | None:
    """UNO loads its drafter's LoRA strictly and without overlap.

    ## What it does
    Warns at `--enable-lora-overlap-loading` or `--no-lora-strict-loading`
    under `--speculative-algorithm UNO`, which turns overlap loading off and
    strict loading on.

    ## Why it matters
    SGLang replaces both without a word: the LoRA loading settings written
    have no effect on UNO's adapter.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    enable-lora-overlap-loading: true
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Removing the ignored setting resolves the launch to the same values:
    safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:584` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not _past_lora(view):
        return None
    return {"enable_lora_overlap_loading": False, "lora_strict_loading": True}


@settings_rule("SPEC042", "uno-no-rejection-sampling", step=STEP, at="arg_groups/speculative_hook.py:592", via=VIA)
def uno_no_rejection_sampling(view: ResolvingView) -> Violation | None:
    """Flag UNO speculative decoding with rejection sampling.

    ## What it does
    Checks for `--speculative-algorithm UNO` with
    `--speculative-use-rejection-sampling`.

    ## Why SGLang refuses it
    UNO verifies stochastically with its own method; the rejection sampler
    has no place in it. SGLang stops with a ValueError while resolving its
    arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-use-rejection-sampling: true
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    UNO never runs the rejection sampler, but removing a setting the user
    chose is left to them: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:592` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not _past_lora(view) or not view["speculative_use_rejection_sampling"]:
        return None
    return Violation("--speculative-algorithm UNO verifies on its own: it does not use "
                     "--speculative-use-rejection-sampling",
                     args=("speculative_use_rejection_sampling", "speculative_algorithm"))


@uno_no_rejection_sampling.fix
def _no_rejection_sampling(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("speculative_use_rejection_sampling"):
        return None
    return Fix.unsafe(Unset("speculative_use_rejection_sampling"), title="Remove --speculative-use-rejection-sampling")


def _past_rejection(view: ResolvingView) -> bool:
    return _past_lora(view) and not view["speculative_use_rejection_sampling"]


@derivation(step=STEP, at="arg_groups/speculative_hook.py:597", via=VIA, writes=("enable_mixed_chunk",),
            code="SPEC119", name="uno-disables-mixed-chunk", cause=_uno_cause)
def uno_disables_mixed_chunk(view: ResolvingView) -> dict | None:
    """UNO turns mixed chunked prefill off.

    ## What it does
    Warns at `--enable-mixed-chunk` under `--speculative-algorithm UNO`,
    which turns it off.

    ## Why it matters
    SGLang logs a warning and runs without mixed chunks: prefill and decode
    batches stay apart.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    enable-mixed-chunk: true
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Removing the ignored setting resolves the launch to the same values:
    safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:597` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not _past_rejection(view) or not view["enable_mixed_chunk"]:
        return None
    return {"enable_mixed_chunk": False}


def attention_backends(view: ResolvingView) -> tuple[str, str]:
    """(prefill, decode) attention backends as `attention_backends_of` reads them (model_override_base.py:138).

    The backend SGLang picks when none is written (`_attention_backend_default`) is not modelled: a half that
    falls back to it is unknown, except with an `fp8_e5m2` KV cache, where whatever it picks is not FA3
    (FA3 falls back to Triton, overrides.py:1269). NVFP4 KV caches pick their own backends (kv_cache_hook.py:85),
    not modelled either.
    """
    if view["kv_cache_dtype"] == "nvfp4":
        raise Unknown("kv_cache_dtype")
    prefill, decode = view["prefill_attention_backend"], view["decode_attention_backend"]
    if prefill and decode:
        return prefill, decode
    base = view["attention_backend"]
    if base is None:
        if view["kv_cache_dtype"] != "fp8_e5m2":
            raise Unknown("attention_backend")
        base = "the default (not fa3 with --kv-cache-dtype fp8_e5m2)"
    return prefill or base, decode or base


@settings_rule("SPEC043", "uno-needs-fa3", step=STEP, at="arg_groups/speculative_hook.py:608", via=VIA)
def uno_needs_fa3(view: ResolvingView) -> Violation | None:
    """Flag UNO speculative decoding whose prefill or decode attention is not FA3.

    ## What it does
    Checks for `--speculative-algorithm UNO` with a prefill or decode
    attention backend other than `fa3`: `--attention-backend`, or
    `--prefill-attention-backend`/`--decode-attention-backend` for their
    phase. `fa3` with `--kv-cache-dtype fp8_e5m2` runs as `triton`
    (SPEC120). The backend SGLang picks when none is written depends on the
    model and GPU and is not modelled (the rule stays silent there).

    ## Why SGLang refuses it
    UNO's verify kernels are FlashAttention-3 kernels. SGLang stops with a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    attention-backend: triton
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    attention-backend: fa3
    ```

    ## Fix safety
    FA3 runs on Hopper GPUs only, and an `fp8_e5m2` KV cache becomes
    `fp8_e4m3`: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:608` (`_handle_uno`, called at :284, 0.5.23)
    """
    if not _past_rejection(view):
        return None
    prefill, decode = attention_backends(view)
    if (prefill, decode) == ("fa3", "fa3"):
        return None
    return Violation(f"--speculative-algorithm UNO needs FA3 for prefill and decode attention, not prefill {prefill}, "
                     f"decode {decode}", args=("attention_backend", "speculative_algorithm"))


@uno_needs_fa3.fix
def _fa3(view: ResolvingView) -> Fix:
    ops: list = [Set("attention_backend", "fa3")]
    ops += [Unset(d) for d in ("prefill_attention_backend", "decode_attention_backend")
            if view.is_explicit(d) and view[d] != "fa3"]
    if view["kv_cache_dtype"] == "fp8_e5m2":
        ops.append(Set("kv_cache_dtype", "fp8_e4m3"))
    return Fix.unsafe(*ops, title="Set --attention-backend to fa3")


uno_needs_fa3.fix(drop_uno)
