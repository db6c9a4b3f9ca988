"""``handle_other_validations`` (``arg_groups/serving_hook.py:496``, 0.5.23): optimistic prefill on a PD prefill node,
and what the `prefill_complete` policy needs of it."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove

STEP = "handle_other_validations"


def _optimistic_prefill(view: ResolvingView) -> bool:
    return view["optimistic_prefill_attempts"] > 0 and view["disaggregation_mode"] == "prefill"


def _pp(view: ResolvingView) -> str:
    return f"--pp-size {view['pp_size']} on a prefill node"


@derivation(step=STEP, at="arg_groups/serving_hook.py:507", writes=("optimistic_prefill_attempts",), code="PD030",
            name="pipeline-parallelism-disables-optimistic-prefill", cause=_pp)
def pipeline_parallelism_disables_optimistic_prefill(view: ResolvingView) -> dict | None:
    """Pipeline parallelism turns optimistic prefill off on a prefill node.

    ## What it does
    Warns at `--optimistic-prefill-attempts` above 0 on a prefill node with
    `--pp-size` above 1.

    ## Why it matters
    SGLang logs a warning and runs no optimistic prefill: the attempts the
    config asks for are not what runs.

    ## Example
    ```yaml
    disaggregation-mode: prefill
    pp-size: 2
    optimistic-prefill-attempts: 2
    ```
    Use instead:
    ```yaml
    disaggregation-mode: prefill
    pp-size: 2
    optimistic-prefill-attempts: 0
    ```

    ## Fix safety
    Writing the attempts that run resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/serving_hook.py:507` (`handle_other_validations`, 0.5.23)
    """
    if not _optimistic_prefill(view) or view["pp_size"] <= 1:
        return None
    return {"optimistic_prefill_attempts": 0}


def optimistic_prefill_hicache(view: ResolvingView) -> bool:
    """The HiCache modes optimistic prefill supports (serving_hook.py:516-525): none, L2 write-back or
    write-through, or L3 buffer-only write-through."""
    if not view["enable_hierarchical_cache"]:
        return True
    policy = view["hicache_write_policy"]
    if view["hicache_storage_backend"] is None:
        return policy in ("write_back", "write_through")
    return view["hicache_host_memory_mode"] == "buffer_only" and policy == "write_through"


def _hicache(view: ResolvingView) -> str:
    storage = view["hicache_storage_backend"]
    return (f"--hicache-write-policy {view['hicache_write_policy']}"
            + (f" with --hicache-storage-backend {storage}" if storage is not None else ""))


@derivation(step=STEP, at="arg_groups/serving_hook.py:527", writes=("optimistic_prefill_attempts",), code="PD031",
            name="hicache-disables-optimistic-prefill", cause=_hicache)
def hicache_disables_optimistic_prefill(view: ResolvingView) -> dict | None:
    """A HiCache mode optimistic prefill does not support turns it off on a prefill node.

    ## What it does
    Warns at `--optimistic-prefill-attempts` above 0 on a prefill node
    (`--pp-size` 1) with `--enable-hierarchical-cache` in a mode other than
    L2 `write_back`/`write_through` or L3 `buffer_only` `write_through`.

    ## Why it matters
    SGLang logs a warning and runs no optimistic prefill: the attempts the
    config asks for are not what runs.

    ## Example
    ```yaml
    disaggregation-mode: prefill
    enable-hierarchical-cache: true
    hicache-write-policy: write_through_selective
    optimistic-prefill-attempts: 2
    ```
    Use instead:
    ```yaml
    disaggregation-mode: prefill
    enable-hierarchical-cache: true
    hicache-write-policy: write_through_selective
    optimistic-prefill-attempts: 0
    ```

    ## Fix safety
    Writing the attempts that run resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/serving_hook.py:527` (`handle_other_validations`, 0.5.23)
    """
    if not _optimistic_prefill(view) or view["pp_size"] > 1 or optimistic_prefill_hicache(view):
        return None
    return {"optimistic_prefill_attempts": 0}


@settings_rule("PD013", "prefill-complete-needs-optimistic-prefill", step=STEP, at="arg_groups/serving_hook.py:538")
def prefill_complete_needs_optimistic_prefill(view: ResolvingView) -> Violation | None:
    """Flag the `prefill_complete` policy on a prefill node that runs no optimistic prefill.

    ## What it does
    Checks, on a prefill node with `--disaggregation-decode-allocation-policy
    prefill_complete`, that optimistic prefill survives: attempts above 0
    once the PD step raised 0 to 1 (PD026) and pipeline parallelism or the
    HiCache mode did not turn it off (PD030, PD031). In practice: a
    negative `--optimistic-prefill-attempts`.

    ## Why SGLang refuses it
    The policy holds the KV on the prefill node until its prefill
    finishes, which only optimistic prefill does without waiting for
    decode. SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    disaggregation-mode: prefill
    disaggregation-decode-allocation-policy: prefill_complete
    optimistic-prefill-attempts: -1
    ```
    Use instead:
    ```yaml
    disaggregation-mode: prefill
    disaggregation-decode-allocation-policy: prefill_complete
    ```

    ## Fix safety
    Removing the attempts lets SGLang run one optimistic prefill; dropping
    the policy reserves decode KV early: both change what runs, unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/serving_hook.py:538` (`handle_other_validations`, 0.5.23)
    """
    if view["disaggregation_decode_allocation_policy"] != "prefill_complete":
        return None
    if view["disaggregation_mode"] != "prefill" or view["optimistic_prefill_attempts"] > 0:
        return None
    return Violation(f"--disaggregation-decode-allocation-policy prefill_complete needs optimistic prefill, which "
                     f"runs {view['optimistic_prefill_attempts']} attempts here",
                     args=("disaggregation_decode_allocation_policy", "optimistic_prefill_attempts"))


@prefill_complete_needs_optimistic_prefill.fix
def _no_attempts(view: ResolvingView) -> Fix | None:
    if view.written("optimistic_prefill_attempts") >= 0:
        return None  # 0 becomes 1 at the PD step: something later turned it off
    return remove(view, "optimistic_prefill_attempts", "--optimistic-prefill-attempts")


@prefill_complete_needs_optimistic_prefill.fix
def _no_policy(view: ResolvingView) -> Fix | None:
    return remove(view, "disaggregation_decode_allocation_policy", "--disaggregation-decode-allocation-policy")
