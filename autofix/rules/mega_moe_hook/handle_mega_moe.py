"""``handle_mega_moe`` (``arg_groups/mega_moe_hook.py``, 0.5.23): the ``megamoe`` runner alias.

The first MoE step of the pipeline. Its compatibility checks (TBO/SBO,
the GPU) are not modelled yet.
"""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView


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

