"""``check_server_args``: family D, LoRA (``check_lora_server_args``, ``arg_groups/lora_hook.py``, called at
``arg_groups/validation_hook.py:222``).

SGLang checks the LoRA settings on the final values, at Engine launch. ``check_lora_server_args`` turns LoRA on
for ``--lora-paths``, checks the batch and loading bounds, the speculative algorithm
(``check_lora_speculative_compatibility``, line 73) and the adapter settings; then
``check_lora_moe_runner_args`` (line 180) checks the LoRA MoE runners. Both call ``_check_v2_lora_modes`` (lines
54 and 208): two rules, one per path, so each sits at its place in SGLang's order (``Position.calls``).
"""

from __future__ import annotations

import math

from autofix.model import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView

STEP = "check_server_args"
LORA = "arg_groups/lora_hook.py"
CALL = 222  # validation_hook.py: check_lora_server_args(server_args)
V2_MODES = 54  # lora_hook.py: _check_v2_lora_modes(cfg, "--lora-backend triton_v2")
SPEC_CALL = 73  # lora_hook.py: check_lora_speculative_compatibility(server_args)
RUNNER_CALL = 180  # lora_hook.py: check_lora_moe_runner_args(server_args)
RUNNER_V2_MODES = 208  # lora_hook.py: _check_v2_lora_modes(cfg, f"--moe-runner-backend {backend}")
LORA_RUNNERS = ("lora_triton", "lora_cutedsl", "lora_marlin")
LORA_SPEC_ALGORITHMS = ("EAGLE", "EAGLE3", "DFLASH", "DSPARK")
DEFAULT_RANK = 16  # what the fix writes for a missing --max-lora-rank


def _remove(view: ResolvingView, dest: str, flag: str, why: str = "", safe: bool = False) -> Fix | None:
    if not view.is_explicit(dest):
        return None
    make = Fix.safe if safe else Fix.unsafe
    return make(Unset(dest), title=f"Remove {flag}{why}")


def _runner(view: ResolvingView) -> str:
    return view["moe_runner_backend"]


def _lora_runner(view: ResolvingView) -> bool:
    return str(_runner(view)).startswith("lora")


# ---------------------------------------------------------------------------------------------- derivations


@derivation(step=STEP, at=f"{LORA}:41", via=CALL, writes=("enable_lora",))
def lora_paths_enable_lora(view: ResolvingView) -> dict | None:
    """`--lora-paths` turns LoRA on when `--enable-lora` is not given (LORA001).

    SGLang logs a warning and sets `enable_lora`; a launch cannot write
    `--enable-lora` false (a flag, and a config's `false` passes nothing), so
    nothing the user wrote is replaced. Every LoRA check after it reads the
    value it declares.
    """
    if view["lora_paths"] and view["enable_lora"] is None:
        return {"enable_lora": True}
    return None


@derivation(step=STEP, at=f"{LORA}:57", via=CALL, writes=("enable_lora_overlap_loading",))
def lora_overlap_loading_default(view: ResolvingView) -> dict | None:
    """With LoRA on, an unset `--enable-lora-overlap-loading` is off."""
    if view["enable_lora"] and view["enable_lora_overlap_loading"] is None:
        return {"enable_lora_overlap_loading": False}
    return None


@derivation(step=STEP, at=f"{LORA}:141", via=CALL, writes=("lora_target_modules",))
def lora_target_modules_as_set(view: ResolvingView) -> dict | None:
    """With LoRA on, `--lora-target-modules` becomes a set: a module named twice counts once.

    SGLang keeps a set, without order; autofix declares its members sorted.
    """
    modules = view["lora_target_modules"]
    if not view["enable_lora"] or not modules:
        return None
    unique = sorted(set(modules))
    return None if unique == list(modules) else {"lora_target_modules": unique}


# ---------------------------------------------------------------------------------------------- check_lora_server_args


