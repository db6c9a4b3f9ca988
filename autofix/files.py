"""The only module that touches files and streams (besides ``cli``; ``writes`` is its write path).

Reading is bounded: only regular files (a FIFO, a device or ``/dev/zero``
behind a symlink is refused before it is opened for long), at most
``limits.MAX_BYTES``. Writing refuses a path that leads to another file than
the one read under it, a file that changed since it was read or that is
write-protected, and keeps what makes the file the same file: its hard
links, mode, owner and extended attributes. A ``FileSet`` remembers what one
run read from each path, so that its writes can tell. A walk names what an
interrupted write left next to a file (``backup_name``).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from autofix.errors import InputError, WriteError
from autofix.limits import MAX_BYTES

try:  # hashlib.blake2b is this very constructor; hashlib itself loads OpenSSL first (~2.5 ms of each start, issue 15)
    from _blake2 import blake2b
except ImportError:  # an interpreter built without it
    from hashlib import blake2b

# What a directory walk looks at (files named on the command line are always read).
WALK_SUFFIXES = (".yaml", ".yml", ".sh", ".bash")
SHELL_SUFFIXES = (".sh", ".bash")
DOCKERFILE_NAMES = ("dockerfile", "containerfile")
_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox"}


def is_dockerfile(path: str) -> bool:
    """``Dockerfile``, ``Dockerfile.gpu``, ``serve.dockerfile`` (and the same for ``Containerfile``)."""
    name = os.path.basename(path).lower()
    return name in DOCKERFILE_NAMES or name.startswith(_DOCKERFILE_PREFIXES) or name.endswith(_DOCKERFILE_SUFFIXES)


_DOCKERFILE_PREFIXES = tuple(f"{n}." for n in DOCKERFILE_NAMES)
_DOCKERFILE_SUFFIXES = tuple(f".{n}" for n in DOCKERFILE_NAMES)


def is_yaml(path: str) -> bool:
    """Whether ``path`` is named like a YAML file: ``.yaml`` or ``.yml``, any case.

    The same test SGLang's ``--config`` reader makes before it opens a file
    (``_validate_yaml_file``, server_args_config_parser.py:159; CFG007).
    """
    return path.lower().endswith((".yaml", ".yml"))


def launcher_kind(path: str) -> bool:
    """Files that may well launch nothing (a shell script, a Dockerfile): skipped quietly when they do not."""
    return path.lower().endswith(SHELL_SUFFIXES) or is_dockerfile(path)


class ReadError(InputError):
    """The file itself cannot be read (missing, not a regular file, too large, no permission).

    Unlike a parse error, this says nothing about what the file holds: a
    directory walk notes every one of these.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(path, 1, 1, message)
        self.data = b""  # stdin only: what was read before the size limit was crossed


class NotRead(ReadError):
    """A file this run may not read (``Scope``): outside the project, or a ``--config`` file the project's
    configuration excludes. Nothing of it was read; the message says why, ``hint`` how to have it read."""

    def __init__(self, path: str, message: str, hint: str = "") -> None:
        super().__init__(path, message)
        self.hint = hint


class _Symlink(Exception):
    """``read_bytes(path, follow=False)`` met a symlink: its caller decides whether to follow it."""


def decode(data: bytes, path: str) -> str:
    """UTF-8 text, BOM kept as ``\\ufeff`` and newlines untouched, so encoding it gives ``data`` back.

    Raises ``InputError`` at the first byte that is not UTF-8.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        head = data[: exc.start]
        line = head.count(b"\n") + 1
        col = exc.start - (head.rfind(b"\n") + 1) + 1
        raise InputError(path, line, col, f"not UTF-8 text (byte 0x{data[exc.start]:02x})") from None


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _not_regular(mode: int) -> str | None:
    """What a file of ``mode`` is when it is not a regular file ("a FIFO"), else None."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def _too_large(size: int) -> str:
    return f"too large ({size:,} bytes; autofix reads at most {MAX_BYTES:,})"


