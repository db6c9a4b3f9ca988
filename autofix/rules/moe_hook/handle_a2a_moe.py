"""``handle_a2a_moe`` (``arg_groups/moe_hook.py``, 0.5.23): the a2a backend and the expert-parallel size it implies."""

from __future__ import annotations

from autofix.model import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView

from autofix.rules.moe_hook import EP_SPANNING_A2A

def _waterfill(view: ResolvingView) -> str:
    return "--enable-waterfill"


@derivation(step="handle_a2a_moe", at="arg_groups/overrides.py:1606", via=292, writes=("moe_a2a_backend",),
            code="A2A005", name="waterfill-overrides-a2a-backend", cause=_waterfill)
def waterfill_overrides_a2a_backend(view: ResolvingView) -> dict | None:
    """Waterfill makes the MoE a2a backend `deepep` unless it is `deepep` or `megamoe`.

    ## What it does
    Warns at a `--moe-a2a-backend` (other than `deepep` or `megamoe`) that
    `--enable-waterfill` replaces.

    ## Why it matters
    SGLang logs a warning and runs DeepEP; checks before this step saw the
    backend as written (RUN009), checks after it see `deepep` (EP003, RUN019).

    ## Example
    ```yaml
    enable-waterfill: true
    moe-a2a-backend: mooncake
    ```
    Use instead:
    ```yaml
    enable-waterfill: true
    moe-a2a-backend: deepep
    ```

    ## Fix safety
    Writing `deepep` resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1606` (`_a2a_backend_overrides`, run at `arg_groups/moe_hook.py:292`)
    """
    if view["moe_a2a_backend"] in ("deepep", "megamoe") or not view["enable_waterfill"]:
        return None
    return {"moe_a2a_backend": "deepep"}


def _spanning(view: ResolvingView) -> str:
    return f"the a2a backend {view['moe_a2a_backend']}"


@derivation(step="handle_a2a_moe", at="arg_groups/overrides.py:1619", via=293, writes=("ep_size",),
            code="A2A006", name="a2a-backend-overrides-ep-size", cause=_spanning)
def a2a_backend_overrides_ep_size(view: ResolvingView) -> dict | None:
    """An EP-spanning a2a backend makes `ep_size` equal `tp_size`.

    ## What it does
    Warns at an `--ep-size` that an a2a backend spanning the TP group
    (`deepep`, `deepep_v2`, `mooncake`, `nixl`, `mori`, `pplx`, `flashinfer`,
    `flashinfer_megamoe`, `megamoe`, `ascend_fuseep`) replaces by `--tp-size`.

    ## Why it matters
    SGLang only logs it: `--ep-size 2` runs as 8 with `--tp 8`; checks before
    this step saw 2 (RUN006, RUN008), checks after it see 8 (EP004, RUN019).

    ## Example
    ```yaml
    tp-size: 8
    ep-size: 2
    moe-a2a-backend: deepep
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ep-size: 8
    moe-a2a-backend: deepep
    ```

    ## Fix safety
    Writing the size that runs resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1619` (`_a2a_ep_size`, run at `arg_groups/moe_hook.py:293`)
    """
    if view["moe_a2a_backend"] not in EP_SPANNING_A2A:
        return None
    return {"ep_size": view["tp_size"]}


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

