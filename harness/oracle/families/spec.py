"""Speculative decoding (EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM; adaptive steps; aux hidden-state capture).

A draft model path is a Hub id: the oracle replaces it by its EAGLE3 stand-in
(``../shared/oracle/models/eagle3-draft``), whose config the facts give
(``model.draft_architectures`` in ``harness/rules/casekit.py``).
"""

from __future__ import annotations

from typing import Any

NAME = "spec"
ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "nextn", "eagle", "STANDALONE", "NGRAM", "ngram", "FROZEN_KV_MTP")
BACKENDS = ("fa3", "flashinfer", "triton", "flashmla", "trtllm_mha")


def settings(draw, c: dict[str, Any], tp: int, divisors: list[int]) -> None:
    """Add a speculative fragment to ``c``: an algorithm now and then without it (the flags that need none)."""
    from hypothesis import strategies as st

    odds = lambda n: draw(st.integers(0, n - 1)) == 0  # noqa: E731
    if odds(12):  # capture of aux hidden states: the algorithm only names the convention
        c["enable_return_aux_hidden_states"] = True
        c["speculative_algorithm"] = draw(st.sampled_from(("EAGLE3", "eagle3", "DFLASH", "DSPARK", "EAGLE")))
        if odds(2):
            c["return_aux_hidden_state_layer_ids"] = draw(st.sampled_from(([1, 2], [3], [1, 1], [2, -1])))
        if odds(6):
            c["speculative_draft_model_path"] = "org/eagle3-draft"
        return
    if odds(14):
        c["return_aux_hidden_state_layer_ids"] = [1, 2]
    algorithm = draw(st.sampled_from(ALGORITHMS)) if not odds(10) else "EAGLE2"
    if not odds(8):
        c["speculative_algorithm"] = algorithm
    ngram = algorithm.upper() == "NGRAM"
    if odds(2):
        c["speculative_num_steps"] = draw(st.sampled_from((1, 3, 4, 5)))
    if odds(2):
        c["speculative_eagle_topk"] = draw(st.sampled_from((1, 1, 2, 4)))
    if odds(3):
        c["speculative_num_draft_tokens"] = draw(st.sampled_from((2, 4, 8, 12, 16)))
    if odds(3):
        c["page_size"] = draw(st.sampled_from((1, 16, 64)))
    if odds(3):
        c["attention_backend"] = draw(st.sampled_from(BACKENDS))
    if odds(6):
        c["speculative_use_rejection_sampling"] = True
    if odds(10):
        c["speculative_use_block_verification"] = True
    if odds(8):
        c[draw(st.sampled_from(("speculative_accept_threshold_single", "speculative_accept_threshold_acc")))] = 0.5
    if odds(10):
        c["speculative_draft_window_size"] = draw(st.sampled_from((0, 256)))
    if odds(12):
        c["speculative_draft_sink_size"] = draw(st.sampled_from((-1, 4)))
    if odds(6):
        c["enable_mixed_chunk"] = True
    if odds(8):
        c["max_running_requests"] = 64
    if odds(6):
        c["speculative_adaptive"] = True
    if odds(12):
        c["enable_deterministic_inference"] = True
    if odds(10):
        c["speculative_draft_model_path"] = "org/eagle3-draft"
    if ngram or odds(10):
        if odds(3):
            c["speculative_ngram_max_bfs_breadth"] = draw(st.sampled_from((1, 4, 10)))
        if odds(3):
            c["speculative_ngram_external_corpus_path"] = "/data/corpus.jsonl"
            if odds(2):
                c["speculative_ngram_external_sam_budget"] = draw(st.sampled_from((0, 4, 11, 16)))
            if odds(4):
                c["speculative_ngram_external_corpus_max_tokens"] = 0
