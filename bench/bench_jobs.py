"""Benchmark ``-j/--jobs``: whole ``autofix DIR`` runs with 1 and with N worker processes, taking turns.

Usage::

    python bench/bench_jobs.py [--n 2000] [--jobs 2] [--repeats 5] [--sizes 50,100,200,400]

Each run is a fresh process, as a user's is (``python -c`` calling ``autofix.cli.main`` with
``autofix.cli.workers.PARALLEL_FROM`` set to 1, so that small runs can be timed with workers too). The files are
``bench_configs.py``'s clean configs (seed 0). Before timing, the script checks that ``-j 1`` and ``-j N`` print
the same bytes and exit with the same code. Printed: the best wall time of each over ``--repeats`` rounds, the
speed-up, and the median CPU time (user + system, workers included: what the workers cost over one process);
then the same for the smaller ``--sizes`` (where the start-up of the workers shows).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_configs  # noqa: E402

RUN = "import sys; from autofix.cli import workers; workers.PARALLEL_FROM = 1; from autofix.cli.main import main; " \
      "sys.argv = ['autofix', *sys.argv[1:]]; main()"


def run(directory: str, jobs: int) -> tuple[float, float, int, bytes, bytes]:
    """Wall time, CPU time (the process and its workers: user + system), exit code, stdout, stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", RUN, directory, "-j", str(jobs)], capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, p.returncode, p.stdout, p.stderr


def best(directory: str, jobs: int, repeats: int) -> dict[int, tuple[float, float]]:
    """Best wall time and median CPU time of ``-j 1`` and ``-j jobs`` over ``repeats`` rounds, taking turns."""
    times: dict[int, list[tuple[float, float]]] = {1: [], jobs: []}
    for _ in range(repeats):
        for j in times:
            times[j].append(run(directory, j)[:2])
    return {j: (min(w for w, _ in t), statistics.median(c for _, c in t)) for j, t in times.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="files of the main measurement (default 2000)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes to compare with -j 1 (default 2)")
    ap.add_argument("--repeats", type=int, default=5, help="rounds (default 5)")
    ap.add_argument("--sizes", default="50,100,200,400", help="smaller runs, comma-separated ('' to skip)")
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs, -j {args.jobs}")
    sizes = [args.n] + [int(s) for s in args.sizes.split(",") if s]
    with tempfile.TemporaryDirectory() as tmp:
        paths, digest = bench_configs.generate(Path(tmp), args.n, 0)
        print(f"{args.n} clean configs, digest {digest}")
        one, many = run(tmp, 1), run(tmp, args.jobs)
        assert one[2:] == many[2:], "-j 1 and -j N differ"
        assert one[2] == 0, one[3][-500:]
        print(f"{'files':>6} {'-j 1 s':>8} {f'-j {args.jobs} s':>8} {'speed-up':>9} {'-j 1 cpu s':>11} "
              f"{f'-j {args.jobs} cpu s':>11}")
        for n in sizes:
            sub = os.path.join(tmp, f"first{n}")
            if n != args.n:
                os.mkdir(sub)
                for p in paths[:n]:
                    os.link(p, os.path.join(sub, os.path.basename(p)))
            t = best(tmp if n == args.n else sub, args.jobs, args.repeats)
            (w1, c1), (wn, cn) = t[1], t[args.jobs]
            print(f"{n:>6} {w1:>8.3f} {wn:>8.3f} {w1 / wn:>8.2f}x {c1:>11.3f} {cn:>11.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
