"""``_handle_dflash`` (speculative_hook.py:287-446, called through ``algo.handle_server_args`` at 284): DFLASH.

The device and the parallel layout, the draft model path, the block size and
the draft tokens, steps and top-k forced to 1. The draft's block size is a
model fact (``model.draft_dflash_block_size``: what SGLang reads of the draft
model's config, None when it has none or cannot be read), unknown unless given.
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView, Unknown
from autofix.rules.shared import attn_dp_enabled
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

# SGLang's block size when the draft model's config gives none (speculative_hook.py:416)
DEFAULT_BLOCK_SIZE = 16
SUPPORTED_DEVICES = ("npu", "xpu")  # and any device starting with cuda


def _dflash(view: ResolvingView) -> bool:
    return view["speculative_algorithm"] == "DFLASH"


def _dp_off_npu(view: ResolvingView) -> bool:
    """DFLASH's attention-DP checks run: attention DP on a device other than NPU."""
    return attn_dp_enabled(view) and device(view) != "npu"


@settings_rule("SPEC020", "dflash-device", step=STEP, at="arg_groups/speculative_hook.py:298", via=DISPATCH)
def dflash_device(view: ResolvingView) -> Violation | None:
    """Flag DFLASH on a device other than CUDA, NPU or XPU.

    ## What it does
    Checks for `--speculative-algorithm DFLASH` with a `--device` that does
    not start with `cuda` and is not `npu` or `xpu` (an out-of-tree platform
    decides for itself: decided when `--gpu` is given).

    ## Why SGLang refuses it
    DFLASH's draft kernels exist only for those devices. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    device: cpu
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```

    ## Fix safety
    Removing `--device` lets SGLang detect the GPU; the launch no longer
    runs where it said: unsafe. Dropping speculative decoding is unsafe too.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:298` (`_handle_dflash`, called at line 284, 0.5.23)
    """
    if not _dflash(view):
        return None
    dev = device(view)
    if dev.startswith("cuda") or dev in SUPPORTED_DEVICES:
        return None
    if view.fact("platform.is_out_of_tree"):
        raise Unknown("platform.supports_speculative_algorithm")  # the plugin's own answer: not modelled
    return Violation(f"DFLASH runs on CUDA, NPU or XPU, not --device {dev}", args=("device", "speculative_algorithm"))


dflash_device.fix(lambda view: remove(view, "device", "--device", " (detected: CUDA on a GPU node)"))
dflash_device.fix(no_speculation)


@settings_rule("SPEC021", "dflash-dp-attention-device", step=STEP, at="arg_groups/speculative_hook.py:305",
               via=DISPATCH)
def dflash_dp_attention_device(view: ResolvingView) -> Violation | None:
    """Flag DFLASH with attention DP on a device other than CUDA or NPU.

    ## What it does
    Checks for `--speculative-algorithm DFLASH` with attention DP
    (`--attn-dp-size` above 1) and a `--device` that is neither `npu` nor
    starts with `cuda` (XPU, say).

    ## Why SGLang refuses it
    DFLASH under attention DP borrows the target's LM head across the DP
    groups, which only the CUDA and NPU paths implement. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    device: xpu
    tp-size: 2
    attn-dp-size: 2
    enable-dp-lm-head: true
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```
    Use instead:
    ```yaml
    device: xpu
    tp-size: 2
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```

    ## Fix safety
    Removing `--attn-dp-size` changes the parallel layout: unsafe. So does
    dropping speculative decoding (offered last).

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:305` (`_handle_dflash`, called at line 284, 0.5.23)
    """
    if not _dflash(view) or not _dp_off_npu(view) or device(view).startswith("cuda"):
        return None
    return Violation(f"DFLASH with attention DP needs a CUDA or NPU device, not --device {device(view)}",
                     args=("device", "attn_dp_size", "speculative_algorithm"))


dflash_dp_attention_device.fix(no_attention_dp)
dflash_dp_attention_device.fix(no_speculation)


@settings_rule("SPEC022", "dflash-dp-attention-needs-dp-lm-head", step=STEP, at="arg_groups/speculative_hook.py:308",
               via=DISPATCH)
