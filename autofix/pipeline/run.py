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

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from heapq import heapify, heappop, heappush
from typing import Any

from autofix.common.diagnostics import UNKNOWN, Fix, Op, Set, Unset, Violation, applied
from autofix.pipeline.baseline import UNANSWERED, Baseline, same, walk
from autofix.pipeline.facts import NO_FACTS, Facts
from autofix.pipeline.items import DeclarationError, Derivation, SettingsRule
from autofix.pipeline.view import ResolvingView, Unknown
from autofix.schema import Schema

Item = Derivation | SettingsRule
NO_MODEL = ("none", "dummy")  # pipeline.py:107


@dataclass(frozen=True, slots=True)
class Resolution:
    """What the pipeline found for one launch: ``violations`` in order, the ``view`` after every step, and
    ``silenced``: how many checks read an unknown value (they may refuse the launch once it is known);
    ``silent``: the codes of those checks."""

    violations: tuple[Violation, ...]
    view: ResolvingView
    silenced: int = 0
    silent: frozenset[str] = frozenset()


def order(items: Sequence[Item], schema: Schema) -> tuple[Item, ...]:
    """``items`` that apply to ``schema``'s SGLang release, in pipeline order.

    Raises ``KeyError`` for an item whose step is not in the release's step list.
    """
    index = {s.id: i for i, s in enumerate(schema.steps)}
    module = {s.id: s.module for s in schema.steps}
    usable = [it for it in items if schema.version in it.versions]

    def key(it: Item) -> tuple[int, ...]:
        p = it.position
        step = index[p.step]
        line = p.via if p.via is not None else p.line
        if p.via is None and p.file != module[p.step]:
            raise KeyError(f"{p.at} is not in {module[p.step]}: give the line that calls it (via)")
        return step, line, *p.calls, p.line  # nested calls (Position.calls) order positions under one via

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
    silent: list[str] = []
    agenda = _agenda(items, schema)
    steps = agenda.steps
    base = agenda.baseline(facts, dummy)
    # A step whose reads all match the baseline's (a launch that sets nothing: ``baseline.py``) finds what it
    # found there. differ: the dests whose value differs from the baseline's at the current position (at the
    # start, the defaults); lookup: the steps that read one of them, or whether a dest the launch writes is
    # written, to look up (or run) when their turn comes
    readers, checkers, defaults = base.readers, base.checkers, view._defaults
    lookup = set(base.always)
    differ = set()
    for dest, value in view.explicit.items():
        if dest in checkers:
            lookup.update(checkers[dest])
        if dest in readers and not same(value, defaults[dest]):
            differ.add(dest)
            lookup.update(readers[dest])
    queued = lookup.union(base.declaring)  # and the derivations that declare on the baseline: they declare here too
    due = list(queued)
    heapify(due)
    while due:
        rank = heappop(due)
        # is_rule says whether item is a SettingsRule or a Derivation (read from the tuple: the loop needs no
        # isinstance; a type checker cannot tie an unpacked tuple's parts, hence the ignores below)
        item, model_only, is_rule = steps[rank]
        if model_only and dummy:
            continue
        if rank not in lookup:  # only a derivation that declares on the baseline is due without a look-up
            _declare_all(item, view, base.found[rank], items, fixes, found)  # type: ignore[arg-type]  # a derivation
            continue
        out = agenda.recall(rank, view)
        if out is _MISS:
            reads = view.reads = []
            out = _check(item, view, items, fixes) if is_rule else _derived(item, view)  # type: ignore[arg-type]  # is_rule
            view.reads = None
            if out is None or not is_rule:
                agenda.learn(rank, view, reads, out)
        if is_rule:
            if out is _SILENT:
                silent.append(item.code)  # type: ignore[arg-type]  # a rule's code is a str
            elif out is not None:
                found.append(out)
            continue
        _declare_all(item, view, out, items, fixes, found)  # type: ignore[arg-type]  # not is_rule: a derivation
        # what it declared here, or what it declared on the baseline, may now differ from the baseline's value
        after = base.after[rank]
        for dest in (out.keys() | base.found[rank].keys()) if base.found[rank] is not UNANSWERED else out:
            if same(view.value(dest), after[dest]):
                differ.discard(dest)
            elif dest not in differ:
                differ.add(dest)
                for r in readers.get(dest, ()):
                    if r > rank and r not in lookup:
                        lookup.add(r)
                        if r not in queued:
                            queued.add(r)
                            heappush(due, r)
    if base.silent:  # the checks that read an unknown on the baseline and were not looked up read it here too
        silent.extend(base.silent_codes if base.silent.isdisjoint(lookup) else
                      [steps[r][0].code for r in sorted(base.silent - lookup)])  # type: ignore[misc]  # rules' codes
    return Resolution(tuple(found), view, len(silent), frozenset(silent))


