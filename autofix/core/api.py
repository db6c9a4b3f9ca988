"""The library entry points: fix a text (pure) or a file (reads and writes).

``fix_source`` mirrors black's ``format_file_contents``: no side effects, and
it checks its own output by reading it back before anyone writes it.

A shell launch with ``--config FILE`` is one launch with that file, merged as
SGLang merges them (``autofix.core.merge``); ``fix_source`` reads the file only
through the ``read_config`` callback it is given, and returns the file's new
text as one of ``FixResult.others``. The file's argparse stage is checked as
the file alone is (its keys judged as config keys, once per file); the
settings stage runs on the merged launch, and each diagnostic and each fix
goes to the file that holds the effective value.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import ModuleType

from autofix.adapters import yaml_config
from autofix.adapters.launch import Launch
from autofix.common.arguments import parse_words
from autofix.common.diagnostics import UNKNOWN, Applicability, Diagnostic, Location, Respell, Rewrite, Set, Unset
from autofix.common.edits import Change, Edit, apply_edits, compose, line_col, mapper_back, offset_of
from autofix.common.errors import CannotEdit, InputError, InternalError
from autofix.common.filenames import is_yaml
from autofix.common.written import Layers, Spellings, Written
from autofix.core import engine, merge
from autofix.core import fix_edits as placing
from autofix.core.policy import DEFAULT, Policy
from autofix.core.proposals import Proposals
from autofix.core.screen import FileScreen
from autofix.disk.reads import NotRead
from autofix.pipeline.facts import NO_FACTS, Facts
from autofix.schema import Schema, load, others_of


@dataclass(frozen=True, slots=True)
class Unread:
    """A ``--config`` file a launch names that autofix did not read, for a note (a warning): on purpose (outside the
    project, excluded, in a container) or because it cannot (there, but a FIFO, a directory, no permission).

    ``path`` and ``location`` are the launch's ``--config`` word; ``file`` is the file's path on this host
    (as ``read_config`` was given it), None for one inside a container; ``message`` names it and says why.
    """

    path: str
    location: Location
    file: str | None
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.location.line}:{self.location.col}: warning: {self.message}"


@dataclass(frozen=True, slots=True)
class FixResult:
    """What autofix found in one text and the text after the fixes.

    ``diagnostics`` holds every violation found (those that only appeared
    after another fix carry ``after``), ordered by position; ``remaining``
    holds those the fixes at the requested level did not remove.
    ``others`` holds the ``--config`` files the text's shell launches read
    (see ``fix_source``): one result per file, with the diagnostics located
    in it (``launches`` is 0). ``errors`` holds the ``--config`` files they
    read that SGLang refuses to read (invalid YAML, not a mapping, not UTF-8
    text): one ``InputError`` per file, naming it and the position. ``changes`` are
    the regions of ``source`` the fixes rewrote, sorted and disjoint
    (``edits.Change``): every character outside them is kept, and the
    diff is computed from them alone. ``unread`` holds the ``--config``
    files of its launches that autofix did not read (``Unread``: outside the
    project, excluded or there but unreadable, which ``read_config`` says by
    raising ``reads.NotRead``, or inside a container), one per file.
    """

    path: str
    format: str
    source: str
    output: str
    diagnostics: tuple[Diagnostic, ...]
    remaining: tuple[Diagnostic, ...]
    launches: int
    conflicts: tuple[str, ...] = ()
    is_config: bool = True  # False: YAML whose keys are mostly not SGLang options, as written
    others: tuple[FixResult, ...] = field(default=())  # --config files read by the launches
    errors: tuple[InputError, ...] = field(default=())  # --config files the launches name that SGLang would not read
    changes: tuple[Change, ...] = field(default=())  # the regions of ``source`` that ``output`` rewrites
    unread: tuple[Unread, ...] = field(default=())  # --config files autofix did not read on purpose, and why

    @property
    def changed(self) -> bool:
        """Whether the fixes changed the text."""
        return self.output != self.source

    @property
    def found(self) -> int:
        """Violations in the input itself (what SGLang would refuse)."""
        return sum(1 for d in self.diagnostics if not d.after)


def fix_source(
    text: str,
    fmt: ModuleType,
    *,
    path: str = "-",
    unsafe: bool = False,
    schema: Schema | None = None,
    others: tuple[Schema, ...] | None = None,
    read_config: Callable[[str], str | None] | None = None,
    shared_configs: frozenset[str] = frozenset(),
    facts: Facts = NO_FACTS,
    policy: Policy = DEFAULT,
    fix_edits: bool = False,
    config_policy: Callable[[str], Policy] | None = None,
    check_non_configs: bool = True,
) -> FixResult:
    """Check every launch in ``text`` and apply the fixes at the requested level.

    Two stages, as SGLang runs them: first how the settings are written
    (argparse and ``--config`` reading: spellings, choices, repeats), fixed
    in place and re-read until nothing changes; then the settings SGLang
    resolves from the corrected text. ``fmt`` is a format adapter module
    (``autofix.adapters.yaml_config`` or ``.argv``); ``schema`` is the target
    SGLang version's table (default 0.5.23); ``others`` the tables of other
    versions to recognise migrations by (default: every other shipped one).

    ``read_config(path)`` returns the text of a file a shell launch names
    with ``--config FILE`` (FILE relative to ``path``'s directory), or None
    when there is none. When it gives a text that reads as an SGLang config,
    the launch is checked as SGLang runs it: the file's settings, overridden
    by the command line's; the file's new text is in ``FixResult.others``.
    Otherwise (no ``read_config``, ``path`` is ``-``, FILE is a shell
    expansion, not ``.yaml``/``.yml``, missing or unreadable) every setting
    the command line does not write is UNKNOWN, and the rules that read one
    stay silent; a file that is there but does not read as a config SGLang
    accepts (invalid YAML, not a mapping; not UTF-8 text, which
    ``read_config`` says by raising ``InputError``) is unknown too, and is in
    ``FixResult.errors``. So is, with a note in ``FixResult.unread``, a file
    ``read_config`` does not read (it raises ``reads.NotRead``: outside the
    project, excluded, a FIFO) and the file of a launch run in a container
    (``Launch.elsewhere``: ``docker run IMAGE ...``), which ``read_config``
    is never asked for: FILE is the container's. A file is known by its
    real path (``os.path.realpath``: a symlink and its target are one file,
    reported under the first name a launch used). A file several launches read -- of this text, or any
    real path in ``shared_configs`` (the caller knows the launches of other
    texts) -- is not edited by the settings stage: its fixes are written on
    each command line (a removal there cannot be, and is reported as not
    applied). ``facts`` are the hardware and model facts the launches run
    with (default: none known; the checks that need one stay silent).

    ``policy`` says which rules are reported and how safe their fixes are
    (``--select``, ``--unfixable``, ...); a finding that a suppression
    comment of its file covers (``autofix.common.suppressions``) is neither
    reported nor fixed, and a comment that covers nothing is reported
    (SUP001, with a fix that removes it). ``config_policy(path)``, when
    given, is the policy of the diagnostics located in ``--config`` file
    ``path`` (a project's ``per-file-ignores`` for it; default: ``policy``).
    ``fix_edits``: also place the edits of each fix on its own
    (``Diagnostic.fix_edits``, for the machine formats).
    ``check_non_configs=False``: a text that is no SGLang config
    (``FixResult.is_config`` False: YAML most of whose keys are not SGLang
    options) is returned unchecked, with no findings (a run reports none of
    them: its unknown keys' close spellings would be work thrown away).

    Raises ``InputError`` for
    unreadable input and ``InternalError`` when an edited text does not read
    back as intended.
    """
    schema = schema or load()
    level = Applicability.UNSAFE if unsafe else Applicability.SAFE
    screen = FileScreen(policy, config_policy, main=path)
    command = fmt.SOURCE == "command"
    configs = _Configs(read_config, schema, others_of(schema) if others is None else others, level, path,
                       screen=screen, fix_edits=fix_edits, shared=shared_configs)
    written = _arg_stage(text, fmt, path, schema, others_of(schema) if others is None else others, level,
                         screen=screen, command=command, fix_edits=fix_edits, merges=configs,
                         non_configs=check_non_configs)
    if not written.is_config and not check_non_configs:  # a workflow, a Helm values file: nothing is checked
        return FixResult(path, fmt.NAME, text, text, (), (), len(written.launches), is_config=False)
    current, launches = written.text, written.launches
    lookup = configs.launch
    plain = launches
    launches = [_as_launched(launch, fmt, path, schema, lookup) for launch in launches]
    unread = _unread(plain, fmt, path, configs, written.locator(text))
    opened = _opened(text, fmt, path, schema, written, launches)
    readers: dict[str, int] = {}  # by the file's name in ``configs``: one per real path
    for launch in launches:
        if isinstance(launch.ctx, merge.Merged):
            readers[launch.ctx.path] = readers.get(launch.ctx.path, 0) + 1
    shared = {p for p, n in readers.items() if n > 1 or os.path.realpath(p) in shared_configs}
    outcomes = []
    unfixed: set[int] = set()  # launches whose fixes could not be written
    proposals = Proposals(launches)
    back = configs.locator(written.locator(text))
    screens = [screen.for_launch(path, launch, back, command) for launch in launches]
    for index, launch in enumerate(launches):
        outcome = _settings_stage(index, launch, current, fmt, schema, level, facts, configs, shared, proposals,
                                  screens[index])
        if index in opened:  # SGLang reads the file only once an argparse-stage fix says --config right
            alone = {(v.code, v.message) for v in engine.check(plain[index].parsed.explicit_for(schema), schema, facts,
                                                               screen=screens[index])}
            outcome = replace(outcome, findings=tuple(
                f if f.after or (f.violation.code, f.violation.message) in alone else replace(f, after=opened[index])
                for f in outcome.findings))
        if written.born[index]:  # the launch exists once a host-stage fix writes it as its file will run it
            outcome = replace(outcome, findings=tuple(
                f if f.after else replace(f, after=written.born[index]) for f in outcome.findings))
        outcomes.append(outcome)
    edits, _ = proposals.settle()
    for index, why in proposals.refused.items():  # report the violations, unfixed, and say why
        unfixed.add(index)
        before = launches[index].parsed.explicit_for(schema)
        found = tuple(engine.check(before, schema, facts, screen=screens[index]))
        outcomes[index] = engine.Outcome(tuple(engine.Finding(v, 1, (), None) for v in found), before, found,
                                         f"fixes not applied: {why}")
    output = apply_edits(current, edits)
    outputs = {p: apply_edits(c.written.text, c.edits) for p, c in configs.files.items() if c is not None}
    if output != current or any(outputs[p] != c.written.text for p, c in configs.files.items() if c is not None):
        _verify(output, fmt, path, schema, [o.explicit for o in outcomes], outputs)
    diagnostics, remaining = list(written.diagnostics), list(written.remaining)
    conflicts = list(written.conflicts)
    for index, (launch, outcome) in enumerate(zip(launches, outcomes)):
        editable = index not in unfixed
        for f in outcome.findings:
            alone = _settings_fix_edits(f.violation, index, launch, text, written, fmt, schema, configs, shared,
                                        path) if fix_edits and not f.after else ()
            diagnostics.append(_diagnostic(path, launch, f.violation, level, f.after, editable, back, alone))
        remaining.extend(_diagnostic(path, launch, v, level, (), editable, back) for v in outcome.remaining)
        if outcome.conflict:
            loc = back(proposals.where.get(index, launch.start))
            conflicts.append(f"{path}:{loc.line}:{loc.col}: {outcome.conflict}")
    order = lambda d: (d.location, d.code)  # noqa: E731
    files = []
    for p, c in configs.files.items():
        if c is None:
            continue
        found = _unique(c.written.diagnostics + [d for d in diagnostics if d.path == p])
        left = _unique(c.written.remaining + [d for d in remaining if d.path == p])
        config = FixResult(p, yaml_config.NAME, c.source, outputs[p], tuple(sorted(found, key=order)),
                           tuple(sorted(left, key=order)), 0, tuple(c.written.conflicts),
                           changes=_changes(c.written.chain, c.edits))
        files.append(screen.settle(config, level, yaml_config, schema))
    # launches that read the same text (a sweep's variants) find the same things there: say each once
    diagnostics = _unique([d for d in diagnostics if d.path == path])
    remaining = _unique([d for d in remaining if d.path == path])
    result = FixResult(path, fmt.NAME, text, output, tuple(sorted(diagnostics, key=order)),
                       tuple(sorted(remaining, key=order)), len(launches), tuple(dict.fromkeys(conflicts)),
                       written.is_config, tuple(files),  # judged as written, whatever the fixes drop
                       tuple(configs.errors.values()), _changes(written.chain, edits), unread)
    return screen.settle(result, level, fmt, schema)


def _unread(launches: list[Launch], fmt: ModuleType, path: str, configs: _Configs,
            back: Callable[[Location], Location]) -> tuple[Unread, ...]:
    """A note for each ``--config`` file of ``launches`` (as the argparse stage left them; ``back`` places
    them in the text as read) that autofix did not read on purpose: one ``read_config`` refused
    (``configs.unread``), or one inside the container a launch runs in. One per file (per path as written,
    for a container)."""
    if fmt.NAME != "shell" or path == "-" or configs.read is None:
        return ()
    out: dict[object, Unread] = {}
    for launch in launches:
        if launch.elsewhere is None and not configs.unread:
            continue
        ref = fmt.config_argument(launch)
        if ref is None or ref.path is None or not is_yaml(ref.path):
            continue
        if launch.elsewhere is not None:
            key: object = (launch.elsewhere, ref.path)
            file, why, hint = None, f"is read inside the container ({launch.elsewhere}), not on this host", ""
        else:
            file = configs.name(merge.config_path(path, ref.path))
            refused = configs.unread.get(file)
            if refused is None:
                continue
            key, why, hint = file, refused.message, refused.hint
        if key not in out:
            out[key] = Unread(path, back(launch.parsed.words[ref.index].loc), file,
                              f"--config {ref.path} {why}: not read, and the settings it would give are unknown"
                              + (f" ({hint})" if hint else ""))
    return tuple(out.values())


def _settings_fix_edits(v, index: int, launch: Launch, text: str, written: _ArgStage, fmt: ModuleType,
                        schema: Schema, configs: _Configs, shared: set[str], path: str) -> tuple:
    """Each of ``v``'s fixes on its own, as text edits of ``text`` (and of a merged launch's ``--config``
    file), or None where it cannot be written alone (``fix_edits``).

    The fixes are rendered on the text the argparse stage corrected; where that stage changed the text, a
    fix's edits count as its own only if, applied alone to ``text``, they give launch ``index`` exactly the
    fix's ops (a fix on a setting written twice needs the repeat's fix first).
    """

    def render(fix):
        script, in_file = _edit(written.text, fmt, launch, list(fix.ops), schema, configs, shared)
        _keeps_the_other_words(launch, list(fix.ops), schema)
        out = placing.placed(script, text, written.chain, path)
        if out is None:
            return None
        if in_file is not None:
            name, edits = in_file
            config = configs.files[name]
            if config.written.chain:
                return None
            out += placing.placed(edits, config.source, (), name)
        if written.chain and not _alone_makes(text, [e for e in out if e.path == path], fmt, path, schema, index,
                                              fix.ops):
            return None
        return out

    return placing.of_fixes(v.fixes, render)


def _alone_makes(text: str, edits, fmt: ModuleType, path: str, schema: Schema, index: int, ops) -> bool:
    """Whether ``edits`` (``TextEdit``s of ``text``) give launch ``index`` of ``text`` exactly ``ops``, the
    other launches nothing."""
    from autofix.common.diagnostics import applied

    try:
        before = [x.parsed.explicit for x in fmt.read(text, path, schema)]
        after = [x.parsed.explicit for x in fmt.read(apply_edits(text, [
            Edit(offset_of(text, e.start.line, e.start.col), offset_of(text, e.end.line, e.end.col), e.content)
            for e in edits]), path, schema)]
    except Exception:  # noqa: BLE001 - edits that do not read back are not the fix's own
        return False
    if len(before) != len(after) or not 0 <= index < len(before):
        return False
    wanted = [applied(b, ops) if i == index else b for i, b in enumerate(before)]
    return after == wanted


def _settings_stage(index: int, launch: Launch, current: str, fmt: ModuleType, schema: Schema,
                    level: Applicability, facts: Facts, configs: _Configs, shared: set[str],
                    proposals: Proposals, screen: engine.Screen | None = None) -> engine.Outcome:
    """The settings stage of launch ``index``: its settings through SGLang's pipeline to a fixpoint
    (``engine.run``), and the edits of the fixes proposed for ``current`` (``proposals``; an edit the
    text cannot take is refused there, with why).

    A launch that prints the usage (``--help``), or that its file does not run as written (DKR001-DKR003),
    starts no server: nothing to resolve.
    """
    before = launch.parsed.explicit_for(schema)
    if launch.parsed.help_index >= 0 or launch.host is not None:
        return engine.Outcome((), before, (), None)
    outcome = engine.run(before, schema, level, facts, screen=screen)
    ops = engine.net_ops(before, outcome.explicit)
    if ops:
        try:
            _keeps_the_other_words(launch, ops, schema)
            script, in_file = _edit(current, fmt, launch, ops, schema, configs, shared)
            if in_file is not None:
                configs.files[in_file[0]].edits = in_file[1]
            proposals.add(index, script)
        except CannotEdit as exc:
            proposals.refuse(index, str(exc), getattr(exc, "location", None))
    return outcome


def _changes(chain: list[list[Edit]], last: list[Edit]) -> tuple[Change, ...]:
    """The regions of the original text that the passes' edits (``chain``, then ``last``) rewrote."""
    changes: list[Change] = []
    for edits in [*chain, last]:
        changes = compose(changes, edits)
    return tuple(changes)


def config_files(text: str, fmt: ModuleType, *, path: str, schema: Schema | None = None,
                 others: tuple[Schema, ...] | None = None) -> list[str]:
    """The ``--config`` file of each launch in ``text`` that reads one, as ``fix_source`` would look it up.

    One path per launch (relative to the current directory, as
    ``read_config`` is given it; a file two launches read is listed twice;
    none for a launch run in a container, whose file is the container's),
    for the launches as they stand after the argparse-stage fixes (so
    ``--config=FILE``, which CFG005 fixes, counts). A caller that checks
    several texts counts these, by real path, to find the files read by
    more than one launch of the run (``fix_source``'s ``shared_configs``).
    Raises ``InputError`` for unreadable input.
    """
    if fmt.NAME != "shell" or path == "-":
        return []
    schema = schema or load()
    others = others_of(schema) if others is None else others
    # the files are not read here: a launch's settings not on its command line are unknown
    written = _arg_stage(text, fmt, path, schema, others, Applicability.UNSAFE,
                         merges=_Configs(None, schema, others, Applicability.UNSAFE, path))
    out = []
    for launch in written.launches:
        ref = fmt.config_argument(launch)
        if ref is not None and ref.path is not None and is_yaml(ref.path) and launch.elsewhere is None:
            out.append(merge.config_path(path, ref.path))
    return out


def _unique(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic per (code, message, place): launches sharing a config file find the same."""
    out: dict[tuple, Diagnostic] = {}
    for d in diagnostics:
        out.setdefault((d.code, d.violation.message, d.location.line, d.location.col), d)
    return list(out.values())


@dataclass(slots=True, eq=False)  # never compared: no __eq__ to compile at start-up (issue 15)
class _Config:
    """A ``--config`` file read through a launch: its argparse-stage pass, and the settings-stage edits."""

    source: str
    written: _ArgStage
    edits: list[Edit] = field(default_factory=list)  # on ``written.text``


class _Merges:
    """The other files of the launches of one text, for its argparse stage (``_arg_stage``'s ``merges``)."""

    files: dict[str, _Config | None]

    def layers(self, launches: list[Launch], fmt: ModuleType, path: str) -> list[tuple[Layers | None, Launch]]:
        """Per launch of the text at ``path``: (its other file, as ``Written.layers``, or None; the launch SGLang
        runs)."""
        raise NotImplementedError

    def edits(self, launched: Launch, ops: list) -> tuple[str, list[Edit]]:
        """(the name of the file, its edits) that write ``ops`` (``Set``/``Unset``) in ``launched``'s other file.
        Raises ``CannotEdit``."""
        raise CannotEdit("the launch's other file cannot be edited from here")

    def amend(self, name: str, edits: list[Edit]) -> None:
        """Apply ``edits`` (from ``edits``) to file ``name``."""
        raise NotImplementedError


class _Readers(_Merges):
    """A ``--config`` file's launches: the command lines that read it (``readers``: each with the index of its
    ``--config`` word), and whether launches autofix does not see read it too (``outside``)."""

    def __init__(self, name: str, readers: list[tuple[Launch, int]], outside: bool, schema: Schema) -> None:
        self.name, self.readers, self.outside, self.schema = name, readers, outside, schema
        self.files = {}

    def layers(self, launches: list[Launch], fmt: ModuleType, path: str) -> list[tuple[Layers | None, Launch]]:
        return [(_config_layers(launch, self.readers, self.outside, self.name, self.schema), launch)
                for launch in launches]


def _config_layers(config: Launch, readers: list[tuple[Launch, int]], outside: bool, name: str,
                   schema: Schema) -> Layers | None:
    """A ``--config`` file's ``Layers``: what the launches that read it (``readers``) have in common.

    A dest is known where every launch runs it with the same value (its
    value, or unset); otherwise, and for every dest when launches autofix
    does not see read the file too (``outside``), it is UNKNOWN. A dest every
    command line sets is ``overridden``: the file's value is never used.
    None without readers: the file is the launch.
    """
    if not readers:
        return None
    runs, written = [], []
    for launch, index in readers:
        runs.append(merge.merge(launch, config, name, index, schema).parsed.explicit_for(schema))
        written.append(frozenset(s.dest for s in launch.parsed.occurrences if s.dest != "config"))
    others = frozenset(schema.by_dest) if outside else frozenset().union(*written)
    if outside:
        return Layers(dict.fromkeys(schema.by_dest, UNKNOWN), others)
    values = {}
    for dest in frozenset().union(*runs):
        seen = [run.get(dest, _UNSET) for run in runs]
        same = all(v is seen[0] or v == seen[0] for v in seen)  # (a NaN is never equal: UNKNOWN)
        values[dest] = seen[0] if same and seen[0] is not _UNSET else UNKNOWN
    return Layers(values, others, frozenset.intersection(*written))


_UNSET = object()


class _Configs(_Merges):
    """The ``--config`` files the launches of one text read, each read and checked once (``read``: ``fix_source``'s
    ``read_config``).

    A file is known by its real path (a symlink and its target are one
    file) and named by the first path a launch reached it by: ``files``,
    ``errors`` and the merged launches' ``Merged.path`` use that name.
    ``shared`` are the real paths of files launches of other texts read too.
    A file's argparse stage sees the launches of this text that read it
    (``_Readers``), as they were when it was first read.
    """

    def __init__(self, read: Callable[[str], str | None] | None, schema: Schema, others: tuple[Schema, ...],
                 level: Applicability, script: str = "-", *, screen: FileScreen | None = None,
                 fix_edits: bool = False, shared: frozenset[str] = frozenset()) -> None:
        self.read, self.schema, self.others, self.level, self.script = read, schema, others, level, script
        self.screen, self.fix_edits, self.shared = screen, fix_edits, shared
        self.files: dict[str, _Config | None] = {}
        self.errors: dict[str, InputError] = {}  # name -> why SGLang would not read the file
        self.unread: dict[str, NotRead] = {}  # name -> why ``read`` would not read it
        self.names: dict[str, str] = {}  # real path -> name
        self.readers: dict[str, list[tuple[Launch, int]]] = {}  # name -> the launches of the text that read it

    def name(self, path: str) -> str:
        """The name the file at ``path`` goes by in this text (the first path that reached it)."""
        return self.names.setdefault(os.path.realpath(path), path)

    def get(self, path: str) -> _Config | None:
        """The file at ``path`` after its argparse-stage fixes, or None when it cannot be read as a config."""
        path = self.name(path)
        if path not in self.files:
            try:
                text = self.read(path) if self.read is not None else None
            except NotRead as exc:  # outside the project, excluded, a FIFO: unknown, with a note (``_unread``)
                self.unread[path] = exc
                text = None
            except InputError as exc:  # there, but not UTF-8 text: SGLang refuses it at start-up too
                self.errors[path] = _refused(exc, self.script)
                text = None
            config = None
            if text is not None:
                readers = _Readers(path, self.readers.get(path, []), self.outside(path), self.schema)
                try:
                    config = _Config(text, _arg_stage(text, yaml_config, path, self.schema, self.others,
                                                      self.level, screen=self.screen, fix_edits=self.fix_edits,
                                                      merges=readers))
                except InputError as exc:  # there, but SGLang refuses it at start-up: unknown, and an error
                    self.errors[path] = _refused(exc, self.script)
            self.files[path] = config
        return self.files[path]

    def outside(self, name: str) -> bool:
        """Whether launches of other texts read file ``name`` too."""
        return os.path.realpath(name) in self.shared

    def layers(self, launches: list[Launch], fmt: ModuleType, path: str) -> list[tuple[Layers | None, Launch]]:
        if fmt.NAME != "shell":
            return [(None, launch) for launch in launches]
        self.readers = {}
        for launch in launches:
            ref = fmt.config_argument(launch)
            if ref is not None and ref.path is not None and path != "-" and is_yaml(ref.path):
                self.readers.setdefault(self.name(merge.config_path(path, ref.path)), []).append((launch, ref.index))
        out = []
        for launch in launches:
            launched = _as_launched(launch, fmt, path, self.schema, self.launch)
            ctx = launched.ctx
            if isinstance(ctx, merge.Merged):
                shared = len(self.readers.get(ctx.path, ())) > 1 or self.outside(ctx.path)
                layers = Layers(launched.parsed.explicit_for(self.schema),
                                frozenset(s.dest for s in ctx.config.parsed.occurrences), editable=not shared)
            elif launched.parsed.base_unknown:  # a file autofix cannot read may write any setting
                layers = Layers(launched.parsed.explicit_for(self.schema), frozenset(self.schema.by_dest))
            else:
                layers = None
            out.append((layers, launched))
        return out

    def edits(self, launched: Launch, ops: list) -> tuple[str, list[Edit]]:
        ctx: merge.Merged = launched.ctx
        config = self.get(ctx.path)
        return self.name(ctx.path), yaml_config.edit(config.written.text, ctx.config, ops, self.schema)

    def amend(self, name: str, edits: list[Edit]) -> None:
        """Apply a command line's argparse-stage fix to file ``name``: one more pass of its argparse stage."""
        config = self.files[name]
        stage = config.written
        text = apply_edits(stage.text, edits)
        stage.launches = yaml_config.read(text, name, self.schema)
        stage.text = text
        stage.chain = [*stage.chain, edits]

    def launch(self, path: str) -> tuple[str, Launch] | None:
        """(the file's name, its launch: its corrected text, read), or None."""
        config = self.get(path)
        return (self.name(path), config.written.launches[0]) if config is not None else None

    def locator(self, script: Callable[[Location], Location]) -> Callable[[Location], Location]:
        """Map a location back to its original text: a config file's (``Location.path``) or the script's."""
        def back(loc: Location) -> Location:
            config = self.files.get(loc.path) if loc.path is not None else None
            if config is None:
                return script(loc)
            return replace(config.written.locator(config.source)(loc), path=loc.path)
        return back


def _refused(exc: InputError, script: str) -> InputError:
    """``exc``, about a ``--config`` file of ``script`` that SGLang refuses to read, as the error it is."""
    return InputError(exc.path, exc.line, exc.col,
                      f"{exc.message} (the --config file of {script}: SGLang refuses to start)")


def _opened(text: str, fmt: ModuleType, path: str, schema: Schema, written: _ArgStage,
            launches: list[Launch]) -> dict[int, tuple[str, ...]]:
    """Launches merged with a ``--config`` file only after an argparse-stage fix (``--config=FILE``
    written ``--config FILE``, CFG005): index -> the codes of the script's fixes on ``--config``."""
    if fmt.NAME != "shell" or not written.chain or not any(isinstance(x.ctx, merge.Merged) for x in launches):
        return {}
    original = fmt.read(text, path, schema)
    codes = tuple(dict.fromkeys(d.code for d in written.diagnostics if d.fixable and "config" in d.violation.args))
    if len(original) != len(launches) or not codes:
        return {}
    out = {}
    for index, (before, now) in enumerate(zip(original, launches)):
        ref = fmt.config_argument(before)
        if isinstance(now.ctx, merge.Merged) and (ref is None or ref.path is None):
            out[index] = codes
    return out


def _as_launched(launch: Launch, fmt: ModuleType, path: str, schema: Schema,
                 lookup: Callable[[str], tuple[str, Launch] | None]) -> Launch:
    """The launch SGLang runs: merged with its ``--config`` file when ``lookup`` reads it (see ``fix_source``).

    ``lookup(path)`` gives the file's name (the path its diagnostics carry) and its launch.
    """
    if fmt.NAME != "shell":
        return launch
    ref = fmt.config_argument(launch)
    if ref is None:
        return launch
    if ref.path is None or path == "-" or not is_yaml(ref.path) or launch.elsewhere is not None:
        return merge.unknown(launch)  # (in a container, FILE is the container's: never read on this host)
    config_path = merge.config_path(path, ref.path)
    found = lookup(config_path)
    if found is None:
        return merge.unknown(launch)
    name, config = found
    return merge.merge(launch, config, name, ref.index, schema)


def _keeps_the_other_words(launch: Launch, ops: list, schema: Schema) -> None:
    """Raise ``CannotEdit`` when removing the words ``ops`` unset would change what the others mean.

    On a command line, a word no option takes (ARG006, ``'x'``) after a
    removed setting would become a value of the option before it, when that
    one takes several (``--lora-target-modules all``): argparse reads the
    words that are left, not the ones that were there.
    """
    parsed = launch.parsed
    gone = {i for op in ops if isinstance(op, Unset)
            for s in parsed.occurrences if s.dest == op.dest for i in (s.option_index, *s.value_indexes)}
    if not gone or not any(p.kind == "stray" for p in parsed.problems) or isinstance(launch.ctx, merge.Merged):
        return
    left = [w for i, w in enumerate(parsed.words) if i not in gone]
    again = parse_words(schema, left)
    unset = {op.dest for op in ops if isinstance(op, Unset)}
    keep = {d: v for d, v in parsed.explicit.items() if d not in unset}
    if {d: v for d, v in again.explicit.items()} != keep:
        taken = next(d for d, v in again.explicit.items() if keep.get(d) != v)
        raise CannotEdit(f"removing {', '.join(sorted(schema[d].flag for d in unset))} would give the word(s) "
                         f"no option takes to {schema[taken].flag}")


def _adds_before_the_end_of_options(launch: Launch, ops: list, schema: Schema) -> None:
    """Raise ``CannotEdit`` when ``ops`` add a flag to a command line holding a ``--`` word.

    The formats add flags after the last argument; after ``--`` argparse
    reads every word as a positional, so the flag would not be set (SGLang
    refuses the ``--`` itself, ARG006: the author decides what it was for).
    """
    settings = launch.parsed.settings
    if not any(isinstance(op, Set) and op.dest not in settings for op in ops):
        return
    if any(w.text == "--" and not w.dynamic for w in launch.parsed.words):
        added = sorted(schema[op.dest].flag for op in ops if isinstance(op, Set) and op.dest not in settings)
        raise CannotEdit(f"cannot add {', '.join(added)} after the '--' that ends the options: remove the '--' first")


def _edit(text: str, fmt: ModuleType, launch: Launch, ops: list, schema: Schema, configs: _Configs,
          shared_files: set[str]) -> tuple[list[Edit], tuple[str, list[Edit]] | None]:
    """The script's edits for ``ops``, and a merged launch's config-file edits: (the file's name in
    ``configs``, edits on its corrected text), or None.

    ``shared_files``: the names (in ``configs``) of the files other launches read too.
    Raises ``CannotEdit`` when either file cannot take them.
    """
    ctx = launch.ctx
    if not isinstance(ctx, merge.Merged):
        _adds_before_the_end_of_options(launch, ops, schema)
        return fmt.edit(text, launch, ops, schema), None
    shared = ctx.path in shared_files
    command, in_file = merge.route(launch, ops, shared)
    if shared and in_file:
        raise CannotEdit(f"{ctx.path} is read by several launches: remove its settings by hand")
    _adds_before_the_end_of_options(ctx.launch, command, schema)
    out = fmt.edit(text, ctx.launch, command, schema) if command else []
    if not in_file:
        return out, None
    config = configs.get(ctx.path)
    assert config is not None
    return out, (configs.name(ctx.path), yaml_config.edit(config.written.text, ctx.config, in_file, schema))


@dataclass(slots=True, eq=False)  # never compared: no __eq__ to compile at start-up (issue 15)
class _ArgStage:
    """The argparse-stage pass over a text: the corrected text, read, and what was found."""

    text: str
    launches: list[Launch]
    diagnostics: list[Diagnostic]
    remaining: list[Diagnostic]
    conflicts: list[str]
    chain: list[list[Edit]]  # the edits of each pass, oldest first
    # per launch: the codes of the host-stage fixes it exists by (a Dockerfile exec form made JSON), or ()
    born: list[tuple[str, ...]] = field(default_factory=list)
    is_config: bool = True  # False: YAML most of whose keys are not SGLang options, as written

    def locator(self, original: str) -> Callable[[Location], Location]:
        """Map a location in the corrected text back to ``original``."""
        return _locator(original, self.text, self.chain)


def _locator(original: str, current: str, chain: list[list[Edit]]) -> Callable[[Location], Location]:
    if not chain:
        return lambda loc: loc

    backs = [mapper_back(edits) for edits in reversed(chain)]  # once: a pass may place 50 000 findings

    def back(loc: Location) -> Location:
        offset = offset_of(current, loc.line, loc.col)
        for step in backs:
            offset = step(offset)
        return Location(*line_col(original, offset))

    return back


def _arg_stage(text: str, fmt: ModuleType, path: str, schema: Schema, others: tuple[Schema, ...],
               level: Applicability, *, screen: FileScreen | None = None, command: bool = False,
               fix_edits: bool = False, merges: _Merges | None = None, non_configs: bool = True) -> _ArgStage:
    """Check how each launch's settings are written; fix in place and re-read, up to ``MAX_PASSES``.

    A pass whose edits would not read back (a layout the adapter cannot
    edit that way) is not applied: its fixes are reported as not applied.
    ``screen`` is what the run keeps of each finding (``fix_source``);
    ``command``: the launches are commands (a comment above one covers it);
    ``fix_edits``: place each fix of the first pass on its own.
    ``merges``: the launches' other files (``_Merges``): the rules see each
    launch's settings as SGLang merges them, and a fix's ``Set``/``Unset``
    ops are written in the other file, with the fix; without it, a launch
    is its own text alone. A text that is no config (``fmt.looks_like_config``
    as written: ``_ArgStage.is_config``) is checked only with ``non_configs``.
    """
    current, chain = text, []
    diagnostics: list[Diagnostic] = []
    seen: set[tuple] = set()
    fixed = _Fixed()  # (code, dests) of every fix applied in earlier passes
    conflicts: list[str] = []
    texts = {text}
    launches = fmt.read(current, path, schema)
    is_config = fmt.looks_like_config(launches, schema)
    if not is_config and not non_configs:
        return _ArgStage(text, launches, [], [], [], [], [()] * len(launches), is_config=False)
    suppressed: set[tuple[str, str]] = set()  # the suppressed violations of the text as written
    spellings = Spellings()  # the file's unknown options' close spellings, within their bound
    if screen is not None:
        screen.read(path, text, fmt, launches)
    born: list[tuple[str, ...]] = [()] * len(launches)
    # the last pass's findings on ``current``, and for each whether the mode could fix it: not where its fix was
    # chosen and not applied (a sweep's shared text that launches need fixed otherwise), nor in a blocked launch
    checked: list[tuple[Launch, list, list[bool]]] = []
    for _ in range(engine.MAX_PASSES):
        back = _locator(text, current, chain)
        applied: list[tuple[str, frozenset]] = []
        host_fixed: list[str] = []  # the codes of the fixes applied to commands their file did not run
        new: list[Diagnostic] = []
        checked = []
        proposals = Proposals(launches)
        found_by, chosen_by = [], []
        views = merges.layers(launches, fmt, path) if merges is not None else [(None, launch) for launch in launches]
        elsewhere: dict[int, tuple[str, list[Edit]]] = {}  # launch -> its fixes' edits of its --config file
        for index, launch in enumerate(launches):
            layers, launched = views[index]
            found = _screened_args(launch, schema, others, fmt, screen, path, back, command, suppressed, not chain,
                                   layers, spellings)
            chosen = engine.choose_entry_fixes(found, level)
            found_by.append(found)
            chosen_by.append(chosen)
            ops = [op for f in chosen if f for op in f.ops]
            shared = getattr(launch.ctx, "covers", None) is not None
            if ops and shared:
                # text other launches read: each fix is settled on its own (see Proposals)
                for k, f in enumerate(chosen):
                    if f:
                        try:
                            proposals.add(index, fmt.edit_entries(current, launch, list(f.ops), schema), k)
                        except CannotEdit as exc:
                            proposals.refuse(index, str(exc), getattr(exc, "location", None), whole=False)
            elif ops:
                own, other = _own_ops(ops)
                try:
                    proposals.add(index, fmt.edit_entries(current, launch, own, schema))
                    if other:
                        elsewhere[index] = merges.edits(launched, other)
                except CannotEdit as exc:
                    proposals.refuse(index, str(exc), getattr(exc, "location", None))
        edits, done = proposals.settle()
        refused = proposals.refused
        for index, launch in enumerate(launches):
            found, chosen = found_by[index], chosen_by[index]
            # a fix is applied with its launch's (None), or on its own (k) where launches share text
            fixed_here = [(index, None) in done or (index, k) in done for k in range(len(found))]
            editable = index not in proposals.blocked
            if index in refused:
                loc = back(proposals.where.get(index, launch.start))
                conflicts.append(f"{path}:{loc.line}:{loc.col}: fixes not applied: {refused[index]}")
            applied.extend((v.code, _dests(launch, v) | _fix_dests(launch, f, schema))
                           for v, f, ok in zip(found, chosen, fixed_here) if f and ok)
            if launch.host is not None:
                host_fixed.extend(v.code for v, f, ok in zip(found, chosen, fixed_here) if f and ok)
            checked.append((launch, found, [fixed_here[k] or (editable and not chosen[k]) for k in range(len(found))]))
            for k, v in enumerate(found):
                dests = _dests(launch, v)
                after = fixed.causes(dests)
                if born[index]:  # a launch a host-stage fix made: all it shows appears once that is fixed
                    after = tuple(dict.fromkeys(born[index] + fixed.touching(dests)))
                alone = placing.of_fixes(v.fixes, lambda fix: _arg_fix_edits(fix, current, launch, views[index][1],  # noqa: B023 - called now
                                                                             fmt, schema, path, merges)) \
                    if fix_edits and not chain and not after else ()
                d = _diagnostic(path, launch, v, level, after, fixed_here[k] or (editable and not chosen[k]), back,
                                alone)
                key = (v.code, v.message, d.location)
                if key not in seen:
                    seen.add(key)
                    new.append(d)
        if edits:
            candidate = apply_edits(current, edits)
            try:
                again = fmt.read(candidate, path, schema)
            except Exception:  # noqa: BLE001 - an edit this layout cannot take: keep the text
                conflicts.append(f"{path}:1:1: fixes not applied: the edited text would not read back")
                new = [replace(d, fixable=False, fix_available=False) for d in new]
                checked = [(launch, found, [False] * len(found)) for launch, found, _ in checked]
                edits = []
        for index, (name, config_edits) in elsewhere.items():  # with the script's edits, or not at all
            if (index, None) in done and edits:
                merges.amend(name, config_edits)
        diagnostics.extend(new)
        if not edits:
            break
        born = _born(_locator(text, current, chain), launches, born,
                     _locator(text, candidate, [*chain, edits]), again, tuple(dict.fromkeys(host_fixed)))
        current, launches = candidate, again
        chain.append(edits)
        fixed.extend(applied)
        checked = []  # ``current`` changed: what remains is checked below
        if current in texts:
            conflicts.append(f"{path}:1:1: fixes of {', '.join(sorted(fixed.codes))} undo each other")
            break
        texts.add(current)
    if not checked:  # stopped with fixes still coming: what is there now remains, unfixed
        back = _locator(text, current, chain)
        views = merges.layers(launches, fmt, path) if merges is not None else [(None, launch) for launch in launches]
        checked = [(launch, found, [False] * len(found)) for launch, (layers, _) in zip(launches, views)
                   for found in [_screened_args(launch, schema, others, fmt, screen, path, back, command, suppressed,
                                                False, layers, spellings)]]
    back = _locator(text, current, chain)
    remaining = [_diagnostic(path, launch, v, level, (), editable, back)
                 for launch, found, editables in checked for v, editable in zip(found, editables)]
    return _ArgStage(current, launches, diagnostics, remaining, conflicts, chain, born, is_config)


def _screened_args(launch: Launch, schema: Schema, others: tuple[Schema, ...], fmt: ModuleType,
                   screen: FileScreen | None, path: str, back: Callable[[Location], Location],
                   command: bool, written: set[tuple[str, str]], as_written: bool,
                   layers: Layers | None = None, spellings: Spellings | None = None) -> list:
    """The argparse-stage violations of ``launch`` that ``screen`` keeps (``back`` places them in the original
    text; ``written``, ``as_written``: see ``engine.screened``: a later pass's fixes make no suppressed
    finding). ``layers``: the launch's other file, if any (``Written.layers``); a fix that would write there
    when it may not (``Layers.editable``) is left out. ``spellings``: the file's (``Written.spellings``)."""
    found = engine.check_args(_written(launch, schema, others, fmt, layers, spellings))
    if found and not (layers is not None and layers.editable):
        found = [_within_file(v) for v in found]
    if screen is None or not found:
        return found
    return engine.screened(found, screen.for_launch(path, launch, back, command), written, as_written=as_written)


def _written(launch: Launch, schema: Schema, others: tuple[Schema, ...], fmt: ModuleType,
             layers: Layers | None = None, spellings: Spellings | None = None) -> Written:
    """What the argparse-stage (and host) rules read of one launch (``layers``: its other file, if any;
    ``spellings``: the file's close spellings, ``Written.spellings``)."""
    return Written(launch.entries, launch.parsed, schema, others, fmt.SOURCE, launch.host, layers, spellings)


def _own_ops(ops) -> tuple[list, list]:
    """``ops`` split into (the entry ops on this file, the ``Set``/``Unset`` ops on the launch's other file)."""
    other = [op for op in ops if isinstance(op, (Set, Unset))]
    return [op for op in ops if not isinstance(op, (Set, Unset))], other


def _within_file(v):
    """``v`` without the fixes that would write the launch's other file (``Set``/``Unset``): a fix of a file
    whose other file may not be edited (a ``--config`` file's command lines, a file other launches read)."""
    kept = tuple(f for f in v.fixes if not any(isinstance(op, (Set, Unset)) for op in f.ops))
    return v if len(kept) == len(v.fixes) else replace(v, fixes=kept)


def _arg_fix_edits(fix, current: str, launch: Launch, launched: Launch, fmt: ModuleType, schema: Schema, path: str,
                   merges: _Merges | None) -> tuple | None:
    """An argparse-stage fix of the text as read (``current``) on its own, as ``TextEdit``s (``fix_edits``):
    its entry ops here, its ``Set``/``Unset`` ops in the launch's ``--config`` file (None where that file's
    own fixes changed it first)."""
    own, other = _own_ops(fix.ops)
    out = placing.placed(fmt.edit_entries(current, launch, own, schema), current, (), path)
    if not other or out is None:
        return out
    name, edits = merges.edits(launched, other)
    config = merges.files[name]
    if config.written.chain:
        return None
    return out + placing.placed(edits, config.source, (), name)


def _born(back: Callable[[Location], Location], launches: list[Launch], born: list[tuple[str, ...]],
          back_again: Callable[[Location], Location], again: list[Launch],
          codes: tuple[str, ...]) -> list[tuple[str, ...]]:
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


def _dests(launch: Launch, v) -> frozenset:
    """The settings a violation is about: its args and its entry's option."""
    entry = launch.entries[v.entry] if v.entry is not None else None
    return frozenset(v.args) | ({entry.dest} if entry is not None and entry.dest else set())


def _fix_dests(launch: Launch, fix, schema: Schema) -> frozenset:
    """The settings a fix writes: the options it spells, the entries it edits, the dests it sets elsewhere."""
    out = set()
    for op in fix.ops:
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

    def extend(self, applied: list[tuple[str, frozenset]]) -> None:
        for code, touched in applied:
            self.codes.setdefault(code, self._count)
            for dest in touched:
                self._by_dest.setdefault(dest, {}).setdefault(code, self._count)
            self._count += 1

    def touching(self, dests: frozenset) -> tuple[str, ...]:
        """The codes of the fixes that touched one of ``dests``, in the order of their first such fix."""
        first: dict[str, int] = {}
        for dest in dests:
            for code, at in self._by_dest.get(dest, {}).items():
                if at < first.get(code, self._count):
                    first[code] = at
        return tuple(sorted(first, key=first.__getitem__))

    def causes(self, dests: frozenset) -> tuple[str, ...]:
        """The codes of earlier fixes that touched the same settings (all of them if none did), in order."""
        return self.touching(dests) or tuple(self.codes)


def _diagnostic(path: str, launch: Launch, violation, level, after=(), editable=True,
                back: Callable[[Location], Location] = lambda loc: loc, edits: tuple = ()) -> Diagnostic:
    location = back(launch.locate(violation))
    return Diagnostic(
        path=location.path or path,
        location=location,
        violation=violation,
        fixable=editable and violation.best_fix(level) is not None,
        fix_available=editable and bool(violation.fixes),
        after=tuple(after),
        fix_edits=edits if editable else tuple(None for _ in edits),
    )


def _nan_safe(launches: list[dict]) -> list[dict]:
    """The settings with each float NaN (`--x nan` reads as a new NaN each time, never equal) made comparable."""
    return [{d: "nan" if isinstance(v, float) and v != v else v for d, v in s.items()} for s in launches]


def _verify(output: str, fmt: ModuleType, path: str, schema: Schema, intended: list[dict],
            configs: dict[str, str] | None = None) -> None:
    """Read the edited text back (with the edited ``--config`` files, ``configs``: path -> text):
    it must mean exactly the intended settings."""
    configs = configs or {}
    try:
        again = fmt.read(output, path, schema)
        read = {p: yaml_config.read(t, p, schema)[0] for p, t in configs.items()}
    except Exception as exc:  # noqa: BLE001 - any failure here is ours
        raise InternalError(f"{path}: the fixed text does not read back ({exc})") from None
    names = {os.path.realpath(p): p for p in read}

    def lookup(p: str) -> tuple[str, Launch] | None:
        name = names.get(os.path.realpath(p))
        return (name, read[name]) if name is not None else None

    got = [_as_launched(launch, fmt, path, schema, lookup).parsed.explicit_for(schema) for launch in again]
    if _nan_safe(got) != _nan_safe(intended):
        raise InternalError(f"{path}: the fixed text reads back as {got}, not {intended}")
