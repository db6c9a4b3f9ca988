"""``handle_hicache`` (``arg_groups/hicache_hook.py:18``, 0.5.23): the unified-cache external linker and the
hierarchical cache.

Runs late, after the prefill-only KV checks and before data parallelism, and only with a model (after the
``--model-path dummy`` return). Its first checks are on the linker's own settings; the MLA dedup check is the one
modelled so far (the others are listed as not yet in docs/coverage.md).
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove

STEP = "handle_hicache"
DEDUP = "--enable-linker-mla-dedup"
LINKER = "--enable-unified-cache-external-linker"
BACKEND = "--unified-cache-external-linker-backend"


@settings_rule("KV042", "linker-mla-dedup-needs-mooncake-linker", step=STEP, at="arg_groups/hicache_hook.py:43")
def linker_mla_dedup_needs_mooncake_linker(view: ResolvingView) -> Violation | None:
    """Flag MLA dedup for the unified-cache linker without the linker on the `mooncake` backend.

    ## What it does
    Checks for `--enable-linker-mla-dedup` when
    `--enable-unified-cache-external-linker` is not given, or when
    `--unified-cache-external-linker-backend` is other than `mooncake`
    (`mori`, `dynamic`).

    ## Why SGLang refuses it
    The dedup loads the KV that MLA replicates on every rank once, on rank
    0, and broadcasts it; only the Mooncake direct linker does that. SGLang
    stops with a ValueError rather than start with a setting nothing would
    read.

    ## Example
    ```yaml
    enable-unified-cache-external-linker: true
    unified-cache-external-linker-backend: mori
    enable-linker-mla-dedup: true
    ```
    Use instead:
    ```yaml
    enable-unified-cache-external-linker: true
    unified-cache-external-linker-backend: mori
    ```

    ## Fix safety
    Nothing but the Mooncake linker reads the dedup setting: removing it
    keeps what runs, safe. With the linker on, switching its backend to
    `mooncake` is offered too: another KV store, unsafe. Turning the linker
    on is not offered: it moves the KV cache to an external store.

    ## SGLang source
    `sglang/srt/arg_groups/hicache_hook.py:43` (`handle_hicache`, 0.5.23)
    """
    if not view["enable_linker_mla_dedup"]:
        return None
    if not view["enable_unified_cache_external_linker"]:
        return Violation(f"{DEDUP} needs {LINKER} with the mooncake backend; the linker is off",
                         args=("enable_linker_mla_dedup", "enable_unified_cache_external_linker"))
    backend = view["unified_cache_external_linker_backend"]
    if backend == "mooncake":
        return None
    return Violation(f"{DEDUP} works with the mooncake linker backend only, not {backend}",
                     args=("enable_linker_mla_dedup", "unified_cache_external_linker_backend"))


@linker_mla_dedup_needs_mooncake_linker.fix
def _no_dedup(view: ResolvingView) -> Fix | None:
    return remove(view, "enable_linker_mla_dedup", DEDUP, " (only the Mooncake linker reads it)", safe=True)


@linker_mla_dedup_needs_mooncake_linker.fix
def _mooncake_backend(view: ResolvingView) -> Fix | None:
    if not view["enable_unified_cache_external_linker"] or view.is_explicit("unified_cache_external_linker_config"):
        return None  # the linker off; or a config written for the other backend
    return Fix.unsafe(Set("unified_cache_external_linker_backend", "mooncake"), title=f"Set {BACKEND} to mooncake")
