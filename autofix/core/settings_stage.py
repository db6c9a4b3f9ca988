"""The settings stage of one text: each launch's settings, as SGLang runs them, through SGLang's resolution
steps to a fixpoint (``engine.run``), and the edits of the fixes, settled together (``Proposals``).

It runs on the text the argparse stage corrected (``ArgStage``); the launches are merged with their
``--config`` files (``ConfigFiles.launched``), and each fix's ops go to the file that holds the effective
value (``merge.route``). ``Settled.found`` places what each launch's run found in the text as read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from autofix.adapters.launch import Launch
from autofix.common.arguments import parse_words
from autofix.common.diagnostics import Diagnostic, Fix, Location, Op, Set, TextEdit, Unset, Violation, applied
from autofix.common.edits import Edit, apply_edits, offset_of
from autofix.common.errors import CannotEdit
from autofix.core import engine, merge
from autofix.core import fix_edits as placing
from autofix.core.proposals import Proposals
from autofix.core.results import diagnostic
from autofix.schema import Schema

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter
    from autofix.core.argparse_stage import ArgStage, Locator
    from autofix.core.configs import ConfigFiles
    from autofix.core.options import Checking
    from autofix.pipeline.facts import Facts


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(slots=True, eq=False, repr=False)
class Settled:
    """The settings stage of a text: each launch's run (``outcomes``), the edits of the fixes that stand, on the
    argparse stage's text (``edits``; those of ``--config`` files are in ``ConfigFiles.files``), the launches
    none of whose fixes stands (``unfixed``), where a refused launch's note points (``where``), and the names
    of the ``--config`` files several launches read (``shared``)."""

    text: str  # as read
    adapter: Adapter
    path: str
    checking: Checking
    arg_stage: ArgStage
    launches: list[Launch]  # as SGLang runs them
    configs: ConfigFiles
    outcomes: list[engine.Outcome]
    edits: list[Edit]
    unfixed: set[int]
    where: dict[int, Location]
    shared: set[str]
    back: Locator  # a location in the argparse stage's text or a --config file's -> in that file as read

    def apply(self) -> tuple[str, dict[str, str]]:
        """The text the argparse stage corrected with the settings stage's edits, and each ``--config`` file's
        (name -> text), likewise."""
        output = apply_edits(self.arg_stage.text, self.edits)
        return output, {p: apply_edits(c.written.text, c.edits) for p, c in self.configs.files.items() if c is not None}

    def found(self) -> tuple[list[Diagnostic], list[Diagnostic], list[str]]:
        """(every finding, what remains, the conflicts) of the launches, placed in the text as read (``back``)."""
        back = self.back
        diagnostics: list[Diagnostic] = []
        remaining: list[Diagnostic] = []
        conflicts: list[str] = []
        level, path = self.checking.level, self.path
        for index, (launch, outcome) in enumerate(zip(self.launches, self.outcomes)):
            editable = index not in self.unfixed
            for v in outcome.findings:
                alone = self.fix_edits(v, index, launch) if self.checking.fix_edits and not v.after else ()
                diagnostics.append(diagnostic(path, launch, v, level, editable, back, alone))
            remaining.extend(diagnostic(path, launch, v, level, editable, back) for v in outcome.remaining)
            if outcome.conflict:
                loc = back(self.where.get(index, launch.start))
                conflicts.append(f"{path}:{loc.line}:{loc.col}: {outcome.conflict}")
        return diagnostics, remaining, conflicts

    def fix_edits(self, v: Violation, index: int, launch: Launch) -> tuple[tuple[TextEdit, ...] | None, ...]:
        """Each of ``v``'s fixes on its own, as text edits of the text as read (and of a merged launch's
        ``--config`` file), or None where it cannot be written alone (``fix_edits``).

        The fixes are rendered on the text the argparse stage corrected; where that stage changed the text, a
        fix's edits count as its own only if, applied alone to the text, they give launch ``index`` exactly the
        fix's ops (a fix on a setting written twice needs the repeat's fix first).
        """
        arg_stage, schema, path = self.arg_stage, self.checking.schema, self.path

        def render(fix: Fix) -> tuple[TextEdit, ...] | None:
            ops: list[Op] = list(fix.ops)  # type: ignore[arg-type]  # a settings rule's fix: Set and Unset
            script, in_file = _edit(arg_stage.text, self.adapter, launch, ops, schema, self.configs, self.shared)
            _keeps_the_other_words(launch, ops, schema)
            out = placing.placed(script, self.text, arg_stage.chain, path)
            if out is None:
                return None
            if in_file is not None:
                name, edits = in_file
                config = self.configs.files[name]
                assert config is not None  # ``_edit`` read it
                if config.written.chain:
                    return None
                more = placing.placed(edits, config.source, (), name)
                if more is None:  # (with no chain, every edit is placed)
                    return None
                out += more
            if arg_stage.chain and not _alone_makes(self.text, [e for e in out if e.path == path], self.adapter,
                                                    path, schema, index, ops):
                return None
            return out

        return placing.of_fixes(v.fixes, render)


def run(text: str, adapter: Adapter, path: str, checking: Checking, arg_stage: ArgStage, launches: list[Launch],
        configs: ConfigFiles) -> Settled:
    """The settings stage of ``text`` (the file at ``path``), whose argparse stage is ``arg_stage`` and whose
    launches, as SGLang runs them, are ``launches``: each launch to its fixpoint, the edits settled (a launch
    whose edits the text cannot take, or that other launches need otherwise, keeps its violations, unfixed,
    with a note why)."""
    schema, facts = checking.schema, checking.facts
    shared = configs.shared(launches)
    opened = _opened(text, adapter, path, schema, arg_stage, launches)
    back = configs.locator(arg_stage.locator(text))
    command = adapter.SOURCE == "command"
    screens = [checking.screen.for_launch(path, launch, back, command) if checking.screen is not None else None
               for launch in launches]
    proposals = Proposals(launches)
    outcomes = []
    for index, launch in enumerate(launches):
        outcome = _one(index, launch, arg_stage.text, adapter, checking, configs, shared, proposals, screens[index])
        if index in opened:  # SGLang reads the file only once an argparse-stage fix says --config right
            plain = arg_stage.launches[index].parsed.explicit_for(schema)
            alone = {(v.code, v.message) for v in engine.check(plain, schema, facts, screen=screens[index])}
            outcome = replace(outcome, findings=tuple(
                v if v.after or (v.code, v.message) in alone else replace(v, after=opened[index])
                for v in outcome.findings))
        if arg_stage.born[index]:  # the launch exists once a host-stage fix writes it as its file will run it
            outcome = replace(outcome, findings=tuple(
                v if v.after else replace(v, after=arg_stage.born[index]) for v in outcome.findings))
        outcomes.append(outcome)
    edits, _ = proposals.settle()
    unfixed: set[int] = set()  # launches whose fixes could not be written
    for index, why in proposals.refused.items():  # report the violations, unfixed, and say why
        unfixed.add(index)
        outcomes[index] = _refused(launches[index].parsed.explicit_for(schema), schema, facts, screens[index], why)
    return Settled(text, adapter, path, checking, arg_stage, launches, configs, outcomes, edits, unfixed,
                   proposals.where, shared, back)


def _refused(before: dict[str, object], schema: Schema, facts: Facts, screen: engine.Screen | None,
             why: str) -> engine.Outcome:
    """The outcome of a launch whose fixes are not written: what it is found to hold, all remaining."""
    found = tuple(engine.check(before, schema, facts, screen=screen))
    return engine.Outcome(found, before, found, f"fixes not applied: {why}")


def _one(index: int, launch: Launch, current: str, adapter: Adapter, checking: Checking, configs: ConfigFiles,
         shared: set[str], proposals: Proposals, screen: engine.Screen | None) -> engine.Outcome:
    """The settings stage of launch ``index``: its settings through SGLang's pipeline to a fixpoint
    (``engine.run``), and the edits of the fixes proposed for ``current`` (``proposals``; an edit the
    text cannot take is refused there, with why).

    A launch that prints the usage (``--help``), or that its file does not run as written (DKR001-DKR003),
    starts no server: nothing to resolve.
    """
    schema = checking.schema
    before = launch.parsed.explicit_for(schema)
    if launch.parsed.help_index >= 0 or launch.host is not None:
        return engine.Outcome((), before, (), None)
    outcome = engine.run(before, schema, checking.level, checking.facts, screen=screen)
    ops = engine.net_ops(before, outcome.explicit)
    if ops:
        try:
            _keeps_the_other_words(launch, ops, schema)
            script, in_file = _edit(current, adapter, launch, ops, schema, configs, shared)
            if in_file is not None:
                config = configs.files[in_file[0]]
                assert config is not None  # ``_edit`` read it
                config.edits = in_file[1]
            proposals.add(index, script)
        except CannotEdit as exc:
            proposals.refuse(index, str(exc), getattr(exc, "location", None))
    return outcome


def _opened(text: str, adapter: Adapter, path: str, schema: Schema, arg_stage: ArgStage,
            launches: list[Launch]) -> dict[int, tuple[str, ...]]:
    """Launches merged with a ``--config`` file only after an argparse-stage fix (``--config=FILE``
    written ``--config FILE``, CFG005): index -> the codes of the script's fixes on ``--config``."""
    if adapter.CONFIG_FILES is None or not arg_stage.chain or \
            not any(isinstance(x.ctx, merge.Merged) for x in launches):
        return {}
    original = adapter.read(text, path, schema)
    codes = tuple(dict.fromkeys(d.code for d in arg_stage.diagnostics if d.fixable and "config" in d.violation.args))
    if len(original) != len(launches) or not codes:
        return {}
    out = {}
    for index, (before, now) in enumerate(zip(original, launches)):
        ref = adapter.config_argument(before)
        if isinstance(now.ctx, merge.Merged) and (ref is None or ref.path is None):
            out[index] = codes
    return out


