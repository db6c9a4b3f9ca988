"""``handle_deterministic_inference`` (``arg_groups/attention_hook.py:580``, 0.5.23): deterministic inference
(turned on by `--enable-deterministic-inference` or an RL on-policy target) and the attention backends it runs on.

The backend it falls back to when none is written or chosen by the model (overrides.py:1096) is read by
``deterministic_backend`` and by ``attention_backend`` (``autofix/rules/shared.py``: the speculative checks read it
too); it is not declared, as the platform decides it (unknown without `--gpu`).
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.shared import TRITON_FALLBACK, chosen_backend, deterministic_backend

STEP = "handle_deterministic_inference"
BACKEND_CALL = 640  # attention_hook.py: run_post_process_pass(server_args, _deterministic_attention_backend)
# The backends deterministic inference runs on (choices.py:113), and those that keep the radix cache (choices.py:249)
DETERMINISTIC_BACKENDS = ("ascend", "fa3", "fa4", "flashinfer", "intel_xpu", "triton")
RADIX_BACKENDS = ("ascend", "fa3", "fa4", "triton")
# Absorbed-MLA architectures, which need a radix-cache backend (attention_hook.py:627)
ABSORBED_MLA = (*TRITON_FALLBACK, "Glm5NextForConditionalGeneration")


@derivation(step=STEP, at="arg_groups/attention_hook.py:588", writes=("enable_deterministic_inference",))
def rl_on_policy_target_is_deterministic(view: ResolvingView) -> dict | None:
    """`--rl-on-policy-target` turns deterministic inference on (a store_true flag: nothing the user set is lost)."""
    if view["rl_on_policy_target"] is None:
        return None
    return {"enable_deterministic_inference": True}


def _deterministic(view: ResolvingView) -> bool:
    return bool(view["enable_deterministic_inference"])


def _triton(view: ResolvingView) -> Fix | None:
    """`--attention-backend triton`; None on HPU, which runs `torch_native` whatever backend is written
    (platform_hook.py:182): there only leaving deterministic inference off clears the check (`--device` is where
    the server runs, not a setting to trade)."""
    if str(view["device"] or "").split(":")[0] == "hpu":
        return None
    return Fix.unsafe(Set("attention_backend", "triton"), title="Set --attention-backend to triton")


def _not_deterministic(view: ResolvingView) -> Fix | None:
    return remove(view, "enable_deterministic_inference", "--enable-deterministic-inference")


@settings_rule("KV032", "deterministic-attention-backend", step=STEP, at="arg_groups/overrides.py:1119",
               via=BACKEND_CALL)
def deterministic_attention_backend(view: ResolvingView) -> Violation | None:
    """Flag deterministic inference on an attention backend that cannot run it.

    ## What it does
    With `--enable-deterministic-inference` (or `--rl-on-policy-target`),
    checks that the attention backend, written or chosen by the model
    (DeepSeek V3 on Blackwell takes `trtllm_mla`; known with `--gpu`), is
    one of `ascend`, `fa3`, `fa4`, `flashinfer`, `intel_xpu` or `triton`.

    ## Why SGLang refuses it
    Only those backends have batch-invariant kernels. SGLang stops with a
    ValueError.

    ## Example
    ```yaml
    enable-deterministic-inference: true
    attention-backend: flashmla
    ```
    Use instead:
    ```yaml
    enable-deterministic-inference: true
    attention-backend: triton
    ```

    ## Fix safety
    Another backend, or no deterministic inference, changes how the
    server runs: unsafe. Triton runs deterministically on every GPU and
    model. On HPU, which runs `torch_native` whatever backend is written,
    only dropping deterministic inference is offered.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1119` (`_deterministic_attention_backend`, called by
    `handle_deterministic_inference` at `attention_hook.py:640`, 0.5.23)
    """
    if not _deterministic(view):
        return None
    backend = chosen_backend(view)
    if backend is None or backend in DETERMINISTIC_BACKENDS:
        return None
    chosen = "" if view["attention_backend"] == backend else " (SGLang's choice for this device or model)"
    return Violation(f"deterministic inference does not run on the {backend} attention backend{chosen}",
                     args=("enable_deterministic_inference", "attention_backend"))


deterministic_attention_backend.fix(_triton)
deterministic_attention_backend.fix(_not_deterministic)


@settings_rule("KV031", "deterministic-absorbed-mla-backend", step=STEP, at="arg_groups/attention_hook.py:645")
def deterministic_absorbed_mla_backend(view: ResolvingView) -> Violation | None:
    """Flag deterministic inference of an absorbed-MLA model on a backend without the radix cache.

    ## What it does
    With deterministic inference on a DeepSeek-like (absorbed-MLA) model,
    checks for the `flashinfer` or `intel_xpu` attention backend (a model
    fact: known when the model's config is given).

    ## Why SGLang refuses it
    Those backends run deterministically only without the radix cache,
    which absorbed-MLA models need. SGLang stops with a ValueError.

    ## Example
    ```yaml
    enable-deterministic-inference: true
    attention-backend: flashinfer
    ```
    Use instead:
    ```yaml
    enable-deterministic-inference: true
    attention-backend: triton
    ```

    ## Fix safety
    Another attention backend runs other kernels: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/attention_hook.py:645` (`handle_deterministic_inference`, 0.5.23)
    """
    if not _deterministic(view):
        return None
    backend = chosen_backend(view)
    if backend not in DETERMINISTIC_BACKENDS or backend in RADIX_BACKENDS:
        return None  # KV032 refuses the others first; the fallbacks keep the radix cache
    if view.fact("model.architecture") not in ABSORBED_MLA:
        return None
    return Violation(f"deterministic inference of an absorbed-MLA model needs one of {', '.join(RADIX_BACKENDS)}, "
                     f"not the {backend} attention backend", args=("enable_deterministic_inference",
                                                                   "attention_backend"))


deterministic_absorbed_mla_backend.fix(_triton)


@settings_rule("KV138", "deterministic-absorbed-mla-fa4-needs-sm100", step=STEP,
               at="arg_groups/attention_hook.py:649")
def deterministic_absorbed_mla_fa4_needs_sm100(view: ResolvingView) -> Violation | None:
    """Flag deterministic inference of an absorbed-MLA model on FA4 off SM100/SM110.

    ## What it does
    With deterministic inference on a DeepSeek-like (absorbed-MLA) model
    and the `fa4` attention backend, checks the GPU for SM100 or SM110
    (B200, GB200, B300; known with `--gpu`).

    ## Why SGLang refuses it
    FA4 implements absorbed MLA only on those architectures. SGLang stops
    with a ValueError.

    ## Example
    ```yaml
    # on H200
    enable-deterministic-inference: true
    attention-backend: fa4
    ```
    Use instead:
    ```yaml
    enable-deterministic-inference: true
    attention-backend: triton
    ```

    ## Fix safety
    Another attention backend runs other kernels: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/attention_hook.py:649` (`handle_deterministic_inference`, 0.5.23)
    """
    if not _deterministic(view) or chosen_backend(view) != "fa4":
        return None
    if view.fact("model.architecture") not in ABSORBED_MLA or view.fact("platform.is_sm100_or_sm110"):
        return None
    return Violation("deterministic inference of an absorbed-MLA model on the fa4 attention backend needs an "
                     f"SM100 or SM110 GPU, not {view.fact('gpu.name')}",
                     args=("enable_deterministic_inference", "attention_backend"))


deterministic_absorbed_mla_fa4_needs_sm100.fix(_triton)


@derivation(step=STEP, at="arg_groups/attention_hook.py:658", writes=("disable_radix_cache",))
def deterministic_backend_disables_radix_cache(view: ResolvingView) -> dict | None:
    """Deterministic inference on a backend without radix-cache support (FlashInfer or Intel XPU, written, or
    FlashInfer as SGLang's fallback on Blackwell for most models) turns the radix cache off (a store_true flag:
    nothing the user set is lost)."""
    if not _deterministic(view) or deterministic_backend(view) in RADIX_BACKENDS:
        return None
    return {"disable_radix_cache": True}
