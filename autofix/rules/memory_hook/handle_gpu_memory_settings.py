"""``handle_gpu_memory_settings`` (``arg_groups/memory_hook.py:47``, 0.5.23): the defaults SGLang sizes by GPU memory.

SGLang reads the GPU's total memory (``get_device_memory_capacity``, MiB)
and, for an unset ``--chunked-prefill-size``, declares one by bucket. The
memory is the fact ``gpu.memory_mib``: known only with ``--gpu``, so without
it the chunk size stays unknown and every later check that reads it is
silent. (SGLang's own fallback, 4096 when it cannot read the memory, is
what a machine without a GPU gets, not what a launch will run with.)

Not modelled here: the decode CUDA-graph batch size and
``mem_fraction_static`` this step also sizes (they live in
``cuda_graph_config`` and depend on the model config), and the model
adjustments after this step that turn chunked prefill off for some models
(``model_hook.py``: decision, embedding and some multimodal models).
"""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView
from autofix.rules.shared import chunked_prefill_size_for


@derivation(step="handle_gpu_memory_settings", at="arg_groups/memory_hook.py:94", writes=("chunked_prefill_size",))
def chunked_prefill_size_by_gpu_memory(view: ResolvingView) -> dict | None:
    """Unset, `--chunked-prefill-size` follows the GPU's memory: 8192 on H100/H200, 16384 on B200 and MI300X.

    2048 below 20 GiB, 4096 below 60 GiB, 8192 below 160 GiB, 16384 above
    (``memory_hook.py:94``, ``:108``, ``:122``, ``:136``, ``:150``, ``:164``).
    A value the user wrote is kept, so it is no override. The memory is known
    only with `--gpu`; without it the size is unknown.
    """
    if view["chunked_prefill_size"] is not None:
        return None
    return {"chunked_prefill_size": chunked_prefill_size_for(view.fact("gpu.memory_mib"))}