@settings_rule("LORA003", "max-loras-per-batch-positive", step=STEP, at=f"{LORA}:36", via=CALL)
def max_loras_per_batch_positive(view: ResolvingView) -> Violation | None:
    """Flag a `--max-loras-per-batch` below 1.

    ## What it does
    Checks for `--max-loras-per-batch` 0 or negative, with or without LoRA.

    ## Why SGLang refuses it
    A batch holds at least the base model's slot. SGLang asserts it when the
    Engine starts, before it looks at whether LoRA is on.

    ## Example
    ```yaml
    max-loras-per-batch: 0
    ```
    Use instead:
    ```yaml
    max-loras-per-batch: 8
    ```

    ## Fix safety
    Removing the setting restores the default, 8. Without LoRA nothing reads
    it: safe; with LoRA it changes how many adapters a batch mixes: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:36` (`check_lora_server_args`, run at
    `arg_groups/validation_hook.py:222`)
    """
    n = view["max_loras_per_batch"]
    if n > 0:
        return None
    return Violation(f"--max-loras-per-batch must be positive, not {n}", args=("max_loras_per_batch",))


@max_loras_per_batch_positive.fix
def _default_per_batch(view: ResolvingView) -> Fix | None:
    lora = bool(view["enable_lora"]) or bool(view["lora_paths"])
    return _remove(view, "max_loras_per_batch", "--max-loras-per-batch", " (8)", safe=not lora)


def v2_mode(view: ResolvingView) -> str | None:
    """The first mode SGLang's LoRA V2 kernels refuse (``_check_v2_lora_modes``), in its order, or None.

    The platform (known with ``--gpu``) and then the environment are read only when no flag decides; SGLang
    names the environment variable before ROCm, but either refuses.
    """
    if view["attn_dp_size"] > 1:
        return f"attention DP (--attn-dp-size {view['attn_dp_size']})"
    if view["enable_pdmux"]:
        return "PD-multiplexing (--enable-pdmux)"
    if view["enable_two_batch_overlap"]:
        return "two-batch overlap (--enable-two-batch-overlap)"
    if view.fact("platform.is_hip"):
        return "ROCm"
    if view.fact("env.SGLANG_EXPERIMENTAL_LORA_OPTI"):
        return "SGLANG_EXPERIMENTAL_LORA_OPTI"
    return None


_MODE_FLAGS = (("enable_pdmux", "--enable-pdmux"), ("enable_two_batch_overlap", "--enable-two-batch-overlap"))


def _drop_modes(view: ResolvingView) -> Fix | None:
    """Remove the PD-multiplexing and two-batch-overlap flags (the pipeline keeps it only if that is enough)."""
    ops = [Unset(dest) for dest, _ in _MODE_FLAGS if view.is_explicit(dest) and view[dest]]
    if not ops:
        return None
    names = " and ".join(flag for dest, flag in _MODE_FLAGS if Unset(dest) in ops)
    return Fix.unsafe(*ops, title=f"Remove {names}")


@settings_rule("LORA002", "triton-v2-lora-unsupported-mode", step=STEP, at=f"{LORA}:30", via=CALL,
               calls=(V2_MODES,))
