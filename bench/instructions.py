#!/usr/bin/env python
"""Clean-file cost in CPU instructions (callgrind), which a busy machine does not skew.

    python bench/instructions.py [--n 300] [--seed 0] [--rounds 3] [--fixable] [--floor]

Generates ``--n`` clean configs with ``bench_configs.generate`` (the same files as
``bench_configs.py`` for the same seed), then runs, under ``valgrind --tool=callgrind``,
a process that imports autofix and checks all the files once, and one that checks
them ``--rounds`` times. The difference of their instruction counts over
``(rounds - 1) * n`` is the steady per-file cost of ``runner.run`` (imports, the
first-file warm-up and the process start cancel out). ``PYTHONHASHSEED`` is fixed,
so two runs of one commit agree to within a few hundred instructions per file.

``--floor``: also the floor's count over the same files, and the ratio.
``--fixable``: the same for files that need one fix each (``bench_configs.render_fixable``),
checked in DIFF mode (the diff rendered). ``--walk``: the run is given their directory, not the
files: it walks it, and reads each file as a walk's (checked to be in the project, issue 29).

Needs valgrind. Takes about a minute and a half at the defaults. A benchmark, not a
test: ``.ci/run`` does not run it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_configs import generate, generate_fixable  # noqa: E402

RUNNER = """
import io, sys
from autofix.cli.runner import Mode, run
paths = open(sys.argv[2]).read().splitlines()
for _ in range(int(sys.argv[1])):
    rep = run(paths, Mode.DIFF, out=io.StringIO(), err=io.StringIO())
    assert rep.exit_code == int(sys.argv[3]), "the generated files are meant to be clean (or to need a fix)"
"""
FLOOR = """
import sys, yaml
paths = open(sys.argv[2]).read().splitlines()
for _ in range(int(sys.argv[1])):
    for p in paths:
        with open(p, encoding="utf-8") as f:
            yaml.load(f.read(), Loader=yaml.CSafeLoader)
"""


def instructions(rounds: int, paths: list[str], workdir: Path, exit_code: int = 0, script: str = RUNNER) -> int:
    """Instructions callgrind counts for a process that checks ``paths`` ``rounds`` times."""
    out, listing = workdir / f"callgrind.{rounds}", workdir / "paths.txt"
    listing.write_text("\n".join(paths))
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c",
                           script, str(rounds), str(listing), str(exit_code)], env=env, capture_output=True, text=True,
                          cwd=workdir)  # not the current directory: `python -c` would import a checkout there
    if done.returncode != 0:
        raise SystemExit(f"the measured process failed:\n{done.stderr[-2000:]}")
    found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.M)
    assert found, f"no instruction total in {out}"
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="number of config files (default 300)")
    ap.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the longer process (default 3)")
    ap.add_argument("--fixable", action="store_true", help="files that need one fix each (default: clean files)")
    ap.add_argument("--walk", action="store_true", help="give the run the files' directory (a walk), not the files")
    ap.add_argument("--floor", action="store_true",
                    help="also count the floor (read + yaml.load(CSafeLoader)) over the same files, and the ratio")
    ns = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="autofix-instr-") as tmp:
        workdir = Path(tmp)
        (workdir / "configs").mkdir()  # the files alone in it: what a walk of it finds
        paths, digest = generate(workdir / "configs", ns.n, ns.seed)
        if ns.fixable:
            for path in paths:
                os.unlink(path)
            paths = generate_fixable(workdir / "configs", ns.n, ns.seed)
        given = ["configs"] if ns.walk else paths
        one = instructions(1, given, workdir, int(ns.fixable))
        many = instructions(ns.rounds, given, workdir, int(ns.fixable))
        if ns.floor:
            floor = (instructions(ns.rounds, paths, workdir, script=FLOOR)
                     - instructions(1, paths, workdir, script=FLOOR)) / ((ns.rounds - 1) * ns.n)
    per_file = (many - one) / ((ns.rounds - 1) * ns.n)
    kind = ("file that needs a fix" if ns.fixable else "clean file") + (", walked" if ns.walk else "")
    print(f"{ns.n} files (digest {digest}), seed {ns.seed}: {per_file / 1e6:.3f} M instructions per {kind}")
    if ns.floor:
        print(f"floor (read + yaml.load(CSafeLoader)): {floor / 1e6:.3f} M instructions per file; "
              f"ratio {per_file / floor:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
