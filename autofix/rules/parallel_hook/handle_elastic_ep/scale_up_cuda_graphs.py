"""``handle_elastic_ep``, the CUDA graphs runtime scale-up allows (parallel_hook.py:691-719)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.parallel_hook.handle_elastic_ep.common import STEP, _scaling_active
from autofix.rules.shared import DECODE, PREFILL

# CUDA graphs under scale-up (parallel_hook.py:691-719): the backends each phase runs by this step
# (declared from handle_cuda_graph_config on, see autofix.rules.cuda_graph_hook).

def _no_decode_graph(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("cuda_graph_backend_decode", "disabled"), title="Set --cuda-graph-backend-decode to disabled")


@settings_rule("EEP032", "elastic-scale-up-decode-graph", step=STEP, at="arg_groups/parallel_hook.py:692")
def elastic_scale_up_decode_graph(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with a `breakable` decode CUDA graph.

    ## What it does
    Under runtime scale-up, checks that the decode CUDA graph backend is
    `full` (the default) or `disabled`, as SGLang resolves it by this step
    (the graph flags, DWDP, expert packs, PD roles, XPU, the attention
    backend, multi-item scoring, KV-cache sharding and DeepEP's modes,
    A2A020 and A2A027); with `--cuda-graph-config` (not read) it stays silent.

    ## Why SGLang refuses it
    After a scale-up the decode graphs are captured again; only the full
    graph path supports that. SGLang stops on an assert while resolving its
    arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    cuda-graph-backend-decode: breakable
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    cuda-graph-backend-decode: full
    ```

    ## Fix safety
    Another graph backend changes how decode runs: unsafe. `full` is
    offered unless the launch has a feature full-graph recapture does not
    support (EEP034-EEP040); then `disabled`.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:692` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view):
        return None
    backend = view[DECODE]
    if backend in ("disabled", "full"):
        return None
    return Violation(f"runtime elastic EP scale-up needs the decode CUDA graph backend full or disabled, not {backend}",
                     args=("cuda_graph_backend_decode", "max_ep_size"))


@elastic_scale_up_decode_graph.fix
def _full_or_no_decode_graph(view: ResolvingView) -> Fix:
    if any(_full_graph_blocker(view, code) for code in FULL_GRAPH_BLOCKERS):
        return _no_decode_graph(view)
    return Fix.unsafe(Set("cuda_graph_backend_decode", "full"), title="Set --cuda-graph-backend-decode to full")


@settings_rule("EEP033", "elastic-scale-up-prefill-graph", step=STEP, at="arg_groups/parallel_hook.py:696")
def elastic_scale_up_prefill_graph(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with a prefill CUDA graph.

    ## What it does
    Under runtime scale-up, checks that the prefill CUDA graph backend is
    `disabled`, as SGLang resolves it by this step: `breakable` by default
    on CUDA (so `--gpu` is needed to decide it), turned off by the graph
    flags, PP, decode CP, two-batch overlap, an a2a backend other than
    none, deepep, megamoe or flashinfer (the `nixl` one scale-up needs is
    such), a PD decode role, the attention backend, KV-cache sharding,
    DeepEP's modes and some models. With `--cuda-graph-config` (not read)
    it stays silent.

    ## Why SGLang refuses it
    Prefill graphs are not captured again after a scale-up. SGLang stops on
    an assert while resolving its arguments. (With an a2a backend other than
    `nixl` and no prefill backend written, SGLang's own default can trip
    this check before the a2a check, EEP046.)

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    cuda-graph-backend-prefill: breakable
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    cuda-graph-backend-prefill: disabled
    ```

    ## Fix safety
    Turning the prefill graph off changes how prefill runs: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:696` (`handle_elastic_ep`, 0.5.23)
    """
    if not _scaling_active(view):
        return None
    backend = view[PREFILL]
    if backend == "disabled":
        return None
    return Violation(f"runtime elastic EP scale-up needs the prefill CUDA graph disabled, not {backend}",
                     args=("cuda_graph_backend_prefill", "max_ep_size"))


@elastic_scale_up_prefill_graph.fix
def _no_prefill_graph(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("cuda_graph_backend_prefill", "disabled"),
                      title="Set --cuda-graph-backend-prefill to disabled")


def _forward_hooks(view: ResolvingView) -> bool:
    """Whether forward hooks are given (the JSON list argparse read, ``autofix.common.argtypes.json_list_type``)."""
    return bool(view["forward_hooks"])


# code -> (dest, what SGLang does not support with full-graph recapture)
FULL_GRAPH_BLOCKERS = {
    "EEP034": ("device", "a device other than cuda"),
    "EEP035": ("speculative_algorithm", "speculative decoding"),
    "EEP036": ("is_embedding", "embedding models"),
    "EEP037": ("dllm_algorithm", "diffusion models"),
    "EEP038": ("encoder_only", "encoder-only models"),
    "EEP039": ("forward_hooks", "forward hooks"),
    "EEP040": ("enable_pdmux", "PD-mux"),
}


