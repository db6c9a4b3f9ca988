"""``handle_a2a_moe``, what every a2a backend goes through (``arg_groups/moe_hook.py:292-313``): the
override passes that set the backend, the expert-parallel size it implies and shared-expert fusion, Waterfill's
fusion, and the FlashInfer dispatch type only the ``flashinfer`` backend takes."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.shared import EP_SPANNING_A2A


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


def _waterfill_fusion_cause(view: ResolvingView) -> str:
    return f"--enable-waterfill with the a2a backend {view['moe_a2a_backend']}"


@derivation(step="handle_a2a_moe", at="arg_groups/overrides.py:1564", via=298,
            writes=("disable_shared_experts_fusion",), code="A2A007", name="a2a-backend-sets-shared-experts-fusion",
            cause=_waterfill_fusion_cause)
def a2a_backend_sets_shared_experts_fusion(view: ResolvingView) -> dict | None:
    """The a2a backend decides shared-expert fusion: Waterfill needs it, FlashInfer and DeepEP v2 turn it off.

    ## What it does
    Warns at `--disable-shared-experts-fusion` when `--enable-waterfill`
    runs with the a2a backend `deepep` or `megamoe`: SGLang turns fusion
    back on. With `flashinfer`, `flashinfer_megamoe` or `deepep_v2` it turns
    fusion off, which replaces nothing a user can write.

    ## Why it matters
    SGLang logs a warning and fuses the shared experts although the config
    says not to.

    ## Example
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep
    enable-waterfill: true
    disable-shared-experts-fusion: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep
    enable-waterfill: true
    ```

    ## Fix safety
    Removing the ignored flag resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1564` (`_a2a_fusion_adjustments`, run at `arg_groups/moe_hook.py:298`)
    """
    a2a = view["moe_a2a_backend"]
    if a2a in ("deepep", "megamoe") and view["enable_waterfill"]:
        return {"disable_shared_experts_fusion": False} if view["disable_shared_experts_fusion"] else None
    if a2a in ("flashinfer", "flashinfer_megamoe", "deepep_v2"):
        return {"disable_shared_experts_fusion": True}
    return None


@derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:302", writes=("enforce_shared_experts_fusion",))
def waterfill_enforces_shared_experts_fusion(view: ResolvingView) -> dict | None:
    """Waterfill enforces shared-expert fusion (a store-true flag: it replaces nothing the user wrote)."""
    return {"enforce_shared_experts_fusion": True} if view["enable_waterfill"] else None


def _no_dispatch_type(view: ResolvingView) -> Fix:
    return Fix.safe(Unset("flashinfer_a2a_dispatch_type"), title="Remove --flashinfer-a2a-dispatch-type")


@settings_rule("A2A008", "flashinfer-dispatch-type-needs-flashinfer-a2a", step="handle_a2a_moe",
               at="arg_groups/moe_hook.py:311")
def flashinfer_dispatch_type_needs_flashinfer_a2a(view: ResolvingView) -> Violation | None:
    """Flag `--flashinfer-a2a-dispatch-type` with an a2a backend other than `flashinfer`.

    ## What it does
    Checks for a dispatch type other than `auto` while the a2a backend, as
    `--enable-waterfill` leaves it, is not `flashinfer`. `auto` is accepted
    with any backend.

    ## Why SGLang refuses it
    The dispatch dtype is a setting of FlashInfer's a2a kernels only; with
    another backend nothing would read it. SGLang raises a ValueError while
    resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep
    flashinfer-a2a-dispatch-type: bf16
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep
    ```

    ## Fix safety
    Removing the dispatch type changes nothing that runs (no kernel reads
    it with this backend): safe. Switching the backend to `flashinfer`
    changes the communication path (and needs attention DP over the whole
    TP group, A2A029): unsafe, offered second.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:311` (`handle_a2a_moe`, 0.5.23)
    """
    dispatch_type = view["flashinfer_a2a_dispatch_type"]
    if dispatch_type in (None, "auto"):
        return None
    a2a = view["moe_a2a_backend"]
    if a2a == "flashinfer":
        return None
    return Violation(f"--flashinfer-a2a-dispatch-type {dispatch_type} needs --moe-a2a-backend flashinfer, not {a2a}",
                     args=("flashinfer_a2a_dispatch_type", "moe_a2a_backend"))


flashinfer_dispatch_type_needs_flashinfer_a2a.fix(_no_dispatch_type)


@flashinfer_dispatch_type_needs_flashinfer_a2a.fix
def _flashinfer_a2a(view: ResolvingView) -> Fix | None:
    if view["enable_waterfill"]:
        return None  # Waterfill makes it deepep again
    return Fix.unsafe(Set("moe_a2a_backend", "flashinfer"), title="Set --moe-a2a-backend to flashinfer")
