"""``handle_pd_disaggregation``: what each PD role does with the radix cache and the transfer backend
(pd_disaggregation_hook.py:98-148)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.pd_disaggregation_hook.handle_pd_disaggregation.common import STEP

RADIX = "--disaggregation-decode-enable-radix-cache"


def _decode_radix(view: ResolvingView) -> bool:
    return view["disaggregation_mode"] == "decode" and view["disaggregation_decode_enable_radix_cache"]


def _no_decode_radix(view: ResolvingView) -> Fix | None:
    return remove(view, "disaggregation_decode_enable_radix_cache", RADIX)


@settings_rule("PD007", "decode-radix-cache-without-hisparse", step=STEP, at="arg_groups/pd_disaggregation_hook.py:101")
def decode_radix_cache_without_hisparse(view: ResolvingView) -> Violation | None:
    """Flag a decode radix cache with HiSparse.

    ## What it does
    Checks, on a decode node (`--disaggregation-mode decode`), for
    `--disaggregation-decode-enable-radix-cache` with `--enable-hisparse`.

    ## Why SGLang refuses it
    HiSparse keeps most of the KV in host memory and cannot share prefix
    pages with a radix tree on decode. SGLang raises a ValueError while
    resolving its arguments.

    ## Example
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-enable-radix-cache: true
    enable-hisparse: true
    ```
    Use instead:
    ```yaml
    disaggregation-mode: decode
    enable-hisparse: true
    ```

    ## Fix safety
    Dropping the decode radix cache or HiSparse changes what runs: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:101` (`handle_pd_disaggregation`, 0.5.23)
    """
    if not _decode_radix(view) or not view["enable_hisparse"]:
        return None
    return Violation(f"{RADIX} does not work with --enable-hisparse",
                     args=("disaggregation_decode_enable_radix_cache", "enable_hisparse"))


decode_radix_cache_without_hisparse.fix(_no_decode_radix)


@decode_radix_cache_without_hisparse.fix
def _no_hisparse(view: ResolvingView) -> Fix | None:
    return remove(view, "enable_hisparse", "--enable-hisparse")


@settings_rule("PD008", "decode-radix-cache-without-fake-transfer", step=STEP,
               at="arg_groups/pd_disaggregation_hook.py:106")
def decode_radix_cache_without_fake_transfer(view: ResolvingView) -> Violation | None:
    """Flag a decode radix cache with the `fake` transfer backend.

    ## What it does
    Checks, on a decode node, for `--disaggregation-decode-enable-radix-cache`
    with `--disaggregation-transfer-backend fake`.

    ## Why SGLang refuses it
    The fake backend moves no KV (it exists for synthetic decode
    benchmarks), so there is nothing a radix cache could reuse. SGLang
    raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    disaggregation-mode: decode
    disaggregation-transfer-backend: fake
    disaggregation-decode-enable-radix-cache: true
    ```
    Use instead:
    ```yaml
    disaggregation-mode: decode
    disaggregation-transfer-backend: fake
    ```

    ## Fix safety
    Dropping the radix cache, or moving real KV with Mooncake, changes what
    runs: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:106` (`handle_pd_disaggregation`, 0.5.23)
    """
    if not _decode_radix(view) or view["disaggregation_transfer_backend"] != "fake":
        return None
    return Violation(f"{RADIX} does not work with --disaggregation-transfer-backend fake",
                     args=("disaggregation_decode_enable_radix_cache", "disaggregation_transfer_backend"))


decode_radix_cache_without_fake_transfer.fix(_no_decode_radix)


def _mooncake(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("disaggregation_transfer_backend", "mooncake"),
                      title="Set --disaggregation-transfer-backend to mooncake")


decode_radix_cache_without_fake_transfer.fix(_mooncake)


def _radix_flag(view: ResolvingView) -> str:
    return f"{RADIX} on a decode node"


@derivation(step=STEP, at="arg_groups/pd_disaggregation_hook.py:115", writes=("disable_radix_cache",),
            code="PD028", name="decode-radix-cache-overrides-disable-radix-cache", cause=_radix_flag)
def decode_radix_cache_overrides_disable_radix_cache(view: ResolvingView) -> dict | None:
    """A decode radix cache turns the radix cache on, whatever `--disable-radix-cache` says.

    ## What it does
    Warns at `--disable-radix-cache` on a decode node that also sets
    `--disaggregation-decode-enable-radix-cache`.

    ## Why it matters
    SGLang enables the radix cache (and logs it as experimental); the
    config's `--disable-radix-cache` is not what runs.

    ## Example
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-enable-radix-cache: true
    disable-radix-cache: true
    ```
    Use instead:
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-enable-radix-cache: true
    ```

    ## Fix safety
    Removing the ignored flag resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:115` (`handle_pd_disaggregation`, 0.5.23)
    """
    if not _decode_radix(view):
        return None
    return {"disable_radix_cache": False}


@derivation(step=STEP, at="arg_groups/pd_disaggregation_hook.py:122", writes=("disable_radix_cache",))
def decode_disables_radix_cache(view: ResolvingView) -> dict | None:
    """A decode node runs without a radix cache unless `--disaggregation-decode-enable-radix-cache` is set.

    `--disable-radix-cache` is a store-true flag (a config's `false` writes
    nothing), so this replaces nothing the user set: no override.
    """
    if view["disaggregation_mode"] != "decode" or view["disaggregation_decode_enable_radix_cache"]:
        return None
    return {"disable_radix_cache": True}


@settings_rule("PD009", "prefill-without-fake-transfer", step=STEP, at="arg_groups/pd_disaggregation_hook.py:146")
def prefill_without_fake_transfer(view: ResolvingView) -> Violation | None:
    """Flag a prefill node with the `fake` transfer backend.

    ## What it does
    Checks for `--disaggregation-mode prefill` with
    `--disaggregation-transfer-backend fake`.

    ## Why SGLang refuses it
    The fake backend only stands in for the prefill side of a synthetic
    decode benchmark; a prefill node must send its KV. SGLang stops on an
    assert while resolving its arguments.

    ## Example
    ```yaml
    disaggregation-mode: prefill
    disaggregation-transfer-backend: fake
    ```
    Use instead:
    ```yaml
    disaggregation-mode: prefill
    ```

    ## Fix safety
    Moving real KV with Mooncake (the default backend) changes what runs:
    unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:146` (`handle_pd_disaggregation`, 0.5.23)
    """
    if view["disaggregation_mode"] != "prefill" or view["disaggregation_transfer_backend"] != "fake":
        return None
    return Violation("a prefill node (--disaggregation-mode prefill) cannot use --disaggregation-transfer-backend fake",
                     args=("disaggregation_transfer_backend", "disaggregation_mode"))


@prefill_without_fake_transfer.fix
def _default_backend(view: ResolvingView) -> Fix | None:
    return remove(view, "disaggregation_transfer_backend", "--disaggregation-transfer-backend (Mooncake, the default)")
