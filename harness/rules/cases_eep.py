"""Elastic EP (``handle_elastic_ep``) and the EPLB recorder defaults: cases checked with ../shared/oracle."""

from __future__ import annotations

from harness.rules.casekit import at, case

E = ["--elastic-ep-backend", "mooncake"]
EPLB = ["--tp", "8", "--ep", "8", "--enable-eplb"]
JOINER = ["--tp", "8", "--elastic-ep-join-mode", "scale", "--node-rank", "1", *E]

CASES = [
    # EEP001 (derivation) and EP001/EP005 (recorder defaults): accepted, nothing to report
    case("EEP001-auto-resolves", [*EPLB, *E], [], "ok"),
    case("EEP001-explicit-auto", [*EPLB, *E, "--eplb-algorithm", "auto"], [], "ok"),
    case("EP001-eplb-recorder", [*EPLB], [], "ok"),
    case("EP005-report-recorder", ["--tp", "8", "--expert-balancedness-report-mode", "server_log"], [], "ok"),
    case("EP005-buffer-from-iterations", ["--tp", "8", "--expert-distribution-recorder-mode", "stat",
                                          "--eplb-rebalance-num-iterations", "50"], [], "ok"),
    case("EEP002-deepseek", [*EPLB, *E, "--eplb-algorithm", "deepseek"], ["EEP002"], at("EEP002")),
    case("EEP002-backend-none-string", [*EPLB, "--elastic-ep-backend", "none", "--eplb-algorithm", "deepseek"],
         ["EEP002"], at("EEP002")),
    case("EEP002-ok-hierarchical", [*EPLB, *E, "--eplb-algorithm", "elasticity_aware_hierarchical"], [], "ok"),
    case("EEP002-ok-no-eplb", ["--tp", "8", *E, "--eplb-algorithm", "deepseek"], [], "ok"),
    case("EEP002-ok-not-elastic", [*EPLB, "--eplb-algorithm", "deepseek"], [], "ok"),
    case("EEP003-pp2", ["--tp", "4", "--pp-size", "2", *E], ["EEP003"], at("EEP003")),
    case("EEP003-pp2-nixl", ["--tp", "4", "--pp-size", "2", "--elastic-ep-backend", "nixl"], ["EEP003"], at("EEP003")),
    case("EEP003-ok-not-elastic", ["--tp", "4", "--pp-size", "2"], [], "ok"),
    case("EEP005-recover", ["--tp", "8", "--elastic-ep-join-mode", "recover"], ["EEP005"], at("EEP005")),
    # autofix sees past the first refusal: the joiner also lacks --node-rank 1 and an offset
    case("EEP005-scale", ["--tp", "8", "--elastic-ep-join-mode", "scale"], ["EEP005", "EEP006", "EEP007"],
         at("EEP005")),
    case("EEP005-ok", ["--tp", "8", "--elastic-ep-join-mode", "recover", *E], [], "ok"),
    case("EEP006-rank0", ["--tp", "8", "--elastic-ep-join-mode", "scale", "--elastic-ep-join-rank-offset", "8", *E],
         ["EEP006"], at("EEP006")),
    case("EEP006-rank2", ["--tp", "8", "--elastic-ep-join-mode", "scale", "--node-rank", "2", "--nnodes", "3",
                          "--elastic-ep-join-rank-offset", "8", *E], ["EEP006"], at("EEP006")),
    # the offset is the running deployment's EP size: without an initial size the fix stops joining
    case("EEP007-no-offset", JOINER, ["EEP007"], at("EEP007")),
    case("EEP007-negative-offset", [*JOINER, "--elastic-ep-join-rank-offset", "-8"], ["EEP007"], at("EEP007")),
    case("EEP007-ok", [*JOINER, "--elastic-ep-join-rank-offset", "8"], [], "ok"),
    case("EEP008-no-mode", ["--tp", "8", "--elastic-ep-join-rank-offset", "8", *E], ["EEP008"], at("EEP008")),
    case("EEP008-recover", ["--tp", "8", "--elastic-ep-join-rank-offset", "8", "--elastic-ep-join-mode", "recover", *E],
         ["EEP008"], at("EEP008")),
    case("EEP008-negative-not-elastic", ["--tp", "8", "--elastic-ep-join-rank-offset", "-1"], ["EEP008"], at("EEP008")),
    case("EEP010-no-backend", ["--tp", "8", "--max-ep-size", "16"], ["EEP010"], at("EEP010")),
    case("EEP011-zero", ["--tp", "8", "--max-ep-size", "0", *E], ["EEP011"], at("EEP011")),
    case("EEP011-negative", ["--tp", "8", "--max-ep-size", "-4", *E], ["EEP011"], at("EEP011")),
    case("EEP011-ok-not-above-tp", ["--tp", "8", "--max-ep-size", "8", *E], [], "ok"),
    case("EEP011-ok-below-tp", ["--tp", "8", "--max-ep-size", "4", *E], [], "ok"),
    case("EEP012-no-max", ["--tp", "8", "--elastic-ep-initial-size", "8", *E], ["EEP012"], at("EEP012")),
    case("EEP012-max-equals-tp", ["--tp", "8", "--elastic-ep-initial-size", "8", "--max-ep-size", "8", *E],
         ["EEP012"], at("EEP012")),
    case("EEP012-no-backend", ["--tp", "8", "--elastic-ep-initial-size", "8"], ["EEP012"], at("EEP012")),
]

