"""Every rule documents itself the same way, and its examples are true."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from autofix.adapters import argv, dockerfile, yaml_config
from autofix.core import engine
from autofix.core.api import FixOptions, fix_source
from autofix.explain.rule_docs import headings, pipeline_steps, render_all
from autofix.pipeline.facts import Facts
from autofix.pipeline.items import Derivation
from autofix.rules import RULES
from harness.rules.casekit import MODELS, ORACLE_ENV, oracle_facts
from harness.rules.cases import FACTS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_BLOCK = re.compile(r"```(yaml|shell|dockerfile)\n(.*?)```", re.S)
FORMATS = {"yaml": yaml_config, "shell": argv, "dockerfile": dockerfile}


def examples(rule) -> tuple[str, str, object]:
    """The rule's example and its "use instead", and the adapter that reads them."""
    doc = inspect.cleandoc(rule.doc)
    (lang, bad), (_, good) = EXAMPLE_BLOCK.findall(doc)[:2]
    return bad, good, FORMATS[lang]


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_docstring_has_every_heading(rule):
    doc = inspect.cleandoc(rule.doc)
    wanted = headings(rule)
    positions = [doc.find(h) for h in wanted]
    assert -1 not in positions, f"{rule.code} lacks {wanted[positions.index(-1)]!r}"
    assert positions == sorted(positions)
    assert rule.at in doc


def example_facts(rule) -> Facts:
    """The facts the rule's example is written for: the oracle's, unless its heading names others.

    An example written for another GPU says so first: "## Example (`--gpu mi300x`)"; one for a model the oracle
    has none of (Kimi-K3), "## Example (no model config)": the oracle's node, no model facts; and one for another
    of the oracle's models names it: "## Example (`--gpu b200`, a Llama model)".
    """
    doc = inspect.cleandoc(rule.doc)
    if "## Example (no model config)" in doc:
        return Facts.for_gpu("h200", 8, **ORACLE_ENV)
    heading = re.search(r"## Example \((?:`--gpu (\w+)`)?(?:, )?(?:an? ([\w.-]+) model)?\)", doc)
    gpu, model = (heading.group(1), heading.group(2)) if heading else (None, None)
    model = model.lower() if model and model.lower() in MODELS else None
    return oracle_facts(gpu or "h200", model) if gpu or model else FACTS


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_example_fires_and_use_instead_is_clean(rule):
    bad, good, fmt = examples(rule)
    facts = example_facts(rule)  # with the oracle's facts: some rules need the GPU or the model config
    assert rule.code in [d.code for d in fix_source(bad, fmt, options=FixOptions(facts=facts)).diagnostics]
    assert fix_source(good, fmt, options=FixOptions(facts=facts)).diagnostics == ()


def test_rule_codes_and_names_are_unique_and_well_formed():
    assert len({r.code for r in RULES}) == len(RULES) == len({r.name for r in RULES})
    for r in RULES:
        assert re.fullmatch(r"[A-Z][A-Z0-9]*[A-Z][0-9]{3}", r.code)
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", r.name)
        fn = r.derive if isinstance(r, Derivation) else r.check
        assert fn.__name__ == r.name.replace("-", "_")


def test_rules_md_is_up_to_date():
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == render_all(RULES, pipeline_steps()), \
        "run: python scripts/gen_docs.py"


def test_what_the_settings_steps_read_are_schema_dests():
    from autofix.pipeline.trace import reads
    from autofix.rules import SETTINGS
    from autofix.schema import load
    from tests.property.strategies import _case_configs

    schema = load()
    for item, dests in reads(SETTINGS, schema, _case_configs(), FACTS).items():
        assert dests and dests <= set(schema.by_dest), item
    assert engine.check({}, schema) == []
