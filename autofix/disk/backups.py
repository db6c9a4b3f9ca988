"""What an autofix write leaves next to a file: the backup ``.NAME.autofix-backup`` (``backup_name``) an
in-place write or a group write keeps while it runs, and a temp file ``.NAME.XXXXXXXX.autofix``; either left for
good by a write that was interrupted. Finding them (``left_by_writes`` among a directory's names, ``left_beside``
by a named file), telling a running write's backup from an interrupted one's by their locks (``running``), and
what to say of one (``left_note``, ``backup_left``). ``autofix.disk.writes`` makes them.
"""

from __future__ import annotations

import os
import stat

from autofix.disk.reads import CLOEXEC, NOFOLLOW

BACKUP_SUFFIX = ".autofix-backup"
_TEMP_SUFFIX = ".autofix"


def backup_name(name: str) -> str:
    """The name of the backup an in-place write of the file ``name`` keeps next to it while it writes
    (``autofix.disk.writes``): ``.NAME.autofix-backup``. One left there means that write was interrupted."""
    return f".{name}{BACKUP_SUFFIX}"


def temp_name(name: str) -> str:
    """A new name for a temp file next to the file ``name`` (``autofix.disk.writes``'s copy of it):
    ``.NAME.XXXXXXXX.autofix``, its eight hex digits drawn at random."""
    return f".{name}.{os.urandom(4).hex()}{_TEMP_SUFFIX}"


def left_by_writes(names: list[str]) -> dict[str, list[str]]:
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

    if isinstance(file, str):
        try:
            if not stat.S_ISREG(os.lstat(file).st_mode):  # never open a device
                return None
            fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | NOFOLLOW | CLOEXEC)
        except OSError:
            return None
    else:
        fd = file
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


def backup_left(backup: str, running: bool | None) -> str:
    """The error for a file that has the backup of an autofix write next to it: an interrupted write's, or,
    when ``running`` (what ``running()`` says: True, False, None when the system cannot tell), a running one's."""
    if running:
        return (f"it is being written: another process holds a lock on it (flock), and the backup of that write is "
                f"next to it ({backup}); run autofix again once it is done")
    if running is None:
        return (f"a backup of an interrupted or running autofix write is next to it ({backup}): once no autofix "
                "writes it, compare the two, then delete the backup")
    return (f"a backup of an interrupted autofix write is next to it ({backup}): compare the two, then delete the "
            "backup")
