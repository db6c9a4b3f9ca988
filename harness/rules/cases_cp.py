"""Rule cases of context parallelism and DWDP (catalog B.2, B.3, A.2): ``handle_context_parallelism``,
``handle_decode_context_parallelism``, ``handle_dwdp``, with verdicts from ../shared/oracle.

Cases that turn on prefill CP run on the llama config where the check does not need DeepSeek's: the
DeepSeek-V3 config reshapes the CP layout in its model hook (MLA prefill CP), which autofix cannot know.
"""

from __future__ import annotations

from harness.rules.casekit import at, case

CP009, CP010, CP011, CP012, CP013 = at("CP009"), at("CP010"), at("CP011"), at("CP012"), at("CP013")
CP014, CP015, CP016, CP017, CP018 = at("CP014"), at("CP015"), at("CP016"), at("CP017"), at("CP018")
DWDP002, DWDP003, DWDP004, DWDP005 = at("DWDP002"), at("DWDP003"), at("DWDP004"), at("DWDP005")
DWDP006, DWDP007 = at("DWDP006"), at("DWDP007")
DCP001, DCP002, DCP003, DCP005, DCP006 = at("DCP001"), at("DCP002"), at("DCP003"), at("DCP005"), at("DCP006")
TP8 = ["--tp", "8"]
MOE_DP2 = [*TP8, "--moe-dp-size", "2", "--attn-cp-size", "2"]
DWDP8 = [*TP8, "--dwdp-size", "8"]
AITER = ["--enable-aiter-allreduce-fusion"]