def _strerror(exc: OSError) -> str:
    return exc.strerror or str(exc)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What was read from one file: which file (device, inode) and a digest of its bytes."""

    device: int
    inode: int
    digest: bytes


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def read_bytes(path: str, *, follow: bool = True) -> tuple[bytes, Snapshot]:
    """The bytes of the regular file at ``path`` (a symlink is followed), and their snapshot.

    Raises ``ReadError`` when it cannot be read, is not a regular file (it
    is looked at before it is opened, and opened without blocking, so a
    FIFO is never waited on) or holds more than ``MAX_BYTES``. ``follow=False``:
    raise ``_Symlink`` instead when ``path`` is a symlink (its last part; opened
    with ``O_NOFOLLOW``, so one that replaced the file after the look is met too),
    at no cost to a file that is none.
    """
    try:
        st = os.stat(path) if follow else os.lstat(path)
        if not follow and stat.S_ISLNK(st.st_mode):
            raise _Symlink
        kind = _not_regular(st.st_mode)
        if kind is not None:
            raise ReadError(path, f"not a regular file ({kind})")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
                     | (0 if follow else _NOFOLLOW))
    except OSError as exc:
        if not follow and exc.errno == errno.ELOOP:
            raise _Symlink from None
        raise ReadError(path, f"cannot read: {_strerror(exc)}") from None
    try:
        st = os.fstat(fd)
        kind = _not_regular(st.st_mode)  # replaced between the look and the open
        if kind is not None:
            raise ReadError(path, f"not a regular file ({kind})")
        if st.st_size > MAX_BYTES:
            raise ReadError(path, _too_large(st.st_size))
        # the size fstat gave, and a byte more to see a file that grew (reading MAX_BYTES + 1 would allocate
        # 64 MB for each file), with os.read: no buffered reader to set up for one read (issue 15)
        data = _read_up_to(fd, st.st_size + 1)
        if len(data) > st.st_size:  # it grew while read: the rest, up to one byte past the limit
            data += _read_up_to(fd, MAX_BYTES - st.st_size)
    except OSError as exc:
        raise ReadError(path, f"cannot read: {_strerror(exc)}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:  # grew while it was read
        raise ReadError(path, _too_large(len(data)))
    return data, Snapshot(st.st_dev, st.st_ino, blake2b(data).digest())


def _read_as(real: str, path: str) -> tuple[bytes, Snapshot]:
    """``read_bytes(real)``, its errors named ``path`` (the name the file was reached by)."""
    try:
        return read_bytes(real)
    except ReadError as exc:
        raise ReadError(path, exc.message) from None


def _read_up_to(fd: int, size: int) -> bytes:
    """Up to ``size`` bytes from ``fd``, fewer only at its end (``os.read`` may return less: a signal, a pipe)."""
    parts = []
    while size > 0:
        part = os.read(fd, size)
        if not part:
            break
        parts.append(part)
        size -= len(part)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _stdin(stream: BinaryIO | None) -> BinaryIO | None:
    """``stream``, else the process's stdin as bytes; None when it is closed (``sys.stdin`` None: fd 0 was)."""
    return stream if stream is not None else getattr(sys.stdin, "buffer", None)


def read_stdin(stream: BinaryIO | None = None) -> bytes:
    """All of stdin (or ``stream``), up to ``MAX_BYTES``.

    Raises ``ReadError`` beyond, with what was read in its ``data`` (the
    rest is left unread, for ``copy_stream``), and when stdin is closed or
    cannot be read (nothing in ``data``).
    """
    source = _stdin(stream)
    if source is None:
        raise ReadError("-", "cannot read stdin: it is closed")
    try:
        data = source.read(MAX_BYTES + 1)
    except (OSError, ValueError) as exc:  # EISDIR, EIO; ValueError: a file closed by the caller
        raise ReadError("-", f"cannot read stdin: {_strerror(exc) if isinstance(exc, OSError) else exc}") from None
    if len(data) > MAX_BYTES:
        exc = ReadError("-", f"too large (more than {MAX_BYTES:,} bytes on stdin)")
        exc.data = data
        raise exc
    return data


def copy_stream(head: bytes, stream: BinaryIO | None, out) -> None:
    """Write ``head`` and then the rest of ``stream`` (default stdin) to the text stream ``out``'s bytes.

    Bounded memory (chunk by chunk): how a filter passes on what it cannot check.
    """
    stream = _stdin(stream)
    out.flush()
    sink = out.buffer
    sink.write(head)
    if head and stream is not None:  # a stdin that could not be read at all has no rest either
        while chunk := stream.read(1 << 20):
            sink.write(chunk)
    sink.flush()


def read_text(path: str) -> str:
    """The text of ``path`` (``-`` = stdin). Raises ``InputError`` when unreadable or not UTF-8."""
    if path == "-":
        return decode(read_stdin(), path)
    return decode(read_bytes(path)[0], path)


def read_if_file(path: str) -> str | None:
    """The text of ``path`` when it is a readable UTF-8 regular file, else None (missing, a FIFO, ...)."""
    try:
        return read_text(path)
    except InputError:
        return None


