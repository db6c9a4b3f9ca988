"""Measure autofix against SGLang's own argument checks on drawn configs.

    bash ../shared/oracle/setup.sh
    python scripts/fidelity.py --n 10000 [--seed 0] [--gpu h200 b200] [--family all] [--out tests/oracle/regressions]

Takes the rule cases and their one-setting neighbours (``seeds``), then
draws N configs over the arguments the rules read (``reachable_configs`` in
harness/oracle/fidelity.py), runs them and autofix's fixes through
SGLang 0.5.23 (../shared/oracle, one SGLang import per GPU: each GPU of
``--gpu`` gets the N draws, autofix told that GPU), prints the agreement
table per GPU and for all, and writes every failure, shrunk, to ``--out`` as a JSON case that
tests/oracle/test_fidelity.py replays.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.oracle import families  # noqa: E402
from harness.oracle.fidelity import GPUS, Oracle, Tally, draw_configs, judge, report, seeds, shrink  # noqa: E402
from harness.oracle.oracle import available  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="configs to draw (default 2000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gpu", nargs="+", default=["h200"], choices=GPUS, help="simulated GPUs (default h200)")
    ap.add_argument("--out", type=Path, default=None, help="write shrunk failures here as JSON cases")
    ap.add_argument("--max-shrink", type=int, default=20, help="shrink at most this many failures")
    ap.add_argument("--family", default="all", choices=["all", *families.modules()],
                    help="draw the MoE/parallel base with this family's settings in every draw (default all: each "
                         "family now and then)")
    ap.add_argument("--no-seeds", action="store_true",
                    help="draw only: leave out the rule cases and their one-setting neighbours")
    ns = ap.parse_args()
    if not available():
        print("the SGLang oracle is not set up: bash ../shared/oracle/setup.sh", file=sys.stderr)
        return 2
    t0 = time.time()
    configs = ([] if ns.no_seeds else seeds()) + draw_configs(ns.n, ns.seed, ns.family)
    total, failed = Tally(), False
    for gpu in ns.gpu:
        tally = Tally()
        with Oracle(gpu=gpu) as oracle:
            for v in judge(oracle, configs):
                tally.add(v)
                total.add(v)
            print(f"== {gpu}\n" + report(tally, time.time() - t0))
            failed |= bool(tally.failures)
            if tally.failures and ns.out:
                ns.out.mkdir(parents=True, exist_ok=True)
                for i, v in enumerate(_worth_shrinking(tally.failures)[: ns.max_shrink]):
                    small = shrink(oracle, v)
                    kind = (small.outcome if small.outcome != "agree"
                            else "fixed-refused" if small.fixed is not None else "resolution")
                    name = f"{kind}-{'-'.join(small.codes) or 'none'}-{gpu}-{ns.seed}-{i}.json"
                    case = {"config": small.config, "gpu": gpu, "codes": list(small.codes), "sglang": small.sglang,
                            "outcome": small.outcome, "rule": small.rule, "fixed_sglang": small.fixed_sglang,
                            "fixed": small.fixed,
                            "resolution_mismatch": list(small.resolution_mismatch)}
                    (ns.out / name).write_text(json.dumps(case, indent=1) + "\n")
                    print(f"wrote {ns.out / name}")
    if len(ns.gpu) > 1:
        print(f"== all ({', '.join(ns.gpu)})\n" + report(total, time.time() - t0))
    return 1 if failed else 0


def _worth_shrinking(failures: list) -> list:
    """One failure of each kind (outcome, rule, where the fix was refused, values that differ): wrong verdicts
    first, then refused fixes, then resolution mismatches."""
    def kind(v) -> tuple:
        return v.outcome, v.rule, v.fixed_sglang if v.fixed is not None else "", v.resolution_mismatch

    def rank(v) -> int:
        return 0 if v.outcome in ("false_positive", "false_negative") else 2 if v.resolution_mismatch else 1

    firsts: dict = {}
    for v in failures:
        firsts.setdefault(kind(v), v)
    return sorted(firsts.values(), key=rank)


if __name__ == "__main__":
    raise SystemExit(main())
