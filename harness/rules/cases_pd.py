"""PD disaggregation (``handle_pd_disaggregation``, ``handle_other_validations``, ``validate_response_store``) and
encoder disaggregation (``handle_encoder_disaggregation``): cases checked with ../shared/oracle."""

from __future__ import annotations

from harness.rules.casekit import at, case

P = ["--disaggregation-mode", "prefill"]
D = ["--disaggregation-mode", "decode"]
PC = ["--disaggregation-decode-allocation-policy", "prefill_complete"]
HR = ["--disaggregation-decode-host-receive-threshold", "0.5"]
RADIX = ["--disaggregation-decode-enable-radix-cache"]
SWITCH = ["--enable-pd-role-switch"]
FAKE = ["--disaggregation-transfer-backend", "fake"]
BACKUP = "--disaggregation-decode-retraction-backup"
OPT = "--optimistic-prefill-attempts"
HICACHE = ["--enable-hierarchical-cache", "--hicache-write-policy"]

CASES = [
    # mooncake_tcp: Mooncake over TCP, without an IB device
    case("PD025-tcp-ib-device", [*P, "--disaggregation-transfer-backend", "mooncake_tcp",
                                 "--disaggregation-ib-device", "mlx5_0"], ["PD025"], "ok"),
    case("PD025-ok-tcp", [*P, "--disaggregation-transfer-backend", "mooncake_tcp"], [], "ok"),
    # prefill_complete
    case("PD011-aggregated", PC, ["PD011"], at("PD011")),
    case("PD011-tp2", [*P, *PC, "--tp", "2"], ["PD011"], at("PD011")),
    case("PD011-attn-dp", [*P, *PC, "--tp", "2", "--attn-dp-size", "2"], ["PD011"], at("PD011")),
    case("PD011-deprecated-dp-attention", [*P, *PC, "--tp", "2", "--dp-size", "2", "--enable-dp-attention"],
         ["PD011"], at("PD011")),
    case("PD011-nixl", [*P, *PC, "--disaggregation-transfer-backend", "nixl"], ["PD011"], at("PD011")),
    case("PD011-ok-tcp", [*P, *PC, "--disaggregation-transfer-backend", "mooncake_tcp"], [], "ok"),
    case("PD011-decode-radix", [*D, *PC, *RADIX], ["PD011"], at("PD011")),
    case("PD011-role-switch", [*D, *PC, *SWITCH], ["PD011"], at("PD011")),
    case("PD011-prefill-hicache-write-through", [*P, *PC, *HICACHE, "write_through"], ["PD011"], at("PD011")),
    case("PD011-ok-prefill-hicache-write-back", [*P, *PC, *HICACHE, "write_back"], [], "ok"),
    case("PD011-ok-prefill", [*P, *PC], [], "ok"),
    case("PD011-ok-decode", [*D, *PC], [], "ok"),
    case("PD026-attempts-zero", [*P, *PC, OPT, "0"], ["PD026"], "ok"),
    case("PD026-ok-decode", [*D, *PC, OPT, "0"], [], "ok"),
    # decode host receive
    case("PD003-above-one", [*D, "--disaggregation-decode-host-receive-threshold", "1.5"], ["PD003"], at("PD003")),
    case("PD003-negative", [*D, "--disaggregation-decode-host-receive-threshold", "-0.1"], ["PD003"], at("PD003")),
    case("PD003-nan", [*D, "--disaggregation-decode-host-receive-threshold", "nan"], ["PD003"], at("PD003")),
    case("PD003-ok-zero", [*D, "--disaggregation-decode-host-receive-threshold", "0"], [], "ok"),
    case("PD003-ok-one", [*D, "--disaggregation-decode-host-receive-threshold", "1"], [], "ok"),
    case("PD004-role-switch", [*D, *HR, *SWITCH], ["PD004"], at("PD004")),
    case("PD004-hisparse", [*D, *HR, "--enable-hisparse"], ["PD004"], at("PD004"), fixed_ok=False),
    case("PD004-ok-role-switch", [*D, *SWITCH], [], "ok"),
    case("PD006-cpu-tensor", [*D, *HR, BACKUP, "cpu_tensor"], ["PD006"], at("PD006")),
    case("PD006-ok-host-pool", [*D, *HR, BACKUP, "host_pool"], [], "ok"),
    case("PD006-ok-cpu-tensor", [*D, BACKUP, "cpu_tensor"], [], "ok"),
    case("PD027-backup-none", [*D, *HR, BACKUP, "none"], ["PD027"], "ok"),
    case("PD027-ok-decode-none", [*D, BACKUP, "none"], [], "ok"),
    # decode radix cache, prefill transfer backend
    case("PD007-hisparse", [*D, *RADIX, "--enable-hisparse"], ["PD007"], at("PD007"), fixed_ok=False),
    case("PD008-fake", [*D, *RADIX, *FAKE], ["PD008"], at("PD008")),
    case("PD008-ok-decode-fake", [*D, *FAKE], [], "ok"),
    case("PD008-ok-radix", [*D, *RADIX], [], "ok"),
    case("PD028-disable-radix-cache", [*D, *RADIX, "--disable-radix-cache"], ["PD028"], "ok"),
    case("PD028-ok-decode", [*D, "--disable-radix-cache"], [], "ok"),
    case("PD009-fake", [*P, *FAKE], ["PD009"], at("PD009")),
    case("PD009-ok-aggregated-fake", FAKE, [], "ok"),
    # runtime role switching
    case("PD015-ep", [*P, *SWITCH, "--tp", "8", "--ep-size", "8"], ["PD015"], at("PD015")),
    case("PD015-a2a", [*D, *SWITCH, "--tp", "8", "--moe-a2a-backend", "deepep"], ["PD015"], at("PD015")),
    case("PD015-local-control-broadcast", [*D, *SWITCH, "--tp", "8", "--attn-dp-size", "8",
                                           "--enable-dp-attention-local-control-broadcast"], ["PD015"], at("PD015")),
    case("PD015-pp", [*D, *SWITCH, "--pp-size", "2"], ["PD015"], at("PD015")),
    case("PD015-dcp", [*D, *SWITCH, "--tp", "8", "--dcp-size", "2"], ["PD015"], at("PD015")),
    case("PD015-ngram", [*D, *SWITCH, "--speculative-algorithm", "NGRAM"], ["PD015"], at("PD015")),
    case("PD015-ok-waterfill", [*D, *SWITCH, "--tp", "8", "--enable-waterfill"], [], "ok"),
    case("PD015-ok-attn-dp", [*D, *SWITCH, "--tp", "8", "--attn-dp-size", "8"], [], "ok"),
    case("PD015-ok-aggregated", [*SWITCH, "--tp", "8", "--ep-size", "8"], [], "ok"),
    # optimistic prefill
    case("PD013-negative-attempts", [*P, *PC, OPT, "-1"], ["PD013"], at("PD013")),
    case("PD013-ok-decode", [*D, *PC, OPT, "-1"], [], "ok"),
    case("PD030-pp", [*P, "--pp-size", "2", OPT, "2"], ["PD030"], "ok"),
    case("PD031-write-through-selective", [*P, *HICACHE, "write_through_selective", OPT, "2"], ["PD031"], "ok"),
    case("PD031-ok-write-back", [*P, *HICACHE, "write_back", OPT, "2"], [], "ok"),
    case("PD031-ok-aggregated", [*HICACHE, "write_through_selective", OPT, "2"], [], "ok"),
    # the response store
    case("PD014-prefill", [*P, "--enable-response-store"], ["PD014"], at("PD014")),
    case("PD014-decode", [*D, "--enable-response-store"], ["PD014"], at("PD014")),
    case("PD014-ok-aggregated", ["--enable-response-store"], [], "ok"),
    # encoder disaggregation and --language-model-only
    case("PD021-broadcast", ["--language-model-only", "--enable-broadcast-mm-inputs-process"], ["PD021"], at("PD021")),
    case("PD021-dp-encoder", ["--language-model-only", "--mm-enable-dp-encoder"], ["PD021"], at("PD021")),
    case("PD021-encoder-only", ["--language-model-only", "--encoder-only"], ["PD021", "PD019"], at("PD021")),
    case("PD016-prefix-mm-cache", ["--enable-prefix-mm-cache"], ["PD016"], at("PD016")),
    case("PD017-both", ["--encoder-only", "--language-only"], ["PD017", "PD019"], at("PD017")),
    case("PD018-prefill", ["--encoder-only", *P], ["PD018", "PD019"], at("PD018")),
    case("PD019-encoder-only", ["--encoder-only"], ["PD019"], at("PD019")),
    case("PD019-language-only", ["--language-only", *D], ["PD019"], at("PD019")),
    case("PD019-prefix-mm-cache", ["--encoder-only", "--enable-prefix-mm-cache"], ["PD019"], at("PD019")),
    case("PD019-qwen", ["--language-only"], ["PD019"], at("PD019"), model="qwen3-moe"),
]
