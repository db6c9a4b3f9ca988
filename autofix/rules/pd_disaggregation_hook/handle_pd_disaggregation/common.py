"""What the modules of ``handle_pd_disaggregation`` share: the step id, the PD roles, removing a setting."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Unset
from autofix.pipeline.view import ResolvingView

STEP = "handle_pd_disaggregation"
PD_ROLES = ("prefill", "decode")


def drop(view: ResolvingView, dest: str, flag: str, *, safe: bool = False) -> Fix | None:
    """Remove ``flag`` when the user wrote it (a value an earlier step declared is not the user's to remove)."""
    if not view.is_explicit(dest):
        return None
    make = Fix.safe if safe else Fix.unsafe
    return make(Unset(dest), title=f"Remove {flag}")
