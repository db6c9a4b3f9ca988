"""Family B (data parallelism, DP attention, PP, sizes): cases of the dp helper; verdicts from ../shared/oracle."""

from __future__ import annotations

from harness.rules.casekit import at, case, raised_at

TP8 = ["--tp-size", "8"]
TP_LM = ["--enable-tp-lm-head-all-to-all"]

DATA_PARALLELISM = [
    case("DP002-zero", [*TP8, "--attn-dp-size", "0"], ["DP002"], at("DP002")),
    case("DP002-negative", ["--attn-dp-size", "-1"], ["DP002"], at("DP002")),
    case("DP003-pair", [*TP8, "--dp-size", "8", "--attn-dp-size", "8"], ["DP003"], at("DP003")),
    case("DP003-mixed", [*TP8, "--dp-size", "2", "--attn-dp-size", "4"], ["DP003"], at("DP003")),
    # --enable-dp-attention next to an explicit --attn-dp-size keeps the replicas (parallel_hook.py:52)
    case("DP003-deprecated-flag", [*TP8, "--dp-size", "8", "--attn-dp-size", "8", "--enable-dp-attention"],
         ["DP003"], at("DP003")),
    case("DP003-ok-deprecated-flag", [*TP8, "--dp-size", "8", "--enable-dp-attention"], [], "ok"),
    case("DP003-ok-dwdp-discards-both", [*TP8, "--dwdp-size", "8", "--dp-size", "2", "--attn-dp-size", "4"], ["DWDP008", "DWDP008"], "ok"),
    case("DP003-ok-replicas", ["--tp-size", "2", "--dp-size", "4"], [], "ok"),
    case("DP005-no-dp-ranks", [*TP8, "--enable-dp-lm-head"], ["DP005"], "ok"),
    case("DP006-not-divisor", [*TP8, "--attn-dp-size", "3"], ["DP006"], at("DP006")),
    case("DP006-tp1", ["--attn-dp-size", "4"], ["DP006"], at("DP006")),
    case("DP006-ok-divisor", [*TP8, "--attn-dp-size", "4"], [], "ok"),
    case("DP007-ok-chunked-prefill", [*TP8, "--attn-dp-size", "8", "--chunked-prefill-size", "8192"], [], "ok"),
    case("DP008-ok-decode-default", [*TP8, "--attn-dp-size", "8", "--disaggregation-mode", "decode"], [], "ok"),
    case("DP009-issue-replicas", ["--enable-dp-lm-head", "--dp-size", "4"], ["DP009"], at("DP009")),
    case("DP009-replicas-tp8", [*TP8, "--dp-size", "8", "--enable-dp-lm-head"], ["DP009"], at("DP009")),
    case("DP009-ok-deprecated-flag", [*TP8, "--dp-size", "8", "--enable-dp-attention", "--enable-dp-lm-head"], [], "ok"),
    case("DP009-ok-attention-dp", [*TP8, "--attn-dp-size", "8", "--enable-dp-lm-head"], [], "ok"),
    case("DP010-no-attention-dp", [*TP8, *TP_LM], ["DP010"], at("DP010")),
    case("DP010-ok-opt-out", [*TP8, "--no-enable-tp-lm-head-all-to-all"], [], "ok"),
    case("DP011-dp-lm-head", [*TP8, "--attn-dp-size", "8", "--enable-dp-lm-head", *TP_LM], ["DP011"], at("DP011")),
    case("DP011-dwdp", [*TP8, "--dwdp-size", "8", *TP_LM], ["DP011"], at("DP011")),
    case("DP012-attn-dp-4", [*TP8, "--attn-dp-size", "4", *TP_LM], ["DP012"], at("DP012")),
    case("DP012-ok-pure", [*TP8, "--attn-dp-size", "8", *TP_LM], [], "ok"),
    case("DP013-attn-cp", [*TP8, "--attn-dp-size", "8", "--attn-cp-size", "2", *TP_LM], ["DP013", "CP011"], at("DP013")),
]

PP2 = ["--pp-size", "2"]
# the oracle names the condition line of the multi-line assert (casekit.RAISED_AT)
PP005_RAISED = raised_at("PP005")

