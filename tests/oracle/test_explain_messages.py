"""SGLang's own messages, pasted alone (no traceback), lead ``autofix explain`` to the rule at the site that raised.

One firing case per settings rule (its first case in ``harness/rules/cases*.py`` that SGLang refuses at the
rule's own line), with SGLang's answer from the rule cases' batch (``tests/oracle/conftest.py``, which
test_rule_verdicts.py reads too: one oracle process per node for both). Each message must name the case's rule: at one site (unique), or among
candidates when SGLang raises the same words at several sites (one message, two checks); only a check whose
message has no words (a bare ``assert``) may be unrecognised. The index must also be the one the installed
SGLang gives (``scripts/gen_messages.py --check``).
"""  # noqa: E501

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autofix.explain.lookup import explain
from autofix.explain.sites import load
from autofix.pipeline.items import SettingsRule
from autofix.rules import SETTINGS
from harness.oracle.oracle import PYTHON
from harness.rules.casekit import raised_at
from harness.rules.cases import ALL_CASES
from tests.oracle import requires_oracle
from tests.test_positions import sglang_root

pytestmark = [pytest.mark.oracle, requires_oracle]
ROOT = Path(__file__).resolve().parents[2]


def _first_cases() -> dict:
    out = {}
    for rule in SETTINGS:
        if isinstance(rule, SettingsRule) and rule.refuses and rule.code not in out:
            case = next((c for c in ALL_CASES if rule.code in c.codes and c.sglang == raised_at(rule.code)), None)
            if case:
                out[rule.code] = case
    return out


CASES = _first_cases()


@pytest.mark.parametrize("code", list(CASES), ids=list(CASES))
def test_the_message_alone_names_the_rule(code, rule_case_answers):
    answer = rule_case_answers[CASES[code].id]
    index = load()
    path, line = answer["where"].removeprefix("sglang/srt/").rsplit(":", 1)
    raised = index.at(path, int(line))
    found = explain(answer["message"])
    if found.how == "none":
        assert not (raised.words or raised.optional), f"{raised.where}'s message is not recognised"
        return
    if found.candidates:  # only when the words are another site's too (rules: when all of them have one)
        assert len({c.site.words for c in found.candidates}) == 1, found.candidates
        assert code in [c for s in found.candidates for c in s.site.rules], found.candidates
    else:
        assert code in [r.code for r in found.rules], found.site


def test_the_index_is_the_installed_sglang_s(capsys):
    version = subprocess.run([str(PYTHON), "-c", "import sys; print(sys.version_info[:2])"], capture_output=True,
                             text=True, check=True).stdout.strip()
    if version != str(sys.version_info[:2]):  # a traceback's line for a multi-line assert is the compiler's
        pytest.skip(f"the index's traceback lines are read with the oracle's Python {version}")
    sys.path.insert(0, str(ROOT / "scripts"))
    from gen_messages import main

    assert main(["--sglang", str(sglang_root()), "--check"]) == 0, capsys.readouterr().err