# Runtime scale-up (--max-ep-size above --tp-size). SCALE is a launch SGLang accepts.
SCALE = ["--tp", "8", "--elastic-ep-backend", "mooncake", "--max-ep-size", "16", "--moe-a2a-backend", "nixl",
         "--attn-dp-size", "8", "--enable-dp-lm-head"]
JOIN = ["--elastic-ep-join-mode", "scale", "--node-rank", "1", "--elastic-ep-join-rank-offset", "8"]
DP4 = ["--tp", "8", "--elastic-ep-backend", "mooncake", "--moe-a2a-backend", "nixl", "--attn-dp-size", "4",
       "--enable-dp-lm-head"]  # attention TP 2: the replica is 2 ranks
NO_DP = ["--tp", "8", "--elastic-ep-backend", "mooncake", "--max-ep-size", "16", "--enable-dp-lm-head"]

CASES += [
    case("EEP-scale-up-ok", SCALE, [], "ok"),
    case("EEP-scale-up-ok-joiner", [*SCALE, *JOIN, "--elastic-ep-initial-size", "8"], [], "ok"),
    case("EEP-scale-up-ok-max-equals-tp", ["--tp", "8", "--elastic-ep-backend", "mooncake", "--max-ep-size", "8"], [],
         "ok"),
    case("EEP013-attn-cp0", [*SCALE, "--attn-cp-size", "0"], ["EEP013", "PAR008"], at("EEP013")),
    case("EEP014-max-ep-size-odd", [*DP4, "--max-ep-size", "15", "--moe-dense-tp-size", "1"], ["EEP014"], at("EEP014")),
    case("EEP014-joiner-offset-odd", [*DP4, "--max-ep-size", "24", "--moe-dense-tp-size", "1", "--elastic-ep-join-mode",
                                      "scale", "--node-rank", "1", "--elastic-ep-join-rank-offset", "9",
                                      "--elastic-ep-initial-size", "8"], ["EEP014"], at("EEP014")),
    case("EEP014-joiner-initial-negative", [*SCALE, *JOIN, "--elastic-ep-initial-size", "-8"], ["EEP014", "EEP027"],
         at("EEP014")),
    case("EEP017-dense-unset", [*DP4, "--max-ep-size", "16"], ["EEP017"], at("EEP017")),
    case("EEP017-dense-2", [*DP4, "--max-ep-size", "16", "--moe-dense-tp-size", "2"], ["EEP017", "PAR002"], at("EEP017")),
    case("EEP017-ok-dense-1", [*DP4, "--max-ep-size", "16", "--moe-dense-tp-size", "1"], [], "ok"),
    case("EEP018-timeout-0", [*SCALE, "--elastic-ep-scale-timeout", "0"], ["EEP018"], at("EEP018")),
    case("EEP019-tokenizer-workers", [*SCALE, "--tokenizer-worker-num", "2"], ["EEP019"], at("EEP019")),
    case("EEP020-ray", [*SCALE, "--use-ray"], ["EEP020"], at("EEP020")),
    case("EEP021-expert-backup", [*SCALE, "--enable-elastic-expert-backup"], ["EEP021"], at("EEP021")),
    case("EEP021-ok-no-scale-up", ["--tp", "8", "--elastic-ep-backend", "mooncake", "--enable-elastic-expert-backup"],
         [], "ok"),
    case("EEP022-joiner-no-initial", [*SCALE, *JOIN], ["EEP022"], at("EEP022")),
    case("EEP023-initial-above-offset", [*SCALE[:5], "32", *SCALE[6:], *JOIN, "--elastic-ep-initial-size", "16"],
         ["EEP023"], at("EEP023")),
    case("EEP024-join-target", [*SCALE[:5], "12", *SCALE[6:], *JOIN, "--elastic-ep-initial-size", "8"], ["EEP024"],
         at("EEP024")),
    case("EEP025-one-rank-joiner", ["--elastic-ep-backend", "mooncake", "--max-ep-size", "16", "--moe-a2a-backend",
                                    "nixl", "--enable-dp-lm-head", *JOIN, "--elastic-ep-initial-size", "8"],
         ["EEP025"], at("EEP025")),
    case("EEP025-ok-dense-1", ["--elastic-ep-backend", "mooncake", "--max-ep-size", "16", "--moe-a2a-backend", "nixl",
                               "--enable-dp-lm-head", "--moe-dense-tp-size", "1", *JOIN,
                               "--elastic-ep-initial-size", "8"], [], "ok"),
    case("EEP026-primary-initial-4", [*SCALE, "--elastic-ep-initial-size", "4"], ["EEP026"], at("EEP026")),
    case("EEP026-ok-primary-initial-tp", [*SCALE, "--elastic-ep-initial-size", "8"], [], "ok"),
    case("EEP027-joiner-initial-0", [*SCALE, *JOIN, "--elastic-ep-initial-size", "0"], ["EEP027"], at("EEP027")),
    case("EEP028-total-requests", [*SCALE, "--load-balance-method", "total_requests"], ["EEP028"], at("EEP028")),
    case("EEP028-pd-prefill-auto", [*SCALE, "--disaggregation-mode", "prefill"], ["EEP028"], at("EEP028")),
    case("EEP028-ok-explicit-round-robin", [*SCALE, "--load-balance-method", "round_robin"], [], "ok"),
    case("EEP029-nixl-backend", ["--tp", "8", "--elastic-ep-backend", "nixl", *SCALE[4:]], ["EEP029"], at("EEP029")),
    case("EEP029-none-string", ["--tp", "8", "--elastic-ep-backend", "none", *SCALE[4:]], ["EEP029"], at("EEP029")),
    case("EEP031-dcp-2", [*SCALE, "--dcp-size", "2"], ["EEP031"], at("EEP031")),
    case("EEP031-dcp-4-attn-tp-2", [*DP4, "--max-ep-size", "16", "--moe-dense-tp-size", "1", "--dcp-size", "4"],
         ["EEP031"], at("EEP031")),
    case("EEP041-no-attn-dp", [*NO_DP, "--moe-a2a-backend", "nixl", "--moe-dense-tp-size", "1"], ["DP005", "EEP041", "EEP042"],
         at("EEP041")),
    # attention TP 8 without attention DP: the dense TP check comes first
    case("EEP041-dense-first", [*NO_DP, "--moe-a2a-backend", "nixl"], ["DP005", "EEP017", "EEP041", "EEP042"], at("EEP017")),
    case("EEP042-no-dp-lm-head", SCALE[:-1], ["EEP042"], at("EEP042")),
    case("EEP043-attn-cp-2", [*DP4, "--max-ep-size", "16", "--attn-cp-size", "2", "--moe-dense-tp-size", "1"],
         ["EEP043"], at("EEP043")),
    case("EEP043-attn-cp-2-moe-dp-2", [*DP4, "--max-ep-size", "16", "--attn-cp-size", "2", "--moe-dp-size", "2",
                                       "--moe-dense-tp-size", "1"], ["EEP043", "PAR007"], at("EEP043")),
    case("EEP045-a2a-none", [*NO_DP, "--attn-dp-size", "8", "--cuda-graph-backend-prefill", "disabled"],
         ["EEP045", "EEP046"], at("EEP045")),
    case("EEP046-deepep", [*SCALE[:6], "--moe-a2a-backend", "deepep", *SCALE[8:], "--cuda-graph-backend-prefill",
                           "disabled"], ["EEP046"], at("EEP046")),
    case("EEP046-a2a-none-ep-8", [*NO_DP, "--attn-dp-size", "8", "--ep", "8", "--cuda-graph-backend-prefill",
                                  "disabled"], ["EEP046"], at("EEP046")),
    case("EEP046-mooncake-a2a", [*SCALE[:6], "--moe-a2a-backend", "mooncake", *SCALE[8:]], ["EEP046"], at("EEP046")),
]