SERVER_ARGS = [
    case("PAR001-tp8-3-nodes", [*TP8, "--nnodes", "3"], ["PAR001"], at("PAR001")),
    case("PAR001-tp4-8-nodes", ["--tp-size", "4", "--nnodes", "8"], ["PAR001"], at("PAR001")),
    case("PAR001-tp4-pp2-3-nodes", ["--tp-size", "4", *PP2, "--nnodes", "3"], ["PAR001"], at("PAR001")),
    case("PAR001-ok-tp4-pp2-4-nodes", ["--tp-size", "4", *PP2, "--nnodes", "4"], [], "ok"),
    case("PAR001-ok-2-nodes", [*TP8, "--nnodes", "2"], [], "ok"),
    case("PP011-zero", ["--pp-max-micro-batch-size", "0"], ["PP011"], at("PP011")),
    case("PP011-negative-pp2", [*PP2, "--pp-max-micro-batch-size", "-1"], ["PP011"], at("PP011")),
    case("PP011-ok-one", ["--pp-max-micro-batch-size", "1"], [], "ok"),
    case("PP005-ngram", [*PP2, "--speculative-algorithm", "NGRAM"], ["PP005"], PP005_RAISED),
    case("PP005-eagle3", [*PP2, "--speculative-algorithm", "EAGLE3"], ["PP005"], PP005_RAISED),
    case("PP005-multi-layer", [*PP2, "--speculative-algorithm", "EAGLE", "--enable-multi-layer-eagle",
                               "--disaggregation-mode", "prefill"], ["PP005"], PP005_RAISED),
    case("PP005-ok-no-pp", ["--speculative-algorithm", "NGRAM"], [], "ok"),
    case("PP009-decode", [*PP2, "--speculative-algorithm", "EAGLE", "--disaggregation-mode", "decode"], ["PP009"],
         at("PP009")),
    case("PP009-adaptive", [*PP2, "--speculative-algorithm", "EAGLE", "--speculative-adaptive"], ["PP009"],
         at("PP009")),
    case("PP009-attention-dp-lower-case", ["--tp-size", "2", "--attn-dp-size", "2", *PP2, "--speculative-algorithm",
                                           "eagle"], ["PP009"], at("PP009")),
    case("PP009-ok-prefill-nextn", [*PP2, "--speculative-algorithm", "NEXTN", "--disaggregation-mode", "prefill"],
         [], "ok"),
    case("PP010-min-free-slots", [*PP2, "--min-free-slots-delay", "2"], ["PP010"], at("PP010")),
    case("PP010-ok-no-pp", ["--min-free-slots-delay", "2"], [], "ok"),
    case("PP001-ok-pp2", PP2, [], "ok"),
    case("DP014-two-nodes", ["--tp-size", "2", "--dp-size", "2", "--nnodes", "2"], ["DP014"], at("DP014")),
    case("DP014-tp8", [*TP8, "--dp-size", "2", "--nnodes", "2"], ["DP014"], at("DP014")),
    case("DP014-ok-attention-dp", ["--tp-size", "2", "--attn-dp-size", "2", "--nnodes", "2"], [], "ok"),
    case("PAR003-base-gpu-id", ["--base-gpu-id", "-1"], ["PAR003"], at("PAR003")),
    case("PAR003-both", ["--base-gpu-id", "-1", "--gpu-id-step", "0"], ["PAR003", "PAR006"], at("PAR003")),
    case("PAR006-gpu-id-step", ["--gpu-id-step", "0"], ["PAR006"], at("PAR006")),
    case("PAR002-dense-2", [*TP8, "--moe-dense-tp-size", "2"], ["PAR002"], at("PAR002")),
    case("PAR002-dense-2-tp1", ["--moe-dense-tp-size", "2"], ["PAR002"], at("PAR002")),
    case("PAR002-ok-tp", [*TP8, "--moe-dense-tp-size", "8"], [], "ok"),
    case("PAR002-ok-dwdp-makes-1", [*TP8, "--dwdp-size", "8", "--moe-dense-tp-size", "2"], ["DWDP008"], "ok"),
    case("A2A053-default-a2a", ["--enable-two-batch-overlap"], ["A2A053"], at("A2A053")),
    case("A2A053-none-tp8", [*TP8, "--enable-two-batch-overlap", "--moe-a2a-backend", "none"], ["A2A053"],
         at("A2A053")),
    case("A2A053-ascend-tp-collapses", [*TP8, "--enable-two-batch-overlap", "--moe-a2a-backend", "ascend_tp"],
         ["A2A028", "A2A053"], at("A2A053")),
    case("A2A053-pp2", [*PP2, "--enable-two-batch-overlap"], ["A2A053"], at("A2A053")),
    case("A2A053-ok-deepep", [*TP8, "--enable-two-batch-overlap", "--moe-a2a-backend", "deepep"], [], "ok"),
    case("A2A053-ok-waterfill", [*TP8, "--enable-two-batch-overlap", "--enable-waterfill"], [], "ok"),
    case("A2A053-ok-attention-dp", [*TP8, "--enable-two-batch-overlap", "--attn-dp-size", "8"], [], "ok"),
]

# No expert_pack launch starts on the oracle (it has no pack file): the fixes that keep expert_pack still
# meet SGLang's "pack_path is required"; every accepted neighbour loads another format.
EXPERT_PACK = ["--load-format", "expert_pack"]
EXPERT_PACK_CASES = [
    case("PAR004-tp8", [*EXPERT_PACK, *TP8], ["PAR004"], at("PAR004"), fixed_ok=False),
    case("PAR004-dp2", [*EXPERT_PACK, "--dp-size", "2"], ["PAR004"], at("PAR004"), fixed_ok=False),
    case("PAR004-attention-dp", [*EXPERT_PACK, "--tp-size", "2", "--attn-dp-size", "2"], ["PAR004"], at("PAR004"),
         fixed_ok=False),
    case("PAR004-ep2", [*EXPERT_PACK, "--ep-size", "2"], ["PAR004", "PAR007"], at("PAR004"), fixed_ok=False),
    case("PAR004-waterfill", [*EXPERT_PACK, "--enable-waterfill"], ["PAR004"], at("PAR004"), fixed_ok=False),
    case("PAR004-fusion", [*EXPERT_PACK, "--enforce-shared-experts-fusion"], ["PAR004"], at("PAR004"),
         fixed_ok=False),
    case("PAR004-decode-graph", [*EXPERT_PACK, "--cuda-graph-backend-decode", "full"], ["PAR004"], at("PAR004"),
         fixed_ok=False),
    case("PAR004-ok-other-format", [*TP8, "--load-format", "auto", "--enable-waterfill"], [], "ok"),
]

CASES = DATA_PARALLELISM + SERVER_ARGS + EXPERT_PACK_CASES
