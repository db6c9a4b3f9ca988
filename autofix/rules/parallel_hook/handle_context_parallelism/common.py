"""What the modules of ``handle_context_parallelism`` share: the step, whether the layout checked is the one written,
the CP and MoE-DP sizes a fix may set."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset
from autofix.pipeline.view import ResolvingView
from autofix.rules.shared import DEEPSEEK_OVERRIDE_ARCHS

STEP = "handle_context_parallelism"
# Models whose hooks lay prefill CP out themselves (attn_cp/attn_dp/ep sizes), before this step
# (model_overrides/deepseek_v2.py:37, deepseek_v4_hook.py:220).
CP_RELAYOUT_ARCHITECTURES = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "KimiK25ForConditionalGeneration", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "Glm5NextForConditionalGeneration", "HYV4ForCausalLM",
    "HYV4ForCausalLMNextN", "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM",
    "DeepseekV4ForCausalLM"})


def _divisor_at_most(n: int, most: int) -> int:
    """The largest divisor of ``n`` (> 0) that is at most ``most`` (1 at least)."""
    return max(d for d in range(1, min(n, max(most, 1)) + 1) if n % d == 0)


def _op(dest: str, value: int) -> Set | Unset:
    return Unset(dest) if value == 1 else Set(dest, value)


def _title(ops) -> str:
    flags = {"attn_cp_size": "--attn-cp-size", "moe_dp_size": "--moe-dp-size", "attn_dp_size": "--attn-dp-size",
             "ep_size": "--ep-size"}
    return ", ".join(f"Remove {flags[op.dest]}" if isinstance(op, Unset) else f"Set {flags[op.dest]} to {op.value}"
                     for op in ops)


def _set_or_unset(dest: str, value: int) -> Fix:
    """`dest` := ``value`` (the default 1: the setting removed), unsafe: it changes the parallel layout."""
    return Fix.unsafe(_op(dest, value), title=_title([_op(dest, value)]))


def _cp_and_moe_dp(view: ResolvingView, dest: str, value: int) -> Fix:
    """`dest` (attention CP or MoE-DP) := ``value``, and the other one with it while the two are equal (CP018)."""
    other = "moe_dp_size" if dest == "attn_cp_size" else "attn_cp_size"
    ops = [_op(dest, value)]
    if view[other] == view[dest] and view[other] != value:
        ops.append(_op(other, value))
    return Fix.unsafe(*ops, title=_title(ops))


def _layout_as_written(view: ResolvingView) -> bool:
    """Whether the CP layout the checks see is the one SGLang checks: with prefill CP, DeepSeek-family model hooks
    re-lay it. The MLA layout is modelled (A2A060, model_hook); the others are not, so the checks stay silent for
    them, and without the model's config (its architecture is read)."""
    if not view["enable_prefill_cp"]:
        return True
    return view.fact("model.architecture") not in CP_RELAYOUT_ARCHITECTURES - DEEPSEEK_OVERRIDE_ARCHS


def _aiter_fusion_on(view: ResolvingView) -> bool:
    # deterministic inference turns the fusion off before this step (attention_hook.py:599)
    if view["enable_deterministic_inference"] or view["rl_on_policy_target"] is not None:
        return False
    return bool(view["enable_aiter_allreduce_fusion"])


def _no_aiter_fusion(view: ResolvingView) -> Fix:
    return Fix.safe(Unset("enable_aiter_allreduce_fusion"), title="Remove --enable-aiter-allreduce-fusion")
