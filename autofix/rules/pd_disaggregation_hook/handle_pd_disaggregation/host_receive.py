"""``handle_pd_disaggregation``: decode host receive, `--disaggregation-decode-host-receive-threshold`
(pd_disaggregation_hook.py:64-80)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.pd_disaggregation_hook.handle_pd_disaggregation.common import STEP

THRESHOLD = "--disaggregation-decode-host-receive-threshold"


def _host_receive(view: ResolvingView) -> bool:
    """Decode host receive is on: a threshold below 1 (NaN is not: it fails the range check instead)."""
    return view["disaggregation_decode_host_receive_threshold"] < 1


def _no_threshold(view: ResolvingView) -> Fix | None:
    return remove(view, "disaggregation_decode_host_receive_threshold", THRESHOLD)


@settings_rule("PD003", "host-receive-threshold-range", step=STEP, at="arg_groups/pd_disaggregation_hook.py:65")
def host_receive_threshold_range(view: ResolvingView) -> Violation | None:
    """Flag a decode host-receive threshold outside [0, 1].

    ## What it does
    Checks that `--disaggregation-decode-host-receive-threshold` is between
    0 and 1 (NaN is not), on any node.

    ## Why SGLang refuses it
    The threshold is the device token usage fraction at which decode
    receives KV into host memory; 1 turns it off. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-host-receive-threshold: 1.5
    ```
    Use instead:
    ```yaml
    disaggregation-mode: decode
    ```

    ## Fix safety
    Removing the threshold turns host receive off (the default, 1), which
    may not be what was meant: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:65` (`handle_pd_disaggregation`, 0.5.23)
    """
    threshold = view["disaggregation_decode_host_receive_threshold"]
    if 0 <= threshold <= 1:
        return None
    return Violation(f"{THRESHOLD} must be between 0 and 1, not {threshold}",
                     args=("disaggregation_decode_host_receive_threshold",))


host_receive_threshold_range.fix(_no_threshold)


@settings_rule("PD004", "host-receive-without-hisparse-or-role-switch", step=STEP,
               at="arg_groups/pd_disaggregation_hook.py:70")
def host_receive_without_hisparse_or_role_switch(view: ResolvingView) -> Violation | None:
    """Flag decode host receive with HiSparse or PD role switching.

    ## What it does
    Checks for `--disaggregation-decode-host-receive-threshold` below 1
    with `--enable-hisparse` or `--enable-pd-role-switch`.

    ## Why SGLang refuses it
    Host receive stages incoming KV in the retraction host pool, which
    neither HiSparse's host cache nor a role flip rebuilds. SGLang raises
    a ValueError while resolving its arguments.

    ## Example
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-host-receive-threshold: 0.5
    enable-pd-role-switch: true
    ```
    Use instead:
    ```yaml
    disaggregation-mode: decode
    enable-pd-role-switch: true
    ```

    ## Fix safety
    Removing the threshold turns host receive off; removing role switching
    or HiSparse drops a feature: all unsafe. (No built-in transfer backend
    supports host receive yet, SGLang's help says.)

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:70` (`handle_pd_disaggregation`, 0.5.23)
    """
    if not _host_receive(view):
        return None
    hisparse, switch = view["enable_hisparse"], view["enable_pd_role_switch"]
    if not (hisparse or switch):
        return None
    other = "--enable-hisparse" if hisparse else "--enable-pd-role-switch"
    return Violation(f"{THRESHOLD} below 1 (decode host receive) does not support {other}",
                     args=("disaggregation_decode_host_receive_threshold", "enable_hisparse",
                           "enable_pd_role_switch"))


host_receive_without_hisparse_or_role_switch.fix(_no_threshold)


@host_receive_without_hisparse_or_role_switch.fix
def _no_role_switch(view: ResolvingView) -> Fix | None:
    return remove(view, "enable_pd_role_switch", "--enable-pd-role-switch")


@host_receive_without_hisparse_or_role_switch.fix
def _no_hisparse(view: ResolvingView) -> Fix | None:
    return remove(view, "enable_hisparse", "--enable-hisparse")


@settings_rule("PD006", "host-receive-needs-host-pool-backup", step=STEP,
               at="arg_groups/pd_disaggregation_hook.py:75")
def host_receive_needs_host_pool_backup(view: ResolvingView) -> Violation | None:
    """Flag decode host receive with the `cpu_tensor` retraction backup.

    ## What it does
    Checks for `--disaggregation-decode-host-receive-threshold` below 1
    with `--disaggregation-decode-retraction-backup cpu_tensor`.

    ## Why SGLang refuses it
    Host receive buffers incoming KV in the `host_pool` retraction pool;
    per-request CPU tensors have no such pool. SGLang raises a ValueError
    while resolving its arguments.

    ## Example
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-host-receive-threshold: 0.5
    disaggregation-decode-retraction-backup: cpu_tensor
    ```
    Use instead:
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-host-receive-threshold: 0.5
    ```

    ## Fix safety
    Removing the backup lets SGLang pick `host_pool`, another way of
    keeping retracted KV: unsafe. Removing the threshold turns host receive
    off: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:75` (`handle_pd_disaggregation`, 0.5.23)
    """
    if not _host_receive(view) or view["disaggregation_decode_retraction_backup"] != "cpu_tensor":
        return None
    return Violation(f"{THRESHOLD} below 1 (decode host receive) needs the host_pool retraction backup, "
                     "not --disaggregation-decode-retraction-backup cpu_tensor",
                     args=("disaggregation_decode_retraction_backup", "disaggregation_decode_host_receive_threshold"))


@host_receive_needs_host_pool_backup.fix
def _no_backup(view: ResolvingView) -> Fix | None:
    return remove(view, "disaggregation_decode_retraction_backup", "--disaggregation-decode-retraction-backup")


host_receive_needs_host_pool_backup.fix(_no_threshold)


def _threshold(view: ResolvingView) -> str:
    return f"{THRESHOLD} {view['disaggregation_decode_host_receive_threshold']}"


@derivation(step=STEP, at="arg_groups/pd_disaggregation_hook.py:76",
            writes=("disaggregation_decode_retraction_backup",), code="PD027",
            name="host-receive-overrides-retraction-backup", cause=_threshold)
def host_receive_overrides_retraction_backup(view: ResolvingView) -> dict | None:
    """Decode host receive makes the retraction backup `host_pool`.

    ## What it does
    Warns at `--disaggregation-decode-retraction-backup none` when
    `--disaggregation-decode-host-receive-threshold` is below 1.

    ## Why it matters
    SGLang logs nothing and keeps retracted KV in the host pool, so a
    retracted request is not aborted as `none` says. (`cpu_tensor` is
    refused, PD006.)

    ## Example
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-host-receive-threshold: 0.5
    disaggregation-decode-retraction-backup: none
    ```
    Use instead:
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-host-receive-threshold: 0.5
    disaggregation-decode-retraction-backup: host_pool
    ```

    ## Fix safety
    Writing the backup that runs resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:76` (`handle_pd_disaggregation`, 0.5.23)
    """
    if not _host_receive(view) or view["disaggregation_decode_retraction_backup"] == "cpu_tensor":
        return None  # cpu_tensor: SGLang stopped at line 75 (PD006)
    return {"disaggregation_decode_retraction_backup": "host_pool"}
