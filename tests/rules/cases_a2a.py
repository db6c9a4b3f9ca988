"""Rule cases of ``handle_a2a_moe`` (family A, catalog A.4-A.7): the a2a backend's own checks, with verdicts from ../shared/oracle."""

from __future__ import annotations

from tests.rules.casekit import at, case

A2A008, A2A029, A2A038 = at("A2A008"), at("A2A029"), at("A2A038")
FI = ["--moe-a2a-backend", "flashinfer"]
FI_DP8 = ["--tp-size", "8", "--attn-dp-size", "8", *FI]
CUTLASS = ["--moe-runner-backend", "flashinfer_cutlass"]

CASES = [
    # A2A008: the dispatch type is FlashInfer a2a's only
    case("A2A008-no-a2a", ["--flashinfer-a2a-dispatch-type", "bf16"], ["A2A008"], A2A008),
    case("A2A008-deepep", ["--tp-size", "8", "--moe-a2a-backend", "deepep", "--flashinfer-a2a-dispatch-type", "nvfp4"],
         ["A2A008"], A2A008),
    case("A2A008-waterfill", ["--tp-size", "8", *FI, "--enable-waterfill", "--flashinfer-a2a-dispatch-type", "bf16"],
         ["A2A005", "A2A008"], A2A008),
    case("A2A008-ok-auto", ["--flashinfer-a2a-dispatch-type", "auto"], [], "ok"),
    case("A2A008-ok-flashinfer", [*FI_DP8, *CUTLASS, "--flashinfer-a2a-dispatch-type", "bf16"], [], "ok"),
    # A2A029: attention DP over the whole TP group
    case("A2A029-tp1", [*FI], ["A2A029", "A2A038"], A2A029),
    case("A2A029-tp8", ["--tp-size", "8", *FI, *CUTLASS], ["A2A029"], A2A029),
    case("A2A029-tp8-auto-runner", ["--tp-size", "8", *FI], ["A2A029", "A2A038"], A2A029),
    case("A2A029-attn-dp4", ["--tp-size", "8", "--attn-dp-size", "4", *FI, *CUTLASS], ["A2A029"], A2A029),
    case("A2A029-dp-replicas", ["--tp-size", "8", "--dp-size", "2", *FI, *CUTLASS], ["A2A029"], A2A029),
    case("A2A029-ok-attn-dp8", [*FI_DP8, *CUTLASS], [], "ok"),
    case("A2A029-ok-pp2", [*FI_DP8, "--pp-size", "2", *CUTLASS], [], "ok"),
    case("A2A029-ok-deepep", ["--tp-size", "8", "--moe-a2a-backend", "deepep"], [], "ok"),
    # A2A032: a dispatch type routes the TRT-LLM runner
    case("A2A032-trtllm-bf16", [*FI_DP8, "--moe-runner-backend", "flashinfer_trtllm", "--flashinfer-a2a-dispatch-type",
                                "bf16"], ["A2A032"], "ok"),
    case("A2A032-trtllm-auto", [*FI_DP8, "--moe-runner-backend", "flashinfer_trtllm", "--flashinfer-a2a-dispatch-type",
                                "auto"], ["A2A032"], "ok"),
    case("A2A032-ok-no-dispatch-type", [*FI_DP8, "--moe-runner-backend", "flashinfer_trtllm"], [], "ok"),
    case("A2A032-ok-mxfp8-auto-runner", [*FI_DP8, "--quantization", "mxfp8", "--flashinfer-a2a-dispatch-type", "mxfp8"],
         [], "ok", model="qwen3-moe"),
    # A2A038: an explicit runner FlashInfer a2a dispatches to
    case("A2A038-auto", [*FI_DP8], ["A2A038"], A2A038),
    case("A2A038-fp8-auto", [*FI_DP8, "--quantization", "fp8"], ["A2A038"], A2A038),
    case("A2A038-triton", [*FI_DP8, "--moe-runner-backend", "triton"], ["A2A038"], A2A038),
    case("A2A038-ok-deep-gemm", [*FI_DP8, "--moe-runner-backend", "deep_gemm"], [], "ok"),
    case("A2A038-ok-fp8-trtllm", [*FI_DP8, "--quantization", "fp8", "--moe-runner-backend", "flashinfer_trtllm"], [], "ok"),
]
