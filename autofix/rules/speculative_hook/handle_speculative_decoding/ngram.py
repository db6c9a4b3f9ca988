"""``_handle_ngram`` (speculative_hook.py:1285-1371, called through the algorithm's dispatcher at line 284):
NGRAM speculation, its defaults, its external corpus and its tree over paged KV."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Op, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.shared import attention_backend
from autofix.rules.speculative_hook.handle_speculative_decoding.common import (
    DISPATCH,
    STEP,
    algorithm,
    device,
    dp_attention,
)


def ngram(view: ResolvingView) -> bool:
    """`_handle_ngram` runs."""
    return algorithm(view) == "NGRAM"


@settings_rule("SPEC065", "ngram-device", step=STEP, at="arg_groups/speculative_hook.py:1288", via=DISPATCH)
def ngram_device(view: ResolvingView) -> Violation | None:
    """Flag NGRAM speculative decoding on a device other than CUDA, CPU or XPU.

    ## What it does
    Checks for `--speculative-algorithm NGRAM` on a device (written, or
    detected: known with `--gpu`) other than `cuda`, `cpu` or `xpu`.

    ## Why SGLang refuses it
    The n-gram matcher's kernels exist for those devices only. SGLang stops
    with a ValueError.

    ## Example
    ```yaml
    speculative-algorithm: NGRAM
    device: npu
    ```
    Use instead:
    ```yaml
    device: npu
    ```

    ## Fix safety
    Removing speculation changes what runs: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1288` (`_handle_ngram`, 0.5.23)
    """
    if not ngram(view) or device(view) in ("cuda", "cpu", "xpu"):
        return None
    return Violation(f"--speculative-algorithm NGRAM runs on CUDA, CPU or XPU, not {device(view)}",
                     args=("speculative_algorithm", "device"))


@ngram_device.fix
def _no_ngram(view: ResolvingView) -> Fix | None:
    return remove(view, "speculative_algorithm", "--speculative-algorithm (no speculative decoding)")


@derivation(step=STEP, at="arg_groups/speculative_hook.py:1295", via=DISPATCH, writes=("max_running_requests",))
def ngram_max_running_requests(view: ResolvingView) -> dict | None:
    """NGRAM without `--max-running-requests` runs at most 48 requests (SPEC068)."""
    if not ngram(view) or view["max_running_requests"] is not None:
        return None
    return {"max_running_requests": 48}


def _bfs_cause(view: ResolvingView) -> str:
    return f"--speculative-algorithm NGRAM (--speculative-ngram-max-bfs-breadth {view['speculative_ngram_max_bfs_breadth']})"


@derivation(step=STEP, at="arg_groups/speculative_hook.py:1309", via=DISPATCH, writes=("speculative_eagle_topk",),
            code="SPEC068", name="ngram-topk-is-bfs-breadth", cause=_bfs_cause)
def ngram_topk_is_bfs_breadth(view: ResolvingView) -> dict | None:
    """NGRAM's top-k is its BFS breadth.

    ## What it does
    Warns at `--speculative-eagle-topk` with `--speculative-algorithm
    NGRAM`: SGLang replaces it by `--speculative-ngram-max-bfs-breadth`
    (10 unless given).

    ## Why it matters
    SGLang does not even log it: the n-gram tree is as wide as its BFS
    breadth, whatever the top-k says.

    ## Example
    ```yaml
    speculative-algorithm: NGRAM
    speculative-eagle-topk: 4
    ```
    Use instead:
    ```yaml
    speculative-algorithm: NGRAM
    speculative-eagle-topk: 10
    ```

    ## Fix safety
    Writing the top-k that runs resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1309` (`_handle_ngram`, 0.5.23)
    """
    if not ngram(view):
        return None
    return {"speculative_eagle_topk": view["speculative_ngram_max_bfs_breadth"]}


@derivation(step=STEP, at="arg_groups/speculative_hook.py:1315", via=DISPATCH,
            writes=("speculative_num_draft_tokens",))
def ngram_draft_tokens(view: ResolvingView) -> dict | None:
    """NGRAM without `--speculative-num-draft-tokens` drafts 12 tokens."""
    if not ngram(view) or view["speculative_num_draft_tokens"] is not None:
        return None
    return {"speculative_num_draft_tokens": 12}


@derivation(step=STEP, at="arg_groups/speculative_hook.py:1325", via=DISPATCH, writes=("speculative_num_steps",))
def ngram_steps(view: ResolvingView) -> dict | None:
    """NGRAM without `--speculative-num-steps` takes draft tokens // top-k steps."""
    if not ngram(view) or view["speculative_num_steps"] is not None:
        return None
    topk = view["speculative_eagle_topk"]
    if topk == 0:
        return None  # SGLang divides by zero here (not modelled)
    return {"speculative_num_steps": view["speculative_num_draft_tokens"] // topk}


def _corpus(view: ResolvingView) -> bool:
    return ngram(view) and view["speculative_ngram_external_corpus_path"] is not None


@settings_rule("SPEC066", "ngram-corpus-sam-budget", step=STEP, at="arg_groups/speculative_hook.py:1333",
               via=DISPATCH)
def ngram_corpus_sam_budget(view: ResolvingView) -> Violation | None:
    """Flag an NGRAM external corpus without a positive SAM budget.

    ## What it does
    Checks NGRAM with `--speculative-ngram-external-corpus-path` for
    `--speculative-ngram-external-sam-budget` at or below 0 (the default
    is 0).

    ## Why SGLang refuses it
    The budget is how many draft tokens the corpus may propose; with none
    the corpus is loaded for nothing. SGLang stops with a ValueError.

    ## Example
    ```yaml
    speculative-algorithm: NGRAM
    speculative-ngram-external-corpus-path: /data/corpus.jsonl
    ```
    Use instead:
    ```yaml
    speculative-algorithm: NGRAM
    speculative-ngram-external-corpus-path: /data/corpus.jsonl
    speculative-ngram-external-sam-budget: 1
    ```

    ## Fix safety
    A budget of 1 is the least that uses the corpus the user named: safe.
    Removing the corpus is unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1333` (`_handle_ngram`, 0.5.23)
    """
    if not _corpus(view) or view["speculative_ngram_external_sam_budget"] > 0:
        return None
    return Violation("--speculative-ngram-external-corpus-path needs a positive --speculative-ngram-external-sam-budget,"
                     f" not {view['speculative_ngram_external_sam_budget']}",
                     args=("speculative_ngram_external_sam_budget", "speculative_ngram_external_corpus_path"))


@ngram_corpus_sam_budget.fix
def _budget_one(view: ResolvingView) -> Fix | None:
    if view["speculative_num_draft_tokens"] < 2:
        return None
    return Fix.safe(Set("speculative_ngram_external_sam_budget", 1),
                    title="Set --speculative-ngram-external-sam-budget to 1")


@ngram_corpus_sam_budget.fix
def _no_corpus(view: ResolvingView) -> Fix | None:
    return remove(view, "speculative_ngram_external_corpus_path", "--speculative-ngram-external-corpus-path")


@settings_rule("SPEC093", "ngram-corpus-max-tokens", step=STEP, at="arg_groups/speculative_hook.py:1338",
               via=DISPATCH)
def ngram_corpus_max_tokens(view: ResolvingView) -> Violation | None:
    """Flag an NGRAM external corpus with a token limit at or below 0.

    ## What it does
    Checks NGRAM with `--speculative-ngram-external-corpus-path` and a
    positive SAM budget for `--speculative-ngram-external-corpus-max-tokens`
    at or below 0.

    ## Why SGLang refuses it
    The limit caps how much of the corpus is loaded; 0 loads nothing.
    SGLang stops with a ValueError.

    ## Example
    ```yaml
    speculative-algorithm: NGRAM
    speculative-ngram-external-corpus-path: /data/corpus.jsonl
    speculative-ngram-external-sam-budget: 4
    speculative-ngram-external-corpus-max-tokens: 0
    ```
    Use instead:
    ```yaml
    speculative-algorithm: NGRAM
    speculative-ngram-external-corpus-path: /data/corpus.jsonl
    speculative-ngram-external-sam-budget: 4
    ```

    ## Fix safety
    Removing the limit loads up to SGLang's default (10,000,000 tokens):
    unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1338` (`_handle_ngram`, 0.5.23)
    """
    if not _corpus(view) or view["speculative_ngram_external_sam_budget"] <= 0:
        return None
    limit = view["speculative_ngram_external_corpus_max_tokens"]
    if limit > 0:
        return None
    return Violation(f"--speculative-ngram-external-corpus-max-tokens must be positive, not {limit}",
                     args=("speculative_ngram_external_corpus_max_tokens", "speculative_ngram_external_corpus_path"))


@ngram_corpus_max_tokens.fix
def _default_limit(view: ResolvingView) -> Fix | None:
    return remove(view, "speculative_ngram_external_corpus_max_tokens",
                   "--speculative-ngram-external-corpus-max-tokens")


@settings_rule("SPEC094", "ngram-sam-budget-within-draft", step=STEP, at="arg_groups/speculative_hook.py:1346",
               via=DISPATCH)
def ngram_sam_budget_within_draft(view: ResolvingView) -> Violation | None:
    """Flag an NGRAM SAM budget above the draft tokens minus 1.

    ## What it does
    Checks NGRAM with `--speculative-ngram-external-corpus-path` for
    `--speculative-ngram-external-sam-budget` above
    `--speculative-num-draft-tokens` (12 unless given) minus 1.

    ## Why SGLang refuses it
    The corpus proposes part of the draft; one draft slot is the verified
    token. SGLang stops with a ValueError.

    ## Example
    ```yaml
    speculative-algorithm: NGRAM
    speculative-ngram-external-corpus-path: /data/corpus.jsonl
    speculative-ngram-external-sam-budget: 16
    ```
    Use instead:
    ```yaml
    speculative-algorithm: NGRAM
    speculative-ngram-external-corpus-path: /data/corpus.jsonl
    speculative-ngram-external-sam-budget: 11
    ```

    ## Fix safety
    The largest budget SGLang takes keeps the corpus as many slots as it
    can have, but it is not the number written: unsafe. So is drafting more
    tokens.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1346` (`_handle_ngram`, 0.5.23)
    """
    if not _corpus(view) or view["speculative_ngram_external_sam_budget"] <= 0:
        return None
    if view["speculative_ngram_external_corpus_max_tokens"] <= 0:
        return None
    budget, tokens = view["speculative_ngram_external_sam_budget"], view["speculative_num_draft_tokens"]
    if budget <= tokens - 1:
        return None
    return Violation(f"--speculative-ngram-external-sam-budget {budget} is above the draft tokens minus 1 "
                     f"({tokens - 1})", args=("speculative_ngram_external_sam_budget", "speculative_num_draft_tokens"))


@ngram_sam_budget_within_draft.fix
def _budget_max(view: ResolvingView) -> Fix | None:
    most = view["speculative_num_draft_tokens"] - 1
    if most < 1:
        return None
    return Fix.unsafe(Set("speculative_ngram_external_sam_budget", most),
                      title=f"Set --speculative-ngram-external-sam-budget to {most}")


@settings_rule("SPEC067", "ngram-tree-paged-flashinfer", step=STEP, at="arg_groups/speculative_hook.py:1361",
               via=DISPATCH)
def ngram_tree_paged_flashinfer(view: ResolvingView) -> Violation | None:
    """Flag an NGRAM tree (BFS breadth above 1) over paged KV with a backend other than FlashInfer.

    ## What it does
    Checks NGRAM for a top-k above 1 (its
    `--speculative-ngram-max-bfs-breadth`, 10 unless given) with a page
    size above 1 (written, or a backend's) and an attention backend other
    than `flashinfer` (written, or SGLang's default: known with `--gpu`).

    ## Why SGLang refuses it
    The n-gram tree over pages gives wrong results on the other paged
    backends. SGLang stops with a ValueError.

    ## Example
    ```yaml
    speculative-algorithm: NGRAM
    page-size: 16
    attention-backend: fa3
    ```
    Use instead:
    ```yaml
    speculative-algorithm: NGRAM
    page-size: 16
    attention-backend: flashinfer
    ```

    ## Fix safety
    FlashInfer keeps the tree and the page size but changes the attention
    kernels; a BFS breadth of 1 drafts one chain; page size 1 changes the
    KV layout: all unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1361` (`_handle_ngram`, 0.5.23)
    """
    if not ngram(view):
        return None
    topk = view["speculative_eagle_topk"]
    if topk <= 1 or view["page_size"] <= 1:
        return None
    backend = attention_backend(view)
    if backend == "flashinfer":
        return None
    return Violation(f"NGRAM's tree (breadth {topk}) with page size {view['page_size']} needs the flashinfer "
                     f"attention backend, not {backend}",
                     args=("speculative_ngram_max_bfs_breadth", "attention_backend", "page_size"))


@ngram_tree_paged_flashinfer.fix
def _flashinfer(view: ResolvingView) -> Fix:
    ops: list[Op] = [Set("attention_backend", "flashinfer")]
    ops += [Unset(d) for d in ("prefill_attention_backend", "decode_attention_backend") if view.is_explicit(d)]
    return Fix.unsafe(*ops, title="Set --attention-backend to flashinfer")


@ngram_tree_paged_flashinfer.fix
def _breadth_one(view: ResolvingView) -> Fix | None:
    if view["speculative_ngram_min_bfs_breadth"] > 1:
        return None
    return Fix.unsafe(Set("speculative_ngram_max_bfs_breadth", 1), title="Set --speculative-ngram-max-bfs-breadth to 1")


@settings_rule("SPEC064", "ngram-no-dp-attention", step=STEP, at="arg_groups/speculative_hook.py:1369", via=DISPATCH)
def ngram_no_dp_attention(view: ResolvingView) -> Violation | None:
    """Flag NGRAM speculative decoding with attention DP.

    ## What it does
    Checks for `--speculative-algorithm NGRAM` while attention DP is on
    (`--attn-dp-size` above 1, from `--enable-dp-attention` too).

    ## Why SGLang refuses it
    The n-gram draft is not built for attention DP's per-rank batches.
    SGLang stops with a ValueError.

    ## Example
    ```yaml
    tp-size: 2
    attn-dp-size: 2
    speculative-algorithm: NGRAM
    ```
    Use instead:
    ```yaml
    tp-size: 2
    attn-dp-size: 2
    ```

    ## Fix safety
    Removing speculation changes what runs (first: other checks may need
    attention DP); turning attention DP off changes the parallel layout:
    both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1369` (`_handle_ngram`, 0.5.23)
    """
    if not ngram(view) or not dp_attention(view):
        return None
    return Violation(f"--speculative-algorithm NGRAM does not run with attention DP (--attn-dp-size "
                     f"{view['attn_dp_size']})", args=("speculative_algorithm", "attn_dp_size"))


ngram_no_dp_attention.fix(_no_ngram)  # first: other checks (A2A029, A2A043) may need the attention DP


@ngram_no_dp_attention.fix
def _ngram_no_dp(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("attn_dp_size") or view["ep_join_mode"] == "scale":
        return None
    return Fix.unsafe(Unset("attn_dp_size"), title="Remove --attn-dp-size (no attention DP)")
