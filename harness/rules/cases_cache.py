"""KV-cache compatibility (``handle_cache_compatibility``), the unified-cache linker (``handle_hicache``),
multi-item scoring's radix cache, and the Engine's PD-Multiplexing and chunked-prefill checks
(``check_server_args``): cases checked with ../shared/oracle."""

from __future__ import annotations

from harness.rules.casekit import at, case

D = ["--disaggregation-mode", "decode"]
HOST_POOL = ["--disaggregation-decode-retraction-backup", "host_pool"]
OFFLOAD = ["--disaggregation-decode-enable-offload-kvcache"]
HICACHE = ["--enable-hierarchical-cache"]
PDMUX = ["--enable-pdmux"]
NO_CHUNK = ["--chunked-prefill-size", "-1"]
NO_OVERLAP = ["--disable-overlap-schedule"]

CASES = [
    case("KV050-prefill", ["--disaggregation-mode", "prefill", *HOST_POOL], ["KV050"], at("KV050")),
    case("KV050-no-pd", HOST_POOL, ["KV050"], at("KV050")),
    case("KV050-ok-decode", [*D, *HOST_POOL], [], "ok"),
    case("KV051-dcp", [*D, "--tp", "8", "--dcp-size", "2", *HOST_POOL], ["KV051"], at("KV051")),
    case("KV051-host-receive-default", [*D, "--tp", "8", "--dcp-size", "2",
                                        "--disaggregation-decode-host-receive-threshold", "0.5"], ["KV051"], at("KV051")),
    case("KV051-ok-cpu-tensor", [*D, "--tp", "8", "--dcp-size", "2"], [], "ok"),
    case("KV052-priority", [*D, "--enable-priority-scheduling", *HOST_POOL], ["KV052"], at("KV052")),
    case("KV052-ok-no-preemption", [*D, "--enable-priority-scheduling", "--disable-priority-preemption", *HOST_POOL],
         [], "ok"),
    case("KV054-disable-radix", [*HICACHE, "--disable-radix-cache"], ["KV054"], at("KV054")),
    case("KV054-decode", [*HICACHE, *D], ["KV054"], at("KV054")),
    case("KV054-mis", [*HICACHE, "--enable-mis", "--attention-backend", "flashinfer"], ["KV054"], at("KV054")),
    case("KV054-ok-decode-radix", [*HICACHE, *D, "--disaggregation-decode-enable-radix-cache"], [], "ok"),
    case("KV054-ok", HICACHE, [], "ok"),
    case("KV055-no-pd", OFFLOAD, ["KV055"], at("KV055")),
    case("KV058-no-storage", [*D, *OFFLOAD], ["KV058"], at("KV058")),
    case("KV059-host-pool", [*D, *OFFLOAD, "--hicache-storage-backend", "file", *HOST_POOL], ["KV059"], at("KV059")),
    case("KV059-ok", [*D, *OFFLOAD, "--hicache-storage-backend", "file"], [], "ok"),
    case("KV090-page", ["--chunked-prefill-size", "1000", "--page-size", "64"], ["KV090"], at("KV090")),
    case("KV090-trtllm-snap", ["--chunked-prefill-size", "1000", "--attention-backend", "trtllm_mha"], ["KV090"],
         at("KV090")),
    case("KV090-attention-dp-default", ["--page-size", "64", "--tp", "6", "--dp", "3", "--enable-dp-attention"],
         ["KV090"], at("KV090")),
    case("KV090-ok-page", ["--chunked-prefill-size", "960", "--page-size", "64"], [], "ok"),
    # a page size of 0: SGLang's `%` at the same line fails (ZeroDivisionError); the fix removes it
    case("KV090-page-zero", ["--page-size", "0"], ["KV090"], at("KV090")),
    case("KV090-page-zero-llama", ["--chunked-prefill-size", "4096", "--page-size", "0"], ["KV090"], at("KV090"),
         model="llama"),
    case("KV090-ok-page-zero-no-chunk", ["--page-size", "0", *NO_CHUNK], [], "ok"),
    case("KV090-ok-page-zero-decode", ["--page-size", "0", *D], [], "ok"),
    case("KV090-ok-decode", ["--chunked-prefill-size", "1000", "--page-size", "64", *D], [], "ok"),
    case("GEN030-pp", [*PDMUX, "--pp-size", "2", *NO_CHUNK, *NO_OVERLAP], ["GEN030"], at("GEN030")),
    case("GEN031-default-chunk", [*PDMUX, *NO_OVERLAP], ["GEN031"], at("GEN031")),
    case("GEN031-written-chunk", [*PDMUX, *NO_OVERLAP, "--chunked-prefill-size", "4096"], ["GEN031"], at("GEN031")),
    case("GEN032-prefill", [*PDMUX, *NO_OVERLAP, *NO_CHUNK, "--disaggregation-mode", "prefill"], ["GEN032"],
         at("GEN032")),
    case("GEN033-overlap", [*PDMUX, *NO_CHUNK], ["GEN033"], at("GEN033")),
    case("GEN030-all-four", [*PDMUX, "--pp-size", "2", *D], ["GEN030", "GEN031", "GEN032"], at("GEN030")),
    case("GEN033-ok-pp-turns-overlap-off", [*PDMUX, *NO_CHUNK, "--pp-size", "2"], ["GEN030"], at("GEN030")),
    case("GEN030-ok", [*PDMUX, *NO_CHUNK, *NO_OVERLAP], [], "ok"),
]

