"""Cases of the MoE kernel, MegaMoE, shared-experts TP, MoE budget and LayerNorm SP rules (verdicts: ../shared/oracle)."""

from __future__ import annotations

from harness.rules.casekit import at, case

RUN001, RUN002, RUN005, RUN010 = at("RUN001"), at("RUN002"), at("RUN005"), at("RUN010")
RUN011, RUN012, RUN014 = at("RUN011"), at("RUN012"), at("RUN014")
A2A002, RUN015, RUN017 = at("A2A002"), at("RUN015"), at("RUN017")
TP8 = ["--tp-size", "8"]
NVFP4 = [*TP8, "--quantization", "nvfp4_online"]
CUTLASS_FP8 = [*TP8, "--quantization", "fp8", "--moe-runner-backend", "cutlass"]
Q = "qwen3-moe"  # a BF16 checkpoint: DeepSeek-V3's FP8 config refuses any other --quantization

MOE_KERNEL_CASES = [
    # nvfp4_online needs SM100: refused on the H200, accepted on the B200
    case("RUN001-h200", NVFP4, ["RUN001"], RUN001),
    case("RUN001-cutedsl", [*NVFP4, "--moe-runner-backend", "flashinfer_cutedsl"], ["RUN001"], RUN001),
    case("RUN001-triton", [*NVFP4, "--moe-runner-backend", "triton"], ["RUN001", "RUN002"], RUN001),
    case("RUN001-cutedsl-deepep", [*NVFP4, "--moe-runner-backend", "flashinfer_cutedsl", "--moe-a2a-backend", "deepep"],
         ["RUN001", "RUN010"], RUN001),
    case("RUN001-ok-b200", NVFP4, [], "ok", gpu="b200"),
    case("RUN001-ok-b200-cutedsl", [*NVFP4, "--moe-runner-backend", "flashinfer_cutedsl"], [], "ok", gpu="b200"),
    case("RUN002-triton", [*NVFP4, "--moe-runner-backend", "triton"], ["RUN002"], RUN002, gpu="b200"),
    case("RUN002-deep-gemm", [*NVFP4, "--moe-runner-backend", "deep_gemm"], ["RUN002"], RUN002, gpu="b200"),
    case("RUN002-flashinfer-cutlass", [*NVFP4, "--moe-runner-backend", "flashinfer_cutlass"], ["RUN002", "RUN005"], RUN002,
         gpu="b200"),
    case("RUN002-ok-routed", [*NVFP4, "--moe-runner-backend", "flashinfer_trtllm_routed"], [], "ok", gpu="b200"),
    case("RUN002-ok-megamoe-alias", [*NVFP4, "--moe-runner-backend", "megamoe"], ["A2A001"], "ok", gpu="b200"),
    case("RUN005-ok-unquant", [*TP8, "--quantization", "unquant", "--moe-runner-backend", "flashinfer_cutlass"], [], "ok"),
    case("RUN011-awq", [*TP8, "--quantization", "awq", "--moe-runner-backend", "flashinfer_trtllm"], ["RUN011"], RUN011,
         model=Q),
    case("RUN011-w8a8-fp8", [*TP8, "--quantization", "w8a8_fp8", "--moe-runner-backend", "flashinfer_trtllm"],
         ["RUN011"], RUN011, model=Q),
    case("RUN011-experimental-sgl", [*TP8, "--quantization", "w8a8_fp8", "--moe-runner-backend",
                                     "experimental_sgl_trtllm"], ["RUN011"], RUN011, model=Q),
    case("RUN011-ok-fp8", [*TP8, "--quantization", "fp8", "--moe-runner-backend", "flashinfer_trtllm"], [], "ok", model=Q),
    case("RUN011-ok-compressed-tensors", [*TP8, "--quantization", "compressed-tensors", "--moe-runner-backend",
                                          "flashinfer_trtllm"], [], "ok", model=Q),
    case("RUN011-ok-unquant", [*TP8, "--quantization", "unquant", "--moe-runner-backend", "flashinfer_trtllm"], [], "ok"),
    case("RUN012-modelopt-fp8", [*TP8, "--quantization", "modelopt_fp8", "--moe-runner-backend",
                                 "flashinfer_trtllm_routed"], ["RUN012"], RUN012, model=Q),
    case("RUN012-compressed-tensors", [*TP8, "--quantization", "compressed-tensors", "--moe-runner-backend",
                                       "flashinfer_trtllm_routed"], ["RUN012"], RUN012, model=Q),
    case("RUN012-ok-mxfp8", [*TP8, "--quantization", "mxfp8", "--moe-runner-backend", "flashinfer_trtllm_routed"], [],
         "ok", model=Q),
    case("RUN012-ok-bf16", [*TP8, "--moe-runner-backend", "flashinfer_trtllm_routed"], [], "ok"),
    case("RUN012-ok-unquant", [*TP8, "--quantization", "unquant", "--moe-runner-backend", "flashinfer_trtllm_routed"],
         [], "ok", model=Q),
    # the runner disables the fusion; an explicit --disable-shared-experts-fusion agrees (no override)
    case("RUN013-ok-agrees", [*TP8, "--moe-runner-backend", "flashinfer_trtllm", "--disable-shared-experts-fusion"], [],
         "ok"),
    case("RUN014-ep8", [*CUTLASS_FP8, "--ep-size", "8"], ["RUN014"], RUN014),
    case("RUN014-ep2", [*CUTLASS_FP8, "--ep-size", "2"], ["RUN014"], RUN014),
    case("RUN014-mxfp8", [*TP8, "--quantization", "mxfp8", "--moe-runner-backend", "cutlass", "--ep-size", "8"],
         ["RUN014"], RUN014, model=Q),
    # checked before deepep makes ep_size 8: an explicit --ep-size is refused, its removal runs the same
    case("RUN014-deepep-ep8", [*CUTLASS_FP8, "--ep-size", "8", "--moe-a2a-backend", "deepep"], ["RUN014"], RUN014),
    case("RUN014-deepep-ep2", [*CUTLASS_FP8, "--ep-size", "2", "--moe-a2a-backend", "deepep"], ["RUN014", "A2A006"],
         RUN014),
    case("RUN014-ok-ep1", CUTLASS_FP8, [], "ok"),
    case("RUN014-ok-deepep", [*CUTLASS_FP8, "--moe-a2a-backend", "deepep"], [], "ok"),
    case("RUN014-ok-bf16", [*TP8, "--moe-runner-backend", "cutlass", "--ep-size", "8"], [], "ok"),
]

