"""Where autofix prints: ``ReportStream`` for what a command reports, ``ProcessStream`` for all else.

Everything autofix prints goes through one of the two, so that whatever a file's name or text holds:

* in a GitHub Actions log (``actions``), no line is read as a workflow command: a write holding such a line
  is printed between ``::stop-commands::`` lines (``workflow_commands.guarded``);
* a byte of a name that is not UTF-8, or a character the stream's encoding cannot hold, is printed as its
  escape (``escapes``), never a failure;
* a stream that cannot be written stops the command with one ``OutputError`` ("cannot write to stdout: ..."),
  and a reader that left (a broken pipe, ``autofix . | head``) with ``ReaderLeft``, which ``autofix.cli.main``
  turns into a quiet exit (never click's exit 1, which would say "violations").

``ReportStream`` wraps the stream a command reports on: its report lines (``line``) show every control
character of a name or a message as an escape (``escapes.visible``); text it writes whole (``write``: a
coloured diagnostic line, the diff, a machine format's document) is autofix's to make safe. ``ProcessStream``
is what ``autofix.cli.main`` makes of ``sys.stdout`` and ``sys.stderr`` (``install``), for all that no
``ReportStream`` prints: click's usage errors and help, a traceback of ``--verbose``; it guards whole lines,
holding a line's start until its end is written. A ``ReportStream`` over it writes to the stream beneath.
"""

from __future__ import annotations

import sys
from typing import Any

from autofix.common.errors import OutputError, ReaderLeft
from autofix.common.escapes import ERRORS, printable, visible


class ReportStream:
    """A stream of a command's report, whose write failures stop the command with one ``OutputError`` (not one
    error per file), or ``ReaderLeft`` for a broken pipe.

    ``line`` takes one line of the report (a status, a note, an error), shown as ``escapes.visible`` shows it
    (a control character in a name, a line break included, as its escape); ``write`` takes report text as it
    is: a file name that is not UTF-8 is printed as ``caf\\xe9.yaml`` (``escapes.printable``), and a character
    the stream's encoding cannot hold as its backslash escape (``\\u2026``), never a failure (``autofix.cli.main``
    sets the same on ``sys.stdout`` and ``sys.stderr``). ``write_utf8`` takes the text of a file (a diff, the
    fixed text of stdin): UTF-8 whatever the stream's encoding, so it is what the file holds. ``buffer`` is
    the stream's bytes. With ``guard`` (a GitHub Actions log), report text that the runner could read as a
    workflow command (a file named ``::error file=x::y.yaml``) is printed between ``::stop-commands::``
    lines; each write is whole lines; None (the default): as the ``ProcessStream`` it is given guards, if it
    is one. ``stream`` None is a closed stream.
    """

    def __init__(self, stream, name: str, *, binary: bool = False, guard: bool | None = None) -> None:
        if isinstance(stream, ProcessStream):  # this one guards what it writes itself (the github document not)
            stream.flush_line()
            guard = stream.guarded if guard is None else guard
            stream = stream.raw
        self._stream, self._name, self._binary = stream, name, binary
        self._guard = None
        if guard:  # loaded only for a GitHub Actions log
            from autofix.report import workflow_commands

            self._guard = workflow_commands

    def _call(self, method: str, *args):
        if self._stream is None:
            raise OutputError(f"cannot write to {self._name}: it is closed")
        return _call(self._stream, self._name, method, *args)

    def write(self, text: Any) -> Any:
        """Write ``text`` (bytes to a binary stream, else a string, its control characters kept); what the
        stream's ``write`` returns."""
        if self._binary:
            return self._call("write", text)
        text = printable(text)
        if self._guard is not None and self._guard.commands_in(text):
            text = self._guard.guarded(text)
        try:
            return self._call("write", text)
        except UnicodeEncodeError:  # a stream with strict errors (the caller's): escape what it cannot hold
            encoding = getattr(self._stream, "encoding", None) or "ascii"
            return self._call("write", text.encode(encoding, ERRORS).decode(encoding))

    def line(self, text: str) -> None:
        """Write ``text`` as one line of the report: each control character in it (a line break, a tab, an
        escape sequence's ``\\x1b``) as its escape, then a line break."""
        self.write(visible(text) + "\n")

    def writelines(self, lines) -> None:
        self.write("".join(lines))

    def write_utf8(self, text: str, *, report: bool = True) -> None:
        """Write ``text``, the text of a file, as UTF-8 (``printable``) whatever the stream's encoding;
        ``report``: part of the report (a diff: guarded as ``write`` guards), not data (stdin's fixed text)."""
        encoding = getattr(self._stream, "encoding", None)
        if encoding is None or getattr(self._stream, "buffer", None) is None or _is_utf8(encoding):
            if report:
                self.write(text)
            else:
                self._call("write", text)
            return
        text = printable(text)
        if report and self._guard is not None and self._guard.commands_in(text):
            text = self._guard.guarded(text)
        self.flush()  # what the text layer holds goes first
        self.buffer.write(text.encode("utf-8"))

    def flush(self) -> None:
        self._call("flush")

    @property
    def buffer(self) -> ReportStream:
        return ReportStream(getattr(self._stream, "buffer", None), self._name, binary=True)