def _full_graph_blocker(view: ResolvingView, code: str) -> bool:
    """Whether the launch has the feature ``code`` names."""
    dest = FULL_GRAPH_BLOCKERS[code][0]
    if dest == "device":
        return view["device"] is not None and view["device"] != "cuda"  # unset: detected, cuda on NVIDIA and ROCm
    if dest == "speculative_algorithm":  # --enable-return-aux-hidden-states resets it (validation_hook.py:749)
        return view["speculative_algorithm"] is not None and not view["enable_return_aux_hidden_states"]
    if dest == "dllm_algorithm":
        return view[dest] is not None
    if dest == "forward_hooks":
        return _forward_hooks(view)
    return bool(view[dest])


def _full_graph_check(view: ResolvingView, code: str) -> Violation | None:
    """EEP034-EEP040: a feature full decode-graph recapture does not support."""
    if not _scaling_active(view) or not _full_graph_blocker(view, code):
        return None
    if view[DECODE] != "full":
        return None
    dest, what = FULL_GRAPH_BLOCKERS[code]
    return Violation(f"runtime elastic EP scale-up with the full decode CUDA graph does not support {what}",
                     args=(dest, "cuda_graph_backend_decode", "max_ep_size"))


def _drop_feature(view: ResolvingView, dest: str, flag: str) -> Fix:
    return Fix.unsafe(Unset(dest), title=f"Remove {flag}")


