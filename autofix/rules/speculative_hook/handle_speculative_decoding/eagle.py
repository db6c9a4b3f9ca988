"""``_handle_eagle_family`` (speculative_hook.py:1072-1283, called through the algorithm's dispatcher at line 284):
EAGLE, EAGLE3 (and NEXTN) and STANDALONE; also ``_handle_frozen_kv_mtp`` and the CPU overlap switch they share.
Rejection sampling (:1197-1255) is in ``eagle_rejection_sampling``."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Op, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.shared import attention_backend
from autofix.rules.speculative_hook.handle_speculative_decoding.common import (
    DISPATCH,
    EAGLE_FAMILY,
    MTP_IN_CHECKPOINT,
    PAGE_TREE_BACKENDS,
    STEP,
    algorithm,
    attention_backends,
    device,
    dp_attention,
)

MIXED_CHUNK = ("EAGLE", "EAGLE3", "DFLASH", "DSPARK")  # SpeculativeAlgorithm.supports_mixed_chunk
TREE_LLAMA_GROK = ("LlamaForCausalLM", "Grok1ForCausalLM", "Grok1VForCausalLM")  # auto params (5, 4, 8)


def eagle_family(view: ResolvingView) -> bool:
    """`_handle_eagle_family` runs: EAGLE, EAGLE3, STANDALONE (NEXTN is EAGLE by now)."""
    return algorithm(view) in EAGLE_FAMILY


def iquest(view: ResolvingView) -> bool:
    """The target is an IQuest Q1 model: its MTP draft decides steps, top-k and draft tokens (not modelled)."""
    return bool(view.fact("model.given")) and view.fact("model.architecture") == "IQuestQ1ForCausalLM"


@derivation(step=STEP, at="arg_groups/speculative_hook.py:71", via=DISPATCH, writes=("disable_overlap_schedule",))
def cpu_disables_overlap(view: ResolvingView) -> dict | None:
    """On CPU, EAGLE-family and NGRAM speculation turn the overlap scheduler off (a store-true flag: no warning)."""
    if algorithm(view) not in (*EAGLE_FAMILY, "NGRAM") or view["disable_overlap_schedule"]:
        return None
    return {"disable_overlap_schedule": True} if device(view) == "cpu" else None


@settings_rule("SPEC045", "standalone-no-dp-attention", step=STEP, at="arg_groups/speculative_hook.py:1082",
               via=DISPATCH)
def standalone_no_dp_attention(view: ResolvingView) -> Violation | None:
    """Flag STANDALONE speculative decoding with attention DP.

    ## What it does
    Checks for `--speculative-algorithm STANDALONE` while attention DP is
    on (`--attn-dp-size` above 1, from `--enable-dp-attention` too).

    ## Why SGLang refuses it
    The standalone draft model runs without attention DP's per-rank
    batches. SGLang stops with a ValueError.

    ## Example
    ```yaml
    tp-size: 2
    attn-dp-size: 2
    speculative-algorithm: STANDALONE
    ```
    Use instead:
    ```yaml
    tp-size: 2
    attn-dp-size: 2
    speculative-algorithm: EAGLE
    ```

    ## Fix safety
    `EAGLE` runs attention DP but drafts with another model; turning
    attention DP off changes the layout: both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1082` (`_handle_eagle_family`, 0.5.23)
    """
    if algorithm(view) != "STANDALONE" or not dp_attention(view):
        return None
    return Violation(f"--speculative-algorithm STANDALONE does not run with attention DP (--attn-dp-size "
                     f"{view['attn_dp_size']})", args=("speculative_algorithm", "attn_dp_size"))


@standalone_no_dp_attention.fix
def _standalone_eagle(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("speculative_algorithm", "EAGLE"), title="Set --speculative-algorithm to EAGLE")


@standalone_no_dp_attention.fix
def _no_dp_attention(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("attn_dp_size") or view["ep_join_mode"] == "scale":
        return None
    return Fix.unsafe(Unset("attn_dp_size"), title="Remove --attn-dp-size (no attention DP)")


@derivation(step=STEP, at="arg_groups/speculative_hook.py:1087", via=DISPATCH, writes=("max_running_requests",))
def eagle_max_running_requests(view: ResolvingView) -> dict | None:
    """EAGLE-family speculation without `--max-running-requests` runs at most 48 requests (SPEC046)."""
    if not eagle_family(view) or view["max_running_requests"] is not None:
        return None
    return {"max_running_requests": 48}


def _mixed_chunk_cause(view: ResolvingView) -> str:
    return f"--speculative-algorithm {algorithm(view)}"


@derivation(step=STEP, at="arg_groups/speculative_hook.py:1109", via=DISPATCH, writes=("enable_mixed_chunk",),
            code="SPEC095", name="speculative-disables-mixed-chunk", cause=_mixed_chunk_cause)
def speculative_disables_mixed_chunk(view: ResolvingView) -> dict | None:
    """STANDALONE, FROZEN_KV_MTP and NGRAM speculation turn mixed chunked prefill off.

    ## What it does
    Warns at `--enable-mixed-chunk` with `--speculative-algorithm`
    `STANDALONE`, `FROZEN_KV_MTP` or `NGRAM`: SGLang turns it off
    (`_handle_eagle_family`, line 1109; `_handle_frozen_kv_mtp`, line 1003;
    `_handle_ngram`, line 1304).

    ## Why it matters
    SGLang only logs it: only EAGLE, EAGLE3, DFLASH and DSPARK resume a
    request from a mixed step, so with the others prefill chunks are never
    mixed with decodes, whatever the flag says.

    ## Example
    ```yaml
    speculative-algorithm: STANDALONE
    enable-mixed-chunk: true
    ```
    Use instead:
    ```yaml
    speculative-algorithm: STANDALONE
    ```

    ## Fix safety
    Removing the ignored flag resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1109` (`_handle_eagle_family`, 0.5.23; also 1003 and 1304)
    """
    if algorithm(view) not in ("STANDALONE", "FROZEN_KV_MTP", "NGRAM") or not view["enable_mixed_chunk"]:
        return None
    return {"enable_mixed_chunk": False}


@derivation(step=STEP, at="arg_groups/speculative_hook.py:1139", via=DISPATCH,
            writes=("speculative_draft_model_path", "speculative_draft_model_revision"))
def mtp_draft_in_checkpoint(view: ResolvingView) -> dict | None:
    """A target whose checkpoint holds its MTP layers (DeepSeek V3/V3.2/V4, GLM-4 MoE, ...) is its own draft.

    Without `--speculative-draft-model-path` the draft is the model path
    (and its revision). Needs the model's config: without it no draft path
    is declared.
    """
    if not eagle_family(view) or view["speculative_draft_model_path"] is not None or not view.fact("model.given"):
        return None
    if view.fact("model.architecture") not in MTP_IN_CHECKPOINT:
        return None
    return {"speculative_draft_model_path": view["model_path"], "speculative_draft_model_revision": view["revision"]}


def auto_params(view: ResolvingView) -> tuple[int, int, int]:
    """`_auto_choose_speculative_params` (speculative_hook.py:1430): (steps, top-k, draft tokens) by the model."""
    if algorithm(view) == "STANDALONE":
        return 3, 1, 4
    return (5, 4, 8) if view.fact("model.architecture") in TREE_LLAMA_GROK else (3, 1, 4)


@settings_rule("SPEC047", "eagle-params-all-or-none", step=STEP, at="arg_groups/speculative_hook.py:1160",
               via=DISPATCH)
def eagle_params_all_or_none(view: ResolvingView) -> Violation | None:
    """Flag EAGLE top-k or draft tokens given without the number of steps.

    ## What it does
    Checks EAGLE, EAGLE3, NEXTN and STANDALONE (not adaptive) for
    `--speculative-eagle-topk` or `--speculative-num-draft-tokens` without
    `--speculative-num-steps`.

    ## Why SGLang refuses it
    SGLang picks the three together for the model, or takes the steps
    from the user; with the steps left to it, it refuses a top-k or a
    draft-token count it would overwrite. SGLang stops on a bare assert.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-eagle-topk: 2
    page-size: 64
    attention-backend: fa3
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    speculative-eagle-topk: 2
    speculative-num-steps: 3
    page-size: 64
    attention-backend: fa3
    ```

    ## Fix safety
    Writing the number of steps SGLang picks for the model keeps every
    value written: safe with the model's config (3 steps, unsafe, without
    it). Removing the top-k and draft tokens lets SGLang choose all three:
    unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1160` (`_handle_eagle_family`, 0.5.23)
    """
    if not eagle_family(view) or view["speculative_adaptive"] or view["speculative_num_steps"] is not None:
        return None
    if iquest(view):
        return None
    given = [f for d, f in (("speculative_eagle_topk", "--speculative-eagle-topk"),
                            ("speculative_num_draft_tokens", "--speculative-num-draft-tokens")) if view[d] is not None]
    if not given:
        return None
    return Violation(f"{' and '.join(given)} {'need' if len(given) > 1 else 'needs'} --speculative-num-steps "
                     "(or leave all three to SGLang)",
                     args=("speculative_eagle_topk", "speculative_num_draft_tokens", "speculative_num_steps"))


@eagle_params_all_or_none.fix
def _auto_steps(view: ResolvingView) -> Fix:
    if not view.fact("model.given") and algorithm(view) != "STANDALONE":  # SGLang's pick for the model is not known
        return Fix.unsafe(Set("speculative_num_steps", 3), title="Set --speculative-num-steps to 3")
    steps = auto_params(view)[0]
    return Fix.safe(Set("speculative_num_steps", steps), title=f"Set --speculative-num-steps to {steps}")


@eagle_params_all_or_none.fix
def _auto_all(view: ResolvingView) -> Fix:
    ops = [Unset(d) for d in ("speculative_eagle_topk", "speculative_num_draft_tokens") if view.is_explicit(d)]
    return Fix.unsafe(*ops, title="Remove --speculative-eagle-topk and --speculative-num-draft-tokens "
                                  "(SGLang picks them with the steps)")


@derivation(step=STEP, at="arg_groups/speculative_hook.py:1168", via=DISPATCH,
            writes=("speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens"))
def eagle_auto_params(view: ResolvingView) -> dict | None:
    """Without `--speculative-num-steps`, SGLang picks steps, top-k and draft tokens for the model: (5, 4, 8) for
    Llama and Grok, else (3, 1, 4); STANDALONE always (3, 1, 4). Reads the model's architecture (a model fact)."""
    if not eagle_family(view) or view["speculative_adaptive"] or view["speculative_num_steps"] is not None:
        return None
    if iquest(view):
        view.fact("model.iquest_mtp_draft")  # IQuest's MTP draft decides them: not modelled (unknown)
    if view["speculative_eagle_topk"] is not None or view["speculative_num_draft_tokens"] is not None:
        return None  # SPEC047 refuses it
    steps, topk, tokens = auto_params(view)
    return {"speculative_num_steps": steps, "speculative_eagle_topk": topk, "speculative_num_draft_tokens": tokens}