CP_CASES = [
    # CP009: prefill CP has no default strategy
    case("CP009-no-strategy", ["--enable-prefill-cp"], ["CP009"], CP009),
    case("CP009-llama", ["--enable-prefill-cp"], ["CP009"], CP009, model="llama"),
    case("CP009-qwen3-moe", ["--enable-prefill-cp"], ["CP009"], CP009, model="qwen3-moe"),
    case("CP009-tp8-cp8", [*TP8, "--enable-prefill-cp", "--attn-cp-size", "8"], ["CP009"], CP009),
    case("CP009-ok-zigzag", ["--enable-prefill-cp", "--cp-strategy", "zigzag"], [], "ok", model="llama"),
    case("CP009-ok-interleave", ["--enable-prefill-cp", "--cp-strategy", "interleave"], [], "ok"),
    case("CP009-ok-strategy-alone", ["--cp-strategy", "zigzag"], [], "ok"),
    # CP010: attention CP divides TP
    case("CP010-cp3", [*TP8, "--attn-cp-size", "3"], ["CP010"], CP010),
    case("CP010-cp3-llama", [*TP8, "--attn-cp-size", "3"], ["CP010"], CP010, model="llama"),
    case("CP010-cp16", [*TP8, "--attn-cp-size", "16"], ["CP010"], CP010),
    case("CP010-tp4-cp5", ["--tp", "4", "--attn-cp-size", "5"], ["CP010"], CP010),
    case("CP010-with-attn-dp", [*TP8, "--attn-cp-size", "3", "--attn-dp-size", "2"], ["CP010"], CP010),
    case("CP010-ok-cp4", [*TP8, "--attn-cp-size", "4"], [], "ok"),
    case("CP010-ok-cp8", [*TP8, "--attn-cp-size", "8"], [], "ok"),
    case("CP010-ok-deepseek-prefill-cp-relays", [*TP8, "--enable-prefill-cp", "--cp-strategy", "interleave",
                                                 "--attn-cp-size", "3"], ["A2A060"], "ok"),  # the model hook makes it 8
    case("CP011-ok-deepseek-prefill-cp-relays", [*TP8, "--enable-prefill-cp", "--cp-strategy", "interleave",
                                                 "--attn-dp-size", "4", "--attn-cp-size", "4"], ["A2A060"], "ok"),
    case("CP010-ok-negative", [*TP8, "--attn-cp-size", "-2"], [], "ok"),  # 8 % -2 == 0 in Python
    # CP011: attention DP x attention CP divides TP
    case("CP011-dp4-cp4", [*TP8, "--attn-cp-size", "4", "--attn-dp-size", "4"], ["CP011"], CP011),
    case("CP011-dwdp", [*DWDP8, "--attn-cp-size", "2"], ["CP011"], CP011),
    case("CP011-ok-dp2-cp4", [*TP8, "--attn-cp-size", "4", "--attn-dp-size", "2"], [], "ok"),
    # CP012 / CP017: no AITER all-reduce fusion with CP or MoE-DP
    case("CP012-aiter", [*TP8, "--attn-cp-size", "2", *AITER], ["CP012"], CP012),
    case("CP012-before-CP017", [*MOE_DP2, *AITER], ["CP012"], CP012),
    case("CP012-ok-deterministic", [*TP8, "--attn-cp-size", "2", *AITER, "--enable-deterministic-inference"], [],
         "ok"),
    case("CP012-ok-no-cp", [*TP8, *AITER], [], "ok"),
    case("CP017-aiter", [*TP8, "--moe-dp-size", "2", *AITER], ["CP017", "CP018"], CP017),
    # CP013: MoE-DP divides TP
    case("CP013-alone", [*TP8, "--moe-dp-size", "3"], ["CP013", "CP018"], CP013),
    case("CP013-after-CP010", [*TP8, "--moe-dp-size", "3", "--attn-cp-size", "3"], ["CP010", "CP013"], CP010),
    # CP014 / CP016: EP x MoE-DP
    case("CP014-ep8", [*MOE_DP2, "--ep-size", "8"], ["CP014"], CP014),
    case("CP014-moe-dp4-ep4", [*TP8, "--moe-dp-size", "4", "--attn-cp-size", "4", "--ep-size", "4"], ["CP014"],
         CP014),
    case("CP016-ep2", [*MOE_DP2, "--ep-size", "2"], ["CP016"], CP016),
    case("CP016-ok-ep4", [*MOE_DP2, "--ep-size", "4"], [], "ok"),
    case("CP016-ok-no-ep", [*MOE_DP2], [], "ok"),
    # CP015: no MoE-DP with PP
    case("CP015-pp2", [*MOE_DP2, "--pp-size", "2"], ["CP015"], CP015),
    case("CP015-ok-cp-pp", ["--tp", "4", "--attn-cp-size", "2", "--pp-size", "2"], [], "ok"),
    # CP018: MoE-DP equals attention CP
    case("CP018-moe-dp-alone", [*TP8, "--moe-dp-size", "2"], ["CP018"], CP018),
    case("CP018-cp4", [*TP8, "--moe-dp-size", "2", "--attn-cp-size", "4"], ["CP018"], CP018),
    case("CP018-zero", [*TP8, "--moe-dp-size", "0"], ["CP018"], CP018),
    case("CP018-zero-with-cp", [*TP8, "--moe-dp-size", "0", "--attn-cp-size", "2"], ["CP018"], CP018),
    case("CP018-ok-cp-alone", [*TP8, "--attn-cp-size", "4"], [], "ok"),
    case("CP018-ok-dwdp-resets-moe-dp", [*DWDP8, "--moe-dp-size", "2"], ["DWDP008"], "ok"),
    # fixes that move attention CP and MoE-DP together (CP018), and converge
    case("CP-fix-moe-dp3", [*TP8, "--moe-dp-size", "3"], ["CP013", "CP018"], CP013),
    case("CP-fix-tp6", ["--tp", "6", "--moe-dp-size", "4", "--attn-cp-size", "4", "--ep-size", "3"],
         ["CP010", "CP013", "CP014"], CP010),
    case("CP-fix-attn-dp8", [*TP8, "--attn-dp-size", "8", "--attn-cp-size", "2", "--moe-dp-size", "2"], ["CP011"],
         CP011),
    case("CP-fix-attn-dp2-cp8", [*TP8, "--attn-dp-size", "2", "--attn-cp-size", "8", "--moe-dp-size", "8"], ["CP011"],
         CP011),
    case("CP-fix-cp3-ep8", [*TP8, "--attn-cp-size", "3", "--moe-dp-size", "3", "--ep-size", "8"],
         ["CP010", "CP013", "CP014"], CP010),
    case("CP-fix-cp4-moe-dp2-ep4", [*TP8, "--attn-cp-size", "4", "--moe-dp-size", "2", "--ep-size", "4"], ["CP018"],
         CP018),
]

