#!/usr/bin/env python
"""Time the shell reader on one huge word, in every form that goes through it.

    python bench/bench_shell.py [--size 1000000] [--repeats 3] [--forms plain,quoted,...]

A benchmark, not a test. Each form is a launch whose ``--model-path`` value
is one word of ``--size`` characters (``x``), followed by ``--tp 2``:

- ``plain``: ``python3 -m sglang.launch_server --model-path xxx... --tp 2`` in a script;
- ``quoted``: the same with the value in double quotes;
- ``bash-c``: the launch as the script word of ``bash -c "..."``;
- ``k8s``: a Kubernetes container ``command: [sh, -c, "..."]``;
- ``compose``: a compose service whose ``command`` is the launch as a string;
- ``many-commands``: ``--size // 17`` lines of ``echo hello world``, then one launch;
- ``many-launches``: ``--size // 56`` one-line launches (each ``--tp 8``, an abbreviation);
- ``many-flags``: one launch repeating ``--enable-metrics`` ``--size // 17`` times (ARG007 for each).

For each, the best of ``--repeats`` runs of ``api.fix_source`` (read, check,
re-read: what ``autofix FILE`` does without the process start) is printed,
with the number of launches read (1 expected). Then the cold import of
``autofix.adapters.argv`` (median of 9 ``python -X importtime`` runs).

Target: linear in ``--size``, well under 2 s per form for 1 MB.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from autofix.adapters import by_name
from autofix.core.api import fix_source
from autofix.schema import load

FORMS = ("plain", "quoted", "bash-c", "k8s", "compose", "many-commands", "many-launches", "many-flags")


def source(form: str, size: int) -> tuple[str, str]:
    """(adapter name, text) of ``form`` with a ``size``-character word."""
    word = "x" * size
    launch = f"python3 -m sglang.launch_server --model-path {word} --tp 2"
    if form == "plain":
        return "shell", launch + "\n"
    if form == "quoted":
        return "shell", f'python3 -m sglang.launch_server --model-path "{word}" --tp 2\n'
    if form == "bash-c":
        return "shell", f'bash -c "{launch}"\n'
    if form == "k8s":
        return "manifest", ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: s\nspec:\n  containers:\n"
                            f"    - name: s\n      image: i\n      command: [sh, -c, \"{launch}\"]\n")
    if form == "compose":
        return "manifest", f"services:\n  sglang:\n    image: i\n    command: {launch}\n"
    if form == "many-commands":
        return "shell", "echo hello world\n" * (size // 17) + "python3 -m sglang.launch_server --model-path m\n"
    if form == "many-launches":
        return "shell", "python3 -m sglang.launch_server --model-path m --tp 8\n" * (size // 56)
    if form == "many-flags":
        return "shell", "python3 -m sglang.launch_server --model-path m" + " --enable-metrics" * (size // 17) + "\n"
    raise ValueError(form)


def time_form(form: str, size: int, repeats: int) -> tuple[float, int]:
    """Best wall time of ``fix_source`` over ``repeats`` runs, and how many launches the adapter reads."""
    name, text = source(form, size)
    adapter = by_name(name)
    path = "bench.sh" if name == "shell" else "bench.yaml"
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fix_source(text, adapter, path=path)
        best = min(best, time.perf_counter() - t)
    return best, len(adapter.read(text, path, load()))


def import_time(runs: int = 9) -> float:
    """Median cumulative microseconds of ``import autofix.adapters.argv`` in a fresh interpreter."""
    samples = []
    for _ in range(runs):
        err = subprocess.run([sys.executable, "-X", "importtime", "-c", "import autofix.adapters.argv"],
                             capture_output=True, text=True, check=True, env=os.environ).stderr
        line = next(ln for ln in err.splitlines() if ln.rstrip().endswith("| autofix.adapters.argv"))
        samples.append(int(line.split("|")[1]))
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="characters in the word (default 1 MB)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--forms", default=",".join(FORMS), help="comma-separated: " + ", ".join(FORMS))
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}, word of {args.size} characters")
    for form in args.forms.split(","):
        seconds, launches = time_form(form, args.size, args.repeats)
        print(f"  {form:8s} {seconds:8.3f} s  ({launches} launch{'es' if launches != 1 else ''} read)")
    print(f"import autofix.adapters.argv: {import_time() / 1000:.1f} ms (median of 9, cumulative)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
