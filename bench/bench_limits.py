#!/usr/bin/env python
"""Time and peak memory of ``autofix`` on large and hostile inputs of every format: shell, Dockerfile, manifest,
compose, srt-slurm, YAML config and ``explain``.

    python bench/bench_limits.py [--timeout 120] [--mem-gb 4] [--only NAME ...] [--exe PATH] [--keep]

A benchmark, not a test (``bench_yaml_limits.py`` has the YAML limits' own shapes). It writes one file per shape
into a temp dir, runs the ``autofix`` console script (next to ``sys.executable``, or ``--exe``: an older build's)
on it under ``/usr/bin/time -f '%e s %M KB'`` (wall time, peak RSS), and prints one row per shape: size, seconds,
peak RSS, exit code and the first line autofix wrote to stderr (the error, or the summary). Each run is killed
after ``--timeout`` seconds and limited to ``--mem-gb`` of address space, so an old autofix that blows up on a
shape is reported as such (a run that dies of the address-space cap shows its signal or ``MemoryError``).

The shapes (``SHAPES``): the issue's reproducers (40 000 nested ``{ ``, 20 000 nested ``"$(echo``, 64 MiB of
comments after a launch, 99 000 unknown YAML keys), the same nesting in a ``bash -c`` word, a Dockerfile ``RUN``,
a Kubernetes ``sh -c`` script and a compose string; scripts at the size bound (the densest parse tree: ``a`` on
each line), one past it; long ``&&`` chains, ``#`` repairs, heredocs, many launches and long launches; Dockerfiles
of many instructions or comments; a million short YAML keys; a config half of whose keys are unknown; and
``explain`` on 64 MiB of text.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_yaml_limits import _limit  # noqa: E402  (the address-space cap of each run)

MB = 1024 * 1024
LAUNCH = "python3 -m sglang.launch_server --model-path m --tp 8\n"


def _braces(n: int) -> str:
    return "{ " * n + "true; " + "}; " * n


def _substs(n: int) -> str:
    return "echo " + '"$(echo ' * n + "x" + ')"' * n


def _lines(size: int) -> str:
    """A script of ``size`` characters: a launch, then ``a`` lines (about three parse-tree nodes a byte pair)."""
    return LAUNCH + "a\n" * ((size - len(LAUNCH)) // 2)


def _dockerfile(body: str) -> str:
    return "FROM lmsysorg/sglang:v0.5.23\n" + body + 'CMD ["python3", "-m", "sglang.launch_server", "--tp", "8"]\n'


def _yaml_quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _k8s(script: str) -> str:
    return ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: s\nspec:\n  containers:\n    - name: s\n"
            "      image: lmsysorg/sglang:v0.5.23\n      command: [sh, -c]\n"
            f"      args: [{_yaml_quoted(script)}]\n")


def _compose(script: str) -> str:
    return f"services:\n  s:\n    image: lmsysorg/sglang:v0.5.23\n    command: {_yaml_quoted(script)}\n"


def _unknown_config(n: int, known: bool) -> str:
    keys = "".join(f"xk{i:06d}: 1\n" for i in range(n))
    return ("tp-size: 8\n" + "".join(f"host: h{i}\n" for i in range(n + 1)) + keys) if known else "tp-size: 8\n" + keys


def _traceback(size: int) -> str:
    frame = '  File "/usr/lib/python3/site-packages/sglang/srt/server_args.py", line 1234, in check_server_args\n'
    return "Traceback (most recent call last):\n" + frame * (size // len(frame)) + "ValueError: tp size must be 8\n"


# name: (file name, text maker, extra arguments before the file ("-" reads it on stdin))
SHAPES: dict[str, tuple[str, callable, tuple[str, ...]]] = {
    # the reproducers
    "sh-braces-40k": ("b.sh", lambda: LAUNCH + _braces(40_000) + "\n", ()),
    "sh-substs-20k": ("b.sh", lambda: LAUNCH + _substs(20_000) + "\n", ()),
    "sh-comments-64MB": ("s.sh", lambda: LAUNCH + "# c\n" * (16 * MB - 20), ()),
    "yaml-unknown-99k": ("u.yaml", lambda: _unknown_config(99_000, False), ()),
    # nesting elsewhere: within and past the bound
    "sh-braces-300": ("b.sh", lambda: LAUNCH + _braces(300) + "\n", ()),
    "sh-substs-200-launch": ("b.sh", lambda: "echo " + '"$(python3 -m sglang.launch_server --tp 8 ' * 200
                             + ')"' * 200 + "\n", ()),
    "sh-and-chain-20k": ("b.sh", lambda: LAUNCH + " && ".join(["a"] * 20_000) + "\n", ()),
    "bash-c-braces-40k": ("b.sh", lambda: "bash -c '" + LAUNCH + _braces(40_000) + "'\n", ()),
    "df-run-braces-40k": ("Dockerfile", lambda: _dockerfile("RUN <<EOF\n" + "{\n" * 40_000 + "true\n" + "}\n" * 40_000
                                                            + "EOF\n"), ()),
    "k8s-sh-c-braces-40k": ("m.yaml", lambda: _k8s(LAUNCH + _braces(40_000)), ()),
    "compose-braces-40k": ("compose.yaml", lambda: _compose(LAUNCH + _braces(40_000)), ()),
    # size: the densest tree at and past the bound, and big files
    "sh-lines-1MB": ("s.sh", lambda: _lines(MB), ()),
    "sh-lines-4MB": ("s.sh", lambda: _lines(4 * MB), ()),
    "sh-lines-64MB": ("s.sh", lambda: _lines(64 * MB - 1), ()),
    "sh-hashes-1MB": ("s.sh", lambda: LAUNCH + "x#y\n" * (MB // 4 - 20), ()),
    "sh-heredocs-1MB": ("s.sh", lambda: LAUNCH + "cat <<EOF\nx\nEOF\n" * (MB // 16 - 4), ()),
    "sh-launches-10k": ("s.sh", lambda: LAUNCH * 10_000, ()),
    "sh-launch-100k-words": ("s.sh", lambda: LAUNCH.rstrip("\n") + " --tp 8" * 100_000 + "\n", ()),
    "sh-launch-50k-unknown": ("s.sh", lambda: LAUNCH.rstrip("\n") + "".join(f" --xk{i:06d} 1" for i in range(50_000))
                              + "\n", ()),
    "df-comments-64MB": ("Dockerfile", lambda: _dockerfile("# c\n" * (16 * MB - 30)), ()),
    "df-runs-1M": ("Dockerfile", lambda: _dockerfile("RUN a\n" * 1_000_000), ()),
    "df-continued-1M": ("Dockerfile", lambda: _dockerfile("RUN a \\\n" + " a \\\n" * 1_000_000 + " a\n"), ()),
    "k8s-script-64MB": ("m.yaml", lambda: _k8s(LAUNCH + "# c\n" * (16 * MB - 40)), ()),
    # YAML
    "yaml-keys-1M": ("c.yaml", lambda: "tp-size: 8\n" + "".join(f"k{i}: 1\n" for i in range(1_000_000)), ()),
    "yaml-config-unknown-49k": ("c.yaml", lambda: _unknown_config(49_000, True), ()),
    # explain
    "explain-64MB": ("e.txt", lambda: _traceback(64 * MB - 100), ("explain", "-")),
    "explain-line-64MB": ("e.txt", lambda: "ValueError: " + "x" * (64 * MB - 100), ("explain", "-")),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--mem-gb", type=float, default=4.0)
    ap.add_argument("--only", nargs="*", default=None, help="shape names (default: all)")
    ap.add_argument("--exe", default=str(Path(sys.executable).with_name("autofix")), help="the autofix to run")
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="autofix-limits-"))
    print(f"load average {os.getloadavg()[0]:.2f}; timeout {args.timeout:.0f} s; address space {args.mem_gb} GB")
    print(f"{'shape':<24} {'size':>9} {'time':>9} {'peak RSS':>10} {'exit':>4}  first stderr line")
    try:
        for name, (filename, make, extra) in SHAPES.items():
            if args.only and name not in args.only:
                continue
            path = tmp / name / filename
            path.parent.mkdir()
            path.write_text(make())
            size = path.stat().st_size
            stdin = extra[-1:] == ("-",)
            cmd = ["/usr/bin/time", "-f", "%e s %M KB", args.exe, *extra, *(() if stdin else (path.name,))]
            with open(path, "rb") as given:
                proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        cwd=path.parent, stdin=given if stdin else subprocess.DEVNULL,
                                        preexec_fn=_limit(args.mem_gb), start_new_session=True)
                try:
                    stdout, stderr = proc.communicate(timeout=args.timeout)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)  # autofix too, not only /usr/bin/time
                    proc.communicate()
                    stdout = None
            if stdout is None:
                print(f"{name:<24} {size / MB:>7.1f}MB {'>' + str(int(args.timeout)) + ' s':>9} {'-':>10} {'-':>4}  "
                      "killed")
                continue
            lines = stderr.strip().splitlines()
            seconds, _, kb, _ = lines[-1].split() if lines and lines[-1].endswith(" KB") else ("?", "", "0", "")
            first = next((line for line in lines[:-1] if line.strip() and not line.startswith("Command ")), "")
            if not first:
                first = next((line for line in stdout.splitlines() if line.strip()), "")
            print(f"{name:<24} {size / MB:>7.1f}MB {seconds + ' s':>9} {int(kb) // 1024:>7} MB {proc.returncode:>4}  "
                  f"{first[:100]}", flush=True)
    finally:
        if args.keep:
            print(f"files kept in {tmp}")
        else:
            shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
