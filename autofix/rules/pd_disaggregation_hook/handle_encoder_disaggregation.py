"""``handle_encoder_disaggregation`` (``arg_groups/pd_disaggregation_hook.py:298``, 0.5.23): `--language-model-only`
(``handle_language_model_only``, called at line 304), the encoder-only and language-only servers, and the
architectures encoder disaggregation supports."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView

STEP = "handle_encoder_disaggregation"

# What --language-model-only refuses next to it, in SGLang's order (model_hook.py:1083-1091)
LANGUAGE_MODEL_ONLY_CONFLICTS = (
    ("encoder_only", "--encoder-only"), ("language_only", "--language-only"),
    ("enable_prefix_mm_cache", "--enable-prefix-mm-cache"),
    ("enable_broadcast_mm_inputs_process", "--enable-broadcast-mm-inputs-process"),
    ("mm_enable_dp_encoder", "--mm-enable-dp-encoder"),
)

# The architectures encoder disaggregation runs (pd_disaggregation_hook.py:352-371)
ENCODER_DISAGGREGATION_ARCHS = frozenset({
    "Qwen2VLForConditionalGeneration", "Qwen3VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration",
    "Qwen3VLMoeForConditionalGeneration", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "Qwen3OmniMoeForConditionalGeneration",
    "Qwen2AudioForConditionalGeneration", "Qwen2_5OmniForConditionalGeneration", "Dots3NoteForCausalLM",
    "KimiVLForConditionalGeneration", "KimiK25ForConditionalGeneration", "KimiK3ForConditionalGeneration",
    "MiMoV2ForCausalLM", "Glm5NextForConditionalGeneration", "MiniMaxM3SparseForConditionalGeneration",
    "MuseSparkForConditionalGeneration",
})


def _drop(view: ResolvingView, dest: str, flag: str, *, safe: bool = False) -> Fix | None:
    if not view.is_explicit(dest):
        return None
    return (Fix.safe if safe else Fix.unsafe)(Unset(dest), title=f"Remove {flag}")


@settings_rule("PD021", "language-model-only-conflicts", step=STEP, at="arg_groups/model_hook.py:1094", via=304)
def language_model_only_conflicts(view: ResolvingView) -> Violation | None:
    """Flag `--language-model-only` with an encoder-disaggregation or multimodal-encoder flag.

    ## What it does
    Checks for `--language-model-only` with `--encoder-only`,
    `--language-only`, `--enable-prefix-mm-cache`,
    `--enable-broadcast-mm-inputs-process` or `--mm-enable-dp-encoder`.

    ## Why SGLang refuses it
    A language-model-only server never builds the multimodal encoder, so
    nothing could serve as an encoder, cache its outputs or run it data
    parallel. SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    language-model-only: true
    enable-broadcast-mm-inputs-process: true
    ```
    Use instead:
    ```yaml
    enable-broadcast-mm-inputs-process: true
    ```

    ## Fix safety
    Dropping the encoder flags or `--language-model-only` changes what
    runs: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/model_hook.py:1094` (`handle_language_model_only`, called at
    `arg_groups/pd_disaggregation_hook.py:304`)
    """
    if not view["language_model_only"]:
        return None
    found = [flag for dest, flag in LANGUAGE_MODEL_ONLY_CONFLICTS if view[dest]]
    if not found:
        return None
    return Violation("--language-model-only cannot be combined with " + ", ".join(found),
                     args=("language_model_only", *(d for d, _ in LANGUAGE_MODEL_ONLY_CONFLICTS)))


@language_model_only_conflicts.fix
def _no_language_model_only(view: ResolvingView) -> Fix | None:
    return _drop(view, "language_model_only", "--language-model-only")


@language_model_only_conflicts.fix
def _no_encoder_flags(view: ResolvingView) -> Fix | None:
    dests = [d for d, _ in LANGUAGE_MODEL_ONLY_CONFLICTS if view[d] and view.is_explicit(d)]
    if not dests:
        return None
    flags = ", ".join(f for d, f in LANGUAGE_MODEL_ONLY_CONFLICTS if d in dests)
    return Fix.unsafe(*(Unset(d) for d in dests), title=f"Remove {flags}")


@settings_rule("PD016", "prefix-mm-cache-needs-encoder-only", step=STEP,
               at="arg_groups/pd_disaggregation_hook.py:306")
def prefix_mm_cache_needs_encoder_only(view: ResolvingView) -> Violation | None:
    """Flag `--enable-prefix-mm-cache` without `--encoder-only`.

    ## What it does
    Checks for `--enable-prefix-mm-cache` on a server that is not an
    encoder-only server.

    ## Why SGLang refuses it
    The prefix multimodal cache lives in the encoder server of encoder
    disaggregation; no other server has one. SGLang raises a ValueError
    while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    enable-prefix-mm-cache: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ```

    ## Fix safety
    Only an encoder-only server reads the flag, so removing it changes
    nothing that runs: safe. Making the server encoder-only changes what
    it is: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:306` (`handle_encoder_disaggregation`, 0.5.23)
    """
    if not view["enable_prefix_mm_cache"] or view["encoder_only"]:
        return None
    return Violation("--enable-prefix-mm-cache needs --encoder-only", args=("enable_prefix_mm_cache", "encoder_only"))


@prefix_mm_cache_needs_encoder_only.fix
def _no_prefix_mm_cache(view: ResolvingView) -> Fix | None:
    return _drop(view, "enable_prefix_mm_cache", "--enable-prefix-mm-cache", safe=True)


@settings_rule("PD017", "encoder-only-or-language-only", step=STEP, at="arg_groups/pd_disaggregation_hook.py:310")
def encoder_only_or_language_only(view: ResolvingView) -> Violation | None:
    """Flag `--encoder-only` and `--language-only` together.

    ## What it does
    Checks for both `--encoder-only` and `--language-only`.

    ## Why SGLang refuses it
    In encoder disaggregation a server is either the encoder or the
    language model that receives its outputs, not both. SGLang raises a
    ValueError while resolving its arguments.

    ## Example (no model config)
    ```yaml
    encoder-only: true
    language-only: true
    ```
    Use instead:
    ```yaml
    encoder-only: true
    ```

    ## Fix safety
    Either removal changes what the server is: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:310` (`handle_encoder_disaggregation`, 0.5.23)
    """
    if not (view["encoder_only"] and view["language_only"]):
        return None
    return Violation("--encoder-only and --language-only are two different servers: choose one",
                     args=("language_only", "encoder_only"))


@encoder_only_or_language_only.fix
def _no_language_only(view: ResolvingView) -> Fix | None:
    return _drop(view, "language_only", "--language-only")


@encoder_only_or_language_only.fix
def _no_encoder_only(view: ResolvingView) -> Fix | None:
    return _drop(view, "encoder_only", "--encoder-only")


@settings_rule("PD018", "encoder-only-is-not-pd", step=STEP, at="arg_groups/pd_disaggregation_hook.py:312")
def encoder_only_is_not_pd(view: ResolvingView) -> Violation | None:
    """Flag `--encoder-only` on a PD prefill or decode node.

    ## What it does
    Checks for `--encoder-only` with `--disaggregation-mode` `prefill` or
    `decode`.

    ## Why SGLang refuses it
    An encoder-only server runs the multimodal encoder alone and sends its
    outputs on; it has no KV cache to take part in prefill/decode
    disaggregation. SGLang raises a ValueError while resolving its
    arguments.

    ## Example (no model config)
    ```yaml
    encoder-only: true
    disaggregation-mode: prefill
    ```
    Use instead:
    ```yaml
    encoder-only: true
    ```

    ## Fix safety
    Either removal changes what the server is: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:312` (`handle_encoder_disaggregation`, 0.5.23)
    """
    if not view["encoder_only"] or view["disaggregation_mode"] == "null":
        return None
    return Violation(f"--encoder-only cannot run as --disaggregation-mode {view['disaggregation_mode']}",
                     args=("disaggregation_mode", "encoder_only"))


@encoder_only_is_not_pd.fix
def _no_pd_mode(view: ResolvingView) -> Fix | None:
    return _drop(view, "disaggregation_mode", "--disaggregation-mode")


encoder_only_is_not_pd.fix(_no_encoder_only)


@settings_rule("PD019", "encoder-disaggregation-model", step=STEP, at="arg_groups/pd_disaggregation_hook.py:372")
def encoder_disaggregation_model(view: ResolvingView) -> Violation | None:
    """Flag encoder disaggregation for a model architecture it does not support.

    ## What it does
    Checks, with `--encoder-only` or `--language-only`, that the model's
    architecture (`model.architecture`) is one encoder disaggregation
    supports: Qwen2-VL, Qwen2.5-VL, Qwen3-VL (MoE too), Qwen3.5 (MoE too),
    Qwen2-Audio, Qwen2.5/Qwen3 Omni, InternS2 Preview, Dots3-Note,
    Kimi-VL, Kimi-K2.5, Kimi-K3, MiMo-V2, GLM-5 Next, MiniMax-M3 Sparse,
    Muse Spark. Needs the model's config: silent without it.

    ## Why SGLang refuses it
    Splitting the encoder from the language model needs a model whose
    encoder outputs SGLang knows how to ship. SGLang raises a ValueError
    while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    encoder-only: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ```

    ## Fix safety
    Serving the whole model on one server changes the deployment: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:372` (`handle_encoder_disaggregation`, 0.5.23)
    """
    if not (view["encoder_only"] or view["language_only"]) or not view.fact("model.given"):
        return None
    arch = view.fact("model.architecture")
    if arch in ENCODER_DISAGGREGATION_ARCHS:
        return None
    flag = "--encoder-only" if view["encoder_only"] else "--language-only"
    return Violation(f"{flag}: encoder disaggregation does not support {arch}", args=("encoder_only", "language_only"))


@encoder_disaggregation_model.fix
def _colocated(view: ResolvingView) -> Fix | None:
    dests = [d for d in ("encoder_only", "language_only") if view[d] and view.is_explicit(d)]
    if not dests:
        return None
    return Fix.unsafe(*(Unset(d) for d in dests),
                      title="Remove " + " and ".join(f"--{d.replace('_', '-')}" for d in dests))
