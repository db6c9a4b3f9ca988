"""``handle_speculative_decoding``'s own body (speculative_hook.py:121-284): the algorithm's name, what every
algorithm shares (decode radix cache, block verification, draft window and sink), the draft MoE runner."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.speculative_hook.handle_speculative_decoding.common import (
    BUILTIN,
    STEP,
    algorithm,
    device,
    draft_is_gemma4,
)

RUNNER_DEFAULT_CALL = 136  # speculative_hook.py: run_post_process_pass(_speculative_moe_runner_default)
FROM_STRING_CALL = 242  # speculative_hook.py: SpeculativeAlgorithm.from_string(cfg.speculative_algorithm)


@derivation(step=STEP, at="arg_groups/speculative_hook.py:127", writes=("speculative_draft_model_revision",))
def draft_revision_default(view: ResolvingView) -> dict | None:
    """A draft model path without a revision takes the draft's `main` revision."""
    if view["speculative_draft_model_path"] is None or view["speculative_draft_model_revision"] is not None:
        return None
    return {"speculative_draft_model_revision": "main"}


@derivation(step=STEP, at="arg_groups/overrides.py:1655", via=RUNNER_DEFAULT_CALL,
            writes=("speculative_moe_runner_backend",))
def draft_moe_runner_default(view: ResolvingView) -> dict | None:
    """The draft's MoE runner defaults to the target's (SPEC088): `flashinfer_megamoe` gives
    `flashinfer_trtllm`, a `lora_*` runner `auto` (the draft has no adapters). With or without speculation."""
    if view["speculative_moe_runner_backend"] is not None:
        return None
    runner = view["moe_runner_backend"]
    if runner == "flashinfer_megamoe":
        runner = "flashinfer_trtllm"
    elif runner.startswith("lora_"):
        runner = "auto"
    return {"speculative_moe_runner_backend": runner}


@derivation(step=STEP, at="arg_groups/speculative_hook.py:151", writes=("speculative_algorithm",))
def algorithm_alias(view: ResolvingView) -> dict | None:
    """The algorithm is upper-cased; `NEXTN` is `EAGLE`, and `EAGLE`/`NEXTN` with a Gemma4 assistant draft is
    `FROZEN_KV_MTP` (SPEC010; the draft's config is a model fact). The same algorithm by another name: no warning.

    Steps before this one compare the name as written (`NEXTN` or lower
    case fail some of them: SPEC084, KV101).
    """
    name = view["speculative_algorithm"]
    if name is None:
        return None
    upper = name.upper()
    if upper == "EAGLE3" and draft_is_gemma4(view):
        return {"speculative_algorithm": upper}  # SGLang refuses it (speculative_hook.py:103; not a rule yet)
    if upper in ("NEXTN", "EAGLE"):
        upper = "FROZEN_KV_MTP" if draft_is_gemma4(view) else "EAGLE"
    return {"speculative_algorithm": upper} if upper != name else None


@settings_rule("SPEC012", "decode-radix-cache-speculative-algorithm", step=STEP,
               at="arg_groups/speculative_hook.py:169")
def decode_radix_cache_speculative_algorithm(view: ResolvingView) -> Violation | None:
    """Flag the decode radix cache of a PD decode server with a speculative algorithm other than EAGLE, EAGLE3, DSPARK.

    ## What it does
    Checks for `--disaggregation-mode decode` with
    `--disaggregation-decode-enable-radix-cache` and a speculative algorithm
    (as SGLang names it: upper case, `NEXTN` is `EAGLE`) other than `EAGLE`,
    `EAGLE3` and `DSPARK`: `NGRAM`, `STANDALONE`, `DFLASH`, `UNO`,
    `FROZEN_KV_MTP`, or a name SGLang does not know.

    ## Why SGLang refuses it
    Only those drafts keep their KV cache consistent with prefixes the
    decode server reuses from its radix tree. SGLang stops with a ValueError.

    ## Example
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-enable-radix-cache: true
    speculative-algorithm: NGRAM
    ```
    Use instead:
    ```yaml
    disaggregation-mode: decode
    speculative-algorithm: NGRAM
    ```

    ## Fix safety
    Dropping the decode radix cache keeps the speculation but loses prefix
    reuse on the decode server; switching the algorithm changes the draft:
    both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:169` (`handle_speculative_decoding`, 0.5.23)
    """
    if view["disaggregation_mode"] != "decode" or not view["disaggregation_decode_enable_radix_cache"]:
        return None
    name = algorithm(view)
    if name in (None, "DSPARK", "EAGLE", "EAGLE3"):
        return None
    return Violation(f"--disaggregation-decode-enable-radix-cache does not work with --speculative-algorithm {name}",
                     args=("disaggregation_decode_enable_radix_cache", "speculative_algorithm"))


