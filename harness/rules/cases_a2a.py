"""Rule cases of ``handle_a2a_moe`` (family A, catalog A.4-A.7): the a2a backend's own checks, with verdicts from ../shared/oracle."""

from __future__ import annotations

from harness.rules.casekit import at, case

A2A008, A2A029, A2A038 = at("A2A008"), at("A2A029"), at("A2A038")
A2A019, A2A023, A2A024, A2A025, A2A026 = at("A2A019"), at("A2A023"), at("A2A024"), at("A2A025"), at("A2A026")
A2A041, A2A043, A2A044 = at("A2A041"), at("A2A043"), at("A2A044")
A2A015, A2A016, A2A017 = at("A2A015"), at("A2A016"), at("A2A017")
A2A035, A2A036, A2A037 = at("A2A035"), at("A2A036"), at("A2A037")
A2A009, A2A010 = at("A2A009"), at("A2A010")
MEGAMOE_DP8 = ["--tp-size", "8", "--attn-dp-size", "8", "--moe-a2a-backend", "flashinfer_megamoe"]
FI = ["--moe-a2a-backend", "flashinfer"]
FI_DP8 = ["--tp-size", "8", "--attn-dp-size", "8", *FI]
CUTLASS = ["--moe-runner-backend", "flashinfer_cutlass"]
CUTEDSL_DEEPEP = ["--tp-size", "8", "--quantization", "modelopt_fp4", "--moe-runner-backend", "flashinfer_cutedsl",
                  "--moe-a2a-backend", "deepep"]
# DeepEP v2 within its default per-rank budget (128 tokens: A2A050/A2A051, moe_hook.py:689/700, not this family's)
V2 = ["--tp-size", "8", "--moe-a2a-backend", "deepep_v2", "--chunked-prefill-size", "1024", "--cuda-graph-max-bs-decode", "64"]
V2_2NODES = ["--tp-size", "16", "--nnodes", "2", "--node-rank", "0", "--dist-init-addr", "10.0.0.1:5000", "--moe-a2a-backend",
             "deepep_v2", "--chunked-prefill-size", "2048", "--cuda-graph-max-bs-decode", "64"]
