"""Run SGLang 0.5.23's own argument checks through ../shared/oracle, one import per batch.

Whether it is set up here is ``available()``; ``SKIP_REASON`` says why not, and how to set it up (the tests' mark
that skips on it is ``tests.oracle.requires_oracle``).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK_PY = Path(os.environ.get("ORACLE_CHECK", ROOT.parent / "shared" / "oracle" / "check.py"))
PYTHON = Path(os.environ.get("ORACLE_PYTHON", "/tmp/oracle-venv/bin/python"))
# Config-only stand-ins for models the oracle does not ship (a --model-path the oracle reads; their README)
STAND_INS = Path(__file__).resolve().parent / "models"


def available() -> bool:
    return CHECK_PY.exists() and PYTHON.exists()


# Why a test that needs the oracle is skipped: said for a fresh clone, which has neither the oracle nor ../shared.
SKIP_REASON = (f"compares with SGLang 0.5.23's own argument checks, not set up here ({PYTHON} or {CHECK_PY} "
               "missing): point ORACLE_PYTHON at a Python with sglang 0.5.23 and ORACLE_CHECK at the oracle's "
               "check.py, or, beside the project's shared folder, run: bash ../shared/oracle/setup.sh")


def run_batch(cases: list[dict], timeout: int = 900, gpu: str = "h200") -> list[dict]:
    """One oracle process over ``cases`` (dicts with ``id`` and ``argv``/``config_yaml``); results in order.

    ``gpu`` is the simulated node (``check.py --gpu``: h200, h100, b200).
    Raises ``RuntimeError`` when answers are missing or the oracle flags its own
    failure (``oracle_suspect``) instead of giving SGLang's verdict.
    """
    lines = "\n".join(json.dumps(c) for c in cases) + "\n"
    proc = subprocess.run(
        [str(PYTHON), str(CHECK_PY), "--gpu", gpu, "--no-warnings", "--batch", "-"],
        input=lines, capture_output=True, text=True, timeout=timeout, check=False,
    )
    if proc.returncode != 0 and not proc.stdout:
        raise RuntimeError(f"oracle failed: {proc.stderr[-2000:]}")
    out = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    if [o.get("id") for o in out] != [c["id"] for c in cases]:
        raise RuntimeError(f"oracle answered {len(out)} of {len(cases)} cases:\n{proc.stderr[-3000:]}")
    suspect = [o["id"] for o in out if o.get("oracle_suspect")]
    if suspect:
        raise RuntimeError(f"oracle-suspect failures (not SGLang's verdict): {suspect}")
    return out


def verdict(answer: dict) -> str:
    """``ok`` or the ``path:line`` SGLang raised at."""
    return "ok" if answer["ok"] else answer["where"]