def triton_v2_lora_unsupported_mode(view: ResolvingView) -> Violation | None:
    """Flag the `triton_v2` LoRA backend with a mode its kernels do not support.

    ## What it does
    Checks for LoRA on with `--lora-backend triton_v2` (and a MoE runner that
    is not a `lora_*` one: LORA025 covers those) together with attention DP
    (`--attn-dp-size` above 1), `--enable-pdmux`, `--enable-two-batch-overlap`,
    the environment variable `SGLANG_EXPERIMENTAL_LORA_OPTI` or a ROCm GPU.

    ## Why SGLang refuses it
    The V2 LoRA kernels lay out their batch metadata for one plain batch per
    rank. SGLang stops with `does not yet support ...` when the Engine starts.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    lora-backend: triton_v2
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    ```

    ## Fix safety
    Going back to the default LoRA backend (`csgmv`; `triton` with the
    `experimental_sgl_marlin` runner, which needs it) changes the kernels
    that run: unsafe. Removing `--enable-pdmux` or
    `--enable-two-batch-overlap` is the other unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:30` (`_check_v2_lora_modes`, run at `arg_groups/lora_hook.py:54` in
    `check_lora_server_args`, run at `arg_groups/validation_hook.py:222`)
    """
    if not view["enable_lora"] or view["lora_backend"] != "triton_v2" or _lora_runner(view):
        return None
    mode = v2_mode(view)
    if mode is None:
        return None
    return Violation(f"--lora-backend triton_v2 does not support {mode}",
                     args=("lora_backend", "attn_dp_size", "enable_pdmux", "enable_two_batch_overlap"))


@triton_v2_lora_unsupported_mode.fix
def _other_lora_backend(view: ResolvingView) -> Fix | None:
    if _runner(view) == "experimental_sgl_marlin":
        return Fix.unsafe(Set("lora_backend", "triton"), title="Set --lora-backend to triton")
    return _remove(view, "lora_backend", "--lora-backend", " (csgmv)")


triton_v2_lora_unsupported_mode.fix(_drop_modes)


@settings_rule("LORA004", "lora-overlap-loading-bounds-loaded", step=STEP, at=f"{LORA}:64", via=CALL)
def lora_overlap_loading_bounds_loaded(view: ResolvingView) -> Violation | None:
    """Flag LoRA overlap loading without a `--max-loaded-loras` of at most twice the batch's adapters.

    ## What it does
    Checks for LoRA on with `--enable-lora-overlap-loading` and
    `--max-loaded-loras` unset or above twice `--max-loras-per-batch`.

    ## Why SGLang refuses it
    Overlap loading pins every loaded adapter in CPU memory, so their number
    must be bounded. SGLang asserts it when the Engine starts.

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --lora-paths a=/loras/a --enable-lora-overlap-loading
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path m --lora-paths a=/loras/a --enable-lora-overlap-loading --max-loaded-loras 16
    ```

    ## Fix safety
    Setting `--max-loaded-loras` to twice `--max-loras-per-batch` (when the
    initial adapters fit) bounds the adapters kept loaded; removing
    `--enable-lora-overlap-loading` loads them without overlap. Both change
    how the server runs: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:64` (`check_lora_server_args`, run at
    `arg_groups/validation_hook.py:222`)
    """
    if not view["enable_lora"] or not view["enable_lora_overlap_loading"]:
        return None
    limit, loaded = view["max_loras_per_batch"] * 2, view["max_loaded_loras"]
    if loaded is not None and loaded <= limit:
        return None
    what = "unset" if loaded is None else str(loaded)
    return Violation(f"--enable-lora-overlap-loading needs --max-loaded-loras at most twice --max-loras-per-batch "
                     f"({limit}), not {what}", args=("max_loaded_loras", "enable_lora_overlap_loading"))


@lora_overlap_loading_bounds_loaded.fix
def _bound_loaded(view: ResolvingView) -> Fix | None:
    per_batch = view["max_loras_per_batch"]
    paths = view["lora_paths"] or []
    if per_batch < 1 or len(paths) > 2 * per_batch:
        return None
    return Fix.unsafe(Set("max_loaded_loras", 2 * per_batch), title=f"Set --max-loaded-loras to {2 * per_batch}")


