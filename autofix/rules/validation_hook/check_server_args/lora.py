"""``check_server_args``: family D, LoRA (``check_lora_server_args``, ``arg_groups/lora_hook.py``, called at
``arg_groups/validation_hook.py:222``).

SGLang checks the LoRA settings on the final values, at Engine launch. ``check_lora_server_args`` turns LoRA on
for ``--lora-paths``, checks the batch and loading bounds, the speculative algorithm
(``check_lora_speculative_compatibility``, line 73) and the adapter settings; then
``check_lora_moe_runner_args`` (line 180) checks the LoRA MoE runners. Both call ``_check_v2_lora_modes`` (lines
54 and 208): two rules, one per path, so each sits at its place in SGLang's order (``Position.calls``).
This module holds the derivations, the bounds and the adapter settings; ``lora_speculative`` the speculative
checks (line 73) and ``lora_moe_runners`` the runner checks (line 180).
"""

from __future__ import annotations

import math

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove

STEP = "check_server_args"
LORA = "arg_groups/lora_hook.py"
CALL = 222  # validation_hook.py: check_lora_server_args(server_args)
V2_MODES = 54  # lora_hook.py: _check_v2_lora_modes(cfg, "--lora-backend triton_v2")
SPEC_CALL = 73  # lora_hook.py: check_lora_speculative_compatibility(server_args)
RUNNER_CALL = 180  # lora_hook.py: check_lora_moe_runner_args(server_args)
RUNNER_V2_MODES = 208  # lora_hook.py: _check_v2_lora_modes(cfg, f"--moe-runner-backend {backend}")
DEFAULT_RANK = 16  # what the fix writes for a missing --max-lora-rank


def runner(view: ResolvingView) -> str:
    """The MoE runner SGLang resolved."""
    return view["moe_runner_backend"]


def lora_runner(view: ResolvingView) -> bool:
    """Whether the MoE runner is a LoRA one (`lora_triton`, `lora_cutedsl`, `lora_marlin`)."""
    return str(runner(view)).startswith("lora")


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
    return remove(view, "max_loras_per_batch", "--max-loras-per-batch", " (8)", safe=not lora)


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


def drop_modes(view: ResolvingView) -> Fix | None:
    """Remove every mode of ``v2_mode`` the launch writes: attention DP (`--attn-dp-size`), `--enable-pdmux`,
    `--enable-two-batch-overlap`. Removing only some leaves the check refusing the next one (`--attn-dp-size 8
    --enable-two-batch-overlap` without the flag is still attention DP), so it is all of them or no fix: None when a
    mode is not written as such (attention DP from `--enable-dp-attention --dp-size` or a model's layout), on a ROCm
    GPU, or with SGLANG_EXPERIMENTAL_LORA_OPTI set, none of which removing a flag turns off."""
    ops, flags = [], []
    if view["attn_dp_size"] > 1:
        if not view.is_explicit("attn_dp_size") or view.written("attn_dp_size") != view["attn_dp_size"]:
            return None
        ops.append(Unset("attn_dp_size"))
        flags.append("--attn-dp-size")
    for dest, flag in _MODE_FLAGS:
        if view[dest]:
            if not view.is_explicit(dest):
                return None
            ops.append(Unset(dest))
            flags.append(flag)
    if not ops or view.fact("platform.is_hip") or view.fact("env.SGLANG_EXPERIMENTAL_LORA_OPTI"):
        return None
    return Fix.unsafe(*ops, title=f"Remove {' and '.join(flags)}")


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
    that run: unsafe. The other unsafe fix removes every mode written
    (`--attn-dp-size`, `--enable-pdmux`, `--enable-two-batch-overlap`):
    only all of them clear the check, so it is not offered when one is not
    a flag to remove (attention DP from `--enable-dp-attention`, ROCm, the
    environment variable).

    ## SGLang source
    `sglang/srt/arg_groups/lora_hook.py:30` (`_check_v2_lora_modes`, run at `arg_groups/lora_hook.py:54` in
    `check_lora_server_args`, run at `arg_groups/validation_hook.py:222`)
    """
    if not view["enable_lora"] or view["lora_backend"] != "triton_v2" or lora_runner(view):
        return None
    mode = v2_mode(view)
    if mode is None:
        return None
    return Violation(f"--lora-backend triton_v2 does not support {mode}",
                     args=("lora_backend", "attn_dp_size", "enable_pdmux", "enable_two_batch_overlap"))


@triton_v2_lora_unsupported_mode.fix
def _other_lora_backend(view: ResolvingView) -> Fix | None:
    if runner(view) == "experimental_sgl_marlin":
        return Fix.unsafe(Set("lora_backend", "triton"), title="Set --lora-backend to triton")
    return remove(view, "lora_backend", "--lora-backend", " (csgmv)")


triton_v2_lora_unsupported_mode.fix(drop_modes)


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
    return remove(view, "enable_lora_overlap_loading", "--enable-lora-overlap-loading")


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
    return remove(view, "lora_drain_wait_threshold", "--lora-drain-wait-threshold", " (0: no draining)")


