"""The merged ``--config`` cases' recorded SGLang verdicts (tests/test_config_merge.py) still hold.

Each script and its config file are written to a directory; the oracle gets
the launch's words with FILE made absolute (SGLang reads it from its own
working directory), for the input and for autofix's fixed pair of files.
"""

from __future__ import annotations

import pytest

from autofix.adapters import argv as shell
from autofix.cli.config_files import on_disk
from autofix.core.api import FixOptions, fix_source
from autofix.disk.reads import read_if_file
from autofix.schema import load
from harness.oracle.oracle import run_batch, verdict
from tests.oracle import requires_oracle
from tests.test_config_merge import CASES, LAUNCH

pytestmark = [pytest.mark.oracle, requires_oracle]
SCHEMA = load()


def _argv(script: str, directory) -> list[str]:
    (launch,) = shell.read(script, "a.sh", SCHEMA)
    words = [w.text for w in launch.parsed.words]
    i = words.index("--config")
    words[i + 1] = str(directory / words[i + 1])
    return words


@pytest.fixture(scope="module")
def answers(tmp_path_factory) -> dict[str, dict]:
    batches: dict[str, list[dict]] = {}
    for c in CASES:
        given = tmp_path_factory.mktemp(c.id)
        (given / "a.sh").write_text(LAUNCH + c.flags + "\n")
        (given / "c.yaml").write_text(c.config)
        result = fix_source((given / "a.sh").read_text(), shell, path=str(given / "a.sh"),
                            options=FixOptions(unsafe=c.unsafe), config_reader=on_disk(read_if_file))
        fixed = tmp_path_factory.mktemp(c.id + "-fixed")
        (fixed / "c.yaml").write_text(result.others[0].output)
        fields = {} if c.differs is None else {"fields": "all"}
        batches.setdefault(c.gpu, []).extend([{"id": c.id, "argv": _argv(LAUNCH + c.flags + "\n", given), **fields},
                                              {"id": c.id + ":fixed", "argv": _argv(result.output, fixed), **fields}])
    return {a["id"]: a for gpu, batch in batches.items() for a in run_batch(batch, gpu=gpu)}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_input_and_fixed_verdicts(case, answers):
    assert verdict(answers[case.id]) == case.sglang, answers[case.id].get("message")
    assert verdict(answers[case.id + ":fixed"]) == case.fixed, answers[case.id + ":fixed"].get("message")


DIFFERS = [c for c in CASES if c.differs is not None]


@pytest.mark.parametrize("case", DIFFERS, ids=[c.id for c in DIFFERS])
def test_fix_keeps_what_sglang_runs(case, answers):
    """The fixed pair of files resolves like the input, but for the deprecated inputs' own echoes."""
    given, fixed = answers[case.id].get("resolved", {}), answers[case.id + ":fixed"].get("resolved", {})
    differs = sorted(k for k in given.keys() | fixed.keys() if k != "random_seed" and given.get(k) != fixed.get(k))
    assert differs == sorted(case.differs)


# A config file read by launches of two scripts (tests/test_config_merge.py): autofix --write leaves it as
# written and fixes a.sh's command line; both launches are then accepted, b.sh's exactly as before.


def _shared_run(directory) -> None:
    from typer.testing import CliRunner

    from autofix.cli.commands import app
    from tests.test_config_merge import _two_scripts

    _two_scripts(directory)
    r = CliRunner().invoke(app, [str(directory), "--write"], prog_name="autofix")
    assert r.exit_code == 0, r.output


def test_config_read_by_two_scripts(tmp_path):
    from tests.test_config_merge import _two_scripts

    given = tmp_path / "given"
    given.mkdir()
    _two_scripts(given)
    fixed = tmp_path / "fixed"
    fixed.mkdir()
    _shared_run(fixed)
    batch = [{"id": f"{where}:{name}", "argv": _argv((d / name).read_text(), d)}
             for where, d in (("given", given), ("fixed", fixed)) for name in ("a.sh", "b.sh")]
    got = {a["id"]: a for a in run_batch(batch)}
    assert verdict(got["given:a.sh"]) == "sglang/srt/arg_groups/parallel_hook.py:783"  # EP003
    assert verdict(got["given:b.sh"]) == "ok"
    assert verdict(got["fixed:a.sh"]) == "ok"
    assert verdict(got["fixed:b.sh"]) == "ok"
    assert got["given:b.sh"]["resolved"] == got["fixed:b.sh"]["resolved"]  # b.sh's launch is unchanged
    assert got["fixed:b.sh"]["resolved"]["ep_dispatch_algorithm"] == "static"


# --config files autofix reports as errors (tests/test_config_merge.py): SGLang refuses each at start-up.
REFUSED_CONFIGS = {
    "invalid-yaml": ("tp-size: [8\n", "sglang/srt/utils/server_args_config_parser.py:141"),
    "not-a-mapping": ("- tp-size: 8\n", "sglang/srt/utils/server_args_config_parser.py:151"),
}


def test_configs_reported_as_errors_are_refused(tmp_path):
    batch = []
    for name, (config, _) in REFUSED_CONFIGS.items():
        (tmp_path / f"{name}.yaml").write_text(config)
        batch.append({"id": name, "argv": _argv(f"python -m sglang.launch_server --model-path "
                                                f"deepseek-ai/DeepSeek-V3 --config {name}.yaml\n", tmp_path)})
    batch.append({"id": "int-key", "argv": _argv("python -m sglang.launch_server --model-path "
                                                  "deepseek-ai/DeepSeek-V3 --config int-key.yaml\n", tmp_path)})
    (tmp_path / "int-key.yaml").write_text("1: 8\n")
    got = {a["id"]: a for a in run_batch(batch)}
    for name, (_, where) in REFUSED_CONFIGS.items():
        assert verdict(got[name]) == where, got[name].get("message")
    assert not got["int-key"]["ok"]  # SGLang fails on the key (``key.replace``), not on its value
