#!/usr/bin/env python
"""Benchmark autofix's memory: the peak RSS of whole runs over more and more files.

    python bench/bench_memory.py [--n 1000,4000,16000] [--seed 0] [--jobs 2] [--cases clean-full,dirty-json]
                                 [--autofix before=/path/to/other/venv/bin/autofix]

A benchmark, not a test. Issue 15's target is memory flat in the number of files: a run over many clean
files peaks no higher than one over a few (beyond noise). Each run is a fresh process of the ``autofix``
console script (next to ``sys.executable``, or each ``--autofix LABEL=PATH`` given, taking turns), started
by a small Python parent of its own whose ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` is the run's peak: the
largest resident set of the autofix process and (``-j``) its workers. stdout and stderr go to files, so
nothing reads them while the run goes.

The files are ``bench_configs.py``'s clean configs (seed 0), the first N of the largest ``--n`` (hard links),
and the same files with one fixable violation each (``disable-fast-image-processor: true`` appended: DEP001,
rewritten as ``image-processor-backend: pil``). Before measuring, the script checks what each case must print
(exit code, the summary line: clean files pass, every dirty file is reported, and ``--write`` fixes each one);
a ``--write`` run starts from freshly written dirty files.

Printed, per case: the peak RSS at each N, in MB, and the growth in bytes per file from the smallest N to the
largest (what each more file costs; 0 is flat). What is honest to expect: a clean run holds nothing per
file. A machine format (``json``, ``sarif``, ...) prints one document at the end, so it holds each
diagnostic's record until then: its run grows with the violations (one per file in the ``dirty`` cases),
not with the files.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_configs  # noqa: E402

VIOLATION = "disable-fast-image-processor: true\n"  # DEP001, one fixable warning per file

# The parent of one measured run: it runs argv[2:] with the streams it was given, then writes the exit code
# and the peak RSS (KB on Linux) of what it ran into argv[1]. A fresh parent per run: RUSAGE_CHILDREN keeps
# the maximum over every child a process ever waited for.
PARENT = ("import resource, subprocess, sys; rc = subprocess.call(sys.argv[2:]); "
          "open(sys.argv[1], 'w').write(f'{rc} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}')")


@dataclass(frozen=True)
class Case:
    """One kind of run: over the clean or the dirty files, with these options; what it must end with."""

    name: str
    dirty: bool
    args: tuple[str, ...]
    exit_code: int
    summary: str  # the summary line (stderr's last), {n} for the number of files


def cases(jobs: int) -> list[Case]:
    clean = "All checks passed!"
    found = "Found {n} violations. [*] {n} fixable with --write."
    return [
        Case("clean-full", False, ("-j", "1"), 0, clean),
        Case("clean-json", False, ("-j", "1", "--output-format", "json"), 0, clean),
        Case("clean-sarif", False, ("-j", "1", "--output-format", "sarif"), 0, clean),
        Case(f"clean-full-j{jobs}", False, ("-j", str(jobs)), 0, clean),
        Case("dirty-full", True, ("-j", "1"), 1, found),
        Case("dirty-json", True, ("-j", "1", "--output-format", "json"), 1, found),
        Case("dirty-sarif", True, ("-j", "1", "--output-format", "sarif"), 1, found),
        Case(f"dirty-full-j{jobs}", True, ("-j", str(jobs)), 1, found),
        Case("dirty-write", True, ("-j", "1", "--write"), 0,
             "Found {n} violations. Fixed {n} in {n} files; 0 remaining."),
    ]


def measure(script: str, case: Case, directory: Path, n: int, tmp: Path) -> tuple[int, int]:
    """Peak RSS (bytes) of one run of ``case`` over ``directory`` (``n`` files), and its stdout's size."""
    result, out_path, err_path = tmp / "result", tmp / "stdout", tmp / "stderr"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        subprocess.run([sys.executable, "-c", PARENT, str(result), script, *case.args, str(directory)],
                       stdout=out, stderr=err, check=True, cwd=directory)
    rc, kb = map(int, result.read_text().split())
    last = err_path.read_text("utf-8").strip().splitlines()[-1:] or [""]
    want = case.summary.format(n=n)
    if rc != case.exit_code or last[0] != want:
        raise SystemExit(f"{case.name} over {n} files: exit {rc} (want {case.exit_code}), summary {last[0]!r} "
                         f"(want {want!r})")
    return kb * 1024, out_path.stat().st_size


def subset(source: Path, paths: list[str], n: int, name: str) -> Path:
    """A directory of hard links to the first ``n`` of ``paths``."""
    sub = source.parent / name
    sub.mkdir()
    for p in paths[:n]:
        os.link(p, sub / os.path.basename(p))
    return sub


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", default="1000,4000,16000",
                    help="numbers of files, comma-separated (default 1000,4000,16000)")
    ap.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    ap.add_argument("--jobs", type=int, default=2, help="-j of the parallel cases (default 2)")
    ap.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--autofix", action="append", default=[], metavar="LABEL=PATH",
                    help="an autofix console script to measure (repeatable; default: the one next to python)")
    args = ap.parse_args(argv)
    sizes = sorted(int(s) for s in args.n.split(","))
    scripts = dict(a.split("=", 1) for a in args.autofix) or {bench_configs.autofix_commit():
                                                              bench_configs.console_script()[0]}
    chosen = [c for c in cases(args.jobs) if not args.cases or c.name in args.cases.split(",")]
    if not chosen:
        raise SystemExit(f"no such case; the cases: {', '.join(c.name for c in cases(args.jobs))}")
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs; autofix: "
          + ", ".join(f"{label} ({path})" for label, path in scripts.items()))
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "clean").mkdir()
        (tmp / "dirty").mkdir()
        paths, digest = bench_configs.generate(tmp / "clean", sizes[-1], args.seed)
        dirty = []
        for p in paths:
            d = tmp / "dirty" / os.path.basename(p)
            d.write_text(Path(p).read_text("utf-8") + VIOLATION, "utf-8")
            dirty.append(str(d))
        print(f"{sizes[-1]} clean configs, digest {digest}; the dirty ones: + {VIOLATION.strip()!r}")
        dirs = {(False, n): subset(tmp / "clean", paths, n, f"clean{n}") for n in sizes}
        dirs.update({(True, n): subset(tmp / "dirty", dirty, n, f"dirty{n}") for n in sizes})
        work = tmp / "work"
        work.mkdir()
        print(f"{'case':<18} {'autofix':<14} " + " ".join(f"{f'{n} MB':>10}" for n in sizes)
              + f" {'B/file':>8} {'stdout MB':>10}")
        for case in chosen:
            rows: dict[str, list[tuple[int, int]]] = {label: [] for label in scripts}
            for n in sizes:
                for label, script in scripts.items():  # taking turns: a burst of load hits each
                    directory = dirs[case.dirty, n]
                    if "--write" in case.args:  # a fresh copy of the dirty files: the run rewrites them
                        directory = work / f"{label}-{n}"
                        shutil.rmtree(directory, ignore_errors=True)
                        shutil.copytree(dirs[True, n], directory)
                    rows[label].append(measure(script, case, directory, n, tmp))
            for label, row in rows.items():
                growth = (row[-1][0] - row[0][0]) / (sizes[-1] - sizes[0]) if len(sizes) > 1 else 0.0
                print(f"{case.name:<18} {label:<14} " + " ".join(f"{rss / 2**20:>10.1f}" for rss, _ in row)
                      + f" {growth:>8.0f} {row[-1][1] / 2**20:>10.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
