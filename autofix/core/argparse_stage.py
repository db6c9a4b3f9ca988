"""The argparse stage of one text: how each launch's settings are written (argparse and the ``--config`` reader:
spellings, choices, repeats), fixed in place and re-read, to a fixpoint (``engine.fixpoint``).

``run`` reads the text with its adapter and goes round passes: each pass checks every launch's written
settings (``engine.check_args``, the ``WrittenRule``s), chooses the fixes (``engine.choose_entry_fixes``),
settles the edits of the launches together (``Proposals``), applies them and reads the text again. Its
result (``ArgStage``) is the corrected text, read, with what every pass found, placed in the text as read.
A fix's ``Set``/``Unset`` ops on a launch's other file (``Written.unset``) are written there with it, through
``Merges`` (``autofix.core.configs``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from autofix.adapters.launch import Launch
from autofix.common.diagnostics import (
    Diagnostic,
    EntryOp,
    Fix,
    Location,
    Op,
    Respell,
    Rewrite,
    Set,
    TextEdit,
    Unset,
    Violation,
)
from autofix.common.edits import Edit, apply_edits, line_col, mapper_back, offset_of
from autofix.common.errors import CannotEdit
from autofix.common.written import Layers, Spellings, Written
from autofix.core import engine
from autofix.core import fix_edits as placing
from autofix.core.proposals import Proposals
from autofix.core.results import diagnostic
from autofix.schema import Schema

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter
    from autofix.core.options import Checking

Locator = Callable[[Location], Location]  # a location in a corrected text -> in the text as read


class Merges:
    """The other files of the launches of a text, as its argparse stage sees them (``run``'s ``merges``): a
    command line's ``--config`` file (``configs.ConfigFiles``), a ``--config`` file's command lines
    (``configs.Readers``)."""

    def layers(self, launches: list[Launch]) -> list[tuple[Layers | None, Launch]]:
        """Per launch of the text: (its other file, as ``Written.layers``, or None; the launch SGLang runs)."""
        raise NotImplementedError

    def edits(self, launched: Launch, ops: list[Op]) -> tuple[str, list[Edit]]:
        """(the name of the file, its edits) that write ``ops`` (``Set``/``Unset``) in ``launched``'s other file.
        Raises ``CannotEdit``."""
        raise CannotEdit("the launch's other file cannot be edited from here")

    def amend(self, name: str, edits: list[Edit]) -> None:
        """Apply ``edits`` (from ``edits``) to file ``name``."""
        raise NotImplementedError

    def placed(self, name: str, edits: list[Edit]) -> tuple[TextEdit, ...] | None:
        """``edits`` (from ``edits``) placed in file ``name`` as read, or None where its own fixes changed it
        first (``fix_edits``)."""
        return None


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(slots=True, eq=False, repr=False)
class ArgStage:
    """The argparse stage's passes over a text: the corrected text, read, and what was found.

    ``diagnostics`` are every pass's findings, placed in the text as read (each once); ``remaining`` those on
    the corrected text, each editable or not as the run left it; ``conflicts`` the notes of fixes not applied.
    A ``--config`` file's stage takes one more pass when a command line's fix writes there (``Merges.amend``).
    """

    text: str
    launches: list[Launch]
    diagnostics: list[Diagnostic]
    remaining: list[Diagnostic]
    conflicts: list[str]
    chain: list[list[Edit]]  # the edits of each pass, oldest first
    # per launch: the codes of the host-stage fixes it exists by (a Dockerfile exec form made JSON), or ()
    born: list[tuple[str, ...]] = field(default_factory=list)
    is_config: bool = True  # False: YAML most of whose keys are not SGLang options, as written

    def locator(self, original: str) -> Locator:
        """Map a location in the corrected text back to ``original``."""
        return locator(original, self.text, self.chain)


def locator(original: str, current: str, chain: list[list[Edit]]) -> Locator:
    """Map a location in ``current`` back to ``original``, which the passes' edits (``chain``) made it."""
    if not chain:
        return lambda loc: loc

    backs = [mapper_back(edits) for edits in reversed(chain)]  # once: a pass may place 50 000 findings

    def back(loc: Location) -> Location:
        offset = offset_of(current, loc.line, loc.col)
        for step in backs:
            offset = step(offset)
        return Location(*line_col(original, offset))

    return back


def run(text: str, adapter: Adapter, path: str, checking: Checking, merges: Merges | None = None,
        check_non_configs: bool = True) -> ArgStage:
    """Check how each launch's settings in ``text`` (the file at ``path``) are written; fix in place and re-read,
    to a fixpoint (at most ``engine.MAX_PASSES`` passes).

    A pass whose edits would not read back (a layout the adapter cannot edit that way) is not applied: its
    fixes are reported as not applied. ``checking.screen`` is what the call keeps of each finding (the
    launches of a ``command`` adapter are commands: a comment above one covers it); with
    ``checking.fix_edits``, each fix of the first pass is placed on its own. ``merges``: the launches' other
    files: the rules see each launch's settings as SGLang merges them, and a fix's ``Set``/``Unset`` ops are
    written in the other file, with the fix; without it, a launch is its own text alone. A text that is no
    config (``adapter.looks_like_config`` as written: ``ArgStage.is_config``) is checked only with
    ``check_non_configs``. Raises ``InputError`` for a text the adapter cannot read.
    """
    launches = adapter.read(text, path, checking.schema)
    is_config = adapter.looks_like_config(launches, checking.schema)
    if not is_config and not check_non_configs:
        return ArgStage(text, launches, [], [], [], [], [()] * len(launches), is_config=False)
    if checking.screen is not None:
        checking.screen.read(path, text, adapter, launches)
    passes = _Passes(text, adapter, path, checking, merges, len(launches))
    (current, launches), stop = engine.fixpoint((text, launches), passes, lambda state: state[0])
    if stop == "cycle":
        passes.conflicts.append(f"{path}:1:1: fixes of {', '.join(sorted(passes.fixed.codes))} undo each other")
    return passes.result(current, launches, is_config)


# the findings of a pass on its text, and for each whether the mode could fix it
Checked = list[tuple[Launch, list[Violation], list[bool]]]


class _Passes:
    """One pass of the argparse stage (``__call__``: (text, launches) -> the text its fixes make, read, or None
    when it applies none), and what the passes found so far."""

    def __init__(self, text: str, adapter: Adapter, path: str, checking: Checking, merges: Merges | None,
                 count: int) -> None:
        self.original, self.adapter, self.path, self.checking, self.merges = text, adapter, path, checking, merges
        self.command = adapter.SOURCE == "command"
        self.chain: list[list[Edit]] = []
        self.diagnostics: list[Diagnostic] = []
        self.seen: set[tuple[str, str, Location]] = set()
        self.fixed = _Fixed()  # (code, dests) of every fix applied in earlier passes
        self.conflicts: list[str] = []
        self.suppressed: set[tuple[str, str]] = set()  # the suppressed violations of the text as written
        self.spellings = Spellings()  # the file's unknown options' close spellings, within their bound
        self.born: list[tuple[str, ...]] = [()] * count
        # the last pass's findings on its text, and for each whether the mode could fix it: not where its fix was
        # chosen and not applied (a sweep's shared text that launches need fixed otherwise), nor in a blocked launch
        self.checked: Checked = []

    def views(self, launches: list[Launch]) -> list[tuple[Layers | None, Launch]]:
        """Per launch: its other file (``Written.layers``), and the launch SGLang runs."""
        if self.merges is None:
            return [(None, launch) for launch in launches]
        return self.merges.layers(launches)

    def __call__(self, state: tuple[str, list[Launch]]) -> tuple[str, list[Launch]] | None:
        current, launches = state
        schema, level, chain = self.checking.schema, self.checking.level, self.chain
        back = locator(self.original, current, chain)
        proposals = Proposals(launches)
        views: list[tuple[Layers | None, Launch]] = self.merges.layers(launches) if self.merges is not None \
            else [(None, launch) for launch in launches]
        found_by: list[list[Violation]] = []
        chosen_by: list[list[Fix | None]] = []
        elsewhere: dict[int, tuple[str, list[Edit]]] = {}  # launch -> its fixes' edits of its --config file
        for index, launch in enumerate(launches):
            layers, launched = views[index]
            found = self.found(launch, back, not chain, layers)
            chosen = engine.choose_entry_fixes(found, level)
            found_by.append(found)
            chosen_by.append(chosen)
            if any(chosen):
                self.propose(index, current, launch, launched, chosen, proposals, elsewhere)
        edits, done = proposals.settle()
        applied, host_fixed, new = self.report(launches, found_by, chosen_by, proposals, done, back, current, views)
        if edits:
            candidate = apply_edits(current, edits)
            try:
                again = self.adapter.read(candidate, self.path, schema)
            except Exception:  # noqa: BLE001 - an edit this layout cannot take: keep the text
                self.conflicts.append(f"{self.path}:1:1: fixes not applied: the edited text would not read back")
                new = [replace(d, fixable=False, fix_available=False) for d in new]
                self.checked = [(launch, found, [False] * len(found)) for launch, found, _ in self.checked]
                edits = []
        for index, (name, config_edits) in elsewhere.items():  # with the script's edits, or not at all
            if (index, None) in done and edits:
                assert self.merges is not None
                self.merges.amend(name, config_edits)
        self.diagnostics.extend(new)
        if not edits:
            return None
        self.born = _born(locator(self.original, current, chain), launches, self.born,
                          locator(self.original, candidate, [*chain, edits]), again, tuple(dict.fromkeys(host_fixed)))
        chain.append(edits)
        self.fixed.extend(applied)
        self.checked = []  # the text changed: what remains is checked at the end
        return candidate, again

    def found(self, launch: Launch, back: Locator, as_written: bool, layers: Layers | None) -> list[Violation]:
        """The argparse-stage violations of ``launch`` that the screen keeps (``back`` places them in the text as
        read; ``as_written``: see ``engine.screened``: a later pass's fixes make no suppressed finding).
        ``layers``: the launch's other file, if any; a fix that would write there when it may not
        (``Layers.editable``) is left out."""
        checking = self.checking
        found = engine.check_args(Written(launch.entries, launch.parsed, checking.schema, checking.others,
                                          self.adapter.SOURCE, launch.host, layers, self.spellings))
        if found and not (layers is not None and layers.editable):
            found = [_within_file(v) for v in found]
        if checking.screen is None or not found:
            return found
        return engine.screened(found, checking.screen.for_launch(self.path, launch, back, self.command),
                               self.suppressed, as_written=as_written)

    def propose(self, index: int, current: str, launch: Launch, launched: Launch, chosen: list[Fix | None],
                proposals: Proposals, elsewhere: dict[int, tuple[str, list[Edit]]]) -> None:
        """Propose the edits of launch ``index``'s ``chosen`` fixes of ``current`` (``elsewhere``: the edits of its
        other file, written with them); refuse them where the text cannot take them."""
        ops = [op for f in chosen if f for op in f.ops]
        if not ops:
            return
        schema = self.checking.schema
        if getattr(launch.ctx, "covers", None) is not None:
            # text other launches read: each fix is settled on its own (see Proposals)
            for k, f in enumerate(chosen):
                if f:
                    try:
                        proposals.add(index, self.adapter.edit_entries(current, launch, list(f.ops), schema), k)  # type: ignore[arg-type]  # every op is an entry op here: no other file (``_within_file``)
                    except CannotEdit as exc:
                        proposals.refuse(index, str(exc), getattr(exc, "location", None), whole=False)
            return
        own, other = _own_ops(ops)
        try:
            proposals.add(index, self.adapter.edit_entries(current, launch, own, schema))
            if other:
                assert self.merges is not None
                elsewhere[index] = self.merges.edits(launched, other)
        except CannotEdit as exc:
            proposals.refuse(index, str(exc), getattr(exc, "location", None))

    def report(self, launches: list[Launch], found_by: list[list[Violation]], chosen_by: list[list[Fix | None]],
               proposals: Proposals, done: set[tuple[int, int | None]], back: Locator, current: str,
               views: list[tuple[Layers | None, Launch]],
               ) -> tuple[list[tuple[str, frozenset[str]]], list[str], list[Diagnostic]]:
        """What a pass found, as diagnostics new to the stage; (the fixes applied, as (code, dests touched); the
        codes of those applied to commands their file did not run; the diagnostics). Sets ``checked``."""
        applied: list[tuple[str, frozenset[str]]] = []
        host_fixed: list[str] = []  # the codes of the fixes applied to commands their file did not run
        new: list[Diagnostic] = []
        self.checked = []
        schema, level, path = self.checking.schema, self.checking.level, self.path
        for index, launch in enumerate(launches):
            found, chosen = found_by[index], chosen_by[index]
            # a fix is applied with its launch's (None), or on its own (k) where launches share text
            fixed_here = [(index, None) in done or (index, k) in done for k in range(len(found))]
            editable = index not in proposals.blocked
            if index in proposals.refused:
                loc = back(proposals.where.get(index, launch.start))
                self.conflicts.append(f"{path}:{loc.line}:{loc.col}: fixes not applied: {proposals.refused[index]}")
            applied.extend((v.code, _dests(launch, v) | _fix_dests(launch, f, schema))
                           for v, f, ok in zip(found, chosen, fixed_here) if f and ok)
            if launch.host is not None:
                host_fixed.extend(v.code for v, f, ok in zip(found, chosen, fixed_here) if f and ok)
            self.checked.append((launch, found, [fixed_here[k] or (editable and not chosen[k])
                                                 for k in range(len(found))]))
            for k, v in enumerate(found):
                dests = _dests(launch, v)
                after = self.fixed.causes(dests)
                if self.born[index]:  # a launch a host-stage fix made: all it shows appears once that is fixed
                    after = tuple(dict.fromkeys(self.born[index] + self.fixed.touching(dests)))
                alone = self.fix_edits(v, current, launch, views[index][1]) if \
                    self.checking.fix_edits and not self.chain and not after else ()
                d = diagnostic(path, launch, replace(v, after=after) if after else v, level,
                               fixed_here[k] or (editable and not chosen[k]), back, alone)
                key = (v.code, v.message, d.location)
                if key not in self.seen:
                    self.seen.add(key)
                    new.append(d)
        return applied, host_fixed, new

    def fix_edits(self, v: Violation, current: str, launch: Launch,
                  launched: Launch) -> tuple[tuple[TextEdit, ...] | None, ...]:
        """Each of ``v``'s fixes of the text as read (``current``) on its own, as ``TextEdit``s (``fix_edits``): its
        entry ops here, its ``Set``/``Unset`` ops in the launch's ``--config`` file (None where that file's own
        fixes changed it first)."""
        merges, schema, path = self.merges, self.checking.schema, self.path

        def render(fix: Fix) -> tuple[TextEdit, ...] | None:
            own, other = _own_ops(list(fix.ops))
            out = placing.placed(self.adapter.edit_entries(current, launch, own, schema), current, (), path)
            if not other or out is None:
                return out
            assert merges is not None
            more = merges.placed(*merges.edits(launched, other))
            return None if more is None else out + more

        return placing.of_fixes(v.fixes, render)

    def result(self, current: str, launches: list[Launch], is_config: bool) -> ArgStage:
        """The stage, ended on ``current`` (read as ``launches``): what remains there, each editable or not."""
        level = self.checking.level
        back = locator(self.original, current, self.chain)
        if not self.checked:  # stopped with fixes still coming: what is there now remains, unfixed
            self.checked = [(launch, found, [False] * len(found)) for launch, (layers, _) in
                            zip(launches, self.views(launches))
                            for found in [self.found(launch, back, False, layers)]]
        remaining = [diagnostic(self.path, launch, v, level, editable, back)
                     for launch, found, editables in self.checked for v, editable in zip(found, editables)]
        return ArgStage(current, launches, self.diagnostics, remaining, self.conflicts, self.chain, self.born,
                        is_config)


def _entry_ops(ops: Sequence[Op | EntryOp]) -> list[EntryOp]:
    """``ops`` of a fix that writes only how its own file's settings are written."""
    return [op for op in ops if not isinstance(op, (Set, Unset))]


def _own_ops(ops: Sequence[Op | EntryOp]) -> tuple[list[EntryOp], list[Op]]:
    """``ops`` split into (the entry ops on this file, the ``Set``/``Unset`` ops on the launch's other file)."""
    other: list[Op] = [op for op in ops if isinstance(op, (Set, Unset))]
    return _entry_ops(ops), other


def _within_file(v: Violation) -> Violation:
    """``v`` without the fixes that would write the launch's other file (``Set``/``Unset``): a fix of a file
    whose other file may not be edited (a ``--config`` file's command lines, a file other launches read)."""
    kept = tuple(f for f in v.fixes if not any(isinstance(op, (Set, Unset)) for op in f.ops))
    return v if len(kept) == len(v.fixes) else replace(v, fixes=kept)


def _born(back: Locator, launches: list[Launch], born: list[tuple[str, ...]], back_again: Locator,
          again: list[Launch], codes: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Per launch of the re-read text (``again``), the host-stage fixes it exists by.

    A launch that starts where one of ``launches`` did (both placed in the
    original text by ``back``/``back_again``) keeps that one's (``born``); a
    new one exists by this pass's host-stage fixes (``codes``: a Dockerfile
    exec form Docker ran as a shell command, now JSON), if any.
    """
    before: dict[Location, tuple[str, ...]] = {}
    for launch, by in zip(launches, born):
        if launch.host is None:
            loc = back(launch.start)
            before[loc] = tuple(dict.fromkeys(before.get(loc, ()) + by))
    out = []
    for launch in again:
        loc = back_again(launch.start)
        out.append(before[loc] if loc in before else () if launch.host is not None else codes)
    return out


def _dests(launch: Launch, v: Violation) -> frozenset[str]:
    """The settings a violation is about: its args and its entry's option."""
    entry = launch.entries[v.entry] if v.entry is not None else None
    return frozenset(v.args) | ({entry.dest} if entry is not None and entry.dest else set())


def _fix_dests(launch: Launch, fix: Fix | None, schema: Schema) -> frozenset[str]:
    """The settings a fix writes: the options it spells, the entries it edits, the dests it sets elsewhere."""
    out: set[str] = set()
    for op in fix.ops if fix is not None else ():
        if isinstance(op, (Set, Unset)):
            out.add(op.dest)
            continue
        flags = [op.flag] if isinstance(op, Respell) else [f for f, _ in op.settings] if isinstance(op, Rewrite) else []
        out.update(m.option.dest for m in map(schema.match, flags) if m.option is not None)
        dest = launch.entries[op.entry].dest
        if dest:
            out.add(dest)
    return frozenset(out)


class _Fixed:
    """The fixes applied in earlier passes, as ``(code, dests)`` (the settings each touched), indexed by dest: a
    pass after 50 000 fixes asks it for each of its findings."""

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}  # code -> the index of its first fix
        self._by_dest: dict[str, dict[str, int]] = {}  # dest -> code -> the index of its first fix touching it
        self._count = 0

    def extend(self, applied: list[tuple[str, frozenset[str]]]) -> None:
        for code, touched in applied:
            self.codes.setdefault(code, self._count)
            for dest in touched:
                self._by_dest.setdefault(dest, {}).setdefault(code, self._count)
            self._count += 1

    def touching(self, dests: frozenset[str]) -> tuple[str, ...]:
        """The codes of the fixes that touched one of ``dests``, in the order of their first such fix."""
        first: dict[str, int] = {}
        for dest in dests:
            for code, at in self._by_dest.get(dest, {}).items():
                if at < first.get(code, self._count):
                    first[code] = at
        return tuple(sorted(first, key=first.__getitem__))

    def causes(self, dests: frozenset[str]) -> tuple[str, ...]:
        """The codes of earlier fixes that touched the same settings (all of them if none did), in order."""
        return self.touching(dests) or tuple(self.codes)
