"""``check_server_args``: family B's checks (sizes, pipeline parallelism, replicas) and A2A053 (two-batch
overlap, ``check_two_batch_overlap``)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.shared import attention_dp_over_tp, attn_dp_enabled

STEP = "check_server_args"
PP_COMPAT_CALL = 197  # validation_hook.py: check_pipeline_parallel_compat(cfg)
TBO_CALL = 346  # validation_hook.py: check_two_batch_overlap(server_args)


@settings_rule("PAR001", "tp-pp-divisible-by-nnodes", step=STEP, at="arg_groups/validation_hook.py:179")
def tp_pp_divisible_by_nnodes(view: ResolvingView) -> Violation | None:
    """Flag a node count that does not divide TP times PP.

    ## What it does
    Checks that `--tp-size` times `--pp-size` is a multiple of `--nnodes`
    (an elastic-EP scale joiner is exempt).

    ## Why SGLang refuses it
    Each node runs the same number of TP×PP ranks. SGLang stops on an
    assert when the Engine starts.

    ## Example
    ```yaml
    tp-size: 8
    nnodes: 3
    ```
    Use instead:
    ```yaml
    tp-size: 8
    nnodes: 2
    ```

    ## Fix safety
    Lowering `--nnodes` to the largest divisor of TP×PP below it changes
    where the server runs: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:179` (`check_server_args`, 0.5.23)
    """
    if view["ep_join_mode"] == "scale":
        return None
    ranks, nnodes = view["tp_size"] * view["pp_size"], view["nnodes"]
    if ranks % nnodes == 0:
        return None
    return Violation(f"--nnodes {nnodes} must divide --tp-size times --pp-size ({ranks})",
                     args=("nnodes", "tp_size", "pp_size"))


@tp_pp_divisible_by_nnodes.fix
def _fewer_nodes(view: ResolvingView) -> Fix | None:
    ranks, nnodes = view["tp_size"] * view["pp_size"], view["nnodes"]
    if ranks < 1 or nnodes < 1:
        return None
    fit = max(n for n in range(1, min(nnodes, ranks) + 1) if ranks % n == 0)
    if fit == 1:
        return remove(view, "nnodes", "--nnodes", " (one node)")
    return Fix.unsafe(Set("nnodes", fit), title=f"Set --nnodes to {fit} (it divides {ranks})")


@settings_rule("PP011", "pp-max-micro-batch-size-positive", step=STEP, at="arg_groups/validation_hook.py:183")
def pp_max_micro_batch_size_positive(view: ResolvingView) -> Violation | None:
    """Flag a pipeline micro-batch size below 1.

    ## What it does
    Checks for `--pp-max-micro-batch-size` 0 or negative (unset means
    SGLang computes it).

    ## Why SGLang refuses it
    A micro-batch holds at least one request. SGLang stops on an assert
    when the Engine starts, with or without pipeline parallelism.

    ## Example
    ```yaml
    pp-max-micro-batch-size: 0
    ```
    Use instead:
    ```yaml
    pp-max-micro-batch-size: 4
    ```

    ## Fix safety
    Removing the setting lets SGLang compute the size: a guess at what was
    meant, unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:183` (`check_server_args`, 0.5.23)
    """
    size = view["pp_max_micro_batch_size"]
    if size is None or size >= 1:
        return None
    return Violation(f"--pp-max-micro-batch-size must be at least 1 (or unset: computed), not {size}",
                     args=("pp_max_micro_batch_size",))


@pp_max_micro_batch_size_positive.fix
def _auto_micro_batch(view: ResolvingView) -> Fix | None:
    return remove(view, "pp_max_micro_batch_size", "--pp-max-micro-batch-size", " (computed)")


def _speculative_algorithm(view: ResolvingView) -> str | None:
    """The algorithm as SGLang has it by now: upper case, `NEXTN` named `EAGLE` (speculative_hook)."""
    algorithm = view["speculative_algorithm"]
    if algorithm is None:
        return None
    algorithm = str(algorithm).upper()
    return "EAGLE" if algorithm == "NEXTN" else algorithm


@settings_rule("PP005", "pp-speculative-needs-single-layer-eagle", step=STEP,
               at="arg_groups/validation_hook.py:132", via=PP_COMPAT_CALL)
def pp_speculative_needs_single_layer_eagle(view: ResolvingView) -> Violation | None:
    """Flag pipeline parallelism with a speculative algorithm other than single-layer EAGLE.

    ## What it does
    Checks for `--pp-size` above 1 with `--speculative-algorithm` other
    than `EAGLE`/`NEXTN` (`EAGLE3`, `STANDALONE`, `NGRAM`, `DFLASH`, ...),
    or with `--enable-multi-layer-eagle`. (DSpark has its own checks.)

    ## Why SGLang refuses it
    The pipeline stages relay one EAGLE draft step's state between them;
    other drafters are not wired through it. SGLang stops on an assert when
    the Engine starts.

    ## Example
    ```yaml
    pp-size: 2
    speculative-algorithm: NGRAM
    ```
    Use instead:
    ```yaml
    speculative-algorithm: NGRAM
    ```

    ## Fix safety
    Removing `--enable-multi-layer-eagle` (when it is the cause, on a PD
    prefill server: elsewhere PP009 refuses single-layer EAGLE next) or
    `--pp-size` each changes what runs: unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:132` (`check_pipeline_parallel_compat`, run at
    `arg_groups/validation_hook.py:197`)
    """
    if view["pp_size"] <= 1:
        return None
    algorithm = _speculative_algorithm(view)
    if algorithm is None or algorithm == "DSPARK":
        return None
    if algorithm == "EAGLE" and not view["enable_multi_layer_eagle"]:
        return None
    what = "multi-layer EAGLE" if algorithm == "EAGLE" else f"--speculative-algorithm {view['speculative_algorithm']}"
    return Violation(f"--pp-size {view['pp_size']} supports only single-layer EAGLE speculation, not {what}",
                     args=("pp_size", "speculative_algorithm"))


@pp_speculative_needs_single_layer_eagle.fix
def _single_layer_eagle(view: ResolvingView) -> Fix | None:
    if _speculative_algorithm(view) != "EAGLE" or view["disaggregation_mode"] != "prefill":
        return None  # off a PD prefill server single-layer EAGLE meets PP009 next
    return remove(view, "enable_multi_layer_eagle", "--enable-multi-layer-eagle")


@pp_speculative_needs_single_layer_eagle.fix
def _no_pp(view: ResolvingView) -> Fix | None:
    return remove(view, "pp_size", "--pp-size", " (no pipeline parallelism)")


@settings_rule("PP009", "pp-eagle-needs-prefill-role", step=STEP, at="arg_groups/validation_hook.py:161",
               via=PP_COMPAT_CALL)
def pp_eagle_needs_prefill_role(view: ResolvingView) -> Violation | None:
    """Flag pipeline parallelism with EAGLE speculation outside a PD prefill server.

    ## What it does
    Checks for `--pp-size` above 1 with single-layer EAGLE (`NEXTN`) and
    `--disaggregation-mode` other than `prefill`. With the environment
    variable `SGLANG_ENABLE_PP_SPEC` set, SGLang takes the colocated case
    when there is no speculative-adaptive mode and no attention DP; autofix
    knows the variable only when told, and stays silent on that case.

    ## Why SGLang refuses it
    Pipeline-parallel speculative decoding relays the draft state between
    stages only on PD prefill nodes (or through the experimental relay the
    variable turns on). SGLang stops on an assert when the Engine starts (at
    `validation_hook.py:145`-`156` with the variable set).

    ## Example
    ```yaml
    pp-size: 2
    speculative-algorithm: EAGLE
    disaggregation-mode: decode
    ```
    Use instead:
    ```yaml
    pp-size: 2
    speculative-algorithm: EAGLE
    disaggregation-mode: prefill
    ```

    ## Fix safety
    Removing `--pp-size` or `--speculative-algorithm` each drops something
    the user asked for (the prefill role is a deployment decision, not
    offered): unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:161` (`check_pipeline_parallel_compat`, run at
    `arg_groups/validation_hook.py:197`)
    """
    if view["pp_size"] <= 1 or _speculative_algorithm(view) != "EAGLE" or view["enable_multi_layer_eagle"]:
        return None
    mode = view["disaggregation_mode"]
    if mode == "prefill":
        return None
    refused_with_relay = mode != "null" or view["speculative_adaptive"] or attn_dp_enabled(view)
    if not refused_with_relay and view.fact("env.SGLANG_ENABLE_PP_SPEC"):
        return None
    return Violation(f"--pp-size {view['pp_size']} with EAGLE speculation runs only with --disaggregation-mode "
                     f"prefill, not {mode}", args=("pp_size", "speculative_algorithm", "disaggregation_mode"))


pp_eagle_needs_prefill_role.fix(_no_pp)


@pp_eagle_needs_prefill_role.fix
def _no_speculation(view: ResolvingView) -> Fix | None:
    return remove(view, "speculative_algorithm", "--speculative-algorithm", " (no speculative decoding)")


@settings_rule("PP010", "pp-excludes-min-free-slots-delay", step=STEP, at="arg_groups/validation_hook.py:165",
               via=PP_COMPAT_CALL)
def pp_excludes_min_free_slots_delay(view: ResolvingView) -> Violation | None:
    """Flag `--min-free-slots-delay` with pipeline parallelism.

    ## What it does
    Checks for `--min-free-slots-delay` set while `--pp-size` is above 1.

    ## Why SGLang refuses it
    Under PP the free slots of a micro-batch are bounded by
    `--pp-max-micro-batch-size`, so the threshold may never be reached and
    prefills would wait forever. SGLang stops on an assert when the Engine
    starts.

    ## Example
    ```yaml
    pp-size: 2
    min-free-slots-delay: 4
    ```
    Use instead:
    ```yaml
    pp-size: 2
    ```

    ## Fix safety
    Removing `--min-free-slots-delay` (or `--pp-size`) drops a setting the
    user chose: unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:165` (`check_pipeline_parallel_compat`, run at
    `arg_groups/validation_hook.py:197`)
    """
    if view["pp_size"] <= 1 or view["min_free_slots_delay"] is None:
        return None
    return Violation(f"--min-free-slots-delay does not work with --pp-size {view['pp_size']}",
                     args=("min_free_slots_delay", "pp_size"))


@pp_excludes_min_free_slots_delay.fix
def _no_min_free_slots_delay(view: ResolvingView) -> Fix | None:
    return remove(view, "min_free_slots_delay", "--min-free-slots-delay")


pp_excludes_min_free_slots_delay.fix(_no_pp)


@settings_rule("DP014", "replicas-single-node", step=STEP, at="arg_groups/validation_hook.py:199")
def replicas_single_node(view: ResolvingView) -> Violation | None:
    """Flag data-parallel replicas over more than one node.

    ## What it does
    Checks for `--dp-size` above 1 with `--nnodes` other than 1.

    ## Why SGLang refuses it
    Replicas are launched and balanced by one controller on one node;
    attention DP is the form of data parallelism that spans nodes. SGLang
    stops on an assert when the Engine starts.

    ## Example
    ```yaml
    tp-size: 8
    dp-size: 2
    nnodes: 2
    ```
    Use instead:
    ```yaml
    tp-size: 16
    attn-dp-size: 2
    nnodes: 2
    ```

    ## Fix safety
    Attention DP over as many GPUs (`--tp-size` times `--dp-size`,
    `--attn-dp-size` the old `--dp-size`) changes the layout; removing
    `--dp-size` halves the server (or more). Both unsafe, in that order;
    running one server per node is the other way out.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:199` (`check_server_args`, 0.5.23)
    """
    dp, nnodes = view["dp_size"], view["nnodes"]
    if dp <= 1 or nnodes == 1:
        return None
    return Violation(f"--dp-size {dp} replicas run on one node, not --nnodes {nnodes}; use --attn-dp-size across "
                     "nodes, or one server per node", args=("dp_size", "nnodes"))


@replicas_single_node.fix
def _attention_dp_across_nodes(view: ResolvingView) -> Fix | None:
    tp, dp = view["tp_size"], view["dp_size"]
    if not view.is_explicit("dp_size"):
        return None
    return Fix.unsafe(Unset("dp_size"), Set("attn_dp_size", dp), Set("tp_size", tp * dp),
                      title=f"Replace --dp-size {dp} with --attn-dp-size {dp} and --tp-size {tp * dp}")


@replicas_single_node.fix
def _no_replicas(view: ResolvingView) -> Fix | None:
    return remove(view, "dp_size", "--dp-size")


@settings_rule("PAR003", "base-gpu-id-non-negative", step=STEP, at="arg_groups/validation_hook.py:204")
def base_gpu_id_non_negative(view: ResolvingView) -> Violation | None:
    """Flag a negative `--base-gpu-id`.

    ## What it does
    Checks for `--base-gpu-id` below 0.

    ## Why SGLang refuses it
    It is the first CUDA device index the server takes. SGLang stops on an
    assert when the Engine starts.

    ## Example
    ```yaml
    base-gpu-id: -1
    ```
    Use instead:
    ```yaml
    base-gpu-id: 0
    ```

    ## Fix safety
    Removing it (GPU 0) picks the devices for the user: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:204` (`check_server_args`, 0.5.23)
    """
    base = view["base_gpu_id"]
    if base >= 0:
        return None
    return Violation(f"--base-gpu-id must be 0 or more, not {base}", args=("base_gpu_id",))


@base_gpu_id_non_negative.fix
def _gpu_0(view: ResolvingView) -> Fix | None:
    return remove(view, "base_gpu_id", "--base-gpu-id", " (GPU 0)")


@settings_rule("PAR006", "gpu-id-step-positive", step=STEP, at="arg_groups/validation_hook.py:205")
def gpu_id_step_positive(view: ResolvingView) -> Violation | None:
    """Flag a `--gpu-id-step` below 1.

    ## What it does
    Checks for `--gpu-id-step` 0 or negative. (The catalog lists this
    assert with PAR003; it has its own code here so each code has one
    SGLang line.)

    ## Why SGLang refuses it
    It is the distance between the device indices of consecutive ranks.
    SGLang stops on an assert when the Engine starts.

    ## Example
    ```yaml
    gpu-id-step: 0
    ```
    Use instead:
    ```yaml
    gpu-id-step: 1
    ```

    ## Fix safety
    Removing it (step 1) picks the devices for the user: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:205` (`check_server_args`, 0.5.23)
    """
    step = view["gpu_id_step"]
    if step >= 1:
        return None
    return Violation(f"--gpu-id-step must be 1 or more, not {step}", args=("gpu_id_step",))


@gpu_id_step_positive.fix
def _step_1(view: ResolvingView) -> Fix | None:
    return remove(view, "gpu_id_step", "--gpu-id-step", " (1)")


@settings_rule("PAR002", "moe-dense-tp-size-1-or-tp", step=STEP, at="arg_groups/validation_hook.py:207")
def moe_dense_tp_size_1_or_tp(view: ResolvingView) -> Violation | None:
    """Flag a dense-MLP TP size other than 1 or the TP size.

    ## What it does
    Checks for `--moe-dense-tp-size` set to something else than 1 or
    `--tp-size` (DWDP makes it 1).

    ## Why SGLang refuses it
    The dense layers of a MoE model run either replicated or over the whole
    TP group; other groupings are not implemented. SGLang stops on an
    assert when the Engine starts.

    ## Example
    ```yaml
    tp-size: 8
    moe-dense-tp-size: 2
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-dense-tp-size: 1
    ```

    ## Fix safety
    `1` (the dense layers replicated, the smallest size allowed) or
    removing it (the TP size) both change the layout: unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:207` (`check_server_args`, 0.5.23)
    """
    size, tp = view["moe_dense_tp_size"], view["tp_size"]
    if size in (None, 1, tp):
        return None
    return Violation(f"--moe-dense-tp-size must be 1 or the --tp-size ({tp}), not {size}",
                     args=("moe_dense_tp_size", "tp_size"))


@moe_dense_tp_size_1_or_tp.fix
def _dense_tp_1(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("moe_dense_tp_size", 1), title="Set --moe-dense-tp-size to 1")


@moe_dense_tp_size_1_or_tp.fix
def _dense_tp_default(view: ResolvingView) -> Fix | None:
    return remove(view, "moe_dense_tp_size", "--moe-dense-tp-size", " (the --tp-size)")


@settings_rule("A2A053", "tbo-without-a2a-needs-attention-dp", step=STEP, at="arg_groups/validation_hook.py:768",
               via=TBO_CALL)
def tbo_without_a2a_needs_attention_dp(view: ResolvingView) -> Violation | None:
    """Flag two-batch overlap without an a2a backend and without attention DP.

    ## What it does
    Checks for `--enable-two-batch-overlap` while the MoE a2a backend
    resolves to `none` (the default, `ascend_tp`, DWDP) and attention DP
    is off.

    ## Why SGLang refuses it
    Without an expert-parallel a2a backend, two-batch overlap only exists
    on the attention-DP path (it overlaps the DP gather and scatter with
    the other micro-batch). SGLang raises a ValueError when the Engine
    starts.

    ## Example
    ```yaml
    tp-size: 8
    enable-two-batch-overlap: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    moe-a2a-backend: deepep
    enable-two-batch-overlap: true
    ```

    ## Fix safety
    Each fix changes what runs: the `deepep` a2a backend (keeps the
    overlap; expert parallelism over the TP group), attention DP over the
    TP group (divided by `--attn-cp-size`), or no two-batch overlap.
    Unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:768` (`check_two_batch_overlap`, run at
    `arg_groups/validation_hook.py:346`)
    """
    if not view["enable_two_batch_overlap"] or view["moe_a2a_backend"] != "none" or attn_dp_enabled(view):
        return None
    return Violation("--enable-two-batch-overlap without an a2a backend (--moe-a2a-backend resolves to none) "
                     "needs attention DP (--attn-dp-size)", args=("enable_two_batch_overlap", "moe_a2a_backend"))


@tbo_without_a2a_needs_attention_dp.fix
def _tbo_deepep(view: ResolvingView) -> Fix | None:
    if view["dwdp_size"] > 1:
        return None  # DWDP forces the backend back to none
    return Fix.unsafe(Set("moe_a2a_backend", "deepep"), title="Set --moe-a2a-backend to deepep")


@tbo_without_a2a_needs_attention_dp.fix
def _tbo_attention_dp(view: ResolvingView) -> Fix | None:
    size = attention_dp_over_tp(view)
    if size <= 1 or view["dp_size"] > 1:
        return None
    return Fix.unsafe(Set("attn_dp_size", size), title=f"Set --attn-dp-size to {size}")


@tbo_without_a2a_needs_attention_dp.fix
def _no_tbo(view: ResolvingView) -> Fix | None:
    return remove(view, "enable_two_batch_overlap", "--enable-two-batch-overlap")
