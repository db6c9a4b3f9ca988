"""``check_server_args``: LoRA with speculative decoding (``check_lora_speculative_compatibility``,
``arg_groups/lora_hook.py:240``, called at ``arg_groups/lora_hook.py:73`` in ``check_lora_server_args``).

The speculative values are SGLang's after ``handle_speculative_decoding``: the algorithm upper case, ``NEXTN`` named
``EAGLE``, ``--speculative-adaptive`` turned off where it cannot run, the draft MoE runner inherited.
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.validation_hook.check_server_args.lora import CALL, LORA, SPEC_CALL, STEP

LORA_SPEC_ALGORITHMS = ("EAGLE", "EAGLE3", "DFLASH", "DSPARK")

# ---------------------------------------------------------------------------------------------- speculative decoding


@settings_rule("LORA022", "lora-speculative-algorithm", step=STEP, at=f"{LORA}:260", via=CALL, calls=(SPEC_CALL,))
def lora_speculative_algorithm(view: ResolvingView) -> Violation | None:
    """Flag LoRA with a speculative algorithm other than NGRAM, EAGLE/NEXTN, EAGLE3, DFLASH or DSPARK.

    ## What it does
    Checks for LoRA on (`--enable-lora`, or `--lora-paths`) with the
    speculative algorithm SGLang resolved being `STANDALONE`, `UNO`,
    `FROZEN_KV_MTP` (EAGLE/NEXTN with a Gemma4 assistant draft) or a
    registered plugin's.

    ## Why SGLang refuses it
    Adapters apply to the target only, and the LoRA batch layout assumes the
    uniform verify width of the listed algorithms. SGLang stops with `LoRA is
    only compatible with ...` when the Engine starts.

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --lora-paths a=/loras/a --speculative-algorithm STANDALONE --speculative-draft-model-path d
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path m --lora-paths a=/loras/a --speculative-draft-model-path d
    ```

    ## Fix safety
    Removing `--speculative-algorithm` keeps the adapters and gives up
    speculation; turning LoRA off keeps speculation and gives up the
    adapters. Both change what runs: unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:260` (`check_lora_speculative_compatibility`, run at
    `arg_groups/lora_hook.py:73` in `check_lora_server_args`, run at `arg_groups/validation_hook.py:222`)
    """  # noqa: E501
    if not view["enable_lora"]:
        return None
    algorithm = view["speculative_algorithm"]
    if algorithm in (None, "NGRAM") or algorithm in LORA_SPEC_ALGORITHMS:
        return None
    return Violation(f"LoRA works with speculative algorithms NGRAM, EAGLE/NEXTN, EAGLE3, DFLASH and DSPARK, "
                     f"not {algorithm}", args=("speculative_algorithm", "enable_lora", "lora_paths"))


@lora_speculative_algorithm.fix
def _no_speculation(view: ResolvingView) -> Fix | None:
    return remove(view, "speculative_algorithm", "--speculative-algorithm", " (no speculative decoding)")


@lora_speculative_algorithm.fix
def _no_lora(view: ResolvingView) -> Fix | None:
    ops = [Unset(d) for d in ("enable_lora", "lora_paths") if view.is_explicit(d)]
    return Fix.unsafe(*ops, title="Turn LoRA off (remove --enable-lora and --lora-paths)") if ops else None


def lora_speculative_feature(view: ResolvingView) -> str | None:
    """What LoRA cannot combine with under EAGLE/EAGLE3/DFLASH/DSPARK (``lora_hook.py:270``), flags first."""
    if view["speculative_adaptive"]:
        return "--speculative-adaptive"
    for dest in ("moe_runner_backend", "speculative_moe_runner_backend"):
        if view[dest] == "experimental_sgl_trtllm":
            return f"--{dest.replace('_', '-')} experimental_sgl_trtllm"
    if view["speculative_algorithm"] == "DSPARK" and view.fact("env.SGLANG_RAGGED_VERIFY_MODE") != "static":
        return f"SGLANG_RAGGED_VERIFY_MODE={view.fact('env.SGLANG_RAGGED_VERIFY_MODE')}"
    if view.fact("env.SGLANG_ENABLE_OVERLAP_PLAN_STREAM"):
        return "SGLANG_ENABLE_OVERLAP_PLAN_STREAM=1"
    return None


@settings_rule("LORA023", "lora-speculative-unsupported-feature", step=STEP, at=f"{LORA}:299", via=CALL,
               calls=(SPEC_CALL,))
def lora_speculative_unsupported_feature(view: ResolvingView) -> Violation | None:
    """Flag LoRA with EAGLE-style speculation and a feature that breaks the adapters' batch layout.

    ## What it does
    Checks for LoRA on with the speculative algorithm `EAGLE` (or `NEXTN`),
    `EAGLE3`, `DFLASH` or `DSPARK`, and `--speculative-adaptive` (as SGLang
    keeps it: it turns adaptive off for DFLASH, DSPARK, top-k above 1,
    attention DP, ...), the `experimental_sgl_trtllm` MoE runner (target or
    draft), `SGLANG_ENABLE_OVERLAP_PLAN_STREAM=1`, or, with DSPARK,
    `SGLANG_RAGGED_VERIFY_MODE` other than `static`.

    ## Why SGLang refuses it
    Each one changes the per-request verify width or reads the LoRA state
    at a time the draft cannot see it. SGLang stops with `LoRA with
    EAGLE/NEXTN/EAGLE3 speculative decoding does not support ...` when the
    Engine starts.

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --lora-paths a=/loras/a --speculative-algorithm EAGLE --speculative-adaptive
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path m --lora-paths a=/loras/a --speculative-algorithm EAGLE
    ```

    ## Fix safety
    Removing `--speculative-adaptive`, or the `experimental_sgl_trtllm`
    runner, changes how speculation or the MoE runs: unsafe. An environment
    variable has no fix here; removing `--speculative-algorithm` is the
    last, unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:299` (`check_lora_speculative_compatibility`, run at
    `arg_groups/lora_hook.py:73` in `check_lora_server_args`, run at `arg_groups/validation_hook.py:222`)
    """
    if not view["enable_lora"] or view["speculative_algorithm"] not in LORA_SPEC_ALGORITHMS:
        return None
    feature = lora_speculative_feature(view)
    if feature is None:
        return None
    return Violation(f"LoRA with --speculative-algorithm {view['speculative_algorithm']} does not support {feature}",
                     args=("speculative_adaptive", "moe_runner_backend", "speculative_moe_runner_backend",
                           "speculative_algorithm", "enable_lora", "lora_paths"))


@lora_speculative_unsupported_feature.fix
def _no_adaptive(view: ResolvingView) -> Fix | None:
    if not view["speculative_adaptive"]:
        return None
    return remove(view, "speculative_adaptive", "--speculative-adaptive")


@lora_speculative_unsupported_feature.fix
def _no_trtllm_runner(view: ResolvingView) -> Fix | None:
    ops = [Unset(d) for d in ("moe_runner_backend", "speculative_moe_runner_backend")
           if view.is_explicit(d) and view[d] == "experimental_sgl_trtllm"]
    return Fix.unsafe(*ops, title="Remove the experimental_sgl_trtllm MoE runner (auto)") if ops else None


lora_speculative_unsupported_feature.fix(_no_speculation)


