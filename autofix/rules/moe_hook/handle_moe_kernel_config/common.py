"""What the modules of ``handle_moe_kernel_config`` share: the step, the quantization as it reads it, the
runner left to SGLang."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Unset
from autofix.pipeline.view import ResolvingView

STEP = "handle_moe_kernel_config"


def _quantization(view: ResolvingView) -> str | None:
    """``quantization`` as this step reads it: `unquant` was declared None earlier (serving_hook.py:697)."""
    quantization = view["quantization"]
    return None if quantization == "unquant" else quantization


def _auto_runner(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("moe_runner_backend"), title="Remove --moe-runner-backend (auto)")
