"""``validate_experimental_sgl_marlin`` (``arg_groups/validation_hook.py``, 0.5.23): the start-up policy of the experimental Marlin runner.

The step runs ``validate_experimental_sgl_marlin_server_args`` of
``sglang/srt/lora/marlin_lora_temp/policy.py`` (from
``validation_hook.py:575``) when the resolved MoE runner is
``experimental_sgl_marlin``: the start-up policy of that runner.
"""  # noqa: E501

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView

MARLIN = "experimental_sgl_marlin"
STEP = "validate_experimental_sgl_marlin"
POLICY = "lora/marlin_lora_temp/policy.py"
CALL = 575  # validation_hook.py: the call into the policy


def _lora_enabled(view: ResolvingView) -> bool:
    """LoRA is on when asked for, or implied by adapter paths (policy.py:27)."""
    enable = view["enable_lora"]
    return bool(enable) or (enable is None and bool(view["lora_paths"]))


@settings_rule("RUN019", "marlin-ep-needs-no-a2a", step=STEP, at=f"{POLICY}:23", via=CALL)
def marlin_ep_needs_no_a2a(view: ResolvingView) -> Violation | None:
    """Flag the experimental Marlin MoE runner with expert parallelism over an a2a backend.

    ## What it does
    Checks for `--moe-runner-backend experimental_sgl_marlin` when `ep_size`
    resolves above 1 and the a2a backend is not `none`. EP-spanning backends
    such as `deepep` set `ep_size` to `tp_size`, so `--tp 8
    --moe-a2a-backend deepep` has `ep_size` 8.

    ## Why SGLang refuses it
    The runner implements expert parallelism only for the all-reduce path
    (every rank sees every token); it has no dispatch/combine over an a2a
    backend. SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    moe-runner-backend: experimental_sgl_marlin
    moe-a2a-backend: deepep
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-runner-backend: experimental_sgl_marlin
    moe-a2a-backend: none
    ep-size: 8
    ```

    ## Fix safety
    The fix sets the a2a backend to `none` and pins `--ep-size` to the value
    the backend implied, so the runner and the expert-parallel layout stay as
    written; it changes the communication backend (and drops
    `--enable-waterfill`, which would force `deepep` again): unsafe.
    Dropping the runner instead is also unsafe and offered second.

    ## SGLang source
    `sglang/srt/lora/marlin_lora_temp/policy.py:23` (0.5.23)
    """
    if view["moe_runner_backend"] != MARLIN:
        return None
    ep_size, a2a = view["ep_size"], view["moe_a2a_backend"]
    if ep_size <= 1 or a2a == "none":
        return None
    return Violation(
        f"--moe-runner-backend {MARLIN} with expert parallelism (ep_size {ep_size}) needs "
        f"--moe-a2a-backend none, not {a2a}",
        args=("moe_runner_backend", "moe_a2a_backend", "ep_size"),
    )


@marlin_ep_needs_no_a2a.fix
def _no_a2a_keep_ep_size(view: ResolvingView) -> Fix:
    ep_size = view["ep_size"]
    ops: list = [Set("moe_a2a_backend", "none")]
    if view["enable_waterfill"]:
        ops.append(Unset("enable_waterfill"))
    if view.written("ep_size") != ep_size:
        ops.append(Set("ep_size", ep_size))
    return Fix.unsafe(*ops, title=f"Set --moe-a2a-backend to none and keep ep_size {ep_size}")


@marlin_ep_needs_no_a2a.fix
def _no_marlin(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("moe_runner_backend"), title="Remove --moe-runner-backend")


@settings_rule("RUN020", "marlin-lora-needs-virtual-experts", step=STEP, at=f"{POLICY}:34", via=CALL)
def marlin_lora_needs_virtual_experts(view: ResolvingView) -> Violation | None:
    """Flag Marlin MoE LoRA without virtual experts.

    ## What it does
    Checks for `--moe-runner-backend experimental_sgl_marlin` with LoRA on
    (`--enable-lora`, or `--lora-paths` without `--enable-lora`) and without
    `--lora-use-virtual-experts`.

    ## Why SGLang refuses it
    The runner applies MoE LoRA only through virtual experts. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    moe-runner-backend: experimental_sgl_marlin
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    lora-backend: triton
    ```
    Use instead (with the Triton LoRA backend that RUN021 asks for):
    ```yaml
    moe-runner-backend: experimental_sgl_marlin
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    lora-use-virtual-experts: true
    lora-backend: triton
    ```

    ## Fix safety
    Adding `--lora-use-virtual-experts` keeps every value the user wrote and
    is the only mode this runner has: safe.

    ## SGLang source
    `sglang/srt/lora/marlin_lora_temp/policy.py:34` (0.5.23)
    """
    if view["moe_runner_backend"] != MARLIN or not _lora_enabled(view):
        return None
    if view["lora_use_virtual_experts"]:
        return None
    return Violation(
        f"LoRA with --moe-runner-backend {MARLIN} needs --lora-use-virtual-experts",
        args=("moe_runner_backend", "enable_lora", "lora_paths"),
    )


