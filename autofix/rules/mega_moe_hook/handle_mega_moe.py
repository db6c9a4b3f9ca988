"""``handle_mega_moe`` (``arg_groups/mega_moe_hook.py``, 0.5.23): the ``megamoe`` runner alias.

The first MoE step of the pipeline, then the MegaMoE a2a backend's
compatibility checks (``check_mega_moe_compat``): no two/single-batch
overlap (A2A002). Its GPU check (A2A003) passes on every GPU autofix knows.
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView

OVERLAPS = ("enable_two_batch_overlap", "enable_single_batch_overlap")


@derivation(step="handle_mega_moe", at="arg_groups/mega_moe_hook.py:271", via=23,
            writes=("moe_runner_backend", "moe_a2a_backend"),
            code="A2A001", name="megamoe-runner-alias",
            cause=lambda view: "the megamoe alias (--moe-a2a-backend megamoe)")
def megamoe_runner_alias(view: ResolvingView) -> dict | None:
    """`--moe-runner-backend megamoe` is an alias: the runner becomes `auto` and the a2a backend `megamoe`.

    ## What it does
    Warns at `--moe-runner-backend megamoe` (and at a `--moe-a2a-backend`
    it replaces): SGLang rewrites the pair before any other MoE step reads it.

    ## Why it matters
    The config does not say what runs: the runner is `auto`, and any a2a
    backend written next to the alias is discarded (SGLang logs a warning).

    ## Example
    ```yaml
    moe-runner-backend: megamoe
    ```
    Use instead:
    ```yaml
    moe-a2a-backend: megamoe
    ```

    ## Fix safety
    Writing `--moe-a2a-backend megamoe` and removing the runner resolves the
    launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/mega_moe_hook.py:271` (`handle_moe_runner_backend_alias`, from `handle_mega_moe`)
    """
    if view["moe_runner_backend"] != "megamoe":
        return None
    return {"moe_runner_backend": "auto", "moe_a2a_backend": "megamoe"}


@settings_rule("A2A002", "megamoe-no-batch-overlap", step="handle_mega_moe", at="arg_groups/mega_moe_hook.py:33", via=24)
def megamoe_no_batch_overlap(view: ResolvingView) -> Violation | None:
    """Flag the `megamoe` a2a backend with two-batch or single-batch overlap.

    ## What it does
    Checks for `--moe-a2a-backend megamoe` (or the `--moe-runner-backend
    megamoe` alias) with `--enable-two-batch-overlap` or
    `--enable-single-batch-overlap`. It runs first of the MoE steps: a
    `megamoe` a model override chooses later is not checked.

    ## Why SGLang refuses it
    The fused MegaMoE kernel dispatches and combines in one piece; there is
    no split for an overlap schedule to interleave. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    moe-a2a-backend: megamoe
    enable-two-batch-overlap: true
    ```
    Use instead:
    ```yaml
    moe-a2a-backend: megamoe
    ```

    ## Fix safety
    Which to keep is the user's choice. Removing the overlap flags keeps
    MegaMoE but changes the schedule; `--moe-a2a-backend deepep` keeps the
    overlap but changes the kernels and the communication path. Both are
    unsafe; the first is offered first.

    ## SGLang source
    `sglang/srt/arg_groups/mega_moe_hook.py:33` (`check_mega_moe_compat`, from `handle_mega_moe`)
    """
    if view["moe_a2a_backend"] != "megamoe":
        return None
    on = [dest for dest in OVERLAPS if view[dest]]
    if not on:
        return None
    flags = " and ".join("--" + dest.replace("_", "-") for dest in on)
    return Violation(f"--moe-a2a-backend megamoe has no batch overlap: remove {flags}, or use "
                     "--moe-a2a-backend deepep to keep it", args=(*on, "moe_a2a_backend"))


@megamoe_no_batch_overlap.fix
def _no_overlap(view: ResolvingView) -> Fix:
    on = [dest for dest in OVERLAPS if view[dest]]
    return Fix.unsafe(*(Unset(dest) for dest in on),
                      title="Remove " + " and ".join("--" + dest.replace("_", "-") for dest in on))


@megamoe_no_batch_overlap.fix
def _deepep_for_overlap(view: ResolvingView) -> Fix:
    if view.written("moe_runner_backend") == "megamoe":  # the alias would make it megamoe again
        return Fix.unsafe(Unset("moe_runner_backend"), Set("moe_a2a_backend", "deepep"),
                          title="Remove --moe-runner-backend megamoe and set --moe-a2a-backend to deepep")
    return Fix.unsafe(Set("moe_a2a_backend", "deepep"), title="Set --moe-a2a-backend to deepep")
