"""Family B (data parallelism, DP attention, PP, sizes): cases of the dp helper; verdicts from ../shared/oracle."""

from __future__ import annotations

from tests.rules.casekit import at, case

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
    case("DP003-ok-dwdp-discards-both", [*TP8, "--dwdp-size", "8", "--dp-size", "2", "--attn-dp-size", "4"], [], "ok"),
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
    case("DP013-attn-cp", [*TP8, "--attn-dp-size", "8", "--attn-cp-size", "2", *TP_LM], ["DP013"], at("DP013")),
]

CASES = DATA_PARALLELISM
