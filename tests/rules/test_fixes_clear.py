"""Every fix a settings rule builds where it fires clears it, on the rule cases and on each rule's example.

The pipeline keeps only the fixes that clear their rule (``run._clears``) and
drops the others without a word: the rule is then reported with the fixes
left, or with none, as if it had no fix. So a rule whose only fix is wrong
passes every test that looks at the output; this one asks the pipeline which
fixes it dropped (``trace.unclearing``) and fails naming the rule and the fix.
"""

from __future__ import annotations

import pytest

from autofix.common.diagnostics import Fix, Set, Violation, applied
from autofix.core import engine
from autofix.pipeline.facts import Facts
from autofix.pipeline.items import SettingsRule, settings_rule
from autofix.pipeline.run import resolve
from autofix.pipeline.trace import unclearing
from autofix.rules import SETTINGS, get
from harness.rules.cases import ALL_CASES, FACTS, Case, facts_of
from tests.rules.test_rules import SCHEMA, explicit
from tests.test_docs import example_facts, examples

# (case, rule, fix title) -> why the pipeline drops that fix there: found when this check was written (issue 30) and
# left as they were (the fix is dropped, so the output is right). Fix the builder, then remove its line here.
KNOWN_DROPS: dict[tuple[str, str, str], str] = {}


def drops(items: tuple, config: dict, facts: Facts) -> dict[tuple[str, str], str]:
    """``(rule code, fix title) -> what is wrong`` for each fix the pipeline drops on ``config``."""
    out = {}
    for rule, fix in unclearing(items, SCHEMA, config, facts):
        again = resolve(applied(config, fix.ops), SCHEMA, items, facts, fixes=False)
        why = "reads an unknown value on" if rule.code in again.silent else "still fires on"
        out[rule.code, fix.title] = (f"{rule.code} ({rule.name}): its {fix.applicability.name.lower()} fix "
                                     f"{fix.title!r} does not clear it (it {why} the fixed launch)")
    return out


def unexpected(where: str, found: dict[tuple[str, str], str]) -> list[str]:
    """What ``found`` (``drops``) holds that ``KNOWN_DROPS`` does not list for ``where``, and what it lists there
    that is no longer dropped, as failure lines."""
    known = {(code, title) for (at, code, title) in KNOWN_DROPS if at == where}
    return ([f"{where}: {found[k]}" for k in sorted(found.keys() - known)]
            + [f"{where}: KNOWN_DROPS lists {k}, which now clears: remove it" for k in sorted(known - found.keys())])


FIRING = [c for c in ALL_CASES if c.codes]


@pytest.mark.parametrize("case", FIRING, ids=[c.id for c in FIRING])
def test_every_fix_clears_its_rule_on_the_rule_cases(case: Case):
    problems = unexpected(case.id, drops(SETTINGS, explicit(case.argv), facts_of(case)))
    assert not problems, "\n".join(problems)


RULES_WITH_FIXES = [r for r in SETTINGS if isinstance(r, SettingsRule) and r.fixes]


@pytest.mark.parametrize("rule", RULES_WITH_FIXES, ids=[r.code for r in RULES_WITH_FIXES])
def test_every_fix_clears_its_rule_on_the_rules_example(rule: SettingsRule):
    """Also where no oracle case makes the rule fire (a ROCm GPU, a model fact none of the oracle's models has):
    its example does (tests/test_docs.py checks that). The other rules an example trips are the cases' business."""
    bad, _, fmt = examples(rule)
    found = {}
    for launch in fmt.read(bad, "example", SCHEMA):
        found |= drops(SETTINGS, dict(launch.parsed.explicit), example_facts(rule))
    problems = unexpected(f"{rule.code}'s example", {k: v for k, v in found.items() if k[0] == rule.code})
    assert not problems, "\n".join(problems)


def test_every_rule_with_a_fix_fires_on_a_case_or_its_example():
    """So the two checks above see every rule's fixes built."""
    fired = {code for c in FIRING for code in c.codes}
    for rule in RULES_WITH_FIXES:
        if rule.code in fired:
            continue
        bad, _, fmt = examples(rule)
        found = {v.code for launch in fmt.read(bad, "example", SCHEMA)
                 for v in engine.check(dict(launch.parsed.explicit), SCHEMA, example_facts(rule))}
        assert rule.code in found, f"{rule.code} fires on no rule case and not on its example: its fixes go unchecked"


# A rule as issue 30 found one: its safe fix leaves it firing (it sets --tp-size, the rule reads the dispatch
# algorithm). Placed at EP003's line, the step of a real rule.
_EP003 = get("EP003").position


@settings_rule("TST901", "lp-dispatch-is-refused", step=_EP003.step, at=_EP003.at, via=_EP003.via,
               calls=_EP003.calls)
def _lp_dispatch(view) -> Violation | None:
    """Flag --ep-dispatch-algorithm lp (a rule made for this test)."""
    if view["ep_dispatch_algorithm"] != "lp":
        return None
    return Violation("--ep-dispatch-algorithm lp is refused", args=("ep_dispatch_algorithm",))


@_lp_dispatch.fix
def _set_tp(view) -> Fix | None:
    return Fix.safe(Set("tp_size", 8), title="Set --tp-size to 8")


def test_a_fix_that_does_not_clear_its_rule_is_named():
    """The issue's case: the pipeline's answer shows nothing (the rule is reported with no fix); the check does."""
    items = (*SETTINGS, _lp_dispatch)
    config = explicit(["--ep-size", "8", "--ep-dispatch-algorithm", "lp", "--enable-eplb"])
    [reported] = [v for v in resolve(config, SCHEMA, items, FACTS).violations if v.code == "TST901"]
    assert reported.fixes == ()  # dropped without a word
    assert unexpected("the bad rule's case", drops(items, config, FACTS)) == [
        "the bad rule's case: TST901 (lp-dispatch-is-refused): its safe fix 'Set --tp-size to 8' does not clear it "
        "(it still fires on the fixed launch)"]


def test_a_draft_model_gamma_below_one_is_no_fix_for_too_few_draft_tokens():
    """SPEC059's removal leaves the window to the draft model's gamma + 1: a draft whose config says gamma 0 (the
    oracle refuses that launch at speculative_hook.py:847, as with 1 written) gets no removal, only the count of 2."""
    [case] = [c for c in ALL_CASES if c.id == "SPEC059-one"]
    facts = Facts({**facts_of(case).known, "model.draft_dspark_gamma": 0})
    config = explicit(case.argv)
    assert unexpected("SPEC059-one with a gamma-0 draft", drops(SETTINGS, config, facts)) == []
    [found] = resolve(config, SCHEMA, SETTINGS, facts).violations
    assert (found.code, [f.title for f in found.fixes]) == ("SPEC059", ["Set --speculative-num-draft-tokens to 2"])
