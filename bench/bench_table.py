#!/usr/bin/env python
"""Issue 15's table in one run: autofix against yamllint and the CSafeLoader floor, whole commands.

    .venv/bin/python bench/bench_table.py                          # 10 000 files, 3 rounds
    .venv/bin/python bench/bench_table.py --n 2000 --rounds 1      # a quick look
    .venv/bin/python bench/bench_table.py --also before=/tmp/before/.venv/bin/autofix

Every figure is a whole process, timed by ``os.wait4`` (wall, CPU = user + system, peak RSS), the
commands taking turns in each round (a burst of load on the shared machine hits them all), the best
round kept. The processes run in the temp dir (no ``pyproject.toml`` or ``.yamllint`` up the tree), with
bytecode cached there (``PYTHONPYCACHEPREFIX``), as after a normal install. What is timed:

- **clean**: ``--n`` clean configs (``bench_configs.generate``, asserted clean by autofix first), in one
  directory: ``autofix -j 1 DIR``, ``autofix DIR`` (``-j`` defaults to all cores), ``yamllint DIR``
  (its default rules, ``-f parsable``) and the floor: one Python process that reads every file and
  ``yaml.load``s it with ``CSafeLoader`` (SGLang's own loader), and nothing else.
- **fixes**: the same files, each given one violation autofix fixes (``bench_configs.generate_fixable``:
  EP003, DEP001 or DEP002; asserted: every file gets a fix): ``autofix -j 1 DIR`` (report and
  print the diff) against the floor over those files.
- **memory**: peak RSS of ``autofix -j 1`` over an eighth of the clean files and over all of them
  (and the same for the fixes), and the growth per file between the two; then the same with the files
  laid out 100 to a directory (**tree**): a walk reads one directory's names whole, to sort them.
- **cold start**: ``bench_cold``'s rounds of ``autofix one-file.yaml``, ``yamllint`` and
  ``python -c pass`` (``--cold-runs``).

``--also NAME=PATH`` adds another autofix console script (a checkout of an older commit with its own
venv) to every autofix row, for before/after figures measured together. ``--json FILE`` writes the raw
figures. Issue 15's targets are printed beside the ratios; this script only reports, it never fails on
a missed target.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_cold  # noqa: E402
from bench_configs import autofix_commit, generate, generate_fixable  # noqa: E402

TIME = "/usr/bin/time"  # GNU time, for the peak RSS
FLOOR = r"""
import os, sys, yaml
for root, dirs, names in os.walk(sys.argv[1]):
    dirs.sort()
    for name in sorted(names):
        with open(os.path.join(root, name), encoding="utf-8") as f:
            yaml.load(f.read(), Loader=yaml.CSafeLoader)