def _declare_all(d: Derivation, view: ResolvingView, out: dict[str, Any], items: tuple[Item, ...], fixes: bool,
                 found: list[Violation]) -> None:
    """Declare ``out`` (what ``d`` found), and add its override warnings to ``found``."""
    if not out:
        return
    if d.cause is None or view.explicit.keys().isdisjoint(out):
        view.declare(out)  # it replaces no value the user wrote (most declarations on most launches): no warning
        return
    found.extend(_declare(d, view, out, items, fixes))


_SILENT = Violation("silent", ())  # what _check returns for a check that read an unknown value
_MISS = object()  # what ``_Agenda.recall`` returns for a step it cannot answer for


class _Agenda:
    """The pipeline's steps in order, their baselines (``baseline.py``), and what they found before.

    A step is a pure function of what it reads, in the order it reads it:
    on values that match, read for read, those of an earlier run, it takes
    the same path and finds the same. So each step keeps a decision tree of
    its runs (which dest or fact it read first, for each value the next
    read, ..., and at the end what it found) for the runs that had nothing
    to report: no violation (a rule), the declarations (a derivation). A
    launch looks up only the steps whose reads differ from the baseline's
    (a launch that sets nothing), and runs only those that meet values they
    have not seen: the cost is flat in the number of steps, not a call each.
    """

    KEEP = 64  # runs remembered per step (memory stays flat over many files)
    BASELINES = 16  # baselines kept (per facts and model/no-model): a run has one or two

    def __init__(self, steps: tuple[tuple[Item, bool, bool], ...], schema: Schema) -> None:
        self.steps = steps  # (item, its step runs only with a model, whether it is a rule), in pipeline order
        self.schema = schema
        self.trees: dict[int, _Node] = {}  # rank -> its runs
        self.size: dict[int, int] = {}  # rank -> how many runs its tree holds
        self._baselines: dict[Any, tuple[Facts, Baseline]] = {}

    def baseline(self, facts: Facts, dummy: bool) -> Baseline:
        """The ``Baseline`` for ``facts`` (and a launch of no model, when ``dummy``), walked once and kept: by
        the ``facts`` object, else by what it holds (a config file's ``--gpu`` gives equal facts each time)."""
        kept = self._baselines.get((id(facts), dummy))
        if kept is not None and kept[0] is facts:
            return kept[1]
        try:
            key = (frozenset(facts.known.items()), dummy)
            kept = self._baselines.get(key)
        except TypeError:  # an unhashable fact value: kept by object only
            key, kept = None, None
        if kept is None:
            if len(self._baselines) >= 2 * self.BASELINES:
                self._baselines.clear()
            kept = (facts, walk(self.steps, ResolvingView({}, self.schema, facts), _step, dummy, _SILENT))
            if key is not None:
                self._baselines[key] = kept
        self._baselines[(id(facts), dummy)] = (facts, kept[1])
        return kept[1]

    def recall(self, rank: int, view: ResolvingView) -> Any:
        """What the step at ``rank`` found before on the values it reads in ``view`` (None: a rule's
        nothing; a dict: a derivation's declarations), or ``_MISS``."""
        node = self.trees.get(rank)
        declared, explicit, defaults = view._declared, view.explicit, view._defaults
        try:
            while node is not None:
                if node.leaf:
                    return node.found
                dest = node.dest
                if node.kind == _DEST:  # view.value, inlined: most reads are of a dest
                    value = declared[dest] if dest in declared else explicit[dest] if dest in explicit \
                        else defaults[dest]
                else:
                    value = _read(view, node.name)  # type: ignore[arg-type]  # a node that is no leaf has a read
                node = node.next.get(value)
        except TypeError:  # a list value: not remembered
            pass
        return _MISS

    def learn(self, rank: int, view: ResolvingView, reads: list[str], found: Any) -> None:
        """Remember what the step at ``rank`` found (None, or a derivation's declarations), reading
        ``reads`` (in order) of ``view``."""
        if self.size.get(rank, 0) >= self.KEEP:
            return
        values = [_read(view, name) for name in reads]  # UNKNOWN too: a step that reads one finds the same
        node = self.trees.get(rank)
        if node is None:
            node = self.trees[rank] = _Node()
        try:
            for name, value in zip(reads, values):
                if node.name is None and not node.leaf:
                    node.reads(name)
                if node.leaf or node.name != name:
                    return  # the step read something else here before: not a pure function of its reads
                nxt = node.next.get(value)
                if nxt is None:
                    nxt = node.next[value] = _Node()
                node = nxt
        except TypeError:
            return
        if node.leaf or node.name is not None:
            return  # already known (or read further before)
        node.leaf, node.found = True, found
        self.size[rank] = self.size.get(rank, 0) + 1


