"""``validate_deepep_v2_speculative_draft`` (``arg_groups/moe_hook.py:624``, 0.5.23): DeepEP v2 is no draft a2a backend."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView


def _inherits(view: ResolvingView) -> bool:
    """The draft takes the target's a2a backend: none written, and a speculative algorithm other than NGRAM."""
    algorithm = view["speculative_algorithm"]
    return view["speculative_moe_a2a_backend"] is None and bool(algorithm) and algorithm.upper() != "NGRAM"


@settings_rule("A2A052", "deepep-v2-not-a-draft-backend", step="validate_deepep_v2_speculative_draft",
               at="arg_groups/moe_hook.py:635")
def deepep_v2_not_a_draft_backend(view: ResolvingView) -> Violation | None:
    """Flag DeepEP v2 as the speculative draft's a2a backend, written or inherited from the target.

    ## What it does
    Checks for `--speculative-moe-a2a-backend deepep_v2` (with or without
    speculative decoding), and for a target `--moe-a2a-backend deepep_v2`
    with a speculative algorithm other than `NGRAM` and no draft backend
    written: the draft inherits the target's.

    ## Why SGLang refuses it
    DeepEP v2 has not been validated for draft models. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep
    speculative-algorithm: EAGLE
    speculative-moe-a2a-backend: deepep_v2
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep
    speculative-algorithm: EAGLE
    speculative-moe-a2a-backend: none
    ```

    ## Fix safety
    When the draft inherits `deepep_v2`, writing `--speculative-moe-a2a-backend
    none` keeps every value the user wrote: safe. A written `deepep_v2`
    draft backend is replaced by `none`: unsafe, safe only without
    speculative decoding (no draft runs). Giving the target `deepep` (the
    draft inherits it) changes the target's kernels: unsafe, offered
    second.

    ## SGLang source
    `sglang/srt/arg_groups/moe_hook.py:635` (`validate_deepep_v2_speculative_draft`, 0.5.23)
    """
    if view["speculative_moe_a2a_backend"] == "deepep_v2":
        return Violation("--speculative-moe-a2a-backend deepep_v2: DeepEP v2 is not validated for the draft model",
                         args=("speculative_moe_a2a_backend",))
    if _inherits(view) and view["moe_a2a_backend"] == "deepep_v2":
        return Violation(f"the draft of --speculative-algorithm {view['speculative_algorithm']} inherits "
                         "--moe-a2a-backend deepep_v2, which is not validated for the draft model: give it "
                         "--speculative-moe-a2a-backend", args=("moe_a2a_backend", "speculative_algorithm"))
    return None


@deepep_v2_not_a_draft_backend.fix
def _draft_none(view: ResolvingView) -> Fix:
    op = Set("speculative_moe_a2a_backend", "none")
    if _inherits(view) or not view["speculative_algorithm"]:
        return Fix.safe(op, title="Set --speculative-moe-a2a-backend to none")
    return Fix.unsafe(op, title="Set --speculative-moe-a2a-backend to none")


@deepep_v2_not_a_draft_backend.fix
def _target_deepep(view: ResolvingView) -> Fix | None:
    if view["moe_a2a_backend"] != "deepep_v2":
        return None
    return Fix.unsafe(Set("moe_a2a_backend", "deepep"), title="Set --moe-a2a-backend to deepep")