"""

def measure(cmd: list[str], env: dict[str, str], cwd: str, ok: tuple[int, ...]) -> dict[str, float]:
    """Wall ms, CPU ms and peak RSS (MiB) of one run of ``cmd``; its exit code must be in ``ok``.

    The peak RSS comes from GNU time (``/usr/bin/time -f %M``): a child's own ``ru_maxrss`` counts the
    pages of this process it was forked from, before the exec.
    """
    rss_file = os.path.join(cwd, "rss")
    t0 = time.perf_counter()
    proc = subprocess.Popen([TIME, "-f", "%M %x", "-o", rss_file, *cmd], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, cwd=cwd)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - t0) * 1e3
    rss, code = (int(v) for v in Path(rss_file).read_text().split()[-2:])
    if code not in ok:
        raise SystemExit(f"{' '.join(cmd[:3])} ... exited {code}: {err.decode()[-800:]}")
    return {"wall": wall, "cpu": (usage.ru_utime + usage.ru_stime) * 1e3, "rss": rss / 1024}


def rounds(cmds: dict[str, tuple[list[str], tuple[int, ...]]], env, cwd, n: int) -> dict[str, dict[str, float]]:
    """Best (lowest) wall and CPU, and the highest peak RSS, of each command over ``n`` rounds, taking turns."""
    best: dict[str, dict[str, float]] = {}
    for _ in range(n):
        for name, (cmd, ok) in cmds.items():
            m = measure(cmd, env, cwd, ok)
            b = best.setdefault(name, m)
            b["wall"], b["cpu"], b["rss"] = min(b["wall"], m["wall"]), min(b["cpu"], m["cpu"]), max(b["rss"], m["rss"])
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="files (default 10 000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the many-file commands (default 3)")
    ap.add_argument("--cold-runs", type=int, default=30, help="rounds of the cold-start commands (default 30)")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=PATH",
                    help="another autofix console script, timed in the same rounds")
    ap.add_argument("--json", metavar="FILE", help="write the raw figures here")
    args = ap.parse_args()

    if not os.path.exists(TIME):
        raise SystemExit(f"{TIME} (GNU time) is needed for the peak RSS")
    bindir = Path(sys.executable).parent
    yamllint = bindir / "yamllint"
    if not yamllint.exists():
        raise SystemExit(f"no yamllint next to {sys.executable}: {bindir / 'pip'} install yamllint")
    autofixes = {"autofix": str(bindir / "autofix")}
    for spec in args.also:
        name, _, path = spec.partition("=")
        autofixes[name] = path
    # a build from before -j/--jobs (issue 15) runs on one core anyway
    one_core = {name: ["-j", "1"] if "--jobs" in subprocess.run([script, "--help"], capture_output=True,
                                                                 text=True).stdout else []
                for name, script in autofixes.items()}
    out: dict[str, object] = {"n": args.n, "seed": args.seed, "commit": autofix_commit(),
                              "python": platform.python_version(), "cpus": os.cpu_count()}

    with tempfile.TemporaryDirectory(prefix="autofix-table-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
        clean, fixes, eighth, tree, tree8 = (Path(tmp, d) for d in ("clean", "fixes", "eighth", "tree", "tree8"))
        for d in (clean, fixes, eighth):
            d.mkdir()
        paths, digest = generate(clean, args.n, args.seed)
        generate_fixable(fixes, args.n, args.seed)
        for p in paths[::8]:
            shutil.copy(p, eighth)
        for top, some in ((tree, paths), (tree8, paths[::8])):
            for i, p in enumerate(some):
                d = top / f"d{i // 100:04}"
                d.mkdir(parents=True, exist_ok=True)
                shutil.copy(p, d)
        print(f"{args.n} clean configs (seed {args.seed}, digest {digest}) and {args.n} that need a fix; "
              f"autofix at {out['commit']}; python {out['python']}, {out['cpus']} cpus; "
              f"load average {os.getloadavg()[0]:.2f}", flush=True)

        # preconditions: the clean files are clean, every other file gets a diff (one hunk each)
        for name, script in autofixes.items():
            m = subprocess.run([script, *one_core[name], str(clean)], capture_output=True, text=True, env=env, cwd=tmp)
            assert m.returncode == 0 and m.stdout == "", f"{name}: the clean files are not clean: {m.stdout[:500]}"
            m = subprocess.run([script, *one_core[name], "--output-format", "json", str(fixes)], capture_output=True,
                               text=True, env=env, cwd=tmp)
            found = json.loads(m.stdout)
            fixed = {d["filename"] for d in found if d.get("fix")}
            assert m.returncode == 1 and len(fixed) == args.n, f"{name}: {len(fixed)} of {args.n} files get a fix"

        floor = [sys.executable, "-c", FLOOR]
        cmds: dict[str, tuple[list[str], tuple[int, ...]]] = {}
        for name, script in autofixes.items():
            cmds[f"{name} -j 1"] = ([script, *one_core[name], str(clean)], (0,))
            if one_core[name]:
                cmds[f"{name} (all cores)"] = ([script, str(clean)], (0,))
        cmds["yamllint"] = ([str(yamllint), "-f", "parsable", str(clean)], (0, 1, 2))
        cmds["floor"] = ([*floor, str(clean)], (0,))
        for name, script in autofixes.items():
            cmds[f"{name} -j 1, fixes"] = ([script, *one_core[name], str(fixes)], (1,))
        cmds["floor, fixes"] = ([*floor, str(fixes)], (0,))
        for name, script in autofixes.items():
            cmds[f"{name} -j 1, 1/8 of the files"] = ([script, *one_core[name], str(eighth)], (0,))
            cmds[f"{name} -j 1, tree"] = ([script, *one_core[name], str(tree)], (0,))
            cmds[f"{name} -j 1, tree, 1/8 of the files"] = ([script, *one_core[name], str(tree8)], (0,))
        many = rounds(cmds, env, tmp, args.rounds)
        out["many"] = many

        one = os.path.join(tmp, "one.yaml")
        Path(one).write_text(bench_cold.CLEAN, encoding="utf-8")
        cold_cmds = {name: [script, one] for name, script in autofixes.items()}
        cold_cmds["yamllint"] = [str(yamllint), one]
        cold_cmds["python -c pass"] = [sys.executable, "-c", "pass"]
        cold = bench_cold._times(cold_cmds, env, args.cold_runs, tmp)
        out["cold"] = {name: {"wall": statistics.median(w for w, _ in ts), "cpu": statistics.median(c for _, c in ts)}
                       for name, ts in cold.items()}

    n = args.n
    print(f"\nload average {os.getloadavg()[0]:.2f}; best of {args.rounds} rounds (wall and CPU each)\n")
    print("| command | wall s | CPU s | µs/file (CPU) | peak RSS MiB |")
    print("|---|---:|---:|---:|---:|")
    for name, m in many.items():
        files = n // 8 + (n % 8 > 0) if "1/8" in name else n
        print(f"| {name} | {m['wall'] / 1e3:.2f} | {m['cpu'] / 1e3:.2f} | {m['cpu'] * 1e3 / files:.0f} | {m['rss']:.1f} |")
    print()
    fl, fl_fix, yl = many["floor"], many["floor, fixes"], many["yamllint"]
    for name in autofixes:
        a, a_fix, a8 = many[f"{name} -j 1"], many[f"{name} -j 1, fixes"], many[f"{name} -j 1, 1/8 of the files"]
        a_all = many.get(f"{name} (all cores)", a)
        e8 = n // 8 + (n % 8 > 0)
        print(f"{name}:")
        print(f"  clean, -j 1 / floor: {a['cpu'] / fl['cpu']:.2f}x CPU, {a['wall'] / fl['wall']:.2f}x wall"
              "   (target <= 2x)")
        cores = f"; / all cores: {yl['wall'] / a_all['wall']:.2f}x wall" if a_all is not a else ""
        print(f"  yamllint / clean -j 1: {yl['cpu'] / a['cpu']:.2f}x CPU, {yl['wall'] / a['wall']:.2f}x wall"
              f"{cores}   (target >= 5x)")
        if a_all is not a:
            print(f"  -j speed-up on {os.cpu_count()} cores: {a['wall'] / a_all['wall']:.2f}x wall")
        print(f"  fixes, -j 1 / floor: {a_fix['cpu'] / fl_fix['cpu']:.2f}x CPU   (target <= 10x)")
        grow = (a["rss"] - a8["rss"]) * 1024 * 1024 / (n - e8) if n > e8 else 0.0
        print(f"  peak RSS: {a8['rss']:.1f} MiB over {e8} files, {a['rss']:.1f} MiB over {n}: "
              f"{grow:+.0f} bytes/file (target: flat); with fixes {a_fix['rss']:.1f} MiB")
        t, t8 = many[f"{name} -j 1, tree"], many[f"{name} -j 1, tree, 1/8 of the files"]
        grow = (t["rss"] - t8["rss"]) * 1024 * 1024 / (n - e8) if n > e8 else 0.0
        print(f"  peak RSS, 100 files a directory: {t8['rss']:.1f} MiB over {e8} files, {t['rss']:.1f} MiB over "
              f"{n}: {grow:+.0f} bytes/file")
    c = out["cold"]
    print(f"\ncold start, median of {args.cold_runs} (wall / CPU ms): "
          + ", ".join(f"{k} {v['wall']:.1f} / {v['cpu']:.1f}" for k, v in c.items()))
    for name in autofixes:
        print(f"  {name} / yamllint: {c[name]['wall'] / c['yamllint']['wall']:.2f}x wall   "
              f"(target: <= 120 ms and below yamllint)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