def _step(item: Item, is_rule: bool, view: ResolvingView) -> Any:
    """One step on ``view`` as the baseline walks it: a rule's violation (no fixes), None or ``_SILENT``; a
    derivation's declarations."""
    return _check(item, view, (), False) if is_rule else _derived(item, view)  # type: ignore[arg-type]  # is_rule


_DEST, _EXPLICIT, _FACT = range(3)  # what a read is of: a dest's value, whether and how it is set, a fact


class _Node:
    """One read of a step's decision tree (``name`` as the view records it, and the next node for each value
    it saw), or a leaf: what the step found."""

    __slots__ = ("name", "dest", "kind", "next", "leaf", "found")

    def __init__(self) -> None:
        self.name: str | None = None
        self.next: dict[Any, _Node] = {}
        self.leaf = False
        self.found: Any = None

    def reads(self, name: str) -> None:
        self.name = name
        self.kind = _FACT if name.startswith("fact:") else _EXPLICIT if name.startswith("explicit:") else _DEST
        self.dest = name.split(":", 1)[-1]


def _read(view: ResolvingView, name: str) -> Any:
    """What one read (as the view records it: a dest, ``explicit:dest``, ``fact:name``) sees in ``view``."""
    if name.startswith("fact:"):
        return view.facts.get(name[5:])
    if name.startswith("explicit:"):
        dest = name[9:]
        return (True, view.explicit[dest]) if dest in view.explicit else _ABSENT
    return view.value(name)


_ABSENT = ("absent",)  # an ``explicit:`` read of a dest the launch does not set


_AGENDAS: dict[tuple[int, int], tuple[tuple[Item, ...], Schema, _Agenda]] = {}


def _agenda(items: tuple[Item, ...], schema: Schema) -> _Agenda:
    """The ``_Agenda`` of ``items`` for ``schema`` (kept per ``items`` and ``schema`` object: hashing 400
    rules per call would cost what the memo saves)."""
    key = (id(items), id(schema))
    kept = _AGENDAS.get(key)
    if kept is not None and kept[0] is items and kept[1] is schema:
        return kept[2]
    agenda = _Agenda(_ordered(items, schema), schema)
    _AGENDAS[key] = (items, schema, agenda)
    return agenda


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
    built = tuple(fix for fix, clears in _built(rule, view, items) if clears) if fixes else ()
    return Violation(v.message, v.args, built, rule.code, rule.name, v.entry, rule.refuses)


def _built(rule: SettingsRule, view: ResolvingView, items: tuple[Item, ...]) -> Iterator[tuple[Fix, bool]]:
    """Each fix ``rule``'s builders make on ``view`` (where it fired), best first, with whether it clears the rule
    (``_clears``): the pipeline keeps only those that do (``trace.unclearing`` names the others, for the tests).
    A builder that reads an unknown makes none."""
    for builder in rule.fixes:
        try:
            fix = builder(view)
        except _UNDECIDED:
            continue
        if fix is not None:
            yield fix, _clears(fix, rule, view, items)


def _clears(fix: Fix, rule: SettingsRule, view: ResolvingView, items: tuple[Item, ...]) -> bool:
    """Whether the launch with ``fix`` applied no longer breaks ``rule``: a fix of a value a later-declared
    one overwrites (``--ep-size`` under DWDP) changes nothing, and would be applied again and again. A rule
    that reads an unknown on the fixed launch may still refuse it once that is known: not cleared."""
    # a settings rule's fixes are of settings ops (Set, Unset), not entry ops
    again = resolve(applied(view.explicit, fix.ops),  # type: ignore[arg-type]
                    view.schema, items, view.facts, fixes=False)
    return rule.code not in again.silent and not any(v.code == rule.code for v in again.violations)


def _derived(d: Derivation, view: ResolvingView) -> dict[str, Any]:
    """What derivation ``d`` declares on ``view`` (every dest of its ``writes`` unknown when it reads an unknown).

    Raises ``DeclarationError`` for a dest outside its ``writes``.
    """
    try:
        out = dict(d.derive(view) or {})
    except _UNDECIDED:
        out = dict.fromkeys(d.writes, UNKNOWN)
    stray = set(out) - set(d.writes)
    if stray:
        raise DeclarationError(f"{d.position.at}: declares {sorted(stray)} outside its writes {list(d.writes)}")
    return out