DCP_CASES = [
    case("DCP001-zero", [*TP8, "--dcp-size", "0"], ["DCP001"], DCP001),
    case("DCP001-negative", ["--dcp-size", "-1"], ["DCP001"], DCP001),
    case("DCP001-then-DCP003", [*TP8, "--dcp-size", "0", "--dcp-comm-backend", "a2a"], ["DCP001", "DCP003"], DCP001),
    case("DCP002-prefill-cp", [*TP8, "--dcp-size", "2", "--enable-prefill-cp", "--cp-strategy", "interleave"],
         ["DCP002"], DCP002, model="llama"),
    case("DCP002-then-CP009", [*TP8, "--dcp-size", "2", "--enable-prefill-cp"], ["DCP002", "CP009"], DCP002,
         model="llama"),
    case("DCP002-ok-dcp1", [*TP8, "--dcp-size", "1", "--enable-prefill-cp", "--cp-strategy", "interleave"], [], "ok",
         model="llama"),
    case("DCP003-a2a", [*TP8, "--dcp-comm-backend", "a2a"], ["DCP003"], DCP003),
    case("DCP003-fi-a2a", [*TP8, "--dcp-comm-backend", "fi_a2a"], ["DCP003"], DCP003),
    case("DCP003-ok-ag-rs", [*TP8, "--dcp-comm-backend", "ag_rs"], [], "ok"),
    case("DCP003-ok-dcp2-fi-a2a", [*TP8, "--dcp-size", "2", "--dcp-comm-backend", "fi_a2a"], [], "ok", model="llama"),
    case("DCP005-no-dcp", [*TP8, "--dcp-replicate-q-proj"], ["DCP005"], DCP005),
    case("DCP005-ok-negated", [*TP8, "--no-dcp-replicate-q-proj"], [], "ok"),
    case("DCP006-ag-rs", [*TP8, "--dcp-size", "2", "--dcp-comm-backend", "ag_rs", "--dcp-replicate-q-proj"],
         ["DCP006"], DCP006, model="llama"),
    case("DCP006-ag-rs-deepseek", [*TP8, "--dcp-size", "2", "--dcp-comm-backend", "ag_rs", "--dcp-replicate-q-proj"],
         ["DCP006"], DCP006),
    case("DCP006-ag-rs-b200", [*TP8, "--dcp-size", "2", "--dcp-comm-backend", "ag_rs", "--dcp-replicate-q-proj"],
         ["DCP006"], DCP006, model="llama", gpu="b200"),
    case("DCP006-ok-default-a2a", [*TP8, "--dcp-size", "2", "--dcp-replicate-q-proj"], [], "ok", model="llama"),
    case("DCP006-ok-default-fi-a2a", [*TP8, "--dcp-size", "2", "--dcp-replicate-q-proj"], [], "ok", model="llama",
         gpu="b200"),
    case("DCP006-ok-b200-dcp3", [*TP8, "--dcp-size", "3", "--dcp-replicate-q-proj"], [], "ok", model="llama",
         gpu="b200"),  # fi_a2a or a2a, by the MNNVL fabric: autofix does not know which, both pass
    case("DCP006-ok-a2a", [*TP8, "--dcp-size", "2", "--dcp-comm-backend", "a2a", "--dcp-replicate-q-proj"], [], "ok",
         model="llama"),
    case("DCP-ok-dcp2", [*TP8, "--dcp-size", "2"], [], "ok"),
]