class Scope:
    """Where one run may read a file's content (to check it, and so to print it) and write it.

    The project is the real path of the repository root holding the working directory (``repository_root``:
    the closest directory at or above it with a ``.git``), else of the working directory. A file is in
    scope when its real path (every symlink resolved) is at or under the project, or is a file named on the
    command line, or lies under a directory named there (``autofix /elsewhere/tree`` checks that tree's
    files). Nothing is worked out before it is first asked (a run that meets no symlink in a walk and no
    ``--config`` file pays nothing), and then once. Picklable: ``-j`` workers get it.
    """

    __slots__ = ("paths", "cwd", "_root", "_files", "_dirs")

    def __init__(self, paths: list[str] | tuple[str, ...], cwd: str | None = None) -> None:
        self.paths = tuple(p for p in paths if p != "-")  # as given on the command line
        self.cwd = cwd
        self._root: str | None = None
        self._files: frozenset[str] | None = None  # the real paths of the named files
        self._dirs: tuple[str, ...] = ()  # the real paths of the named directories, each ending in os.sep

    def __getstate__(self):
        return self.paths, self.cwd

    def __setstate__(self, state) -> None:
        self.__init__(*state)

    @property
    def root(self) -> str:
        """The project: the real path of the repository root holding the working directory, else of that."""
        if self._root is None:
            self._root = os.path.realpath(repository_root(self.cwd if self.cwd is not None else os.getcwd()))
        return self._root

    def holds(self, real: str) -> bool:
        """Whether the file at real path ``real`` (``os.path.realpath``) is in scope."""
        return _within(real, self.root) or self.named(real) or real.startswith(self._dirs)

    def named(self, real: str) -> bool:
        """Whether the file at real path ``real`` was named on the command line."""
        if self._files is None:  # the real paths of what was named, once
            named = [os.path.realpath(os.path.join(self.cwd or "", p)) for p in self.paths]
            self._dirs = tuple(r.rstrip(os.sep) + os.sep for r in named if os.path.isdir(r))
            self._files = frozenset(named)
        return real in self._files

    def outside(self) -> str:
        """Why a file out of scope is not read, for a message."""
        return f"outside the project ({self.root})"


def _within(path: str, directory: str) -> bool:
    """Whether ``path`` is ``directory`` or lies below it (both real paths)."""
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


