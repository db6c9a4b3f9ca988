"""``check_server_args``: the LoRA MoE runners (``check_lora_moe_runner_args``, ``arg_groups/lora_hook.py:183``,
called at ``arg_groups/lora_hook.py:180`` in ``check_lora_server_args``).

SGLang stops at the first of these checks that fails; each rule checks its own condition, for a `lora_*` runner.
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Op, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.validation_hook.check_server_args.lora import (
    CALL,
    LORA,
    RUNNER_CALL,
    RUNNER_V2_MODES,
    STEP,
    drop_modes,
    lora_runner,
    runner,
    v2_mode,
)

# ---------------------------------------------------------------------------------------------- LoRA MoE runners


@settings_rule("LORA014", "lora-draft-moe-runner", step=STEP, at=f"{LORA}:192", via=CALL, calls=(RUNNER_CALL,))
def lora_draft_moe_runner(view: ResolvingView) -> Violation | None:
    """Flag a `lora_*` MoE runner for the speculative draft model.

    ## What it does
    Checks for a speculative algorithm with `--speculative-moe-runner-backend`
    `lora_triton`, `lora_cutedsl` or `lora_marlin`, with or without LoRA. (A
    draft runner left unset inherits the target's, and a `lora_*` one
    becomes `auto`.)

    ## Why SGLang refuses it
    Draft models carry no adapters. SGLang stops with `is not supported: the
    LoRA MoE runner serves adapter traffic on the target model` when the
    Engine starts.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-moe-runner-backend: lora_triton
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    ```

    ## Fix safety
    Removing the setting lets the draft take the target's runner (`auto`
    for a `lora_*` one): a choice SGLang makes, unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:192` (`check_lora_moe_runner_args`, run at
    `arg_groups/lora_hook.py:180` in `check_lora_server_args`, run at `arg_groups/validation_hook.py:222`)
    """
    draft = view["speculative_moe_runner_backend"]
    if view["speculative_algorithm"] is None or draft is None or not str(draft).startswith("lora"):
        return None
    return Violation(f"--speculative-moe-runner-backend {draft} is a LoRA runner; the draft model has no adapters",
                     args=("speculative_moe_runner_backend",))


@lora_draft_moe_runner.fix
def _inherit_draft_runner(view: ResolvingView) -> Fix | None:
    return remove(view, "speculative_moe_runner_backend", "--speculative-moe-runner-backend", " (inherit)")


def _auto_runner(view: ResolvingView) -> Fix | None:
    """The default MoE runner (and LoRA backend, when `triton_v2` would then meet LORA002's modes)."""
    if not view.is_explicit("moe_runner_backend"):
        return None
    ops = [Unset("moe_runner_backend")]
    if view.is_explicit("lora_backend") and view["lora_backend"] == "triton_v2":
        ops.append(Unset("lora_backend"))
    return Fix.unsafe(*ops, title=f"Remove --moe-runner-backend {runner(view)} (auto)")


@settings_rule("LORA015", "lora-moe-runner-needs-lora", step=STEP, at=f"{LORA}:201", via=CALL, calls=(RUNNER_CALL,))
def lora_moe_runner_needs_lora(view: ResolvingView) -> Violation | None:
    """Flag a `lora_*` MoE runner without LoRA.

    ## What it does
    Checks for `--moe-runner-backend` `lora_triton`, `lora_cutedsl` or
    `lora_marlin` with neither `--enable-lora` nor `--lora-paths`.

    ## Why SGLang refuses it
    These runners exist to apply adapters to the experts. SGLang stops with
    `requires --enable-lora (or --lora-paths)` when the Engine starts.

    ## Example
    ```yaml
    moe-runner-backend: lora_triton
    ```
    Use instead:
    ```yaml
    moe-runner-backend: auto
    ```

    ## Fix safety
    Going back to the default runner serves the model without LoRA, as the
    config does: unsafe all the same (another kernel). Turning LoRA on is
    the second, unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:201` (`check_lora_moe_runner_args`, run at
    `arg_groups/lora_hook.py:180` in `check_lora_server_args`, run at `arg_groups/validation_hook.py:222`)
    """
    if not lora_runner(view) or view["enable_lora"]:
        return None
    return Violation(f"--moe-runner-backend {runner(view)} needs LoRA (--enable-lora or --lora-paths)",
                     args=("moe_runner_backend", "enable_lora"))


lora_moe_runner_needs_lora.fix(_auto_runner)


@lora_moe_runner_needs_lora.fix
def _enable_lora(view: ResolvingView) -> Fix | None:
    return Fix.unsafe(Set("enable_lora", True), title="Add --enable-lora")


@settings_rule("LORA016", "lora-moe-runner-needs-triton-v2", step=STEP, at=f"{LORA}:205", via=CALL,
               calls=(RUNNER_CALL,))
def lora_moe_runner_needs_triton_v2(view: ResolvingView) -> Violation | None:
    """Flag a `lora_*` MoE runner with a LoRA backend other than `triton_v2`.

    ## What it does
    Checks for `--moe-runner-backend` `lora_triton`, `lora_cutedsl` or
    `lora_marlin`, LoRA on, and `--lora-backend` other than `triton_v2`
    (the default, `csgmv`, counts).

    ## Why SGLang refuses it
    The LoRA MoE runners read the V2 kernels' batch metadata. SGLang stops
    with `requires --lora-backend triton_v2` when the Engine starts.

    ## Example
    ```yaml
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    moe-runner-backend: lora_triton
    ```
    Use instead:
    ```yaml
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    moe-runner-backend: lora_triton
    lora-backend: triton_v2
    ```

    ## Fix safety
    Setting `--lora-backend triton_v2` is safe when no backend was written
    (the runner needs that one), unsafe when it replaces one. Going back to
    the default runner is the second, unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:205` (`check_lora_moe_runner_args`, run at
    `arg_groups/lora_hook.py:180` in `check_lora_server_args`, run at `arg_groups/validation_hook.py:222`)
    """
    if not lora_runner(view) or not view["enable_lora"] or view["lora_backend"] == "triton_v2":
        return None
    return Violation(f"--moe-runner-backend {runner(view)} needs --lora-backend triton_v2, not "
                     f"{view['lora_backend']}", args=("lora_backend", "moe_runner_backend"))


@lora_moe_runner_needs_triton_v2.fix
def _triton_v2(view: ResolvingView) -> Fix | None:
    op, title = Set("lora_backend", "triton_v2"), "Set --lora-backend to triton_v2"
    return Fix.unsafe(op, title=title) if view.is_explicit("lora_backend") else Fix.safe(op, title=title)


lora_moe_runner_needs_triton_v2.fix(_auto_runner)


@settings_rule("LORA025", "lora-moe-runner-unsupported-mode", step=STEP, at=f"{LORA}:30", via=CALL,
               calls=(RUNNER_CALL, RUNNER_V2_MODES))
def lora_moe_runner_unsupported_mode(view: ResolvingView) -> Violation | None:
    """Flag a `lora_*` MoE runner with a mode the LoRA V2 kernels do not support.

    ## What it does
    Checks for `--moe-runner-backend` `lora_triton`, `lora_cutedsl` or
    `lora_marlin` (LoRA on, `--lora-backend triton_v2`) together with
    attention DP (`--attn-dp-size` above 1), `--enable-pdmux`,
    `--enable-two-batch-overlap`, the environment variable
    `SGLANG_EXPERIMENTAL_LORA_OPTI` or a ROCm GPU.

    ## Why SGLang refuses it
    The runners build on the V2 LoRA kernels, which lay out one plain batch
    per rank. SGLang stops with `does not yet support ...` when the Engine
    starts.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 2
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    moe-runner-backend: lora_triton
    lora-backend: triton_v2
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 2
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    ```

    ## Fix safety
    Going back to the default MoE runner and LoRA backend changes the
    kernels that run: unsafe. The other unsafe fix removes every mode
    written (`--attn-dp-size`, `--enable-pdmux`,
    `--enable-two-batch-overlap`): only all of them clear the check, so it
    is not offered when one is not a flag to remove (attention DP from
    `--enable-dp-attention`, ROCm, the environment variable).

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:30` (`_check_v2_lora_modes`, run at `arg_groups/lora_hook.py:208` in
    `check_lora_moe_runner_args`, run at `arg_groups/lora_hook.py:180`, run at
    `arg_groups/validation_hook.py:222`)
    """
    if not lora_runner(view) or not view["enable_lora"] or view["lora_backend"] != "triton_v2":
        return None
    mode = v2_mode(view)
    if mode is None:
        return None
    return Violation(f"--moe-runner-backend {runner(view)} does not support {mode}",
                     args=("moe_runner_backend", "attn_dp_size", "enable_pdmux", "enable_two_batch_overlap"))


lora_moe_runner_unsupported_mode.fix(_auto_runner)
lora_moe_runner_unsupported_mode.fix(drop_modes)


def _runner_gate(view: ResolvingView) -> bool:
    """A LoRA runner past LORA015 and LORA016 (LoRA on, `triton_v2`): the later runner checks apply to it.

    (Each of those checks its own condition; SGLang stops at the first.)
    """
    return lora_runner(view) and bool(view["enable_lora"]) and view["lora_backend"] == "triton_v2"


@settings_rule("LORA017", "lora-moe-runner-quantization", step=STEP, at=f"{LORA}:211", via=CALL,
               calls=(RUNNER_CALL,))
def lora_moe_runner_quantization(view: ResolvingView) -> Violation | None:
    """Flag a `lora_*` MoE runner with a quantization other than FP8 or ModelOpt NVFP4.

    ## What it does
    Checks for a LoRA MoE runner (LoRA on, `--lora-backend triton_v2`) with
    `--quantization` other than none, `fp8` or `modelopt_fp4`.

    ## Why SGLang refuses it
    The LoRA runners have kernels for BF16, 128-block FP8 and ModelOpt
    NVFP4 experts only. SGLang stops with `supports unquantized BF16, 128-block
    FP8 and ModelOpt NVFP4 MoE` when the Engine starts.

    ## Example
    ```yaml
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    moe-runner-backend: lora_triton
    lora-backend: triton_v2
    quantization: w8a8_int8
    ```
    Use instead:
    ```yaml
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    lora-backend: triton_v2
    quantization: w8a8_int8
    ```

    ## Fix safety
    Going back to the default MoE runner keeps the checkpoint's
    quantization; removing `--quantization` changes how the weights are
    read. Both unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:211` (`check_lora_moe_runner_args`, run at
    `arg_groups/lora_hook.py:180` in `check_lora_server_args`, run at `arg_groups/validation_hook.py:222`)
    """
    if not _runner_gate(view) or view["quantization"] in (None, "fp8", "modelopt_fp4"):
        return None
    return Violation(f"--moe-runner-backend {runner(view)} runs BF16, FP8 or ModelOpt NVFP4 experts, not "
                     f"--quantization {view['quantization']}", args=("quantization", "moe_runner_backend"))


@lora_moe_runner_quantization.fix
def _plain_runner(view: ResolvingView) -> Fix | None:
    return remove(view, "moe_runner_backend", f"--moe-runner-backend {runner(view)}", " (auto)")


@lora_moe_runner_quantization.fix
def _no_quantization(view: ResolvingView) -> Fix | None:
    return remove(view, "quantization", "--quantization")


@settings_rule("LORA018", "lora-moe-runner-nvfp4-needs-marlin", step=STEP, at=f"{LORA}:216", via=CALL,
               calls=(RUNNER_CALL,))
def lora_moe_runner_nvfp4_needs_marlin(view: ResolvingView) -> Violation | None:
    """Flag ModelOpt NVFP4 with a LoRA MoE runner other than `lora_marlin`.

    ## What it does
    Checks for `--quantization modelopt_fp4` with `--moe-runner-backend`
    `lora_triton` or `lora_cutedsl` (LoRA on, `--lora-backend triton_v2`).

    ## Why SGLang refuses it
    Only the Marlin LoRA runner has NVFP4 expert kernels. SGLang stops with
    `cannot run ModelOpt NVFP4 MoE; use --moe-runner-backend lora_marlin`
    when the Engine starts.

    ## Example
    ```yaml
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    moe-runner-backend: lora_triton
    lora-backend: triton_v2
    quantization: modelopt_fp4
    ```
    Use instead:
    ```yaml
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    moe-runner-backend: lora_marlin
    lora-backend: triton_v2
    quantization: modelopt_fp4
    ```

    ## Fix safety
    `lora_marlin` is the runner SGLang names, but another kernel than the
    one written: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:216` (`check_lora_moe_runner_args`, run at
    `arg_groups/lora_hook.py:180` in `check_lora_server_args`, run at `arg_groups/validation_hook.py:222`)
    """
    if not _runner_gate(view) or view["quantization"] != "modelopt_fp4" or runner(view) == "lora_marlin":
        return None
    return Violation(f"--moe-runner-backend {runner(view)} cannot run ModelOpt NVFP4 experts: use lora_marlin",
                     args=("moe_runner_backend", "quantization"))


@lora_moe_runner_nvfp4_needs_marlin.fix
def _lora_marlin(view: ResolvingView) -> Fix | None:
    return Fix.unsafe(Set("moe_runner_backend", "lora_marlin"), title="Set --moe-runner-backend to lora_marlin")


@settings_rule("LORA019", "lora-moe-runner-needs-a2a-none", step=STEP, at=f"{LORA}:221", via=CALL,
               calls=(RUNNER_CALL,))
def lora_moe_runner_needs_a2a_none(view: ResolvingView) -> Violation | None:
    """Flag a LoRA MoE runner with an all-to-all MoE backend.

    ## What it does
    Checks for a LoRA MoE runner (LoRA on, `--lora-backend triton_v2`) with
    the MoE a2a backend SGLang resolved other than `none` (`--enable-waterfill`
    makes it `deepep`).

    ## Why SGLang refuses it
    The adapters attach to the standard dispatch path. SGLang stops with
    `requires Standard dispatch` when the Engine starts.

    ## Example
    ```yaml
    tp-size: 8
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    moe-runner-backend: lora_triton
    lora-backend: triton_v2
    moe-a2a-backend: deepep
    ```
    Use instead:
    ```yaml
    tp-size: 8
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    moe-runner-backend: lora_triton
    lora-backend: triton_v2
    moe-a2a-backend: none
    ```

    ## Fix safety
    Standard dispatch (and no Waterfill) changes how experts communicate:
    unsafe. Going back to the default runner is the second, unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:221` (`check_lora_moe_runner_args`, run at
    `arg_groups/lora_hook.py:180` in `check_lora_server_args`, run at `arg_groups/validation_hook.py:222`)
    """
    if not _runner_gate(view) or view["moe_a2a_backend"] == "none":
        return None
    return Violation(f"--moe-runner-backend {runner(view)} needs --moe-a2a-backend none, not "
                     f"{view['moe_a2a_backend']}", args=("moe_a2a_backend", "enable_waterfill", "moe_runner_backend"))


@lora_moe_runner_needs_a2a_none.fix
def _standard_dispatch(view: ResolvingView) -> Fix | None:
    ops: list[Op] = [Set("moe_a2a_backend", "none")]
    if view.is_explicit("enable_waterfill") and view["enable_waterfill"]:
        ops.append(Unset("enable_waterfill"))
    return Fix.unsafe(*ops, title="Set --moe-a2a-backend to none" + (" and remove --enable-waterfill"
                                                                     if len(ops) > 1 else ""))


lora_moe_runner_needs_a2a_none.fix(_plain_runner)


@settings_rule("LORA020", "lora-moe-runner-elastic-ep", step=STEP, at=f"{LORA}:226", via=CALL,
               calls=(RUNNER_CALL,))
def lora_moe_runner_elastic_ep(view: ResolvingView) -> Violation | None:
    """Flag a LoRA MoE runner on a server joining an elastic EP group.

    ## What it does
    Checks for a LoRA MoE runner (LoRA on, `--lora-backend triton_v2`) with
    `--elastic-ep-join-mode`.

    ## Why SGLang refuses it
    A joining rank would need the adapters' expert layout of the group.
    SGLang stops with `does not yet support elastic EP` when the Engine
    starts.

    ## Example
    ```yaml
    tp-size: 8
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    moe-runner-backend: lora_triton
    lora-backend: triton_v2
    elastic-ep-backend: mooncake
    elastic-ep-join-mode: recover
    ```
    Use instead:
    ```yaml
    tp-size: 8
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    moe-runner-backend: lora_triton
    lora-backend: triton_v2
    elastic-ep-backend: mooncake
    ```

    ## Fix safety
    Without the join mode the server starts a group of its own instead of
    joining one: unsafe. Going back to the default runner is the second,
    unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:226` (`check_lora_moe_runner_args`, run at
    `arg_groups/lora_hook.py:180` in `check_lora_server_args`, run at `arg_groups/validation_hook.py:222`)
    """
    if not _runner_gate(view) or view["ep_join_mode"] is None:
        return None
    return Violation(f"--moe-runner-backend {runner(view)} does not support --elastic-ep-join-mode",
                     args=("ep_join_mode", "moe_runner_backend"))


@lora_moe_runner_elastic_ep.fix
def _no_join(view: ResolvingView) -> Fix | None:
    return remove(view, "ep_join_mode", "--elastic-ep-join-mode")


lora_moe_runner_elastic_ep.fix(_plain_runner)

# Placement settings the LoRA MoE runners refuse, with the test of a non-trivial value (lora_hook.py:230)
_PLACEMENT = (("enable_eplb", bool), ("init_expert_location", lambda v: v != "trivial"),
              ("ep_num_redundant_experts", lambda v: v > 0))


@settings_rule("LORA021", "lora-moe-runner-trivial-placement", step=STEP, at=f"{LORA}:234", via=CALL,
               calls=(RUNNER_CALL,))
def lora_moe_runner_trivial_placement(view: ResolvingView) -> Violation | None:
    """Flag a LoRA MoE runner with EPLB, redundant experts or a non-trivial expert placement.

    ## What it does
    Checks for a LoRA MoE runner (LoRA on, `--lora-backend triton_v2`) with
    `--enable-eplb`,
    `--ep-num-redundant-experts` above 0 or `--init-expert-location` other
    than `trivial`.

    ## Why SGLang refuses it
    The adapters' expert weights follow the trivial placement. SGLang stops
    with `currently requires trivial expert placement` when the Engine
    starts.

    ## Example
    ```yaml
    tp-size: 8
    ep-size: 8
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    moe-runner-backend: lora_triton
    lora-backend: triton_v2
    ep-num-redundant-experts: 8
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ep-size: 8
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    moe-runner-backend: lora_triton
    lora-backend: triton_v2
    ```

    ## Fix safety
    Removing the placement settings changes where experts run: unsafe.
    Going back to the default runner is the second, unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:234` (`check_lora_moe_runner_args`, run at
    `arg_groups/lora_hook.py:180` in `check_lora_server_args`, run at `arg_groups/validation_hook.py:222`)
    """
    if not _runner_gate(view):
        return None
    found = [dest for dest, odd in _PLACEMENT if odd(view[dest])]
    if not found:
        return None
    flags = ", ".join(f"--{d.replace('_', '-')}" for d in found)
    return Violation(f"--moe-runner-backend {runner(view)} needs trivial expert placement; remove {flags}",
                     args=(*found, "moe_runner_backend"))


@lora_moe_runner_trivial_placement.fix
def _trivial_placement(view: ResolvingView) -> Fix | None:
    ops = [Unset(dest) for dest, odd in _PLACEMENT if view.is_explicit(dest) and odd(view[dest])]
    return Fix.unsafe(*ops, title="Remove the expert placement settings (trivial)") if ops else None


lora_moe_runner_trivial_placement.fix(_plain_runner)