DET = ["--enable-deterministic-inference"]

CASES += [
    case("KV032-flashmla", [*DET, "--attention-backend", "flashmla"], ["KV032"], at("KV032")),
    case("KV032-rl-target", ["--rl-on-policy-target", "fsdp", "--attention-backend", "trtllm_mla"], ["KV032"],
         at("KV032")),
    case("KV032-model-choice-b200", DET, ["KV032"], at("KV032"), gpu="b200"),
    case("KV032-ok-default-h200", DET, [], "ok"),
    case("KV032-ok-triton-b200", [*DET, "--attention-backend", "triton"], [], "ok", gpu="b200"),
    case("KV031-flashinfer", [*DET, "--attention-backend", "flashinfer"], ["KV031"], at("KV031")),
    case("KV031-ok-llama-flashinfer", [*DET, "--attention-backend", "flashinfer"], [], "ok", model="llama"),
    case("KV138-fa4-h200", [*DET, "--attention-backend", "fa4"], ["KV138"], at("KV138")),
    case("KV138-ok-fa4-b200", [*DET, "--attention-backend", "fa4"], [], "ok", gpu="b200"),
    case("KV054-deterministic-flashinfer", [*DET, "--attention-backend", "flashinfer", *HICACHE], ["KV054"],
         at("KV054"), model="llama"),
    case("KV054-deterministic-fallback-b200", [*DET, *HICACHE], ["KV054"], at("KV054"), model="llama", gpu="b200"),
    case("KV054-ok-deterministic-fa3", [*DET, "--attention-backend", "fa3", *HICACHE], [], "ok", model="llama"),
]

CASES += [
    case("KV032-hpu", [*DET, "--device", "hpu"], ["KV032"], at("KV032")),
    case("KV032-hpu-fa3", [*DET, "--device", "hpu", "--attention-backend", "fa3"], ["KV032"], at("KV032")),
    # HPU runs torch_native whatever backend is written: Triton is no fix there, only no deterministic inference
    case("KV032-hpu-triton", [*DET, "--device", "hpu", "--attention-backend", "triton"], ["KV032"], at("KV032")),
    case("KV032-ok-hpu-not-deterministic", ["--device", "hpu"], [], "ok"),
    case("KV032-ok-hpu-fa3-not-deterministic", ["--device", "hpu", "--attention-backend", "fa3"], [], "ok"),
    case("KV032-ok-decode-backend-b200", [*DET, "--decode-attention-backend", "fa3"], [], "ok", gpu="b200"),
]

CASES += [
    # without --gpu the page-size snaps leave the page size unknown: a written page of 100 may stay 100 (H200)
    case("KV090-page-100-default-chunk", ["--page-size", "100"], ["KV090"], at("KV090")),
]

CASES += [
    case("KV022-h200", ["--tp", "4", "--attn-cp-size", "2", "--attention-backend", "trtllm_mha"], ["KV022"],
         at("KV022")),
    case("KV022-prefill-h200", ["--tp", "4", "--attn-cp-size", "2", "--prefill-attention-backend", "trtllm_mha"],
         ["KV022"], at("KV022")),
    case("KV022-cp018-fix", ["--tp", "4", "--moe-dp-size", "2", "--attention-backend", "trtllm_mha"], ["CP018"],
         at("CP018")),
    case("KV022-ok-b200", ["--tp", "4", "--attn-cp-size", "2", "--attention-backend", "trtllm_mha"], [], "ok",
         gpu="b200"),
]

CASES += [
    case("PAR008-attn-cp-zero", ["--attn-cp-size", "0"], ["PAR008"], at("PAR008")),
    case("PAR008-tp8", ["--tp", "8", "--attn-cp-size", "0"], ["PAR008"], at("PAR008")),
]

# The unified-cache linker's MLA dedup (handle_hicache): the Mooncake linker only, whatever the model's attention
DEDUP = ["--enable-linker-mla-dedup"]
LINKER = ["--enable-unified-cache-external-linker"]
LINKER_BACKEND = "--unified-cache-external-linker-backend"

CASES += [
    case("KV042-linker-off", DEDUP, ["KV042"], at("KV042")),
    case("KV042-mooncake-linker-off", [*DEDUP, LINKER_BACKEND, "mooncake"], ["KV042"], at("KV042")),
    case("KV042-dynamic-linker-off", [*DEDUP, LINKER_BACKEND, "dynamic"], ["KV042"], at("KV042")),
    case("KV042-mori", [*LINKER, LINKER_BACKEND, "mori", *DEDUP], ["KV042"], at("KV042")),
    case("KV042-llama", DEDUP, ["KV042"], at("KV042"), model="llama"),
    # checked before the linker's own conflicts (hicache_hook.py:51 is not reached with the linker off)
    case("KV042-hicache", [*DEDUP, *HICACHE], ["KV042"], at("KV042")),
    case("KV042-ok-default-backend", [*DEDUP, *LINKER], [], "ok"),
    case("KV042-ok-mooncake", [*DEDUP, *LINKER, LINKER_BACKEND, "mooncake"], [], "ok"),
    case("KV042-ok-llama", [*DEDUP, *LINKER], [], "ok", model="llama"),
    case("KV042-ok-mori-without-dedup", [*LINKER, LINKER_BACKEND, "mori"], [], "ok"),
]
