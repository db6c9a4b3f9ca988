"""Run one launch's settings through SGLang's steps, in SGLang's order.

``resolve(explicit, schema)`` walks the derivations and rules of
``autofix.rules`` by their positions: a derivation declares values that
every later position sees, a rule checks the view at its own position
(SGLang never re-validates, and neither does this). What it returns:

- the violations, in pipeline order: each rule that fired, and a warning
  for each value a derivation changed although the user set it (an
  override: ``--ep-size 2`` made ``tp_size`` by ``--moe-a2a-backend
  deepep``), with a safe fix that pins the value when pinning resolves the
  launch to the same values;
- the view after the last step (``Resolution.view``).

Steps that only run with a model (after SGLang's early return for
``--model-path dummy``/``none``) are skipped for those launches. A model
path only known at launch (``$MODEL``), or not given (argparse refuses
that before), is taken to name a model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from typing import Any

from autofix.model import UNKNOWN, Fix, Set, Unset, Violation, applied
from autofix.pipeline.facts import NO_FACTS, Facts
from autofix.pipeline.items import DeclarationError, Derivation, SettingsRule
from autofix.pipeline.view import ResolvingView, Unknown
from autofix.schema import Schema

Item = Derivation | SettingsRule
NO_MODEL = ("none", "dummy")  # pipeline.py:107


@dataclass(frozen=True, slots=True)
class Resolution:
    """What the pipeline found for one launch: ``violations`` in order, the ``view`` after every step, and
    ``silenced``: how many checks read an unknown value (they may refuse the launch once it is known)."""

    violations: tuple[Violation, ...]
    view: ResolvingView
    silenced: int = 0


def order(items: Sequence[Item], schema: Schema) -> tuple[Item, ...]:
    """``items`` that apply to ``schema``'s SGLang release, in pipeline order.

    Raises ``KeyError`` for an item whose step is not in the release's step list.
    """
    index = {s.id: i for i, s in enumerate(schema.steps)}
    module = {s.id: s.module for s in schema.steps}
    usable = [it for it in items if schema.version in it.versions]

    def key(it: Item) -> tuple[int, int, int]:
        p = it.position
        step = index[p.step]
        line = p.via if p.via is not None else p.line
        if p.via is None and p.file != module[p.step]:
            raise KeyError(f"{p.at} is not in {module[p.step]}: give the line that calls it (via)")
        return step, line, p.line

    return tuple(sorted(usable, key=key))


@cache
def _ordered(items: tuple[Item, ...], schema: Schema) -> tuple[tuple[Item, bool, bool], ...]:
    """(item, whether its step runs only with a model, whether it is a rule), in pipeline order."""
    model_only = {s.id: s.model_only for s in schema.steps}
    return tuple((it, model_only[it.position.step], isinstance(it, SettingsRule)) for it in order(items, schema))


def resolve(explicit: Mapping[str, Any], schema: Schema, items: tuple[Item, ...], facts: Facts = NO_FACTS,
            *, fixes: bool = True) -> Resolution:
    """The pipeline over ``explicit`` (``dest -> value``, UNKNOWN for a shell expansion).

    ``items`` are the derivations and rules to run (``autofix.rules.SETTINGS``);
    ``fixes=False`` skips building fixes (when only the values are wanted).
    Raises ``DeclarationError`` for a derivation that declares outside its ``writes``.
    """
    view = ResolvingView(explicit, schema, facts)
    model = explicit.get("model_path", UNKNOWN)  # required: a launch without it never gets here
    dummy = model is not UNKNOWN and str(model).lower() in NO_MODEL
    found: list[Violation] = []
    silenced = 0
    for kind, part in _segments(items, schema):
        if kind == "derivation":
            item, model_only = part
            if not (model_only and dummy):
                found.extend(_derive(item, view, items, fixes))
            continue
        for item in part.to_run(view, dummy):
            view.reads = []
            v = _check(item, view, items, fixes)
            part.learn(item, view.reads, v, view)
            if v is _SILENT:
                silenced += 1
            elif v is not None:
                found.append(v)
            view.reads = None
    return Resolution(tuple(found), view, silenced)


_SILENT = Violation("silent", ())  # what _check returns for a check that read an unknown value


class _Rules:
    """The rules between two derivations, where the view does not change, and what they were quiet for.

    A check is a pure function of what it reads. One that read a single dest
    and found nothing finds nothing again for the same value of that dest:
    it is not called again then. A rule whose dest the launch neither sets
    nor has declared sees the default, so on a clean config only the rules
    of the dests it writes are looked at: the cost is flat in the number of
    rules, not a call each.
    """

    def __init__(self, rules: list[tuple[SettingsRule, bool]]) -> None:
        self.rules = rules  # (rule, its step runs only with a model), in pipeline order
        self.rank = {r: i for i, (r, _) in enumerate(rules)}
        self.model_only = dict(rules)
        self.first: dict[SettingsRule, str] = {}  # the one dest a quiet rule read
        self.quiet: dict[SettingsRule, set] = {}
        self.by_first: dict[str, list[SettingsRule]] = defaultdict(list)
        self.unsure: set[SettingsRule] = {r for r, _ in rules}  # not quiet for its dest's default

    def to_run(self, view: ResolvingView, dummy: bool) -> list[SettingsRule]:
        run = set(self.unsure)
        written = view.explicit.keys() | view._declared.keys()
        for dest in written & self.by_first.keys():
            value = view.value(dest)
            for r in self.by_first[dest]:
                try:
                    if value not in self.quiet[r]:
                        run.add(r)
                except TypeError:  # a list value: not remembered
                    run.add(r)
        return sorted((r for r in run if not (dummy and self.model_only[r])), key=self.rank.__getitem__)

    def learn(self, rule: SettingsRule, reads: list[str], found: Violation | None, view: ResolvingView) -> None:
        if found is not None or len(reads) != 1 or ":" in reads[0]:  # a fact, or how the user wrote a setting
            return
        dest = reads[0]
        value = view.value(dest)
        if value is UNKNOWN or self.first.setdefault(rule, dest) != dest:
            return
        if rule not in self.quiet:
            self.quiet[rule] = set()
            self.by_first[dest].append(rule)
        try:
            self.quiet[rule].add(value)
        except TypeError:
            return
        default = view.schema.defaults[dest]
        try:
            if default in self.quiet[rule]:
                self.unsure.discard(rule)
        except TypeError:
            pass


_SEGMENTS: dict[tuple[int, int], tuple] = {}


def _segments(items: tuple[Item, ...], schema: Schema) -> tuple:
    """The pipeline as ("derivation", (item, model_only)) and ("rules", _Rules) parts, in order (kept per
    ``items`` and ``schema`` object: hashing 400 rules per call would cost what the memo saves)."""
    key = (id(items), id(schema))
    kept = _SEGMENTS.get(key)
    if kept is not None and kept[0] is items and kept[1] is schema:
        return kept[2]
    parts = _split(items, schema)
    _SEGMENTS[key] = (items, schema, parts)
    return parts


def _split(items: tuple[Item, ...], schema: Schema) -> tuple:
    out: list = []
    for item, model_only, is_rule in _ordered(items, schema):
        if not is_rule:
            out.append(("derivation", (item, model_only)))
        elif out and out[-1][0] == "rules":
            out[-1][1].append((item, model_only))
        else:
            out.append(("rules", [(item, model_only)]))
    return tuple((k, _Rules(p) if k == "rules" else p) for k, p in out)


# What leaves a check or a declaration undecided: a value nobody knows, or a size of 0 that another check
# refuses (SGLang divides by it later, or refuses it first; the rule that mirrors that refusal reports it).
_UNDECIDED = (Unknown, ZeroDivisionError)


def _check(rule: SettingsRule, view: ResolvingView, items: tuple[Item, ...], fixes: bool) -> Violation | None:
    try:
        v = rule.check(view)
    except _UNDECIDED:
        return _SILENT  # it reads something nobody knows: report nothing it cannot back
    if v is None:
        return None
    built: list[Fix] = []
    for builder in rule.fixes if fixes else ():
        try:
            fix = builder(view)
        except _UNDECIDED:
            continue
        if fix is not None and _clears(fix, rule, view, items):
            built.append(fix)
    return Violation(v.message, v.args, tuple(built), rule.code, rule.name, v.entry, rule.refuses)


def _clears(fix: Fix, rule: SettingsRule, view: ResolvingView, items: tuple[Item, ...]) -> bool:
    """Whether the launch with ``fix`` applied no longer breaks ``rule``: a fix of a value a later-declared
    one overwrites (``--ep-size`` under DWDP) changes nothing, and would be applied again and again."""
    again = resolve(applied(view.explicit, fix.ops), view.schema, items, view.facts, fixes=False)
    return not any(v.code == rule.code for v in again.violations)


def _derive(d: Derivation, view: ResolvingView, items: tuple[Item, ...], fixes: bool) -> list[Violation]:
    try:
        out = dict(d.derive(view) or {})
    except _UNDECIDED:
        out = dict.fromkeys(d.writes, UNKNOWN)
    stray = set(out) - set(d.writes)
    if stray:
        raise DeclarationError(f"{d.position.at}: declares {sorted(stray)} outside its writes {list(d.writes)}")
    overridden = [dest for dest, new in out.items() if _overrides(view, dest, new)] if d.cause else []
    cause = None
    if overridden:
        try:
            cause = d.cause(view)  # read before the declarations, as SGLang's log line is
        except Unknown:
            cause = None
    if cause is None:
        overridden = []
    before = view.explicit
    view.declare(out)
    if not overridden:
        return []
    return [_override(d, view, before, dest, out, cause, items, fixes) for dest in overridden]


def _overrides(view: ResolvingView, dest: str, new: Any) -> bool:
    """Whether declaring ``new`` changes a value the user wrote that still stands."""
    if new is UNKNOWN or not view.is_explicit(dest):
        return False
    written = view.explicit[dest]
    return written is not UNKNOWN and view.value(dest) == written and new != written


def _override(d: Derivation, view: ResolvingView, explicit: Mapping[str, Any], dest: str, out: dict,
              cause: str, items: tuple[Item, ...], fixes: bool) -> Violation:
    schema = view.schema
    option = schema[dest]
    message = f"{option.flag} {_shown(explicit[dest])} is ignored: {cause} makes it {_shown(out[dest])}"
    built: tuple[Fix, ...] = ()
    final = resolve(explicit, schema, items, view.facts, fixes=False) if fixes else None
    # no pin while SGLang refuses the launch, or may (a check read an unknown): the errors' fixes go first,
    # the warning is pinned once they are in
    if final is not None and not final.silenced and not any(v.refuses for v in final.violations):
        # write what runs (every dest this step declares: an alias sets two), else drop the ignored setting
        for ops in (_pin(explicit, {x: final.view.value(x) for x in out}, schema), [Unset(dest)]):
            if ops and _settles(explicit, ops, dest, final, schema, items, view.facts):
                built = (Fix.safe(*ops, title=", ".join(_title(op, schema) for op in ops)),)
                break
    return Violation(message, (dest,), built, d.code or "", d.name or "", None, False)


def _title(op, schema: Schema) -> str:
    if isinstance(op, Unset):
        return f"Remove {schema[op.dest].flag}"
    return f"Set {schema[op.dest].flag} to {_shown(op.value)}"


def _pin(explicit: Mapping[str, Any], values: dict, schema: Schema) -> list:
    """Ops that make the settings say ``values`` (the default: the setting removed)."""
    ops: list = []
    for dest, value in values.items():
        if value is UNKNOWN or (dest in explicit and explicit[dest] == value):
            continue
        if value == schema.default(dest):
            if dest in explicit:
                ops.append(Unset(dest))
        else:
            ops.append(Set(dest, value))
    return ops


def _settles(explicit: Mapping[str, Any], ops: list, dest: str, before: Resolution, schema: Schema,
             items: tuple[Item, ...], facts: Facts) -> bool:
    """Whether ``ops`` resolve the launch to the same values, make no check refuse it that did not, and leave
    no override of ``dest`` (so that fixing converges)."""
    pinned = applied(explicit, ops)
    after = resolve(pinned, schema, items, facts, fixes=False)
    refused = {v.code for v in before.violations if v.refuses}
    if any(v.refuses and v.code not in refused for v in after.violations):
        return False  # an earlier check reads the pinned value, and refuses it
    if any(not v.refuses and dest in v.args for v in after.violations):
        return False  # another step still overrides it
    dests = set(explicit) | set(pinned) | set(before.view.declared()) | set(after.view.declared())
    return all(before.view.value(x) == after.view.value(x) for x in dests)


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)
