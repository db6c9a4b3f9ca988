"""``_handle_dspark`` (speculative_hook.py:720-860, called through ``algo.handle_server_args`` at 284): DSpark's
draft model (written, bundled in the target checkpoint, or its ``dspark/`` subfolder), steps and top-k forced to 1,
gamma and the verify window (``speculative_num_draft_tokens`` = gamma + 1).

Model facts, unknown unless given: ``model.bundles_dspark_draft`` (the target's
config carries ``dspark_*`` keys), ``model.dspark_draft_subfolder`` (the path
of the target checkpoint's ``dspark/`` draft, or None) and
``model.draft_dspark_gamma`` (the draft model config's gamma, None when it has
none or cannot be read).
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.speculative_hook.handle_speculative_decoding.common import (
    DISPATCH,
    STEP,
    no_speculation,
    remove,
)

DEFAULT_GAMMA = 7  # DEFAULT_DSPARK_GAMMA (speculative/dspark_components/dspark_config.py)


def _dspark(view: ResolvingView) -> bool:
    return view["speculative_algorithm"] == "DSPARK"


@derivation(step=STEP, at="arg_groups/speculative_hook.py:722", via=DISPATCH,
            writes=("speculative_draft_model_path", "speculative_draft_model_revision"))
def dspark_bundled_draft(view: ResolvingView) -> dict | None:
    """DSpark without a draft path, on a target that bundles its draft (`model.bundles_dspark_draft`): the target."""
    if not _dspark(view) or view["speculative_draft_model_path"] is not None:
        return None
    if not view.fact("model.bundles_dspark_draft"):
        return None
    return {"speculative_draft_model_path": view["model_path"], "speculative_draft_model_revision": view["revision"]}


@derivation(step=STEP, at="arg_groups/speculative_hook.py:740", via=DISPATCH,
            writes=("speculative_draft_model_path",))
def dspark_draft_subfolder(view: ResolvingView) -> dict | None:
    """DSpark without a draft path: the target checkpoint's `dspark/` draft (`model.dspark_draft_subfolder`)."""
    if not _dspark(view) or view["speculative_draft_model_path"] is not None:
        return None
    subfolder = view.fact("model.dspark_draft_subfolder")
    return None if subfolder is None else {"speculative_draft_model_path": subfolder}


@settings_rule("SPEC056", "dspark-needs-draft-model", step=STEP, at="arg_groups/speculative_hook.py:752",
               via=DISPATCH)
def dspark_needs_draft_model(view: ResolvingView) -> Violation | None:
    """Flag DSpark without a draft model.

    ## What it does
    Checks for `--speculative-algorithm DSPARK` without
    `--speculative-draft-model-path` on a target checkpoint that neither
    bundles a DSpark draft nor ships one in a `dspark/` subfolder (the
    model's config: decided when it is given).

    ## Why SGLang refuses it
    DSpark drafts with a separate draft head; SGLang looks for one in the
    target checkpoint and raises a ValueError while resolving its arguments
    when there is none.

    ## Example
    ```yaml
    speculative-algorithm: DSPARK
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```

    ## Fix safety
    Which draft model fits the target cannot be read from the flags: the
    only fix offered drops speculative decoding, unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:752` (`_handle_dspark`, called at line 284, 0.5.23)
    """
    if not _dspark(view) or view["speculative_draft_model_path"] is not None:
        return None
    return Violation("DSpark needs --speculative-draft-model-path: the target checkpoint carries no DSpark draft",
                     args=("speculative_algorithm",))


dspark_needs_draft_model.fix(no_speculation)


def _dspark_rewrite_cause(view: ResolvingView) -> str:
    return "--speculative-algorithm DSPARK"


@derivation(step=STEP, at="arg_groups/speculative_hook.py:768", via=DISPATCH,
            writes=("speculative_num_steps",), code="SPEC091", name="dspark-overrides-num-steps",
            cause=_dspark_rewrite_cause)
def dspark_overrides_num_steps(view: ResolvingView) -> dict | None:
    """DSpark runs one draft step: `--speculative-num-steps` is 1, whatever was written.

    ## What it does
    Warns at a `--speculative-num-steps` other than 1 with
    `--speculative-algorithm DSPARK` (unset, it is set to 1 silently).

    ## Why it matters
    DSpark drafts its whole block (gamma tokens) in one step; SGLang only
    logs that it replaces the value.

    ## Example
    ```yaml
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    speculative-num-steps: 3
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```

    ## Fix safety
    Removing the ignored setting resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:768` (`_handle_dspark`, called at line 284; unset: line 758, 0.5.23)
    """
    if not _dspark(view) or view["speculative_num_steps"] == 1:
        return None
    return {"speculative_num_steps": 1}


