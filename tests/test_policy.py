"""Selectors (``autofix.core.policy``): what they name, and in time linear in their number.

Until issue 29 each selector was compared with each rule, in ``validate`` and again in ``Policy.build``
(``_old_build``, kept here as the reference): a 16 MB ``ignore`` list ran past 12 minutes. The index must
decide exactly as those comparisons did.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autofix.core import policy
from autofix.core.policy import ALL, Policy, RuleId, SelectorError
from autofix.project.keys import rule_ids

RULES = rule_ids()
_PREFIX = re.compile(r"^[A-Z][A-Z0-9]*$")


def _old_specificity(selector: str, rule: RuleId) -> int:
    if selector == ALL:
        return 0
    if selector == rule.name or selector.upper() == rule.code:
        return 1000
    up = selector.upper()
    if _PREFIX.match(up) and rule.code.startswith(up):
        return len(up)
    return -1


def _old_decide(on, off, rules) -> frozenset[str]:
    out = set()
    for rule in rules:
        best_on = max((_old_specificity(s, rule) for s in on), default=-1)
        best_off = max((_old_specificity(s, rule) for s in off), default=-1)
        if best_on >= 0 and best_on > best_off:
            out.add(rule.code)
    return frozenset(out)


def _old_build(rules, **lists) -> Policy | str:
    """``Policy.build`` as it was at ``a74b4c6``; the unknown selector when one names no rule."""
    for key in ("select", "ignore", "fixable", "unfixable", "extend_safe_fixes", "extend_unsafe_fixes"):
        for s in lists.get(key, ()):
            if not any(_old_specificity(s, r) >= 0 for r in rules):
                return s
    every = frozenset(r.code for r in rules)
    selected = _old_decide(lists.get("select", (ALL,)), lists.get("ignore", ()), rules)
    can_fix = _old_decide(lists.get("fixable", (ALL,)), lists.get("unfixable", ()), rules)
    return Policy(None if selected == every else selected, every - can_fix,
                  _old_decide(lists.get("extend_safe_fixes", ()), (), rules),
                  _old_decide(lists.get("extend_unsafe_fixes", ()), (), rules))


def _any_case(word: str) -> st.SearchStrategy[str]:
    return st.lists(st.booleans(), min_size=len(word), max_size=len(word)).map(
        lambda ups: "".join(c.upper() if up else c.lower() for c, up in zip(word, ups)))


SELECTOR = st.one_of(
    st.sampled_from([r.code for r in RULES]).flatmap(_any_case),  # a code, in any case
    st.sampled_from([r.code for r in RULES]).flatmap(lambda c: st.integers(1, len(c)).map(lambda n: c[:n]))
    .flatmap(_any_case),  # a prefix
    st.sampled_from([r.name for r in RULES]),
    st.sampled_from([ALL, "all", "", "EPX", "E-P", RULES[0].name.upper()]),
)
LISTS = st.fixed_dictionaries({}, optional={key: st.lists(SELECTOR, max_size=4) for key in (
    "select", "ignore", "fixable", "unfixable", "extend_safe_fixes", "extend_unsafe_fixes")})


@given(LISTS)
def test_same_policy_as_comparing_each_selector_with_each_rule(lists):
    old = _old_build(RULES, **lists)
    if isinstance(old, str):
        with pytest.raises(SelectorError, match=re.escape(repr(old))):
            Policy.build(RULES, **lists)
    else:
        assert Policy.build(RULES, **lists) == old


class _Counted(Sequence):
    """The rules, counting each one read."""

    def __init__(self, rules: Sequence[RuleId]) -> None:
        self.rules, self.reads = rules, 0

    def __len__(self) -> int:
        return len(self.rules)

    def __getitem__(self, i):
        rule = self.rules[i]
        self.reads += 1
        return rule


@pytest.mark.parametrize("selectors", [["EP003"], ["ep", "EP0", "ALL", RULES[5].name] * 10_000])
def test_each_rule_is_read_a_bounded_number_of_times_whatever_the_selectors(selectors):
    rules = _Counted(RULES)
    policy.validate(selectors, rules, "ignore")
    Policy.build(rules, ignore=selectors, unfixable=selectors, extend_safe_fixes=selectors)
    assert rules.reads <= 2 * len(RULES)  # the index's set-up, once for the list and the policy


def test_a_huge_ignore_list_finishes(tmp_path):
    """Issue 29's reproducer, smaller: 2 MB of ``ignore`` (~230 000 selectors, which took minutes), through the
    command line; the timeout only keeps a regression from hanging the suite."""
    selectors = ", ".join(f'"{s}"' for s in ["EP003", "ep", "A2A0", RULES[7].name] * 60_000)
    (tmp_path / "autofix.toml").write_text(f"ignore = [{selectors}]\n")
    (tmp_path / "x.yaml").write_text("tp-size: 8\nmoe-a2a-backend: none\nep-dispatch-algorithm: static\n")
    done = subprocess.run([sys.executable, "-m", "autofix", "x.yaml", "--output-format", "concise"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