def _alone_makes(text: str, edits: list[TextEdit], adapter: Adapter, path: str, schema: Schema, index: int,
                 ops: Sequence[Op]) -> bool:
    """Whether ``edits`` (``TextEdit``s of ``text``) give launch ``index`` of ``text`` exactly ``ops``, the
    other launches nothing."""
    try:
        before = [x.parsed.explicit for x in adapter.read(text, path, schema)]
        after = [x.parsed.explicit for x in adapter.read(apply_edits(text, [
            Edit(offset_of(text, e.start.line, e.start.col), offset_of(text, e.end.line, e.end.col), e.content)
            for e in edits]), path, schema)]
    except Exception:  # noqa: BLE001 - edits that do not read back are not the fix's own
        return False
    if len(before) != len(after) or not 0 <= index < len(before):
        return False
    wanted = [applied(b, ops) if i == index else b for i, b in enumerate(before)]
    return after == wanted


def _keeps_the_other_words(launch: Launch, ops: Sequence[Op], schema: Schema) -> None:
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


def _adds_before_the_end_of_options(launch: Launch, ops: Sequence[Op], schema: Schema) -> None:
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


def _edit(text: str, adapter: Adapter, launch: Launch, ops: list[Op], schema: Schema, configs: ConfigFiles,
          shared_files: set[str]) -> tuple[list[Edit], tuple[str, list[Edit]] | None]:
    """The script's edits for ``ops``, and a merged launch's config-file edits: (the file's name in
    ``configs``, edits on its corrected text), or None.

    ``shared_files``: the names (in ``configs``) of the files other launches read too.
    Raises ``CannotEdit`` when either file cannot take them.
    """
    ctx = launch.ctx
    if not isinstance(ctx, merge.Merged):
        _adds_before_the_end_of_options(launch, ops, schema)
        return adapter.edit(text, launch, ops, schema), None
    shared = ctx.path in shared_files
    command, in_file = merge.route(launch, ops, shared)
    if shared and in_file:
        raise CannotEdit(f"{ctx.path} is read by several launches: remove its settings by hand")
    _adds_before_the_end_of_options(ctx.launch, command, schema)
    out = adapter.edit(text, ctx.launch, command, schema) if command else []
    if not in_file:
        return out, None
    return out, (configs.name(ctx.path), configs.edit(ctx, in_file))