@decode_radix_cache_speculative_algorithm.fix
def _no_decode_radix(view: ResolvingView) -> Fix | None:
    return remove(view, "disaggregation_decode_enable_radix_cache", "--disaggregation-decode-enable-radix-cache")


@settings_rule("SPEC013", "block-verification-algorithm", step=STEP, at="arg_groups/speculative_hook.py:177")
def block_verification_algorithm(view: ResolvingView) -> Violation | None:
    """Flag block verification with an algorithm other than EAGLE, EAGLE3, DFLASH or DSPARK.

    ## What it does
    Checks for `--speculative-use-block-verification` while the speculative
    algorithm (upper case, `NEXTN` is `EAGLE`) is not `EAGLE`, `EAGLE3`,
    `DFLASH` or `DSPARK` (none included).

    ## Why SGLang refuses it
    Block verification needs sampled draft proposals with their full
    distributions, which only those drafts produce. SGLang stops with a
    ValueError.

    ## Example
    ```yaml
    speculative-algorithm: NGRAM
    speculative-use-block-verification: true
    ```
    Use instead:
    ```yaml
    speculative-algorithm: NGRAM
    ```

    ## Fix safety
    Removing the flag changes how drafts are verified: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:177` (`handle_speculative_decoding`, 0.5.23)
    """
    if not view["speculative_use_block_verification"]:
        return None
    name = algorithm(view)
    if name in ("EAGLE", "EAGLE3", "DFLASH", "DSPARK"):
        return None
    return Violation(f"--speculative-use-block-verification needs EAGLE, EAGLE3, NEXTN, DFLASH or DSPARK, not {name}",
                     args=("speculative_use_block_verification", "speculative_algorithm"))


@block_verification_algorithm.fix
def _no_block_verification(view: ResolvingView) -> Fix | None:
    return remove(view, "speculative_use_block_verification", "--speculative-use-block-verification")


@settings_rule("SPEC014", "block-verification-needs-cuda", step=STEP, at="arg_groups/speculative_hook.py:182")
def block_verification_needs_cuda(view: ResolvingView) -> Violation | None:
    """Flag block verification on a device other than CUDA (or ROCm, which SGLang also calls `cuda`).

    ## What it does
    Checks for `--speculative-use-block-verification` with a supported
    algorithm on a device that is not `cuda`: the written `--device`, else
    the one SGLang detects (known with `--gpu`).

    ## Why SGLang refuses it
    Block verification runs CUDA kernels. SGLang stops with a ValueError.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-use-block-verification: true
    device: cpu
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    device: cpu
    ```

    ## Fix safety
    Removing the flag changes how drafts are verified: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:182` (`handle_speculative_decoding`, 0.5.23)
    """
    if not view["speculative_use_block_verification"]:
        return None
    if algorithm(view) not in ("EAGLE", "EAGLE3", "DFLASH", "DSPARK") or device(view) == "cuda":
        return None
    return Violation(f"--speculative-use-block-verification needs a CUDA or ROCm device, not {device(view)}",
                     args=("speculative_use_block_verification", "device"))


block_verification_needs_cuda.fix(_no_block_verification)


@derivation(step=STEP, at="arg_groups/speculative_hook.py:191", writes=("speculative_use_rejection_sampling",))
def block_verification_rejection_sampling(view: ResolvingView) -> dict | None:
    """EAGLE and EAGLE3 verify blocks by rejection sampling: block verification turns it on (SPEC015).

    `--speculative-use-rejection-sampling` is a store-true flag: nothing
    the user wrote is replaced.
    """
    if not view["speculative_use_block_verification"] or view["speculative_use_rejection_sampling"]:
        return None
    if algorithm(view) not in ("EAGLE", "EAGLE3") or device(view) != "cuda":
        return None
    return {"speculative_use_rejection_sampling": True}


@settings_rule("SPEC016", "draft-window-positive", step=STEP, at="arg_groups/speculative_hook.py:205")
def draft_window_positive(view: ResolvingView) -> Violation | None:
    """Flag a draft window size of 0 or less.

    ## What it does
    Checks for `--speculative-draft-window-size` at or below 0, whatever
    the algorithm (none included).

    ## Why SGLang refuses it
    The window is the number of recent tokens the draft attends to; it must
    hold at least one. SGLang stops with a ValueError.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-draft-window-size: 0
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    ```

    ## Fix safety
    Removing the window lets the draft attend to the whole context: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:205` (`handle_speculative_decoding`, 0.5.23)
    """
    window = view["speculative_draft_window_size"]
    if window is None or window > 0:
        return None
    return Violation(f"--speculative-draft-window-size must be positive, not {window}",
                     args=("speculative_draft_window_size",))


