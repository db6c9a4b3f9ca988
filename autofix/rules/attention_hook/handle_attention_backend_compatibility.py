"""``handle_attention_backend_compatibility`` (``arg_groups/attention_hook.py:110``, 0.5.23).

Only what the modelled checks read: the torch-native and Flex attention
backends turn both CUDA graphs off. The attention backend SGLang fills in
when none is written (``_attention_backend_default``) is not modelled: on a
GPU host it is neither of the two (whatever ``--device`` says).
"""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView
from autofix.rules.cuda_graph_hook import DECODE, PREFILL

EAGER_ONLY = ("torch_native", "flex_attention")


@derivation(step="handle_attention_backend_compatibility", at="arg_groups/attention_hook.py:128",
            writes=(DECODE, PREFILL))
def eager_attention_disables_cuda_graphs(view: ResolvingView) -> dict | None:
    """`--attention-backend torch_native` or `flex_attention` turns the decode and prefill CUDA graphs off."""
    if view["attention_backend"] not in EAGER_ONLY:
        return None
    return {DECODE: "disabled", PREFILL: "disabled"}
