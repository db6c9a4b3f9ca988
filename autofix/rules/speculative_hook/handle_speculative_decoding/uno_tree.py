"""``_handle_uno``'s tree mode (``arg_groups/speculative_hook.py:494-546``, top-k above 1): the steps and the tree's
geometry (Q verify nodes, F = steps + 1, K = top-k); the features the tree mode lacks (:548-558) are in
``uno_tree_features``."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.speculative_hook.handle_speculative_decoding.uno import STEP, VIA, top_k, verify_width

MAX_VERIFY = 128  # Q
MAX_FRONTIER = 2048  # Q * K


def _tree_mode(view: ResolvingView) -> tuple[int, int] | None:
    """(Q, K) once UNO reached its tree mode (:494): the first checks passed and the top-k is above 1."""
    q = verify_width(view)
    if q is None:
        return None
    k = top_k(view)
    return (q, k) if k > 1 else None


def _geometry(view: ResolvingView) -> tuple[int, int, int] | None:
    """(Q, K, steps) once the tree mode has its steps (:504): they are set and positive."""
    found = _tree_mode(view)
    if found is None:
        return None
    steps = view["speculative_num_steps"]
    if steps is None or steps < 1:
        return None
    return (*found, steps)


def capacity(steps: int, k: int, q: int) -> int:
    """The nodes a tree of ``steps`` levels under the root holds with ``k`` children each, counted as SGLang does
    (:525-530: it stops counting once it reaches ``q``)."""
    total = nodes = 1
    for _ in range(steps):
        nodes *= k
        total += nodes
        if total >= q:
            break
    return total


def parent_width(steps: int, k: int) -> int:
    """K * (F - 2) + 1: the verify nodes past the root EAGLE's parent list can name (:536)."""
    return k * max(steps - 1, 0) + 1


