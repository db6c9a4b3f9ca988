"""The resolved view: explicit settings, then SGLang's defaults and derivations.

Rules read only this view. It reproduces the part of SGLang 0.5.23's
resolution pipeline (``sglang/srt/arg_groups/pipeline.py``) that decides the
values the rules read, for a CUDA GPU host, before any model is loaded:

1. ``handle_mega_moe`` (mega_moe_hook.py:259): ``--moe-runner-backend megamoe``
   is an alias that becomes runner ``auto`` + a2a backend ``megamoe``.
2. ``handle_dwdp`` (parallel_hook.py:433): ``--dwdp-size`` > 1 forces a2a
   ``none`` and ``ep_size = dwdp_size``.
3. ``_moe_runner_backend_quant_constraints`` (overrides.py:1448): with
   ``--quantization mxfp8`` a runner outside the MXFP8 list is replaced.
4. ``handle_a2a_moe`` (moe_hook.py:284 -> overrides.py:1594, 1609): Waterfill
   forces ``deepep``; every EP-spanning a2a backend forces ``ep_size = tp_size``;
   ``ascend_tp`` collapses to ``none`` (moe_hook.py:463).
5. ``handle_eplb_and_dispatch`` (parallel_hook.py:766): with EPLB or a
   non-trivial ``--init-expert-location`` and no explicit dispatch algorithm,
   the algorithm becomes ``dynamic`` without an a2a backend, else ``static``.

Not modelled (they need the model's config, which autofix never loads): the
model-specific overrides, e.g. DeepSeek prefill context parallelism forcing
``deepep`` (model_overrides/deepseek_v2.py:117).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autofix.model import UNKNOWN
from autofix.schema import Schema

# Every a2a backend that makes expert parallelism span the TP group
# (overrides.py:1577, _A2A_EP_SPANNING_BACKENDS).
EP_SPANNING_A2A = frozenset(
    {"megamoe", "deepep", "deepep_v2", "mooncake", "nixl", "ascend_fuseep",
     "flashinfer", "flashinfer_megamoe", "mori", "pplx"}
)
# Runners MXFP8 MoE accepts on CUDA (arg_groups/choices.py:161).
MXFP8_MOE_RUNNERS = frozenset(
    {"cutlass", "deep_gemm", "flashinfer_megamoe", "flashinfer_trtllm", "flashinfer_trtllm_routed"}
)


class View(Mapping[str, Any]):
    """Read-only ``dest -> value`` after resolution.

    ``view[dest]`` is the resolved value; ``view.is_explicit(dest)`` says
    whether the user set it (an explicit value equal to the default is still
    explicit); ``view.explicit`` is the user's settings as given. Raises
    ``KeyError`` for a dest the schema does not know.
    """

    def __init__(self, explicit: Mapping[str, Any], schema: Schema) -> None:
        self.explicit: dict[str, Any] = dict(explicit)
        self.schema = schema
        self._derived = _derive(self._raw)

    def _raw(self, dest: str) -> Any:
        if dest in self.explicit:
            return self.explicit[dest]
        return self.schema.default(dest)

    def __getitem__(self, dest: str) -> Any:
        if dest in self._derived:
            return self._derived[dest]
        return self._raw(dest)

    def __iter__(self):
        return iter(self.schema.by_dest)

    def __len__(self) -> int:
        return len(self.schema.by_dest)

    def is_explicit(self, dest: str) -> bool:
        """Whether the user set ``dest`` (even to its default value)."""
        return dest in self.explicit


def _derive(raw) -> dict[str, Any]:
    """The derivations listed in the module docstring, in pipeline order.

    A setting only known at launch (``--tp $TP``) is UNKNOWN; a derived value
    is UNKNOWN only when it depends on one (each step below says how), so
    ``--tp $(TP)`` does not hide what the a2a backend resolves to.
    """
    runner = raw("moe_runner_backend")
    a2a = raw("moe_a2a_backend")
    ep_size = raw("ep_size")
    tp_size = raw("tp_size")

    if runner is UNKNOWN:
        a2a = UNKNOWN  # it may be the megamoe alias
    elif runner == "megamoe":
        runner, a2a = "auto", "megamoe"
    dwdp_size = raw("dwdp_size")
    if dwdp_size is UNKNOWN:
        a2a, ep_size = UNKNOWN, UNKNOWN
    elif isinstance(dwdp_size, int) and dwdp_size > 1:
        a2a, ep_size = "none", dwdp_size
    quantization = raw("quantization")
    if runner is not UNKNOWN and runner not in MXFP8_MOE_RUNNERS:
        if quantization is UNKNOWN:
            runner = UNKNOWN
        elif quantization == "mxfp8":
            runner = UNKNOWN if a2a is UNKNOWN else "flashinfer_megamoe" if a2a == "flashinfer_megamoe" \
                else "flashinfer_trtllm"
    waterfill = raw("enable_waterfill")
    if a2a is not UNKNOWN and a2a not in ("deepep", "megamoe") and waterfill:
        a2a = UNKNOWN if waterfill is UNKNOWN else "deepep"
    if a2a is UNKNOWN:
        ep_size = UNKNOWN  # it may span the TP group
    elif a2a in EP_SPANNING_A2A:
        ep_size = tp_size
    if a2a == "ascend_tp":
        a2a = "none"
    dispatch = raw("ep_dispatch_algorithm")
    if dispatch is None:
        eplb, location = raw("enable_eplb"), raw("init_expert_location")
        if (eplb is not UNKNOWN and eplb) or (location is not UNKNOWN and location != "trivial"):  # EPLB or a non-trivial expert location picks the algorithm
            dispatch = UNKNOWN if a2a is UNKNOWN else "dynamic" if a2a == "none" else "static"
        elif eplb is UNKNOWN or location is UNKNOWN:
            dispatch = UNKNOWN
    return {"moe_runner_backend": runner, "moe_a2a_backend": a2a, "ep_size": ep_size,
            "ep_dispatch_algorithm": dispatch}
