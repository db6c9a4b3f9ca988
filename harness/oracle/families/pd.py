"""Family F: PD disaggregation and encoder disaggregation (``handle_pd_disaggregation``, ``handle_other_validations``,
``validate_response_store``, ``handle_encoder_disaggregation``).

A PD role most draws, the transfer backend, the `prefill_complete` policy and optimistic prefill, decode host
receive and the retraction backup (on decode nodes: elsewhere KV050 refuses the backup), the decode radix cache, role
switching and what it refuses, HiCache modes, the response store, and now and then the encoder-disaggregation and
`--language-model-only` flags (the oracle's models support neither: PD019 and model_hook.py:1106 refuse them). An IB
device only with `mooncake_tcp` (which drops it): the oracle has no InfiniBand, so any other one is refused
(validation_hook.py:538). No HiSparse: the oracle's models refuse it (hisparse_hook.py:104).
"""

from __future__ import annotations

from typing import Any

NAME = "pd"

BACKENDS = ("mooncake", "mooncake", "nixl", "fake", "mooncake_tcp", "mori")


def settings(draw, c: dict[str, Any], tp: int, divisors: list[int]) -> None:
    from hypothesis import strategies as st

    odds = lambda n: draw(st.integers(0, n - 1)) == 0  # noqa: E731
    mode = draw(st.sampled_from(("null", "prefill", "prefill", "decode", "decode")))
    if mode != "null" or odds(2):
        c["disaggregation_mode"] = mode
    if odds(2):
        backend = draw(st.sampled_from(BACKENDS))
        c["disaggregation_transfer_backend"] = backend
        if backend == "mooncake_tcp" and odds(2):
            c["disaggregation_ib_device"] = "mlx5_0"
    if odds(8):
        c["disaggregation_decode_allocation_policy"] = "prefill_complete"
    if odds(3):
        c["optimistic_prefill_attempts"] = draw(st.sampled_from((-1, 0, 1, 2)))
    if mode == "decode" and odds(3):
        c["disaggregation_decode_host_receive_threshold"] = draw(st.sampled_from((0.0, 0.5, 1.0)))
    elif odds(12):
        c["disaggregation_decode_host_receive_threshold"] = draw(st.sampled_from((1.5, -0.1, float("nan"))))
    if mode == "decode" and odds(3):
        c["disaggregation_decode_retraction_backup"] = draw(st.sampled_from(("cpu_tensor", "host_pool", "none")))
    if odds(3):
        c["disaggregation_decode_enable_radix_cache"] = True
    if odds(5):
        c["disable_radix_cache"] = True
    if odds(3):
        c["enable_pd_role_switch"] = True
    if odds(6):
        c["enable_dp_attention_local_control_broadcast"] = True
    if mode != "decode" and odds(5):  # decode turns the radix cache off, which HiCache needs (kv_cache_hook.py:394)
        c["enable_hierarchical_cache"] = True
        c["hicache_write_policy"] = draw(st.sampled_from(("write_back", "write_through", "write_through_selective")))
    if odds(6):
        c["enable_response_store"] = True
    if odds(10):
        c["speculative_algorithm"] = "NGRAM"
    if odds(8):
        flag = draw(st.sampled_from(("encoder_only", "language_only", "enable_prefix_mm_cache",
                                     "enable_broadcast_mm_inputs_process")))
        c[flag] = True
        if odds(2):
            c["language_model_only"] = True
