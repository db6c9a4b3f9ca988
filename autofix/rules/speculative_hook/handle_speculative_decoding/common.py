"""What the speculative checks share: the algorithm as SGLang names it, the device, the attention backends.

No rule or derivation lives here. ``device`` and the attention backend SGLang
fills in when none is written (``attention_backend``, in
``autofix/rules/shared.py`` as the attention checks read it too) are read
from the hardware facts (given by ``--gpu``), by the checks that need them
only: declaring them for every step would make every check that reads them
silent without ``--gpu``.
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.shared import attention_backend, attn_dp_enabled

STEP = "handle_speculative_decoding"
# speculative_hook.py: the line of the hook that dispatches to the algorithm's handler
# (`algo.handle_server_args(server_args)`: `_handle_eagle_family`, `_handle_ngram`, ...)
DISPATCH = 284
EAGLE_FAMILY = ("EAGLE", "EAGLE3", "STANDALONE")  # what `_handle_eagle_family` handles (FROZEN_KV_MTP has its own)
BUILTIN = ("DFLASH", "UNO", "DSPARK", "EAGLE", "EAGLE3", "FROZEN_KV_MTP", "STANDALONE", "NGRAM", "NEXTN")
# Targets whose checkpoint holds their MTP draft layer (speculative_hook.py:1116): the draft path is the model's
MTP_IN_CHECKPOINT = (
    "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM", "Glm4MoeForCausalLM",
    "Glm4MoeLiteForCausalLM", "GlmMoeDsaForCausalLM", "BailingMoeForCausalLM", "BailingMoeV2ForCausalLM",
    "BailingMoeV2_5ForCausalLM", "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "HYV3ForCausalLM",
    "HYV4ForCausalLM", "Qwen4ExpForConditionalGeneration",
)
GEMMA4_DRAFTS = ("Gemma4AssistantForCausalLM", "Gemma4UnifiedAssistantForCausalLM")
PAGE_TREE_BACKENDS = ("flashinfer", "fa3", "triton")  # speculative_hook.py:1271


def algorithm(view: ResolvingView) -> str | None:
    """The algorithm from the speculative step on (its alias derivation has run): upper case, NEXTN as EAGLE."""
    return view["speculative_algorithm"]


def written_algorithm(view: ResolvingView) -> str | None:
    """The algorithm as an earlier step compares it: upper case, `NEXTN` named `EAGLE` (no Gemma4 draft)."""
    name = view["speculative_algorithm"]
    if name is None:
        return None
    name = name.upper()
    return "EAGLE" if name == "NEXTN" else name


def draft_is_gemma4(view: ResolvingView) -> bool:
    """Whether the draft checkpoint is a Gemma4 assistant (its config's `architectures`).

    A draft model fact: unknown unless the draft's config is given
    (``model.draft_given``); without it autofix models no draft, as it
    models no model override without the model's config.
    """
    if view["speculative_draft_model_path"] is None or not view.fact("model.draft_given"):
        return False
    return any(arch in GEMMA4_DRAFTS for arch in view.fact("model.draft_architectures") or ())


def device(view: ResolvingView) -> str:
    """The device SGLang runs on: the one written (without its index), else the one it detects (serving_hook.py:651).

    Detection reads the platform (``--gpu``): CUDA and ROCm both answer `cuda`.
    """
    written = view["device"]
    if written is not None:
        return written.split(":")[0]
    if view.fact("platform.is_cpu"):
        return "cpu"
    if view.fact("platform.is_cuda") or view.fact("platform.is_hip"):
        return "cuda"
    if view.fact("platform.is_xpu"):
        return "xpu"
    if view.fact("platform.is_npu"):
        return "npu"
    return view.fact("platform.device")  # another platform: not modelled


def attention_backends(view: ResolvingView) -> tuple[str, str]:
    """(prefill, decode) backends: a written split backend, else the attention backend (`attention_backends_of`)."""
    backend = attention_backend(view)
    return view["prefill_attention_backend"] or backend, view["decode_attention_backend"] or backend


def dp_attention(view: ResolvingView) -> bool:
    """Attention DP runs (`attn_dp_enabled_of`)."""
    return attn_dp_enabled(view)


def no_speculation(view: ResolvingView) -> Fix | None:
    """The last resort: no speculative decoding."""
    return remove(view, "speculative_algorithm", "--speculative-algorithm", " (no speculative decoding)")


def dp_lm_head(view: ResolvingView) -> Fix:
    """`--enable-dp-lm-head`: keeps every value the user wrote."""
    return Fix.safe(Set("enable_dp_lm_head", True), title="Add --enable-dp-lm-head")


def no_attention_dp(view: ResolvingView) -> Fix | None:
    """Remove a written `--attn-dp-size` (one attention group)."""
    return remove(view, "attn_dp_size", "--attn-dp-size", " (no attention DP)")


def no_attention_cp(view: ResolvingView) -> Fix | None:
    """Remove a written `--attn-cp-size` (no attention context parallelism)."""
    return remove(view, "attn_cp_size", "--attn-cp-size", " (no attention context parallelism)")


def pp1(view: ResolvingView) -> Fix | None:
    """Remove a written `--pp-size` (one pipeline stage)."""
    return remove(view, "pp_size", "--pp-size", " (one pipeline stage)")