# CUDA graphs under scale-up
NO_DECODE_GRAPH = ["--cuda-graph-backend-decode", "disabled"]
HOOKS = ["--forward-hooks", '[{"name":"h","target_modules":["x"],"hook_factory":"m:f"}]']
PDMUX = ["--enable-pdmux", "--chunked-prefill-size", "-1", "--disable-overlap-schedule"]

CASES += [
    case("EEP032-breakable", [*SCALE, "--cuda-graph-backend-decode", "breakable"], ["EEP032"], at("EEP032")),
    # with speculative decoding the fix turns the decode graph off, not to full (EEP035)
    case("EEP032-breakable-speculative", [*SCALE, "--cuda-graph-backend-decode", "breakable",
                                          "--speculative-algorithm", "NEXTN"], ["EEP032"], at("EEP032")),
    case("EEP032-ok-disable-cuda-graph", [*SCALE, "--disable-cuda-graph"], [], "ok"),
    case("EEP032-ok-pd-prefill", [*SCALE, "--disaggregation-mode", "prefill", "--load-balance-method", "round_robin"],
         [], "ok"),
    case("EEP033-prefill-breakable", [*SCALE, "--cuda-graph-backend-prefill", "breakable"], ["EEP033"], at("EEP033")),
    case("EEP033-prefill-full", [*SCALE, "--cuda-graph-backend-prefill", "full"], ["EEP033"], at("EEP033")),
    case("EEP033-ok-disable-prefill", [*SCALE, "--disable-prefill-cuda-graph"], [], "ok"),
    case("EEP034-device-cpu", [*SCALE, "--device", "cpu"], ["EEP034"], at("EEP034")),
    # --device cpu: the CPU attention backend (intel_amx on the oracle's x86 host) keeps the breakable prefill graph
    case("EEP033-device-cpu", ["--tp", "8", "--elastic-ep-backend", "mooncake", "--max-ep-size", "16", "--attn-dp-size",
                               "8", "--device", "cpu"], ["EEP033", "EEP034", "EEP042", "EEP045", "EEP046"],
         at("EEP033"), gpu="b200"),
    case("EEP034-ok-device-cuda", [*SCALE, "--device", "cuda"], [], "ok"),
    case("EEP034-ok-decode-graph-off", [*SCALE, "--device", "cpu", *NO_DECODE_GRAPH], [], "ok"),
    case("EEP035-nextn", [*SCALE, "--speculative-algorithm", "NEXTN"], ["EEP035"], at("EEP035")),
    case("EEP035-ok-decode-graph-off", [*SCALE, "--speculative-algorithm", "NEXTN", *NO_DECODE_GRAPH], [], "ok"),
    case("EEP035-ok-aux-capture", [*SCALE, "--speculative-algorithm", "EAGLE3", "--enable-return-aux-hidden-states"],
         [], "ok"),
    case("EEP036-embedding", [*SCALE, "--is-embedding"], ["EEP036"], at("EEP036")),
    case("EEP036-ok-decode-graph-off", [*SCALE, "--is-embedding", *NO_DECODE_GRAPH], [], "ok"),
    # the fixed launch reaches the DLLM step, where the oracle cannot load the algorithm (not this family)
    case("EEP037-dllm", [*SCALE, "--dllm-algorithm", "LowConfidence"], ["EEP037"], at("EEP037"), fixed_ok=False),
    # encoder disaggregation refuses DeepSeek-V3 too (PD019): the fix removes --encoder-only for both
    case("EEP038-encoder-only", [*SCALE, "--encoder-only"], ["EEP038", "PD019"], at("EEP038")),
    case("EEP039-forward-hooks", [*SCALE, *HOOKS], ["EEP039"], at("EEP039")),
    case("EEP039-ok-empty-hooks", [*SCALE, "--forward-hooks", "[]"], [], "ok"),
    case("EEP040-pdmux", [*SCALE, *PDMUX], ["EEP040"], at("EEP040")),
    case("EEP040-ok-decode-graph-off", [*SCALE, *PDMUX, *NO_DECODE_GRAPH], [], "ok"),
]

