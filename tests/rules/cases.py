"""Rule test cases as data: flags, the codes autofix must report, SGLang's verdict.

``sglang`` is what SGLang 0.5.23 did with the flags (``ok`` or the
``path:line`` it raised at), measured with ../shared/oracle (8x H200,
DeepSeek-V3 config) and re-checked by tests/oracle/test_rule_verdicts.py.
``fixed_ok`` says SGLang accepts the output of autofix's fixes (safe, then
unsafe) for that case.
"""

from __future__ import annotations

from dataclasses import dataclass

EP003 = "sglang/srt/arg_groups/parallel_hook.py:783"
EP004 = "sglang/srt/arg_groups/parallel_hook.py:791"
RUN019 = "sglang/srt/lora/marlin_lora_temp/policy.py:23"
RUN020 = "sglang/srt/lora/marlin_lora_temp/policy.py:34"
RUN021 = "sglang/srt/lora/marlin_lora_temp/policy.py:40"
RUN022 = "sglang/srt/lora/marlin_lora_temp/policy.py:51"

MARLIN = ["--moe-runner-backend", "experimental_sgl_marlin"]
LORA_OK = ["--enable-lora", "--lora-use-virtual-experts", "--lora-backend", "triton",
           "--max-lora-rank", "16", "--lora-target-modules", "all"]


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    codes: tuple[str, ...]  # what autofix reports on the input, in order
    sglang: str  # "ok" or where SGLang 0.5.23 raised
    fixed_ok: bool = True  # SGLang accepts autofix's output (safe + unsafe fixes)


def case(id, argv, codes, sglang, fixed_ok=True) -> Case:
    return Case(id, tuple(argv), tuple(codes), sglang, fixed_ok)


EP_CASES = [
    case("EP003-static-a2a-none", ["--tp-size", "8", "--moe-a2a-backend", "none", "--ep-dispatch-algorithm", "static"], ["EP003"], EP003),
    case("EP003-lp-default-a2a", ["--ep-dispatch-algorithm", "lp"], ["EP003"], EP003),
    case("EP003-ascend-tp-collapses", ["--tp-size", "8", "--moe-a2a-backend", "ascend_tp", "--ep-dispatch-algorithm", "static"], ["EP003"], EP003),
    case("EP003-dwdp-forces-none", ["--tp-size", "8", "--dwdp-size", "8", "--moe-a2a-backend", "deepep", "--ep-dispatch-algorithm", "static"], ["EP003"], EP003),
    case("EP003-prefix-spelling", ["--tp", "8", "--ep-dispatch-algorithm=static"], ["EP003"], EP003),
    case("EP003-ok-dynamic", ["--tp-size", "8", "--moe-a2a-backend", "none", "--ep-dispatch-algorithm", "dynamic"], [], "ok"),
    case("EP003-ok-deepep", ["--tp-size", "8", "--moe-a2a-backend", "deepep", "--ep-dispatch-algorithm", "static"], [], "ok"),
    case("EP003-ok-deepep-tp1", ["--moe-a2a-backend", "deepep", "--ep-dispatch-algorithm", "static"], [], "ok"),
    case("EP003-ok-waterfill-deepep", ["--tp-size", "8", "--enable-waterfill", "--ep-dispatch-algorithm", "static"], [], "ok"),
    case("EP003-ok-megamoe-runner", ["--tp-size", "8", "--moe-runner-backend", "megamoe", "--ep-dispatch-algorithm", "static"], [], "ok"),
    case("EP004-eplb-without-ep", ["--tp-size", "8", "--enable-eplb"], ["EP004"], EP004),
    case("EP004-eplb-tp1", ["--enable-eplb"], ["EP004"], EP004),
    case("EP004-ok-ep8", ["--tp-size", "8", "--ep-size", "8", "--enable-eplb"], [], "ok"),
    case("EP004-ok-deepep", ["--tp-size", "8", "--enable-eplb", "--moe-a2a-backend", "deepep"], [], "ok"),
    case("EP003-EP004-both", ["--tp-size", "8", "--enable-eplb", "--ep-dispatch-algorithm", "lp"], ["EP003", "EP004"], EP003),
]

