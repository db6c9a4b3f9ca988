"""Cases of the model's declarations (model_hook): the oracle's DeepSeek-V3 config is given as facts."""

from __future__ import annotations

from harness.rules.casekit import at, case

ZIGZAG = ["--tp", "8", "--enable-prefill-cp", "--cp-strategy", "zigzag"]

CASES = [
    case("A2A060-mla-cp-ep-size", [*ZIGZAG, "--ep-size", "2"], ["A2A060"], "ok"),
    case("A2A060-mla-cp-dp-size", [*ZIGZAG, "--dp-size", "2"], ["A2A060"], "ok"),
    case("A2A060-ok-mla-cp", ZIGZAG, [], "ok"),
    # the layout makes DeepEP the backend: static dispatch has one (EP003 does not fire)
    case("A2A060-mla-cp-lp-dispatch", [*ZIGZAG, "--ep-dispatch-algorithm", "lp"], [], "ok"),
    # on SM100 DeepSeek-V3 takes fp8 from its checkpoint, which flashinfer_cutlass does not run
    case("RUN005-b200-checkpoint-fp8", ["--tp", "8", "--moe-runner-backend", "flashinfer_cutlass"], ["RUN005"],
         at("RUN005"), gpu="b200"),
    case("RUN005-ok-h200-no-quantization", ["--tp", "8", "--moe-runner-backend", "flashinfer_cutlass"], [], "ok"),
]
