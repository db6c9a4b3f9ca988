"""``check_server_args``: what PD-Multiplexing (`--enable-pdmux`) needs."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.shared import chunked_prefill_size

STEP = "check_server_args"
PDMUX = "--enable-pdmux"


def _no_pdmux(view: ResolvingView) -> Fix | None:
    return remove(view, "enable_pdmux", PDMUX, " (no PD-Multiplexing)")


@settings_rule("GEN030", "pdmux-without-pipeline-parallelism", step=STEP, at="arg_groups/validation_hook.py:250")
def pdmux_without_pipeline_parallelism(view: ResolvingView) -> Violation | None:
    """Flag PD-Multiplexing with pipeline parallelism.

    ## What it does
    Checks for `--enable-pdmux` with `--pp-size` above 1.

    ## Why SGLang refuses it
    PD-Multiplexing splits one GPU's SMs between prefill and decode
    streams of a single stage. SGLang stops on an assert when the Engine
    starts.

    ## Example
    ```yaml
    enable-pdmux: true
    chunked-prefill-size: -1
    disable-overlap-schedule: true
    pp-size: 2
    ```
    Use instead:
    ```yaml
    enable-pdmux: true
    chunked-prefill-size: -1
    disable-overlap-schedule: true
    ```

    ## Fix safety
    Dropping PD-Multiplexing, or pipeline parallelism, changes how the
    server runs: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:250` (`check_server_args`, 0.5.23)
    """
    if not view["enable_pdmux"] or view["pp_size"] == 1:
        return None
    return Violation(f"{PDMUX} needs --pp-size 1, not {view['pp_size']}", args=("enable_pdmux", "pp_size"))


pdmux_without_pipeline_parallelism.fix(_no_pdmux)


@pdmux_without_pipeline_parallelism.fix
def _no_pp(view: ResolvingView) -> Fix | None:
    return remove(view, "pp_size", "--pp-size", " (no pipeline parallelism)")


@settings_rule("GEN031", "pdmux-without-chunked-prefill", step=STEP, at="arg_groups/validation_hook.py:253")
def pdmux_without_chunked_prefill(view: ResolvingView) -> Violation | None:
    """Flag PD-Multiplexing with chunked prefill on.

    ## What it does
    Checks for `--enable-pdmux` without `--chunked-prefill-size -1`
    (unset, SGLang picks a positive size from the GPU memory; the models
    that turn chunked prefill off themselves are not modelled).

    ## Why SGLang refuses it
    PD-Multiplexing schedules whole prefills beside decode. SGLang stops
    on an assert when the Engine starts.

    ## Example
    ```yaml
    enable-pdmux: true
    disable-overlap-schedule: true
    ```
    Use instead:
    ```yaml
    enable-pdmux: true
    disable-overlap-schedule: true
    chunked-prefill-size: -1
    ```

    ## Fix safety
    Turning chunked prefill off changes how long prompts are scheduled:
    unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:253` (`check_server_args`, 0.5.23)
    """
    if not view["enable_pdmux"]:
        return None
    size = chunked_prefill_size(view)  # None: SGLang's positive default
    if size == -1:
        return None
    return Violation(f"{PDMUX} needs --chunked-prefill-size -1"
                     + (f", not {size}" if size is not None else " (unset, SGLang picks a positive size)"),
                     args=("enable_pdmux", "chunked_prefill_size"))


@pdmux_without_chunked_prefill.fix
def _no_chunking(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("chunked_prefill_size", -1), title="Set --chunked-prefill-size to -1 (no chunked prefill)")


pdmux_without_chunked_prefill.fix(_no_pdmux)


@settings_rule("GEN032", "pdmux-without-pd-disaggregation", step=STEP, at="arg_groups/validation_hook.py:256")
def pdmux_without_pd_disaggregation(view: ResolvingView) -> Violation | None:
    """Flag PD-Multiplexing on a PD-disaggregated server.

    ## What it does
    Checks for `--enable-pdmux` with `--disaggregation-mode` `prefill` or
    `decode`.

    ## Why SGLang refuses it
    PD-Multiplexing runs prefill and decode on one server; disaggregation
    puts them on different ones. SGLang stops on an assert when the Engine
    starts.

    ## Example
    ```yaml
    enable-pdmux: true
    chunked-prefill-size: -1
    disable-overlap-schedule: true
    disaggregation-mode: prefill
    ```
    Use instead:
    ```yaml
    disaggregation-mode: prefill
    ```

    ## Fix safety
    Either PD-Multiplexing or the disaggregation role goes: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:256` (`check_server_args`, 0.5.23)
    """
    if not view["enable_pdmux"] or view["disaggregation_mode"] == "null":
        return None
    return Violation(f"{PDMUX} does not work with --disaggregation-mode {view['disaggregation_mode']}",
                     args=("enable_pdmux", "disaggregation_mode"))


pdmux_without_pd_disaggregation.fix(_no_pdmux)


@settings_rule("GEN033", "pdmux-without-overlap-schedule", step=STEP, at="arg_groups/validation_hook.py:259")
def pdmux_without_overlap_schedule(view: ResolvingView) -> Violation | None:
    """Flag PD-Multiplexing with the overlap scheduler on.

    ## What it does
    Checks for `--enable-pdmux` without `--disable-overlap-schedule` (or
    another setting that turns the overlap scheduler off).

    ## Why SGLang refuses it
    PD-Multiplexing has its own stream scheduling, which the overlap
    scheduler would interleave with. SGLang stops on an assert when the
    Engine starts.

    ## Example
    ```yaml
    enable-pdmux: true
    chunked-prefill-size: -1
    ```
    Use instead:
    ```yaml
    enable-pdmux: true
    chunked-prefill-size: -1
    disable-overlap-schedule: true
    ```

    ## Fix safety
    Turning the overlap scheduler off costs throughput: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:259` (`check_server_args`, 0.5.23)
    """
    if not view["enable_pdmux"] or view["disable_overlap_schedule"]:
        return None
    if view["dllm_algorithm"] is not None:
        return None  # diffusion LLMs turn the overlap scheduler off (overrides.py:1719), not modelled as a value
    return Violation(f"{PDMUX} needs --disable-overlap-schedule", args=("enable_pdmux", "disable_overlap_schedule"))


@pdmux_without_overlap_schedule.fix
def _no_overlap(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("disable_overlap_schedule", True), title="Add --disable-overlap-schedule")


pdmux_without_overlap_schedule.fix(_no_pdmux)