class FileSet:
    """The files one run reads and writes: each read within bounds, each written only if unchanged.

    ``read`` remembers what it read under each path: the file's real path then (``reals``) and a snapshot of
    the file (``snapshots``, by real path: which file, which bytes). ``write`` writes a path only while it
    still leads to that very file, and the file still holds exactly those bytes, up to the moment it is
    written (``autofix.writes``), so a line another process added during the run is never lost, and a path
    that leads to another file by now (a symlink swapped in, a directory renamed) is never written through.
    Writing a file updates its snapshot.

    ``done`` ends the work on one input (a file and the ``--config`` files its launches read): what it
    read is forgotten, what it wrote is kept for the rest of the run (``snapshot``), so the memory of a run
    grows with the files it writes, not with those it reads. ``writes=False``: a run that never writes
    keeps no snapshot of what it reads (nothing would compare it), and so needs no real path for a read.

    ``scope`` (``Scope``), when given, bounds what is read, and so what can be written (only a file read
    is): a file a walk found (``read(named=False)``) that is a symlink to a file out of scope, and a
    ``--config`` file out of scope or that ``excluded`` (``expand``'s) leaves out, raise ``NotRead``
    before a byte of them is read. Without it (a library caller's own files), every file may be read.
    """

    def __init__(self, *, writes: bool = True, scope: Scope | None = None,
                 excluded: Callable[[str, bool, bool], bool] | None = None) -> None:
        self.writes = writes
        self.scope, self.excluded = scope, excluded
        self.snapshots: dict[str, Snapshot] = {}  # read or written since the last ``done``
        self.written: dict[str, Snapshot] = {}  # every file this run wrote, as written
        self.reals: dict[str, str] = {}  # path -> its real path, as first asked (and read) since the last ``done``

    def real(self, path: str) -> str:
        """``os.path.realpath(path)``, found once per input (a run asks it of a path up to three times);
        a write looks again, and refuses a path that leads to another file by then."""
        found = self.reals.get(path)
        if found is None:
            found = self.reals[path] = os.path.realpath(path)
        return found

    def snapshot(self, real: str) -> Snapshot | None:
        """What this run last read or wrote at real path ``real``: since the last ``done``, or written before."""
        found = self.snapshots.get(real)
        return found if found is not None else self.written.get(real)

    def done(self) -> None:
        """Forget what was read for the input just done (a later one reads again what it needs)."""
        self.snapshots.clear()
        self.reals.clear()

    def read(self, path: str, *, named: bool = True) -> str:
        """The text of ``path`` (``-``: stdin). Raises ``InputError`` (``ReadError`` for I/O).

        ``named=False``: a file a walk found, read only if it is no symlink, or one to a file in ``scope``
        (else ``NotRead``): the walk's own files are in it (it follows no symlinked directory).
        """
        if path == "-":
            return read_text(path)
        if named or self.scope is None:
            data, snap = read_bytes(path)
            real = None
        else:
            try:
                data, snap = read_bytes(path, follow=False)
                real = None
            except _Symlink:
                real = self.real(path)
                if not self.scope.holds(real):
                    raise NotRead(path, f"a symlink to a file {self.scope.outside()}: not read; name it on "
                                  "the command line to check it") from None
                data, snap = _read_as(real, path)  # the file judged, even if the symlink changes meanwhile
        text = decode(data, path)
        if self.writes:
            self.snapshots[real or self.real(path)] = snap
        return text

    def read_config(self, path: str) -> str | None:
        """The text of a ``--config`` file, or None when it is not a readable UTF-8 regular file.

        Raises ``NotRead`` for a file out of ``scope`` (by its real path, unless named on the command line),
        or one ``excluded`` leaves out (judged as a walk judges a file found at ``path``, or named when it is
        one named on the command line).
        """
        real = None
        if self.scope is not None:
            real = self.real(path)
            if not self.scope.holds(real):
                raise NotRead(path, f"is {self.scope.outside()}", "name it on the command line to read it")
            if self.excluded is not None and self.excluded(path, False, False) and (
                    not self.scope.named(real) or self.excluded(path, True, False)):  # named: unless force-exclude
                raise NotRead(path, "is excluded by the project's configuration")
        try:
            if real is None:
                return self.read(path)
            data, snap = _read_as(real, path)  # the file judged, even if a symlink on the way changes meanwhile
            text = decode(data, path)
        except InputError:
            return None
        if self.writes:
            self.snapshots[real] = snap
        return text

    def _as_read(self, path: str) -> tuple[str, Snapshot]:
        """The real path ``path`` was read at and the snapshot of what was read, if it still leads there.

        Raises ``WriteError`` when it was not read, or leads to another real path now.
        """
        real = self.reals.get(path)
        expected = None if real is None else self.snapshot(real)
        if expected is None:
            raise WriteError(path, "autofix did not read this file")
        if os.path.realpath(path) != real:
            from autofix.writes import REPLACED

            raise WriteError(path, REPLACED)
        return real, expected

    def check(self, path: str) -> None:
        """Raise ``WriteError`` unless ``path`` can be written now: it leads to the file read under it, which
        still holds what was read, is not write-protected and has no backup of an interrupted write by it."""
        from autofix.writes import Target

        real, expected = self._as_read(path)
        with Target(path, real, expected) as target:
            target.verify()

    def write(self, path: str, text: str) -> None:
        """Replace the file ``path`` was read as with ``text`` (UTF-8), atomically where the file allows it.

        A symlink is followed (the file it pointed to when it was read is written). The file must be as
        ``check`` says, up to the last moment (``autofix.writes``). It is written to a temp file in the same
        directory, given the file's mode, owner and extended attributes, which then takes its place; a file
        with several hard links, or whose owner or attributes the copy cannot carry, or that is a mount point
        (a bind-mounted file), is written in place instead, so every link sees the fix. Ctrl-C and SIGTERM
        wait until the write is done (``SignalsHeld``). Raises ``WriteError``: the file is then unchanged,
        or as another process that wrote to it meanwhile left it (the message says so,
        ``WriteError.unchanged``).
        """
        from autofix.writes import Target

        real, expected = self._as_read(path)
        data = text.encode("utf-8")
        with SignalsHeld(), Target(path, real, expected) as target:
            try:
                written = target.replace(data) if target.st.st_nlink == 1 else None
                if written is None:
                    written = target.write_in_place(data)
            except OSError as exc:
                raise WriteError(path, f"cannot write: {_strerror(exc)}") from None
        self.snapshots[real] = self.written[real] = written


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

        self._before: dict[int, object] = {}
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
                handler(number, None)  # SystemExit (autofix.cli's SIGTERM), KeyboardInterrupt (Ctrl-C)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), number)


