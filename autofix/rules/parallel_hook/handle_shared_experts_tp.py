"""``handle_shared_experts_tp`` (``arg_groups/parallel_hook.py:203``, 0.5.23): Kimi-K3's shared-experts TP size.

The settings decide its first check: the size must divide the attention TP
size (RUN015). The model's architecture decides the next (Kimi-K3 only,
RUN017); the later ones need Kimi-K3's config (an EP a2a backend), and the
instance-connector one never runs (that connector fails earlier).
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView


def _attn_tp_size(view: ResolvingView) -> int:
    """What is left of the TP group after attention DP and attention CP (``derive_attn_tp_size``)."""
    return view["tp_size"] // view["attn_dp_size"] // view["attn_cp_size"]


@settings_rule("RUN015", "shared-experts-tp-size-divides-attn-tp", step="handle_shared_experts_tp",
               at="arg_groups/parallel_hook.py:216")
def shared_experts_tp_size_divides_attn_tp(view: ResolvingView) -> Violation | None:
    """Flag a `--shared-experts-tp-size` that is not a positive divisor of the attention TP size.

    ## What it does
    Checks `--shared-experts-tp-size` against the attention TP size,
    `tp_size // attn_dp_size // attn_cp_size`: it must be at least 1 and
    divide it.

    ## Why SGLang refuses it
    The shared experts are sharded over groups of attention-TP ranks (1
    replicates them on every rank); a size that does not divide the group
    leaves ranks over. SGLang raises a ValueError while resolving its
    arguments.

    ## Example (no model config)
    ```yaml
    tp-size: 8
    attn-dp-size: 4
    shared-experts-tp-size: 4
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 4
    shared-experts-tp-size: 2
    ```

    ## Fix safety
    The largest divisor of the attention TP size not above the one written
    keeps the sharding nearest the user's: it changes the layout, unsafe.
    Removing the flag (shared experts sharded as the other layers) is
    unsafe too, offered second. The flag is for Kimi-K3 only: SGLang
    refuses it with any other model, whatever its value.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:216` (`handle_shared_experts_tp`, 0.5.23)
    """
    size = view["shared_experts_tp_size"]
    if size is None or view["attn_dp_size"] < 1 or view["attn_cp_size"] == 0:
        # attn_dp_size < 1 is refused before this step (DP002, parallel_hook.py:286); attn_cp_size 0 makes
        # SGLang itself divide by zero here (runtime_context.py:76). A negative one divides as Python does.
        return None
    attn_tp_size = _attn_tp_size(view)
    if size >= 1 and attn_tp_size % size == 0:
        return None
    return Violation(f"--shared-experts-tp-size {size} must be a positive divisor of the attention TP size "
                     f"({attn_tp_size})", args=("shared_experts_tp_size", "tp_size", "attn_dp_size"))


@shared_experts_tp_size_divides_attn_tp.fix
def _nearest_divisor(view: ResolvingView) -> Fix | None:
    size, attn_tp_size = view["shared_experts_tp_size"], _attn_tp_size(view)
    if size < 1 or attn_tp_size < 1:
        return None
    best = max(d for d in range(1, min(size, attn_tp_size) + 1) if attn_tp_size % d == 0)
    return Fix.unsafe(Set("shared_experts_tp_size", best),
                      title=f"Set --shared-experts-tp-size to {best} (divides the attention TP size {attn_tp_size})")


@shared_experts_tp_size_divides_attn_tp.fix
def _no_shared_experts_tp_size(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("shared_experts_tp_size"), title="Remove --shared-experts-tp-size")


@settings_rule("RUN017", "shared-experts-tp-size-needs-kimi-k3", step="handle_shared_experts_tp",
               at="arg_groups/parallel_hook.py:226")
def shared_experts_tp_size_needs_kimi_k3(view: ResolvingView) -> Violation | None:
    """Flag `--shared-experts-tp-size` for a model other than Kimi-K3.

    ## What it does
    Checks, when `--shared-experts-tp-size` is set and divides the
    attention TP size (RUN015), that the model's architecture is
    `KimiK3ForConditionalGeneration`. Needs the model's config
    (`model.architecture`): silent without it.

    ## Why SGLang refuses it
    Only Kimi-K3's layers shard their shared experts over their own TP
    group. SGLang raises a ValueError while resolving its arguments.

    ## Example (a DeepSeek-V3 model)
    ```yaml
    tp-size: 8
    shared-experts-tp-size: 4
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ```

    ## Fix safety
    Removing the setting changes nothing that runs (no other model reads
    it), but it is the user's layout: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:226` (`handle_shared_experts_tp`, 0.5.23)
    """
    size = view["shared_experts_tp_size"]
    if size is None or view["attn_dp_size"] < 1 or view["attn_cp_size"] == 0:
        return None
    attn_tp_size = _attn_tp_size(view)
    if size < 1 or attn_tp_size % size != 0:
        return None  # RUN015 refuses it first
    if not view.fact("model.given") or view.fact("model.architecture") == "KimiK3ForConditionalGeneration":
        return None
    return Violation(f"--shared-experts-tp-size is for Kimi-K3 only, not {view.fact('model.architecture')}",
                     args=("shared_experts_tp_size",))


shared_experts_tp_size_needs_kimi_k3.fix(_no_shared_experts_tp_size)
