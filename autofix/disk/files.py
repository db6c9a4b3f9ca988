"""The only module that touches files and streams (besides ``cli``; ``writes`` is its write path).

Reading is bounded: only regular files (a FIFO, a device or ``/dev/zero``
behind a symlink is refused before it is opened for long), at most
``limits.MAX_BYTES``. Writing refuses a path that leads to another file than
the one read under it, a file that changed since it was read or that is
write-protected, and keeps what makes the file the same file: its hard
links, mode, owner and extended attributes. A ``FileSet`` remembers what one
run read from each path, so that its writes can tell, and writes the files
of one launch all or none (``FileSet.write_all``). What an interrupted write
left next to a file (``backup_name``) is named by a walk, and next to a named
file by ``left_beside``; ``running`` tells a running write's backup from an
interrupted one's.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from autofix.common.errors import InputError, WriteError
from autofix.common.limits import MAX_BYTES

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


class Missing(ReadError):
    """There is no file at the path (``ENOENT``, ``ENOTDIR``: a missing directory on the way, a symlink to
    nothing)."""


class NotRead(ReadError):
    """A file this run does not read: one it may not (``Scope``: outside the project, or a ``--config`` file the
    project's configuration excludes), or a ``--config`` file it cannot (``FileSet.read_config``). Nothing of
    it was read; the message says why, ``hint`` how to have it read."""

    def __init__(self, path: str, message: str, hint: str = "") -> None:
        super().__init__(path, message)
        self.hint = hint


class _Symlink(Exception):
    """``read_bytes(path, follow=False)`` met a symlink: its caller decides whether to follow it."""


class Outside(Exception):
    """``read_bytes(path, inside=...)``: the file opened is not at a real path ``inside`` accepts (or its real
    path could not be told). Nothing of it was read; its caller says why, as ``NotRead`` or ``ConfigError``."""


def decode(data: bytes, path: str) -> str:
    """UTF-8 text, BOM kept as ``\\ufeff`` and newlines untouched, so encoding it gives ``data`` back.

    Raises ``InputError`` at the first byte that is not UTF-8, and for text in UTF-16 or UTF-32 that is valid
    UTF-8 all the same (no byte order mark, ASCII: ``t\\0p\\0``; ``unicode_form``) at its first zero byte,
    which no reader of UTF-8 takes (YAML refuses the character, bash the file as binary).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_utf8(data, exc.start, path) from None
    if b"\0" in data[:4] and unicode_form(data) is not None:  # (four bytes looked at: a text's cost is its decode)
        raise _not_utf8(data, data.index(0), path)
    return text


def _not_utf8(data: bytes, at: int, path: str) -> InputError:
    """The ``InputError`` for ``data``, not UTF-8 text from byte ``at`` on, naming the UTF-16 or UTF-32 form it
    is in when its first bytes tell (``unicode_form``), at its first zero byte when that comes first (the
    mark, or the first character, of a UTF-32BE text)."""
    form = unicode_form(data)
    if form is not None:
        zero = data.find(0)
        at = zero if 0 <= zero < at else at
    head = data[:at]
    line = head.count(b"\n") + 1
    col = at - (head.rfind(b"\n") + 1) + 1
    why = f"byte 0x{data[at]:02x}" + ("" if form is None else f": {form[1]}")
    return InputError(path, line, col, f"not UTF-8 text ({why})")


# The UTF-16 and UTF-32 forms a text's first bytes name (YAML 1.2, 5.2 "Character Encodings"; RFC 4627's table
# for JSON is the same): a byte order mark (UTF-32LE's starts with UTF-16LE's: it is looked for first), else the
# zero bytes around a first character that is ASCII.
_MARKS = ((b"\xff\xfe\0\0", "utf-32", "a UTF-32LE byte order mark"),
          (b"\0\0\xfe\xff", "utf-32", "a UTF-32BE byte order mark"),
          (b"\xff\xfe", "utf-16", "a UTF-16LE byte order mark"),
          (b"\xfe\xff", "utf-16", "a UTF-16BE byte order mark"))


def unicode_form(data: bytes) -> tuple[str, str] | None:
    """(the Python codec, what to call it) of the UTF-16 or UTF-32 form ``data`` is written in, by its first
    bytes (``_MARKS``, then the zero bytes: YAML 1.2's detection); None for any other text (UTF-8, or none).
    The codec of a marked text reads the mark as one and drops it."""
    for mark, codec, name in _MARKS:
        if data.startswith(mark):
            return codec, name
    head = data[:4]
    if len(head) == 4 and head[:3] == b"\0\0\0" and head[3]:
        return "utf-32-be", "UTF-32BE without a byte order mark"
    if len(head) == 4 and head[0] and head[1:] == b"\0\0\0":
        return "utf-32-le", "UTF-32LE without a byte order mark"
    if len(head) >= 2 and not head[0] and head[1]:
        return "utf-16-be", "UTF-16BE without a byte order mark"
    if len(head) >= 2 and head[0] and not head[1]:
        return "utf-16-le", "UTF-16LE without a byte order mark"
    return None


def as_meant(data: bytes) -> str:
    """The text a file that is not UTF-8 text (``decode`` refused it) most likely holds, to tell what it is
    meant as (an SGLang config, a launch), never to check it: read in the UTF-16 or UTF-32 form its first
    bytes name (``unicode_form``), else as UTF-8 (its mark dropped); each byte that does not decode is
    U+FFFD (Latin-1 text keeps its ASCII words)."""
    form = unicode_form(data)
    return data.decode(form[0] if form is not None else "utf-8-sig", "replace")


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _not_regular(mode: int) -> str | None:
    """What a file of ``mode`` is when it is not a regular file ("a FIFO"), else None."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


_CANNOT = "cannot read: "  # (``read_bytes``'s message for an ``OSError``)


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
# how the kernel names an open file's path: Linux's /proc/self/fd/FD, macOS's fcntl F_GETPATH; else (None) by
# the path's real path and the file's identity (``opened_real``)
_FD_PATH = {"linux": "proc", "darwin": "getpath"}.get(sys.platform)


def opened_real(fd: int, path: str, st: os.stat_result) -> str | None:
    """The real path of the file open at ``fd`` (opened by ``path``; ``st`` is its ``fstat``): the path the kernel
    knows the descriptor by, whatever the path it was opened by led through (one ``readlink`` of
    ``/proc/self/fd/FD`` on Linux, ``F_GETPATH`` on macOS). Elsewhere, or without ``/proc``: ``path``'s real path
    when that now leads to this very file (device and inode), else None (a file swapped in and out again).
    Raises ``OSError`` when that cannot be looked at (a real path longer than the system can name)."""
    if _FD_PATH == "proc":
        try:
            return os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # no /proc mounted (a bare container): as elsewhere
            pass
    elif _FD_PATH == "getpath":
        import fcntl

        try:
            found = fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024))  # MAXPATHLEN: the name, then NULs
        except (OSError, AttributeError):
            pass
        else:
            return os.fsdecode(found.split(b"\0", 1)[0])
    real = os.path.realpath(path)
    try:
        now = os.stat(real)
    except (FileNotFoundError, NotADirectoryError):  # moved away since
        return None
    return real if (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino) else None


def read_bytes(path: str, *, follow: bool = True,
               inside: Callable[[str], bool] | None = None) -> tuple[bytes, Snapshot]:
    """The bytes of the regular file at ``path`` (a symlink is followed), and their snapshot.

    Raises ``ReadError`` when it cannot be read, is not a regular file (it
    is looked at before it is opened, and opened without blocking, so a
    FIFO is never waited on) or holds more than ``MAX_BYTES``. ``follow=False``:
    raise ``_Symlink`` instead when ``path`` is a symlink (its last part; opened
    with ``O_NOFOLLOW``, so one that replaced the file after the look is met too),
    at no cost to a file that is none.

    ``inside``, when given, tells the real paths that may be read: the file is read only if the file
    *opened* is at one (``opened_real``), else ``Outside`` is raised before a byte of it is read. So a
    directory on the way that another process swaps for a symlink between a look at the path and the
    open (which ``O_NOFOLLOW`` does not see: it covers the last part only) never leads the read out.
    Following symlinks, ``path``'s real path is asked first too, so a file that is outside by then is not
    even opened.
    """
    try:
        st = os.stat(path) if follow else os.lstat(path)
        if not follow and stat.S_ISLNK(st.st_mode):
            raise _Symlink
        kind = _not_regular(st.st_mode)
        if kind is not None:
            raise ReadError(path, f"not a regular file ({kind})")
        if inside is not None and follow and not inside(os.path.realpath(path)):
            raise Outside(path)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
                     | (0 if follow else _NOFOLLOW))
    except OSError as exc:
        if not follow and exc.errno == errno.ELOOP:
            raise _Symlink from None
        gone = exc.errno in (errno.ENOENT, errno.ENOTDIR)
        raise (Missing if gone else ReadError)(path, f"{_CANNOT}{_strerror(exc)}") from None
    try:
        st = os.fstat(fd)
        kind = _not_regular(st.st_mode)  # replaced between the look and the open
        if kind is not None:
            raise ReadError(path, f"not a regular file ({kind})")
        if inside is not None:
            real = opened_real(fd, path, st)
            if real is None or not inside(real):
                raise Outside(path)
        if st.st_size > MAX_BYTES:
            raise ReadError(path, _too_large(st.st_size))
        # the size fstat gave, and a byte more to see a file that grew (reading MAX_BYTES + 1 would allocate
        # 64 MB for each file), with os.read: no buffered reader to set up for one read (issue 15)
        data = _read_up_to(fd, st.st_size + 1)
        if len(data) > st.st_size:  # it grew while read: the rest, up to one byte past the limit
            data += _read_up_to(fd, MAX_BYTES - st.st_size)
    except OSError as exc:
        raise ReadError(path, f"{_CANNOT}{_strerror(exc)}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:  # grew while it was read
        raise ReadError(path, _too_large(len(data)))
    return data, Snapshot(st.st_dev, st.st_ino, blake2b(data).digest())


def _read_as(real: str, path: str, inside: Callable[[str], bool] | None) -> tuple[bytes, Snapshot]:
    """``read_bytes(real, inside=inside)``, its errors named ``path`` (the name the file was reached by)."""
    try:
        return read_bytes(real, inside=inside)
    except ReadError as exc:
        raise type(exc)(path, exc.message) from None


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
    written (``autofix.disk.writes``), so a line another process added during the run is never lost, and a path
    that leads to another file by now (a symlink swapped in, a directory renamed) is never written through.
    Writing a file updates its snapshot.

    ``done`` ends the work on one input (a file and the ``--config`` files its launches read): what it
    read is forgotten, what it wrote is kept for the rest of the run (``snapshot``), so the memory of a run
    grows with the files it writes, not with those it reads. ``writes=False``: a run that never writes
    keeps no snapshot of what it reads (nothing would compare it), and so needs no real path for a read.

    ``scope`` (``Scope``), when given, bounds what is read, and so what can be written (only a file read
    is): a file a walk found (``read(named=False)``) that is a symlink to a file out of scope, and a
    ``--config`` file out of scope or that ``excluded`` (``expand``'s) leaves out, raise ``NotRead``
    before a byte of them is read; so do both when the file *opened* is out of scope, whatever the path
    looked like before (``read_bytes``'s ``inside``). Without it (a library caller's own files), every file
    may be read.
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

        ``named=False``: a file a walk found, read only if the file opened is in ``scope`` (else ``NotRead``):
        one that is no symlink is the walk's own, opened without following one (``O_NOFOLLOW``) and then
        checked by the real path of what was opened (a directory on its way swapped for a symlink meanwhile
        leads elsewhere, ``read_bytes``); one that is a symlink is followed only to a file in ``scope``.
        """
        if path == "-":
            return read_text(path)
        data, snap, real = self._read(path, named)
        text = decode(data, path)
        if self.writes:
            self.snapshots[real or self.real(path)] = snap
        return text

    def read_bytes(self, path: str, *, named: bool = True) -> bytes:
        """The bytes of ``path``, read as ``read`` reads it (not stdin), with no snapshot kept. Raises
        ``ReadError``."""
        return self._read(path, named)[0]

    def _read(self, path: str, named: bool) -> tuple[bytes, Snapshot, str | None]:
        """``read``'s bytes, snapshot, and the real path when it was found on the way (else None)."""
        if named or self.scope is None:
            return (*read_bytes(path), None)
        holds = self.scope.holds
        try:
            try:
                return (*read_bytes(path, follow=False, inside=holds), None)
            except _Symlink:
                real = self.real(path)
                if not holds(real):
                    raise NotRead(path, f"a symlink to a file {self.scope.outside()}: not read; name it on "
                                  "the command line to check it") from None
                return (*_read_as(real, path, holds), real)  # the file judged, even if the symlink changes meanwhile
        except Outside:
            raise NotRead(path, f"leads to a file {self.scope.outside()} (a directory on its path changed since "
                          "the walk listed it): not read; name it on the command line to check it") from None

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
                raise NotRead(path, f"is {self.scope.outside()}", "name it on the command line to read it")
            if self.excluded is not None and self.excluded(path, False, False) and (
                    not self.scope.named(real) or self.excluded(path, True, False)):  # named: unless force-exclude
                raise NotRead(path, "is excluded by the project's configuration")
        try:
            if real is None:
                return self.read(path)
            data, snap = _read_as(real, path, self.scope.holds)  # the file judged, even if a symlink changes
        except Outside:
            raise NotRead(path, f"is {self.scope.outside()}", "name it on the command line to read it") from None
        except Missing:
            return None
        except ReadError as exc:  # (``read`` raises ``InputError`` for the text: it is the caller's)
            why = exc.message
            raise NotRead(path, f"cannot be read ({why.removeprefix(_CANNOT)})" if why.startswith(_CANNOT)
                          else f"is {why}") from None
        text = decode(data, path)
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
                raise WriteError(path, f"cannot write: {_strerror(exc)}") from None
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
                    return [WriteError(path, f"cannot write: {_strerror(exc)}")]
                done: list[tuple[Target, Snapshot]] = []
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
    return exc if isinstance(exc, WriteError) else WriteError(path, f"cannot write: {_strerror(exc)}")


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
                handler(number, None)  # SystemExit (autofix.cli.main's SIGTERM), KeyboardInterrupt (Ctrl-C)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), number)


BACKUP_SUFFIX = ".autofix-backup"
_TEMP_SUFFIX = ".autofix"


def backup_name(name: str) -> str:
    """The name of the backup an in-place write of the file ``name`` keeps next to it while it writes
    (``autofix.disk.writes``): ``.NAME.autofix-backup``. One left there means that write was interrupted."""
    return f".{name}{BACKUP_SUFFIX}"


def _left_by_writes(names: list[str]) -> dict[str, list[str]]:
    """Of a directory's ``names``, the files an interrupted write left (a backup ``.NAME.autofix-backup``, a
    temp file ``.NAME.XXXXXXXX.autofix``), by the name of the file they are next to (its backup first)."""
    left: dict[str, list[str]] = {}
    for n in sorted(names):
        if n.endswith((BACKUP_SUFFIX, _TEMP_SUFFIX)) and n.startswith("."):
            if n.endswith(BACKUP_SUFFIX):
                left.setdefault(n[1:-len(BACKUP_SUFFIX)], []).insert(0, n)
            else:
                left.setdefault(n[1:-len(_TEMP_SUFFIX)].rpartition(".")[0], []).append(n)
    return left


def left_note(path: str, leftover: str, real: str | None = None) -> str:
    """The warning for the file ``path`` (at real path ``real``, when known) next to which an autofix write left
    ``leftover`` (a path): a backup (of an interrupted write, or of one still running: ``running``) or a temp
    file."""
    if not leftover.endswith(BACKUP_SUFFIX):
        return (f"{path}:1:1: warning: a temp file of an interrupted autofix write is next to it ({leftover}): "
                "compare the two, then delete it")
    from autofix.disk.writes import backup_left

    live = running(real or path, leftover)
    return f"{path}:1:1: warning: {backup_left(leftover, live)}" + (
        "" if live else " (--write leaves the file alone until then)")


def left_beside(path: str) -> str | None:
    """The backup of an autofix write next to the file ``path`` (``backup_name``: one ``lstat``), or None."""
    head, name = os.path.split(path)
    backup = os.path.join(head, backup_name(name))
    try:
        os.lstat(backup)
    except OSError:
        return None
    return backup


def running(*locks: int | str | bool | None) -> bool | None:
    """Whether an autofix write of a file still runs, from the locks (``flock``) of the file and of its backup,
    each a descriptor or a path to try, or what is known of it already (a bool, None: cannot tell). A write
    holds a lock on one or the other as long as its backup exists (``autofix.disk.writes``). True when another
    process holds one, False when none does, None when the system cannot tell."""
    states = [lock if lock is None or isinstance(lock, bool) else _locked(lock) for lock in locks]
    return True if True in states else None if None in states else False


def _locked(file: int | str) -> bool | None:
    """Whether another open file holds a lock (``flock``) on ``file`` (a descriptor not locked itself, or a
    path): None when it cannot be opened or the system has no such locks."""
    import fcntl

    fd = file
    if isinstance(file, str):
        try:
            if not stat.S_ISREG(os.lstat(file).st_mode):  # never open a device
                return None
            fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return None
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        if fd is not file:
            os.close(fd)


def expand(paths: list[str], note: Callable[[str], None] = lambda _: None,
           excluded: Callable[[str, bool, bool], bool] | None = None, *,
           only_yaml: bool = False, left: Callable[[str, str], None] | None = None,
           scope: Scope | None = None) -> Iterator[tuple[str, bool]]:
    """(path, named) for each input: named paths as given, directories walked in sorted order.

    A walk does not follow symlinked directories, nor enter ``_SKIP_DIRS``
    (``.git``, ``venv``, ...); a directory it cannot list, or one without a
    file to check, is passed to ``note`` as a ``path:1:1: warning: ...`` line.
    ``excluded(path, named, is_dir)``, when given, decides instead which
    directories the walk skips and which files are left out (``named``: a
    path given on the command line, checked unless ``excluded`` says so;
    ``is_dir``: a directory of the walk; project configuration,
    ``autofix.project.configuration``). ``only_yaml``: only the YAML files (``is_yaml``),
    named or walked, for a second walk of the same paths (a directory
    without one is not noted). A walked file next to which an autofix write
    left a backup or a temp file is passed to ``left(path, leftover)``, or
    else noted (``left_note``). ``scope``, when given: a directory is listed
    only if the directory opened is in it (``opened_real``), so a directory
    on the way swapped for a symlink out after its parent was listed is
    neither listed nor walked (a note), as a file there would not be read.
    """
    def unlisted(exc: OSError) -> None:
        note(f"{exc.filename}:1:1: warning: cannot list the directory: {_strerror(exc)} (skipped)")

    def left_out(directory: str) -> None:
        note(f"{directory}:1:1: warning: leads to a directory {scope.outside()} (a directory on its path changed "
             "since the walk listed it): not listed (skipped)")

    def skip(path: str, named: bool = False, is_dir: bool = False) -> bool:
        if excluded is not None:
            return excluded(path, named, is_dir)
        return not named and os.path.basename(path) in _SKIP_DIRS

    for p in paths:
        if p != "-" and os.path.isdir(p):
            found = 0
            for root, dirs, names in _walk(p, unlisted, scope, left_out):
                dirs[:] = sorted(d for d in dirs if not skip(os.path.join(root, d), is_dir=True))
                leftovers = None if only_yaml else _left_by_writes(names)  # names listed anyway: no system call
                for name in sorted(names):
                    if is_yaml(name) if only_yaml else name.lower().endswith(WALK_SUFFIXES) or is_dockerfile(name):
                        path = os.path.normpath(os.path.join(root, name))
                        if skip(path):
                            continue
                        found += 1
                        for leftover in leftovers.get(name, ()) if leftovers else ():
                            leftover = os.path.normpath(os.path.join(root, leftover))
                            if left is not None:
                                left(path, leftover)
                            else:
                                note(left_note(path, leftover))
                        yield path, False
            if not found and not only_yaml:
                note(f"{p}:1:1: warning: no file to check in this directory (*.yaml, *.yml, *.sh, *.bash, "
                     "Dockerfiles)")
        elif p == "-":
            if not only_yaml:
                yield p, True
        elif (not only_yaml or is_yaml(p)) and not skip(p, True):
            yield p, True


def _walk(top: str, onerror: Callable[[OSError], None], scope: Scope | None = None,
          left_out: Callable[[str], None] | None = None) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top, onerror=onerror)``: (directory, its directories, its other names) top down, a symlinked
    directory listed among the directories but not entered (looked at right before it would be), ``onerror``
    given what a directory that cannot be listed raised, and that directory left out. Without recursion:
    Python 3.11's ``os.walk`` recurses once per level, and a tree ~990 deep stopped the run with
    ``RecursionError`` (issue 29). Depth first, each directory's directories in the order of the list it gave,
    which its caller may prune and sort in place meanwhile, as with ``os.walk``.

    ``scope``: each directory is opened (below the top, without following a symlink) and listed through its
    descriptor only if its real path, the one opened, is in ``scope``; else it goes to ``left_out``."""
    pending = [(top, False)]  # (directory, whether to pass it over if it is a symlink: not the walk's top)
    while pending:
        top, nested = pending.pop()
        if nested and os.path.islink(top):
            continue
        dirs: list[str] = []
        names: list[str] = []
        try:
            listing = os.scandir(top) if scope is None else _listing(top, nested, scope)
            if listing is None:
                left_out(top)
                continue
            with listing as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    (dirs if is_dir else names).append(entry.name)
        except OSError as exc:
            if nested and exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(top):
                continue  # a symlink since the look above (O_NOFOLLOW): passed over, as it would have been
            onerror(exc)
            continue
        yield top, dirs, names
        pending.extend((os.path.join(top, d), True) for d in reversed(dirs))


def normalize(path: str) -> str:
    """``os.path.normpath(path)`` as the system looks ``path`` up: ``.`` parts and repeated separators go, and
    ``DIR/..`` goes only where ``DIR`` is a directory. Not where it is a symlink: the system takes ``..`` from
    where the symlink leads, so ``lnk/../p.yaml`` with ``lnk -> /elsewhere/dir`` is ``/elsewhere/p.yaml``, not the
    ``p.yaml`` beside ``lnk`` (issue 29); nor where it is missing, which the system refuses. Those stay as
    written. One ``lstat`` per ``..`` (none for a path without one). Windows reads ``..`` as text:
    ``os.path.normpath`` there."""
    if ".." not in path or os.name != "posix":
        return os.path.normpath(path)
    root = os.sep if path.startswith(os.sep) else ""
    parts: list[str] = []
    for part in path.split(os.sep):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts and root:  # /.. is /
                continue
            if parts and parts[-1] != ".." and _is_directory(root + os.sep.join(parts)):
                parts.pop()
                continue
        parts.append(part)
    return root + os.sep.join(parts) or "."


def plain(path: str) -> str:
    """A path to where ``path`` leads with no ``..`` after a name, for what reads a path as text (a report's
    path relative to the repository, a glob of the project's configuration): ``normalize(path)``, and where a
    ``..`` still follows a name there (a symlink's), the path up to that ``..`` replaced by its real path."""
    path = normalize(path)
    if ".." not in path:
        return path
    parts = path.split(os.sep)
    last = max((k for k, p in enumerate(parts) if p == ".." and k and parts[k - 1] not in ("..", "")), default=None)
    if last is None:
        return path
    return os.path.join(os.path.realpath(os.sep.join(parts[:last + 1]) or os.sep), *parts[last + 1:])


def _is_directory(path: str) -> bool:
    """Whether ``path`` is a directory itself (not a symlink to one)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _listing(directory: str, nested: bool, scope: Scope):
    """``os.scandir`` of ``directory`` opened (``nested``: without following a symlink at its last part), or None
    when the directory opened is not in ``scope``. Raises ``OSError`` as ``os.scandir`` does."""
    fd = os.open(directory, os.O_RDONLY | _DIRECTORY | _CLOEXEC | (_NOFOLLOW if nested else 0))
    try:
        real = opened_real(fd, directory, os.fstat(fd))
        return os.scandir(fd) if real is not None and scope.holds(real) else None  # (scandir lists a copy of fd)
    finally:
        os.close(fd)


def append_text(path: str, text: str) -> None:
    """Append ``text`` (UTF-8) to the regular file at ``path``, created when missing: GitHub's
    ``$GITHUB_STEP_SUMMARY``, which the runner appends to and never rewrites. Never waits: anything else (a
    FIFO no one reads, a device) is refused before it is opened to write, and opened without blocking.
    Raises ``WriteError``."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
    try:
        try:
            kind = _not_regular(os.stat(path).st_mode)
        except FileNotFoundError:
            kind = None
        if kind is None:
            fd = os.open(path, flags, 0o666)
            try:
                kind = _not_regular(os.fstat(fd).st_mode)  # replaced between the look and the open
                if kind is None:
                    data, done = text.encode("utf-8"), 0
                    while done < len(data):
                        done += os.write(fd, data[done:])
            finally:
                os.close(fd)
        if kind is not None:
            raise WriteError(path, f"not a regular file ({kind})")
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
