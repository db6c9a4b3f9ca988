"""``_page_size_default`` (``arg_groups/overrides.py:1341``, 0.5.23): the page size when none is written or snapped."""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView


@derivation(step="_page_size_default", at="arg_groups/overrides.py:1362", writes=("page_size",))
def page_size_default(view: ResolvingView) -> dict | None:
    """An unset page size is 1 (64 on MUSA, and on ROCm with `SGLANG_AITER_KV_CACHE_LAYOUT=vectorized_5d`).

    It reads the platform (`--gpu`): unknown without it. Nothing the user
    wrote is replaced.
    """
    if view["page_size"] is not None:
        return None
    if view.fact("platform.is_hip") and str(view.fact("env.SGLANG_AITER_KV_CACHE_LAYOUT")).lower() == "vectorized_5d":
        return {"page_size": 64}
    return {"page_size": 64 if view.fact("platform.is_musa") else 1}