TBO, SBO = "--enable-two-batch-overlap", "--enable-single-batch-overlap"
MEGA_MOE_CASES = [
    case("A2A002-tbo", [*TP8, "--moe-a2a-backend", "megamoe", TBO], ["A2A002"], A2A002),
    case("A2A002-sbo", [*TP8, "--moe-a2a-backend", "megamoe", SBO], ["A2A002"], A2A002),
    case("A2A002-both", [*TP8, "--moe-a2a-backend", "megamoe", TBO, SBO], ["A2A002"], A2A002),
    case("A2A002-alias", [*TP8, "--moe-runner-backend", "megamoe", TBO], ["A2A001", "A2A002"], A2A002),
    case("A2A002-alias-over-deepep", [*TP8, "--moe-runner-backend", "megamoe", "--moe-a2a-backend", "deepep", TBO],
         ["A2A001", "A2A001", "A2A002"], A2A002),
    case("A2A002-ok-megamoe", [*TP8, "--moe-a2a-backend", "megamoe"], [], "ok"),
    case("A2A002-ok-deepep", [*TP8, "--moe-a2a-backend", "deepep", TBO, SBO], [], "ok"),
    case("A2A002-ok-waterfill", [*TP8, "--enable-waterfill", TBO], [], "ok"),  # deepep, after this check
]

SETP = "--shared-experts-tp-size"
# The oracle's models are not Kimi-K3: SGLang refuses a valid --shared-experts-tp-size next (:226, RUN017), whose
# fix removes the flag that RUN015's fix (the nearest divisor) kept: the fixed launches are accepted
SHARED_EXPERTS_TP_CASES = [
    case("RUN015-3-of-8", [*TP8, SETP, "3"], ["RUN015"], RUN015),
    case("RUN015-16-of-8", [*TP8, SETP, "16"], ["RUN015"], RUN015),
    case("RUN015-attn-dp", [*TP8, "--attn-dp-size", "4", SETP, "4"], ["RUN015"], RUN015),
    case("RUN015-attn-cp", [*TP8, "--attn-cp-size", "2", SETP, "8"], ["RUN015"], RUN015),
    case("RUN015-tp1", [SETP, "2"], ["RUN015"], RUN015),
    case("RUN015-zero", [*TP8, SETP, "0"], ["RUN015"], RUN015),  # no divisor to offer: the flag is removed
    case("RUN015-negative", [*TP8, SETP, "-1"], ["RUN015"], RUN015),
    # a negative attention CP size divides as Python does: 1 // 1 // -2 is -1, which 8 does not divide
    case("RUN015-negative-attn-cp", ["--attn-cp-size", "-2", SETP, "8"], ["RUN015", "PAR007"], RUN015),
    case("RUN015-ok-unset", [*TP8, "--attn-dp-size", "4"], [], "ok"),
    # RUN017: a valid size, but the oracle's models are not Kimi-K3
    case("RUN017-deepseek", [*TP8, SETP, "4"], ["RUN017"], RUN017),
    case("RUN017-llama", [*TP8, SETP, "8"], ["RUN017"], RUN017, model="llama"),
    case("RUN017-attn-dp", [*TP8, "--attn-dp-size", "2", SETP, "2"], ["RUN017"], RUN017),
]

