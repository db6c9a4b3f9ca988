"""The argparse-stage cases' recorded SGLang verdicts still hold, for the input and for the fixed text."""

from __future__ import annotations

import pytest

from autofix.adapters import argv as shell
from autofix.adapters import yaml_config
from autofix.core.api import fix_source
from autofix.schema import load
from harness.oracle.oracle import run_batch, verdict
from tests.oracle import requires_oracle
from tests.rules.arg_cases import CASES

pytestmark = [pytest.mark.oracle, requires_oracle]
SCHEMA = load()


def oracle_case(id: str, fmt: str, text: str) -> dict:
    if fmt == "yaml":
        return {"id": id, "config_yaml": text}
    (launch,) = shell.read(text, "x.sh", SCHEMA)
    return {"id": id, "argv": [w.text for w in launch.parsed.words]}


@pytest.fixture(scope="module")
def answers() -> dict[str, dict]:
    batch = []
    for c in CASES:
        fmt = yaml_config if c.fmt == "yaml" else shell
        batch.append(oracle_case(c.id, c.fmt, c.text))
        batch.append(oracle_case(c.id + ":fixed", c.fmt, fix_source(c.text, fmt).output))
    return {a["id"]: a for a in run_batch(batch)}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_input_and_fixed_verdicts(case, answers):
    assert verdict(answers[case.id]) == case.sglang, answers[case.id].get("message")
    assert verdict(answers[case.id + ":fixed"]) == case.fixed, answers[case.id + ":fixed"].get("message")


def test_config_flag_spellings_against_sglangs_merger(tmp_path):
    """CFG005/CFG006: what SGLang does with --config=FILE, its fix, and --config twice."""
    bad = tmp_path / "serve.yaml"
    bad.write_text("moe-a2a-backend: bogus\n")  # refused if SGLang reads the file
    written = f"python -m sglang.launch_server --config={bad}\n"
    fixed = fix_source(written, shell).output
    twice = f"python -m sglang.launch_server --config {bad} --config {bad}\n"
    got = run_batch([oracle_case("equals", "shell", written), oracle_case("fixed", "shell", fixed),
                     oracle_case("twice", "shell", twice)])
    assert verdict(got[0]) == "ok"  # the file is never read
    assert verdict(got[1]) == "argparse"  # now it is: its bad value is refused
    assert verdict(got[2]) == "sglang/srt/utils/server_args_config_parser.py:113"


def test_config_file_suffix_against_sglangs_merger(tmp_path):
    """CFG007: a --config file not named .yaml/.yml is refused, whatever it holds; --config=FILE is not read."""
    good = "tp-size: 8\n"
    conf, yml = tmp_path / "serve.conf", tmp_path / "serve.YML"
    conf.write_text(good)
    yml.write_text(good)
    launches = {"conf": f"--config {conf}", "yml": f"--config {yml}", "equals": f"--config={conf}"}
    texts = {k: f"python -m sglang.launch_server {v}\n" for k, v in launches.items()}
    codes = {k: [d.code for d in fix_source(t, shell).diagnostics] for k, t in texts.items()}
    assert codes == {"conf": ["CFG007"], "yml": [], "equals": ["CFG005"]}
    got = run_batch([oracle_case(k, "shell", t) for k, t in texts.items()])
    assert [verdict(g) for g in got] == ["sglang/srt/utils/server_args_config_parser.py:159", "ok", "ok"]
