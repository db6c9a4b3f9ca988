"""The system calls the write path (``autofix.disk.writes``) makes besides ``os``'s own, each one step of it:
whole reads and writes of a descriptor (``pread_all``, ``write_all``, ``pwrite_all``), a directory's descriptor,
entries and sync (``open_dir``, ``unlink``, ``fsync``), a mode given back (``restore_mode``), and through the C
library (``ctypes``, loaded by the first write that asks) ``renameat2`` with ``RENAME_EXCHANGE`` (``exchange``)
and ``fallocate`` (``reserve``). ``tests/write_faults.py`` counts ``exchange`` and ``reserve`` with ``os``'s
calls, to put a fault between any two of them: ``writes`` calls them through this module.
"""

from __future__ import annotations

import errno
import os
import stat

from autofix.common.limits import MAX_BYTES
from autofix.disk.reads import CLOEXEC

_RENAME_EXCHANGE = 2  # linux/fs.h
_FALLOC_FL_KEEP_SIZE = 1  # linux/falloc.h


def open_dir(path: str) -> int:
    """A descriptor of the directory ``path`` (``O_PATH`` where it may not be read: it cannot be synced then)."""
    try:
        return os.open(path or "/", os.O_RDONLY | os.O_DIRECTORY | CLOEXEC)
    except PermissionError:
        if not hasattr(os, "O_PATH"):
            raise
        return os.open(path or "/", os.O_PATH | os.O_DIRECTORY | CLOEXEC)


def unlink(name: str, dir_fd: int) -> None:
    """Remove the entry ``name`` of the directory ``dir_fd``; one already gone is no error."""
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass


def pread_all(fd: int) -> bytes:
    """Every byte of ``fd`` from offset 0 (at most ``MAX_BYTES`` + 1), whatever its offset."""
    parts, at = [], 0
    while at <= MAX_BYTES:
        part = os.pread(fd, min(1 << 20, MAX_BYTES + 1 - at), at)
        if not part:
            break
        parts.append(part)
        at += len(part)
    return b"".join(parts)


def write_all(fd: int, data: bytes) -> None:
    """All of ``data`` to ``fd``, from its offset (``os.write`` may write less at once)."""
    view, done = memoryview(data), 0
    while done < len(data):
        done += os.write(fd, view[done:])


def pwrite_all(fd: int, data: bytes) -> None:
    """``data`` at offset 0: one system call for a file of the size autofix reads (unless the disk fills)."""
    view, done = memoryview(data), 0
    while done < len(data):
        done += os.pwrite(fd, view[done:], done)


def fsync(fd: int) -> None:
    """Make a rename or a new name in the directory ``fd`` durable (best effort: some file systems refuse)."""
    try:
        os.fsync(fd)
    except OSError:
        pass


def restore_mode(fd: int, mode: int) -> None:
    """Give the file back the setuid/setgid bits the kernel clears when a non-root user writes it (best effort:
    only its owner may)."""
    if stat.S_IMODE(os.fstat(fd).st_mode) != mode:
        try:
            os.fchmod(fd, mode)
        except PermissionError:
            pass


_LIBC: object = None  # (ctypes, the C library), loaded at the first write that asks; False: none here


def _libc():
    global _LIBC
    if _LIBC is None:
        try:
            import ctypes  # only to write (start-up, issue 15)

            _LIBC = (ctypes, ctypes.CDLL(None, use_errno=True))
        except (ImportError, OSError):
            _LIBC = False
    return _LIBC or None


def _call(name: str, argtypes: tuple, *args) -> int | None:
    """The C library's ``name(*args)``: 0, or an ``errno``; None when this system has no such function."""
    found = _libc()
    function = getattr(found[1], name, None) if found else None
    if function is None:
        return None
    ctypes = found[0]
    function.argtypes = tuple(getattr(ctypes, t) for t in argtypes)
    return 0 if function(*args) == 0 else ctypes.get_errno()


_UNSUPPORTED = (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP)


def exchange(dir_fd: int, a: str, b: str) -> bool:
    """Swap the entries ``a`` and ``b`` of the directory ``dir_fd`` in one step (``renameat2`` with
    ``RENAME_EXCHANGE``). False, nothing changed, where the system cannot (not Linux, an old kernel or C
    library, a file system without it: NFS). Raises ``OSError`` (``EBUSY``: ``b`` is a mount point)."""
    err = _call("renameat2", ("c_int", "c_char_p", "c_int", "c_char_p", "c_uint"),
                dir_fd, os.fsencode(a), dir_fd, os.fsencode(b), _RENAME_EXCHANGE)
    if err is None or err in _UNSUPPORTED:
        return False
    if err:
        raise OSError(err, os.strerror(err), b)
    return True


def reserve(fd: int, size: int) -> None:
    """Reserve the disk space for ``size`` bytes of the file ``fd`` without changing its size (``fallocate``
    with ``FALLOC_FL_KEEP_SIZE``: no zeros appear at its end): a full disk fails here. Best effort where the
    system cannot. Raises ``OSError``."""
    err = _call("fallocate", ("c_int", "c_int", "c_longlong", "c_longlong"), fd, _FALLOC_FL_KEEP_SIZE, 0, max(size, 1))
    if err and err not in _UNSUPPORTED:
        raise OSError(err, os.strerror(err))