# Several scale-up checks at once: the fixes converge on the launch SGLang accepts
CASES += [
    case("EEP-combo-naive-nixl-backend", ["--tp", "8", "--elastic-ep-backend", "nixl", "--max-ep-size", "16"],
         ["EEP017", "EEP029", "EEP033", "EEP041", "EEP042", "EEP045", "EEP046"], at("EEP017")),
    case("EEP-combo-naive-prefill-off", ["--tp", "8", *E, "--max-ep-size", "16", "--cuda-graph-backend-prefill",
                                         "disabled"], ["EEP017", "EEP041", "EEP042", "EEP045", "EEP046"], at("EEP017")),
    # a joiner without an offset or initial size: no value can be read, so the fixes give up joining and scale-up
    case("EEP-combo-bare-joiner", [*SCALE, "--elastic-ep-join-mode", "scale"], ["EEP006", "EEP007", "EEP022"],
         at("EEP006")),
    case("EEP-combo-attn-tp-2", ["--tp", "8", *E, "--max-ep-size", "15", "--moe-a2a-backend", "nixl", "--attn-dp-size",
                                 "4", "--dcp-size", "4", "--tokenizer-worker-num", "2", "--use-ray"],
         ["EEP014", "EEP017", "EEP019", "EEP020", "EEP031", "EEP042"], at("EEP014")),
    case("EEP-combo-eplb-pp-offset", ["--tp", "4", "--pp-size", "2", "--ep", "4", "--enable-eplb", *E,
                                      "--eplb-algorithm", "deepseek", "--elastic-ep-join-rank-offset", "4"],
         ["EEP002", "EEP003", "EEP008"], at("EEP002")),
    case("EEP-combo-graphs-and-balance", [*SCALE, "--cuda-graph-backend-decode", "breakable",
                                          "--cuda-graph-backend-prefill", "breakable", "--speculative-algorithm",
                                          "NEXTN", "--load-balance-method", "total_tokens"],
         ["EEP028", "EEP032", "EEP033"], at("EEP028")),
    # Waterfill makes the a2a backend deepep (A2A005): the fix sets nixl and drops Waterfill
    case("EEP-combo-waterfill", ["--tp", "8", *E, "--max-ep-size", "16", "--enable-waterfill", "--attn-dp-size", "8",
                                 "--enable-dp-lm-head", "--cuda-graph-backend-prefill", "disabled"], ["EEP046"],
         at("EEP046")),
]
