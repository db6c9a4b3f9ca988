"""Without ``--gpu`` the CUDA graph defaults are unknown; a flag, or a compatibility rule, decides a backend.

(The backends with the GPU and model given are checked against the oracle: tests/oracle/test_cuda_graph_backends.py.)
"""

from __future__ import annotations

from autofix.common.diagnostics import UNKNOWN
from autofix.pipeline.run import resolve
from autofix.rules import SETTINGS
from autofix.schema import load
from tests.rules.test_rules import explicit

SCHEMA = load()


def test_without_the_gpu_the_defaults_are_unknown_and_the_flags_decide():
    """Without ``--gpu`` neither default is known (breakable prefill needs CUDA, the decode graph is off on
    XPU); a flag, or a compatibility rule, decides a backend whatever the GPU."""
    def backends(argv):
        view = resolve(explicit(argv), SCHEMA, SETTINGS, fixes=False).view
        return view.value("cuda_graph_backend_decode"), view.value("cuda_graph_backend_prefill")

    assert backends([]) == (UNKNOWN, UNKNOWN)
    assert backends(["--tp-size", "4", "--pp-size", "2"]) == (UNKNOWN, "disabled")
    assert backends(["--disaggregation-mode", "decode"]) == (UNKNOWN, "disabled")
    assert backends(["--cuda-graph-backend-decode", "full", "--cuda-graph-backend-prefill", "full"]) == ("full", "full")
