"""Cold start of ``autofix one-file.yaml`` against yamllint on the same file, in one run.

hyperfine is not on these machines, so this does what it would: the commands take turns (``--runs``
rounds after one untimed warm-up round), so a burst of load on the shared machine hits them all rather
than skewing their ratio, and the medians (and minimums) of wall and CPU time are printed. Bytecode is cached, as a normal install has it:
``PYTHONDONTWRITEBYTECODE`` is dropped from the children's environment and their bytecode goes to a temp
dir (``PYTHONPYCACHEPREFIX``), so nothing is written to the tree.

    .venv/bin/python bench/bench_cold.py                      # this venv's autofix and yamllint
    .venv/bin/python bench/bench_cold.py --runs 40 --also before=/tmp/base/.venv/bin/autofix

``--also NAME=PATH`` adds another autofix console script (another checkout's venv) to the same rounds,
for before/after figures measured together. ``--file`` checks that file instead of the clean one this
script writes. The commands run in a temp dir, so neither finds a settings file
(a ``pyproject.toml`` with ``[tool.autofix]``, a ``.yamllint``) up the tree. Every autofix command must exit 0 (the file is clean); yamllint's exit status is not
checked (it may warn about a missing ``---``).
"""  # noqa: E501

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


def _times(cmds: dict[str, list[str]], env: dict[str, str], runs: int, cwd: str) -> dict[str, list[tuple[float, float]]]:
    """(wall ms, CPU ms) of ``runs`` rounds of every command, taking turns, after one untimed round.

    CPU time (user + system, from ``os.wait4``) moves much less than wall time when another job shares the
    cores, so both are kept.
    """
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
    for r in range(runs + 1):
        for name, cmd in cmds.items():
            t0 = time.perf_counter()
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
            _, status, usage = os.wait4(proc.pid, 0)
            dt = time.perf_counter() - t0
            proc.returncode = os.waitstatus_to_exitcode(status)
            if name.startswith("autofix") and proc.returncode != 0:
                raise SystemExit(f"{cmd} exited {proc.returncode}")
            if r:
                times[name].append((dt * 1e3, (usage.ru_utime + usage.ru_stime) * 1e3))
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
        if not (bindir / "yamllint").exists():
            raise SystemExit(f"no yamllint next to {sys.executable}: {bindir / 'pip'} install yamllint")
        cmds["yamllint"] = [str(bindir / "yamllint"), path]
        cmds["python -c pass"] = [sys.executable, "-c", "pass"]
        times = _times(cmds, env, args.runs, tmp)
    print(f"load average {os.getloadavg()[0]:.2f}; {args.runs} rounds; bytecode cached")
    print(f"{'command':<24} {'wall median':>11} {'wall min':>9} {'CPU median':>11} {'CPU min':>8}  (ms)")
    for name, ts in times.items():
        wall, cpu = [w for w, _ in ts], [c for _, c in ts]
        print(f"{name:<24} {statistics.median(wall):11.1f} {min(wall):9.1f} {statistics.median(cpu):11.1f} "
              f"{min(cpu):8.1f}")
    ref = times["yamllint"]
    for name, ts in times.items():
        if name.startswith("autofix"):
            ratios = [statistics.median([t[i] for t in ts]) / statistics.median([t[i] for t in ref]) for i in (0, 1)]
            print(f"{name} / yamllint: {ratios[0]:.2f}x wall, {ratios[1]:.2f}x CPU (medians)")

if __name__ == "__main__":
    main()
