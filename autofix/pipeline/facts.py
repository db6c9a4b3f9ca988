"""Facts SGLang reads besides the settings: the hardware, the model config, the environment.

Each fact is known or ``UNKNOWN``. Nothing is known unless given: autofix
never guesses the GPU a launch will get or the checkpoint it will load, so
a check that needs one stays silent (``ResolvingView.fact`` raises
``Unknown``). ``Facts.for_gpu`` gives the platform facts of a named GPU;
``hardware`` turns the command line's ``--gpu``/``--gpus-per-node`` (or a
config file's keys) into them.

Names follow SGLang's own: ``platform.is_sm100`` is what SGLang's
``get_platform().is_sm100`` answers, ``env.SGLANG_USE_AITER`` the
environment variable, ``model.<key>`` a key of the model's HF config.
``gpu.memory_mib`` is what ``get_device_memory_capacity()`` returns (MiB,
as ``nvidia-smi`` or ``rocminfo`` reports the total; SGLang's thresholds are
in MiB, ``20 * 1024``), ``gpu.memory_gb`` the part's nominal size (for
messages), ``gpu.count`` the GPUs of one node (``torch.cuda.device_count()``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from autofix.common.diagnostics import UNKNOWN

_NOT_CUDA_ALIKE = {"platform.is_npu": False, "platform.is_xpu": False, "platform.is_cpu": False,
                   "platform.is_musa": False, "platform.is_mps": False, "platform.is_out_of_tree": False}


def _nvidia(name: str, sm: tuple[int, int], memory_mib: int, memory_gb: int, fabric: bool = False) -> dict[str, Any]:
    """SGLang's platform answers on an NVIDIA GPU of compute capability ``sm`` (CUDA 13, as 0.5.23 ships).

    The ``is_smXX`` probes compare the capability's major only
    (``utils/common.py``: ``_check_cuda_device_version``); ``fabric`` is
    ``is_mnnvl_fabric_device()`` (GB200/GB300 by name), whose nodes are also
    the ones with an ARM host (Grace: ``is_host_cpu_arm64``).
    """
    major = sm[0]
    return {
        **_NOT_CUDA_ALIKE, "platform.is_cuda": True, "platform.is_hip": False,
        "platform.is_sm90": major == 9, "platform.is_hopper_with_cuda_12_3": major == 9,
        "platform.is_sm100": major == 10, "platform.is_sm110": major == 11, "platform.is_sm120": major == 12,
        "platform.is_sm100_or_sm110": major in (10, 11), "platform.is_blackwell": major in (10, 11, 12),
        "platform.device_sm": major * 10 + sm[1], "platform.device_capability": sm,
        "platform.has_flashinfer": True,  # flashinfer_python is a dependency of sglang 0.5.23
        "platform.is_gfx942": False, "platform.is_gfx95": False, "platform.is_mnnvl_fabric": fabric,
        "platform.is_host_cpu_arm64": fabric,
        "gpu.name": name, "gpu.memory_mib": memory_mib, "gpu.memory_gb": memory_gb,
    }


def _amd(name: str, gfx: str, memory_mib: int, memory_gb: int) -> dict[str, Any]:
    """SGLang's platform answers on an AMD Instinct GPU of architecture ``gfx`` (ROCm: ``is_cuda()`` is False).

    ROCm's torch reports the gfx9 arch as a capability (``gfx942`` -> 9.4),
    so ``device_sm`` is not 0; every ``is_smXX`` probe is False.
    """
    capability = (int(gfx[3]), int(gfx[4:5], 16))
    return {
        **_NOT_CUDA_ALIKE, "platform.is_cuda": False, "platform.is_hip": True,
        "platform.is_sm90": False, "platform.is_hopper_with_cuda_12_3": False,
        "platform.is_sm100": False, "platform.is_sm110": False, "platform.is_sm120": False,
        "platform.is_sm100_or_sm110": False, "platform.is_blackwell": False,
        "platform.device_sm": capability[0] * 10 + capability[1], "platform.device_capability": capability,
        "platform.has_flashinfer": False,  # is_flashinfer_available() needs CUDA
        "platform.is_gfx942": gfx.startswith("gfx942"), "platform.is_gfx95": gfx.startswith("gfx95"),
        "platform.is_mnnvl_fabric": False, "platform.gfx_arch": gfx, "platform.is_host_cpu_arm64": False,
        "gpu.name": name, "gpu.memory_mib": memory_mib, "gpu.memory_gb": memory_gb,
    }


# The GPUs autofix knows: SGLang's platform answers for each (runtime_context.get_platform()) and the
# memory get_device_memory_capacity() reads. h100, h200 and b200 are the oracle's (../shared/oracle/check.py
# GPUS: the device name, capability and nvidia-smi total it simulates); the others are each part's
# reported total, and every check SGLang 0.5.23 makes compares it with thresholds up to 160 GiB.
GPUS: dict[str, dict[str, Any]] = {
    "a100": _nvidia("NVIDIA A100-SXM4-80GB", (8, 0), 81920, 80),
    "h100": _nvidia("NVIDIA H100 80GB HBM3", (9, 0), 81559, 80),
    "h200": _nvidia("NVIDIA H200", (9, 0), 143771, 141),
    "b200": _nvidia("NVIDIA B200", (10, 0), 183359, 180),
    "gb200": _nvidia("NVIDIA GB200", (10, 0), 189471, 186, fabric=True),
    "mi300x": _amd("AMD Instinct MI300X", "gfx942", 196592, 192),
    "mi355x": _amd("AMD Instinct MI355X", "gfx950", 294912, 288),
}


MODEL_GIVEN = "model.given"
DRAFT_GIVEN = "model.draft_given"


class HardwareError(ValueError):
    """A ``--gpu``/``--gpus-per-node`` value autofix cannot use: ``param`` is the option, the message one line."""

    def __init__(self, message: str, param: str = "--gpu") -> None:
        super().__init__(message)
        self.param = param


@dataclass(frozen=True)
class Facts:
    """``name -> value`` for the facts that are known; every other name is ``UNKNOWN``.

    ``Facts()`` knows nothing (the default: no ``--gpu``, no model config).
    """

    known: Mapping[str, Any] = field(default_factory=dict)

    def get(self, name: str) -> Any:
        """The fact's value, or ``UNKNOWN``.

        ``model.given`` is always known: whether the model's config is
        given (its architecture, ``model.architecture``, is known). Without
        it, autofix models no declaration of the model overrides (a gap
        listed in docs/coverage.md), rather than making every value a model
        could touch unknown; a single model fact (``model.nvfp4_moe_meta``)
        does not change that.
        """
        if name == MODEL_GIVEN:
            return "model.architecture" in self.known
        if name == DRAFT_GIVEN:  # the draft model's config (``model.draft_architectures``), as for the model
            return "model.draft_architectures" in self.known
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

_SPEC = re.compile(r"(?:(\d+)[xX])?([A-Za-z][A-Za-z0-9_-]*)")


def parse_gpu(spec: str) -> tuple[str, int | None]:
    """``NAME`` or ``COUNTxNAME`` (``h200``, ``8xh200``, ``8XH200``) -> (name, count or None).

    Raises ``HardwareError`` for a malformed value, a GPU not in ``GPUS``
    (the message lists them) or a count below 1.
    """
    found = _SPEC.fullmatch(spec.strip())
    if found is None:
        raise HardwareError(f"{spec!r} is not NAME or COUNTxNAME (e.g. h200 or 8xh200)")
    count, name = found.group(1), found.group(2).lower()
    if name not in GPUS:
        raise HardwareError(f"unknown GPU {found.group(2)!r}; known: {', '.join(GPUS)}")
    if count is not None and int(count) < 1:
        raise HardwareError(f"{spec.strip()!r}: the GPU count must be at least 1")
    return name, None if count is None else int(count)


def hardware(gpu: str | None, gpus_per_node: int | None = None) -> Facts:
    """The facts ``--gpu NAME|COUNTxNAME`` and ``--gpus-per-node N`` give (``NO_FACTS`` when neither is set).

    The one place these values are read: the command line and a config
    file's keys both call it. A count given twice must agree. Raises
    ``HardwareError`` (one line, for the user) for a value autofix cannot use.
    """
    if gpus_per_node is not None and gpus_per_node < 1:
        raise HardwareError(f"must be at least 1, not {gpus_per_node}", "--gpus-per-node")
    if gpu is None:
        return NO_FACTS if gpus_per_node is None else Facts({"gpu.count": gpus_per_node})
    name, count = parse_gpu(gpu)
    if count is not None and gpus_per_node is not None and count != gpus_per_node:
        raise HardwareError(f"{gpus_per_node}, but --gpu {gpu.strip()} says {count} GPUs per node", "--gpus-per-node")
    return Facts.for_gpu(name, count if count is not None else gpus_per_node)