@settings_rule("SPEC131", "trtllm-mha-steps-need-topk", step=STEP, at="arg_groups/speculative_hook.py:1177",
               via=DISPATCH)
def trtllm_mha_steps_need_topk(view: ResolvingView) -> Violation | None:
    """Flag EAGLE steps given without a top-k while the TRT-LLM MHA backend runs.

    ## What it does
    Checks EAGLE, EAGLE3, NEXTN and STANDALONE (not adaptive) for
    `--speculative-num-steps` without `--speculative-eagle-topk` while
    `trtllm_mha` runs prefill or decode attention (written, or SGLang's
    default on Blackwell; known with `--gpu`).

    ## Why SGLang refuses it
    With the steps given, SGLang takes the top-k from the user too. Its
    TRT-LLM MHA check then compares the missing value with 1 and crashes
    with a TypeError (`'>' not supported between 'NoneType' and 'int'`),
    before any rejection-sampling check. SPEC130 is the same crash at a
    later line for the other backends.

    ## Example
    ```yaml
    speculative-algorithm: NEXTN
    speculative-num-steps: 3
    attention-backend: trtllm_mha
    ```
    Use instead:
    ```yaml
    speculative-algorithm: NEXTN
    speculative-num-steps: 3
    speculative-eagle-topk: 1
    attention-backend: trtllm_mha
    ```

    ## Fix safety
    Top-k 1 is the only top-k TRT-LLM MHA runs (SPEC048): safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1177` (`_handle_eagle_family`, 0.5.23)
    """
    if not steps_without_topk(view) or "trtllm_mha" not in attention_backends(view):
        return None
    return Violation("--speculative-num-steps needs --speculative-eagle-topk with the trtllm_mha attention backend "
                     "(SGLang crashes on the missing top-k)",
                     args=("speculative_num_steps", "speculative_eagle_topk", "attention_backend"))


