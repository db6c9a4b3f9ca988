"""DFLASH and DSpark speculative decoding (``_handle_dflash``, ``_handle_dspark``, the DFLASH draft attention backend):
cases checked with ../shared/oracle. A Hub-id draft is read as the oracle's eagle3-draft (no DFLASH/DSpark keys:
block size 16, gamma 7); ``stand_in`` drafts are harness/oracle/models' (dflash-draft: block size 8, dflash-swa-draft:
4 and sliding layers, dspark-draft: gamma 5)."""

from __future__ import annotations

from harness.rules.casekit import at, case, stand_in

DFLASH = ["--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", "z-lab/Qwen3-8B-DFlash-b16"]
DFLASH8 = ["--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", stand_in("dflash-draft")]
DFLASH_SWA = ["--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", stand_in("dflash-swa-draft")]
DSPARK = ["--speculative-algorithm", "DSPARK", "--speculative-draft-model-path", "org/dspark-draft"]
DSPARK5 = ["--speculative-algorithm", "DSPARK", "--speculative-draft-model-path", stand_in("dspark-draft")]
DP8 = ["--tp", "8", "--attn-dp-size", "8"]
LM = ["--enable-dp-lm-head"]
FA3 = ["--attention-backend", "fa3"]

CASES = [
    # DFLASH: accepted, steps/top-k/draft tokens/max running requests filled in
    case("DFLASH-ok", DFLASH, [], "ok"),
    case("DFLASH-ok-stand-in", DFLASH8, [], "ok"),
    case("DFLASH-ok-dp-lm-head", [*DFLASH, *DP8, *LM], [], "ok"),
    case("DFLASH-ok-steps-one", [*DFLASH, "--speculative-num-steps", "1", "--speculative-eagle-topk", "1"], [], "ok"),
    case("SPEC020-cpu", [*DFLASH, "--device", "cpu"], ["SPEC020"], at("SPEC020")),
    case("SPEC020-hpu", [*DFLASH, "--device", "hpu"], ["SPEC020"], at("SPEC020")),
    case("SPEC020-ok-cuda0", [*DFLASH, "--device", "cuda"], [], "ok"),
    case("SPEC021-xpu-dp", [*DFLASH, "--device", "xpu", "--tp", "2", "--attn-dp-size", "2", *LM], ["SPEC021"],
         at("SPEC021")),
    case("SPEC022-dp-no-lm-head", [*DFLASH, *DP8], ["SPEC022"], at("SPEC022")),
    case("SPEC022-dp4", [*DFLASH, "--tp", "8", "--attn-dp-size", "4"], ["SPEC022"], at("SPEC022")),
    case("SPEC023-dp-cp", [*DFLASH, "--tp", "8", "--attn-dp-size", "4", "--attn-cp-size", "2", *LM], ["SPEC023"],
         at("SPEC023")),
    case("SPEC023-ok-cp-no-dp", [*DFLASH, "--tp", "8", "--attn-cp-size", "2"], [], "ok"),
    case("SPEC025-pp2", [*DFLASH, "--tp", "4", "--pp-size", "2"], ["SPEC025", "PP005"], at("SPEC025")),
    case("SPEC026-no-draft", ["--speculative-algorithm", "DFLASH"], ["SPEC026"], at("SPEC026")),
    case("SPEC098-steps", [*DFLASH, "--speculative-num-steps", "3"], ["SPEC098"], "ok"),
    case("SPEC099-topk", [*DFLASH, "--speculative-eagle-topk", "4"], ["SPEC099"], "ok"),
    case("SPEC098-SPEC099-both", [*DFLASH, "--speculative-num-steps", "2", "--speculative-eagle-topk", "2"],
         ["SPEC098", "SPEC099"], "ok"),
    case("SPEC027-zero", [*DFLASH, "--speculative-dflash-block-size", "0"], ["SPEC027"], at("SPEC027")),
    case("SPEC027-negative", [*DFLASH, "--speculative-dflash-block-size", "-4"], ["SPEC027"], at("SPEC027")),
    case("SPEC027-ok", [*DFLASH, "--speculative-dflash-block-size", "4"], [], "ok"),
    case("SPEC028-differ", [*DFLASH, "--speculative-dflash-block-size", "8", "--speculative-num-draft-tokens", "4"],
         ["SPEC028"], at("SPEC028")),
    case("SPEC028-ok-equal", [*DFLASH, "--speculative-dflash-block-size", "8", "--speculative-num-draft-tokens", "8"],
         [], "ok"),
    case("SPEC028-ok-tokens-only", [*DFLASH, "--speculative-num-draft-tokens", "4"], [], "ok"),
    # the window against the block: written, the draft model's (8), or 16
    case("SPEC029-default-16", [*DFLASH, "--speculative-draft-window-size", "8"], ["SPEC029"], at("SPEC029")),
    case("SPEC029-draft-block-8", [*DFLASH8, "--speculative-draft-window-size", "6"], ["SPEC029"], at("SPEC029")),
    case("SPEC029-ok-draft-block-8", [*DFLASH8, "--speculative-draft-window-size", "8"], [], "ok"),
    case("SPEC029-block-written", [*DFLASH, "--speculative-dflash-block-size", "4", "--speculative-draft-window-size",
                                   "3"], ["SPEC029"], at("SPEC029")),
    case("SPEC029-ok-block-written", [*DFLASH, "--speculative-dflash-block-size", "4",
                                      "--speculative-draft-window-size", "4"], [], "ok"),
    case("SPEC029-sink", [*DFLASH, "--speculative-draft-window-size", "8", "--speculative-draft-sink-size", "2"],
         ["SPEC029"], at("SPEC029")),
    # the draft attention backend: unsupported ones fall back, trtllm_mha needs a sliding or causal draft
    case("SPEC100-aiter", [*DFLASH, "--speculative-draft-attention-backend", "aiter"], ["SPEC100"], "ok"),
    case("SPEC100-trtllm-mha-full-attention", [*DFLASH8, "--speculative-draft-attention-backend", "trtllm_mha"],
         ["SPEC100"], "ok"),
    case("SPEC100-trtllm-mha-b200", [*DFLASH8, "--speculative-draft-attention-backend", "trtllm_mha"], ["SPEC100"],
         "ok", gpu="b200"),
    case("SPEC100-ok-trtllm-mha-sliding", [*DFLASH_SWA, "--speculative-draft-attention-backend", "trtllm_mha"], [],
         "ok"),
    case("SPEC100-ok-fa3", [*DFLASH, "--speculative-draft-attention-backend", "fa3"], [], "ok"),
    case("SPEC100-ok-target-flashmla", [*DFLASH, "--attention-backend", "flashmla"], [], "ok"),
    # DSpark
    case("DSPARK-ok", DSPARK, [], "ok"),
    case("DSPARK-ok-stand-in", DSPARK5, [], "ok"),
    case("DSPARK-ok-dp", [*DSPARK, *DP8, *LM], [], "ok"),
    case("DSPARK-ok-dp-megamoe", [*DSPARK, *DP8, *LM, "--moe-a2a-backend", "megamoe"], [], "ok"),
    case("SPEC050-cpu", [*DSPARK, "--device", "cpu"], ["SPEC050"], at("SPEC050")),
    case("SPEC051-dp-no-lm-head", [*DSPARK, *DP8], ["SPEC051"], at("SPEC051")),
    case("SPEC054-deepep", [*DSPARK, *DP8, *LM, "--moe-a2a-backend", "deepep"], ["SPEC054"], at("SPEC054")),
    case("SPEC054-waterfill", [*DSPARK, *DP8, *LM, "--enable-waterfill"], ["SPEC054"], at("SPEC054")),
    case("SPEC054-ok-waterfill-removed", [*DSPARK, *DP8, *LM, "--moe-a2a-backend", "none"], [], "ok"),
    # DeepSeek's MLA prefill-CP layout makes the backend deepep whatever is written: no a2a fix, only no attention DP
    case("SPEC054-prefill-cp-layout", [*DSPARK, "--tp", "8", "--attn-dp-size", "2", *LM, "--enable-prefill-cp",
                                       "--cp-strategy", "zigzag", "--moe-a2a-backend", "none"],
         ["A2A060", "SPEC054", "SPEC052"], at("SPEC054")),
    case("SPEC054-ok-deepep-no-dp", [*DSPARK, "--tp", "8", "--moe-a2a-backend", "deepep"], [], "ok"),
    case("SPEC052-dp-cp", [*DSPARK, "--tp", "8", "--attn-dp-size", "4", "--attn-cp-size", "2", *LM], ["SPEC052"],
         at("SPEC052")),
    case("SPEC055-draft-a2a", [*DSPARK, *DP8, *LM, "--speculative-moe-a2a-backend", "deepep"], ["SPEC055"],
         at("SPEC055")),
    case("SPEC055-ok-same", [*DSPARK, *DP8, *LM, "--speculative-moe-a2a-backend", "none"], [], "ok"),
    case("SPEC055-ok-no-dp", [*DSPARK, "--tp", "8", "--speculative-moe-a2a-backend", "deepep"], [], "ok"),
    case("SPEC057-pp2", [*DSPARK, "--tp", "4", "--pp-size", "2"], ["SPEC057"], at("SPEC057")),
    case("SPEC056-no-draft", ["--speculative-algorithm", "DSPARK"], ["SPEC056"], at("SPEC056")),
    case("SPEC091-steps", [*DSPARK, "--speculative-num-steps", "3"], ["SPEC091"], "ok"),
    case("SPEC101-topk", [*DSPARK, "--speculative-eagle-topk", "4"], ["SPEC101"], "ok"),
    case("SPEC102-zero", [*DSPARK, "--speculative-dspark-block-size", "0"], ["SPEC102"], at("SPEC102")),
    case("SPEC102-ok", [*DSPARK, "--speculative-dspark-block-size", "3"], [], "ok"),
    case("SPEC058-block-written", [*DSPARK, "--speculative-dspark-block-size", "3", "--speculative-num-draft-tokens",
                                   "8"], ["SPEC058"], at("SPEC058")),
    case("SPEC058-ok-block-written", [*DSPARK, "--speculative-dspark-block-size", "3",
                                      "--speculative-num-draft-tokens", "4"], [], "ok"),
    case("SPEC058-draft-gamma-5", [*DSPARK5, "--speculative-num-draft-tokens", "4"], ["SPEC058"], at("SPEC058")),
    case("SPEC058-ok-draft-gamma-5", [*DSPARK5, "--speculative-num-draft-tokens", "6"], [], "ok"),
    case("SPEC058-ok-no-gamma", [*DSPARK, "--speculative-num-draft-tokens", "4"], [], "ok"),
    case("SPEC059-one", [*DSPARK, "--speculative-num-draft-tokens", "1"], ["SPEC059"], at("SPEC059")),
    case("SPEC059-zero", [*DSPARK, "--speculative-num-draft-tokens", "0"], ["SPEC059"], at("SPEC059")),
    case("SPEC059-ok-two", [*DSPARK, "--speculative-num-draft-tokens", "2"], [], "ok"),
]
