"""Which rules a run reports and which fixes it may apply: ``--select``/``--ignore``, ``--fixable``/``--unfixable``,
``--extend-safe-fixes``/``--extend-unsafe-fixes``, and their project-configuration keys.

A *selector* names rules the way ruff's do: a code (``EP003``), a code prefix (``EP``, ``EP0``, ``A2A``), a
rule name (``ep-dispatch-needs-a2a``) or ``ALL``; codes and prefixes are matched case-insensitively. Where a
selector that turns a rule on and one that turns it off both match, the more specific one wins (a code or a
name over a longer prefix over a shorter one over ``ALL``); on a tie, off wins.

Pure: a ``Policy`` is built once per set of options (``Policy.build``) and answers per code with a set lookup.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from autofix.model import Applicability, Fix, Violation

ALL = "ALL"
_PREFIX = re.compile(r"^[A-Z][A-Z0-9]*$")


class SelectorError(ValueError):
    """A selector that names no rule (``--select EPX``): the message names it."""


@dataclass(frozen=True, slots=True)
class RuleId:
    """What a selector can name of a rule: its code and its name."""

    code: str
    name: str


def _specificity(selector: str, rule: RuleId) -> int:
    """How specifically ``selector`` names ``rule`` (0: ``ALL``; the prefix length; 1000: the code or name);
    -1 when it does not name it."""
    if selector == ALL:
        return 0
    if selector == rule.name or selector.upper() == rule.code:
        return 1000
    up = selector.upper()
    if _PREFIX.match(up) and rule.code.startswith(up):
        return len(up)
    return -1


def _decide(on: Sequence[str], off: Sequence[str], rules: Iterable[RuleId]) -> frozenset[str]:
    """The codes of ``rules`` that the most specific matching selector of ``on`` turns on (``off`` wins ties)."""
    out = set()
    for rule in rules:
        best_on = max((_specificity(s, rule) for s in on), default=-1)
        best_off = max((_specificity(s, rule) for s in off), default=-1)
        if best_on >= 0 and best_on > best_off:
            out.add(rule.code)
    return frozenset(out)


def validate(selectors: Iterable[str], rules: Sequence[RuleId], what: str) -> None:
    """Raise ``SelectorError`` for a selector of ``what`` (``--select``, ...) that names no rule of ``rules``."""
    for s in selectors:
        if not any(_specificity(s, r) >= 0 for r in rules):
            raise SelectorError(f"{what}: {s!r} names no rule (a code such as EP003, a prefix such as EP, a rule "
                                f"name, or ALL; see `autofix rules`)")


@dataclass(frozen=True, slots=True)
class Policy:
    """The rules a run reports (``selected``) and how it may fix them (``adjust``).

    ``selected`` holds the codes reported; a code outside it is neither
    reported nor fixed (its derivations still run: SGLang's later steps read
    them). ``unfixable`` codes keep their fixes for display only;
    ``safe``/``unsafe`` codes have every fix promoted to safe or demoted to
    unsafe (``--extend-safe-fixes``/``--extend-unsafe-fixes``; unsafe wins
    where both name a rule, as it is the cautious reading).
    """

    selected: frozenset[str] | None = None  # None: every rule
    unfixable: frozenset[str] = frozenset()
    safe: frozenset[str] = frozenset()
    unsafe: frozenset[str] = frozenset()

    @classmethod
    def build(cls, rules: Sequence[RuleId], *, select: Sequence[str] = (ALL,), ignore: Sequence[str] = (),
              fixable: Sequence[str] = (ALL,), unfixable: Sequence[str] = (), extend_safe_fixes: Sequence[str] = (),
              extend_unsafe_fixes: Sequence[str] = ()) -> Policy:
        """A policy from selector lists (see the module docstring). Raises ``SelectorError`` for a selector that
        names no rule of ``rules``."""
        for what, sels in (("select", select), ("ignore", ignore), ("fixable", fixable), ("unfixable", unfixable),
                           ("extend-safe-fixes", extend_safe_fixes), ("extend-unsafe-fixes", extend_unsafe_fixes)):
            validate(sels, rules, what)
        every = frozenset(r.code for r in rules)
        selected = _decide(select, ignore, rules)
        can_fix = _decide(fixable, unfixable, rules)
        return cls(None if selected == every else selected, every - can_fix, _decide(extend_safe_fixes, (), rules),
                   _decide(extend_unsafe_fixes, (), rules))

    def reports(self, code: str) -> bool:
        """Whether the run reports (and fixes) violations of rule ``code``."""
        return self.selected is None or code in self.selected

    def adjust(self, violation: Violation) -> Violation:
        """``violation`` with its fixes' applicability as this policy says (unchanged when it says nothing)."""
        code = violation.code
        if not violation.fixes or not (code in self.unfixable or code in self.safe or code in self.unsafe):
            return violation
        if code in self.unfixable:
            level = Applicability.DISPLAY_ONLY
        elif code in self.unsafe:
            level = Applicability.UNSAFE
        else:
            level = Applicability.SAFE
        return replace(violation, fixes=tuple(Fix(f.ops, level, f.title) for f in violation.fixes))

    @property
    def is_default(self) -> bool:
        """Whether this policy reports every rule and changes no fix."""
        return self.selected is None and not (self.unfixable or self.safe or self.unsafe)


DEFAULT = Policy()