@draft_window_positive.fix
def _no_window(view: ResolvingView) -> Fix | None:
    if view["speculative_draft_sink_size"] is not None:
        return None  # the sink needs a window (SPEC090)
    return remove(view, "speculative_draft_window_size", "--speculative-draft-window-size")


@settings_rule("SPEC017", "draft-sink-non-negative", step=STEP, at="arg_groups/speculative_hook.py:224")
def draft_sink_non_negative(view: ResolvingView) -> Violation | None:
    """Flag a negative draft sink size.

    ## What it does
    Checks for `--speculative-draft-sink-size` below 0.

    ## Why SGLang refuses it
    The sink is a count of leading tokens the draft always attends to.
    SGLang stops with a ValueError.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-draft-window-size: 512
    speculative-draft-sink-size: -1
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    speculative-draft-window-size: 512
    speculative-draft-sink-size: 0
    ```

    ## Fix safety
    A sink of 0 is what a negative size can only mean (no sink): safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:224` (`handle_speculative_decoding`, 0.5.23)
    """
    sink = view["speculative_draft_sink_size"]
    if sink is None or sink >= 0:
        return None
    return Violation(f"--speculative-draft-sink-size must not be negative, not {sink}",
                     args=("speculative_draft_sink_size",))


@draft_sink_non_negative.fix
def _sink_zero(view: ResolvingView) -> Fix:
    return Fix.safe(Set("speculative_draft_sink_size", 0), title="Set --speculative-draft-sink-size to 0")


@settings_rule("SPEC090", "draft-sink-needs-window", step=STEP, at="arg_groups/speculative_hook.py:228")
def draft_sink_needs_window(view: ResolvingView) -> Violation | None:
    """Flag a draft sink size without a draft window size.

    ## What it does
    Checks for `--speculative-draft-sink-size` without
    `--speculative-draft-window-size`.

    ## Why SGLang refuses it
    The sink is kept next to a sliding window; without a window the draft
    attends to everything and a sink means nothing. SGLang stops with a
    ValueError.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-draft-sink-size: 4
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    ```

    ## Fix safety
    Removing the sink keeps what runs (no window, full attention) but
    drops a value the user wrote: unsafe; which window to add cannot be
    read from the flags.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:228` (`handle_speculative_decoding`, 0.5.23)
    """
    if view["speculative_draft_sink_size"] is None or view["speculative_draft_window_size"] is not None:
        return None
    return Violation("--speculative-draft-sink-size needs --speculative-draft-window-size",
                     args=("speculative_draft_sink_size", "speculative_draft_window_size"))


@draft_sink_needs_window.fix
def _no_sink(view: ResolvingView) -> Fix | None:
    return remove(view, "speculative_draft_sink_size", "--speculative-draft-sink-size")


@settings_rule("SPEC080", "unknown-speculative-algorithm", step=STEP, at="speculative/spec_info.py:65",
               via=FROM_STRING_CALL)
def unknown_speculative_algorithm(view: ResolvingView) -> Violation | None:
    """Flag a speculative algorithm name SGLang does not know.

    ## What it does
    Checks `--speculative-algorithm` (any case) against SGLang's built-in
    algorithms: `EAGLE`, `EAGLE3`, `NEXTN`, `STANDALONE`, `NGRAM`,
    `DFLASH`, `DSPARK`, `UNO`, `FROZEN_KV_MTP`. A plugin may register
    others; autofix knows none.

    ## Why SGLang refuses it
    The name picks the draft worker. SGLang stops with a ValueError while
    resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE2
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    ```

    ## Fix safety
    Which algorithm was meant cannot be known: replacing it, or removing
    speculation, is unsafe.

    ## SGLang source
    `sglang/srt/speculative/spec_info.py:65` (`SpeculativeAlgorithm.from_string`, called at
    `arg_groups/speculative_hook.py:242`, 0.5.23)
    """
    name = algorithm(view)
    if name is None or name.upper() in BUILTIN:
        return None
    return Violation(f"--speculative-algorithm {view.written('speculative_algorithm')} is not an algorithm SGLang "
                     f"knows ({', '.join(sorted(BUILTIN))})", args=("speculative_algorithm",))


@unknown_speculative_algorithm.fix
def _closest_algorithm(view: ResolvingView) -> Fix | None:
    import difflib

    found = difflib.get_close_matches(str(algorithm(view)).upper(), BUILTIN, n=1, cutoff=0.6)
    if not found:
        return None
    return Fix.unsafe(Set("speculative_algorithm", found[0]), title=f"Set --speculative-algorithm to {found[0]}")


@unknown_speculative_algorithm.fix
def _no_algorithm(view: ResolvingView) -> Fix | None:
    return remove(view, "speculative_algorithm", "--speculative-algorithm (no speculative decoding)")
