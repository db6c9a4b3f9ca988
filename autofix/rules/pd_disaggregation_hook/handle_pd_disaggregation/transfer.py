"""``handle_pd_disaggregation``, its first lines (pd_disaggregation_hook.py:30-41): `mooncake_tcp` is Mooncake over
TCP."""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView
from autofix.rules.pd_disaggregation_hook.handle_pd_disaggregation.common import STEP


@derivation(step=STEP, at="arg_groups/pd_disaggregation_hook.py:32", writes=("disaggregation_transfer_backend",))
def mooncake_tcp_is_mooncake(view: ResolvingView) -> dict | None:
    """`--disaggregation-transfer-backend mooncake_tcp` runs as `mooncake` with `MC_FORCE_TCP=1` set.

    The spelling names Mooncake's TCP transport, which the rewrite keeps (in
    the environment): nothing the user chose is replaced, so no override.
    Every later check sees `mooncake`.
    """
    if view["disaggregation_transfer_backend"] != "mooncake_tcp":
        return None
    return {"disaggregation_transfer_backend": "mooncake"}


def _tcp(view: ResolvingView) -> str:
    return "--disaggregation-transfer-backend mooncake_tcp"


@derivation(step=STEP, at="arg_groups/pd_disaggregation_hook.py:37", writes=("disaggregation_ib_device",),
            code="PD025", name="mooncake-tcp-ignores-ib-device", cause=_tcp)
def mooncake_tcp_ignores_ib_device(view: ResolvingView) -> dict | None:
    """Mooncake over TCP drops `--disaggregation-ib-device`.

    ## What it does
    Warns at a `--disaggregation-ib-device` given with
    `--disaggregation-transfer-backend mooncake_tcp`.

    ## Why it matters
    The TCP transport selects no RDMA device: SGLang sets the IB device to
    none and starts, so the devices the config names are never used (nor
    checked).

    ## Example
    ```yaml
    disaggregation-mode: prefill
    disaggregation-transfer-backend: mooncake_tcp
    disaggregation-ib-device: mlx5_0
    ```
    Use instead:
    ```yaml
    disaggregation-mode: prefill
    disaggregation-transfer-backend: mooncake_tcp
    ```

    ## Fix safety
    Removing the ignored device resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:37` (`handle_pd_disaggregation`, 0.5.23)
    """
    # line 32 already made it mooncake: what was written tells TCP from RDMA
    if view["disaggregation_transfer_backend"] != "mooncake":
        return None
    if view.written("disaggregation_transfer_backend") != "mooncake_tcp":
        return None
    return {"disaggregation_ib_device": None}