BACKUP_SUFFIX = ".autofix-backup"
_TEMP_SUFFIX = ".autofix"


def backup_name(name: str) -> str:
    """The name of the backup an in-place write of the file ``name`` keeps next to it while it writes
    (``autofix.writes``): ``.NAME.autofix-backup``. One left there means that write was interrupted."""
    return f".{name}{BACKUP_SUFFIX}"


def _left_by_writes(names: list[str]) -> dict[str, str]:
    """Of a directory's ``names``, the files an interrupted write left (a backup ``.NAME.autofix-backup``, a
    temp file ``.NAME.XXXXXXXX.autofix``), by the name of the file they are next to."""
    left: dict[str, str] = {}
    for n in names:
        if n.endswith((BACKUP_SUFFIX, _TEMP_SUFFIX)) and n.startswith("."):
            if n.endswith(BACKUP_SUFFIX):
                left[n[1:-len(BACKUP_SUFFIX)]] = n
            else:
                left.setdefault(n[1:-len(_TEMP_SUFFIX)].rpartition(".")[0], n)
    return left


def _left_note(path: str, leftover: str) -> str:
    """The warning for a file of a walk next to which an interrupted write left ``leftover`` (a path)."""
    if leftover.endswith(BACKUP_SUFFIX):
        return (f"{path}:1:1: warning: a backup of an interrupted autofix write is next to it ({leftover}): compare "
                "the two, then delete the backup (--write leaves the file alone until then)")
    return (f"{path}:1:1: warning: a temp file of an interrupted autofix write is next to it ({leftover}): compare "
            "the two, then delete it")


def expand(paths: list[str], note: Callable[[str], None] = lambda _: None,
           excluded: Callable[[str, bool, bool], bool] | None = None, *,
           only_yaml: bool = False) -> Iterator[tuple[str, bool]]:
    """(path, named) for each input: named paths as given, directories walked in sorted order.

    A walk does not follow symlinked directories, nor enter ``_SKIP_DIRS``
    (``.git``, ``venv``, ...); a directory it cannot list, or one without a
    file to check, is passed to ``note`` as a ``path:1:1: warning: ...`` line.
    ``excluded(path, named, is_dir)``, when given, decides instead which
    directories the walk skips and which files are left out (``named``: a
    path given on the command line, checked unless ``excluded`` says so;
    ``is_dir``: a directory of the walk; project configuration,
    ``autofix.project``). ``only_yaml``: only the YAML files (``is_yaml``),
    named or walked, for a second walk of the same paths (a directory
    without one is not noted).
    """
    def unlisted(exc: OSError) -> None:
        note(f"{exc.filename}:1:1: warning: cannot list the directory: {_strerror(exc)} (skipped)")

    def skip(path: str, named: bool = False, is_dir: bool = False) -> bool:
        if excluded is not None:
            return excluded(path, named, is_dir)
        return not named and os.path.basename(path) in _SKIP_DIRS

    for p in paths:
        if p != "-" and os.path.isdir(p):
            found = 0
            for root, dirs, names in os.walk(p, onerror=unlisted):
                dirs[:] = sorted(d for d in dirs if not skip(os.path.join(root, d), is_dir=True))
                left = None if only_yaml else _left_by_writes(names)  # names listed anyway: no system call
                for name in sorted(names):
                    if is_yaml(name) if only_yaml else name.lower().endswith(WALK_SUFFIXES) or is_dockerfile(name):
                        path = os.path.normpath(os.path.join(root, name))
                        if skip(path):
                            continue
                        found += 1
                        if left and name in left:
                            note(_left_note(path, os.path.normpath(os.path.join(root, left[name]))))
                        yield path, False
            if not found and not only_yaml:
                note(f"{p}:1:1: warning: no file to check in this directory (*.yaml, *.yml, *.sh, *.bash, "
                     "Dockerfiles)")
        elif p == "-":
            if not only_yaml:
                yield p, True
        elif (not only_yaml or is_yaml(p)) and not skip(p, True):
            yield p, True


def append_text(path: str, text: str) -> None:
    """Append ``text`` (UTF-8) to the file at ``path``, created when missing: GitHub's
    ``$GITHUB_STEP_SUMMARY``, which the runner appends to and never rewrites. Raises ``WriteError``."""
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise WriteError(path, _strerror(exc)) from None


def repository_root(start: str) -> str:
    """The closest directory at or above ``start`` that holds a ``.git`` (a directory, or the file of a
    worktree or submodule): where code review tools resolve a file's path. ``start`` itself when there is
    none."""
    here = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return os.path.abspath(start)
        here = parent