@trtllm_mha_steps_need_topk.fix
def _mha_topk_one(view: ResolvingView) -> Fix:
    return Fix.safe(Set("speculative_eagle_topk", 1), title="Set --speculative-eagle-topk to 1")


def steps_without_topk(view: ResolvingView) -> bool:
    """EAGLE-family steps written without a top-k (not adaptive, not IQuest's MTP draft): SGLang keeps the top-k
    missing and later compares it with 1."""
    if not eagle_family(view) or view["speculative_adaptive"] or iquest(view):
        return False
    return view["speculative_num_steps"] is not None and view["speculative_eagle_topk"] is None


@settings_rule("SPEC130", "eagle-steps-need-topk", step=STEP, at="arg_groups/speculative_hook.py:1274",
               via=DISPATCH)
def eagle_steps_need_topk(view: ResolvingView) -> Violation | None:
    """Flag EAGLE steps given without a top-k.

    ## What it does
    Checks EAGLE, EAGLE3, NEXTN and STANDALONE (not adaptive, no rejection
    sampling) for `--speculative-num-steps` without
    `--speculative-eagle-topk`.

    ## Why SGLang refuses it
    With the steps given, SGLang takes the top-k from the user too, and
    then compares the missing value with 1: it crashes with a TypeError
    (`'>' not supported between 'NoneType' and 'int'`). With a TRT-LLM MHA
    backend it crashes earlier, at SPEC131.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-num-steps: 3
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    speculative-num-steps: 3
    speculative-eagle-topk: 1
    ```

    ## Fix safety
    Top-k 1 (one draft chain) is what the crash stands in for, and what
    SGLang picks for most models: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1274` (`_handle_eagle_family`, 0.5.23)
    """
    if not steps_without_topk(view) or "trtllm_mha" in attention_backends(view):
        return None  # SPEC131 refuses the TRT-LLM MHA case first
    if view["speculative_use_rejection_sampling"]:
        return None  # SPEC061 refuses it first
    return Violation("--speculative-num-steps needs --speculative-eagle-topk (SGLang crashes on the missing top-k)",
                     args=("speculative_num_steps", "speculative_eagle_topk"))


