"""DFLASH and DSpark speculative decoding (``_handle_dflash``, ``_handle_dspark``, the DFLASH draft attention backend).

Draws the algorithm, the draft model (none, a Hub id the oracle reads as its eagle3-draft, or one of the
harness/oracle/models stand-ins: the harness judges with that draft's facts, ``casekit.with_draft``), block sizes,
draft tokens, steps and top-k, the draft window, the draft attention backend, the device and the draft a2a backend.
"""

from __future__ import annotations

from typing import Any

from harness.rules.casekit import stand_in

NAME = "dflash"
DRAFTS = ("z-lab/Qwen3-8B-DFlash-b16", "org/dspark-draft", stand_in("dflash-draft"), stand_in("dflash-swa-draft"),
          stand_in("dspark-draft"))
DRAFT_BACKENDS = ("flashinfer", "fa3", "fa4", "triton", "trtllm_mha", "aiter", "flashmla")


def settings(draw, c: dict[str, Any], tp: int, divisors: list[int]) -> None:
    from hypothesis import strategies as st

    odds = lambda n: draw(st.integers(0, n - 1)) == 0  # noqa: E731
    pick = lambda values: draw(st.sampled_from(values))  # noqa: E731
    c["speculative_algorithm"] = pick(("DFLASH", "DSPARK"))
    if not odds(12):
        c["speculative_draft_model_path"] = pick(DRAFTS)
    if odds(3):
        c["speculative_num_draft_tokens"] = pick((0, 1, 2, 4, 6, 8, 9, 16))
    if odds(3):
        c["speculative_dflash_block_size"] = pick((-1, 0, 4, 8, 16))
    if odds(3):
        c["speculative_dspark_block_size"] = pick((-1, 0, 3, 5, 7))
    if odds(4):
        c["speculative_num_steps"] = pick((1, 2, 3))
    if odds(4):
        c["speculative_eagle_topk"] = pick((1, 2, 4))
    if odds(4):
        c["speculative_draft_window_size"] = pick((3, 4, 6, 8, 16, 32))
        if odds(4):
            c["speculative_draft_sink_size"] = pick((0, 2))
    if odds(4):
        c["speculative_draft_attention_backend"] = pick(DRAFT_BACKENDS)
    if odds(10):
        c["attention_backend"] = pick(("fa3", "flashinfer", "triton"))
    if tp > 1 and odds(4):  # attention DP over the TP group, now and then with attention CP
        cp = pick((1, 1, 2)) if tp >= 4 else 1
        c["attn_dp_size"] = tp // cp
        if cp > 1:
            c["attn_cp_size"] = cp
        if not odds(4):
            c["enable_dp_lm_head"] = True
        if c["speculative_algorithm"] == "DFLASH" and odds(6):
            c["device"] = "xpu"  # refused (SPEC021); an accepted XPU launch resolves graphs autofix does not model
    if odds(12):
        c["device"] = pick(("cpu", "hpu", "cuda"))
    if odds(4):
        c["speculative_moe_a2a_backend"] = pick(("none", "deepep"))
    if odds(3):
        c["enable_dp_lm_head"] = True
    if odds(6):
        c["max_running_requests"] = 64
