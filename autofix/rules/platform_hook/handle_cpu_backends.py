"""``handle_cpu_backends`` (``arg_groups/platform_hook.py:158``, 0.5.23): the CPU device's attention backend.

Only what the modelled checks read: with ``--device cpu`` and no attention
backend written, SGLang picks one by the host's CPU (``torch_native`` on an
ARM host, ``intel_amx`` elsewhere), and the CUDA graphs follow it
(``attention_hook/handle_attention_backend_compatibility.py``).
"""

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView


@derivation(step="handle_cpu_backends", at="arg_groups/platform_hook.py:162", writes=("attention_backend",))
def cpu_attention_backend(view: ResolvingView) -> dict | None:
    """With `--device cpu`, an unset attention backend is `torch_native` on an ARM host, else `intel_amx`
    (`platform.is_host_cpu_arm64`: the host of the `--gpu` node)."""
    if view["device"] != "cpu" or view["attention_backend"] is not None:
        return None
    return {"attention_backend": "torch_native" if view.fact("platform.is_host_cpu_arm64") else "intel_amx"}
