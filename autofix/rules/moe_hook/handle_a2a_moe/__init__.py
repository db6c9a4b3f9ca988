"""``handle_a2a_moe`` (``arg_groups/moe_hook.py:284``, 0.5.23): the a2a backend and the expert-parallel size it
implies, one module per part of the hook: what every backend goes through (the override passes, the FlashInfer
dispatch type), then one module per backend's branch, in the hook's order (flashinfer_megamoe, deepep, deepep_v2,
ascend_tp, flashinfer, mori, pplx)."""
