"""``handle_dwdp`` (``arg_groups/parallel_hook.py:433``, 0.5.23): what DWDP refuses, and the layout it declares.

SGLang returns early for `--dwdp-size` 1 or less, so every check here is for
a DWDP size above 1 (the assert at :438, `dwdp_size >= 2`, is unreachable).
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView

STEP = "handle_dwdp"


def _dwdp(view: ResolvingView) -> str:
    return f"--dwdp-size {view['dwdp_size']}"


def _no_dwdp(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("dwdp_size"), title="Remove --dwdp-size")


@settings_rule("DWDP002", "dwdp-size-is-tp-size", step=STEP, at="arg_groups/parallel_hook.py:441")
def dwdp_size_is_tp_size(view: ResolvingView) -> Violation | None:
    """Flag a DWDP size other than `--tp-size`.

    ## What it does
    Checks for `--dwdp-size` above 1 that differs from `--tp-size`.

    ## Why SGLang refuses it
    DWDP partitions the experts over the whole TP group (each rank one
    attention DP rank and one EP rank), so its group is the TP group. SGLang
    stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    dwdp-size: 4
    ```
    Use instead:
    ```yaml
    tp-size: 8
    dwdp-size: 8
    ```

    ## Fix safety
    Setting `--dwdp-size` to `--tp-size` keeps DWDP and the GPU count but
    changes the group size the user wrote (and with it `ep_size` and the
    attention DP size DWDP declares): unsafe. Removing `--dwdp-size` (no
    DWDP) is unsafe too, offered second.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:441` (`handle_dwdp`, 0.5.23)
    """
    dwdp, tp_size = view["dwdp_size"], view["tp_size"]
    if dwdp <= 1 or dwdp == tp_size:
        return None
    return Violation(f"--dwdp-size {dwdp} must equal --tp-size {tp_size}", args=("dwdp_size", "tp_size"))


@dwdp_size_is_tp_size.fix
def _dwdp_tp_size(view: ResolvingView) -> Fix | None:
    tp_size = view["tp_size"]
    if tp_size <= 1:
        return None
    return Fix.unsafe(Set("dwdp_size", tp_size), title=f"Set --dwdp-size to {tp_size} (the --tp-size)")


dwdp_size_is_tp_size.fix(_no_dwdp)


@settings_rule("DWDP003", "dwdp-not-on-decode", step=STEP, at="arg_groups/parallel_hook.py:444")
def dwdp_not_on_decode(view: ResolvingView) -> Violation | None:
    """Flag DWDP on a PD decode server.

    ## What it does
    Checks for `--dwdp-size` above 1 with `--disaggregation-mode decode`.

    ## Why SGLang refuses it
    DWDP fetches remote expert weights ahead of each MoE layer, which pays
    off for long prefill batches, not for decode steps. SGLang only takes it
    on colocated (`null`) and prefill servers, and stops on an assert while
    resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    dwdp-size: 8
    disaggregation-mode: decode
    ```
    Use instead:
    ```yaml
    tp-size: 8
    disaggregation-mode: decode
    ```

    ## Fix safety
    Removing `--dwdp-size` changes the expert layout of the decode server:
    unsafe. (The server's role is not changed.)

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:444` (`handle_dwdp`, 0.5.23)
    """
    if view["dwdp_size"] <= 1 or view["disaggregation_mode"] in ("null", "prefill"):
        return None
    return Violation(f"--dwdp-size runs on colocated and prefill servers only, not with --disaggregation-mode "
                     f"{view['disaggregation_mode']}", args=("dwdp_size", "disaggregation_mode"))


dwdp_not_on_decode.fix(_no_dwdp)


@settings_rule("DWDP004", "dwdp-excludes-eplb", step=STEP, at="arg_groups/parallel_hook.py:448")
def dwdp_excludes_eplb(view: ResolvingView) -> Violation | None:
    """Flag DWDP with EPLB.

    ## What it does
    Checks for `--dwdp-size` above 1 with `--enable-eplb`.

    ## Why SGLang refuses it
    DWDP partitions the experts statically over its group; EPLB moves
    experts between ranks at run time. SGLang stops on an assert while
    resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    dwdp-size: 8
    enable-eplb: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    dwdp-size: 8
    ```

    ## Fix safety
    Which feature to keep is the user's call: removing `--enable-eplb`
    (first) and removing `--dwdp-size` are both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:448` (`handle_dwdp`, 0.5.23)
    """
    if view["dwdp_size"] <= 1 or not view["enable_eplb"]:
        return None
    return Violation("--dwdp-size partitions the experts statically and does not run with --enable-eplb",
                     args=("enable_eplb", "dwdp_size"))


@dwdp_excludes_eplb.fix
def _no_eplb(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("enable_eplb"), title="Remove --enable-eplb")


dwdp_excludes_eplb.fix(_no_dwdp)


@settings_rule("DWDP005", "dwdp-excludes-speculative", step=STEP, at="arg_groups/parallel_hook.py:451")
def dwdp_excludes_speculative(view: ResolvingView) -> Violation | None:
    """Flag DWDP with speculative decoding.

    ## What it does
    Checks for `--dwdp-size` above 1 with a `--speculative-algorithm`
    (any, as written: SGLang has not resolved its aliases yet).

    ## Why SGLang refuses it
    DWDP's weight prefetch is built for the target model's MoE layers only;
    MTP and draft workers are not wired into it. SGLang stops on an assert
    while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    dwdp-size: 8
    speculative-algorithm: EAGLE
    ```
    Use instead:
    ```yaml
    tp-size: 8
    dwdp-size: 8
    ```

    ## Fix safety
    Removing `--speculative-algorithm` (first) turns speculative decoding
    off; removing `--dwdp-size` turns DWDP off: both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:451` (`handle_dwdp`, 0.5.23)
    """
    algorithm = view["speculative_algorithm"]
    if view["dwdp_size"] <= 1 or algorithm is None:
        return None
    return Violation(f"--dwdp-size does not run with speculative decoding (--speculative-algorithm {algorithm})",
                     args=("speculative_algorithm", "dwdp_size"))


@dwdp_excludes_speculative.fix
def _no_speculative(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("speculative_algorithm"), title="Remove --speculative-algorithm")


dwdp_excludes_speculative.fix(_no_dwdp)


@settings_rule("DWDP006", "dwdp-excludes-pp", step=STEP, at="arg_groups/parallel_hook.py:454")
def dwdp_excludes_pp(view: ResolvingView) -> Violation | None:
    """Flag DWDP with pipeline parallelism.

    ## What it does
    Checks for `--dwdp-size` above 1 with `--pp-size` other than 1.

    ## Why SGLang refuses it
    DWDP's group is the TP group of a single pipeline stage. SGLang stops on
    an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    dwdp-size: 8
    pp-size: 2
    ```
    Use instead:
    ```yaml
    tp-size: 8
    dwdp-size: 8
    ```

    ## Fix safety
    Removing `--pp-size` halves (or more) the GPUs the launch uses; removing
    `--dwdp-size` turns DWDP off: both unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:454` (`handle_dwdp`, 0.5.23)
    """
    if view["dwdp_size"] <= 1 or view["pp_size"] == 1:
        return None
    return Violation(f"--dwdp-size does not run with --pp-size {view['pp_size']}", args=("pp_size", "dwdp_size"))


@dwdp_excludes_pp.fix
def _no_pp(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("pp_size"), title="Remove --pp-size")


dwdp_excludes_pp.fix(_no_dwdp)


@settings_rule("DWDP007", "dwdp-excludes-two-batch-overlap", step=STEP, at="arg_groups/parallel_hook.py:455")
def dwdp_excludes_two_batch_overlap(view: ResolvingView) -> Violation | None:
    """Flag DWDP with two-batch overlap.

    ## What it does
    Checks for `--dwdp-size` above 1 with `--enable-two-batch-overlap`.

    ## Why SGLang refuses it
    DWDP's prefetch events follow one batch through the layers; two
    overlapped micro-batches would break their order. SGLang stops on an
    assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    dwdp-size: 8
    enable-two-batch-overlap: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    dwdp-size: 8
    ```

    ## Fix safety
    Removing `--enable-two-batch-overlap` keeps the layout and the model's
    output, only the overlap optimisation goes: safe. Removing
    `--dwdp-size` is unsafe, offered second.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:455` (`handle_dwdp`, 0.5.23)
    """
    if view["dwdp_size"] <= 1 or not view["enable_two_batch_overlap"]:
        return None
    return Violation("--dwdp-size does not run with --enable-two-batch-overlap",
                     args=("enable_two_batch_overlap", "dwdp_size"))


@dwdp_excludes_two_batch_overlap.fix
def _no_tbo(view: ResolvingView) -> Fix:
    return Fix.safe(Unset("enable_two_batch_overlap"), title="Remove --enable-two-batch-overlap")


dwdp_excludes_two_batch_overlap.fix(_no_dwdp)


def _dwdp_declares(view: ResolvingView, dest: str, value: object) -> dict | None:
    """``{dest: value}`` when DWDP is on (size above 1) and ``dest`` is not ``value`` already."""
    if view[dest] == value:
        return None  # what DWDP would declare, whatever its size
    if not _dwdp_layout(view):
        return None
    return {dest: value}


def _dwdp_layout(view: ResolvingView) -> bool:
    """Whether SGLang declares DWDP's layout: DWDP on, over the whole TP group (DWDP002, :441, refuses any other
    size before the declarations)."""
    return view["dwdp_size"] > 1 and view["dwdp_size"] == view["tp_size"]


@derivation(step=STEP, at="arg_groups/parallel_hook.py:466", writes=("attn_dp_size", "dp_size"),
            code="DWDP008", name="dwdp-overrides-layout", cause=_dwdp)
def dwdp_overrides_layout(view: ResolvingView) -> dict | None:
    """DWDP declares its layout: attention DP and EP over the DWDP group, no DP replicas, MoE-DP or a2a backend.

    ## What it does
    Warns at a value `--dwdp-size` (above 1) replaces: `--attn-dp-size` and
    `--ep-size` become the DWDP size; `--dp-size`, `--moe-dp-size` and
    `--moe-dense-tp-size` 1; `--moe-a2a-backend` `none`; DP LM head and
    local control broadcast on, CUDA graphs off.

    ## Why it matters
    DWDP partitions the experts over its own group and exchanges weights,
    not tokens: its layout wins over the config, whatever the config says;
    checks after DWDP (EP003, the DP and CP checks) see DWDP's values.

    ## Example
    ```yaml
    tp-size: 8
    dwdp-size: 8
    ep-size: 2
    moe-a2a-backend: deepep
    ```
    Use instead:
    ```yaml
    tp-size: 8
    dwdp-size: 8
    ep-size: 8
    ```

    ## Fix safety
    Writing the values DWDP uses (the size; no backend) resolves the launch
    to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:466` to `:503` (`handle_dwdp`, 0.5.23)
    """
    if not _dwdp_layout(view):
        return None
    return {"attn_dp_size": view["dwdp_size"], "dp_size": 1}


@derivation(step=STEP, at="arg_groups/parallel_hook.py:472", writes=("enable_dp_attention_local_control_broadcast",),
            code="DWDP008", name="dwdp-overrides-layout", cause=_dwdp)
def dwdp_local_control_broadcast(view: ResolvingView) -> dict | None:
    """DWDP turns on the local control broadcast of attention DP (documented with `dwdp_overrides_layout`)."""
    return _dwdp_declares(view, "enable_dp_attention_local_control_broadcast", True)


@derivation(step=STEP, at="arg_groups/parallel_hook.py:475", writes=("enable_dp_lm_head",),
            code="DWDP008", name="dwdp-overrides-layout", cause=_dwdp)
def dwdp_dp_lm_head(view: ResolvingView) -> dict | None:
    """DWDP turns on the DP LM head (documented with `dwdp_overrides_layout`)."""
    return _dwdp_declares(view, "enable_dp_lm_head", True)


@derivation(step=STEP, at="arg_groups/parallel_hook.py:480", writes=("moe_dense_tp_size",),
            code="DWDP008", name="dwdp-overrides-layout", cause=_dwdp)
def dwdp_moe_dense_tp_size(view: ResolvingView) -> dict | None:
    """DWDP sets the dense-MLP TP size to 1 (documented with `dwdp_overrides_layout`)."""
    return _dwdp_declares(view, "moe_dense_tp_size", 1)


@derivation(step=STEP, at="arg_groups/parallel_hook.py:485", writes=("ep_size",),
            code="DWDP008", name="dwdp-overrides-layout", cause=_dwdp)
def dwdp_ep_size(view: ResolvingView) -> dict | None:
    """DWDP sets `ep_size` to `--dwdp-size` (documented with `dwdp_overrides_layout`)."""
    if not _dwdp_layout(view):
        return None
    return {"ep_size": view["dwdp_size"]}


@derivation(step=STEP, at="arg_groups/parallel_hook.py:490", writes=("moe_dp_size",),
            code="DWDP008", name="dwdp-overrides-layout", cause=_dwdp)
def dwdp_moe_dp_size(view: ResolvingView) -> dict | None:
    """DWDP sets the MoE-DP size to 1 (documented with `dwdp_overrides_layout`)."""
    return _dwdp_declares(view, "moe_dp_size", 1)


@derivation(step=STEP, at="arg_groups/parallel_hook.py:495", writes=("moe_a2a_backend",),
            code="DWDP008", name="dwdp-overrides-layout", cause=_dwdp)
def dwdp_a2a_backend(view: ResolvingView) -> dict | None:
    """DWDP sets the MoE a2a backend to `none` (documented with `dwdp_overrides_layout`)."""
    return _dwdp_declares(view, "moe_a2a_backend", "none")


@derivation(step=STEP, at="arg_groups/parallel_hook.py:503", writes=("disable_cuda_graph",),
            code="DWDP008", name="dwdp-overrides-layout", cause=_dwdp)
def dwdp_disables_cuda_graph(view: ResolvingView) -> dict | None:
    """DWDP disables CUDA graphs (documented with `dwdp_overrides_layout`)."""
    return _dwdp_declares(view, "disable_cuda_graph", True)
