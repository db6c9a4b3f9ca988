"""Reading a file or stdin once, bounded: only regular files (a FIFO, a device or ``/dev/zero`` behind a symlink
is refused before it is opened for long), at most ``limits.MAX_BYTES``; and what a read tells: why a file was not
read (``ReadError`` and its kinds), a ``Snapshot`` of what was read (which file, which bytes), the real path of
the file opened (``opened_real``).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

from autofix.common.errors import InputError
from autofix.common.limits import MAX_BYTES
from autofix.disk.encoding import decode

try:  # hashlib.blake2b is this very constructor; hashlib itself loads OpenSSL first (~2.5 ms of each start, issue 15)
    from _blake2 import blake2b
except ImportError:  # an interpreter built without it
    from hashlib import blake2b


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


class Symlink(Exception):
    """``read_bytes(path, follow=False)`` met a symlink: its caller decides whether to follow it."""


class Outside(Exception):
    """``read_bytes(path, inside=...)``: the file opened is not at a real path ``inside`` accepts (or its real
    path could not be told). Nothing of it was read; its caller says why, as ``NotRead`` or ``ConfigError``."""


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def not_regular(mode: int) -> str | None:
    """What a file of ``mode`` is when it is not a regular file ("a FIFO"), else None."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


CANNOT = "cannot read: "  # (``read_bytes``'s message for an ``OSError``)


def _too_large(size: int) -> str:
    return f"too large ({size:,} bytes; autofix reads at most {MAX_BYTES:,})"


def strerror(exc: OSError) -> str:
    """What the system says of ``exc`` (its ``strerror``, else its text), for a message."""
    return exc.strerror or str(exc)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What was read from one file: which file (device, inode) and a digest of its bytes."""

    device: int
    inode: int
    digest: bytes


def digest(data: bytes) -> bytes:
    """The digest a ``Snapshot`` keeps of ``data`` (BLAKE2b)."""
    return blake2b(data).digest()


# open's flags, where the system has them (0 elsewhere); the walk and the write path open with them too
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
CLOEXEC = getattr(os, "O_CLOEXEC", 0)
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
            # MAXPATHLEN: the name, then NULs. typeshed declares F_GETPATH on macOS only (the ignore is unused there)
            found = fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024))  # type: ignore[attr-defined, unused-ignore]
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
    raise ``Symlink`` instead when ``path`` is a symlink (its last part; opened
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
            raise Symlink
        kind = not_regular(st.st_mode)
        if kind is not None:
            raise ReadError(path, f"not a regular file ({kind})")
        if inside is not None and follow and not inside(os.path.realpath(path)):
            raise Outside(path)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | CLOEXEC | (0 if follow else NOFOLLOW))
    except OSError as exc:
        if not follow and exc.errno == errno.ELOOP:
            raise Symlink from None
        gone = exc.errno in (errno.ENOENT, errno.ENOTDIR)
        raise (Missing if gone else ReadError)(path, f"{CANNOT}{strerror(exc)}") from None
    try:
        st = os.fstat(fd)
        kind = not_regular(st.st_mode)  # replaced between the look and the open
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
        raise ReadError(path, f"{CANNOT}{strerror(exc)}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:  # grew while it was read
        raise ReadError(path, _too_large(len(data)))
    return data, Snapshot(st.st_dev, st.st_ino, digest(data))


def read_as(real: str, path: str, inside: Callable[[str], bool] | None) -> tuple[bytes, Snapshot]:
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
        raise ReadError("-", f"cannot read stdin: {strerror(exc) if isinstance(exc, OSError) else exc}") from None
    if len(data) > MAX_BYTES:
        error = ReadError("-", f"too large (more than {MAX_BYTES:,} bytes on stdin)")
        error.data = data
        raise error
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