FI_A2A = [*TP8, "--attn-dp-size", "8", "--moe-a2a-backend", "flashinfer", "--moe-runner-backend", "flashinfer_trtllm"]
MEGA_FP4 = [*TP8, "--moe-a2a-backend", "megamoe", "--quantization", "modelopt_fp4"]
CHUNK = "--chunked-prefill-size"
A2A046 = at("A2A046")
FLASHINFER_BUDGET_CASES = [
    case("A2A046-unchunked", [*FI_A2A, CHUNK, "-1"], ["A2A046"], A2A046),
    case("A2A046-zero", [*FI_A2A, CHUNK, "0"], ["A2A046"], A2A046),
    case("A2A046-pd-prefill", [*FI_A2A, CHUNK, "-1", "--disaggregation-mode", "prefill"], ["A2A046"], A2A046),
    case("A2A046-ok-pd-decode", [*FI_A2A, CHUNK, "-1", "--disaggregation-mode", "decode"], [], "ok"),
    case("A2A046-ok-default", FI_A2A, [], "ok"),
    case("A2A046-ok-chunked", [*FI_A2A, CHUNK, "8192"], [], "ok"),
    case("A2A046-ok-deepep", [*TP8, "--attn-dp-size", "8", "--moe-a2a-backend", "deepep", CHUNK, "-1"], [], "ok"),
]

A2A048 = at("A2A048")
MEGA_BUDGET_CASES = [
    # NVFP4 experts need the budget whatever the model (the others: by architecture, unknown here)
    case("A2A048-unchunked", [*MEGA_FP4, CHUNK, "-1"], ["A2A048"], A2A048, model=Q),
    case("A2A048-zero", [*MEGA_FP4, CHUNK, "0"], ["A2A048"], A2A048, model=Q),
    case("A2A048-llama", [*MEGA_FP4, CHUNK, "-1"], ["A2A048"], A2A048, model="llama"),
    case("A2A048-alias", [*TP8, "--moe-runner-backend", "megamoe", "--quantization", "modelopt_fp4", CHUNK, "-1"],
         ["A2A001", "A2A048"], A2A048, model=Q),
    case("A2A048-pd-prefill", [*MEGA_FP4, CHUNK, "-1", "--disaggregation-mode", "prefill"], ["A2A048"], A2A048,
         model=Q),
    case("A2A048-ok-pd-decode", [*MEGA_FP4, CHUNK, "-1", "--disaggregation-mode", "decode"], [], "ok", model=Q),
    case("A2A048-ok-default", MEGA_FP4, [], "ok", model=Q),
    case("A2A048-ok-fp8-deepseek", [*TP8, "--moe-a2a-backend", "megamoe", CHUNK, "-1"], [], "ok"),  # has a fallback
]

V2 = [*TP8, "--moe-a2a-backend", "deepep_v2", "--moe-runner-backend", "deep_gemm",
      CHUNK, "1024", "--cuda-graph-max-bs-decode", "8"]  # inside DeepEP v2's default 128-token budget
SPEC, DRAFT_A2A = "--speculative-algorithm", "--speculative-moe-a2a-backend"
A2A052 = at("A2A052")
DRAFT_CASES = [
    case("A2A052-inherited-eagle", [*V2, SPEC, "EAGLE"], ["A2A052"], A2A052),
    case("A2A052-inherited-eagle3", [*V2, SPEC, "EAGLE3"], ["A2A052"], A2A052),
    case("A2A052-inherited-standalone", [*V2, SPEC, "STANDALONE"], ["A2A052"], A2A052),
    case("A2A052-explicit", [*TP8, "--moe-a2a-backend", "deepep", SPEC, "EAGLE", DRAFT_A2A, "deepep_v2"], ["A2A052"],
         A2A052),
    case("A2A052-explicit-no-spec", [*TP8, DRAFT_A2A, "deepep_v2"], ["A2A052"], A2A052),
    case("A2A052-ok-draft-none", [*V2, SPEC, "EAGLE", DRAFT_A2A, "none"], [], "ok"),
    case("A2A052-ok-draft-deepep", [*V2, SPEC, "EAGLE", DRAFT_A2A, "deepep"], [], "ok"),
    case("A2A052-ok-ngram", [*V2, SPEC, "NGRAM"], [], "ok"),
    case("A2A052-ok-no-spec", V2, [], "ok"),
]

MEGA_SP, SP001 = "--enable-megamoe-for-layernorm-sp", at("SP001")
# Turning LayerNorm SP on (the safe fix) is for Muse Spark only: the oracle's models then refuse the MegaMoE flag
# (layernorm_sp_hook.py:129, a model check), so those cases' fixed launches are refused: fixed_ok=False
LAYERNORM_SP_CASES = [
    case("SP001-tp8", [*TP8, MEGA_SP], ["SP001"], SP001, fixed_ok=False),
    case("SP001-tp1", [MEGA_SP], ["SP001"], SP001),  # SP needs TP > 1: only the flag's removal is offered
    case("SP001-attn-dp", [*TP8, "--attn-dp-size", "2", MEGA_SP], ["SP001"], SP001),
    case("SP001-ok-neither", TP8, [], "ok"),
]

CASES = (MOE_KERNEL_CASES + MEGA_MOE_CASES + SHARED_EXPERTS_TP_CASES + FLASHINFER_BUDGET_CASES + MEGA_BUDGET_CASES
         + DRAFT_CASES + LAYERNORM_SP_CASES)
