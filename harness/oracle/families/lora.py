"""LoRA (family D): the settings ``check_lora_server_args`` reads, for the fidelity harness.

LoRA comes on through ``--enable-lora`` (then with a rank and target modules, or not: LORA009), through
``--lora-paths``, or both; the batch and loading bounds, the LoRA backends and the LoRA MoE runners, and the
speculative algorithms SGLang accepts (EAGLE/EAGLE3/NGRAM/STANDALONE/DFLASH/DSPARK; a draft model path where the
algorithm needs one) are drawn around it. ``--speculative-adaptive`` is drawn only where SGLang keeps it on (EAGLE
or EAGLE3 with the default steps and top-k, no attention DP, two-batch overlap or PD multiplexing), and
``--enable-pdmux`` with what PD multiplexing needs (no chunked prefill, no overlap schedule, no PP).
"""

from __future__ import annotations

from typing import Any

NAME = "lora"

PATHS = ("sql=/loras/sql", "chat=/loras/chat", "/loras/tool", '{"lora_name": "pin", "lora_path": "/loras/pin", '
         '"pinned": true}')
TARGETS = (["all"], ["all"], ["q_proj", "v_proj"], ["all", "q_proj"], ["all", "all"], [])
BACKENDS = ("triton", "csgmv", "triton_v2", "triton_v2", "torch_native")
LORA_RUNNERS = ("lora_triton", "lora_cutedsl", "lora_marlin")
SPECULATIVE = ("EAGLE", "EAGLE3", "NGRAM", "STANDALONE", "DFLASH", "DSPARK")
NEEDS_DRAFT = ("DFLASH", "DSPARK")


def settings(draw, c: dict[str, Any], tp: int, divisors: list[int]) -> None:
    from hypothesis import strategies as st

    odds = lambda n: draw(st.integers(0, n - 1)) == 0  # noqa: E731
    lora = draw(st.sampled_from(("off", "enable", "paths", "both")))
    if lora in ("enable", "both"):
        c["enable_lora"] = True
    if lora in ("paths", "both"):
        c["lora_paths"] = draw(st.lists(st.sampled_from(PATHS), min_size=1, max_size=3, unique=True))
    elif lora == "enable" and not odds(6):  # now and then without a rank or targets (LORA009)
        c["max_lora_rank"] = draw(st.sampled_from((16, 16, 64, 0)))
        c["lora_target_modules"] = list(draw(st.sampled_from(TARGETS)))
    if lora != "off" and odds(5):
        c["lora_target_modules"] = list(draw(st.sampled_from(TARGETS)))
    if odds(8):
        c["max_loras_per_batch"] = draw(st.sampled_from((0, 1, 2, 4)))
    if odds(5):
        c["max_loaded_loras"] = draw(st.sampled_from((1, 2, 4, 8, 16, 17)))
    elif len(c.get("lora_paths", ())) > 1 and odds(3):  # more adapters than may stay loaded (LORA011)
        c.update(max_loras_per_batch=1, max_loaded_loras=1)
    if odds(6):
        c["enable_lora_overlap_loading"] = True
    if odds(10):
        c["lora_drain_wait_threshold"] = draw(st.sampled_from((-1.0, 0.0, 0.5, float("nan"))))
    if lora != "off" and odds(2):
        c["lora_use_virtual_experts"] = True
    if odds(2):
        c["lora_backend"] = draw(st.sampled_from(BACKENDS))
    if odds(3):  # a LoRA MoE runner, mostly with the backend it needs
        c["moe_runner_backend"] = draw(st.sampled_from(LORA_RUNNERS))
        if not odds(4):
            c["lora_backend"] = "triton_v2"
        if tp > 1 and odds(4):  # expert placement over EP (LORA021)
            c["ep_size"] = tp
            dest, value = draw(st.sampled_from((("ep_num_redundant_experts", 8),
                                                ("init_expert_location", '{"layer": 0}'))))
            c[dest] = value
    elif odds(12):
        c["moe_runner_backend"] = "experimental_sgl_trtllm"
    if odds(12) and c.get("pp_size", 1) == 1:
        c.update(enable_pdmux=True, chunked_prefill_size=-1, disable_overlap_schedule=True)
    _speculative(draw, c, odds)


def _speculative(draw, c: dict[str, Any], odds) -> None:
    from hypothesis import strategies as st

    if odds(2):
        return
    algorithm = draw(st.sampled_from(SPECULATIVE))
    c["speculative_algorithm"] = algorithm
    if algorithm in NEEDS_DRAFT or (algorithm == "STANDALONE" and odds(2)):
        c["speculative_draft_model_path"] = "org/draft"
    quiet = not any(c.get(d) for d in ("enable_two_batch_overlap", "enable_pdmux", "enable_dp_attention")) \
        and c.get("attn_dp_size", 1) == 1
    if algorithm in ("EAGLE", "EAGLE3") and quiet and odds(3):
        c["speculative_adaptive"] = True
    if odds(4):
        c["speculative_moe_runner_backend"] = draw(st.sampled_from(("lora_triton", "experimental_sgl_trtllm",
                                                                     "triton")))
