#!/usr/bin/env python
"""Time and peak memory of ``autofix FILE`` on large and hostile YAML inputs.

    python bench/bench_yaml_limits.py [--timeout 120] [--mem-gb 6] [--only NAME ...] [--keep]

A benchmark, not a test: it writes one file per shape into a temp dir, runs
the ``autofix`` console script next to ``sys.executable`` on each under
``/usr/bin/time -f '%e s %M KB'`` (wall time, peak RSS), and prints one row
per shape: size, seconds, peak RSS, exit code and the first line autofix
wrote to stderr (the error, or the summary). Each run is killed after
``--timeout`` seconds and limited to ``--mem-gb`` of address space, so an
old autofix that blows up on a shape is reported as such rather than
taking the machine down.

The shapes (see ``SHAPES``): what the YAML limits (``autofix/common/limits.py``)
must refuse fast (alias bombs in each YAML format, a recursive alias, 100 000
levels of nesting, 3.5 M keys, an 8 M-item list), what they must read
(400 levels, ~100 k values in a config, a big manifest), and large inputs
that were already fine (50 MB of comments, one 50 MB scalar).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MB = 1024 * 1024


def _bomb(levels: int = 9, width: int = 10) -> str:
    """``a0: &a0 [x, x, ...]``, ``a1: &a1 [*a0, *a0, ...]``, ...: ``width ** levels`` values."""
    lines = ["a0: &a0 [" + ", ".join(["x"] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def _indent(text: str, n: int) -> str:
    return "".join(" " * n + line for line in text.splitlines(keepends=True))


def _nested(depth: int) -> str:
    return "cuda-graph-bs-decode: " + "[" * depth + "1" + "]" * depth + "\ntp-size: 8\n"


def _manifest_doc(i: int) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang-{i}
  labels: {{app: sglang, shard: "{i}"}}
spec:
  replicas: 1
  selector:
    matchLabels: {{app: sglang-{i}}}
  template:
    metadata:
      labels: {{app: sglang-{i}}}
    spec:
      containers:
        - name: server
          image: lmsysorg/sglang:v0.5.23
          command: [python3, -m, sglang.launch_server]
          args: [--model-path, /models/llama, --tp-size, "8", --port, "{30000 + i % 1000}", --host, 0.0.0.0]
          ports: [{{containerPort: 30000}}]
          resources: {{limits: {{nvidia.com/gpu: 8}}}}
"""


SHAPES: dict[str, tuple[str, callable]] = {
    # large, but nothing for the limits to refuse
    "comments-50MB": ("c.yaml", lambda: "tp-size: 8\n" + "# host: 0.0.0.0 is the default, port 30000\n" * (50 * MB // 43)),
    "one-scalar-50MB": ("c.yaml", lambda: "tp-size: 8\nserved-model-name: " + "x" * (50 * MB) + "\n"),
    # over the node limit
    "keys-3.5M": ("c.yaml", lambda: "tp-size: 8\n" + "host: 0.0.0.0\n" * 3_500_000),
    "list-8M": ("c.yaml", lambda: "tp-size: 8\ncuda-graph-bs-decode:\n" + "  - 16\n" * 8_000_000),
    # under the limits: ~100 k values
    "list-100k": ("c.yaml", lambda: "tp-size: 8\ncuda-graph-bs-decode:\n" + "  - 16\n" * 99_000),
    "list-at-limit": ("c.yaml", lambda: "tp-size: 8\ncuda-graph-bs-decode:\n" + "  - 16\n" * 199_995),
    "keys-50k": ("c.yaml", lambda: "tp-size: 8\n" + "host: 0.0.0.0\n" * 49_000),
    "manifest-2500-docs": ("m.yaml", lambda: "---\n".join(_manifest_doc(i) for i in range(2500))),
    "depth-400": ("c.yaml", lambda: _nested(399)),  # the root mapping is level 1
    # refused
    "depth-100000": ("c.yaml", lambda: _nested(100_000)),
    "bomb-config": ("c.yaml", lambda: "tp-size: 8\n" + _bomb()),
    "bomb-srt-slurm": ("r.yaml", lambda: "x-bomb:\n" + _indent(_bomb(), 2)
                       + "backend:\n  sglang_config:\n    prefill:\n      tp-size: 8\n      x: *a8\n"),
    "bomb-manifest-args": ("m.yaml", lambda: "x-bomb:\n" + _indent(_bomb(25, 2), 2)
                           + "spec:\n  containers:\n    - name: s\n      command: [python3, -m, sglang.launch_server]\n"
                           "      args: *a24\n"),
    "recursive-alias": ("c.yaml", lambda: "tp-size: 8\ncuda-graph-bs-decode: &a [*a]\n"),
}


def _limit(mem_gb: float):
    def set_limit() -> None:
        cap = int(mem_gb * 1024 * MB)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    return set_limit


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--mem-gb", type=float, default=6.0)
    ap.add_argument("--only", nargs="*", default=None, help="shape names (default: all)")
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    args = ap.parse_args(argv)
    exe = Path(sys.executable).with_name("autofix")
    tmp = Path(tempfile.mkdtemp(prefix="autofix-yaml-limits-"))
    print(f"load average {os.getloadavg()[0]:.2f}; timeout {args.timeout:.0f} s; address space {args.mem_gb} GB")
    print(f"{'shape':<20} {'size':>9} {'time':>9} {'peak RSS':>10} {'exit':>4}  first stderr line")
    try:
        for name, (filename, make) in SHAPES.items():
            if args.only and name not in args.only:
                continue
            path = tmp / name / filename
            path.parent.mkdir()
            path.write_text(make())
            size = path.stat().st_size
            cmd = ["/usr/bin/time", "-f", "%e s %M KB", str(exe), str(path)]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                                      preexec_fn=_limit(args.mem_gb))
            except subprocess.TimeoutExpired:
                print(f"{name:<20} {size / MB:>7.1f}MB {'>' + str(int(args.timeout)) + ' s':>9} {'-':>10} {'-':>4}  killed")
                continue
            lines = proc.stderr.strip().splitlines()
            seconds, _, kb, _ = lines[-1].split() if lines and lines[-1].endswith(" KB") else ("?", "", "0", "")
            first = next((line for line in lines[:-1] if line.strip()), "")
            first = first.replace(str(tmp) + "/", "")
            print(f"{name:<20} {size / MB:>7.1f}MB {seconds + ' s':>9} {int(kb) // 1024:>7} MB {proc.returncode:>4}  "
                  f"{first[:110]}")
    finally:
        if args.keep:
            print(f"files kept in {tmp}")
        else:
            shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
