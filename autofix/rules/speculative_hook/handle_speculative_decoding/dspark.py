"""``_handle_dspark`` (speculative_hook.py:666-718, called through ``algo.handle_server_args`` at 284): DSpark's
device and parallel layout (attention DP, its LM head, a2a backends and CP; PP). The draft model, gamma and the
verify window: ``dspark_draft.py``.
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.shared import DEEPSEEK_OVERRIDE_ARCHS
from autofix.rules.speculative_hook.handle_speculative_decoding.common import (
    DISPATCH,
    STEP,
    device,
    dp_lm_head,
    no_attention_cp,
    no_attention_dp,
    no_speculation,
    pp1,
    remove,
)

DP_A2A_BACKENDS = ("none", "megamoe", "mori")


def _dspark(view: ResolvingView) -> bool:
    return view["speculative_algorithm"] == "DSPARK"


def _dp_off_npu(view: ResolvingView) -> bool:
    """DSpark's attention-DP checks that skip NPU run: more than one attention group, not on NPU."""
    return view["attn_dp_size"] > 1 and not device(view).startswith("npu")


@settings_rule("SPEC050", "dspark-device", step=STEP, at="arg_groups/speculative_hook.py:670", via=DISPATCH)
def dspark_device(view: ResolvingView) -> Violation | None:
    """Flag DSpark on a device other than CUDA, NPU or XPU.

    ## What it does
    Checks for `--speculative-algorithm DSPARK` with a `--device` that does
    not start with `cuda`, `npu` or `xpu`.

    ## Why SGLang refuses it
    DSpark's draft and verify kernels exist only for those devices. SGLang
    raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    device: cpu
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```

    ## Fix safety
    Removing `--device` lets SGLang detect the GPU; the launch no longer
    runs where it said: unsafe. Dropping speculative decoding is unsafe too.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:670` (`_handle_dspark`, called at line 284, 0.5.23)
    """
    if not _dspark(view) or device(view).startswith(("cuda", "npu", "xpu")):
        return None
    return Violation(f"DSpark runs on CUDA, NPU or XPU, not --device {device(view)}",
                     args=("device", "speculative_algorithm"))


dspark_device.fix(lambda view: remove(view, "device", "--device", " (detected: CUDA on a GPU node)"))
dspark_device.fix(no_speculation)


@settings_rule("SPEC051", "dspark-dp-attention-needs-dp-lm-head", step=STEP, at="arg_groups/speculative_hook.py:676",
               via=DISPATCH)
def dspark_dp_attention_needs_dp_lm_head(view: ResolvingView) -> Violation | None:
    """Flag DSpark with attention DP and no DP LM head.

    ## What it does
    Checks for `--speculative-algorithm DSPARK` with `--attn-dp-size`
    above 1 and without `--enable-dp-lm-head`.

    ## Why SGLang refuses it
    DSpark's draft runs the target's LM head inside each attention-DP group,
    which needs the LM head split by DP. SGLang raises a ValueError while
    resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    enable-dp-lm-head: true
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```

    ## Fix safety
    Adding `--enable-dp-lm-head` keeps every value the user wrote: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:676` (`_handle_dspark`, called at line 284, 0.5.23)
    """
    if not _dspark(view) or view["attn_dp_size"] <= 1 or view["enable_dp_lm_head"]:
        return None
    return Violation("DSpark with attention DP needs --enable-dp-lm-head",
                     args=("attn_dp_size", "speculative_algorithm"))


dspark_dp_attention_needs_dp_lm_head.fix(dp_lm_head)


@settings_rule("SPEC054", "dspark-dp-attention-a2a-backend", step=STEP, at="arg_groups/speculative_hook.py:678",
               via=DISPATCH)
def dspark_dp_attention_a2a_backend(view: ResolvingView) -> Violation | None:
    """Flag DSpark with attention DP and an a2a backend other than none, megamoe or mori.

    ## What it does
    Checks for `--speculative-algorithm DSPARK` with `--attn-dp-size` above
    1, off NPU, and an MoE a2a backend, as earlier steps resolved it
    (`--enable-waterfill` makes it `deepep`), other than `none`, `megamoe`
    or `mori`.

    ## Why SGLang refuses it
    DSpark's verify pass under attention DP is only implemented over the
    built-in TP MoE and the MegaMoE and MORI dispatchers. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    enable-dp-lm-head: true
    moe-a2a-backend: deepep
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    enable-dp-lm-head: true
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```

    ## Fix safety
    Setting `--moe-a2a-backend none` (and removing `--enable-waterfill`,
    which would make it `deepep` again) runs the MoE layers without expert
    parallel dispatch: unsafe. It is not offered where DeepSeek's prefill-CP
    layout makes the backend `deepep` whatever is written. Removing
    `--attn-dp-size` is unsafe too.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:678` (`_handle_dspark`, called at line 284, 0.5.23)
    """
    if not _dspark(view) or not _dp_off_npu(view):
        return None
    backend = view["moe_a2a_backend"]
    if backend in DP_A2A_BACKENDS:
        return None
    return Violation(f"DSpark with attention DP needs --moe-a2a-backend none, megamoe or mori, not {backend}",
                     args=("moe_a2a_backend", "attn_dp_size", "speculative_algorithm"))


