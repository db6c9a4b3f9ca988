"""Rule test cases as data (``casekit.Case``): the early ones here, each family's in ``cases_<family>.py``.

A new rule's cases go in its family's ``cases_<family>.py`` (a new family: a new module with a ``CASES``
list; nothing to register). Every ``harness/rules/cases_*.py`` module holds a ``CASES`` list; ``ALL_CASES``
is this module's lists then theirs, by module name. Verdicts come from
../shared/oracle (see ``casekit``); ``VERDICTS`` is where ``scripts/oracle_verdicts.py --rule-cases``
records them, for the offline tests.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from harness.rules.casekit import FACTS, LORA_OK, MARLIN, Case, at, case, facts_of  # noqa: F401

# SGLang's verdict on each case, by id: {"ok": bool, "where": "path:line" or null}
VERDICTS = Path(__file__).resolve().parent / "oracle-verdicts.json"

EP003, EP004, RUN010 = at("EP003"), at("EP004"), at("RUN010")
RUN005, RUN006, RUN008, RUN009 = at("RUN005"), at("RUN006"), at("RUN008"), at("RUN009")
RUN019, RUN020, RUN021, RUN022 = at("RUN019"), at("RUN020"), at("RUN021"), at("RUN022")

EP_CASES = [
    case("EP003-static-a2a-none", ["--tp-size", "8", "--moe-a2a-backend", "none", "--ep-dispatch-algorithm", "static"], ["EP003"], EP003),
    case("EP003-lp-default-a2a", ["--ep-dispatch-algorithm", "lp"], ["EP003"], EP003),
    case("EP003-ascend-tp-collapses", ["--tp-size", "8", "--moe-a2a-backend", "ascend_tp", "--ep-dispatch-algorithm", "static"], ["A2A028", "EP003"], EP003),
    case("EP003-dwdp-forces-none", ["--tp-size", "8", "--dwdp-size", "8", "--moe-a2a-backend", "deepep", "--ep-dispatch-algorithm", "static"], ["DWDP008", "EP003"], EP003),
    case("EP003-prefix-spelling", ["--tp", "8", "--ep-dispatch-algorithm=static"], ["EP003"], EP003),
    case("EP003-ok-dynamic", ["--tp-size", "8", "--moe-a2a-backend", "none", "--ep-dispatch-algorithm", "dynamic"], [], "ok"),
    case("EP003-ok-deepep", ["--tp-size", "8", "--moe-a2a-backend", "deepep", "--ep-dispatch-algorithm", "static"], [], "ok"),
    case("EP003-ok-deepep-tp1", ["--moe-a2a-backend", "deepep", "--ep-dispatch-algorithm", "static"], [], "ok"),
    case("EP003-ok-waterfill-deepep", ["--tp-size", "8", "--enable-waterfill", "--ep-dispatch-algorithm", "static"], [], "ok"),
    case("EP003-ok-megamoe-runner", ["--tp-size", "8", "--moe-runner-backend", "megamoe", "--ep-dispatch-algorithm", "static"], ["A2A001"], "ok"),
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

MARLIN_CASES.append(
    case("RUN022-elastic-with-join-mode", ["--tp-size", "8", "--ep-size", "8", *MARLIN, *LORA_OK,
                                           "--elastic-ep-backend", "mooncake", "--elastic-ep-join-mode", "recover"],
         ["RUN022"], RUN022),
)
CUTLASS = ["--moe-runner-backend", "flashinfer_cutlass"]
CUTEDSL = ["--moe-runner-backend", "flashinfer_cutedsl", "--quantization", "modelopt_fp4"]

MOE_KERNEL_CASES = [
    case("RUN005-fp8", [*CUTLASS, "--tp-size", "8", "--quantization", "fp8"], ["RUN005"], RUN005),
    case("RUN005-w8a8-fp8", [*CUTLASS, "--quantization", "w8a8_fp8"], ["RUN005"], RUN005, model="qwen3-moe"),
    case("RUN005-ok-modelopt-fp4", [*CUTLASS, "--tp-size", "8", "--quantization", "modelopt_fp4"], [], "ok"),
    case("RUN006-ep2", [*CUTLASS, "--tp-size", "8", "--ep-size", "2"], ["RUN006"], RUN006),
    # checked before deepep makes ep_size 8 (moe_hook.py:89 runs before handle_a2a_moe)
    case("RUN006-ep2-deepep", [*CUTLASS, "--tp-size", "8", "--ep-size", "2", "--moe-a2a-backend", "deepep"], ["RUN006", "A2A006"], RUN006),
    case("RUN006-ok-ep-tp", [*CUTLASS, "--tp-size", "8", "--ep-size", "8"], [], "ok"),
    case("RUN006-ok-ep1", [*CUTLASS, "--tp-size", "8", "--ep-size", "1"], [], "ok"),
    case("RUN006-ok-tp4-deepep", [*CUTLASS, "--tp-size", "4", "--ep-size", "4", "--moe-a2a-backend", "deepep"], [], "ok"),
    case("RUN008-ep2", [*CUTEDSL, "--tp-size", "8", "--ep-size", "2"], ["RUN008"], RUN008),
    case("RUN008-ok-ep-tp", [*CUTEDSL, "--tp-size", "8", "--ep-size", "8"], [], "ok"),
    case("RUN009-mooncake", [*CUTEDSL, "--tp-size", "8", "--moe-a2a-backend", "mooncake"], ["RUN009"], RUN009),
    # checked before ascend_tp collapses to none and before Waterfill makes mooncake deepep
    case("RUN009-ascend-tp", [*CUTEDSL, "--tp-size", "8", "--moe-a2a-backend", "ascend_tp"], ["RUN009", "A2A028"], RUN009),
    case("RUN009-waterfill-mooncake", [*CUTEDSL, "--tp-size", "8", "--moe-a2a-backend", "mooncake", "--enable-waterfill"], ["RUN009", "A2A005"], RUN009),
    case("RUN009-ok-waterfill-deepep", [*CUTEDSL, "--tp-size", "8", "--moe-a2a-backend", "deepep", "--enable-waterfill"], [], "ok"),
    case("RUN009-ok-deepep", [*CUTEDSL, "--tp-size", "8", "--moe-a2a-backend", "deepep"], [], "ok"),
    # nvfp4_online needs an SM100 GPU (RUN001): a B200 node
    case("RUN010-nvfp4-online-deepep", ["--moe-runner-backend", "flashinfer_cutedsl", "--tp-size", "8", "--quantization",
                                        "nvfp4_online", "--moe-a2a-backend", "deepep"], ["RUN010"], RUN010, gpu="b200"),
    case("RUN010-ok-no-a2a", ["--moe-runner-backend", "flashinfer_cutedsl", "--tp-size", "8", "--quantization",
                              "nvfp4_online"], [], "ok", gpu="b200"),
]

# SGLang starts, but a value the config gives is replaced: warnings, each with the pin fix
OVERRIDE_CASES = [
    case("A2A006-deepep-ep2", ["--tp-size", "8", "--ep-size", "2", "--moe-a2a-backend", "deepep"], ["A2A006"], "ok"),
    case("A2A006-ok-deepep-ep-tp", ["--tp-size", "8", "--ep-size", "8", "--moe-a2a-backend", "deepep"], [], "ok"),
    case("A2A005-waterfill-mooncake", ["--tp-size", "8", "--moe-a2a-backend", "mooncake", "--enable-waterfill"], ["A2A005"], "ok"),
    case("A2A005-waterfill-none", ["--tp-size", "8", "--moe-a2a-backend", "none", "--enable-waterfill"], ["A2A005"], "ok"),
    case("A2A028-ascend-tp", ["--tp-size", "8", "--moe-a2a-backend", "ascend_tp"], ["A2A028"], "ok"),
    case("DWDP008-a2a", ["--tp-size", "8", "--dwdp-size", "8", "--moe-a2a-backend", "deepep"], ["DWDP008"], "ok"),
    case("DWDP008-ep-size", ["--tp-size", "8", "--dwdp-size", "8", "--ep-size", "2"], ["DWDP008"], "ok"),
    case("A2A001-megamoe-runner", ["--tp-size", "8", "--moe-runner-backend", "megamoe"], ["A2A001"], "ok"),
    case("RUN003-mxfp8-triton", ["--tp-size", "8", "--quantization", "mxfp8", "--moe-runner-backend", "triton"], ["RUN003"], "ok", model="qwen3-moe"),
    case("RUN003-ok-mxfp8-auto", ["--tp-size", "8", "--quantization", "mxfp8"], [], "ok", model="qwen3-moe"),
    case("RUN003-ok-mxfp8-trtllm", ["--tp-size", "8", "--quantization", "mxfp8", "--moe-runner-backend", "flashinfer_trtllm"], [], "ok", model="qwen3-moe"),
]



def _family_cases() -> list[Case]:
    found: list[Case] = []
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda m: m.name):
        if info.name.startswith("cases_"):
            found += importlib.import_module(f"{__package__}.{info.name}").CASES
    return found


ALL_CASES = EP_CASES + MARLIN_CASES + MOE_KERNEL_CASES + OVERRIDE_CASES + _family_cases()
