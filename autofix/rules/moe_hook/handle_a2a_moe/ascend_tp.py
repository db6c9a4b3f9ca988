"""``handle_a2a_moe``, ``ascend_tp`` (and ``none`` on an NPU, ``arg_groups/moe_hook.py:460-469``)."""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:465", writes=("moe_a2a_backend",),
            code="A2A028", name="ascend-tp-runs-as-none",
            cause=lambda view: "SGLang's a2a step")
def ascend_tp_runs_as_none(view: ResolvingView) -> dict | None:
    """The a2a backend `ascend_tp` runs as `none` (and `none` stays `none` on NPUs).

    ## What it does
    Warns at `--moe-a2a-backend ascend_tp`: SGLang replaces it by `none`
    before the expert-parallel checks read it.

    ## Why it matters
    Checks after this step see `none`: `--ep-dispatch-algorithm static`
    with `ascend_tp` is refused (EP003) as with no backend.

    ## Example
    ```yaml
    moe-a2a-backend: ascend_tp
    ```
    Use instead:
    ```yaml
    moe-a2a-backend: none
    ```

    ## Fix safety
    Removing the backend (`none`) resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:465` (`handle_a2a_moe`, 0.5.23)
    """
    if view["moe_a2a_backend"] == "ascend_tp":
        return {"moe_a2a_backend": "none"}
    return None  # `none` on an NPU: declared `none` again, no change
