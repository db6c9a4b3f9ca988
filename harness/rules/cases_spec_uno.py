"""UNO speculative decoding (``_handle_uno``) and the FA3 + fp8_e5m2 fallback: cases checked with ../shared/oracle."""

from __future__ import annotations

from harness.rules.casekit import at, case

UNO = ["--speculative-algorithm", "UNO", "--uno-lora-path", "/models/uno-lora"]
LINEAR = [*UNO, "--speculative-num-draft-tokens", "4"]
TREE = [*UNO, "--speculative-num-draft-tokens", "4", "--speculative-eagle-topk", "2", "--speculative-num-steps", "3"]
FA3 = ["--attention-backend", "fa3"]  # the default backend is not modelled: with it written, overrides are pinned


def _tree(q: int, k: int, steps: int) -> list[str]:
    return [*UNO, "--speculative-num-draft-tokens", str(q), "--speculative-eagle-topk", str(k),
            "--speculative-num-steps", str(steps)]


CASES = [
    case("UNO-ok-linear", LINEAR, [], "ok"),
    case("UNO-ok-linear-fa3", [*LINEAR, *FA3], [], "ok"),
    case("UNO-ok-tree", TREE, [], "ok"),
    case("UNO-ok-tree-widest", _tree(6, 2, 3), [], "ok"),
    case("UNO-ok-lowercase", ["--speculative-algorithm", "uno", "--uno-lora-path", "/x",
                              "--speculative-num-draft-tokens", "4"], [], "ok"),
    case("UNO-ok-b200-fa3", [*LINEAR, *FA3], [], "ok", gpu="b200"),
    case("SPEC031-cpu", [*LINEAR, "--device", "cpu"], ["SPEC031"], at("SPEC031")),
    case("SPEC031-ok-cuda0", [*LINEAR, "--device", "cuda:0"], [], "ok"),
    case("SPEC032-draft-path", [*LINEAR, "--speculative-draft-model-path", "/models/draft"], ["SPEC032"], at("SPEC032")),
    case("SPEC033-no-lora-path", ["--speculative-algorithm", "UNO", "--speculative-num-draft-tokens", "4"], ["SPEC033"],
         at("SPEC033")),
    case("SPEC034-deterministic", [*LINEAR, "--enable-deterministic-inference"], ["SPEC034"], at("SPEC034")),
    case("SPEC034-rl-on-policy", [*LINEAR, "--rl-on-policy-target", "fsdp"], ["SPEC034"], at("SPEC034")),
    case("SPEC035-strict-thinking", [*LINEAR, "--enable-strict-thinking"], ["SPEC035"], at("SPEC035")),
    case("SPEC036-unset", UNO, ["SPEC036"], at("SPEC036")),
    case("SPEC036-zero", [*UNO, "--speculative-num-draft-tokens", "0"], ["SPEC036"], at("SPEC036")),
    case("SPEC036-tree", [*UNO, "--speculative-eagle-topk", "2", "--speculative-num-steps", "3"], ["SPEC036"],
         at("SPEC036")),
    case("SPEC037-topk0", [*LINEAR, "--speculative-eagle-topk", "0"], ["SPEC037"], at("SPEC037")),
    case("SPEC044-linear-steps", [*LINEAR, *FA3, "--speculative-num-steps", "3"], ["SPEC044"], "ok"),
    case("SPEC044-ok-one-step", [*LINEAR, "--speculative-num-steps", "1", "--speculative-eagle-topk", "1"], [], "ok"),
    case("SPEC038-no-steps", [*LINEAR, "--speculative-eagle-topk", "2"], ["SPEC038"], at("SPEC038")),
    case("SPEC110-zero-steps", [*LINEAR, "--speculative-eagle-topk", "2", "--speculative-num-steps", "0"], ["SPEC110"],
         at("SPEC110")),
    case("SPEC039-width-below-steps", _tree(3, 2, 3), ["SPEC039"], at("SPEC039")),
    case("SPEC111-width-above-128", _tree(200, 4, 80), ["SPEC111"], at("SPEC111")),
    case("SPEC112-frontier", _tree(100, 32, 10), ["SPEC112"], at("SPEC112")),
    case("SPEC113-capacity", _tree(4, 2, 1), ["SPEC113"], at("SPEC113")),
    case("SPEC113-ok-full", _tree(2, 2, 1), [], "ok"),
    case("SPEC114-parent-list", _tree(8, 2, 3), ["SPEC114"], at("SPEC114")),
    case("SPEC040-pdmux", [*TREE, "--enable-pdmux"], ["SPEC040", "GEN031", "GEN033"], at("SPEC040")),
    case("SPEC115-two-batch-overlap", [*TREE, "--enable-two-batch-overlap"], ["SPEC115", "A2A053"], at("SPEC115")),
    case("SPEC116-threshold-acc", [*TREE, "--speculative-accept-threshold-acc", "0.5"], ["SPEC116"], at("SPEC116")),
    case("SPEC116-threshold-single", [*TREE, "--speculative-accept-threshold-single", "0.9"], ["SPEC116"],
         at("SPEC116")),
    case("SPEC116-ok-linear", [*LINEAR, "--speculative-accept-threshold-acc", "0.5"], [], "ok"),
    case("SPEC030-tp2", [*LINEAR, "--tp", "2"], ["SPEC030"], at("SPEC030")),
    case("SPEC030-pp2", [*LINEAR, "--pp-size", "2"], ["SPEC030", "PP005"], at("SPEC030")),
    case("SPEC117-attn-cp0", [*LINEAR, "--attn-cp-size", "0"], ["SPEC117", "PAR008"], at("SPEC117")),
    case("SPEC041-enable-lora", [*LINEAR, "--enable-lora"], ["SPEC041", "LORA022", "LORA009"], at("SPEC041")),
    case("SPEC041-lora-paths", [*LINEAR, "--lora-paths", "a=/a"], ["SPEC041", "LORA022"], at("SPEC041")),
    case("SPEC118-overlap-loading", [*LINEAR, *FA3, "--enable-lora-overlap-loading"], ["SPEC118"], "ok"),
    # a flag of no value is pinned by removing it: --no-lora-strict-loading goes, UNO turns strict loading on
    case("SPEC118-no-strict-loading", [*LINEAR, *FA3, "--no-lora-strict-loading"], ["SPEC118"], "ok"),
    case("SPEC118-both", [*LINEAR, *FA3, "--no-lora-strict-loading", "--enable-lora-overlap-loading"],
         ["SPEC118", "SPEC118"], "ok"),
    case("SPEC042-rejection-sampling", [*LINEAR, "--speculative-use-rejection-sampling"], ["SPEC042"], at("SPEC042")),
    case("SPEC119-mixed-chunk", [*LINEAR, *FA3, "--enable-mixed-chunk"], ["SPEC119"], "ok"),
    case("SPEC043-triton", [*LINEAR, "--attention-backend", "triton"], ["SPEC043"], at("SPEC043")),
    case("SPEC043-decode-flashinfer", [*LINEAR, *FA3, "--decode-attention-backend", "flashinfer"], ["SPEC043"],
         at("SPEC043")),
    case("SPEC043-fa3-fp8-e5m2", [*LINEAR, *FA3, "--kv-cache-dtype", "fp8_e5m2"], ["SPEC120", "SPEC043"], at("SPEC043")),
    case("SPEC043-default-fp8-e5m2", [*LINEAR, "--kv-cache-dtype", "fp8_e5m2"], ["SPEC043"], at("SPEC043")),
    case("SPEC043-ok-split-fp8-e5m2", [*LINEAR, "--prefill-attention-backend", "fa3", "--decode-attention-backend", "fa3",
                                       "--kv-cache-dtype", "fp8_e5m2"], [], "ok"),
    case("SPEC120-fa3-fp8-e5m2", ["--attention-backend", "fa3", "--kv-cache-dtype", "fp8_e5m2"], ["SPEC120"], "ok"),
    case("SPEC120-ok-e4m3", ["--attention-backend", "fa3", "--kv-cache-dtype", "fp8_e4m3"], [], "ok"),
]