MEGAMOE = ["--tp-size", "8", "--attn-dp-size", "8", "--moe-a2a-backend", "flashinfer_megamoe", "--quantization", "modelopt_fp4"]
# PPLX within its default per-rank budget (128 tokens, A2A045): 1024 / 8 attention-DP groups
PPLX = ["--tp-size", "8", "--moe-a2a-backend", "pplx", "--chunked-prefill-size", "1024"]

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
    # A2A007: Waterfill turns shared-expert fusion back on
    case("A2A007-waterfill-disable-fusion", ["--tp-size", "8", "--moe-a2a-backend", "deepep", "--enable-waterfill",
                                             "--disable-shared-experts-fusion"], ["A2A007"], "ok"),
    case("A2A007-ok-deepep-disable-fusion", ["--tp-size", "8", "--moe-a2a-backend", "deepep", "--disable-shared-experts-fusion"],
         [], "ok"),
    case("A2A007-ok-flashinfer-disable-fusion", [*FI_DP8, *CUTLASS, "--disable-shared-experts-fusion"], [], "ok"),
    # A2A019: DeepEP + CuteDSL is low-latency only
    case("A2A019-normal", [*CUTEDSL_DEEPEP, "--deepep-mode", "normal"], ["A2A019"], A2A019),
    case("A2A019-waterfill", ["--tp-size", "8", "--quantization", "modelopt_fp4", "--moe-runner-backend", "flashinfer_cutedsl",
                              "--enable-waterfill", "--deepep-mode", "normal"], ["A2A019"], A2A019),
    case("A2A019-ok-auto", [*CUTEDSL_DEEPEP], [], "ok"),
    case("A2A019-ok-low-latency", [*CUTEDSL_DEEPEP, "--deepep-mode", "low_latency"], [], "ok"),
    case("A2A019-ok-normal-other-runner", ["--tp-size", "8", "--moe-a2a-backend", "deepep", "--deepep-mode", "normal"], [], "ok"),
    # A2A023-A2A026: DeepEP v2
    case("A2A023-triton", [*V2, "--moe-runner-backend", "triton"], ["A2A023"], A2A023),
    case("A2A023-mxfp8-resolves-trtllm", [*V2, "--quantization", "mxfp8"], ["A2A023"], A2A023, model="qwen3-moe"),
    case("A2A023-ok-auto", [*V2], [], "ok"),
    case("A2A023-ok-explicit-auto", [*V2, "--moe-runner-backend", "auto"], [], "ok"),
    case("A2A023-ok-deep-gemm", [*V2, "--moe-runner-backend", "deep_gemm"], [], "ok"),
    case("A2A024-tbo", [*V2, "--enable-two-batch-overlap"], ["A2A024"], A2A024),
    case("A2A024-sbo", [*V2, "--enable-single-batch-overlap"], ["A2A024"], A2A024),
    case("A2A024-both", [*V2, "--enable-two-batch-overlap", "--enable-single-batch-overlap"], ["A2A024"], A2A024),
    case("A2A025-enforce-fusion", [*V2, "--enforce-shared-experts-fusion"], ["A2A025"], A2A025),
    case("A2A025-ok-disable-fusion", [*V2, "--disable-shared-experts-fusion"], [], "ok"),
    case("A2A026-two-nodes", [*V2_2NODES], ["A2A026"], A2A026),
    case("A2A026-explicit-direct", [*V2_2NODES, "--deepep-v2-mode", "direct"], ["A2A026"], A2A026),
    case("A2A026-ok-hybrid", [*V2_2NODES, "--deepep-v2-mode", "hybrid"], [], "ok"),
    case("A2A026-ok-one-node-direct", [*V2, "--deepep-v2-mode", "direct"], [], "ok"),
    # A2A041-A2A044: PPLX
    case("A2A041-normal", [*PPLX, "--attn-dp-size", "8", "--deepep-mode", "normal"], ["A2A041"], A2A041),
    case("A2A041-ok-low-latency", [*PPLX, "--attn-dp-size", "8", "--deepep-mode", "low_latency"], [], "ok"),
    case("A2A043-no-attn-dp", [*PPLX], ["A2A043"], A2A043),
    case("A2A043-tp1", ["--moe-a2a-backend", "pplx"], ["A2A043"], A2A043),
    case("A2A043-ok-attn-dp2", ["--tp-size", "2", "--attn-dp-size", "2", "--moe-a2a-backend", "pplx",
                                "--chunked-prefill-size", "256"], [], "ok"),
    case("A2A044-triton", [*PPLX, "--attn-dp-size", "8", "--moe-runner-backend", "triton"], ["A2A044"], A2A044),
    case("A2A044-mxfp8-resolves-trtllm", [*PPLX, "--attn-dp-size", "8", "--quantization", "mxfp8"], ["A2A044"], A2A044,
         model="qwen3-moe"),
    case("A2A044-ok-deep-gemm", [*PPLX, "--attn-dp-size", "8", "--moe-runner-backend", "deep_gemm"], [], "ok"),
    # A2A015-A2A017: FlashInfer MegaMoE (on B200s; SGLang first checks the quantization from the model, A2A010)
    case("A2A015-no-attn-dp", ["--tp-size", "8", "--moe-a2a-backend", "flashinfer_megamoe", "--quantization", "modelopt_fp4"],
         ["A2A015"], A2A015, gpu="b200"),
    case("A2A015-attn-dp4", ["--tp-size", "8", "--attn-dp-size", "4", "--moe-a2a-backend", "flashinfer_megamoe",
                             "--quantization", "modelopt_fp4"], ["A2A015"], A2A015, gpu="b200"),
    case("A2A015-tp1", ["--moe-a2a-backend", "flashinfer_megamoe", "--quantization", "modelopt_fp4"], ["A2A015"], A2A015,
         gpu="b200"),
    case("A2A015-mxfp8", ["--tp-size", "8", "--moe-a2a-backend", "flashinfer_megamoe", "--quantization", "mxfp8"], ["A2A015"],
         A2A015, gpu="b200", model="qwen3-moe"),
    case("A2A015-then-A2A017-h200", ["--tp-size", "8", "--moe-a2a-backend", "flashinfer_megamoe", "--quantization",
                                     "modelopt_fp4"], ["A2A015", "A2A017"], A2A015),
    case("A2A015-ok", [*MEGAMOE], [], "ok", gpu="b200"),
    case("A2A016-cutlass", [*MEGAMOE, *CUTLASS], ["A2A016"], A2A016, gpu="b200"),
    case("A2A016-mxfp8-trtllm", ["--tp-size", "8", "--attn-dp-size", "8", "--moe-a2a-backend", "flashinfer_megamoe",
                                 "--quantization", "mxfp8", "--moe-runner-backend", "flashinfer_trtllm"], ["A2A016"], A2A016,
         gpu="b200", model="qwen3-moe"),
    case("A2A016-ok-explicit", [*MEGAMOE, "--moe-runner-backend", "flashinfer_megamoe"], [], "ok", gpu="b200"),
    # mxfp8 replaces the triton runner by flashinfer_megamoe (RUN003) before the check
    case("A2A016-ok-mxfp8-triton", ["--tp-size", "8", "--attn-dp-size", "8", "--moe-a2a-backend", "flashinfer_megamoe",
                                    "--quantization", "mxfp8", "--moe-runner-backend", "triton"], ["RUN003"], "ok",
         gpu="b200", model="qwen3-moe"),
    case("A2A017-h200", [*MEGAMOE], ["A2A017"], A2A017),
    case("A2A017-h200-explicit-runner", [*MEGAMOE, "--moe-runner-backend", "flashinfer_megamoe"], ["A2A017"], A2A017),
    case("A2A017-h100-mxfp8", ["--tp-size", "8", "--attn-dp-size", "8", "--moe-a2a-backend", "flashinfer_megamoe",
                               "--quantization", "mxfp8"], ["A2A017"], A2A017, gpu="h100", model="qwen3-moe"),
    case("A2A017-ok-runner-without-a2a", ["--tp-size", "8", "--quantization", "modelopt_fp4", "--moe-runner-backend",
                                          "flashinfer_megamoe"], [], "ok"),
    # A2A035/A2A036: the MXFP8 dispatch (moe_hook.py:193,197, in the helper called at :530)
    case("A2A035-cutlass-bf16-weights", [*FI_DP8, *CUTLASS, "--flashinfer-a2a-dispatch-type", "mxfp8"], ["A2A035"], A2A035),
    case("A2A035-fp4", [*FI_DP8, *CUTLASS, "--quantization", "modelopt_fp4", "--flashinfer-a2a-dispatch-type", "mxfp8"],
         ["A2A035"], A2A035),
    case("A2A035-ok-auto", [*FI_DP8, *CUTLASS, "--flashinfer-a2a-dispatch-type", "auto"], [], "ok"),
    # A2A009/A2A010: FlashInfer MegaMoE's model checks (moe_hook.py:258,275, called at :316), with the model facts
    case("A2A009-llama", MEGAMOE_DP8, ["A2A009", "A2A010"], A2A009, gpu="b200", model="llama"),
    case("A2A009-llama-fp4", [*MEGAMOE_DP8, "--quantization", "modelopt_fp4"], ["A2A009"], A2A009, gpu="b200",
         model="llama"),
    case("A2A010-qwen-bf16", MEGAMOE_DP8, ["A2A010"], A2A010, gpu="b200", model="qwen3-moe"),
    case("A2A010-fp8", [*MEGAMOE_DP8, "--quantization", "fp8"], ["A2A010"], A2A010, gpu="b200"),
    case("A2A010-ok-fp4", [*MEGAMOE_DP8, "--quantization", "modelopt_fp4"], [], "ok", gpu="b200"),
    case("A2A010-ok-qwen-mxfp8", [*MEGAMOE_DP8, "--quantization", "mxfp8"], [], "ok", gpu="b200", model="qwen3-moe"),
    # A2A037: the NVFP4 dispatch without FP4 weights (moe_hook.py:202)
    case("A2A037-cutlass-bf16-weights", [*FI_DP8, *CUTLASS, "--flashinfer-a2a-dispatch-type", "nvfp4"], ["A2A037"],
         A2A037),
    case("A2A037-fp8", [*FI_DP8, "--quantization", "fp8", "--moe-runner-backend", "deep_gemm",
                        "--flashinfer-a2a-dispatch-type", "nvfp4"], ["A2A037"], A2A037),
    case("A2A037-ok-fp4", [*FI_DP8, *CUTLASS, "--quantization", "modelopt_fp4", "--flashinfer-a2a-dispatch-type",
                           "nvfp4"], [], "ok"),
    case("A2A037-ok-bf16", [*FI_DP8, *CUTLASS, "--flashinfer-a2a-dispatch-type", "bf16"], [], "ok"),
    case("A2A036-deep-gemm", [*FI_DP8, "--quantization", "mxfp8", "--moe-runner-backend", "deep_gemm",
                              "--flashinfer-a2a-dispatch-type", "mxfp8"], ["A2A036"], A2A036, model="qwen3-moe"),
    case("A2A036-auto-dispatch", [*FI_DP8, "--quantization", "mxfp8", "--moe-runner-backend", "deep_gemm",
                                  "--flashinfer-a2a-dispatch-type", "auto"], ["A2A036"], A2A036, model="qwen3-moe"),
    case("A2A036-ok-trtllm-routed-by-dispatch", [*FI_DP8, "--quantization", "mxfp8", "--moe-runner-backend",
                                                 "flashinfer_trtllm", "--flashinfer-a2a-dispatch-type", "mxfp8"],
         ["A2A032"], "ok", model="qwen3-moe"),
    case("A2A036-ok-deep-gemm-bf16", [*FI_DP8, "--quantization", "mxfp8", "--moe-runner-backend", "deep_gemm",
                                      "--flashinfer-a2a-dispatch-type", "bf16"], [], "ok", model="qwen3-moe"),
    case("A2A036-ok-no-dispatch-type", [*FI_DP8, "--quantization", "mxfp8", "--moe-runner-backend", "deep_gemm"], [], "ok",
         model="qwen3-moe"),
    # A2A039: MoRI's auto mode is normal
    case("A2A039-ok-mori", ["--tp-size", "8", "--moe-a2a-backend", "mori", "--chunked-prefill-size", "4096"], [], "ok"),
    # A2A020: DeepEP normal mode runs without CUDA graphs
    case("A2A020-decode-full", ["--tp-size", "8", "--moe-a2a-backend", "deepep", "--deepep-mode", "normal",
                                "--cuda-graph-backend-decode", "full"], ["A2A020"], "ok"),
    case("A2A020-both", ["--tp-size", "8", "--moe-a2a-backend", "deepep", "--deepep-mode", "normal",
                         "--cuda-graph-backend-decode", "breakable", "--cuda-graph-backend-prefill", "breakable"],
         ["A2A020", "A2A020"], "ok"),
    case("A2A020-waterfill", ["--tp-size", "8", "--enable-waterfill", "--deepep-mode", "normal",
                              "--cuda-graph-backend-prefill", "breakable"], ["A2A020"], "ok"),
    case("A2A020-ok-disabled", ["--tp-size", "8", "--moe-a2a-backend", "deepep", "--deepep-mode", "normal",
                                "--cuda-graph-backend-decode", "disabled"], [], "ok"),
    case("A2A020-ok-auto-mode", ["--tp-size", "8", "--moe-a2a-backend", "deepep", "--cuda-graph-backend-decode", "full"],
         [], "ok"),
    # Seeds for the property draw (tests/property/strategies.py), written with the dests the rules read only.
    # Without --chunked-prefill-size/--cuda-graph-max-bs-decode a DeepEP v2 launch exceeds the default per-rank
    # budget (A2A050, moe_hook.py:689: an environment capacity autofix does not know): no fix can be accepted.
    case("A2A025-seed", ["--tp-size", "8", "--moe-a2a-backend", "deepep_v2", "--enforce-shared-experts-fusion"], ["A2A025"],
         A2A025, fixed_ok=False),
    case("A2A026-seed", ["--tp-size", "16", "--nnodes", "2", "--moe-a2a-backend", "deepep_v2"], ["A2A026"], A2A026,
         fixed_ok=False),
    case("A2A019-seed", ["--moe-runner-backend", "flashinfer_cutedsl", "--moe-a2a-backend", "deepep", "--deepep-mode", "normal",
                         "--quantization", "modelopt_fp4"], ["A2A019"], A2A019),
    case("A2A036-seed", [*FI_DP8, "--quantization", "mxfp8", "--moe-runner-backend", "cutlass",
                         "--flashinfer-a2a-dispatch-type", "auto"], ["A2A036", "A2A038"], A2A036, model="qwen3-moe"),
    # without --chunked-prefill-size PPLX exceeds its default per-rank budget (A2A045, an environment capacity)
    case("A2A041-seed", ["--tp-size", "8", "--attn-dp-size", "8", "--moe-a2a-backend", "pplx", "--deepep-mode", "normal"],
         ["A2A041"], A2A041, fixed_ok=False),
    case("A2A044-seed", ["--tp-size", "2", "--attn-dp-size", "2", "--moe-a2a-backend", "pplx", "--moe-runner-backend", "triton"],
         ["A2A044"], A2A044, fixed_ok=False),
    case("A2A036-seed-tp1", [*FI, "--quantization", "mxfp8", "--moe-runner-backend", "deep_gemm",
                             "--flashinfer-a2a-dispatch-type", "auto"], ["A2A029", "A2A036"], A2A029, model="qwen3-moe"),
    # A2A027: DeepEP v2 runs prefill without a CUDA graph
    case("A2A027-prefill-full", [*V2, "--cuda-graph-backend-prefill", "full"], ["A2A027"], "ok"),
    case("A2A027-prefill-breakable", [*V2, "--cuda-graph-backend-prefill", "breakable"], ["A2A027"], "ok"),
    case("A2A027-ok-decode-breakable", [*V2, "--cuda-graph-backend-decode", "breakable"], [], "ok"),
    # Regression (not this family's rule): RUN015 divided by --attn-dp-size 0 after DP002 had refused it. Once
    # DP002 is fixed, --shared-experts-tp-size (Kimi-K3 only: RUN017) goes too, and SGLang accepts the launch.
    case("DP002-then-no-RUN015-crash", ["--attn-dp-size", "0", "--shared-experts-tp-size", "1"], ["DP002"], at("DP002")),
]
