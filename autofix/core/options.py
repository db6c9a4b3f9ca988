"""What one ``fix_source`` call is given: the options a text is checked with (``FixOptions``) and the caller's
way to the ``--config`` files its launches name (``ConfigReader``); and what its stages share (``Checking``).

The core reads no disk: which path a ``--config`` word leads to, which two paths are one file, and whether a
file may be read are the caller's to say (``autofix.cli.config_files.on_disk`` says them for a run's
``files.FileSet``). Without a ``ConfigReader`` no ``--config`` file is read, and nothing is asked of any path.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from autofix.common.diagnostics import Applicability
from autofix.core.policy import DEFAULT, Policy
from autofix.core.screen import FileScreen
from autofix.pipeline.facts import NO_FACTS, Facts
from autofix.schema import Schema, load, others_of


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class FixOptions:
    """What a text is checked with.

    ``unsafe``: apply the unsafe fixes too (``--unsafe-fixes``; else the safe ones). ``schema``: the target
    SGLang release's argument table (None: 0.5.23's); ``others``: the tables of the releases to recognise
    migrations by (None: every other shipped one). ``facts``: the hardware and model facts the launches run
    with (default: none known; the checks that need one stay silent). ``policy``: which rules are reported and
    how safe their fixes are (``--select``, ``--unfixable``, ...). ``fix_edits``: also place the edits of each
    fix on its own (``Diagnostic.fix_edits``, for the machine formats). ``check_non_configs`` False: a text
    that is no SGLang config (``FixResult.is_config`` False: YAML most of whose keys are not SGLang options) is
    returned unchecked, with no findings (a run reports none of them: its unknown keys' close spellings would
    be work thrown away).
    """

    unsafe: bool = False
    schema: Schema | None = None
    others: Sequence[Schema] | None = None
    facts: Facts = NO_FACTS
    policy: Policy = DEFAULT
    fix_edits: bool = False
    check_non_configs: bool = True


DEFAULT_OPTIONS = FixOptions()


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Withheld:
    """A ``--config`` file the caller does not read (``ConfigReader.read``: outside the project, excluded by its
    configuration, there but a FIFO or unreadable): why, as a note says it, and how to have it read."""

    message: str
    hint: str = ""


def joined(launching: str, written: str) -> str:
    """``written`` relative to the directory of ``launching``, normalised as text (``ConfigReader.place``'s
    default)."""
    return os.path.normpath(os.path.join(os.path.dirname(launching), written))


def itself(path: str) -> str:
    """``path`` (``ConfigReader.identity``'s default: each path is its own file)."""
    return path


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class ConfigReader:
    """How a caller reaches the ``--config`` files the shell launches of a text name (``fix_source``).

    ``read(path)`` gives the file's text; None when there is none (it may be on the launch host: the launch is
    checked with the settings not on its command line unknown); a ``Withheld`` for a file the caller does not
    read (the same, with a note, ``FixResult.unread``). It raises ``InputError`` for a file that is there but
    not UTF-8 text, which SGLang refuses too (``FixResult.errors``).

    ``place(launching, written)`` is the path of ``--config`` file ``written`` named in the file at
    ``launching`` (relative to its directory), as ``read`` is asked for it; ``identity(path)`` what makes two
    paths one file (on disk, the real path: a symlink and its target are one file, read once and reported
    under the first path a launch used). ``shared`` are the identities of the files launches of other texts
    read too (the caller knows them: ``config_files``): such a file is not edited by a settings fix.
    ``policy(path)``, when given, is the policy of the diagnostics located in that file (a project's
    ``per-file-ignores`` for it; default: the checked text's).
    """

    read: Callable[[str], str | Withheld | None]
    place: Callable[[str, str], str] = joined
    identity: Callable[[str], str] = itself
    shared: frozenset[str] = frozenset()
    policy: Callable[[str], Policy] | None = None


# one per checked text, made here only: not frozen (its __init__ costs less, issue 15); never
# printed: no __repr__ to compile (issue 30)
@dataclass(slots=True, eq=False, repr=False)
class Checking:
    """What every stage of one ``fix_source`` call reads, resolved once from its ``FixOptions``: the tables,
    the fix level, the facts, what the call keeps of each violation (``screen``; None: all, as found) and
    whether each fix's edits are placed on their own."""

    schema: Schema
    others: Sequence[Schema]
    level: Applicability
    facts: Facts
    screen: FileScreen | None
    fix_edits: bool

    @classmethod
    def of(cls, options: FixOptions, screen: FileScreen | None) -> Checking:
        """``options`` resolved (the default tables loaded), with ``screen``."""
        schema = options.schema or load()
        return cls(schema, others_of(schema) if options.others is None else options.others,
                   Applicability.UNSAFE if options.unsafe else Applicability.SAFE, options.facts, screen,
                   options.fix_edits)
