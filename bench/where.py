#!/usr/bin/env python
"""Where the per-file time of ``autofix FILE...`` goes, by part of autofix (cProfile, own time).

    .venv/bin/python bench/where.py                 # 1000 clean configs
    .venv/bin/python bench/where.py --fixes         # the same files, each needing one fix

Runs ``runner.run`` (DIFF mode, as ``autofix FILE...``) once to warm up, then once under cProfile, over
``bench_configs.generate``'s files (with ``--fixes``: ``generate_fixable``'s), and adds each
function's own time (``tottime``) to the part of autofix it belongs to: the module of the function, or for
a library function (PyYAML, the standard library, built-ins) the autofix module that called it most. The
profiler's overhead inflates every call alike, so the shares are what to read, not the totals.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_configs import generate, generate_fixable  # noqa: E402

from autofix.cli.runner import Mode, run  # noqa: E402

# (prefix of a path under autofix/, the part it is counted in), first match wins
PARTS = (
    ("formats/yaml", "YAML reading (formats/yaml_config, yaml_nodes)"),
    ("formats/", "other format code (detect, launch)"),
    ("arguments", "argparse emulation (arguments)"),
    ("written", "argparse-stage rules (engine, rules/ written)"),
    ("rules/options", "argparse-stage rules (engine, rules/ written)"),
    ("rules/values", "argparse-stage rules (engine, rules/ written)"),
    ("rules/config_file", "argparse-stage rules (engine, rules/ written)"),
    ("rules/repeats", "argparse-stage rules (engine, rules/ written)"),
    ("rules/deprecated", "argparse-stage rules (engine, rules/ written)"),
    ("rules/versions", "argparse-stage rules (engine, rules/ written)"),
    ("rules/base", "argparse-stage rules (engine, rules/ written)"),
    ("rules/suppression", "suppression comments"),
    ("suppressions", "suppression comments"),
    ("engine", "argparse-stage rules (engine, rules/ written)"),
    ("pipeline/", "SGLang's resolution and settings rules (pipeline, rules/<hook>/)"),
    ("rules/", "SGLang's resolution and settings rules (pipeline, rules/<hook>/)"),
    ("api", "fix_source (api, merge, proposals, edits)"),
    ("merge", "fix_source (api, merge, proposals, edits)"),
    ("proposals", "fix_source (api, merge, proposals, edits)"),
    ("edits", "fix_source (api, merge, proposals, edits)"),
    ("fix_edits", "fix_source (api, merge, proposals, edits)"),
    ("schema", "the SGLang table (schema)"),
    ("report/", "runner, files and output (runner, files, report)"),
    ("runner", "runner, files and output (runner, files, report)"),
    ("files", "runner, files and output (runner, files, report)"),
    ("parallel", "runner, files and output (runner, files, report)"),
)


def part_of(filename: str) -> str | None:
    """The part an autofix source file belongs to (None outside autofix)."""
    marker = "/autofix/"
    if marker not in filename:
        return None
    rel = filename.rsplit(marker, 1)[1]
    return next((part for prefix, part in PARTS if rel.startswith(prefix)), "other autofix code")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fixes", action="store_true", help="give every file one violation to fix")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="autofix-where-") as tmp:
        if args.fixes:
            paths = generate_fixable(Path(tmp), args.n, args.seed)
        else:
            paths, _ = generate(Path(tmp), args.n, args.seed)
        run(paths, Mode.DIFF, out=io.StringIO(), err=io.StringIO())
        prof = cProfile.Profile()
        prof.enable()
        run(paths, Mode.DIFF, out=io.StringIO(), err=io.StringIO())
        prof.disable()
    stats = pstats.Stats(prof).stats  # (file, line, name) -> (cc, nc, tottime, cumtime, callers)
    own: dict[str, float] = defaultdict(float)
    for (filename, _, _), (_, _, tottime, _, callers) in stats.items():
        part = part_of(filename)
        if part is None:  # a library function: charge the autofix caller that spent most in it
            by_caller = defaultdict(float)
            for (cfile, _, _), caller_stats in callers.items():
                by_caller[part_of(cfile) or "libraries called by libraries (PyYAML's constructor ...)"] += \
                    caller_stats[2]
            part = max(by_caller, key=by_caller.get) if by_caller else "libraries called by libraries (PyYAML's constructor ...)"
        own[part] += tottime
    total = sum(own.values())
    print(f"{args.n} {'files that need a fix' if args.fixes else 'clean files'}: own time by part, "
          f"{total / args.n * 1e6:.0f} µs/file under cProfile\n")
    print("| part | share |")
    print("|---|---:|")
    for part, t in sorted(own.items(), key=lambda kv: -kv[1]):
        print(f"| {part} | {t / total:.0%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