@marlin_lora_needs_virtual_experts.fix
def _virtual_experts(view: ResolvingView) -> Fix:
    return Fix.safe(Set("lora_use_virtual_experts", True), title="Add --lora-use-virtual-experts")


@settings_rule("RUN021", "marlin-lora-needs-triton-backend", step=STEP, at=f"{POLICY}:40", via=CALL)
def marlin_lora_needs_triton_backend(view: ResolvingView) -> Violation | None:
    """Flag Marlin MoE LoRA with a LoRA backend other than Triton.

    ## What it does
    Checks for `--moe-runner-backend experimental_sgl_marlin` with LoRA on
    and `--lora-backend` other than `triton` (the default, `csgmv`, counts).

    ## Why SGLang refuses it
    The runner's LoRA kernels read the Triton LoRA backend's batch metadata
    directly; no other backend is wired to it. SGLang raises a ValueError
    while resolving its arguments.

    ## Example
    ```yaml
    moe-runner-backend: experimental_sgl_marlin
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    lora-use-virtual-experts: true
    ```
    Use instead:
    ```yaml
    moe-runner-backend: experimental_sgl_marlin
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    lora-use-virtual-experts: true
    lora-backend: triton
    ```

    ## Fix safety
    Setting `--lora-backend triton` is safe when the backend was left at its
    default, and unsafe when it overrides a backend the user chose.

    ## SGLang source
    `sglang/srt/lora/marlin_lora_temp/policy.py:40` (0.5.23)
    """
    if view["moe_runner_backend"] != MARLIN or not _lora_enabled(view):
        return None
    backend = view["lora_backend"]
    if backend == "triton":
        return None
    return Violation(
        f"LoRA with --moe-runner-backend {MARLIN} needs --lora-backend triton, not {backend}",
        args=("lora_backend", "moe_runner_backend", "enable_lora"),
    )


@marlin_lora_needs_triton_backend.fix
def _triton(view: ResolvingView) -> Fix:
    op = Set("lora_backend", "triton")
    title = "Set --lora-backend to triton"
    return Fix.unsafe(op, title=title) if view.is_explicit("lora_backend") else Fix.safe(op, title=title)


# Expert-placement settings the runner cannot combine with LoRA over EP, with
# the value that means "trivial placement" (policy.py:44-50).
_PLACEMENT = (
    ("init_expert_location", lambda v: v != "trivial"),
    ("ep_num_redundant_experts", lambda v: v != 0),
    ("enable_eplb", bool),
    ("elastic_ep_backend", lambda v: v is not None),  # even the string "none"
    ("enable_elastic_expert_backup", bool),
)


@settings_rule("RUN022", "marlin-lora-ep-needs-trivial-placement", step=STEP, at=f"{POLICY}:51", via=CALL)
def marlin_lora_ep_needs_trivial_placement(view: ResolvingView) -> Violation | None:
    """Flag Marlin MoE LoRA over expert parallelism with non-trivial expert placement.

    ## What it does
    Checks for `--moe-runner-backend experimental_sgl_marlin` with LoRA on,
    `ep_size` above 1, and any of `--init-expert-location` other than
    `trivial`, `--ep-num-redundant-experts` above 0, `--enable-eplb`,
    `--elastic-ep-backend` (any value, `none` included: SGLang stores the
    string) or `--enable-elastic-expert-backup`.

    ## Why SGLang refuses it
    LoRA on this runner maps each logical expert to one fixed physical
    expert; redundancy, rebalancing and elastic EP move experts around.
    SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    ep-size: 8
    moe-runner-backend: experimental_sgl_marlin
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    lora-use-virtual-experts: true
    lora-backend: triton
    enable-eplb: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ep-size: 8
    moe-runner-backend: experimental_sgl_marlin
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    lora-use-virtual-experts: true
    lora-backend: triton
    ```

    ## Fix safety
    Removing the placement settings drops features the user asked for: unsafe.
    Removing `--elastic-ep-backend` also removes `--elastic-ep-join-mode`,
    which SGLang refuses without a backend.

    ## SGLang source
    `sglang/srt/lora/marlin_lora_temp/policy.py:51` (0.5.23)
    """
    if view["moe_runner_backend"] != MARLIN or not _lora_enabled(view):
        return None
    if view["ep_size"] <= 1:
        return None
    offending = _offending(view)
    if not offending:
        return None
    flags = ", ".join(view.schema[d].flag for d in offending)
    return Violation(
        f"LoRA with --moe-runner-backend {MARLIN} over expert parallelism needs trivial expert "
        f"placement; remove {flags}",
        args=offending,
    )


def _offending(view: ResolvingView) -> tuple[str, ...]:
    return tuple(dest for dest, non_trivial in _PLACEMENT if non_trivial(view[dest]))


@marlin_lora_ep_needs_trivial_placement.fix
def _trivial_placement(view: ResolvingView) -> Fix:
    offending = _offending(view)
    ops = [Unset(d) for d in offending]
    if "elastic_ep_backend" in offending and view.is_explicit("ep_join_mode"):
        ops.append(Unset("ep_join_mode"))  # a join mode needs a backend (parallel_hook.py:547)
    return Fix.unsafe(*ops, title=f"Remove {', '.join(view.schema[d].flag for d in offending)}")

