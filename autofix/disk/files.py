"""The files one run reads and writes (``FileSet``): each read within bounds, each written only while it is the
file read, with the bytes read, and the files of one launch written all or none; Ctrl-C and SIGTERM wait until a
write is done (``SignalsHeld``). And the one file a run appends to (``append_text``: GitHub's step summary).

``FileSet`` reads through ``autofix.disk.reads`` and writes through ``autofix.disk.writes`` (imported by the
first write: a run that writes nothing never loads it).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from autofix.common.errors import WriteError
from autofix.disk import reads
from autofix.disk.encoding import decode

if TYPE_CHECKING:
    import signal
    from types import FrameType

    from autofix.disk.scope import Scope

    # what ``signal.signal`` sets and gives back: a function, SIG_DFL or SIG_IGN, or None (one not set from Python)
    _Handler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None


class FileSet:
    """The files one run reads and writes: each read within bounds, each written only if unchanged.

    ``read`` remembers what it read under each path: the file's real path then (``reals``) and a snapshot of
    the file (``snapshots``, by real path: which file, which bytes). ``write`` writes a path only while it
    still leads to that very file, and the file still holds exactly those bytes, up to the moment it is
    written (``autofix.disk.writes``), so a line another process added during the run is never lost, and a path
    that leads to another file by now (a symlink swapped in, a directory renamed) is never written through.
    Writing a file updates its snapshot.

    ``done`` ends the work on one input (a file and the ``--config`` files its launches read): what it
    read is forgotten, what it wrote is kept for the rest of the run (``snapshot``), so the memory of a run
    grows with the files it writes, not with those it reads. ``writes=False``: a run that never writes
    keeps no snapshot of what it reads (nothing would compare it), and so needs no real path for a read.

    ``scope`` (``Scope``), when given, bounds what is read, and so what can be written (only a file read
    is): a file a walk found (``read(named=False)``) that is a symlink to a file out of scope, and a
    ``--config`` file out of scope or that ``excluded`` (``walk.expand``'s) leaves out, raise ``NotRead``
    before a byte of them is read; so do both when the file *opened* is out of scope, whatever the path
    looked like before (``reads.read_bytes``'s ``inside``). Without it (a library caller's own files), every
    file may be read.
    """

    def __init__(self, *, writes: bool = True, scope: Scope | None = None,
                 excluded: Callable[[str, bool, bool], bool] | None = None) -> None:
        self.writes = writes
        self.scope, self.excluded = scope, excluded
        self.snapshots: dict[str, reads.Snapshot] = {}  # read or written since the last ``done``
        self.written: dict[str, reads.Snapshot] = {}  # every file this run wrote, as written
        self.reals: dict[str, str] = {}  # path -> its real path, as first asked (and read) since the last ``done``

    def real(self, path: str) -> str:
        """``os.path.realpath(path)``, found once per input (a run asks it of a path up to three times);
        a write looks again, and refuses a path that leads to another file by then."""
        found = self.reals.get(path)
        if found is None:
            found = self.reals[path] = os.path.realpath(path)
        return found

    def snapshot(self, real: str) -> reads.Snapshot | None:
        """What this run last read or wrote at real path ``real``: since the last ``done``, or written before."""
        found = self.snapshots.get(real)
        return found if found is not None else self.written.get(real)

    def done(self) -> None:
        """Forget what was read for the input just done (a later one reads again what it needs)."""
        self.snapshots.clear()
        self.reals.clear()

    def read(self, path: str, *, named: bool = True) -> str:
        """The text of ``path`` (``-``: stdin). Raises ``InputError`` (``ReadError`` for I/O).

        ``named=False``: a file a walk found, read only if the file opened is in ``scope`` (else ``NotRead``):
        one that is no symlink is the walk's own, opened without following one (``O_NOFOLLOW``) and then
        checked by the real path of what was opened (a directory on its way swapped for a symlink meanwhile
        leads elsewhere, ``reads.read_bytes``); one that is a symlink is followed only to a file in ``scope``.
        """
        if path == "-":
            return reads.read_text(path)
        data, snap, real = self._read(path, named)
        text = decode(data, path)
        if self.writes:
            self.snapshots[real or self.real(path)] = snap
        return text

    def read_bytes(self, path: str, *, named: bool = True) -> bytes:
        """The bytes of ``path``, read as ``read`` reads it (not stdin), with no snapshot kept. Raises
        ``ReadError``."""
        return self._read(path, named)[0]

    def _read(self, path: str, named: bool) -> tuple[bytes, reads.Snapshot, str | None]:
        """``read``'s bytes, snapshot, and the real path when it was found on the way (else None)."""
        if named or self.scope is None:
            return (*reads.read_bytes(path), None)
        holds = self.scope.holds
        try:
            try:
                return (*reads.read_bytes(path, follow=False, inside=holds), None)
            except reads.Symlink:
                real = self.real(path)
                if not holds(real):
                    raise reads.NotRead(path, f"a symlink to a file {self.scope.outside()}: not read; name it "
                                        "on the command line to check it") from None
                return (*reads.read_as(real, path, holds), real)  # the file judged, even if the symlink changes
        except reads.Outside:
            raise reads.NotRead(path, f"leads to a file {self.scope.outside()} (a directory on its path changed "
                                "since the walk listed it): not read; name it on the command line to check "
                                "it") from None

    def read_config(self, path: str) -> str | None:
        """The text of a ``--config`` file, or None when there is none at ``path`` (it may be on the launch host).

        Raises ``NotRead`` for a file out of ``scope`` (by its real path, unless named on the command line; and
        by the real path of the file opened, so a symlink swapped in on its way after that look leads nowhere),
        or one ``excluded`` leaves out (judged as a walk judges a file found at ``path``, or named when it is
        one named on the command line), and for one that is there but cannot be read (not a regular file: a
        FIFO is never waited on; no permission; too large): nothing is known of what it holds. Raises
        ``InputError`` for a file that is not UTF-8 text (``decode``), which SGLang's reader refuses too.
        """
        real = None
        if self.scope is not None:
            real = self.real(path)
            if not self.scope.holds(real):
                raise reads.NotRead(path, f"is {self.scope.outside()}", "name it on the command line to read it")
            if self.excluded is not None and self.excluded(path, False, False) and (
                    not self.scope.named(real) or self.excluded(path, True, False)):  # named: unless force-exclude
                raise reads.NotRead(path, "is excluded by the project's configuration")
        try:
            if real is None:
                return self.read(path)
            assert self.scope is not None  # a real path is looked up only with a scope (above)
            data, snap = reads.read_as(real, path, self.scope.holds)  # the file judged, even if a symlink changes
        except reads.Outside:
            assert self.scope is not None  # raised by read_as only: a read with a scope
            raise reads.NotRead(path, f"is {self.scope.outside()}", "name it on the command line to read it") from None
        except reads.Missing:
            return None
        except reads.ReadError as exc:  # (``read`` raises ``InputError`` for the text: it is the caller's)
            why = exc.message
            raise reads.NotRead(path, f"cannot be read ({why.removeprefix(reads.CANNOT)})"
                                if why.startswith(reads.CANNOT) else f"is {why}") from None
        text = decode(data, path)
        if self.writes:
            self.snapshots[real] = snap
        return text

    def _as_read(self, path: str) -> tuple[str, reads.Snapshot]:
        """The real path ``path`` was read at and the snapshot of what was read, if it still leads there.

        Raises ``WriteError`` when it was not read, or leads to another real path now.
        """
        real = self.reals.get(path)
        expected = None if real is None else self.snapshot(real)
        if expected is None:
            raise WriteError(path, "autofix did not read this file")
        if os.path.realpath(path) != real:
            from autofix.disk.writes import REPLACED

            raise WriteError(path, REPLACED)
        return real, expected

    def check(self, path: str) -> None:
        """Raise ``WriteError`` unless ``path`` can be written now: it leads to the file read under it, which
        still holds what was read, is not write-protected and has no backup of an interrupted write by it."""
        from autofix.disk.writes import Target

        real, expected = self._as_read(path)
        with Target(path, real, expected) as target:
            target.verify()

    def write(self, path: str, text: str) -> None:
        """Replace the file ``path`` was read as with ``text`` (UTF-8), atomically where the file allows it.

        A symlink is followed (the file it pointed to when it was read is written). The file must be as
        ``check`` says, up to the last moment (``autofix.disk.writes``). It is written to a temp file in the same
        directory, given the file's mode, owner and extended attributes, which then takes its place; a file
        with several hard links, or whose owner or attributes the copy cannot carry, or that is a mount point
        (a bind-mounted file), is written in place instead, so every link sees the fix. Ctrl-C and SIGTERM
        wait until the write is done (``SignalsHeld``). Raises ``WriteError``: the file is then unchanged,
        or as another process that wrote to it meanwhile left it (the message says so,
        ``WriteError.unchanged``).
        """
        from autofix.disk.writes import Target

        real, expected = self._as_read(path)
        data = text.encode("utf-8")
        with SignalsHeld(), Target(path, real, expected) as target:
            try:
                written = target.write(data)
            except OSError as exc:
                raise WriteError(path, f"cannot write: {reads.strerror(exc)}") from None
        self.snapshots[real] = self.written[real] = written

    def write_all(self, texts: list[tuple[str, str]]) -> list[WriteError]:
        """Write each (path, text) of ``texts`` as ``write`` does, all or none: the files of one launch (a
        script and its ``--config`` file), which must not be left half of them written.

        One file is just written. For more, each first keeps what was read in its backup next to it
        (``.NAME.autofix-backup``, ``writes.Target.keep``: a hard link where the file is renamed over, else a
        copy), then each is written, and only once all are written (or all put back) are the backups removed:
        a kill (SIGKILL) at any point leaves every file as read or every file written, or a backup next to
        each file of the group, which the next run names and which keeps ``--write`` off the file. If one
        write fails, those already written are put back (from what was read, while each still holds what was
        written). Returns [] when all are written; else the error that stopped the group, then one for each
        file written that could not be put back (it keeps its backup, which the message names).
        """
        if len(texts) == 1:
            try:
                self.write(*texts[0])
            except WriteError as exc:
                return [exc]
            return []
        from autofix.disk.writes import Target

        targets: list[Target] = []
        settled = False  # every file as read, or every file written: the backups can go
        with SignalsHeld():
            try:
                path = texts[0][0]
                try:
                    for path, _ in texts:
                        targets.append(Target(path, *self._as_read(path)))
                        same = [t.path for t in targets[:-1] if t.expected.inode == targets[-1].expected.inode
                                and t.expected.device == targets[-1].expected.device]
                        if same:  # two hard links the launch reads: one file, which cannot hold two texts
                            raise WriteError(path, f"it is the file {same[0]} is too (a hard link)")
                    for target in targets:
                        path = target.path
                        target.keep()
                except WriteError as exc:
                    settled = True
                    return [exc]
                except OSError as exc:
                    settled = True
                    return [WriteError(path, f"cannot write: {reads.strerror(exc)}")]
                done: list[tuple[Target, reads.Snapshot]] = []
                for target, (path, text) in zip(targets, texts):
                    try:
                        done.append((target, target.write(text.encode("utf-8"))))
                    except (WriteError, OSError) as exc:
                        failed = [_as_write_error(path, exc)]
                        break
                else:
                    for target, written in done:
                        self.snapshots[target.real] = self.written[target.real] = written
                    settled = True
                    return []
                for target, written in reversed(done):
                    try:
                        self.snapshots[target.real] = target.put_back(written)
                    except (WriteError, OSError) as exc:
                        target.held = True
                        again = _as_write_error(target.path, exc)
                        failed.append(WriteError(again.path, f"{again.message}; the original is kept in "
                                                              f"{target.backup}", unchanged=again.unchanged))
                settled = True
                return failed
            finally:
                for target in targets:
                    if settled:
                        target.drop()
                    target.close()


def _as_write_error(path: str, exc: WriteError | OSError) -> WriteError:
    return exc if isinstance(exc, WriteError) else WriteError(path, f"cannot write: {reads.strerror(exc)}")


class SignalsHeld:
    """A context in which Ctrl-C, SIGTERM, SIGHUP and SIGQUIT wait, and arrive when it ends: a write in it is
    finished (or undone) before they stop the run, never left half done (only SIGKILL can; ``writes`` says
    what it leaves).

    Their handlers are swapped for one that notes them, and the note is acted on at the end, as the handler
    before would have (a default action by sending the signal again). Not ``pthread_sigmask``: that holds a
    signal back from one thread only, and the kernel gives it to another (a ``-j`` run has one) while Python
    runs its handler in the main thread, in the middle of the write all the same. Outside the main thread
    nothing is needed: no handler runs there.
    """

    _SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")

    def __enter__(self) -> SignalsHeld:
        import signal

        self._before: dict[int, _Handler] = {}
        self._came: list[int] = []
        for name in self._SIGNALS:
            number = getattr(signal, name, None)
            if number is None or signal.getsignal(number) is None:  # none, or a handler not set from Python
                continue
            try:
                self._before[number] = signal.signal(number, self._note)
            except (ValueError, OSError):  # not the main thread
                break
        return self

    def _note(self, signum: int, frame) -> None:
        self._came.append(signum)

    def __exit__(self, *exc) -> None:
        import signal

        for number, handler in self._before.items():
            signal.signal(number, handler)
        for number in dict.fromkeys(self._came):
            handler = self._before[number]
            if callable(handler):
                handler(number, None)  # SystemExit (autofix.cli.main's SIGTERM), KeyboardInterrupt (Ctrl-C)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), number)


def append_text(path: str, text: str) -> None:
    """Append ``text`` (UTF-8) to the regular file at ``path``, created when missing: GitHub's
    ``$GITHUB_STEP_SUMMARY``, which the runner appends to and never rewrites. Never waits: anything else (a
    FIFO no one reads, a device) is refused before it is opened to write, and opened without blocking.
    Raises ``WriteError``."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY | reads.CLOEXEC
    try:
        try:
            kind = reads.not_regular(os.stat(path).st_mode)
        except FileNotFoundError:
            kind = None
        if kind is None:
            fd = os.open(path, flags, 0o666)
            try:
                kind = reads.not_regular(os.fstat(fd).st_mode)  # replaced between the look and the open
                if kind is None:
                    data, done = text.encode("utf-8"), 0
                    while done < len(data):
                        done += os.write(fd, data[done:])
            finally:
                os.close(fd)
        if kind is not None:
            raise WriteError(path, f"not a regular file ({kind})")
    except OSError as exc:
        raise WriteError(path, reads.strerror(exc)) from None
