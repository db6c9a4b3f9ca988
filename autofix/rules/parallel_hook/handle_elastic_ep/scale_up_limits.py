"""``handle_elastic_ep``, what runtime scale-up does not run with (the scale timeout, tokenizer
workers, Ray, the elastic expert backup) and the control broadcast it turns on (parallel_hook.py:621-638)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.parallel_hook.handle_elastic_ep.common import STEP, _no_scale_up, _scaling_active


@settings_rule("EEP018", "elastic-scale-timeout-positive", step=STEP, at="arg_groups/parallel_hook.py:621")
def elastic_scale_timeout_positive(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with a scale timeout of 0 or below.

    ## What it does
    Under runtime scale-up, checks for `--elastic-ep-scale-timeout` at most 0.

    ## Why SGLang refuses it
    A scale-up waits that long for the joining group. SGLang stops on an
    assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    elastic-ep-scale-timeout: 0
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    ```

    ## Fix safety
    A timeout of 0 or below means nothing; removing it (600 s) is safe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:621` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view) or view["elastic_ep_scale_timeout"] > 0:
        return None
    return Violation(f"--elastic-ep-scale-timeout must be above 0, not {view['elastic_ep_scale_timeout']}",
                     args=("elastic_ep_scale_timeout",))


@elastic_scale_timeout_positive.fix
def _default_timeout(view: ResolvingView) -> Fix:
    return Fix.safe(Unset("elastic_ep_scale_timeout"), title="Remove --elastic-ep-scale-timeout (600 s)")


def _scale_up_refuses(view: ResolvingView, dest: str, what: str) -> Violation | None:
    """EEP019-EEP021: a setting runtime scale-up does not support."""
    if not _scaling_active(view):
        return None
    value = view[dest]
    if (value == 1) if dest == "tokenizer_worker_num" else not value:
        return None
    return Violation(f"runtime elastic EP scale-up {what}", args=(dest, "max_ep_size"))


@settings_rule("EEP019", "elastic-scale-up-tokenizer-workers", step=STEP, at="arg_groups/parallel_hook.py:624")
def elastic_scale_up_tokenizer_workers(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with more than one tokenizer worker.

    ## What it does
    Under runtime scale-up, checks for `--tokenizer-worker-num` other than 1.

    ## Why SGLang refuses it
    The scale-up is driven through a single tokenizer manager. SGLang stops
    on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    tokenizer-worker-num: 2
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    ```

    ## Fix safety
    One tokenizer worker changes the front end's throughput: unsafe. No
    runtime scale-up is the unsafe alternative.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:624` (`handle_elastic_ep`, 0.5.23)
    """
    return _scale_up_refuses(view, "tokenizer_worker_num",
                             f"needs --tokenizer-worker-num 1, not {view['tokenizer_worker_num']}")


@elastic_scale_up_tokenizer_workers.fix
def _one_tokenizer(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("tokenizer_worker_num"), title="Remove --tokenizer-worker-num (1)")


elastic_scale_up_tokenizer_workers.fix(_no_scale_up)


@settings_rule("EEP020", "elastic-scale-up-ray", step=STEP, at="arg_groups/parallel_hook.py:627")
def elastic_scale_up_ray(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up launched through Ray.

    ## What it does
    Under runtime scale-up, checks for `--use-ray`.

    ## Why SGLang refuses it
    A joining group is launched as its own server, outside Ray's placement.
    SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    use-ray: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    ```

    ## Fix safety
    Dropping `--use-ray` changes how the workers are launched: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:627` (`handle_elastic_ep`, 0.5.23)
    """
    return _scale_up_refuses(view, "use_ray", "does not support --use-ray")


@elastic_scale_up_ray.fix
def _no_ray(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("use_ray"), title="Remove --use-ray")


elastic_scale_up_ray.fix(_no_scale_up)


@settings_rule("EEP021", "elastic-scale-up-expert-backup", step=STEP, at="arg_groups/parallel_hook.py:630")
def elastic_scale_up_expert_backup(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with elastic expert backup.

    ## What it does
    Under runtime scale-up, checks for `--enable-elastic-expert-backup`.

    ## Why SGLang refuses it
    The expert backup is laid out for a fixed set of ranks. SGLang stops on
    an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    enable-elastic-expert-backup: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    ```

    ## Fix safety
    Dropping the backup drops a feature the user asked for: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:630` (`handle_elastic_ep`, 0.5.23)
    """
    return _scale_up_refuses(view, "enable_elastic_expert_backup",
                             "does not support --enable-elastic-expert-backup")


@elastic_scale_up_expert_backup.fix
def _no_backup(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("enable_elastic_expert_backup"), title="Remove --enable-elastic-expert-backup")


elastic_scale_up_expert_backup.fix(_no_scale_up)


@derivation(step=STEP, at="arg_groups/parallel_hook.py:634", writes=("enable_dp_attention_local_control_broadcast",))
def scale_up_local_control_broadcast(view: ResolvingView) -> dict | None:
    """Runtime scale-up turns on the DP-attention local control broadcast (a switch nobody sets off)."""
    if not _scaling_active(view) or view["enable_dp_attention_local_control_broadcast"]:
        return None
    return {"enable_dp_attention_local_control_broadcast": True}