DWDP_CASES = [
    case("DWDP002-ep8-dwdp4", [*TP8, "--ep-size", "8", "--dwdp-size", "4"], ["DWDP002"], DWDP002),  # SGLang declares no layout for a refused size
    # the fix to DWDP002 makes DWDP override --ep-size 4: the DWDP008 pin follows in the next pass
    case("DWDP002-ep4-dwdp4", [*TP8, "--ep-size", "4", "--dwdp-size", "4"], ["DWDP002"], DWDP002),
    case("DWDP002-deepep-static", [*TP8, "--dwdp-size", "4", "--moe-a2a-backend", "deepep", "--ep-dispatch-algorithm",
                                   "static"], ["DWDP002"], DWDP002),
    case("DWDP002-tp4-dwdp8", ["--tp", "4", "--dwdp-size", "8"], ["DWDP002"], DWDP002),
    case("DWDP002-tp1", ["--dwdp-size", "2"], ["DWDP002"], DWDP002),
    case("DWDP002-ok", [*DWDP8], [], "ok"),
    case("DWDP002-ok-zero", [*TP8, "--dwdp-size", "0"], [], "ok"),
    case("DWDP002-ok-negative", [*TP8, "--dwdp-size", "-3"], [], "ok"),
    case("DWDP003-decode", [*DWDP8, "--disaggregation-mode", "decode"], ["DWDP003"], DWDP003),
    case("DWDP003-ok-prefill", [*DWDP8, "--disaggregation-mode", "prefill"], [], "ok"),
    case("DWDP004-eplb", [*DWDP8, "--enable-eplb"], ["DWDP004"], DWDP004),
    case("DWDP004-ok-eplb-no-dwdp", [*TP8, "--ep-size", "8", "--enable-eplb"], [], "ok"),
    case("DWDP005-eagle", [*DWDP8, "--speculative-algorithm", "EAGLE"], ["DWDP005"], DWDP005),
    case("DWDP005-nextn", [*DWDP8, "--speculative-algorithm", "NEXTN", "--speculative-num-steps", "1"], ["DWDP005", "SPEC130"],
         DWDP005),
    case("DWDP006-pp2", [*DWDP8, "--pp-size", "2"], ["DWDP006"], DWDP006),
    case("DWDP007-tbo", [*DWDP8, "--enable-two-batch-overlap"], ["DWDP007"], DWDP007),
    case("DWDP-all-at-once", [*TP8, "--dwdp-size", "4", "--enable-eplb", "--pp-size", "2",
                              "--enable-two-batch-overlap"], ["DWDP002", "DWDP004", "DWDP006", "DWDP007", "EP004", "A2A053"],
         DWDP002),
    case("DWDP008-dp-size", [*DWDP8, "--dp-size", "2"], ["DWDP008"], "ok"),
    case("DWDP008-attn-dp-size", [*DWDP8, "--attn-dp-size", "2"], ["DWDP008"], "ok"),
    case("DWDP008-moe-dense-tp", [*DWDP8, "--moe-dense-tp-size", "2"], ["DWDP008"], "ok"),
    case("DWDP008-then-CP011", [*DWDP8, "--moe-dp-size", "2", "--attn-cp-size", "2"], ["DWDP008", "CP011"], CP011),
    case("DWDP008-ok-dp-lm-head", [*DWDP8, "--enable-dp-lm-head"], [], "ok"),
    case("DWDP008-ok-attn-dp8", [*DWDP8, "--attn-dp-size", "8"], [], "ok"),
]

CASES = [*CP_CASES, *DCP_CASES, *DWDP_CASES]

# DCP004 refuses fi_a2a off CUDA: the oracle's nodes are NVIDIA's, where it is accepted (the ROCm side is
# tests/rules/test_off_oracle_gpus.py)
CASES += [
    case("DCP004-ok-fi-a2a-h200", [*TP8, "--dcp-size", "2", "--dcp-comm-backend", "fi_a2a"], [], "ok"),
    case("DCP004-ok-fi-a2a-b200", [*TP8, "--dcp-size", "2", "--dcp-comm-backend", "fi_a2a"], [], "ok", gpu="b200"),
]