@derivation(step=STEP, at="arg_groups/speculative_hook.py:785", via=DISPATCH,
            writes=("speculative_eagle_topk",), code="SPEC101", name="dspark-overrides-eagle-topk",
            cause=_dspark_rewrite_cause)
def dspark_overrides_eagle_topk(view: ResolvingView) -> dict | None:
    """DSpark drafts one token per position: `--speculative-eagle-topk` is 1, whatever was written.

    ## What it does
    Warns at a `--speculative-eagle-topk` other than 1 with
    `--speculative-algorithm DSPARK` (unset, it is set to 1 silently).

    ## Why it matters
    DSpark drafts a linear block, not a tree; SGLang only logs that it
    replaces the value.

    ## Example
    ```yaml
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    speculative-eagle-topk: 4
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```

    ## Fix safety
    Removing the ignored setting resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:785` (`_handle_dspark`, called at line 284; unset: line 775, 0.5.23)
    """
    if not _dspark(view) or view["speculative_eagle_topk"] == 1:
        return None
    return {"speculative_eagle_topk": 1}


@settings_rule("SPEC102", "dspark-block-size-positive", step=STEP, at="arg_groups/speculative_hook.py:809",
               via=DISPATCH)
def dspark_block_size_positive(view: ResolvingView) -> Violation | None:
    """Flag a DSpark block size (gamma) below 1.

    ## What it does
    Checks for `--speculative-algorithm DSPARK` with
    `--speculative-dspark-block-size` 0 or negative.

    ## Why SGLang refuses it
    The block size is gamma, the tokens the draft proposes per step.
    SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    speculative-dspark-block-size: 0
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```

    ## Fix safety
    Removing the block size lets SGLang take the draft model's gamma (or
    7): unsafe, the user meant some size.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:809` (`_handle_dspark`, called at line 284, 0.5.23)
    """
    size = view["speculative_dspark_block_size"] if _dspark(view) else None
    if size is None or size > 0:
        return None
    return Violation(f"--speculative-dspark-block-size must be positive, not {size}",
                     args=("speculative_dspark_block_size", "speculative_algorithm"))


dspark_block_size_positive.fix(lambda view: remove(view, "speculative_dspark_block_size",
                                                   "--speculative-dspark-block-size", " (the draft model's gamma)"))


def _gamma(view: ResolvingView) -> int | None:
    """Gamma, as SGLang resolves it with draft tokens written: the block size, else the draft model's."""
    size = view["speculative_dspark_block_size"]
    if size is not None:
        return size if size > 0 else None  # below 1: SPEC102
    return view.fact("model.draft_dspark_gamma")


@settings_rule("SPEC058", "dspark-draft-tokens-are-gamma-plus-one", step=STEP,
               at="arg_groups/speculative_hook.py:830", via=DISPATCH)
def dspark_draft_tokens_are_gamma_plus_one(view: ResolvingView) -> Violation | None:
    """Flag DSpark draft tokens other than gamma + 1.

    ## What it does
    Checks for `--speculative-algorithm DSPARK` with a
    `--speculative-num-draft-tokens` other than gamma + 1, gamma being
    `--speculative-dspark-block-size`, else the draft model's own (its
    config: decided when it is given).

    ## Why SGLang refuses it
    DSpark verifies the gamma drafted tokens plus the one the target
    samples: the verify window is gamma + 1. SGLang raises a ValueError
    while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    speculative-dspark-block-size: 3
    speculative-num-draft-tokens: 8
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    speculative-dspark-block-size: 3
    ```

    ## Fix safety
    With the block size written, removing `--speculative-num-draft-tokens`
    keeps it and the window follows: safe (unsafe when gamma is the draft
    model's). Setting the block size to the draft tokens less one is unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:830` (`_handle_dspark`, called at line 284, 0.5.23)
    """
    tokens = view["speculative_num_draft_tokens"] if _dspark(view) else None
    if tokens is None:
        return None
    gamma = _gamma(view)
    if gamma is None or tokens == gamma + 1:
        return None
    return Violation(f"DSpark needs --speculative-num-draft-tokens gamma + 1 = {gamma + 1} (gamma {gamma}), "
                     f"not {tokens}",
                     args=("speculative_num_draft_tokens", "speculative_dspark_block_size", "speculative_algorithm"))


