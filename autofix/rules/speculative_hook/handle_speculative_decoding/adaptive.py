"""Adaptive speculative steps (speculative_hook.py:261-264, ``_maybe_disable_adaptive`` and
``_init_adaptive_speculative_params``): when SGLang turns `--speculative-adaptive` off, and the steps it adapts among."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.speculative_hook.handle_speculative_decoding.common import STEP, algorithm, dp_attention

DISABLE_CALL = 262  # speculative_hook.py: _maybe_disable_adaptive(server_args)
INIT_CALL = 264  # speculative_hook.py: _init_adaptive_speculative_params(server_args)
# The union of the built-in adaptive config's candidate steps (adaptive_spec_params.py: DEFAULT_ADAPTIVE_CONFIG)
DEFAULT_CANDIDATE_STEPS = (0, 1, 3, 5, 7)


def unsupported_reason(view: ResolvingView) -> str | None:
    """Why adaptive steps cannot run (`adaptive_unsupported_reason`), or None."""
    name = algorithm(view)
    if name not in ("EAGLE", "EAGLE3"):
        return f"--speculative-algorithm {name}"
    if view.fact("platform.is_out_of_tree"):
        view.fact("platform.speculative_worker")  # a plugin's worker: not modelled
    topk = view["speculative_eagle_topk"]
    if topk is not None and topk != 1:
        return f"--speculative-eagle-topk {topk}"
    if dp_attention(view):
        return "attention DP"
    if view["enable_multi_layer_eagle"]:
        return "--enable-multi-layer-eagle"
    if view["enable_two_batch_overlap"]:
        return "--enable-two-batch-overlap"
    if view["enable_pdmux"]:
        return "--enable-pdmux"
    return None


def _adaptive_cause(view: ResolvingView) -> str:
    return str(unsupported_reason(view))


@derivation(step=STEP, at="arg_groups/speculative_hook.py:1385", via=DISABLE_CALL, writes=("speculative_adaptive",),
            code="SPEC097", name="adaptive-speculation-disabled", cause=_adaptive_cause)
def adaptive_speculation_disabled(view: ResolvingView) -> dict | None:
    """Adaptive steps run only for EAGLE or EAGLE3 with top-k 1.

    ## What it does
    Warns at `--speculative-adaptive` when SGLang turns it off: an
    algorithm other than EAGLE, EAGLE3 or NEXTN, a top-k other than 1,
    attention DP, `--enable-multi-layer-eagle`,
    `--enable-two-batch-overlap` or `--enable-pdmux`.

    ## Why it matters
    SGLang logs a warning and runs the static steps: the flag does
    nothing.

    ## Example
    ```yaml
    speculative-algorithm: NGRAM
    speculative-adaptive: true
    ```
    Use instead:
    ```yaml
    speculative-algorithm: NGRAM
    ```

    ## Fix safety
    Removing the ignored flag resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1385` (`_maybe_disable_adaptive`, 0.5.23)
    """
    if not view["speculative_adaptive"] or unsupported_reason(view) is None:
        return None
    return {"speculative_adaptive": False}


def candidate_steps(view: ResolvingView) -> tuple[int, ...]:
    """The steps the adaptive config offers: the built-in one's, or a file's (not read: unknown)."""
    if view["speculative_adaptive_config"] is not None:
        return view.fact("file.speculative_adaptive_config.candidate_steps")
    return DEFAULT_CANDIDATE_STEPS


@derivation(step=STEP, at="arg_groups/speculative_hook.py:1410", via=INIT_CALL,
            writes=("speculative_eagle_topk", "speculative_num_steps"))
def adaptive_defaults(view: ResolvingView) -> dict | None:
    """Adaptive steps take top-k 1 and, without `--speculative-num-steps`, the middle candidate step."""
    if not view["speculative_adaptive"]:
        return None
    out = {}
    if view["speculative_eagle_topk"] is None:
        out["speculative_eagle_topk"] = 1
    if view["speculative_num_steps"] is None:
        steps = candidate_steps(view)
        out["speculative_num_steps"] = steps[len(steps) // 2]
    return out


@settings_rule("SPEC082", "adaptive-steps-candidate", step=STEP, at="arg_groups/speculative_hook.py:1417",
               via=INIT_CALL)
def adaptive_steps_candidate(view: ResolvingView) -> Violation | None:
    """Flag adaptive speculation whose steps are not among the adaptive config's candidates.

    ## What it does
    Checks, when `--speculative-adaptive` runs (EAGLE or EAGLE3, top-k 1,
    no attention DP, ...), that `--speculative-num-steps` is one of the
    candidate steps of the adaptive config: 0, 1, 3, 5 or 7 for the
    built-in one (a `--speculative-adaptive-config` file is not read:
    silent).

    ## Why SGLang refuses it
    Adaptive decoding starts at the given steps and moves among the
    candidates; a start outside them has no tier. SGLang stops with a
    ValueError.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-adaptive: true
    speculative-num-steps: 4
    speculative-eagle-topk: 1
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    speculative-adaptive: true
    speculative-num-steps: 3
    speculative-eagle-topk: 1
    ```

    ## Fix safety
    The nearest candidate is not the number written, and removing the
    steps lets SGLang start in the middle: both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1417` (`_init_adaptive_speculative_params`, 0.5.23)
    """
    if not view["speculative_adaptive"]:
        return None
    steps, candidates = view["speculative_num_steps"], candidate_steps(view)
    if steps in candidates:
        return None
    return Violation(f"--speculative-num-steps {steps} is not a candidate step of the adaptive config "
                     f"({', '.join(map(str, candidates))})", args=("speculative_num_steps", "speculative_adaptive"))


@adaptive_steps_candidate.fix
def _nearest_candidate(view: ResolvingView) -> Fix:
    steps = view["speculative_num_steps"]
    nearest = min(candidate_steps(view), key=lambda c: (abs(c - steps), -c))
    return Fix.unsafe(Set("speculative_num_steps", nearest), title=f"Set --speculative-num-steps to {nearest}")


@adaptive_steps_candidate.fix
def _no_adaptive(view: ResolvingView) -> Fix | None:
    if not view.is_explicit("speculative_adaptive"):
        return None
    return Fix.unsafe(Unset("speculative_adaptive"), title="Remove --speculative-adaptive")


def _draft_tokens_cause(view: ResolvingView) -> str:
    return f"--speculative-adaptive with --speculative-num-steps {view['speculative_num_steps']}"


@derivation(step=STEP, at="arg_groups/speculative_hook.py:1423", via=INIT_CALL,
            writes=("speculative_num_draft_tokens",), code="SPEC096", name="adaptive-draft-tokens",
            cause=_draft_tokens_cause)
def adaptive_draft_tokens(view: ResolvingView) -> dict | None:
    """Adaptive steps draft steps + 1 tokens.

    ## What it does
    Warns at `--speculative-num-draft-tokens` other than the steps + 1 when
    `--speculative-adaptive` runs: SGLang replaces it.

    ## Why it matters
    SGLang does not log it: adaptive decoding sizes the draft from the
    steps it starts at.

    ## Example
    ```yaml
    speculative-algorithm: EAGLE
    speculative-adaptive: true
    speculative-num-steps: 3
    speculative-eagle-topk: 1
    speculative-num-draft-tokens: 8
    ```
    Use instead:
    ```yaml
    speculative-algorithm: EAGLE
    speculative-adaptive: true
    speculative-num-steps: 3
    speculative-eagle-topk: 1
    speculative-num-draft-tokens: 4
    ```

    ## Fix safety
    Writing the count that runs resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/speculative_hook.py:1423` (`_init_adaptive_speculative_params`, 0.5.23)
    """
    if not view["speculative_adaptive"]:
        return None
    steps = view["speculative_num_steps"]
    if view["speculative_num_draft_tokens"] == steps + 1:
        return None
    return {"speculative_num_draft_tokens": steps + 1}
