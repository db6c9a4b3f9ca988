"""A shell launch and the ``--config`` file it names, read as one launch.

SGLang 0.5.23 merges them before argparse runs (``ConfigArgumentMerger`` in
``sglang/srt/utils/server_args_config_parser.py``): the file's settings,
converted to words, come first, then the command line's words without the
``--config FILE`` pair, so a flag on the command line wins over the file
(argparse keeps the last). ``merge`` builds those words; every word keeps
where it came from (a config word's ``Location.path`` names the file), so a
diagnostic points at the place the effective value comes from, and ``route``
sends each settings op to the file that holds the effective value.

Pure: the caller reads the file and says where its path leads (``api.fix_source``'s ``ConfigReader``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from autofix.adapters.launch import Launch
from autofix.common.arguments import parse_words
from autofix.common.diagnostics import Op, Unset
from autofix.schema import Schema


@dataclass(frozen=True, slots=True)
class Merged:
    """The context of a merged launch (``Launch.ctx``).

    ``launch`` is the command line as the shell adapter read it, ``config``
    the file as the YAML adapter read it, ``path`` the file's path as
    reported; the merged words ``[0, split)`` come from the file.
    """

    launch: Launch
    config: Launch
    path: str
    split: int


def merge(launch: Launch, config: Launch, path: str, index: int, schema: Schema) -> Launch:
    """The launch SGLang runs: ``config``'s words, then ``launch``'s without words ``index`` and ``index + 1``.

    ``index`` is the ``--config`` word; ``path`` is put on the config words'
    locations. The result has no entries: the argparse-stage rules judge each
    file's own words (a config key as a key, a flag as a flag).
    """
    from_file = [replace(w, loc=replace(w.loc, path=path)) for w in config.parsed.words]
    command = [w for k, w in enumerate(launch.parsed.words) if k not in (index, index + 1)]
    parsed = parse_words(schema, from_file + command)
    return Launch(parsed, launch.start, Merged(launch, config, path, len(from_file)), ())


def unknown(launch: Launch) -> Launch:
    """``launch`` with a config file autofix cannot read: every setting not written on it is UNKNOWN."""
    return replace(launch, parsed=replace(launch.parsed, base_unknown=True))


def route(merged: Launch, ops: list[Op], shared: bool = False) -> tuple[list[Op], list[Op]]:
    """``ops`` split into (ops on the command line, ops on the config file).

    A Set goes where the effective value is written: the file when its last
    occurrence is there, else the command line (an absent setting is added
    to the command line). An Unset removes every occurrence in both. With
    ``shared`` (other launches read the same file) every Set goes to the
    command line, which overrides the file for this launch only.
    """
    ctx: Merged = merged.ctx
    settings = merged.parsed.settings
    command: list[Op] = []
    config: list[Op] = []
    for op in ops:
        if isinstance(op, Unset):
            if any(s.dest == op.dest for s in ctx.launch.parsed.occurrences):
                command.append(op)
            if any(s.dest == op.dest for s in ctx.config.parsed.occurrences):
                config.append(op)
            continue
        s = settings.get(op.dest)
        (config if s is not None and s.option_index < ctx.split and not shared else command).append(op)
    return command, config
