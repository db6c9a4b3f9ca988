"""Fix builders the settings rules of several steps share."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Unset
from autofix.pipeline.view import ResolvingView


def remove(view: ResolvingView, dest: str, flag: str, why: str = "", *, safe: bool = False) -> Fix | None:
    """Remove the setting of ``dest`` the user wrote (``flag`` names it in the title, ``why`` follows it);
    None when it is not written. Unsafe unless ``safe``: the launch then means something else."""
    if not view.is_explicit(dest):
        return None
    return (Fix.safe if safe else Fix.unsafe)(Unset(dest), title=f"Remove {flag}{why}")