def dflash_dp_attention_needs_dp_lm_head(view: ResolvingView) -> Violation | None:
    """Flag DFLASH with attention DP and no DP LM head.

    ## What it does
    Checks for `--speculative-algorithm DFLASH` with attention DP
    (`--attn-dp-size` above 1, or an elastic-EP scale joiner) off NPU and
    without `--enable-dp-lm-head`.

    ## Why SGLang refuses it
    DFLASH's greedy projection and its selector both run the target's LM
    head inside each attention-DP group; that needs the LM head split by
    DP. SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    enable-dp-lm-head: true
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```

    ## Fix safety
    Adding `--enable-dp-lm-head` keeps every value the user wrote: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:308` (`_handle_dflash`, called at line 284, 0.5.23)
    """
    if not _dflash(view) or not _dp_off_npu(view) or view["enable_dp_lm_head"]:
        return None
    return Violation("DFLASH with attention DP needs --enable-dp-lm-head",
                     args=("attn_dp_size", "speculative_algorithm"))


dflash_dp_attention_needs_dp_lm_head.fix(dp_lm_head)


@settings_rule("SPEC023", "dflash-dp-attention-no-cp", step=STEP, at="arg_groups/speculative_hook.py:310",
               via=DISPATCH)
def dflash_dp_attention_no_cp(view: ResolvingView) -> Violation | None:
    """Flag DFLASH with attention DP and attention context parallelism.

    ## What it does
    Checks for `--speculative-algorithm DFLASH` with attention DP off NPU
    and `--attn-cp-size` other than 1.

    ## Why SGLang refuses it
    DFLASH's draft under attention DP works on whole sequences per DP group;
    splitting them over context-parallel ranks is not implemented. SGLang
    raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 4
    attn-cp-size: 2
    enable-dp-lm-head: true
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 4
    enable-dp-lm-head: true
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```

    ## Fix safety
    Removing `--attn-cp-size` changes the parallel layout: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:310` (`_handle_dflash`, called at line 284, 0.5.23)
    """
    if not _dflash(view) or not _dp_off_npu(view) or view["attn_cp_size"] == 1:
        return None
    return Violation(f"DFLASH with attention DP does not support --attn-cp-size {view['attn_cp_size']}",
                     args=("attn_cp_size", "attn_dp_size", "speculative_algorithm"))


dflash_dp_attention_no_cp.fix(no_attention_cp)
dflash_dp_attention_no_cp.fix(no_speculation)


@settings_rule("SPEC025", "dflash-needs-pp1", step=STEP, at="arg_groups/speculative_hook.py:320", via=DISPATCH)
def dflash_needs_pp1(view: ResolvingView) -> Violation | None:
    """Flag DFLASH with pipeline parallelism.

    ## What it does
    Checks for `--speculative-algorithm DFLASH` with `--pp-size` other than 1.

    ## Why SGLang refuses it
    The DFLASH draft reads hidden states of several target layers at once;
    across pipeline stages they are not in one place. SGLang raises a
    ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 4
    pp-size: 2
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```
    Use instead:
    ```yaml
    tp-size: 4
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```

    ## Fix safety
    Removing `--pp-size` changes the parallel layout: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:320` (`_handle_dflash`, called at line 284, 0.5.23)
    """
    if not _dflash(view) or view["pp_size"] == 1:
        return None
    return Violation(f"DFLASH needs --pp-size 1, not {view['pp_size']}", args=("pp_size", "speculative_algorithm"))


dflash_needs_pp1.fix(pp1)
dflash_needs_pp1.fix(no_speculation)


@settings_rule("SPEC026", "dflash-needs-draft-model", step=STEP, at="arg_groups/speculative_hook.py:325",
               via=DISPATCH)
def dflash_needs_draft_model(view: ResolvingView) -> Violation | None:
    """Flag DFLASH without a draft model.

    ## What it does
    Checks for `--speculative-algorithm DFLASH` without
    `--speculative-draft-model-path`.

    ## Why SGLang refuses it
    DFLASH drafts a block of tokens with a separate, trained draft model;
    it cannot run without one. SGLang raises a ValueError while resolving
    its arguments.

    ## Example
    ```yaml
    speculative-algorithm: DFLASH
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```

    ## Fix safety
    Which draft model fits the target cannot be read from the flags: the
    only fix offered drops speculative decoding, unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:325` (`_handle_dflash`, called at line 284, 0.5.23)
    """
    if not _dflash(view) or view["speculative_draft_model_path"] is not None:
        return None
    return Violation("DFLASH needs --speculative-draft-model-path", args=("speculative_algorithm",))


dflash_needs_draft_model.fix(no_speculation)


def _dflash_rewrite_cause(view: ResolvingView) -> str:
    return "--speculative-algorithm DFLASH"


@derivation(step=STEP, at="arg_groups/speculative_hook.py:345", via=DISPATCH,
            writes=("speculative_num_steps",), code="SPEC098", name="dflash-overrides-num-steps",
            cause=_dflash_rewrite_cause)
