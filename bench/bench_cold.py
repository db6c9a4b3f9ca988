"""Cold start of ``autofix one-file.yaml`` against yamllint on the same file, in one run.

hyperfine is not on these machines, so this does what it would: the commands take turns (``--runs``
rounds after one untimed warm-up round), so a burst of load on the shared machine hits them all rather
than skewing their ratio, and the medians are printed. Bytecode is cached, as a normal install has it:
``PYTHONDONTWRITEBYTECODE`` is dropped from the children's environment and their bytecode goes to a temp
dir (``PYTHONPYCACHEPREFIX``), so nothing is written to the tree.

    .venv/bin/python bench/bench_cold.py                      # this venv's autofix and yamllint
    .venv/bin/python bench/bench_cold.py --runs 40 --also before=/tmp/base/.venv/bin/autofix

``--also NAME=PATH`` adds another autofix console script (another checkout's venv) to the same rounds,
for before/after figures measured together. ``--file`` checks that file instead of the clean one this
script writes. The commands run in a temp dir, so neither finds a settings file
(a ``pyproject.toml`` with ``[tool.autofix]``, a ``.yamllint``) up the tree. Every autofix command must exit 0 (the file is clean); yamllint's exit status is not
checked (it may warn about a missing ``---``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# A clean SGLang 0.5.23 --config file, the size of a typical one
CLEAN = """\
# SGLang launch config
model-path: meta-llama/Llama-3.1-8B-Instruct
tp-size: 2
mem-fraction-static: 0.85
host: 0.0.0.0
port: 30000
attention-backend: flashinfer
chunked-prefill-size: 8192
max-running-requests: 128
"""


def _medians(cmds: dict[str, list[str]], env: dict[str, str], runs: int, cwd: str) -> dict[str, list[float]]:
    """Wall times in ms of ``runs`` rounds of every command, taking turns, after one untimed round."""
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for r in range(runs + 1):
        for name, cmd in cmds.items():
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
            dt = time.perf_counter() - t0
            if name.startswith("autofix") and proc.returncode != 0:
                raise SystemExit(f"{cmd} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
            if r:
                times[name].append(dt * 1e3)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="timed rounds (default 30)")
    parser.add_argument("--file", help="the file to check (default: a clean config written to a temp dir)")
    parser.add_argument("--also", action="append", default=[], metavar="NAME=PATH",
                        help="another autofix console script to time in the same rounds")
    args = parser.parse_args()

    bindir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory(prefix="autofix-cold-") as tmp:
        path = args.file
        if path is None:
            path = os.path.join(tmp, "one.yaml")
            Path(path).write_text(CLEAN, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
        cmds = {"autofix": [str(bindir / "autofix"), path]}
        for spec in args.also:
            name, _, script = spec.partition("=")
            cmds[f"autofix ({name})"] = [script, path]
        cmds["yamllint"] = [str(bindir / "yamllint"), path]
        cmds["python -c pass"] = [sys.executable, "-c", "pass"]
        times = _medians(cmds, env, args.runs, tmp)
    print(f"load average {os.getloadavg()[0]:.2f}; {args.runs} rounds; bytecode cached")
    print(f"{'command':<24} {'median ms':>10} {'min':>7} {'max':>7}")
    for name, ts in times.items():
        print(f"{name:<24} {statistics.median(ts):10.1f} {min(ts):7.1f} {max(ts):7.1f}")
    ref = statistics.median(times["yamllint"])
    for name, ts in times.items():
        if name.startswith("autofix"):
            print(f"{name} / yamllint: {statistics.median(ts) / ref:.2f}x")


if __name__ == "__main__":
    main()
