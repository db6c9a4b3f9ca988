"""What the modules of ``handle_elastic_ep`` share: the step, whether elastic EP and runtime scale-up are on,
scale-up's attention TP width and dense TP, and its fallback fix (no scale-up)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset
from autofix.pipeline.view import ResolvingView

STEP = "handle_elastic_ep"


def _elastic(view: ResolvingView) -> bool:
    """Elastic EP is on: any `--elastic-ep-backend`, even the string `none` argparse stores for `none`."""
    return view["elastic_ep_backend"] is not None


def _scaling_active(view: ResolvingView) -> bool:
    """Runtime scale-up: an elastic backend and a `--max-ep-size` above `--tp-size`."""
    if not _elastic(view):
        return False
    size = view["max_ep_size"]
    return size is not None and size > view["tp_size"]


def _attn_tp(view: ResolvingView) -> int | None:
    """The attention TP width under scale-up, or None when the attention topology is invalid (EEP013)."""
    tp, dp, cp = view["tp_size"], view["attn_dp_size"], view["attn_cp_size"]
    if tp <= 0 or dp <= 0 or cp <= 0 or tp % (dp * cp):
        return None
    return tp // dp // cp


def _joiner(view: ResolvingView) -> bool:
    return view["ep_join_mode"] == "scale"


def _no_scale_up(view: ResolvingView) -> Fix:
    """The fallback of every scale-up check: no runtime scale-up at all."""
    return Fix.unsafe(Unset("max_ep_size"), title="Remove --max-ep-size (no runtime scale-up)")


def _dense_tp(view: ResolvingView) -> str:
    size = view["moe_dense_tp_size"]
    return "unset" if size is None else str(size)


def _dense_tp1(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("moe_dense_tp_size", 1), title="Set --moe-dense-tp-size to 1")
