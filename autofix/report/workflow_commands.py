"""Text the GitHub Actions runner must not read as a workflow command.

The runner (actions/runner: ``OutputManager.OnDataReceived``, ``ActionCommandManager.TryProcessCommand``,
``ActionCommand.TryParseV2`` and ``TryParse``) reads every line of a step's stdout and stderr, a line ending
at ``\\n``, ``\\r`` or ``\\r\\n``. A line is a command when, its leading white space dropped, it starts
``::name`` and holds a second ``::`` (``::error file=x::message``), or when ``##[name`` stands anywhere in it
(the older form, ``##[error]message``), ``name`` being one the runner knows: ``error``, ``warning``,
``add-mask``, ``stop-commands``, ``group``, ``add-matcher``, ... A file name or a file's text can be
either, so a report that prints one (a name at the start of a line, a value in a message, a line of a diff)
could annotate, mask, fold or silence what the log shows.

The runner reads no command between ``::stop-commands::TOKEN`` and ``::TOKEN::`` but that one; TOKEN is
random (``token``), so the text cannot hold it. ``guarded`` wraps text so; ``commands_in`` says whether
text has a line the runner could read as a command (counting more lines than the runner does, never
fewer: Python's white space and line breaks include the runner's).
"""

from __future__ import annotations

import os


def token() -> str:
    """A token no text can guess: 32 random hex digits."""
    return os.urandom(16).hex()


def commands_in(text: str) -> bool:
    """Whether the runner could read some line of ``text`` as a workflow command."""
    if "##[" in text:
        return True
    if "::" not in text:
        return False
    return any(line.lstrip().startswith("::") for line in text.splitlines())


def guarded(text: str, stop: str | None = None) -> str:
    """``text`` between ``::stop-commands::TOKEN`` and ``::TOKEN::`` lines (``stop``, default a new
    ``token``): the runner prints it as it is and reads no command in it. ``text`` is whole lines (a
    last line without its ``\\n`` gets one, for the closing line to stand on its own)."""
    stop = stop or token()
    while stop in text:  # never, with a random token: but then the text could end the region
        stop = token()
    end = "" if text.endswith(("\n", "\r")) else "\n"
    return f"::stop-commands::{stop}\n{text}{end}::{stop}::\n"