@dspark_dp_attention_a2a_backend.fix
def _a2a_none(view: ResolvingView) -> Fix | None:
    """`--moe-a2a-backend none`, and `--enable-waterfill` removed with it: Waterfill makes any backend but `deepep`
    and `megamoe` `deepep` again (A2A005). None where DeepSeek's MLA prefill-CP layout makes the backend `deepep`
    whatever is written (A2A060; the architecture is read, as `_layout_as_written` reads it: unknown without the
    model's config): only dropping attention DP clears the check there."""
    if view["enable_prefill_cp"] and view.fact("model.architecture") in DEEPSEEK_OVERRIDE_ARCHS:
        return None
    if view["enable_waterfill"]:
        return Fix.unsafe(Set("moe_a2a_backend", "none"), Unset("enable_waterfill"),
                          title="Set --moe-a2a-backend to none and remove --enable-waterfill")
    return Fix.unsafe(Set("moe_a2a_backend", "none"), title="Set --moe-a2a-backend to none")


dspark_dp_attention_a2a_backend.fix(no_attention_dp)


@settings_rule("SPEC052", "dspark-dp-attention-no-cp", step=STEP, at="arg_groups/speculative_hook.py:698",
               via=DISPATCH)
def dspark_dp_attention_no_cp(view: ResolvingView) -> Violation | None:
    """Flag DSpark with attention DP and attention context parallelism.

    ## What it does
    Checks for `--speculative-algorithm DSPARK` with `--attn-dp-size` above
    1 and `--attn-cp-size` above 1.

    ## Why SGLang refuses it
    DSpark under attention DP drafts whole sequences per DP group; splitting
    them over context-parallel ranks is not implemented. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 4
    attn-cp-size: 2
    enable-dp-lm-head: true
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 4
    enable-dp-lm-head: true
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```

    ## Fix safety
    Removing `--attn-cp-size` changes the parallel layout: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:698` (`_handle_dspark`, called at line 284, 0.5.23)
    """
    if not _dspark(view) or view["attn_dp_size"] <= 1 or view["attn_cp_size"] <= 1:
        return None
    return Violation(f"DSpark with attention DP does not support --attn-cp-size {view['attn_cp_size']}",
                     args=("attn_cp_size", "attn_dp_size", "speculative_algorithm"))


dspark_dp_attention_no_cp.fix(no_attention_cp)
dspark_dp_attention_no_cp.fix(no_speculation)


@settings_rule("SPEC055", "dspark-draft-a2a-backend-is-the-target-s", step=STEP,
               at="arg_groups/speculative_hook.py:707", via=DISPATCH)
def dspark_draft_a2a_backend_is_the_target_s(view: ResolvingView) -> Violation | None:
    """Flag a DSpark draft a2a backend other than the target's under attention DP.

    ## What it does
    Checks for `--speculative-algorithm DSPARK` with `--attn-dp-size` above
    1, off NPU, and a `--speculative-moe-a2a-backend` other than the
    target's MoE a2a backend (as earlier steps resolved it).

    ## Why SGLang refuses it
    DSpark's draft runs on the target's MoE dispatcher and ignores the
    draft setting; under attention DP SGLang refuses a value that says
    otherwise with a ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    enable-dp-lm-head: true
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    speculative-moe-a2a-backend: deepep
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    enable-dp-lm-head: true
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```

    ## Fix safety
    DSpark ignores the draft a2a setting: removing it runs the same launch,
    safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:707` (`_handle_dspark`, called at line 284, 0.5.23)
    """
    if not _dspark(view) or not _dp_off_npu(view):
        return None
    draft, target = view["speculative_moe_a2a_backend"], view["moe_a2a_backend"]
    if draft is None or draft == target:
        return None
    return Violation(f"DSpark with attention DP ignores --speculative-moe-a2a-backend: it must be the target's "
                     f"{target}, not {draft}", args=("speculative_moe_a2a_backend", "speculative_algorithm"))


@dspark_draft_a2a_backend_is_the_target_s.fix
def _no_draft_a2a(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("speculative_moe_a2a_backend"):
        return None
    return Fix.safe(Unset("speculative_moe_a2a_backend"),
                    title="Remove --speculative-moe-a2a-backend (DSpark runs the target's)")


@settings_rule("SPEC057", "dspark-pp-only-on-pd-prefill", step=STEP, at="arg_groups/speculative_hook.py:715",
               via=DISPATCH)
def dspark_pp_only_on_pd_prefill(view: ResolvingView) -> Violation | None:
    """Flag DSpark with pipeline parallelism outside a PD prefill server.

    ## What it does
    Checks for `--speculative-algorithm DSPARK` with `--pp-size` other than
    1 and a `--disaggregation-mode` other than `prefill`.

    ## Why SGLang refuses it
    DSpark supports pipeline stages only where no token is decoded (the
    prefill server of a PD deployment). SGLang raises a ValueError while
    resolving its arguments.

    ## Example
    ```yaml
    tp-size: 4
    pp-size: 2
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```
    Use instead:
    ```yaml
    tp-size: 4
    speculative-algorithm: DSPARK
    speculative-draft-model-path: org/dspark-draft
    ```

    ## Fix safety
    Removing `--pp-size` changes the parallel layout: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:715` (`_handle_dspark`, called at line 284, 0.5.23)
    """
    if not _dspark(view) or view["pp_size"] == 1 or view["disaggregation_mode"] == "prefill":
        return None
    return Violation(f"DSpark with --pp-size {view['pp_size']} needs --disaggregation-mode prefill",
                     args=("pp_size", "disaggregation_mode", "speculative_algorithm"))


dspark_pp_only_on_pd_prefill.fix(pp1)
dspark_pp_only_on_pd_prefill.fix(no_speculation)
