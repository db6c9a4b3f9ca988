"""``handle_pd_disaggregation``: the `prefill_complete` decode allocation policy (pd_disaggregation_hook.py:47-55, and
``_validate_prefill_complete``, called at line 48)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.pd_disaggregation_hook.handle_pd_disaggregation.common import PD_ROLES, STEP


def _prefill_complete(view: ResolvingView) -> bool:
    return view["disaggregation_decode_allocation_policy"] == "prefill_complete"


def _unsupported(view: ResolvingView) -> list[str]:
    """What `prefill_complete` does not support here, in SGLang's order; the environment last (read only when
    nothing the flags decide is in the way)."""
    mode = view["disaggregation_mode"]
    hicache = view["enable_hierarchical_cache"]
    found = []
    if mode not in PD_ROLES:
        found.append("aggregated serving (--disaggregation-mode null)")
    if view["disaggregation_transfer_backend"] != "mooncake":
        found.append(f"--disaggregation-transfer-backend {view['disaggregation_transfer_backend']}")
    if view["pp_size"] != 1 or view["attn_cp_size"] != 1 or view["dcp_size"] != 1:
        found.append("pipeline or attention context parallelism")
    # SGLang compares --tp-size with the deprecated --enable-dp-attention's --dp-size, which DP001 has already
    # moved to --attn-dp-size: any --tp-size above 1 is refused (the flag matters only while --dp-size is not 1)
    tp, dp = view["tp_size"], view["dp_size"]
    if tp != (1 if dp == 1 or not view["enable_dp_attention"] else dp):
        found.append(f"attention tensor parallelism (--tp-size {view['tp_size']})")
    if view["enable_pdmux"] or view["decoupled_spec_role"] != "null":
        found.append("PD multiplexing or decoupled speculation")
    if view["enable_pd_role_switch"]:
        found.append("--enable-pd-role-switch")
    if view["encoder_only"] or view["language_only"]:
        found.append("encoder disaggregation")
    if view["enable_hisparse"]:
        found.append("--enable-hisparse")
    if view["disaggregation_decode_host_receive_threshold"] < 1:
        found.append("decode host receive")
    if mode == "decode" and (view["disaggregation_decode_enable_radix_cache"] or hicache):
        found.append("a decode radix cache or HiCache")
    if mode == "prefill" and hicache and (view["hicache_storage_backend"] is not None
                                          or view["hicache_write_policy"] != "write_back"):
        found.append("prefill HiCache other than L2 write_back")
    if not found:
        if view.fact("env.SGLANG_DISAGG_STAGING_BUFFER"):
            found.append("SGLANG_DISAGG_STAGING_BUFFER")
        if view.fact("env.SGLANG_RUST_SERVER"):
            found.append("SGLANG_RUST_SERVER")
    return found


@settings_rule("PD011", "prefill-complete-limits", step=STEP, at="arg_groups/pd_disaggregation_hook.py:239", via=48)
def prefill_complete_limits(view: ResolvingView) -> Violation | None:
    """Flag the `prefill_complete` decode allocation policy with a feature it does not support yet.

    ## What it does
    Checks, with `--disaggregation-decode-allocation-policy
    prefill_complete`, for any of: no PD role, a transfer backend other
    than Mooncake, pipeline or attention/decode context parallelism,
    `--tp-size` above 1, PD multiplexing or decoupled speculation, PD role
    switching, encoder disaggregation, HiSparse, decode host receive, a
    decode radix cache or HiCache, prefill HiCache other than L2
    `write_back`, and the environment variables `SGLANG_DISAGG_STAGING_BUFFER`
    and `SGLANG_RUST_SERVER` (read only when no flag is in the way).

    ## Why SGLang refuses it
    The policy keeps the KV on the prefill node until its prefill ends;
    so far only the plain Mooncake path implements that. SGLang's
    attention-TP test reads the deprecated `--enable-dp-attention` (after
    its `--dp-size` moved to `--attn-dp-size`), so any `--tp-size` above 1
    is refused, attention DP or not. SGLang raises a ValueError listing
    them while resolving its arguments.

    ## Example
    ```yaml
    disaggregation-mode: prefill
    disaggregation-decode-allocation-policy: prefill_complete
    tp-size: 8
    ```
    Use instead:
    ```yaml
    disaggregation-mode: prefill
    tp-size: 8
    ```

    ## Fix safety
    Dropping the policy goes back to reserving decode KV early, which
    changes how the decode node admits requests: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:239` (`_validate_prefill_complete`, called at
    `arg_groups/pd_disaggregation_hook.py:48`)
    """
    if not _prefill_complete(view):
        return None
    found = _unsupported(view)
    if not found:
        return None
    return Violation("--disaggregation-decode-allocation-policy prefill_complete does not support "
                     + ", ".join(found), args=("disaggregation_decode_allocation_policy", "disaggregation_mode"))


@prefill_complete_limits.fix
def _no_policy(view: ResolvingView) -> Fix | None:
    return remove(view, "disaggregation_decode_allocation_policy", "--disaggregation-decode-allocation-policy")


def _policy(view: ResolvingView) -> str:
    return "--disaggregation-decode-allocation-policy prefill_complete on a prefill node"


@derivation(step=STEP, at="arg_groups/pd_disaggregation_hook.py:53", writes=("optimistic_prefill_attempts",),
            code="PD026", name="prefill-complete-sets-optimistic-prefill", cause=_policy)
def prefill_complete_sets_optimistic_prefill(view: ResolvingView) -> dict | None:
    """`prefill_complete` on a prefill node makes `--optimistic-prefill-attempts 0` one attempt.

    ## What it does
    Warns at `--optimistic-prefill-attempts 0` on a prefill node with
    `--disaggregation-decode-allocation-policy prefill_complete`.

    ## Why it matters
    The policy needs optimistic prefill: SGLang raises the attempts to 1
    and starts, so the config's 0 is not what runs.

    ## Example
    ```yaml
    disaggregation-mode: prefill
    disaggregation-decode-allocation-policy: prefill_complete
    optimistic-prefill-attempts: 0
    ```
    Use instead:
    ```yaml
    disaggregation-mode: prefill
    disaggregation-decode-allocation-policy: prefill_complete
    optimistic-prefill-attempts: 1
    ```

    ## Fix safety
    Writing the attempts that run resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/pd_disaggregation_hook.py:53` (`handle_pd_disaggregation`, 0.5.23)
    """
    if not _prefill_complete(view) or view["disaggregation_mode"] != "prefill":
        return None
    if view["optimistic_prefill_attempts"] != 0:
        return None
    return {"optimistic_prefill_attempts": 1}