def _is_utf8(encoding: str) -> bool:
    import codecs

    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


class ProcessStream:
    """``sys.stdout`` or ``sys.stderr`` (``raw``) as ``install`` leaves it: what anyone writes to it is written
    to ``raw``, each failure an ``OutputError`` (``ReaderLeft`` for a broken pipe); with ``guard`` (a GitHub
    Actions log), whole lines, those that the runner could read as a workflow command between
    ``::stop-commands::`` lines. Every other attribute is ``raw``'s."""

    def __init__(self, raw, name: str, *, guard: bool = False) -> None:
        self.raw, self._name, self._pending = raw, name, ""
        self._guard = None
        if guard:
            from autofix.report import workflow_commands

            self._guard = workflow_commands

    def __getattr__(self, attr: str):
        return getattr(self.raw, attr)

    @property
    def guarded(self) -> bool:
        """Whether it guards what it prints (a GitHub Actions log)."""
        return self._guard is not None

    def _call(self, method: str, *args):
        return _call(self.raw, self._name, method, *args)

    def write(self, text) -> int:
        if self._guard is None or not isinstance(text, str):  # bytes: raw says they are not for a text stream
            return self._call("write", text)
        pending = self._pending + text
        end = max(pending.rfind("\n"), pending.rfind("\r")) + 1  # the runner ends a line at either
        whole, self._pending = pending[:end], pending[end:]
        if whole:
            self._call("write", self._guard.guarded(whole) if self._guard.commands_in(whole) else whole)
        return len(text)

    def flush_line(self) -> None:
        """Write what is held of a line not yet ended (guarded, then ended, if it reads as a command)."""
        pending, self._pending = self._pending, ""
        if pending:
            assert self._guard is not None  # only a guarded stream holds a line's start
            self._call("write", self._guard.guarded(pending) if self._guard.commands_in(pending) else pending)

    def flush(self) -> None:
        self.flush_line()
        self._call("flush")

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)


def install(actions: bool) -> None:
    """Make ``sys.stdout`` and ``sys.stderr`` ``ProcessStream`` s (a closed one stays None), guarded when
    ``actions``: a GitHub Actions log."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, ProcessStream):
            setattr(sys, name, ProcessStream(stream, name, guard=actions))


def _call(stream, name: str, method: str, *args):
    """``stream.method(*args)``, a failure to write said as autofix says it: a reader that left
    (``ReaderLeft``), any other failure an ``OutputError`` naming the stream (``name``); an encoding error
    is left to the caller."""
    try:
        return getattr(stream, method)(*args)
    except BrokenPipeError:
        raise ReaderLeft(f"cannot write to {name}: its reader left") from None
    except UnicodeError:
        raise
    except (OSError, ValueError) as exc:  # ENOSPC, EIO; ValueError: "I/O operation on closed file"
        raise OutputError(f"cannot write to {name}: {getattr(exc, 'strerror', None) or exc}") from None