def dflash_overrides_num_steps(view: ResolvingView) -> dict | None:
    """DFLASH runs one draft step: `--speculative-num-steps` is 1, whatever was written.

    ## What it does
    Warns at a `--speculative-num-steps` other than 1 with
    `--speculative-algorithm DFLASH` (unset, it is set to 1 silently).

    ## Why it matters
    DFLASH drafts a whole block in one step; SGLang only logs that it
    replaces the value. The steps still size scheduler and KV-cache
    buffers, so they are forced to 1.

    ## Example
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    speculative-num-steps: 3
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```

    ## Fix safety
    Removing the ignored setting resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:345` (`_handle_dflash`, called at line 284; unset: line 335, 0.5.23)
    """
    if not _dflash(view) or view["speculative_num_steps"] == 1:
        return None
    return {"speculative_num_steps": 1}


@derivation(step=STEP, at="arg_groups/speculative_hook.py:362", via=DISPATCH,
            writes=("speculative_eagle_topk",), code="SPEC099", name="dflash-overrides-eagle-topk",
            cause=_dflash_rewrite_cause)
def dflash_overrides_eagle_topk(view: ResolvingView) -> dict | None:
    """DFLASH drafts one token per position: `--speculative-eagle-topk` is 1, whatever was written.

    ## What it does
    Warns at a `--speculative-eagle-topk` other than 1 with
    `--speculative-algorithm DFLASH` (unset, it is set to 1 silently).

    ## Why it matters
    DFLASH drafts a linear block, not a tree; SGLang only logs that it
    replaces the value.

    ## Example
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    speculative-eagle-topk: 4
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```

    ## Fix safety
    Removing the ignored setting resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:362` (`_handle_dflash`, called at line 284; unset: line 352, 0.5.23)
    """
    if not _dflash(view) or view["speculative_eagle_topk"] == 1:
        return None
    return {"speculative_eagle_topk": 1}


@settings_rule("SPEC027", "dflash-block-size-positive", step=STEP, at="arg_groups/speculative_hook.py:370",
               via=DISPATCH)
def dflash_block_size_positive(view: ResolvingView) -> Violation | None:
    """Flag a DFLASH block size below 1.

    ## What it does
    Checks for `--speculative-algorithm DFLASH` with
    `--speculative-dflash-block-size` 0 or negative.

    ## Why SGLang refuses it
    The block size is how many tokens the draft proposes and the target
    verifies per step. SGLang raises a ValueError while resolving its
    arguments.

    ## Example
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    speculative-dflash-block-size: 0
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    ```

    ## Fix safety
    Removing the block size lets SGLang take the draft model's own (or 16):
    unsafe, the user meant some size.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:370` (`_handle_dflash`, called at line 284, 0.5.23)
    """
    size = view["speculative_dflash_block_size"]
    if not _dflash(view) or size is None or size > 0:
        return None
    return Violation(f"--speculative-dflash-block-size must be positive, not {size}",
                     args=("speculative_dflash_block_size", "speculative_algorithm"))


dflash_block_size_positive.fix(lambda view: remove(view, "speculative_dflash_block_size",
                                                   "--speculative-dflash-block-size", " (the draft model's own)"))


@settings_rule("SPEC028", "dflash-block-size-vs-draft-tokens", step=STEP, at="arg_groups/speculative_hook.py:377",
               via=DISPATCH)
def dflash_block_size_vs_draft_tokens(view: ResolvingView) -> Violation | None:
    """Flag a DFLASH block size and a different number of draft tokens.

    ## What it does
    Checks for `--speculative-algorithm DFLASH` with both
    `--speculative-dflash-block-size` and `--speculative-num-draft-tokens`,
    at different values.

    ## Why SGLang refuses it
    For DFLASH the draft tokens are the block: SGLang sets one from the
    other and raises a ValueError while resolving its arguments when they
    disagree.

    ## Example
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    speculative-dflash-block-size: 8
    speculative-num-draft-tokens: 4
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    speculative-dflash-block-size: 8
    ```

    ## Fix safety
    Removing `--speculative-num-draft-tokens` keeps the block size written
    for DFLASH, and the draft tokens follow it: safe. Setting the block
    size to the draft tokens instead is unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:377` (`_handle_dflash`, called at line 284, 0.5.23)
    """
    size, tokens = view["speculative_dflash_block_size"], view["speculative_num_draft_tokens"]
    if not _dflash(view) or size is None or tokens is None or tokens == size:
        return None
    return Violation(f"DFLASH needs --speculative-num-draft-tokens equal to --speculative-dflash-block-size "
                     f"({size}), not {tokens}",
                     args=("speculative_num_draft_tokens", "speculative_dflash_block_size", "speculative_algorithm"))


