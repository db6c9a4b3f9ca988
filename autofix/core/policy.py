"""Which rules a run reports and which fixes it may apply: ``--select``/``--ignore``, ``--fixable``/``--unfixable``,
``--extend-safe-fixes``/``--extend-unsafe-fixes``, and their project-configuration keys.

A *selector* names rules the way ruff's do: a code (``EP003``), a code prefix (``EP``, ``EP0``, ``A2A``), a
rule name (``ep-dispatch-needs-a2a``) or ``ALL``; codes and prefixes are matched case-insensitively. Where a
selector that turns a rule on and one that turns it off both match, the more specific one wins (a code or a
name over a longer prefix over a shorter one over ``ALL``); on a tie, off wins.

Pure: a ``Policy`` is built once per set of options (``Policy.build``) and answers per code with a set lookup.
Selectors are looked up in an index of the rules (``_Index``, kept for the last rules asked about), so a list
of them costs time linear in its length.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from autofix.common.diagnostics import Applicability, Fix, Violation

ALL = "ALL"
_PREFIX = re.compile(r"^[A-Z][A-Z0-9]*$")


class SelectorError(ValueError):
    """A selector that names no rule (``--select EPX``): the message names it."""


@dataclass(frozen=True, slots=True)
class RuleId:
    """What a selector can name of a rule: its code and its name."""

    code: str
    name: str


class _Index:
    """What each selector names among ``rules``: set up once, in time linear in the rules; then each selector
    costs one lookup (and, the first time, its matches), so a list of selectors costs time linear in its
    length (issue 29: a 16 MB ``ignore`` list compared each selector with each rule, for minutes)."""

    def __init__(self, rules: Sequence[RuleId]) -> None:
        self.codes = tuple(r.code for r in rules)
        self.all = tuple((code, 0) for code in self.codes)
        self.by_name: dict[str, list[str]] = {}
        for r in rules:
            self.by_name.setdefault(r.name, []).append(r.code)
        self.by_code = set(self.codes)
        self.by_prefix: dict[str, list[str]] | None = None  # made when a selector first needs it
        self.named_by: dict[tuple[bool, str], tuple[tuple[str, int], ...]] = {}

    def named(self, selector: str) -> tuple[tuple[str, int], ...]:
        """(code, specificity) of each rule ``selector`` names; empty when it names none. The specificity is
        0 for ``ALL``, the prefix's length for a code prefix, 1000 for the code or the name itself."""
        if selector == ALL:
            return self.all
        is_name = selector in self.by_name
        key = (is_name, selector if is_name else selector.upper())  # a code or prefix in any case: one key
        found = self.named_by.get(key)
        if found is None:
            found = self._named(selector)
            if found:  # kept: a selector that names no rule is an error, seldom asked twice
                self.named_by[key] = found
        return found

    def _named(self, selector: str) -> tuple[tuple[str, int], ...]:
        out = dict.fromkeys(self.by_name.get(selector, ()), 1000)
        up = selector.upper()
        if up in self.by_code:
            out[up] = 1000
        if _PREFIX.match(up):
            if self.by_prefix is None:
                self.by_prefix = {}
                for code in self.codes:
                    for end in range(1, len(code) + 1):
                        self.by_prefix.setdefault(code[:end], []).append(code)
            for code in self.by_prefix.get(up, ()):
                out.setdefault(code, len(up))
        return tuple(out.items())

    def decide(self, on: Sequence[str], off: Sequence[str]) -> frozenset[str]:
        """The codes that the most specific selector of ``on`` naming them turns on (``off`` wins ties)."""
        best: list[dict[str, int]] = []
        for selectors in (on, off):
            most: dict[str, int] = {}
            distinct = {id(named): named for named in map(self.named, selectors)}  # the same matches: one object
            for named in distinct.values():
                for code, specificity in named:
                    if most.get(code, -1) < specificity:
                        most[code] = specificity
            best.append(most)
        turned_on, turned_off = best
        return frozenset(code for code, level in turned_on.items() if level > turned_off.get(code, -1))


_last: tuple[Sequence[RuleId], _Index] | None = None  # the last rules asked about, and their index: a run
# asks with the same rules each time (project.rule_ids)


def _index(rules: Sequence[RuleId]) -> _Index:
    global _last
    last = _last
    if last is None or last[0] is not rules:
        last = _last = (rules, _Index(rules))
    return last[1]


def first_unknown(selectors: Sequence[str], rules: Sequence[RuleId]) -> int | None:
    """The index of the first of ``selectors`` that names no rule of ``rules``, or None."""
    index = _index(rules)
    for i, s in enumerate(selectors):
        if not index.named(s):
            return i
    return None


def validate(selectors: Sequence[str], rules: Sequence[RuleId], what: str) -> None:
    """Raise ``SelectorError`` for a selector of ``what`` (``--select``, ...) that names no rule of ``rules``."""
    i = first_unknown(selectors, rules)
    if i is not None:
        raise SelectorError(f"{what}: {selectors[i]!r} names no rule (a code such as EP003, a prefix such as EP, "
                            f"a rule name, or ALL; see `autofix rules`)")


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
        index = _index(rules)
        every = frozenset(index.codes)
        selected = index.decide(select, ignore)
        can_fix = index.decide(fixable, unfixable)
        return cls(None if selected == every else selected, every - can_fix, index.decide(extend_safe_fixes, ()),
                   index.decide(extend_unsafe_fixes, ()))

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
