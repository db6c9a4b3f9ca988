#!/usr/bin/env python
"""Benchmark autofix on many clean SGLang ``--config`` YAML files.

    python bench/bench_configs.py [--n 2000] [--seed 0] [--profile] [--repeats 3] [--keep]

A benchmark, not a test: it prints numbers and fails only when its own
preconditions fail (the generated files must be clean, valid configs).

1. Generates ``--n`` clean, realistic SGLang ``--config`` files (8-25 keys,
   comments, blank lines, consistent MoE / expert-parallel settings) into a
   temp dir, deterministically from ``--seed``, and asserts that autofix finds
   nothing in them and that every key is an SGLang option.
2. Times, in this process:
   (a) ``autofix.cli.runner.run(paths, Mode.DIFF, ...)`` over all files, the work
       behind ``autofix FILE...`` -- best of 3 after one warm-up;
   (b) the floor: read each file and ``yaml.load(text, Loader=yaml.CSafeLoader)``
       (SGLang's own loader) -- best of 3 after one warm-up;
   and prints totals, microseconds per file and the ratio (a)/(b). (a) and (b)
   take turns in each round, so a burst of load hits both.
3. Cold start: median of 15 subprocess runs of ``autofix <one clean file>``
   (the console script next to ``sys.executable``) and of ``python -c pass``,
   taking turns. Under ``PYTHONDONTWRITEBYTECODE`` it also measures both with
   bytecode cached in a temp dir (``PYTHONPYCACHEPREFIX``), as after a normal install.
4. ``--synthetic-rules N`` (default 400): (a) again with N synthetic settings
   rules added, spread over every SGLang step (each reads one or two
   settings and finds nothing, as a rule does on a clean config), taking
   turns with (a) as it ships; prints the growth of the per-file cost.
5. (e) files that need fixes: each clean file plus one line that autofix fixes
   (``FIXABLE``: static EP dispatch without an a2a backend, a deprecated option
   or value), checked in DIFF mode (the diff rendered), against the floor over
   the same files; asserts that autofix reports a fix for every file.
6. (f) yamllint (``extends: default``, in this process) over the clean files,
   when it is installed: how many times faster autofix's (a) is.
7. ``--profile``: the top 25 functions by cumulative time of one run of (a), and
   of (e), and the top 25 of each by their own time.

Targets (see bench/README.md): ratio <= 2x, one-file start <= 120 ms, per-file
cost with 400 more rules <= +20 %, files that need fixes <= 10x the floor, yamllint
/ autofix >= 5x.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import os
import platform
import pstats
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from autofix.adapters import yaml_config
from autofix.cli.runner import Mode, run
from autofix.schema import load

REPEATS = 3
COLD_RUNS = 15
MIN_KEYS, MAX_KEYS = 8, 25

# (model path, is MoE, tool-call parser, reasoning parser, MLA attention)
MODELS = (
    ("deepseek-ai/DeepSeek-V3", True, "deepseekv3", "deepseek-v3", True),
    ("deepseek-ai/DeepSeek-R1-0528", True, "deepseekv3", "deepseek-r1", True),
    ("Qwen/Qwen3-235B-A22B-Instruct-2507", True, "qwen", "qwen3", False),
    ("Qwen/Qwen3-30B-A3B", True, "qwen", "qwen3", False),
    ("moonshotai/Kimi-K2-Instruct", True, "kimi_k2", "kimi_k2", True),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", True, "mistral", None, False),
    ("zai-org/GLM-4.5-Air", True, "glm", "glm45", False),
    ("Qwen/Qwen2.5-72B-Instruct", False, "qwen", None, False),
    ("meta-llama/Llama-3.1-70B-Instruct", False, "llama3", None, False),
    ("meta-llama/Llama-3.1-8B-Instruct", False, "llama3", None, False),
    ("/models/llama-3.3-70b-instruct", False, "llama3", None, False),
    ("/mnt/weights/qwen3-32b", False, "qwen", "qwen3", False),
)

Entry = tuple[str, Any, str | None, bool]  # key, value, inline comment, droppable


# --------------------------------------------------------------------------
# generation
# --------------------------------------------------------------------------


def _config(rng: random.Random, index: int) -> tuple[list[tuple[str, list[Entry]]], str]:
    """Sections of (key, value, inline comment, droppable) and the model name."""
    model, moe, tool_parser, reasoning_parser, mla = rng.choice(MODELS)
    p = rng.random

    sec_model: list[Entry] = [("model-path", model, None, False)]
    if p() < 0.4:
        sec_model.append(("served-model-name", model.rsplit("/", 1)[-1].lower(), None, True))
    if p() < 0.1:
        sec_model.append(("tokenizer-path", model, None, True))
    if p() < 0.5:
        sec_model.append(("trust-remote-code", True, None, True))
    if p() < 0.3:
        sec_model.append(("dtype", rng.choice(["auto", "bfloat16", "float16"]), None, True))
    if p() < 0.2:
        sec_model.append(("kv-cache-dtype", rng.choice(["auto", "fp8_e4m3", "fp8_e5m2"]), None, True))
    if p() < 0.15:
        sec_model.append(("quantization", rng.choice(["fp8", "awq", "gptq"]), None, True))
    if p() < 0.3:
        sec_model.append(("context-length", rng.choice([8192, 32768, 65536, 131072]), None, True))

    tp = rng.choice([8, 8, 8, 4, 16] if moe else [1, 1, 2, 4, 8])
    sec_par: list[Entry] = []
    if p() < 0.9 or tp > 1:
        sec_par.append(("tp-size", tp, rng.choice([None, None, "tensor parallel"]), False))
    dp = rng.choice([1, 2, 4]) if p() < 0.2 and tp < 16 else None
    if dp is not None:
        sec_par.append(("dp-size", dp, None, False))
    # two nodes only where TP spans them and without DP replicas (SGLang runs replicas on one node)
    if tp == 16 or (p() < 0.05 and tp % 2 == 0 and (dp or 1) == 1):
        rank = rng.choice([0, 1])
        sec_par += [("nnodes", 2, None, False), ("node-rank", rank, None, False),
                    ("dist-init-addr", f"10.0.{rng.randrange(256)}.{rng.randrange(1, 255)}:5000", None, False)]

    sec_moe: list[Entry] = []
    if moe:
        if p() < 0.45:  # DeepEP: ep_size follows tp_size; static dispatch is allowed
            sec_moe.append(("moe-a2a-backend", "deepep", None, False))
            if p() < 0.7:
                sec_moe.append(("deepep-mode", rng.choice(["auto", "normal", "low_latency"]), None, False))
            if p() < 0.5:
                sec_moe.append(("ep-size", tp, "deepep makes it tp-size anyway", False))
            if p() < 0.6:
                sec_moe.append(("ep-dispatch-algorithm", rng.choice(["static", "dynamic"]), None, False))
            if tp > 1 and p() < 0.5:
                sec_moe.append(("enable-eplb", True, None, False))
                if p() < 0.6:
                    sec_moe.append(("ep-num-redundant-experts", rng.choice([0, 8, 16, 32]), None, False))
                if p() < 0.5:
                    sec_moe.append(("eplb-rebalance-num-iterations", rng.choice([500, 1000, 2000]), None, False))
            if p() < 0.3:
                sec_moe.append(("moe-runner-backend", rng.choice(["auto", "deep_gemm"]), None, False))
        else:  # no a2a backend: only dynamic dispatch; EPLB only with ep_size > 1
            if p() < 0.6:
                sec_moe.append(("moe-a2a-backend", "none", None, False))
            ep = rng.choice([1, tp]) if tp > 1 else 1
            if ep > 1 or p() < 0.3:
                sec_moe.append(("ep-size", ep, None, False))
            if p() < 0.3:
                sec_moe.append(("ep-dispatch-algorithm", "dynamic", None, False))
            if ep > 1 and p() < 0.4:
                sec_moe.append(("enable-eplb", True, None, False))
                if p() < 0.5:
                    sec_moe.append(("ep-num-redundant-experts", rng.choice([0, 8, 16]), None, False))
            elif p() < 0.05:
                sec_moe.append(("enable-eplb", False, "not with ep-size 1", False))
            if p() < 0.3:
                runner = rng.choice(["auto", "triton", "flashinfer_cutlass"])
                if runner == "flashinfer_cutlass" and any(k == "quantization" for k, *_ in sec_model):
                    runner = "triton"  # flashinfer_cutlass runs none of fp8/awq/gptq (RUN005)
                sec_moe.append(("moe-runner-backend", runner, None, False))

    sec_mem: list[Entry] = []
    if p() < 0.8:
        sec_mem.append(("mem-fraction-static", round(rng.uniform(0.70, 0.92), 2), None, True))
    if p() < 0.6:
        sec_mem.append(("chunked-prefill-size", rng.choice([2048, 4096, 8192, 16384]), None, True))
    if p() < 0.5:
        sec_mem.append(("max-running-requests", rng.choice([64, 128, 256, 512, 1024]), None, True))
    if p() < 0.2:
        sec_mem.append(("max-total-tokens", rng.choice([200000, 400000, 800000]), None, True))
    if p() < 0.2:
        sec_mem.append(("max-prefill-tokens", rng.choice([8192, 16384, 32768]), None, True))
    if p() < 0.3:
        sec_mem.append(("schedule-policy", rng.choice(["fcfs", "lpm", "dfs-weight"]), None, True))
    if p() < 0.1:
        sec_mem.append(("schedule-conservativeness", rng.choice([0.3, 0.8, 1.0, 1.3]), None, True))
    if p() < 0.2:
        sec_mem.append(("page-size", rng.choice([1, 16, 32, 64]), None, True))
    if p() < 0.1:
        sec_mem.append(("disable-radix-cache", True, None, True))
    if p() < 0.1:
        sec_mem.append(("enable-mixed-chunk", True, None, True))

    sec_kern: list[Entry] = []
    if p() < 0.6:
        choices = ["flashmla", "fa3", "triton", "trtllm_mla"] if mla else ["fa3", "flashinfer", "triton"]
        backend = rng.choice(choices)
        if backend == "fa3" and ("kv-cache-dtype", "fp8_e5m2", None, True) in sec_model:
            backend = "triton"  # SGLang runs Triton for FA3 with an fp8_e5m2 KV cache (SPEC120): not clean
        sec_kern.append(("attention-backend", backend, None, True))
    if p() < 0.2:
        sec_kern.append(("sampling-backend", rng.choice(["flashinfer", "pytorch"]), None, True))
    if p() < 0.5:
        sec_kern.append(("cuda-graph-max-bs-decode", rng.choice([8, 32, 64, 128, 256, 512]), None, True))
    if p() < 0.1:
        n = rng.randint(3, 7)
        sec_kern.append(("cuda-graph-bs-decode", [2**i for i in range(n)], None, True))
    if p() < 0.1:
        sec_kern.append(("enable-torch-compile", True, None, True))
    if p() < 0.2:
        sec_kern.append(("grammar-backend", rng.choice(["xgrammar", "llguidance"]), None, True))

    sec_srv: list[Entry] = []
    if p() < 0.7:
        sec_srv.append(("host", rng.choice(["0.0.0.0", "127.0.0.1"]), None, True))
    if p() < 0.7:
        sec_srv.append(("port", 30000 + rng.randrange(16), None, True))
    if p() < 0.3:
        sec_srv.append(("log-level", rng.choice(["info", "warning", "debug"]), None, True))
    if p() < 0.4:
        sec_srv.append(("enable-metrics", True, "Prometheus /metrics", True))
    if p() < 0.1:
        sec_srv.append(("api-key", f"sk-{rng.getrandbits(64):016x}", None, True))
    if p() < 0.2:
        sec_srv.append(("tool-call-parser", tool_parser, None, True))
    if reasoning_parser and p() < 0.2:
        sec_srv.append(("reasoning-parser", reasoning_parser, None, True))
    if p() < 0.1:
        sec_srv.append(("watchdog-timeout", rng.choice([300, 600, 900]), None, True))
    if p() < 0.2:
        sec_srv.append(("random-seed", rng.randrange(1 << 16), None, True))
    if p() < 0.1:
        sec_srv.append(("stream-interval", rng.choice([1, 2, 4, 8]), None, True))

    sections = [("model", sec_model), ("parallelism", sec_par), ("MoE / expert parallelism", sec_moe),
                ("memory and scheduling", sec_mem), ("kernels", sec_kern), ("server", sec_srv)]

    filler = [("decode-log-interval", 40), ("skip-server-warmup", True), ("enable-cache-report", True),
              ("log-level", "info"), ("enable-metrics", True), ("host", "0.0.0.0"), ("port", 30000),
              ("mem-fraction-static", 0.85), ("stream-interval", 1), ("random-seed", 42),
              ("max-running-requests", 256), ("schedule-policy", "fcfs")]
    keys = {e[0] for _, s in sections for e in s}
    while sum(len(s) for _, s in sections) < MIN_KEYS:
        key, value = next(f for f in filler if f[0] not in keys)
        keys.add(key)
        sec_srv.append((key, value, None, True))
    while sum(len(s) for _, s in sections) > MAX_KEYS:
        sec = rng.choice([s for _, s in sections if any(e[3] for e in s)])
        sec.remove(rng.choice([e for e in sec if e[3]]))
    return sections, model


def _scalar(value: Any, rng: random.Random) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    needs_quotes = text in ("true", "false", "null", "yes", "no", "on", "off") or ":" in text
    if needs_quotes or rng.random() < 0.1:  # some people quote every string
        return rng.choice(['"%s"', "'%s'"]) % text
    return text


def render(index: int, seed: int) -> tuple[str, dict[str, Any]]:
    """The text of config ``index`` and the mapping it must load as."""
    rng = random.Random(f"{seed}:{index}")
    sections, model = _config(rng, index)
    lines = [f"# SGLang server config for {model}", f"# launch: python -m sglang.launch_server --config cfg_{index:05d}.yaml"]
    if rng.random() < 0.3:
        lines.append("# owner: inference-platform; keep in sync with the deployment manifest")
    expected: dict[str, Any] = {}
    for title, entries in sections:
        if not entries:
            continue
        lines.append("")
        if rng.random() < 0.8:
            lines.append(f"# {title}")
        for key, value, comment, _ in entries:
            expected[key] = value
            if isinstance(value, list) and rng.random() < 0.5:
                lines.append(f"{key}:")
                lines.extend(f"  - {v}" for v in value)
                continue
            text = "[" + ", ".join(str(v) for v in value) + "]" if isinstance(value, list) else _scalar(value, rng)
            line = f"{key}: {text}"
            if comment:
                line += f"  # {comment}"
            lines.append(line)
            if rng.random() < 0.04:
                lines.append("")
    return "\n".join(lines) + "\n", expected


# One line each that autofix reports and fixes, appended to a clean file: (line, keys the file must not write for
# the line to be the file's one violation). A file takes the first of them, from its index on, that it can.
FIXABLE = (
    ("ep-dispatch-algorithm: static", ("ep-dispatch-algorithm", "moe-a2a-backend")),  # EP003: needs an a2a backend
    ("disable-fast-image-processor: true", ("image-processor-backend",)),  # DEP001 -> image-processor-backend: pil
    ("tool-call-parser: qwen25", ("tool-call-parser",)),  # DEP002 -> qwen
    ("grpc-mode: true", ("smg-grpc-mode",)),  # DEP001 -> smg-grpc-mode
    ("disable-cuda-graph: true", ("cuda-graph-backend-decode", "cuda-graph-backend-prefill")),  # DEP001
)


def render_fixable(index: int, seed: int) -> str:
    """Clean config ``index`` plus one line from ``FIXABLE`` that autofix fixes."""
    text, expected = render(index, seed)
    for k in range(len(FIXABLE)):
        line, absent = FIXABLE[(index + k) % len(FIXABLE)]
        if not any(key in expected for key in absent):
            return text + line + "\n"
    raise AssertionError(f"generator bug: no fixable line fits config {index}")


def generate_fixable(directory: Path, n: int, seed: int) -> list[str]:
    """Write ``n`` configs that need one fix each (``render_fixable``); return their paths."""
    paths = []
    for i in range(n):
        path = directory / f"fix_{i:05d}.yaml"
        path.write_text(render_fixable(i, seed), encoding="utf-8")
        paths.append(str(path))
    return paths


def generate(directory: Path, n: int, seed: int) -> tuple[list[str], str]:
    """Write ``n`` configs; return their paths and a digest of their bytes."""
    schema = load()
    digest = hashlib.sha256()
    paths = []
    for i in range(n):
        text, expected = render(i, seed)
        for key, value in expected.items():  # the generator only writes real, accepted options
            option = schema.by_flag.get(f"--{key}")
            assert option is not None, f"generator bug: --{key} is no SGLang option"
            assert option.config_file != "refused", f"generator bug: {key} is refused in --config files"
            if option.choices and not isinstance(value, (bool, list)):
                assert value in option.choices, f"generator bug: {key}: {value!r} not in choices"
        assert MIN_KEYS <= len(expected) <= MAX_KEYS, f"generator bug: {len(expected)} keys"
        loaded = yaml.load(text, Loader=yaml.CSafeLoader)
        assert loaded == expected, f"generator bug: cfg {i} loads as {loaded}, not {expected}"
        path = directory / f"cfg_{i:05d}.yaml"
        path.write_text(text, encoding="utf-8")
        digest.update(text.encode("utf-8"))
        paths.append(str(path))
    return paths, digest.hexdigest()[:16]


# --------------------------------------------------------------------------
# measurement
# --------------------------------------------------------------------------


def autofix_once(paths: list[str]):
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    rep = run(paths, Mode.DIFF, out=out, err=err)
    return time.perf_counter() - t0, rep, out.getvalue(), err.getvalue()


def synthetic_rules(n: int) -> tuple:
    """``n`` settings rules over every step of the schema, each reading one or two settings, none firing."""
    from autofix.common.diagnostics import Violation
    from autofix.pipeline.items import Position, SettingsRule

    schema = load()
    steps = [s for s in schema.steps]
    dests = [o.dest for o in schema.options if o.choices or o.type == "int" or o.is_store_true]
    out = []
    for i in range(n):
        step = steps[i % len(steps)]
        first, second = dests[i % len(dests)], dests[(7 * i + 3) % len(dests)]

        def check(view, first=first, second=second, i=i):
            """A synthetic check: it reads what a rule reads and finds nothing on a clean config."""
            if view[first] == f"never-{i}" and view[second] is not None:
                return Violation("synthetic", (first,))
            return None

        out.append(SettingsRule(f"SYN{i:03d}", f"synthetic-{i}", Position(step.id, f"{step.module}:{step.line + 1}"),
                                check, check.__doc__))
    return tuple(out)


def floor_once(paths: list[str]) -> float:
    t0 = time.perf_counter()
    for p in paths:
        with open(p, encoding="utf-8") as f:
            text = f.read()
        yaml.load(text, Loader=yaml.CSafeLoader)
    return time.perf_counter() - t0


def assert_clean(paths: list[str], rep, out: str, err: str) -> None:
    """autofix found nothing; every file reads as a config of known, well-formed options."""
    assert rep.exit_code == 0 and rep.errors == 0, f"exit {rep.exit_code}, errors {rep.errors}:\n{err[-2000:]}"
    t = rep.tally  # conflicts, which it does not count, are lines on stderr: the summary check below
    assert t.texts == len(paths), f"{t.texts} results for {len(paths)} files"
    assert not (t.found or t.later or t.remaining or t.changed), f"autofix flags generated files:\n{out[:2000]}"
    assert out == "", f"unexpected output:\n{out[:2000]}"
    assert err.strip() == "All checks passed!", f"unexpected summary: {err[-500:]!r}"
    schema = load()
    for p in paths:
        (launch,) = yaml_config.read(Path(p).read_text("utf-8"), p, schema)
        assert not launch.parsed.problems, f"{p}: {launch.parsed.problems}"
        unknown = [pair.key for pair in launch.ctx.pairs if pair.dest is None]
        assert not unknown, f"{p}: unknown keys {unknown}"


def assert_fixed(paths: list[str], rep, out: str) -> None:
    """autofix reports a fix for every file (DIFF mode: a diff of each, every finding fixable), nothing else."""
    assert rep.exit_code == 1 and rep.errors == 0, f"exit {rep.exit_code}, errors {rep.errors}"
    t = rep.tally
    assert t.texts == len(paths), f"{t.texts} results for {len(paths)} files"
    assert t.changed == len(paths) and t.found >= len(paths) and t.fixable == t.found and not (t.remaining or t.later), \
        f"autofix does not fix the files as meant: {t}"
    assert out.count("\n+++ ") + out.startswith("+++ ") == len(paths), "expected one diff per file"


def yamllint_once(paths: list[str], conf) -> float:
    """yamllint's own loop over ``paths`` (read, lint every problem), in this process."""
    from yamllint import linter

    t0 = time.perf_counter()
    for p in paths:
        with open(p, encoding="utf-8") as f:
            text = f.read()
        for _ in linter.run(text, conf, p):
            pass
    return time.perf_counter() - t0


