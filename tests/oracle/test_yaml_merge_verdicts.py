"""SGLang's verdicts on ``--config`` files with merge keys and at the YAML limits, as recorded, and autofix's reading of them.

Each case is a config text with SGLang 0.5.23's recorded verdict (``ok``
or the ``path:line`` it raises at) and the values it resolves, as the
oracle gave them (PyYAML 6.0.4 in the oracle's venv). autofix must read
the same values, find a refusal exactly where SGLang refuses (an
``InputError`` counting as one), and a fixed text must be accepted.

Recorded differences, on purpose: nesting between 401 and ~490 levels,
which SGLang's pure-Python loader still reads, is past ``MAX_YAML_DEPTH``
(autofix/common/limits.py); a recursive alias is refused by autofix before it is
followed (SGLang reads it as a list holding itself, and argparse refuses the word).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from autofix.adapters import yaml_config
from autofix.common.errors import InputError
from autofix.common.written import Written
from autofix.core import engine
from autofix.core.api import fix_source
from autofix.schema import load, others_of
from harness.oracle.oracle import run_batch, verdict
from tests.oracle import requires_oracle

pytestmark = [pytest.mark.oracle, requires_oracle]
SCHEMA = load()
EP003 = "sglang/srt/arg_groups/parallel_hook.py:783"
YAML_ERROR = "sglang/srt/utils/server_args_config_parser.py:141"


def nested(depth: int) -> str:
    """A config whose ``json-model-override-args`` nests mappings ``depth`` levels below the root mapping."""
    return "tp-size: 8\njson-model-override-args: " + "{a: " * depth + "1" + "}" * depth + "\n"


@dataclass(frozen=True)
class Case:
    id: str
    config: str
    sglang: str  # "ok" or where SGLang raises
    resolved: dict = field(default_factory=dict)  # values SGLang resolves (a subset)
    fixed: str | None = None  # "ok" when autofix's fixed text must be accepted
    autofix: str = "agrees"  # or why autofix's verdict differs, on purpose


CASES = [
    Case("own-key-overrides-merged", "<<: {tp-size: 4, ep-size: 4}\ntp-size: 8\n", "ok",
         {"tp_size": 8, "ep_size": 4}),
    # PyYAML 6.0.4's flatten_mapping: a key both mappings write is the second's (6.0.3: the first's)
    Case("merge-list", "<<: [{tp-size: 2}, {tp-size: 4, ep-size: 2}]\n", "ok", {"tp_size": 4, "ep_size": 2}),
    Case("merge-through-alias", "json-model-override-args: &m {tp-size: 4}\n<<: *m\n", "ok", {"tp_size": 4}),
    Case("merged-invalid-value", "<<: {ep-dispatch-algorithm: static}\nmoe-a2a-backend: none\ntp-size: 8\n"
         "ep-size: 8\nenable-eplb: true\n", EP003),  # reported, not fixed: the text is the merge's
    Case("merged-invalid-overridden", "<<: {ep-dispatch-algorithm: static}\nmoe-a2a-backend: none\ntp-size: 8\n"
         "ep-size: 8\nenable-eplb: true\nep-dispatch-algorithm: dynamic\n", "ok", {"ep_dispatch_algorithm": "dynamic"}),
    Case("own-key-next-to-merge", "<<: {tp-size: 8, moe-a2a-backend: none}\nep-size: 8\nenable-eplb: true\n"
         "ep-dispatch-algorithm: static\n", EP003, fixed="ok"),
    Case("merge-of-a-scalar", "<<: 1\ntp-size: 8\n", YAML_ERROR),
    Case("recursive-alias", "cuda-graph-bs-decode: &a [*a]\n", "argparse"),
    Case("depth-at-the-limit", nested(399), "ok", {"tp_size": 8}),
    Case("depth-past-the-limit", nested(449), "ok", {"tp_size": 8}, autofix="refused: past MAX_YAML_DEPTH"),
    Case("depth-past-safe-load", nested(494), YAML_ERROR),  # RecursionError in SGLang's loader
]


@pytest.fixture(scope="module")
def answers() -> dict[str, dict]:
    batch = [{"id": c.id, "config_yaml": c.config} for c in CASES]
    batch += [{"id": c.id + ":fixed", "config_yaml": fix_source(c.config, yaml_config, path="c.yaml").output}
              for c in CASES if c.fixed]
    return {a["id"]: a for a in run_batch(batch)}


def autofix_refusals(text: str) -> list[str] | None:
    """The codes of the refusals autofix finds in a config text; None when it refuses to read it."""
    try:
        [launch] = yaml_config.read(text, "c.yaml", SCHEMA)
    except InputError:
        return None
    written = Written(launch.entries, launch.parsed, SCHEMA, others_of(SCHEMA), yaml_config.SOURCE)
    return [v.code for v in engine.check_args(written) if v.refuses] + \
        [v.code for v in engine.check(launch.parsed.explicit, SCHEMA)]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_sglangs_verdict_is_as_recorded(case, answers):
    answer = answers[case.id]
    assert verdict(answer) == case.sglang, answer.get("message")
    for dest, value in case.resolved.items():
        assert answer["resolved"][dest] == value


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_autofix_reads_and_judges_it_as_sglang(case, answers):
    found = autofix_refusals(case.config)
    if case.autofix != "agrees":
        assert found is None  # the recorded difference: autofix stops reading
        return
    if case.sglang == "ok":
        assert found == []
        [launch] = yaml_config.read(case.config, "c.yaml", SCHEMA)
        for dest, value in case.resolved.items():
            assert launch.parsed.explicit.get(dest) == value
    else:
        assert found is None or found, f"SGLang refuses at {case.sglang}, autofix finds nothing"


@pytest.mark.parametrize("case", [c for c in CASES if c.fixed], ids=[c.id for c in CASES if c.fixed])
def test_the_fixed_text_is_accepted(case, answers):
    assert answers[case.id + ":fixed"]["ok"], answers[case.id + ":fixed"].get("message")