MARLIN_CASES = [
    case("RUN019-deepep", ["--tp-size", "8", "--moe-a2a-backend", "deepep", *MARLIN], ["RUN019"], RUN019),
    case("RUN019-mooncake", ["--tp-size", "4", "--moe-a2a-backend", "mooncake", *MARLIN], ["RUN019"], RUN019),
    case("RUN019-waterfill", ["--tp-size", "8", "--enable-waterfill", *MARLIN], ["RUN019"], RUN019),
    case("RUN019-then-EP003", ["--tp-size", "8", "--moe-a2a-backend", "deepep", *MARLIN, "--ep-dispatch-algorithm", "static"], ["RUN019"], RUN019),
    case("RUN019-ok-a2a-none-ep8", ["--tp-size", "8", "--ep-size", "8", "--moe-a2a-backend", "none", *MARLIN], [], "ok"),
    case("RUN019-ok-tp1-deepep", ["--moe-a2a-backend", "deepep", *MARLIN], [], "ok"),
    case("RUN019-ok-other-runner", ["--tp-size", "8", "--moe-a2a-backend", "deepep", "--moe-runner-backend", "triton"], [], "ok"),
    case("RUN020-enable-lora", ["--tp-size", "8", *MARLIN, "--enable-lora", "--max-lora-rank", "16", "--lora-target-modules", "all"], ["RUN020", "RUN021"], RUN020),
    case("RUN020-lora-paths", ["--tp-size", "8", *MARLIN, "--lora-paths", "a=/tmp/x"], ["RUN020", "RUN021"], RUN020),
    case("RUN021-csgmv-default", ["--tp-size", "8", *MARLIN, "--enable-lora", "--lora-use-virtual-experts", "--max-lora-rank", "16", "--lora-target-modules", "all"], ["RUN021"], RUN021),
    case("RUN021-explicit-backend", ["--tp-size", "8", *MARLIN, "--enable-lora", "--lora-use-virtual-experts", "--lora-backend", "csgmv", "--max-lora-rank", "16", "--lora-target-modules", "all"], ["RUN021"], RUN021),
    case("RUN021-ok-triton", ["--tp-size", "8", *MARLIN, *LORA_OK], [], "ok"),
    case("RUN022-redundant", ["--tp-size", "8", "--ep-size", "8", *MARLIN, *LORA_OK, "--ep-num-redundant-experts", "8"], ["RUN022"], RUN022),
    case("RUN022-eplb", ["--tp-size", "8", "--ep-size", "8", *MARLIN, *LORA_OK, "--enable-eplb"], ["RUN022"], RUN022),
    case("RUN022-elastic-none-string", ["--tp-size", "8", "--ep-size", "8", *MARLIN, *LORA_OK, "--elastic-ep-backend", "none"], ["RUN022"], RUN022),
    case("RUN022-backup", ["--tp-size", "8", "--ep-size", "8", *MARLIN, *LORA_OK, "--enable-elastic-expert-backup"], ["RUN022"], RUN022),
    case("RUN022-ok-no-ep", ["--tp-size", "8", *MARLIN, *LORA_OK, "--ep-num-redundant-experts", "8"], [], "ok"),
    case("RUN022-ok-trivial-explicit", ["--tp-size", "8", "--ep-size", "8", *MARLIN, *LORA_OK, "--init-expert-location", "trivial", "--ep-num-redundant-experts", "0"], [], "ok"),
    case("RUN022-ok-lora-disabled", ["--tp-size", "8", "--ep-size", "8", *MARLIN, "--enable-eplb"], [], "ok"),
]

ALL_CASES = EP_CASES + MARLIN_CASES

MARLIN_CASES.append(
    case("RUN022-elastic-with-join-mode", ["--tp-size", "8", "--ep-size", "8", *MARLIN, *LORA_OK,
                                           "--elastic-ep-backend", "mooncake", "--elastic-ep-join-mode", "recover"],
         ["RUN022"], RUN022),
)
ALL_CASES = EP_CASES + MARLIN_CASES