@settings_rule("EEP034", "elastic-graph-recapture-needs-cuda", step=STEP, at="arg_groups/parallel_hook.py:700")
def elastic_graph_recapture_needs_cuda(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with the full decode graph on a `--device` other than `cuda`.

    ## What it does
    Under runtime scale-up with the decode CUDA graph `full` (the default),
    checks for a `--device` other than `cuda`. An unset device is detected
    at launch (`cuda` on NVIDIA and ROCm GPUs), so the rule is silent then.

    ## Why SGLang refuses it
    Recapturing decode graphs after a scale-up uses CUDA graphs. SGLang
    stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    device: cpu
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    device: cpu
    cuda-graph-backend-decode: disabled
    ```

    ## Fix safety
    Disabling the decode graph changes how decode runs: unsafe. Removing
    `--device` (detected) is unsafe, offered second.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:700` (`handle_elastic_ep`, 0.5.23)
    """
    return _full_graph_check(view, "EEP034")


elastic_graph_recapture_needs_cuda.fix(_no_decode_graph)


@elastic_graph_recapture_needs_cuda.fix
def _no_device(view: ResolvingView) -> Fix:
    return _drop_feature(view, "device", "--device")


@settings_rule("EEP035", "elastic-graph-recapture-speculative", step=STEP, at="arg_groups/parallel_hook.py:704")
def elastic_graph_recapture_speculative(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with the full decode graph with speculative decoding.

    ## What it does
    Under runtime scale-up with the decode CUDA graph `full` (the default),
    checks for `--speculative-algorithm` (unless `--enable-return-aux-hidden-states` makes it name only the capture convention).

    ## Why SGLang refuses it
    The draft model's graphs are not recaptured after a scale-up. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    speculative-algorithm: EAGLE
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    speculative-algorithm: EAGLE
    cuda-graph-backend-decode: disabled
    ```

    ## Fix safety
    Disabling the decode graph changes how decode runs: unsafe; dropping speculative decoding is the other unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:704` (`handle_elastic_ep`, 0.5.23)
    """
    return _full_graph_check(view, "EEP035")


elastic_graph_recapture_speculative.fix(_no_decode_graph)


@elastic_graph_recapture_speculative.fix
def _no_speculative_algorithm(view: ResolvingView) -> Fix:
    return _drop_feature(view, "speculative_algorithm", "--speculative-algorithm")


@settings_rule("EEP036", "elastic-graph-recapture-embedding", step=STEP, at="arg_groups/parallel_hook.py:707")
def elastic_graph_recapture_embedding(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with the full decode graph for an embedding model.

    ## What it does
    Under runtime scale-up with the decode CUDA graph `full` (the default),
    checks for `--is-embedding`.

    ## Why SGLang refuses it
    Embedding servers run no decode graph that recapture could rebuild. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    is-embedding: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    is-embedding: true
    cuda-graph-backend-decode: disabled
    ```

    ## Fix safety
    Disabling the decode graph changes how decode runs: unsafe; removing `--is-embedding` changes what the server is: unsafe, offered second.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:707` (`handle_elastic_ep`, 0.5.23)
    """  # noqa: E501
    return _full_graph_check(view, "EEP036")


elastic_graph_recapture_embedding.fix(_no_decode_graph)


@elastic_graph_recapture_embedding.fix
def _no_is_embedding(view: ResolvingView) -> Fix:
    return _drop_feature(view, "is_embedding", "--is-embedding")


@settings_rule("EEP037", "elastic-graph-recapture-dllm", step=STEP, at="arg_groups/parallel_hook.py:710")
def elastic_graph_recapture_dllm(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with the full decode graph for a diffusion language model.

    ## What it does
    Under runtime scale-up with the decode CUDA graph `full` (the default),
    checks for `--dllm-algorithm`.

    ## Why SGLang refuses it
    Diffusion decoding has its own graphs, which recapture does not rebuild. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    dllm-algorithm: LowConfidence
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    dllm-algorithm: LowConfidence
    cuda-graph-backend-decode: disabled
    ```

    ## Fix safety
    Disabling the decode graph changes how decode runs: unsafe; removing `--dllm-algorithm` is the other unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:710` (`handle_elastic_ep`, 0.5.23)
    """  # noqa: E501
    return _full_graph_check(view, "EEP037")


elastic_graph_recapture_dllm.fix(_no_decode_graph)


@elastic_graph_recapture_dllm.fix
def _no_dllm_algorithm(view: ResolvingView) -> Fix:
    return _drop_feature(view, "dllm_algorithm", "--dllm-algorithm")


@settings_rule("EEP038", "elastic-graph-recapture-encoder-only", step=STEP, at="arg_groups/parallel_hook.py:713")
def elastic_graph_recapture_encoder_only(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with the full decode graph for an encoder-only server.

    ## What it does
    Under runtime scale-up with the decode CUDA graph `full` (the default),
    checks for `--encoder-only`.

    ## Why SGLang refuses it
    An encoder-only server has no decode graph that recapture could rebuild. SGLang stops on an assert while resolving its arguments.

    ## Example (no model config)
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    encoder-only: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    encoder-only: true
    cuda-graph-backend-decode: disabled
    ```

    ## Fix safety
    Disabling the decode graph changes how decode runs: unsafe; removing `--encoder-only` is the other unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:713` (`handle_elastic_ep`, 0.5.23)
    """  # noqa: E501
    return _full_graph_check(view, "EEP038")


elastic_graph_recapture_encoder_only.fix(_no_decode_graph)


@elastic_graph_recapture_encoder_only.fix
def _no_encoder_only(view: ResolvingView) -> Fix:
    return _drop_feature(view, "encoder_only", "--encoder-only")


@settings_rule("EEP039", "elastic-graph-recapture-forward-hooks", step=STEP, at="arg_groups/parallel_hook.py:716")
def elastic_graph_recapture_forward_hooks(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with the full decode graph with forward hooks.

    ## What it does
    Under runtime scale-up with the decode CUDA graph `full` (the default),
    checks for a non-empty `--forward-hooks` list.

    ## Why SGLang refuses it
    Hooks installed on the captured modules would not be in the recaptured graphs. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    forward-hooks: '[{"name": "h", "target_modules": ["x"], "hook_factory": "m:f"}]'
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    forward-hooks: '[{"name": "h", "target_modules": ["x"], "hook_factory": "m:f"}]'
    cuda-graph-backend-decode: disabled
    ```

    ## Fix safety
    Disabling the decode graph changes how decode runs: unsafe; removing the hooks is the other unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:716` (`handle_elastic_ep`, 0.5.23)
    """  # noqa: E501
    return _full_graph_check(view, "EEP039")


elastic_graph_recapture_forward_hooks.fix(_no_decode_graph)


@elastic_graph_recapture_forward_hooks.fix
def _no_forward_hooks(view: ResolvingView) -> Fix:
    return _drop_feature(view, "forward_hooks", "--forward-hooks")


@settings_rule("EEP040", "elastic-graph-recapture-pdmux", step=STEP, at="arg_groups/parallel_hook.py:719")
def elastic_graph_recapture_pdmux(view: ResolvingView) -> Violation | None:
    """Flag runtime elastic EP scale-up with the full decode graph with PD-mux.

    ## What it does
    Under runtime scale-up with the decode CUDA graph `full` (the default),
    checks for `--enable-pdmux`.

    ## Why SGLang refuses it
    PD-mux splits the GPU between prefill and decode streams that recapture does not rebuild. SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    enable-pdmux: true
    chunked-prefill-size: -1
    disable-overlap-schedule: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 16
    moe-a2a-backend: nixl
    attn-dp-size: 8
    enable-dp-lm-head: true
    enable-pdmux: true
    chunked-prefill-size: -1
    disable-overlap-schedule: true
    cuda-graph-backend-decode: disabled
    ```

    ## Fix safety
    Disabling the decode graph changes how decode runs: unsafe; removing `--enable-pdmux` is the other unsafe fix.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:719` (`handle_elastic_ep`, 0.5.23)
    """  # noqa: E501
    return _full_graph_check(view, "EEP040")


elastic_graph_recapture_pdmux.fix(_no_decode_graph)


@elastic_graph_recapture_pdmux.fix
def _no_enable_pdmux(view: ResolvingView) -> Fix:
    return _drop_feature(view, "enable_pdmux", "--enable-pdmux")
