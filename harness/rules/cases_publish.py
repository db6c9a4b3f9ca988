"""Rule cases of ``_configure_context`` (the runtime context's topology check at publish), with verdicts from ../shared/oracle."""

from __future__ import annotations

from harness.rules.casekit import at, case

PAR007 = at("PAR007")

CASES = [
    case("PAR007-ep3", ["--tp-size", "8", "--ep-size", "3"], ["PAR007"], PAR007),
    case("PAR007-ep-above-tp", ["--tp-size", "8", "--ep-size", "16"], ["PAR007"], PAR007),
    case("PAR007-ep6-tp4", ["--tp-size", "4", "--ep-size", "6"], ["PAR007"], PAR007),
    case("PAR007-ok-ep2", ["--tp-size", "8", "--ep-size", "2"], [], "ok"),
    case("PAR007-ok-ep8", ["--tp-size", "8", "--ep-size", "8"], [], "ok"),
    case("PAR007-negative-ep", ["--ep-size", "-3"], ["PAR007"], PAR007),
    case("PAR007-negative-attn-cp", ["--attn-cp-size", "-2"], ["PAR007"], PAR007),
    case("PAR007-ok-attn-cp-minus-1", ["--attn-cp-size", "-1"], [], "ok"),  # 1 == (1 // 1 // -1) * 1 * -1
    case("PAR007-negative-ep-moe-dp", ["--tp-size", "8", "--moe-dp-size", "2", "--attn-cp-size", "2", "--ep-size", "-3"],
         ["PAR007"], PAR007),  # the CP checks only look at a positive EP
    # the a2a backend widens EP to TP after the CP checks ran: EP x MoE DP is then twice TP
    case("PAR007-a2a-widens-ep", ["--tp-size", "2", "--moe-dp-size", "2", "--attn-cp-size", "2", "--moe-a2a-backend",
                                  "mooncake"], ["PAR007"], PAR007),
    case("PAR007-ok-ep-minus-2", ["--tp-size", "8", "--ep-size", "-2"], [], "ok"),  # 8 == -2 * (8 // -2)
    # each fix clears both widths or is not offered: without MoE DP, EP -3 still does not divide TP 8
    case("PAR007-ok-negative-ep-moe-dp-fixed", ["--tp-size", "8", "--moe-dp-size", "2", "--attn-cp-size", "2"], [],
         "ok"),
    # both widths wrong: the EP fixes remove the negative attention CP too
    case("PAR007-ep3-negative-attn-cp", ["--tp-size", "8", "--ep-size", "3", "--attn-cp-size", "-3"], ["PAR007"],
         PAR007),
    case("PAR007-negative-ep-negative-attn-cp", ["--tp-size", "8", "--ep-size", "-3", "--attn-cp-size", "-3"],
         ["PAR007"], PAR007),
    # the a2a backend makes EP the TP size whatever --ep-size says (A2A006): no EP fix, only no MoE DP
    case("PAR007-a2a-widens-written-ep", ["--tp-size", "2", "--moe-dp-size", "2", "--attn-cp-size", "2",
                                          "--moe-a2a-backend", "mooncake", "--ep-size", "1"], ["A2A006", "PAR007"],
         PAR007),
]