@eagle_steps_need_topk.fix
def _topk_one(view: ResolvingView) -> Fix:
    return Fix.safe(Set("speculative_eagle_topk", 1), title="Set --speculative-eagle-topk to 1")


@settings_rule("SPEC048", "trtllm-mha-topk-one", step=STEP, at="arg_groups/speculative_hook.py:1178", via=DISPATCH)
def trtllm_mha_topk_one(view: ResolvingView) -> Violation | None:
    """Flag an EAGLE top-k above 1 with the TRT-LLM MHA attention backend.

    ## What it does
    Checks EAGLE, EAGLE3, NEXTN and STANDALONE for a top-k above 1
    (written, or picked for the model) while `trtllm_mha` runs prefill or
    decode attention (written, or SGLang's default on Blackwell; known with
    `--gpu`).

    ## Why SGLang refuses it
    TRT-LLM MHA verifies one draft chain, not a tree. SGLang stops with a
    ValueError.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-num-steps: 3
    speculative-eagle-topk: 2
    speculative-num-draft-tokens: 4
    attention-backend: trtllm_mha
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    speculative-num-steps: 3
    speculative-eagle-topk: 1
    speculative-num-draft-tokens: 4
    attention-backend: trtllm_mha
    ```

    ## Fix safety
    Top-k 1 keeps the backend but drafts one chain; another backend keeps
    the tree: both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1178` (`_handle_eagle_family`, 0.5.23)
    """
    if not eagle_family(view):
        return None
    topk = view["speculative_eagle_topk"]
    if topk is None or topk <= 1 or "trtllm_mha" not in attention_backends(view):
        return None
    return Violation(f"the trtllm_mha attention backend needs --speculative-eagle-topk 1, not {topk}",
                     args=("speculative_eagle_topk", "attention_backend"))


@trtllm_mha_topk_one.fix
def _topk_1(view: ResolvingView) -> Fix | None:
    if view["speculative_num_steps"] is None:
        return None
    return Fix.unsafe(Set("speculative_eagle_topk", 1), title="Set --speculative-eagle-topk to 1")


@trtllm_mha_topk_one.fix
def _fa3_backend(view: ResolvingView) -> Fix | None:
    ops: list[Op] = [Set("attention_backend", "flashinfer")]
    ops += [Unset(d) for d in ("prefill_attention_backend", "decode_attention_backend") if view.is_explicit(d)]
    return Fix.unsafe(*ops, title="Set --attention-backend to flashinfer")


def _draft_tokens_cause(view: ResolvingView) -> str:
    return f"--speculative-eagle-topk 1 with --speculative-num-steps {view['speculative_num_steps']}"


