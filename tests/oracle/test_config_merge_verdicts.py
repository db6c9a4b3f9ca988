"""The merged ``--config`` cases' recorded SGLang verdicts (tests/test_config_merge.py) still hold.

Each script and its config file are written to a directory; the oracle gets
the launch's words with FILE made absolute (SGLang reads it from its own
working directory), for the input and for autofix's fixed pair of files.
"""

from __future__ import annotations

import pytest

from autofix import files
from autofix.api import fix_source
from autofix.formats import argv as shell
from autofix.schema import load
from tests.oracle.oracle import requires_oracle, run_batch, verdict
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
    batch = []
    for c in CASES:
        given = tmp_path_factory.mktemp(c.id)
        (given / "a.sh").write_text(LAUNCH + c.flags + "\n")
        (given / "c.yaml").write_text(c.config)
        result = fix_source((given / "a.sh").read_text(), shell, path=str(given / "a.sh"), unsafe=c.unsafe,
                            read_config=files.read_if_file)
        fixed = tmp_path_factory.mktemp(c.id + "-fixed")
        (fixed / "c.yaml").write_text(result.others[0].output)
        batch.append({"id": c.id, "argv": _argv(LAUNCH + c.flags + "\n", given)})
        batch.append({"id": c.id + ":fixed", "argv": _argv(result.output, fixed)})
    return {a["id"]: a for a in run_batch(batch)}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_input_and_fixed_verdicts(case, answers):
    assert verdict(answers[case.id]) == case.sglang, answers[case.id].get("message")
    assert verdict(answers[case.id + ":fixed"]) == case.fixed, answers[case.id + ":fixed"].get("message")
