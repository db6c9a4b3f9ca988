"""``handle_cuda_graph_config`` (``arg_groups/cuda_graph_hook.py:392``, 0.5.23): the CUDA graph backend of each phase.

SGLang parses the graph flags into ``cuda_graph_config`` (a flag wins over
the defaults, the JSON form over both), turns an unlocked breakable prefill
graph off where it is incompatible, and, for a PD role, the phase it does
not run. autofix declares the two backends (see ``autofix.rules.cuda_graph_hook``).
The JSON form (``--cuda-graph-config``) is not read: with it both are unknown.
"""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView, Unknown
from autofix.rules.cuda_graph_hook import compatible_prefill, flags_turn_off_breakable
from autofix.rules.shared import DECODE, PREFILL, decode_locked

STEP = "handle_cuda_graph_config"


def _parsed(view: ResolvingView, dest: str, off: str) -> str | None:
    """A phase's backend as the flags set it (cuda_graph_hook.py:32), or None for the default."""
    if view.is_explicit("cuda_graph_config"):
        raise Unknown("cuda_graph_config")  # the JSON form, not read
    backend = "disabled" if view["disable_cuda_graph"] or view[off] else None
    if view[dest] is not None:
        backend = view[dest]
    return backend


@derivation(step=STEP, at="arg_groups/cuda_graph_hook.py:96", via=395, writes=(DECODE,))
def decode_cuda_graph_backend(view: ResolvingView) -> dict | None:
    """The decode CUDA graph backend: `full` unless a flag says otherwise; `disabled` on a PD prefill server.

    From `--cuda-graph-backend-decode`, else `--disable-cuda-graph` /
    `--disable-decode-cuda-graph` (or DWDP and expert packs, which declare
    the first), else `full`; a PD prefill server captures no decode graph
    unless the backend is locked by a flag (cuda_graph_hook.py:557).
    """
    backend = _parsed(view, DECODE, "disable_decode_cuda_graph") or "full"
    if view["disaggregation_mode"] == "prefill" and not decode_locked(view):
        backend = "disabled"
    return {DECODE: backend}


@derivation(step=STEP, at="arg_groups/cuda_graph_hook.py:96", via=395, writes=(PREFILL,))
def prefill_cuda_graph_backend(view: ResolvingView) -> dict | None:
    """The prefill CUDA graph backend: `breakable` on CUDA, unless a flag, a layout or the model turns it off.

    From `--cuda-graph-backend-prefill`, else `--disable-cuda-graph` /
    `--disable-prefill-cuda-graph`, else `breakable` on CUDA and `disabled`
    elsewhere (`platform.is_cuda`: unknown without `--gpu`, and with a
    `--device` other than `cuda` or `cpu`). Unlocked, a
    breakable graph is turned off under PP, attention CP without CP graph
    support, decode CP, two-batch overlap, an a2a backend other than none,
    deepep, megamoe or flashinfer, and for KDA, DeepSeek-V4 and some
    multimodal models (model facts); a PD decode server captures no prefill
    graph (cuda_graph_hook.py:557).
    """
    parsed = _parsed(view, PREFILL, "disable_prefill_cuda_graph")
    if parsed is not None:  # a flag chose it (SGLang's lock): no default, compatibility or PD role touches it
        return {PREFILL: parsed}
    if view["device"] not in (None, "cuda", "cpu"):
        raise Unknown("device")  # another device's backends (platform_hook.py) pick the attention: not modelled
    # the default, breakable on CUDA and disabled elsewhere, unless compatibility or the PD role turns it off:
    # those decide it without the GPU
    if view["disaggregation_mode"] == "decode" or flags_turn_off_breakable(view):
        return {PREFILL: "disabled"}
    if not view.fact("platform.is_cuda"):
        return {PREFILL: "disabled"}
    return {PREFILL: compatible_prefill(view, "breakable")}