@derivation(step=STEP, at="arg_groups/speculative_hook.py:1262", via=DISPATCH,
            writes=("speculative_num_draft_tokens",), code="SPEC046", name="eagle-topk-one-draft-tokens",
            cause=_draft_tokens_cause)
def eagle_topk_one_draft_tokens(view: ResolvingView) -> dict | None:
    """With top-k 1, EAGLE drafts steps + 1 tokens.

    ## What it does
    Warns at `--speculative-num-draft-tokens` other than
    `--speculative-num-steps` + 1 when EAGLE, EAGLE3, NEXTN or STANDALONE
    run with top-k 1: SGLang replaces it by steps + 1.

    ## Why it matters
    SGLang only logs it: one draft chain of n steps verifies n + 1 tokens,
    whatever the flag says.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-num-steps: 3
    speculative-eagle-topk: 1
    speculative-num-draft-tokens: 8
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    speculative-num-steps: 3
    speculative-eagle-topk: 1
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Writing the count that runs resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1262` (`_handle_eagle_family`, 0.5.23)
    """
    if not eagle_family(view) or view["speculative_eagle_topk"] != 1:
        return None
    steps = view["speculative_num_steps"]
    if steps is None or view["speculative_num_draft_tokens"] == steps + 1:
        return None
    return {"speculative_num_draft_tokens": steps + 1}


@settings_rule("SPEC049", "eagle-tree-paged-backend", step=STEP, at="arg_groups/speculative_hook.py:1278",
               via=DISPATCH)
def eagle_tree_paged_backend(view: ResolvingView) -> Violation | None:
    """Flag an EAGLE tree (top-k above 1) over paged KV with a backend that cannot draft one.

    ## What it does
    Checks EAGLE, EAGLE3, NEXTN and STANDALONE for a top-k above 1 with a
    page size above 1 (written, or the one a backend snaps to: FlashMLA
    and TRT-LLM MLA page by 64) and an attention backend other than
    `flashinfer`, `fa3` or `triton` (written, or SGLang's default for the
    GPU and model: known with `--gpu`).

    ## Why SGLang refuses it
    A tree over pages needs a two-pass draft decode (shared prefix, then
    each branch) that only those backends implement. SGLang stops with a
    ValueError.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-num-steps: 3
    speculative-eagle-topk: 2
    speculative-num-draft-tokens: 4
    attention-backend: flashmla
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    speculative-num-steps: 3
    speculative-eagle-topk: 2
    speculative-num-draft-tokens: 4
    attention-backend: fa3
    ```

    ## Fix safety
    `fa3` (or `flashinfer` on Blackwell) keeps the tree and the page size
    but changes the attention kernels; top-k 1 drafts one chain: both
    unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1278` (`_handle_eagle_family`, 0.5.23)
    """
    if not eagle_family(view):
        return None
    topk = view["speculative_eagle_topk"]
    if topk is None or topk <= 1 or view["page_size"] <= 1:
        return None
    backend = attention_backend(view)
    if backend in PAGE_TREE_BACKENDS:
        return None
    return Violation(f"--speculative-eagle-topk {topk} with page size {view['page_size']} needs the flashinfer, fa3 "
                     f"or triton attention backend, not {backend}",
                     args=("speculative_eagle_topk", "attention_backend", "page_size"))


@eagle_tree_paged_backend.fix
def _tree_backend(view: ResolvingView) -> Fix:
    backend = "flashinfer" if view.fact("platform.is_blackwell") else "fa3"
    ops: list[Op] = [Set("attention_backend", backend)]
    ops += [Unset(d) for d in ("prefill_attention_backend", "decode_attention_backend") if view.is_explicit(d)]
    return Fix.unsafe(*ops, title=f"Set --attention-backend to {backend}")


@eagle_tree_paged_backend.fix
def _tree_topk_one(view: ResolvingView) -> Fix | None:
    if view["speculative_num_steps"] is None:
        return None
    return Fix.unsafe(Set("speculative_eagle_topk", 1), title="Set --speculative-eagle-topk to 1")


@derivation(step=STEP, at="arg_groups/speculative_hook.py:993", via=DISPATCH, writes=("max_running_requests",))
def frozen_kv_mtp_max_running_requests(view: ResolvingView) -> dict | None:
    """Frozen-KV MTP without `--max-running-requests` runs at most 48 requests."""
    if algorithm(view) != "FROZEN_KV_MTP" or view["max_running_requests"] is not None:
        return None
    return {"max_running_requests": 48}