@dflash_block_size_vs_draft_tokens.fix
def _drop_draft_tokens(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("speculative_num_draft_tokens"):
        return None
    return Fix.safe(Unset("speculative_num_draft_tokens"),
                    title="Remove --speculative-num-draft-tokens (DFLASH takes the block size)")


@dflash_block_size_vs_draft_tokens.fix
def _block_size_to_draft_tokens(view: ResolvingView) -> Fix | None:
    tokens = view["speculative_num_draft_tokens"]
    if tokens < 1:
        return None
    return Fix.unsafe(Set("speculative_dflash_block_size", tokens),
                      title=f"Set --speculative-dflash-block-size to {tokens}")


@derivation(step=STEP, at="arg_groups/speculative_hook.py:383", via=DISPATCH,
            writes=("speculative_num_draft_tokens",))
def dflash_draft_tokens_from_block_size(view: ResolvingView) -> dict | None:
    """DFLASH: the draft tokens are `--speculative-dflash-block-size` (SPEC028 refuses another value written)."""
    size = view["speculative_dflash_block_size"] if _dflash(view) else None
    if size is None or size <= 0:
        return None
    return {"speculative_num_draft_tokens": size}


@derivation(step=STEP, at="arg_groups/speculative_hook.py:421", via=DISPATCH,
            writes=("speculative_num_draft_tokens",))
def dflash_draft_tokens_from_draft_model(view: ResolvingView) -> dict | None:
    """DFLASH without draft tokens: the draft model config's block size (`model.draft_dflash_block_size`), else 16."""
    if not _dflash(view) or view["speculative_num_draft_tokens"] is not None:
        return None
    block_size = view.fact("model.draft_dflash_block_size")
    return {"speculative_num_draft_tokens": DEFAULT_BLOCK_SIZE if block_size is None else block_size}


@settings_rule("SPEC029", "dflash-window-below-block-size", step=STEP, at="arg_groups/speculative_hook.py:430",
               via=DISPATCH)
def dflash_window_below_block_size(view: ResolvingView) -> Violation | None:
    """Flag a DFLASH draft window smaller than the block.

    ## What it does
    Checks for `--speculative-algorithm DFLASH` with a
    `--speculative-draft-window-size` below the draft tokens: the block
    size written, else the draft model's (a model fact, unknown unless
    given), else 16.

    ## Why SGLang refuses it
    The compact draft KV cache keeps the last window of tokens; a block
    drafted at once must fit in it. SGLang raises a ValueError while
    resolving its arguments.

    ## Example
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    speculative-dflash-block-size: 16
    speculative-draft-window-size: 8
    ```
    Use instead:
    ```yaml
    speculative-algorithm: DFLASH
    speculative-draft-model-path: z-lab/Qwen3-8B-DFlash-b16
    speculative-dflash-block-size: 16
    speculative-draft-window-size: 16
    ```

    ## Fix safety
    Raising the window to the block keeps more draft KV than asked (more
    memory): unsafe. Removing the window (full draft KV cache) is unsafe too.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:430` (`_handle_dflash`, called at line 284, 0.5.23)
    """
    window = view["speculative_draft_window_size"] if _dflash(view) else None
    if window is None:
        return None
    tokens = view["speculative_num_draft_tokens"]
    if window >= tokens:
        return None
    return Violation(f"DFLASH needs --speculative-draft-window-size of at least the block size {tokens}, not {window}",
                     args=("speculative_draft_window_size", "speculative_dflash_block_size",
                           "speculative_num_draft_tokens", "speculative_algorithm"))


@dflash_window_below_block_size.fix
def _window_to_block(view: ResolvingView) -> Fix:
    tokens = view["speculative_num_draft_tokens"]
    return Fix.unsafe(Set("speculative_draft_window_size", tokens),
                      title=f"Set --speculative-draft-window-size to {tokens}")


@dflash_window_below_block_size.fix
def _no_window(view: ResolvingView) -> Fix | None:
    if view["speculative_draft_sink_size"] is not None:
        return None  # the sink needs a window (speculative_hook.py:228)
    return remove(view, "speculative_draft_window_size", "--speculative-draft-window-size")


@derivation(step=STEP, at="arg_groups/speculative_hook.py:439", via=DISPATCH,
            writes=("max_running_requests",))
def dflash_max_running_requests(view: ResolvingView) -> dict | None:
    """DFLASH without `--max-running-requests`: 48."""
    if not _dflash(view) or view["max_running_requests"] is not None:
        return None
    return {"max_running_requests": 48}