def best_of_interleaved(fns: dict[str, Any], repeats: int) -> dict[str, float]:
    """Best time of each callable over ``repeats`` rounds, after one warm-up round.

    The callables take turns within each round, so a burst of load on the
    machine hits all of them rather than skewing their ratio.
    """
    best = {name: float("inf") for name in fns}
    for r in range(repeats + 1):
        for name, fn in fns.items():
            t = fn()
            if r:
                best[name] = min(best[name], t)
    return best


def cold_starts(cmds: dict[str, tuple[list[str], dict[str, str]]], runs: int) -> dict[str, float]:
    """Median wall time in ms of ``runs`` subprocess runs of each command, after one untimed run.

    The commands take turns, like ``best_of_interleaved``; each must exit 0.
    """
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for r in range(runs + 1):
        for name, (cmd, env) in cmds.items():
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
            dt = time.perf_counter() - t0
            assert proc.returncode == 0, f"{cmd} exited {proc.returncode}: {proc.stderr.decode()[-500:]}"
            if r:
                times[name].append(dt)
    return {name: statistics.median(ts) * 1e3 for name, ts in times.items()}


def console_script() -> list[str]:
    script = Path(sys.executable).parent / ("autofix.exe" if os.name == "nt" else "autofix")
    if script.exists():
        return [str(script)]
    found = shutil.which("autofix")
    if found:
        return [found]
    raise SystemExit(f"no autofix console script next to {sys.executable} (pip install -e .)")


