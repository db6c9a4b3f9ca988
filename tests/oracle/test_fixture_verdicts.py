"""The golden fixtures' SGLang verdicts: still as recorded, and autofix agrees with them.

Re-runs the oracle on every fixture file in one batch (through
``scripts/oracle_verdicts.py``, which also wrote ``fixtures/oracle-verdicts.json``)
and checks, for every launch: SGLang refuses it exactly when autofix finds a
violation in it, at the raise site of the first rule that fires; so every
expected output autofix leaves clean is accepted. Manifest, Dockerfile and
srt-slurm launches go to SGLang as the words their adapter reads; one with a
word holding an expansion (``$(POD_IP)``, ``$MODEL``) is recorded as skipped,
and so is a command its file does not run as written (DKR001-DKR003).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from autofix.adapters import by_name
from autofix.common.written import Written
from autofix.core import engine
from autofix.rules import BY_CODE
from autofix.schema import load, others_of
from harness.oracle.oracle import SKIP_REASON

ROOT = Path(__file__).resolve().parents[2]


def _load_script():
    spec = importlib.util.spec_from_file_location("oracle_verdicts", ROOT / "scripts" / "oracle_verdicts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ov = _load_script()
FILES = ov.fixture_files()
NAMES = [ov.rel(p) for p in FILES]

pytestmark = [
    pytest.mark.oracle,
    pytest.mark.skipif(not (ov.PYTHON.exists() and ov.CHECK_PY.exists()), reason=SKIP_REASON),
]


@pytest.fixture(scope="module")
def fresh() -> dict[str, list[dict]]:
    """The oracle's verdicts now, for every fixture file: one batch."""
    return ov.collect(FILES)


@pytest.fixture(scope="module")
def recorded() -> dict[str, list[dict]]:
    return json.loads(ov.VERDICTS.read_text())


def autofix_launches(path: Path) -> list[list[str]]:
    """Per launch in ``path``: the codes of the refusals autofix finds, in SGLang's pipeline order
    (the argparse stage first; rules whose input SGLang accepts, such as deprecations, left out)."""
    schema = load()
    adapter = by_name(ov.kind_of(path))
    text = path.read_bytes().decode("utf-8")
    out = []
    for launch in adapter.read(text, ov.rel(path), schema):
        written = Written(launch.entries, launch.parsed, schema, others_of(schema), adapter.SOURCE, launch.host)
        refused = [v for v in engine.check_args(written) if v.refuses]
        # SGLang's --config reader runs before argparse: its refusals come first
        refused.sort(key=lambda v: v.code not in MERGER_CODES)
        codes = [v.code for v in refused]
        out.append(codes + [v.code for v in engine.check(launch.parsed.explicit, schema)])
    return out


# Refusals of SGLang's --config reader (DEP001 refuses only a deprecated --config key, there)
MERGER_CODES = {"CFG001", "DEP001"}
MERGER_REFUSAL = "sglang/srt/utils/server_args_config_parser.py:173"


def sglang_where(code: str) -> str:
    """Where SGLang raises for a rule: argparse itself, or the source line the rule mirrors."""
    if code == "DEP001":
        return MERGER_REFUSAL
    source = BY_CODE[code].at
    return "argparse" if "(argparse" in source else "sglang/srt/" + source


def test_recorded_file_covers_every_fixture(recorded):
    assert sorted(recorded) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_verdict_is_as_recorded(name, fresh, recorded):
    assert fresh[name] == recorded.get(name)


def test_embedded_formats_are_checked(recorded):
    """Most launches of the manifest, Dockerfile and srt-slurm fixtures reach the oracle (not skipped)."""
    for sub in ("manifest", "dockerfile", "srt_slurm"):
        launches = [v for name, vs in recorded.items() if name.startswith(f"fixtures/{sub}/") for v in vs]
        checked = [v for v in launches if v["ok"] is not None]
        assert launches and len(checked) * 2 > len(launches), f"{sub}: {len(checked)} of {len(launches)} launches checked"


@pytest.mark.parametrize("path", FILES, ids=NAMES)
def test_autofix_agrees_with_sglang(path, fresh):
    name = ov.rel(path)
    found = autofix_launches(path)
    verdicts = fresh[name]
    assert len(found) == len(verdicts), f"autofix reads {len(found)} launches, bash runs {len(verdicts)}"
    for n, (codes, verdict) in enumerate(zip(found, verdicts)):
        if verdict.get("skipped"):
            continue  # an expansion's value is only known where it runs (see scripts/oracle_verdicts.py)
        if codes:
            where = sglang_where(codes[0])
            assert verdict == {"ok": False, "where": where}, f"launch {n}: autofix finds {codes}"
        else:
            assert verdict["ok"], f"launch {n}: autofix finds nothing, SGLang refuses at {verdict['where']}"
