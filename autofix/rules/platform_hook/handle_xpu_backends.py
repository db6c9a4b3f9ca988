"""``handle_xpu_backends`` (``arg_groups/platform_hook.py:113``, 0.5.23): the XPU defaults the modelled checks read.

Only the decode CUDA graph: opt-in on XPU (see ``autofix.rules.cuda_graph_hook``).
"""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView
from autofix.rules.shared import DECODE, decode_locked


@derivation(step="handle_xpu_backends", at="arg_groups/platform_hook.py:133", writes=(DECODE,))
def xpu_decode_graph_opt_in(view: ResolvingView) -> dict | None:
    """On XPU the decode CUDA graph is off unless a flag chose its backend (`platform.is_xpu`)."""
    if decode_locked(view) or not view.fact("platform.is_xpu"):
        return None
    return {DECODE: "disabled"}
