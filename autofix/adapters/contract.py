"""The adapter contract, typed: what every input adapter module provides (``Adapter``).

An adapter is a module (``argv``, ``yaml_config``, ``srtslurm``, ``manifest``, ``dockerfile``), handed
around as a value (``autofix.adapters.by_name``, ``detect``). Each implements the whole of ``Adapter``, with
these signatures: a module implements a ``typing.Protocol`` when it has every member (mypy checks a module
where an ``Adapter`` is expected, ``CONFIG_FILES`` and ``tests/adapters/test_contract.py``, which also
checks each member's signature at run time with ``inspect.signature``). What differs between adapters is
said by a member, never by their names: ``SOURCE`` (how the argparse-stage rules read the words),
``looks_like_config`` (whether a text is one to check), ``CONFIG_FILES`` (the adapter of the ``--config``
files its launches read on this host, if any).

Nothing imports this module at run time but the test: the others name ``Adapter`` in annotations only.
"""

from __future__ import annotations

from typing import Literal, Protocol

from autofix.adapters.launch import ConfigArgument, Launch
from autofix.common.diagnostics import EntryOp, Op
from autofix.common.edits import Edit
from autofix.schema import Schema

Source = Literal["config", "command", "recipe"]  # how the argparse-stage rules read a launch's words


class Editor(Protocol):
    """What turns ops on a launch into text edits: every ``Adapter``, and the inner readers an adapter hands a
    piece of its text to (``argv`` for a script, ``tokens`` for a list of words: ``embedded.Embedded.inner``).

    Both raise ``CannotEdit`` for ops the text's layout cannot take.
    """

    def edit(self, text: str, launch: Launch, ops: list[Op], schema: Schema) -> list[Edit]:
        """The edits of ``text`` that make ``ops`` (``Set``/``Unset``) on ``launch``'s settings."""
        ...

    def edit_entries(self, text: str, launch: Launch, ops: list[EntryOp], schema: Schema) -> list[Edit]:
        """The edits of ``text`` that make ``ops`` (``Respell``, ``Revalue``, ``Drop``, ``Rewrite``, ``Requote``) on
        ``launch``'s entries, in place."""
        ...


class Adapter(Editor, Protocol):
    """One kind of input: text -> launches (settings + where they are), ops -> text edits (``Editor``).

    ``read`` raises ``InputError`` for a text the kind's own reader refuses (bash, PyYAML, BuildKit), at its
    position.
    """

    NAME: str  # the kind's name, as ``--stdin-format`` and ``FixResult.format`` give it
    SOURCE: Source  # what the argparse-stage rules see (``written.Written.source``)
    CONFIG_FILES: Adapter | None  # the adapter of the ``--config`` files its launches read on this host; None: none

    def read(self, text: str, path: str, schema: Schema) -> list[Launch]:
        """Every SGLang launch in ``text`` (the file at ``path``, for messages), in order."""
        ...

    def comments(self, text: str, path: str = "-") -> list[tuple[int, int]]:
        """The spans of the comments of the text's own syntax (a suppression marker counts only there, or in a
        comment of a script a launch is read in: ``embedded.script_comments``)."""
        ...

    def looks_like_config(self, launches: list[Launch], schema: Schema | None = None) -> bool:
        """Whether a text read as ``launches`` is one autofix checks (else it is passed over: YAML whose keys are
        mostly not SGLang options, a manifest that launches nothing)."""
        ...

    def config_argument(self, launch: Launch) -> ConfigArgument | None:
        """``launch``'s ``--config FILE`` as SGLang's merger finds it, or None (always None where
        ``CONFIG_FILES`` is)."""
        ...

