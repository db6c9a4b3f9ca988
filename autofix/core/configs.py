"""The ``--config`` files the launches of one text read, each read through the caller's ``ConfigReader``,
checked once (its own argparse stage) and edited with the text (``ConfigFiles``).

A launch that names one is checked as SGLang runs it: merged with the file (``launched``,
``autofix.core.merge``). The argparse stage of a text sees each launch's other file through ``Merges``: a
command line's ``ConfigFiles`` (the file it reads), a file's ``Readers`` (the command lines that read it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from autofix.adapters.launch import Launch
from autofix.common.diagnostics import UNKNOWN, Location, Op, TextEdit
from autofix.common.edits import Edit, apply_edits
from autofix.common.errors import InputError
from autofix.common.filenames import is_yaml
from autofix.common.written import Layers
from autofix.core import argparse_stage, merge
from autofix.core import fix_edits as placing
from autofix.core.argparse_stage import ArgStage, Locator, Merges
from autofix.core.options import ConfigReader, Withheld, itself, joined
from autofix.core.results import Unread
from autofix.schema import Schema

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter
    from autofix.core.options import Checking


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(slots=True, eq=False, repr=False)
class Config:
    """A ``--config`` file read through a launch: its text as read, its argparse stage, and the settings-stage
    edits (on the stage's corrected text)."""

    source: str
    written: ArgStage
    edits: list[Edit] = field(default_factory=list)


class Readers(Merges):
    """A ``--config`` file's launches: the command lines that read it (``readers``: each with the index of its
    ``--config`` word), and whether launches autofix does not see read it too (``outside``)."""

    def __init__(self, name: str, readers: list[tuple[Launch, int]], outside: bool, schema: Schema) -> None:
        self.name, self.readers, self.outside, self.schema = name, readers, outside, schema

    def layers(self, launches: list[Launch]) -> list[tuple[Layers | None, Launch]]:
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
    values: dict[str, Any] = {}
    for dest in frozenset().union(*runs):
        seen = [run.get(dest, _UNSET) for run in runs]
        same = all(v is seen[0] or v == seen[0] for v in seen)  # (a NaN is never equal: UNKNOWN)
        values[dest] = seen[0] if same and seen[0] is not _UNSET else UNKNOWN
    return Layers(values, others, frozenset.intersection(*written))


_UNSET = object()


class ConfigFiles(Merges):
    """The ``--config`` files the launches of one text (the file at ``script``, read by ``adapter``) read, each
    read and checked once, by the adapter its launches read them with (``adapter.CONFIG_FILES``).

    A file is known by its identity (``ConfigReader.identity``: a symlink and its target are one file) and
    named by the first path a launch reached it by: ``files``, ``errors`` and the merged launches'
    ``Merged.path`` use that name. A file's argparse stage sees the launches of this text that read it
    (``Readers``), as they were when it was first read. Without a ``reader`` no file is read.
    """

    def __init__(self, reader: ConfigReader | None, adapter: Adapter, script: str, checking: Checking) -> None:
        self.reader, self.adapter, self.script, self.checking = reader, adapter.CONFIG_FILES, script, checking
        self.launching = adapter
        self.place: Callable[[str, str], str] = reader.place if reader is not None else joined
        self.identity: Callable[[str], str] = reader.identity if reader is not None else itself
        self.files: dict[str, Config | None] = {}
        self.errors: dict[str, InputError] = {}  # name -> why SGLang would not read the file
        self.withheld: dict[str, Withheld] = {}  # name -> why the reader did not read it
        self.names: dict[str, str] = {}  # identity -> name
        self.readers: dict[str, list[tuple[Launch, int]]] = {}  # name -> the launches of the text that read it

    def name(self, path: str) -> str:
        """The name the file at ``path`` goes by in this text (the first path that reached it)."""
        return self.names.setdefault(self.identity(path), path)

    def get(self, path: str) -> Config | None:
        """The file at ``path`` after its argparse-stage fixes, or None when it cannot be read as a config."""
        path = self.name(path)
        if path not in self.files:
            text = None
            try:
                got = self.reader.read(path) if self.reader is not None else None
            except InputError as exc:  # there, but not UTF-8 text: SGLang refuses it at start-up too
                self.errors[path] = _refused(exc, self.script)
            else:
                if isinstance(got, Withheld):  # outside the project, excluded, a FIFO: unknown, with a note
                    self.withheld[path] = got
                else:
                    text = got
            config = None
            if text is not None and self.adapter is not None:
                readers = Readers(path, self.readers.get(path, []), self.outside(path), self.checking.schema)
                try:
                    config = Config(text, argparse_stage.run(text, self.adapter, path, self.checking, readers))
                except InputError as exc:  # there, but SGLang refuses it at start-up: unknown, and an error
                    self.errors[path] = _refused(exc, self.script)
            self.files[path] = config
        return self.files[path]

    def outside(self, name: str) -> bool:
        """Whether launches of other texts read file ``name`` too."""
        return self.reader is not None and self.identity(name) in self.reader.shared

    def shared(self, launches: list[Launch]) -> set[str]:
        """The names of the files several of ``launches`` (as launched) read, or launches of other texts too: a
        settings fix does not edit those."""
        count: dict[str, int] = {}  # by the file's name: one per identity
        for launch in launches:
            if isinstance(launch.ctx, merge.Merged):
                count[launch.ctx.path] = count.get(launch.ctx.path, 0) + 1
        return {p for p, n in count.items() if n > 1 or self.outside(p)}

    def layers(self, launches: list[Launch]) -> list[tuple[Layers | None, Launch]]:
        if self.adapter is None:
            return [(None, launch) for launch in launches]
        self.readers = {}
        for launch in launches:
            ref = self.launching.config_argument(launch)
            if ref is not None and ref.path is not None and self.script != "-" and is_yaml(ref.path):
                self.readers.setdefault(self.name(self.place(self.script, ref.path)), []).append((launch, ref.index))
        out = []
        schema = self.checking.schema
        for launch in launches:
            launched = self.launched(launch)
            ctx = launched.ctx
            layers: Layers | None
            if isinstance(ctx, merge.Merged):
                shared = len(self.readers.get(ctx.path, ())) > 1 or self.outside(ctx.path)
                layers = Layers(launched.parsed.explicit_for(schema),
                                frozenset(s.dest for s in ctx.config.parsed.occurrences), editable=not shared)
            elif launched.parsed.base_unknown:  # a file autofix cannot read may write any setting
                layers = Layers(launched.parsed.explicit_for(schema), frozenset(schema.by_dest))
            else:
                layers = None
            out.append((layers, launched))
        return out

    def edits(self, launched: Launch, ops: list[Op]) -> tuple[str, list[Edit]]:
        ctx: merge.Merged = launched.ctx
        return self.name(ctx.path), self.edit(ctx, ops)

    def edit(self, ctx: merge.Merged, ops: list[Op]) -> list[Edit]:
        """The edits of the corrected text of a merged launch's file (``ctx``) that make ``ops``. Raises
        ``CannotEdit``."""
        config = self.get(ctx.path)
        assert config is not None and self.adapter is not None  # a merged launch's file was read
        return self.adapter.edit(config.written.text, ctx.config, ops, self.checking.schema)

    def read(self, text: str, name: str) -> list[Launch]:
        """``text`` of file ``name`` read as a ``--config`` file (asked only of a file a launch read)."""
        assert self.adapter is not None  # only a text whose launches read files has files
        return self.adapter.read(text, name, self.checking.schema)

    def amend(self, name: str, edits: list[Edit]) -> None:
        """Apply a command line's argparse-stage fix to file ``name``: one more pass of its argparse stage."""
        config = self.files[name]
        assert config is not None  # a launch's fix writes only a file it read
        stage = config.written
        text = apply_edits(stage.text, edits)
        stage.launches = self.read(text, name)
        stage.text = text
        stage.chain = [*stage.chain, edits]

    def placed(self, name: str, edits: list[Edit]) -> tuple[TextEdit, ...] | None:
        config = self.files[name]
        assert config is not None  # ``edits`` read it
        if config.written.chain:
            return None
        return placing.placed(edits, config.source, (), name)  # (with no chain, every edit is placed)

    def launch(self, path: str) -> tuple[str, Launch] | None:
        """(the file's name, its launch: its corrected text, read), or None."""
        config = self.get(path)
        return (self.name(path), config.written.launches[0]) if config is not None else None

    def launched(self, launch: Launch) -> Launch:
        """The launch SGLang runs: ``launch`` of the text, merged with its ``--config`` file when that is read."""
        return launched(launch, self.launching, self.script, self.checking.schema, self.place, self.launch)

    def locator(self, script: Locator) -> Locator:
        """Map a location back to its original text: a config file's (``Location.path``) or the script's."""
        def back(loc: Location) -> Location:
            config = self.files.get(loc.path) if loc.path is not None else None
            if config is None:
                return script(loc)
            return replace(config.written.locator(config.source)(loc), path=loc.path)
        return back

    def notes(self, launches: list[Launch], back: Locator) -> tuple[Unread, ...]:
        """A note for each ``--config`` file of ``launches`` (as the argparse stage left them; ``back`` places
        them in the text as read) that autofix did not read on purpose: one the reader withheld, or one inside
        the container a launch runs in. One per file (per path as written, for a container)."""
        if self.adapter is None or self.script == "-" or self.reader is None:
            return ()
        out: dict[object, Unread] = {}
        for launch in launches:
            if launch.elsewhere is None and not self.withheld:
                continue
            ref = self.launching.config_argument(launch)
            if ref is None or ref.path is None or not is_yaml(ref.path):
                continue
            if launch.elsewhere is not None:
                key: object = (launch.elsewhere, ref.path)
                file, why, hint = None, f"is read inside the container ({launch.elsewhere}), not on this host", ""
            else:
                file = self.name(self.place(self.script, ref.path))
                withheld = self.withheld.get(file)
                if withheld is None:
                    continue
                key, why, hint = file, withheld.message, withheld.hint
            if key not in out:
                out[key] = Unread(self.script, back(launch.parsed.words[ref.index].loc), file,
                                  f"--config {ref.path} {why}: not read, and the settings it would give are unknown"
                                  + (f" ({hint})" if hint else ""))
        return tuple(out.values())


def _refused(exc: InputError, script: str) -> InputError:
    """``exc``, about a ``--config`` file of ``script`` that SGLang refuses to read, as the error it is."""
    return InputError(exc.path, exc.line, exc.col,
                      f"{exc.message} (the --config file of {script}: SGLang refuses to start)")


def launched(launch: Launch, adapter: Adapter, path: str, schema: Schema, place: Callable[[str, str], str],
             lookup: Callable[[str], tuple[str, Launch] | None]) -> Launch:
    """The launch SGLang runs: ``launch`` of the text at ``path`` (read by ``adapter``), merged with its
    ``--config`` file when ``lookup`` reads it (see ``fix_source``); ``place`` finds the file's path.

    ``lookup(path)`` gives the file's name (the path its diagnostics carry) and its launch.
    """
    if adapter.CONFIG_FILES is None:
        return launch
    ref = adapter.config_argument(launch)
    if ref is None:
        return launch
    if ref.path is None or path == "-" or not is_yaml(ref.path) or launch.elsewhere is not None:
        return merge.unknown(launch)  # (in a container, FILE is the container's: never read on this host)
    found = lookup(place(path, ref.path))
    if found is None:
        return merge.unknown(launch)
    name, config = found
    return merge.merge(launch, config, name, ref.index, schema)