def autofix_commit() -> str:
    """The checked-out commit of the tree autofix is imported from (``+dirty`` with local edits)."""
    import autofix

    root = Path(autofix.__file__).resolve().parent.parent
    try:
        rev = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "autofix"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return rev + ("+dirty" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="number of config files (default 2000)")
    ap.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    ap.add_argument("--profile", action="store_true", help="print the top 25 functions of (a) and (e)")
    ap.add_argument("--repeats", type=int, default=REPEATS, help="timed rounds of (a) and (b) (default 3)")
    ap.add_argument("--keep", action="store_true", help="keep the generated files and print their directory")
    ap.add_argument("--synthetic-rules", type=int, default=400,
                    help="time (a) with this many synthetic settings rules added (default 400; 0: skip)")
    args = ap.parse_args(argv)

    tmp = tempfile.mkdtemp(prefix="autofix-bench-")
    try:
        paths, digest = generate(Path(tmp), args.n, args.seed)
        sizes = [os.path.getsize(p) for p in paths]
        print(f"autofix bench: {args.n} clean configs (seed {args.seed}, digest {digest}), "
              f"{statistics.mean(sizes):.0f} bytes/file mean, in {tmp}")
        print(f"autofix at {autofix_commit()}; python {platform.python_version()} on {platform.machine()}, "
              f"{os.cpu_count()} cpus; "
              f"PyYAML {yaml.__version__} (libyaml: {yaml.__with_libyaml__}); "
              f"load average {os.getloadavg()[0]:.2f} (numbers are noisy when it is not ~0)")

        # a first run of (a), untimed, checks that the files are clean
        _, rep, out, err = autofix_once(paths)
        assert_clean(paths, rep, out, err)
        print(f"clean: autofix finds no violation in any of the {len(paths)} files")

        n, reps = len(paths), args.repeats
        best = best_of_interleaved(
            {"autofix": lambda: autofix_once(paths)[0], "floor": lambda: floor_once(paths)}, reps)
        t_autofix, t_floor = best["autofix"], best["floor"]
        print()
        print(f"(a) autofix runner.run (DIFF), best of {reps}:   {t_autofix * 1e3:8.1f} ms  "
              f"{t_autofix / n * 1e6:7.1f} us/file")
        print(f"(b) read + yaml.load(CSafeLoader), best of {reps}: {t_floor * 1e3:8.1f} ms  "
              f"{t_floor / n * 1e6:7.1f} us/file")
        print(f"    ratio (a)/(b): {t_autofix / t_floor:.2f}x   (target <= 2x)")

        fixable = generate_fixable(Path(tmp), n, args.seed)
        _, rep, out, _ = autofix_once(fixable)
        assert_fixed(fixable, rep, out)
        best = best_of_interleaved(
            {"autofix": lambda: autofix_once(fixable)[0], "floor": lambda: floor_once(fixable)}, reps)
        print(f"(e) files that need one fix, DIFF mode, best of {reps}: {best['autofix'] / n * 1e6:7.1f} us/file; "
              f"floor {best['floor'] / n * 1e6:7.1f} us/file; ratio {best['autofix'] / best['floor']:.2f}x "
              f"(target <= 10x)")

        try:
            from yamllint.config import YamlLintConfig
        except ImportError:
            print("(f) yamllint is not installed (.venv/bin/pip install yamllint): not compared")
        else:
            conf = YamlLintConfig("extends: default")
            best = best_of_interleaved({"autofix": lambda: autofix_once(paths)[0],
                                        "yamllint": lambda: yamllint_once(paths, conf)}, reps)
            print(f"(f) yamllint over the clean files, best of {reps}: {best['yamllint'] / n * 1e6:7.1f} us/file "
                  f"vs autofix {best['autofix'] / n * 1e6:7.1f} us/file: autofix "
                  f"{best['yamllint'] / best['autofix']:.2f}x faster (target >= 5x)")

        if args.synthetic_rules:
            import autofix.rules

            shipped = autofix.rules.SETTINGS
            more = shipped + synthetic_rules(args.synthetic_rules)

            def with_rules(items):
                autofix.rules.SETTINGS = items
                try:
                    return autofix_once(paths)[0]
                finally:
                    autofix.rules.SETTINGS = shipped

            best = best_of_interleaved({"shipped": lambda: with_rules(shipped), "more": lambda: with_rules(more)},
                                       reps)
            grow = best["more"] / best["shipped"] - 1
            print(f"(d) with {args.synthetic_rules} synthetic rules over {len(load().steps)} steps: "
                  f"{best['more'] / n * 1e6:7.1f} us/file vs {best['shipped'] / n * 1e6:7.1f} us/file shipped "
                  f"({grow:+.1%}; target <= +20 %)")

        one, env = paths[0], dict(os.environ)
        cmds = {"autofix": ([*console_script(), one], env), "python": ([sys.executable, "-c", "pass"], env)}
        pyc = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
        if pyc:
            # Under PYTHONDONTWRITEBYTECODE an editable install never caches autofix's bytecode, so
            # each start recompiles it; a normal install has .pyc files. Measure that case too, with
            # the cache in the temp dir (PYTHONPYCACHEPREFIX) so nothing is written to the tree.
            env_pyc = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
            env_pyc["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "__pycache_prefix__")
            cmds["autofix_pyc"] = (cmds["autofix"][0], env_pyc)
            cmds["python_pyc"] = (cmds["python"][0], env_pyc)
        ms = cold_starts(cmds, COLD_RUNS)
        print(f"(c) cold start, median of {COLD_RUNS}: autofix <one file> {ms['autofix']:6.1f} ms  "
              f"(target <= 120 ms); python -c pass {ms['python']:6.1f} ms")
        if pyc:
            print(f"    PYTHONDONTWRITEBYTECODE is set; with bytecode cached: autofix <one file> "
                  f"{ms['autofix_pyc']:6.1f} ms; python -c pass {ms['python_pyc']:6.1f} ms")

        if args.profile:
            for name, files_ in (("(a), clean files", paths), ("(e), files that need fixes", fixable)):
                prof = cProfile.Profile()
                prof.enable()
                autofix_once(files_)
                prof.disable()
                for order in ("cumulative", "tottime"):
                    print(f"\nprofile of one run of {name}, {n} files, top 25 by {order}:")
                    pstats.Stats(prof, stream=sys.stdout).strip_dirs().sort_stats(order).print_stats(25)
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
