"""Elastic EP (``handle_elastic_ep``) and the EPLB recorder defaults: cases checked with ../shared/oracle."""

from __future__ import annotations

from tests.rules.casekit import at, case

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