def _declare(d: Derivation, view: ResolvingView, out: dict[str, Any], items: tuple[Item, ...],
             fixes: bool) -> list[Violation]:
    """Declare ``out`` (derivation ``d``'s) on ``view``: an override warning for each value the user set that
    it replaces."""
    overridden = [dest for dest, new in out.items() if _overrides(view, dest, new)] if d.cause else []
    cause = None
    if overridden:
        assert d.cause is not None  # overridden is empty without it
        try:
            cause = d.cause(view)  # read before the declarations, as SGLang's log line is
        except Unknown:
            cause = None
    before = view.explicit
    view.declare(out)
    if cause is None:
        return []
    return [_override(d, view, before, dest, out, cause, items, fixes) for dest in overridden]


def _derive(d: Derivation, view: ResolvingView, items: tuple[Item, ...], fixes: bool) -> list[Violation]:
    """Run derivation ``d`` on ``view`` and declare what it derives (``_derived``, then ``_declare``)."""
    return _declare(d, view, _derived(d, view), items, fixes)


def _overrides(view: ResolvingView, dest: str, new: Any) -> bool:
    """Whether declaring ``new`` changes a value the user wrote that still stands."""
    if new is UNKNOWN or not view.is_explicit(dest):
        return False
    written = view.explicit[dest]
    return written is not UNKNOWN and view.value(dest) == written and new != written


def _override(d: Derivation, view: ResolvingView, explicit: Mapping[str, Any], dest: str, out: dict[str, Any],
              cause: str, items: tuple[Item, ...], fixes: bool) -> Violation:
    schema = view.schema
    option = schema[dest]
    message = f"{option.flag} {_shown(explicit[dest])} is ignored: {cause} makes it {_shown(out[dest])}"
    built: tuple[Fix, ...] = ()
    final = resolve(explicit, schema, items, view.facts, fixes=False) if fixes else None
    # no pin while SGLang refuses the launch, or may (a check read an unknown): the errors' fixes go first,
    # the warning is pinned once they are in
    if final is not None and not final.silenced and not any(v.refuses for v in final.violations):
        # write what runs (every dest this step declares: an alias sets two), else drop the ignored setting;
        # where an earlier step read the ignored value (the graph backends read the a2a backend), pin what
        # that step made of it too
        pin = _pin(explicit, {x: final.view.value(x) for x in out}, schema)
        for ops in (pin, [Unset(dest)], _pin_also(explicit, pin, final, schema, items, view.facts)):
            if ops and _settles(explicit, ops, dest, final, schema, items, view.facts):
                built = (Fix.safe(*ops, title=", ".join(_title(op, schema) for op in ops)),)
                break
    return Violation(message, (dest,), built, d.code or "", d.name or "", None, False)


def _title(op: Op, schema: Schema) -> str:
    if isinstance(op, Unset):
        return f"Remove {schema[op.dest].flag}"
    return f"Set {schema[op.dest].flag} to {_shown(op.value)}"


def _pin(explicit: Mapping[str, Any], values: Mapping[str, Any], schema: Schema) -> list[Op]:
    """Ops that make the settings say ``values`` (the default: the setting removed)."""
    ops: list[Op] = []
    for dest, value in values.items():
        if value is UNKNOWN or (dest in explicit and explicit[dest] == value):
            continue
        option = schema[dest]
        if option.nargs == 0 and dest in explicit:  # a flag of no value is not rewritten in place: remove it
            ops.append(Unset(dest))
            continue
        if option.nargs == 0 and value != schema.default(dest) and value != (
                True if option.kind == "boolean_optional" else option.const):
            continue  # a flag of no value writes only its const (a store_true: on), never another value
        if value == schema.default(dest):
            if dest in explicit:
                ops.append(Unset(dest))
        else:
            ops.append(Set(dest, value))
    return ops


def _pin_also(explicit: Mapping[str, Any], ops: list[Op], final: Resolution, schema: Schema,
              items: tuple[Item, ...], facts: Facts) -> list[Op]:
    """``ops`` and the ops that pin every other value they change back to ``final``'s."""
    if not ops:
        return []
    pinned = applied(explicit, ops)
    after = resolve(pinned, schema, items, facts, fixes=False).view
    dests = set(after.declared()) | set(final.view.declared())
    changed = {x: final.view.value(x) for x in sorted(dests - {getattr(op, "dest", None) for op in ops})
               if after.value(x) != final.view.value(x)}
    more = _pin(pinned, changed, schema)
    return ops + more if more else []


def _settles(explicit: Mapping[str, Any], ops: Sequence[Op], dest: str, before: Resolution, schema: Schema,
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
