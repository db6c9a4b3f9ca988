"""``handle_cache_compatibility`` (``arg_groups/kv_cache_hook.py:351``, 0.5.23): the decode retraction backup,
the radix cache that HiCache needs and the decode KV offload.

Runs late (after the speculative and encoder-disaggregation steps), on resolved values: a decode node's
retraction backup may be SGLang's `host_pool` default (PD027), and a decode node turns the radix cache off
unless its decode radix cache is on (``handle_pd_disaggregation``).
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove

STEP = "handle_cache_compatibility"
BACKUP = "--disaggregation-decode-retraction-backup"
OFFLOAD = "--disaggregation-decode-enable-offload-kvcache"


def _host_pool(view: ResolvingView) -> bool:
    return view["disaggregation_decode_retraction_backup"] == "host_pool"


@settings_rule("KV050", "host-pool-retraction-needs-decode", step=STEP, at="arg_groups/kv_cache_hook.py:357")
def host_pool_retraction_needs_decode(view: ResolvingView) -> Violation | None:
    """Flag the `host_pool` retraction backup on a server that is not a PD decode server.

    ## What it does
    Checks for `--disaggregation-decode-retraction-backup host_pool` with
    `--disaggregation-mode` other than `decode`.

    ## Why SGLang refuses it
    The backup keeps retracted requests' KV in a host pool of the decode
    server; nothing else builds that pool. SGLang stops with a ValueError.

    ## Example
    ```yaml
    disaggregation-mode: prefill
    disaggregation-decode-retraction-backup: host_pool
    ```
    Use instead:
    ```yaml
    disaggregation-mode: prefill
    ```

    ## Fix safety
    The setting does nothing off a decode server: removing it keeps what
    runs, safe.

    ## SGLang source
    `sglang/srt/arg_groups/kv_cache_hook.py:357` (`handle_cache_compatibility`, 0.5.23)
    """
    if not _host_pool(view) or view["disaggregation_mode"] == "decode":
        return None
    return Violation(f"{BACKUP} host_pool needs --disaggregation-mode decode, not {view['disaggregation_mode']}",
                     args=("disaggregation_decode_retraction_backup", "disaggregation_mode"))


@host_pool_retraction_needs_decode.fix
def _drop_off_decode(view: ResolvingView) -> Fix | None:
    return remove(view, "disaggregation_decode_retraction_backup", BACKUP, " (it applies to decode servers only)",
                  safe=True)


@settings_rule("KV051", "host-pool-retraction-without-dcp", step=STEP, at="arg_groups/kv_cache_hook.py:362")
def host_pool_retraction_without_dcp(view: ResolvingView) -> Violation | None:
    """Flag the `host_pool` retraction backup with decode context parallelism.

    ## What it does
    Checks for the `host_pool` retraction backup (written, or a decode
    server's default) with `--dcp-size` above 1.

    ## Why SGLang refuses it
    The host pool holds whole KV entries; decode CP splits them across
    ranks. SGLang stops with a ValueError.

    ## Example
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-retraction-backup: host_pool
    dcp-size: 2
    ```
    Use instead:
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-retraction-backup: cpu_tensor
    dcp-size: 2
    ```

    ## Fix safety
    The CPU-tensor backup keeps retracted KV another way; removing decode
    CP shards the KV differently: both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/kv_cache_hook.py:362` (`handle_cache_compatibility`, 0.5.23)
    """
    if not _host_pool(view) or view["dcp_size"] <= 1:
        return None
    return Violation(f"{BACKUP} host_pool does not work with --dcp-size {view['dcp_size']}",
                     args=("disaggregation_decode_retraction_backup", "dcp_size"))


@host_pool_retraction_without_dcp.fix
def _cpu_tensor(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("disaggregation_decode_retraction_backup"):
        return None  # host receive's default (PD027), which refuses the CPU-tensor backup (PD006)
    return Fix.unsafe(Set("disaggregation_decode_retraction_backup", "cpu_tensor"),
                      title=f"Set {BACKUP} to cpu_tensor")


@host_pool_retraction_without_dcp.fix
def _no_dcp(view: ResolvingView) -> Fix | None:
    return remove(view, "dcp_size", "--dcp-size", " (no decode context parallelism)")


@settings_rule("KV052", "host-pool-retraction-priority-preemption", step=STEP,
               at="arg_groups/kv_cache_hook.py:371")
def host_pool_retraction_priority_preemption(view: ResolvingView) -> Violation | None:
    """Flag the `host_pool` retraction backup with priority preemption.

    ## What it does
    Checks for the `host_pool` retraction backup (written, or a decode
    server's default) with `--enable-priority-scheduling` and without
    `--disable-priority-preemption`.

    ## Why SGLang refuses it
    Priority preemption retracts requests outside the path that backs
    them up to the host pool. SGLang stops with a ValueError.

    ## Example
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-retraction-backup: host_pool
    enable-priority-scheduling: true
    ```
    Use instead:
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-retraction-backup: host_pool
    enable-priority-scheduling: true
    disable-priority-preemption: true
    ```

    ## Fix safety
    Turning preemption off changes how urgent requests are served: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/kv_cache_hook.py:371` (`handle_cache_compatibility`, 0.5.23)
    """
    if not _host_pool(view) or not view["enable_priority_scheduling"] or view["disable_priority_preemption"]:
        return None
    return Violation(f"{BACKUP} host_pool with --enable-priority-scheduling needs --disable-priority-preemption",
                     args=("disaggregation_decode_retraction_backup", "enable_priority_scheduling",
                           "disable_priority_preemption"))


@host_pool_retraction_priority_preemption.fix
def _no_preemption(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("disable_priority_preemption", True), title="Add --disable-priority-preemption")


host_pool_retraction_priority_preemption.fix(_cpu_tensor)


@settings_rule("KV054", "hierarchical-cache-needs-radix-cache", step=STEP, at="arg_groups/kv_cache_hook.py:394")
def hierarchical_cache_needs_radix_cache(view: ResolvingView) -> Violation | None:
    """Flag HiCache with the radix cache off.

    ## What it does
    Checks for `--enable-hierarchical-cache` while the radix cache is off:
    `--disable-radix-cache`, a decode server without
    `--disaggregation-decode-enable-radix-cache`, `--enable-mis`, or
    deterministic inference on a backend without radix-cache support
    (FlashInfer: written, or SGLang's fallback on Blackwell).

    ## Why SGLang refuses it
    The hierarchical cache extends the radix tree to host memory and
    storage; without the tree there is nothing to extend. SGLang stops with
    a ValueError.

    ## Example
    ```yaml
    enable-hierarchical-cache: true
    disable-radix-cache: true
    ```
    Use instead:
    ```yaml
    disable-radix-cache: true
    ```

    ## Fix safety
    Either the hierarchical cache or the radix-cache switch goes; which
    one the deployment meant is a choice: both unsafe. Removing
    `--enable-hierarchical-cache` is offered first, as it keeps what the
    other settings turned off.

    ## SGLang source
    `sglang/srt/arg_groups/kv_cache_hook.py:394` (`handle_cache_compatibility`, 0.5.23)
    """
    if not view["enable_hierarchical_cache"] or not view["disable_radix_cache"]:
        return None
    return Violation("--enable-hierarchical-cache needs the radix cache, which "
                     + ("--disable-radix-cache turns off" if view.is_explicit("disable_radix_cache")
                        else "this launch runs without"),
                     args=("enable_hierarchical_cache", "disable_radix_cache"))


@hierarchical_cache_needs_radix_cache.fix
def _no_hicache(view: ResolvingView) -> Fix | None:
    return remove(view, "enable_hierarchical_cache", "--enable-hierarchical-cache")


@hierarchical_cache_needs_radix_cache.fix
def _radix_on(view: ResolvingView) -> Fix | None:
    return remove(view, "disable_radix_cache", "--disable-radix-cache")


@settings_rule("KV055", "decode-offload-needs-decode", step=STEP, at="arg_groups/kv_cache_hook.py:401")
def decode_offload_needs_decode(view: ResolvingView) -> Violation | None:
    """Flag decode KV offload on a server that is not a PD decode server.

    ## What it does
    Checks for `--disaggregation-decode-enable-offload-kvcache` with
    `--disaggregation-mode` other than `decode`.

    ## Why SGLang refuses it
    The offload writes a decode server's finished KV to HiCache storage.
    SGLang stops with a ValueError on any other server.

    ## Example
    ```yaml
    disaggregation-mode: prefill
    disaggregation-decode-enable-offload-kvcache: true
    ```
    Use instead:
    ```yaml
    disaggregation-mode: prefill
    ```

    ## Fix safety
    The flag does nothing off a decode server: removing it keeps what runs,
    safe.

    ## SGLang source
    `sglang/srt/arg_groups/kv_cache_hook.py:401` (`handle_cache_compatibility`, 0.5.23)
    """
    if not view["disaggregation_decode_enable_offload_kvcache"] or view["disaggregation_mode"] == "decode":
        return None
    return Violation(f"{OFFLOAD} needs --disaggregation-mode decode, not {view['disaggregation_mode']}",
                     args=("disaggregation_decode_enable_offload_kvcache", "disaggregation_mode"))


@decode_offload_needs_decode.fix
def _drop_offload_off_decode(view: ResolvingView) -> Fix | None:
    return remove(view, "disaggregation_decode_enable_offload_kvcache", OFFLOAD, " (it applies to decode servers "
                  "only)", safe=True)


def _decode_offload(view: ResolvingView) -> bool:
    """Decode KV offload on a decode server: KV058 and KV059 check what it needs."""
    return view["disaggregation_decode_enable_offload_kvcache"] and view["disaggregation_mode"] == "decode"


def _no_offload(view: ResolvingView) -> Fix | None:
    return remove(view, "disaggregation_decode_enable_offload_kvcache", OFFLOAD)


@settings_rule("KV058", "decode-offload-needs-storage-backend", step=STEP, at="arg_groups/kv_cache_hook.py:405")
def decode_offload_needs_storage_backend(view: ResolvingView) -> Violation | None:
    """Flag decode KV offload without a HiCache storage backend.

    ## What it does
    Checks a decode server with
    `--disaggregation-decode-enable-offload-kvcache` for a missing
    `--hicache-storage-backend`.

    ## Why SGLang refuses it
    The offloaded KV goes to the storage backend; without one there is
    nowhere to write it. SGLang stops with a ValueError.

    ## Example
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-enable-offload-kvcache: true
    ```
    Use instead:
    ```yaml
    disaggregation-mode: decode
    ```

    ## Fix safety
    Removing the offload stops writing decode KV to storage; which backend
    to add is the deployment's: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/kv_cache_hook.py:405` (`handle_cache_compatibility`, 0.5.23)
    """
    if not _decode_offload(view) or view["hicache_storage_backend"] is not None:
        return None
    return Violation(f"{OFFLOAD} needs --hicache-storage-backend",
                     args=("disaggregation_decode_enable_offload_kvcache", "hicache_storage_backend"))


decode_offload_needs_storage_backend.fix(_no_offload)


@settings_rule("KV059", "decode-offload-or-host-pool-retraction", step=STEP, at="arg_groups/kv_cache_hook.py:409")
def decode_offload_or_host_pool_retraction(view: ResolvingView) -> Violation | None:
    """Flag decode KV offload with the `host_pool` retraction backup.

    ## What it does
    Checks a decode server with
    `--disaggregation-decode-enable-offload-kvcache` and a storage backend
    for the `host_pool` retraction backup (written, or the decode server's
    default).

    ## Why SGLang refuses it
    Both build a host pool on the decode server, and there is one. SGLang
    stops with a ValueError.

    ## Example
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-enable-offload-kvcache: true
    hicache-storage-backend: file
    disaggregation-decode-retraction-backup: host_pool
    ```
    Use instead:
    ```yaml
    disaggregation-mode: decode
    disaggregation-decode-enable-offload-kvcache: true
    hicache-storage-backend: file
    disaggregation-decode-retraction-backup: cpu_tensor
    ```

    ## Fix safety
    Another backup, or no offload, changes what the decode server keeps:
    unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/kv_cache_hook.py:409` (`handle_cache_compatibility`, 0.5.23)
    """
    if not _decode_offload(view) or view["hicache_storage_backend"] is None or not _host_pool(view):
        return None
    return Violation(f"{OFFLOAD} and {BACKUP} host_pool both build the decode host pool: keep one",
                     args=("disaggregation_decode_enable_offload_kvcache", "disaggregation_decode_retraction_backup"))


decode_offload_or_host_pool_retraction.fix(_cpu_tensor)
decode_offload_or_host_pool_retraction.fix(_no_offload)