@lora_overlap_loading_bounds_loaded.fix
def _no_overlap_loading(view: ResolvingView) -> Fix | None:
    return _remove(view, "enable_lora_overlap_loading", "--enable-lora-overlap-loading")


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
    """
    if not view["enable_lora"]:
        return None
    algorithm = view["speculative_algorithm"]
    if algorithm in (None, "NGRAM") or algorithm in LORA_SPEC_ALGORITHMS:
        return None
    return Violation(f"LoRA works with speculative algorithms NGRAM, EAGLE/NEXTN, EAGLE3, DFLASH and DSPARK, "
                     f"not {algorithm}", args=("speculative_algorithm", "enable_lora", "lora_paths"))


@lora_speculative_algorithm.fix
def _no_speculation(view: ResolvingView) -> Fix | None:
    return _remove(view, "speculative_algorithm", "--speculative-algorithm", " (no speculative decoding)")


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
    return _remove(view, "speculative_adaptive", "--speculative-adaptive")


@lora_speculative_unsupported_feature.fix
def _no_trtllm_runner(view: ResolvingView) -> Fix | None:
    ops = [Unset(d) for d in ("moe_runner_backend", "speculative_moe_runner_backend")
           if view.is_explicit(d) and view[d] == "experimental_sgl_trtllm"]
    return Fix.unsafe(*ops, title="Remove the experimental_sgl_trtllm MoE runner (auto)") if ops else None


lora_speculative_unsupported_feature.fix(_no_speculation)


# ---------------------------------------------------------------------------------------------- adapters and bounds


@settings_rule("LORA008", "lora-target-all-alone", step=STEP, at=f"{LORA}:147", via=CALL)
def lora_target_all_alone(view: ResolvingView) -> Violation | None:
    """Flag `--lora-target-modules all` together with other modules.

    ## What it does
    Checks for LoRA on with `all` among two or more distinct
    `--lora-target-modules` (a module named twice counts once).

    ## Why SGLang refuses it
    `all` stands for every module the model supports; SGLang asserts that it
    comes alone when the Engine starts.

    ## Example
    ```yaml
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all, q_proj]
    ```
    Use instead:
    ```yaml
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    ```

    ## Fix safety
    `all` already holds the other modules: writing `all` alone targets the
    same modules, safe. Dropping `all` (keeping the others) is unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:147` (`check_lora_server_args`, run at
    `arg_groups/validation_hook.py:222`)
    """
    modules = view["lora_target_modules"]
    if not view["enable_lora"] or not modules or "all" not in modules or len(set(modules)) == 1:
        return None
    others = ", ".join(sorted(set(modules) - {"all"}))
    return Violation(f"--lora-target-modules all must come alone, not with {others}", args=("lora_target_modules",))


@lora_target_all_alone.fix
def _all_alone(view: ResolvingView) -> Fix | None:
    return Fix.safe(Set("lora_target_modules", ["all"]), title="Set --lora-target-modules to all alone")


@lora_target_all_alone.fix
def _without_all(view: ResolvingView) -> Fix | None:
    rest = [m for m in dict.fromkeys(view["lora_target_modules"]) if m != "all"]
    return Fix.unsafe(Set("lora_target_modules", rest), title=f"Set --lora-target-modules to {' '.join(rest)}")


@settings_rule("LORA009", "lora-needs-rank-and-targets", step=STEP, at=f"{LORA}:152", via=CALL)
def lora_needs_rank_and_targets(view: ResolvingView) -> Violation | None:
    """Flag LoRA without adapters and without both a rank and target modules.

    ## What it does
    Checks for `--enable-lora` with no `--lora-paths` and without a
    non-zero `--max-lora-rank` and a non-empty `--lora-target-modules`.

    ## Why SGLang refuses it
    Without initial adapters SGLang cannot infer the shapes of the LoRA
    buffers. It asserts both are given when the Engine starts.

    ## Example
    ```yaml
    enable-lora: true
    ```
    Use instead:
    ```yaml
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    ```

    ## Fix safety
    Adding `--max-lora-rank 16` and `--lora-target-modules all` (only the
    missing ones) picks sizes the adapters loaded later must fit: unsafe.
    Removing `--enable-lora` turns LoRA off: unsafe, second.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:152` (`check_lora_server_args`, run at
    `arg_groups/validation_hook.py:222`)
    """
    if not view["enable_lora"] or view["lora_paths"]:
        return None
    if view["max_lora_rank"] and view["lora_target_modules"]:
        return None
    return Violation("LoRA without --lora-paths needs both --max-lora-rank and --lora-target-modules",
                     args=("enable_lora", "max_lora_rank", "lora_target_modules"))


@lora_needs_rank_and_targets.fix
def _rank_and_targets(view: ResolvingView) -> Fix | None:
    ops: list[Set] = []
    if not view["max_lora_rank"]:
        ops.append(Set("max_lora_rank", DEFAULT_RANK))
    if not view["lora_target_modules"]:
        ops.append(Set("lora_target_modules", ["all"]))
    names = " and ".join(f"--{op.dest.replace('_', '-')} {op.value if op.dest == 'max_lora_rank' else 'all'}"
                         for op in ops)
    return Fix.unsafe(*ops, title=f"Set {names}")


@lora_needs_rank_and_targets.fix
def _lora_off(view: ResolvingView) -> Fix | None:
    ops = [Unset(d) for d in ("enable_lora", "lora_paths") if view.is_explicit(d)]
    return Fix.unsafe(*ops, title="Remove --enable-lora (LoRA off)") if ops else None


@settings_rule("LORA010", "max-loaded-loras-below-per-batch", step=STEP, at=f"{LORA}:158", via=CALL)
def max_loaded_loras_below_per_batch(view: ResolvingView) -> Violation | None:
    """Flag a `--max-loaded-loras` below `--max-loras-per-batch`.

    ## What it does
    Checks for LoRA on with `--max-loaded-loras` smaller than
    `--max-loras-per-batch` (default 8).

    ## Why SGLang refuses it
    Every adapter of a batch must be loaded. SGLang asserts it when the
    Engine starts.

    ## Example
    ```yaml
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    max-loaded-loras: 4
    ```
    Use instead:
    ```yaml
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    max-loaded-loras: 8
    ```

    ## Fix safety
    Raising `--max-loaded-loras` to `--max-loras-per-batch` keeps more
    adapters in CPU memory; lowering `--max-loras-per-batch` mixes fewer
    adapters per batch. Both change how the server runs: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:158` (`check_lora_server_args`, run at
    `arg_groups/validation_hook.py:222`)
    """
    loaded, per_batch = view["max_loaded_loras"], view["max_loras_per_batch"]
    if not view["enable_lora"] or loaded is None or loaded >= per_batch:
        return None
    return Violation(f"--max-loaded-loras {loaded} is below --max-loras-per-batch {per_batch}",
                     args=("max_loaded_loras", "max_loras_per_batch"))


def _loaded_fits(view: ResolvingView, n: int) -> bool:
    """Whether ``--max-loaded-loras n`` passes the overlap-loading bound (LORA004)."""
    return not view["enable_lora_overlap_loading"] or n <= 2 * view["max_loras_per_batch"]


@max_loaded_loras_below_per_batch.fix
def _raise_loaded(view: ResolvingView) -> Fix | None:
    n = max(view["max_loras_per_batch"], len(view["lora_paths"] or []))
    if not _loaded_fits(view, n):
        return None
    return Fix.unsafe(Set("max_loaded_loras", n), title=f"Set --max-loaded-loras to {n}")


@max_loaded_loras_below_per_batch.fix
def _lower_per_batch(view: ResolvingView) -> Fix | None:
    loaded = view["max_loaded_loras"]
    if loaded < 1:
        return None
    return Fix.unsafe(Set("max_loras_per_batch", loaded), title=f"Set --max-loras-per-batch to {loaded}")


@settings_rule("LORA011", "lora-paths-exceed-max-loaded", step=STEP, at=f"{LORA}:162", via=CALL)
def lora_paths_exceed_max_loaded(view: ResolvingView) -> Violation | None:
    """Flag more `--lora-paths` than `--max-loaded-loras`.

    ## What it does
    Checks for LoRA on with more adapters in `--lora-paths` (each word
    counts) than `--max-loaded-loras`.

    ## Why SGLang refuses it
    The initial adapters are all loaded at start. SGLang asserts they fit
    when the Engine starts.

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --lora-paths a=/loras/a b=/loras/b --max-loras-per-batch 1 --max-loaded-loras 1
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path m --lora-paths a=/loras/a b=/loras/b --max-loras-per-batch 1 --max-loaded-loras 2
    ```

    ## Fix safety
    Raising `--max-loaded-loras` to the number of adapters keeps more of
    them in CPU memory: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:162` (`check_lora_server_args`, run at
    `arg_groups/validation_hook.py:222`)
    """
    loaded, paths = view["max_loaded_loras"], view["lora_paths"] or []
    if not view["enable_lora"] or loaded is None or len(paths) <= loaded:
        return None
    return Violation(f"--lora-paths gives {len(paths)} adapters, more than --max-loaded-loras {loaded}",
                     args=("lora_paths", "max_loaded_loras"))


@lora_paths_exceed_max_loaded.fix
def _loaded_for_paths(view: ResolvingView) -> Fix | None:
    n = len(view["lora_paths"])
    if n < view["max_loras_per_batch"] or not _loaded_fits(view, n):
        return None
    return Fix.unsafe(Set("max_loaded_loras", n), title=f"Set --max-loaded-loras to {n}")


@settings_rule("LORA013", "lora-drain-threshold-negative", step=STEP, at=f"{LORA}:176", via=CALL)
def lora_drain_threshold_negative(view: ResolvingView) -> Violation | None:
    """Flag a negative (or NaN) `--lora-drain-wait-threshold`.

    ## What it does
    Checks for LoRA on with `--lora-drain-wait-threshold` below 0, or `nan`.

    ## Why SGLang refuses it
    The threshold is a waiting time in seconds (0 turns draining off).
    SGLang asserts it is at least 0 when the Engine starts; `nan` is not.

    ## Example
    ```yaml
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    lora-drain-wait-threshold: -1
    ```
    Use instead:
    ```yaml
    enable-lora: true
    max-lora-rank: 16
    lora-target-modules: [all]
    lora-drain-wait-threshold: 0
    ```

    ## Fix safety
    Removing the setting restores 0, draining off: a guess at what was
    meant, unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:176` (`check_lora_server_args`, run at
    `arg_groups/validation_hook.py:222`)
    """
    threshold = view["lora_drain_wait_threshold"]
    if not view["enable_lora"] or threshold >= 0.0:
        return None
    shown = "nan" if math.isnan(threshold) else threshold
    return Violation(f"--lora-drain-wait-threshold must be at least 0, not {shown}",
                     args=("lora_drain_wait_threshold",))


@lora_drain_threshold_negative.fix
def _no_drain(view: ResolvingView) -> Fix | None:
    return _remove(view, "lora_drain_wait_threshold", "--lora-drain-wait-threshold", " (0: no draining)")


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
    return _remove(view, "speculative_moe_runner_backend", "--speculative-moe-runner-backend", " (inherit)")


def _auto_runner(view: ResolvingView) -> Fix | None:
    """The default MoE runner (and LoRA backend, when `triton_v2` would then meet LORA002's modes)."""
    if not view.is_explicit("moe_runner_backend"):
        return None
    ops = [Unset("moe_runner_backend")]
    if view.is_explicit("lora_backend") and view["lora_backend"] == "triton_v2":
        ops.append(Unset("lora_backend"))
    return Fix.unsafe(*ops, title=f"Remove --moe-runner-backend {_runner(view)} (auto)")


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
    if not _lora_runner(view) or view["enable_lora"]:
        return None
    return Violation(f"--moe-runner-backend {_runner(view)} needs LoRA (--enable-lora or --lora-paths)",
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
    if not _lora_runner(view) or not view["enable_lora"] or view["lora_backend"] == "triton_v2":
        return None
    return Violation(f"--moe-runner-backend {_runner(view)} needs --lora-backend triton_v2, not "
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
    kernels that run: unsafe. Removing `--enable-pdmux` or
    `--enable-two-batch-overlap` is the other unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:30` (`_check_v2_lora_modes`, run at `arg_groups/lora_hook.py:208` in
    `check_lora_moe_runner_args`, run at `arg_groups/lora_hook.py:180`, run at
    `arg_groups/validation_hook.py:222`)
    """
    if not _lora_runner(view) or not view["enable_lora"] or view["lora_backend"] != "triton_v2":
        return None
    mode = v2_mode(view)
    if mode is None:
        return None
    return Violation(f"--moe-runner-backend {_runner(view)} does not support {mode}",
                     args=("moe_runner_backend", "attn_dp_size", "enable_pdmux", "enable_two_batch_overlap"))


lora_moe_runner_unsupported_mode.fix(_auto_runner)
lora_moe_runner_unsupported_mode.fix(_drop_modes)


def _runner_gate(view: ResolvingView) -> bool:
    """A LoRA runner past LORA015 and LORA016 (LoRA on, `triton_v2`): the later runner checks apply to it.

    (Each of those checks its own condition; SGLang stops at the first.)
    """
    return _lora_runner(view) and bool(view["enable_lora"]) and view["lora_backend"] == "triton_v2"


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
    return Violation(f"--moe-runner-backend {_runner(view)} runs BF16, FP8 or ModelOpt NVFP4 experts, not "
                     f"--quantization {view['quantization']}", args=("quantization", "moe_runner_backend"))


@lora_moe_runner_quantization.fix
def _plain_runner(view: ResolvingView) -> Fix | None:
    return _remove(view, "moe_runner_backend", f"--moe-runner-backend {_runner(view)}", " (auto)")


@lora_moe_runner_quantization.fix
def _no_quantization(view: ResolvingView) -> Fix | None:
    return _remove(view, "quantization", "--quantization")


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
    if not _runner_gate(view) or view["quantization"] != "modelopt_fp4" or _runner(view) == "lora_marlin":
        return None
    return Violation(f"--moe-runner-backend {_runner(view)} cannot run ModelOpt NVFP4 experts: use lora_marlin",
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
    return Violation(f"--moe-runner-backend {_runner(view)} needs --moe-a2a-backend none, not "
                     f"{view['moe_a2a_backend']}", args=("moe_a2a_backend", "enable_waterfill", "moe_runner_backend"))


@lora_moe_runner_needs_a2a_none.fix
def _standard_dispatch(view: ResolvingView) -> Fix | None:
    ops = [Set("moe_a2a_backend", "none")]
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
    return Violation(f"--moe-runner-backend {_runner(view)} does not support --elastic-ep-join-mode",
                     args=("ep_join_mode", "moe_runner_backend"))


@lora_moe_runner_elastic_ep.fix
def _no_join(view: ResolvingView) -> Fix | None:
    return _remove(view, "ep_join_mode", "--elastic-ep-join-mode")


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
    return Violation(f"--moe-runner-backend {_runner(view)} needs trivial expert placement; remove {flags}",
                     args=(*found, "moe_runner_backend"))


@lora_moe_runner_trivial_placement.fix
def _trivial_placement(view: ResolvingView) -> Fix | None:
    ops = [Unset(dest) for dest, odd in _PLACEMENT if view.is_explicit(dest) and odd(view[dest])]
    return Fix.unsafe(*ops, title="Remove the expert placement settings (trivial)") if ops else None


lora_moe_runner_trivial_placement.fix(_plain_runner)