def largest_width(steps: int, k: int) -> int | None:
    """The largest Q the tree mode accepts with these steps and top-k, or None when even Q = F is refused."""
    full = capacity(steps, k, 1 << 62)
    q = min(MAX_VERIFY, MAX_FRONTIER // k, full, parent_width(steps, k) + 1)
    return q if q >= steps + 1 else None


def _width_fix(q: int, steps: int, k: int) -> Fix | None:
    best = largest_width(steps, k)
    if best is None or best >= q:
        return None
    return Fix.unsafe(Set("speculative_num_draft_tokens", best), title=f"Set --speculative-num-draft-tokens to {best}")


def _linear(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("speculative_eagle_topk"), title="Remove --speculative-eagle-topk (UNO's linear mode)")


def _steps_for_width(view: ResolvingView) -> Fix | None:
    """F = Q: the steps the verify width allows (Q - 1), when that is at least one step."""
    found = _tree_mode(view)
    if found is None or found[0] < 2:
        return None
    steps = found[0] - 1
    return Fix.unsafe(Set("speculative_num_steps", steps), title=f"Set --speculative-num-steps to {steps}")


@settings_rule("SPEC038", "uno-tree-needs-num-steps", step=STEP, at="arg_groups/speculative_hook.py:496", via=VIA)
def uno_tree_needs_num_steps(view: ResolvingView) -> Violation | None:
    """Flag UNO's tree mode without `--speculative-num-steps`.

    ## What it does
    Checks for `--speculative-algorithm UNO` with `--speculative-eagle-topk`
    above 1 (tree mode) and no `--speculative-num-steps`.

    ## Why SGLang refuses it
    The tree's draft width F is the steps plus one; UNO does not choose the
    steps for the tree mode. SGLang stops with a ValueError while resolving
    its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-eagle-topk: 2
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-eagle-topk: 2
    speculative-num-steps: 3
    ```

    ## Fix safety
    The steps are a tuning choice: writing Q - 1 (F = Q) is unsafe, and so
    is falling back to the linear mode.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:496` (`_handle_uno`, called at :284, 0.5.23)
    """
    found = _tree_mode(view)
    if found is None or view["speculative_num_steps"] is not None:
        return None
    return Violation(f"UNO's tree mode (--speculative-eagle-topk {found[1]}) needs --speculative-num-steps",
                     args=("speculative_eagle_topk", "speculative_algorithm"))


uno_tree_needs_num_steps.fix(_steps_for_width)
uno_tree_needs_num_steps.fix(_linear)


@settings_rule("SPEC110", "uno-tree-num-steps-positive", step=STEP, at="arg_groups/speculative_hook.py:502", via=VIA)
def uno_tree_num_steps_positive(view: ResolvingView) -> Violation | None:
    """Flag UNO's tree mode with `--speculative-num-steps` below 1.

    ## What it does
    Checks for `--speculative-algorithm UNO` with `--speculative-eagle-topk`
    above 1 (tree mode) and `--speculative-num-steps` 0 or negative.

    ## Why SGLang refuses it
    A tree of no draft steps has nothing to verify. SGLang stops with a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-eagle-topk: 2
    speculative-num-steps: 0
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-eagle-topk: 2
    speculative-num-steps: 3
    ```

    ## Fix safety
    The steps are a tuning choice: writing Q - 1 (F = Q) is unsafe, and so
    is falling back to the linear mode.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:502` (`_handle_uno`, called at :284, 0.5.23)
    """
    found = _tree_mode(view)
    if found is None:
        return None
    steps = view["speculative_num_steps"]
    if steps is None or steps >= 1:
        return None
    return Violation(f"UNO's tree mode needs --speculative-num-steps of 1 or more, not {steps}",
                     args=("speculative_num_steps", "speculative_eagle_topk"))


uno_tree_num_steps_positive.fix(_steps_for_width)
uno_tree_num_steps_positive.fix(_linear)


def _width_message(what: str, q: int, k: int, steps: int) -> str:
    return f"UNO's tree mode (Q {q} draft tokens, F {steps + 1} = steps + 1, K {k} top-k) {what}"


@settings_rule("SPEC039", "uno-tree-width-below-draft-width", step=STEP, at="arg_groups/speculative_hook.py:509",
               via=VIA)
def uno_tree_width_below_draft_width(view: ResolvingView) -> Violation | None:
    """Flag UNO's tree mode with fewer draft tokens than draft steps plus one.

    ## What it does
    Checks for UNO's tree mode (`--speculative-eagle-topk` above 1) with
    `--speculative-num-draft-tokens` (Q) below `--speculative-num-steps`
    plus one (F).

    ## Why SGLang refuses it
    Every draft step adds a level to the tree, and each level needs a verify
    node: Q must be at least F. SGLang stops with a ValueError while
    resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 3
    speculative-eagle-topk: 2
    speculative-num-steps: 3
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-eagle-topk: 2
    speculative-num-steps: 3
    ```

    ## Fix safety
    Raising Q to F verifies more tokens, fewer steps draft fewer: both
    change the speculation, unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:509` (`_handle_uno`, called at :284, 0.5.23)
    """
    found = _geometry(view)
    if found is None:
        return None
    q, k, steps = found
    if q >= steps + 1:
        return None
    return Violation(_width_message("needs Q >= F", q, k, steps),
                     args=("speculative_num_draft_tokens", "speculative_num_steps"))


@uno_tree_width_below_draft_width.fix
def _width_is_draft_width(view: ResolvingView) -> Fix | None:
    found = _geometry(view)
    if found is None:
        return None
    q, k, steps = found
    return Fix.unsafe(Set("speculative_num_draft_tokens", steps + 1),
                      title=f"Set --speculative-num-draft-tokens to {steps + 1}")


uno_tree_width_below_draft_width.fix(_steps_for_width)


def _past_draft_width(view: ResolvingView) -> tuple[int, int, int] | None:
    found = _geometry(view)
    return found if found is not None and found[0] >= found[2] + 1 else None


@settings_rule("SPEC111", "uno-tree-max-verify-width", step=STEP, at="arg_groups/speculative_hook.py:513", via=VIA)
def uno_tree_max_verify_width(view: ResolvingView) -> Violation | None:
    """Flag UNO's tree mode with more than 128 draft tokens.

    ## What it does
    Checks for UNO's tree mode (`--speculative-eagle-topk` above 1) with
    `--speculative-num-draft-tokens` (Q) above 128.

    ## Why SGLang refuses it
    UNO's tree kernels hold at most 128 verify nodes. SGLang stops with a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 200
    speculative-eagle-topk: 4
    speculative-num-steps: 80
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 128
    speculative-eagle-topk: 4
    speculative-num-steps: 80
    ```

    ## Fix safety
    Fewer verify nodes, or the linear mode, change the speculation: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:513` (`_handle_uno`, called at :284, 0.5.23)
    """
    found = _past_draft_width(view)
    if found is None or found[0] <= MAX_VERIFY:
        return None
    return Violation(_width_message(f"holds at most {MAX_VERIFY} verify nodes", *found),
                     args=("speculative_num_draft_tokens", "speculative_eagle_topk"))


@uno_tree_max_verify_width.fix
def _largest_width(view: ResolvingView) -> Fix | None:
    found = _geometry(view)
    return None if found is None else _width_fix(found[0], found[2], found[1])


uno_tree_max_verify_width.fix(_linear)


def _past_max_verify(view: ResolvingView) -> tuple[int, int, int] | None:
    found = _past_draft_width(view)
    return found if found is not None and found[0] <= MAX_VERIFY else None


@settings_rule("SPEC112", "uno-tree-frontier-slots", step=STEP, at="arg_groups/speculative_hook.py:519", via=VIA)
def uno_tree_frontier_slots(view: ResolvingView) -> Violation | None:
    """Flag UNO's tree mode whose draft tokens times top-k exceed 2048.

    ## What it does
    Checks for UNO's tree mode with `--speculative-num-draft-tokens` (Q)
    times `--speculative-eagle-topk` (K) above 2048.

    ## Why SGLang refuses it
    The tree's frontier has Q * K candidate slots, and UNO's kernels hold
    at most 2048. SGLang stops with a ValueError while resolving its
    arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 100
    speculative-eagle-topk: 32
    speculative-num-steps: 10
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 64
    speculative-eagle-topk: 32
    speculative-num-steps: 10
    ```

    ## Fix safety
    Fewer verify nodes, or the linear mode, change the speculation: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:519` (`_handle_uno`, called at :284, 0.5.23)
    """
    found = _past_max_verify(view)
    if found is None or found[0] * found[1] <= MAX_FRONTIER:
        return None
    q, k, steps = found
    return Violation(_width_message(f"needs Q * K ({q * k}) of at most {MAX_FRONTIER}", q, k, steps),
                     args=("speculative_num_draft_tokens", "speculative_eagle_topk"))


uno_tree_frontier_slots.fix(_largest_width)
uno_tree_frontier_slots.fix(_linear)


def _past_frontier(view: ResolvingView) -> tuple[int, int, int] | None:
    found = _past_max_verify(view)
    return found if found is not None and found[0] * found[1] <= MAX_FRONTIER else None


@settings_rule("SPEC113", "uno-tree-capacity", step=STEP, at="arg_groups/speculative_hook.py:532", via=VIA)
def uno_tree_capacity(view: ResolvingView) -> Violation | None:
    """Flag UNO's tree mode with more draft tokens than its tree holds.

    ## What it does
    Checks for UNO's tree mode with `--speculative-num-draft-tokens` (Q)
    above the nodes of a tree `--speculative-num-steps` deep with
    `--speculative-eagle-topk` (K) children per node (1 + K + K^2 + ...).

    ## Why SGLang refuses it
    The verify nodes are the draft tree's nodes; there cannot be more of
    them than the tree has. SGLang stops with a ValueError while resolving
    its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 4
    speculative-eagle-topk: 2
    speculative-num-steps: 1
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 2
    speculative-eagle-topk: 2
    speculative-num-steps: 1
    ```

    ## Fix safety
    Fewer verify nodes, or the linear mode, change the speculation: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:532` (`_handle_uno`, called at :284, 0.5.23)
    """
    found = _past_frontier(view)
    if found is None:
        return None
    q, k, steps = found
    held = capacity(steps, k, q)
    if q <= held:
        return None
    return Violation(_width_message(f"holds at most {held} nodes", q, k, steps),
                     args=("speculative_num_draft_tokens", "speculative_num_steps"))


uno_tree_capacity.fix(_largest_width)
uno_tree_capacity.fix(_linear)


@settings_rule("SPEC114", "uno-tree-parent-list", step=STEP, at="arg_groups/speculative_hook.py:540", via=VIA)
def uno_tree_parent_list(view: ResolvingView) -> Violation | None:
    """Flag UNO's tree mode with more draft tokens than EAGLE's parent list can name.

    ## What it does
    Checks for UNO's tree mode with `--speculative-num-draft-tokens` (Q)
    minus one above K * (F - 2) + 1, where K is `--speculative-eagle-topk`
    and F `--speculative-num-steps` plus one.

    ## Why SGLang refuses it
    UNO reuses EAGLE's tree verification, whose parent list names at most
    K * (F - 2) + 1 nodes past the root. SGLang stops with a ValueError
    while resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 8
    speculative-eagle-topk: 2
    speculative-num-steps: 3
    ```
    Use instead:
    ```yaml
    speculative-algorithm: UNO
    uno-lora-path: /models/uno-lora
    speculative-num-draft-tokens: 6
    speculative-eagle-topk: 2
    speculative-num-steps: 3
    ```

    ## Fix safety
    Fewer verify nodes, or the linear mode, change the speculation: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:540` (`_handle_uno`, called at :284, 0.5.23)
    """
    found = _past_frontier(view)
    if found is None:
        return None
    q, k, steps = found
    if q > capacity(steps, k, q) or q - 1 <= parent_width(steps, k):
        return None
    return Violation(_width_message(f"names at most K * (F - 2) + 1 = {parent_width(steps, k)} nodes past the "
                                    f"root, not Q - 1 = {q - 1}", q, k, steps),
                     args=("speculative_num_draft_tokens", "speculative_num_steps"))


uno_tree_parent_list.fix(_largest_width)
uno_tree_parent_list.fix(_linear)


def _tree_ok(view: ResolvingView) -> bool:
    """The tree mode passed its geometry checks (:509-545)."""
    found = _past_frontier(view)
    if found is None:
        return False
    q, k, steps = found
    return q <= capacity(steps, k, q) and q - 1 <= parent_width(steps, k)
