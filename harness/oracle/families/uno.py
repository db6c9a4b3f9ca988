"""UNO speculative decoding (``_handle_uno``, SPEC030-SPEC044, SPEC110-SPEC120): the fidelity harness's fragment.

UNO wants one GPU, no LoRA and no attention split, and the base draws those often: three draws in four this fragment
takes them out, so that the tree geometry and the later checks are reached. An attention backend is always written:
the one SGLang picks when none is (FA3 on H200, TRT-LLM MLA on B200 for the oracle's DeepSeek-V3) is not modelled,
so SPEC043 stays silent without one (docs/coverage.md).
"""

from __future__ import annotations

from typing import Any

from autofix.rules.speculative_hook.handle_speculative_decoding.uno_tree import largest_width

NAME = "uno"

# What UNO refuses that the base draws: taken out for a clean single-GPU launch
_BASE_OUT = ("tp_size", "ep_size", "dwdp_size", "attn_dp_size", "enable_dp_attention", "dp_size", "attn_cp_size",
             "moe_dp_size", "dcp_size", "dcp_comm_backend", "pp_size", "enable_two_batch_overlap", "enable_prefill_cp",
             "cp_strategy", "enable_dp_lm_head", "enable_tp_lm_head_all_to_all", "enable_lora", "lora_paths",
             "max_lora_rank", "lora_target_modules", "lora_use_virtual_experts", "lora_backend", "moe_a2a_backend",
             "elastic_ep_backend", "ep_join_mode", "enable_eplb", "enable_waterfill", "enable_elastic_expert_backup",
             "ep_dispatch_algorithm", "moe_runner_backend")


def settings(draw, c: dict[str, Any], tp: int, divisors: list[int]) -> None:
    from hypothesis import strategies as st

    odds = lambda n: draw(st.integers(0, n - 1)) == 0  # noqa: E731
    if not odds(4):
        for dest in _BASE_OUT:
            c.pop(dest, None)
        if odds(20):
            c["attn_cp_size"] = 0  # SPEC117 on one GPU (a size that divides it would be 1)
    c["speculative_algorithm"] = draw(st.just("UNO"))
    if not odds(12):
        c["uno_lora_path"] = "/models/uno-lora"
    if odds(16):
        c["speculative_draft_model_path"] = "/models/draft"
    if odds(20):
        c["device"] = draw(st.sampled_from(("cpu", "cuda:0")))
    if odds(16):
        c["enable_deterministic_inference"] = True
    if odds(20):
        c["rl_on_policy_target"] = "fsdp"
    if odds(16):
        c["enable_strict_thinking"] = True
    tree = odds(2)
    if tree:
        k = c["speculative_eagle_topk"] = draw(st.sampled_from((2, 2, 3, 4, 8, 32)))
        steps = draw(st.sampled_from((0, 80))) if odds(10) else draw(st.integers(1, 6))
        if not odds(10):
            c["speculative_num_steps"] = steps
        widest = largest_width(steps, k) if steps >= 1 else None
        if widest is not None and odds(2) is False:
            c["speculative_num_draft_tokens"] = draw(st.integers(steps + 1, widest))  # a tree UNO builds
        elif not odds(12):
            c["speculative_num_draft_tokens"] = draw(st.one_of(st.integers(1, 16), st.sampled_from((64, 100, 200))))
    else:
        if odds(8):
            c["speculative_eagle_topk"] = draw(st.sampled_from((0, 1)))
        if odds(3):
            c["speculative_num_steps"] = draw(st.integers(1, 5))
        if not odds(10):
            c["speculative_num_draft_tokens"] = draw(st.sampled_from((0, 1, 2, 4, 8)))
    if odds(10):
        c["enable_pdmux"] = True  # with what check_server_args wants of PD-multiplexing (validation_hook.py:249)
        c["chunked_prefill_size"] = -1
        c["disable_overlap_schedule"] = True
        c.pop("pp_size", None)
    if odds(10):
        c["enable_two_batch_overlap"] = True
    if odds(8):
        c[draw(st.sampled_from(("speculative_accept_threshold_single", "speculative_accept_threshold_acc")))] = 0.5
    if odds(10):
        c["enable_lora"] = True
        c["max_lora_rank"] = 16
        c["lora_target_modules"] = ["all"]
    if odds(8):
        c["speculative_use_rejection_sampling"] = True
    for flag in ("enable_mixed_chunk", "enable_lora_overlap_loading"):
        if odds(6):
            c[flag] = True
    backend = draw(st.sampled_from(("fa3", "fa3", "fa3", "triton", "flashinfer", "split")))
    if backend == "split":
        c["prefill_attention_backend"] = "fa3"
        c["decode_attention_backend"] = draw(st.sampled_from(("fa3", "triton")))
    else:
        c["attention_backend"] = backend
    if odds(8):
        c["kv_cache_dtype"] = draw(st.sampled_from(("fp8_e5m2", "fp8_e4m3")))
