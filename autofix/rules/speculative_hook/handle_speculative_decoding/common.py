"""What the DFLASH and DSpark checks of ``handle_speculative_decoding`` share: the device, the call line, fixes.

Not a step module of its own (it defines no rule): the helpers the modules of this package import.
"""

from __future__ import annotations

from autofix.model import Fix, Set, Unset
from autofix.pipeline.view import ResolvingView

STEP = "handle_speculative_decoding"
# speculative_hook.py:284, `algo.handle_server_args(server_args)`: SpeculativeAlgorithm.handle_server_args
# (speculative/spec_info.py) calls `_handle_dflash`, `_handle_dspark`, ... for the resolved algorithm
ALGORITHM_CALL = 284


def device(view: ResolvingView) -> str:
    """`--device`, or `cuda` when it is not written: SGLang detects it, and every GPU autofix knows is `cuda`
    (ROCm included)."""
    return view["device"] or "cuda"


def remove(view: ResolvingView, dest: str, flag: str, why: str = "") -> Fix | None:
    """Remove a setting the user wrote (unsafe: the launch means something else); None when it was not written."""
    if not view.is_explicit(dest):
        return None
    return Fix.unsafe(Unset(dest), title=f"Remove {flag}{why}")


def no_speculation(view: ResolvingView) -> Fix | None:
    """The last resort: no speculative decoding."""
    return remove(view, "speculative_algorithm", "--speculative-algorithm", " (no speculative decoding)")


def dp_lm_head(view: ResolvingView) -> Fix:
    """`--enable-dp-lm-head`: keeps every value the user wrote."""
    return Fix.safe(Set("enable_dp_lm_head", True), title="Add --enable-dp-lm-head")


def no_attention_dp(view: ResolvingView) -> Fix | None:
    """Remove a written `--attn-dp-size` (one attention group)."""
    return remove(view, "attn_dp_size", "--attn-dp-size", " (no attention DP)")


def no_attention_cp(view: ResolvingView) -> Fix | None:
    """Remove a written `--attn-cp-size` (no attention context parallelism)."""
    return remove(view, "attn_cp_size", "--attn-cp-size", " (no attention context parallelism)")


def pp1(view: ResolvingView) -> Fix | None:
    """Remove a written `--pp-size` (one pipeline stage)."""
    return remove(view, "pp_size", "--pp-size", " (one pipeline stage)")