@dspark_draft_tokens_are_gamma_plus_one.fix
def _drop_dspark_draft_tokens(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("speculative_num_draft_tokens"):
        return None
    title = "Remove --speculative-num-draft-tokens (gamma + 1)"
    if view["speculative_dspark_block_size"] is not None:
        return Fix.safe(Unset("speculative_num_draft_tokens"), title=title)
    return Fix.unsafe(Unset("speculative_num_draft_tokens"), title=title)


@dspark_draft_tokens_are_gamma_plus_one.fix
def _gamma_from_draft_tokens(view: ResolvingView) -> Fix | None:
    tokens = view["speculative_num_draft_tokens"]
    if tokens < 2:
        return None
    return Fix.unsafe(Set("speculative_dspark_block_size", tokens - 1),
                      title=f"Set --speculative-dspark-block-size to {tokens - 1}")


@derivation(step=STEP, at="arg_groups/speculative_hook.py:835", via=DISPATCH,
            writes=("speculative_num_draft_tokens",))
def dspark_draft_tokens(view: ResolvingView) -> dict | None:
    """DSpark's verify window: gamma + 1 (gamma: the block size, else the draft model's, else 7 without draft tokens).

    With draft tokens written and no block size, SGLang keeps them or refuses
    them (SPEC058): the draft model's gamma is then not read.
    """
    if not _dspark(view):
        return None
    size = view["speculative_dspark_block_size"]
    if size is not None:
        return {"speculative_num_draft_tokens": size + 1} if size > 0 else None
    if view["speculative_num_draft_tokens"] is not None:
        return None
    gamma = view.fact("model.draft_dspark_gamma")
    return {"speculative_num_draft_tokens": (DEFAULT_GAMMA if gamma is None else gamma) + 1}


@settings_rule("SPEC059", "dspark-draft-tokens-at-least-two", step=STEP, at="arg_groups/speculative_hook.py:847",
               via=DISPATCH)
def dspark_draft_tokens_at_least_two(view: ResolvingView) -> Violation | None:
    """Flag DSpark draft tokens below 2.

    ## What it does
    Checks for `--speculative-algorithm DSPARK` with
    `--speculative-num-draft-tokens` below 2 (no block size written).

    ## Why SGLang refuses it
    The verify window is gamma + 1 with gamma at least 1. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    speculative-num-draft-tokens: 1
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    speculative-num-draft-tokens: 2
    ```

    ## Fix safety
    Setting 2 (gamma 1, the smallest window) changes the value written:
    unsafe. Removing it (the draft model's gamma, or 7) is unsafe too, and
    offered only when the draft model's config is known.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:847` (`_handle_dspark`, called at line 284, 0.5.23)
    """
    tokens = view["speculative_num_draft_tokens"] if _dspark(view) else None
    if tokens is None or tokens >= 2:
        return None
    return Violation(f"DSpark needs --speculative-num-draft-tokens of at least 2 (gamma + 1), not {tokens}",
                     args=("speculative_num_draft_tokens", "speculative_algorithm"))


@dspark_draft_tokens_at_least_two.fix
def _two_draft_tokens(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("speculative_num_draft_tokens", 2), title="Set --speculative-num-draft-tokens to 2")


@dspark_draft_tokens_at_least_two.fix
def _draft_models_tokens(view: ResolvingView) -> Fix | None:
    """Remove the count: SGLang then takes the draft model's gamma + 1 (7 + 1 when its config gives none). The
    draft model's config is read (`model.draft_dspark_gamma`), so without it there is no such fix: the window it
    gives is unknown (a gamma below 1 would be refused again)."""
    if view["speculative_dspark_block_size"] is None:
        gamma = view.fact("model.draft_dspark_gamma")
        if gamma is not None and gamma < 1:
            return None
    return remove(view, "speculative_num_draft_tokens", "--speculative-num-draft-tokens")


@derivation(step=STEP, at="arg_groups/speculative_hook.py:853", via=DISPATCH,
            writes=("max_running_requests",))
def dspark_max_running_requests(view: ResolvingView) -> dict | None:
    """DSpark without `--max-running-requests`: 48."""
    if not _dspark(view) or view["max_running_requests"] is not None:
        return None
    return {"max_running_requests": 48}
