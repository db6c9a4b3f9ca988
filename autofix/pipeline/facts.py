"""Facts SGLang reads besides the settings: the hardware, the model config, the environment.

Each fact is known or ``UNKNOWN``. Nothing is known unless given: autofix
never guesses the GPU a launch will get or the checkpoint it will load, so
a check that needs one stays silent (``ResolvingView.fact`` raises
``Unknown``). ``Facts.for_gpu`` gives the platform facts of a named GPU.

Names follow SGLang's own: ``platform.is_sm100`` is what SGLang's
``get_platform().is_sm100`` answers, ``env.SGLANG_USE_AITER`` the
environment variable, ``model.<key>`` a key of the model's HF config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from autofix.model import UNKNOWN

# The GPUs autofix knows: SGLang's platform answers for each (runtime_context.get_platform()).
_NVIDIA = {"platform.is_cuda": True, "platform.is_hip": False, "platform.is_npu": False, "platform.is_xpu": False,
           "platform.is_cpu": False}
GPUS: dict[str, dict[str, Any]] = {
    "h100": {**_NVIDIA, "platform.is_sm90": True, "platform.is_sm100": False, "platform.is_sm110": False,
             "platform.is_sm120": False, "gpu.memory_gb": 80},
    "h200": {**_NVIDIA, "platform.is_sm90": True, "platform.is_sm100": False, "platform.is_sm110": False,
             "platform.is_sm120": False, "gpu.memory_gb": 141},
    "b200": {**_NVIDIA, "platform.is_sm90": False, "platform.is_sm100": True, "platform.is_sm110": False,
             "platform.is_sm120": False, "gpu.memory_gb": 180},
}


MODEL_GIVEN = "model.given"


@dataclass(frozen=True)
class Facts:
    """``name -> value`` for the facts that are known; every other name is ``UNKNOWN``.

    ``Facts()`` knows nothing (the default: no ``--gpu``, no model config).
    """

    known: Mapping[str, Any] = field(default_factory=dict)

    def get(self, name: str) -> Any:
        """The fact's value, or ``UNKNOWN``.

        ``model.given`` is always known: whether any fact of the model's
        config is. Without one, autofix models no declaration of the model
        overrides (a gap listed in docs/coverage.md), rather than making
        every value a model could touch unknown.
        """
        if name == MODEL_GIVEN:
            return any(k.startswith("model.") for k in self.known)
        return self.known.get(name, UNKNOWN)

    @classmethod
    def for_gpu(cls, name: str, count: int | None = None, **more: Any) -> Facts:
        """The platform facts of GPU ``name`` (a key of ``GPUS``), ``count`` per node, and ``more``.

        Raises ``KeyError`` for a GPU autofix does not know.
        """
        known = dict(GPUS[name.lower()])
        if count is not None:
            known["gpu.count"] = count
        known.update(more)
        return cls(known)


NO_FACTS = Facts()
