"""Errors autofix raises. Only ``autofix.cli.main`` and ``autofix.cli.commands`` turn them into exit codes."""

from __future__ import annotations


class AutofixError(Exception):
    """Base class of every error autofix raises on purpose."""


class InputError(AutofixError):
    """Bad input: the file cannot be read as what it claims to be.

    ``line`` and ``col`` are 1-based (1:1 for a problem of the whole file).
    The file is never written when this is raised. Exit code 2.
    """

    def __init__(self, path: str, line: int, col: int, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.col = col
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: error: {self.message}"


class ConfigError(InputError):
    """A project configuration file autofix cannot use (``autofix.project.configuration``): the message names the key;
    ``line``/``col`` point at it. It stops the run (exit 2): no file is checked with settings it cannot read."""


class WriteError(AutofixError):
    """A fixed text could not be written: the file is left as it was. Exit code 2.

    ``message`` says why (write-protected, changed since it was read, the
    system refused the write). ``unchanged`` is False when another process
    wrote to the file while autofix wrote it: the file is then as that
    process left it, not as autofix read it, and ``message`` says how.
    """

    def __init__(self, path: str, message: str, *, unchanged: bool = True) -> None:
        super().__init__(message)
        self.path = path
        self.message = message
        self.unchanged = unchanged

    def __str__(self) -> str:
        tail = "; the file is unchanged" if self.unchanged else ""
        return f"{self.path}:1:1: error: not written: {self.message}{tail}"


class InternalError(AutofixError):
    """autofix contradicted itself (edits overlap, the re-parse check failed).

    Nothing is written. Exit code 2; the message asks the user to report it.
    """


class CannotEdit(AutofixError):
    """A fix cannot be written in this file's layout (e.g. a key added to a
    flow-style mapping). The violation is then reported as not fixable."""


class UnknownRule(AutofixError, LookupError):
    """No rule has the code or name that was asked for."""


class OutputError(Exception):
    """The report cannot be written: stdout or stderr is closed, or its disk is full. The run stops there."""


class ReaderLeft(OutputError):
    """The reader of stdout or stderr left (a broken pipe: ``autofix . | head``). The run stops there, quietly.

    Not an ``OSError``: click would take it for its own broken pipe and exit 1, which says "violations"."""


class UsageError(AutofixError):
    """The command line asks for something that cannot be done (two modes at once, an unknown rule
    selector): exit 2, nothing checked. ``param`` names the option (``--select``), or None."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
