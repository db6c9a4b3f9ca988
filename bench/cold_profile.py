"""Where the start-up of ``autofix one-file.yaml`` goes, in CPU ms (the minimum over ``--runs`` fresh processes).

Each process imports the layers in order (PyYAML, autofix's CLI, the checking machinery) and then runs the
command line as ``autofix.cli.main`` does (a command line of paths: without typer and click), timing each
with ``time.process_time`` (less moved by a shared machine than wall time). Over the imports it also counts the
time spent making dataclasses (``dataclasses._process_class``) and loading the SGLang table (the runner,
engine and rules are imported as a layer of their own, before the check that would import them on first use). ``python -c pass`` (the interpreter and
``site``) is timed the same way for reference. Bytecode is cached in a temp dir, as in ``bench_cold.py``.

    .venv/bin/python bench/cold_profile.py --runs 7
"""  # noqa: E501

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_cold import CLEAN

CHILD = r"""
import gc, json, sys, time
gc.disable()  # as autofix.cli.main does around the imports of a command line of paths
clock = time.process_time
t = {"start": clock()}
import dataclasses
made = [0.0]
_process = dataclasses._process_class
def timed(*a, **k):
    t0 = clock()
    try:
        return _process(*a, **k)
    finally:
        made[0] += clock() - t0
dataclasses._process_class = timed
import yaml
t["yaml"] = clock()
import autofix.cli.main
t["cli"] = clock()
made[0] = 0.0
import autofix.schema
_load = autofix.schema._load.__wrapped__
loaded = [0.0]
def load(version):
    t0 = clock()
    try:
        return _load(version)
    finally:
        loaded[0] += clock() - t0
autofix.schema._load = autofix.schema.cache(load)
"""

CHILD += r"""
import autofix.cli.checking
t["checking"] = clock()
import autofix.cli.runner, autofix.core.engine  # what the check imports on first use: the runner, the engine, the rules
gc.freeze()
gc.enable()
t["engine"] = clock()
dataclasses._process_class = _process
checking_dataclasses = made[0]
sys.argv = ["autofix", sys.argv[1]]
try:
    autofix.cli.main._run(sys.argv[1:])
except SystemExit as exit:
    assert exit.code == 0, exit.code
assert "typer" not in sys.modules and "click" not in sys.modules
t["run"] = clock()
keys = list(t)
out = {k: 1e3 * (t[k] - t[p]) for p, k in zip(keys, keys[1:])}
out["dataclasses"] = 1e3 * checking_dataclasses
out["SGLang table"] = 1e3 * loaded[0]
out["total after start"] = 1e3 * (t["run"] - t["start"])
print(json.dumps(out), file=sys.__stdout__)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="autofix-cold-") as tmp:
        path = os.path.join(tmp, "one.yaml")
        Path(path).write_text(CLEAN, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
        rows: list[dict[str, float]] = []
        base: list[float] = []
        for r in range(args.runs + 1):
            proc = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True, text=True, env=env,
                                  cwd=tmp, check=True)
            pas = subprocess.run([sys.executable, "-c", "import os, json; t = os.times(); "
                                  "print(json.dumps(1e3 * (t.user + t.system)))"],
                                 capture_output=True, text=True, env=env, cwd=tmp, check=True)
            if r:
                rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
                base.append(json.loads(pas.stdout))
    print(f"load average {os.getloadavg()[0]:.2f}; minimum of {args.runs} processes, CPU ms")
    print(f"{'interpreter and site (python -c pass)':<40} {min(base):7.1f}")
    labels = {"yaml": "import yaml (PyYAML)", "cli": "import autofix.cli.main",
              "checking": "import autofix.cli.checking", "engine": "import the runner, engine and rules",
              "run": "the check (config, read, rules, report)"}
    for key, label in labels.items():
        print(f"{label:<40} {min(r[key] for r in rows):7.1f}")
    for key in ("dataclasses", "SGLang table"):
        print(f"  of which {key:<31} {min(r[key] for r in rows):7.1f}")
    print(f"{'total after start':<40} {min(r['total after start'] for r in rows):7.1f}")


if __name__ == "__main__":
    main()
