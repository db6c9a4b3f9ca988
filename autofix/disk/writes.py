"""How a fixed text replaces a file: only the file autofix read under that name, only while it still holds
what was read (``files.FileSet.write`` and ``write_all`` are the way in).

A ``Target`` is the file a path was read as (``reads.Snapshot``: device, inode, digest), opened again to be
written: its directory and then the file itself, once, without following a symlink at the last step. All
that follows goes through those two descriptors, so a path that leads elsewhere by now (a symlink swapped
in, a directory renamed, a ``git checkout``) is never written through: a write lands in the file that was
read, or nowhere. The file is looked at through its descriptor at the last moment before anything of it
changes, and again after; a change another process made meanwhile is never overwritten and reported as
written.

Two ways to write:

* **Rename** (a file with one link, whose owner and extended attributes a copy can keep): the text goes to a
  temp file next to it, which then trades places with it in one step (``renameat2(RENAME_EXCHANGE)``, Linux;
  a plain rename where the system cannot, which can only tell that it replaced something else, not put it
  back). What the swap took out
  must be the file read, still with the bytes read; otherwise it is swapped back (another process's version
  is the file again) and the write is an error.
* **In place** (hard links, an owner or attributes a copy cannot keep, a file that is a mount point: a
  bind-mounted file): the same inode is rewritten, under an advisory lock (``flock``: another autofix, or a
  writer that takes the lock, waits; one that holds it makes this write an error), with the original kept in
  ``.NAME.autofix-backup`` next to it until the new bytes are synced. The file is never longer than its
  text with newlines after it: a longer text first appends newlines (``O_APPEND``: after whatever another
  process appends meanwhile, which the write from offset 0 then cannot reach), a shorter one is written
  padded with newlines to the old length and then cut. So a kill (SIGKILL) at any point leaves the
  original or the new text, either perhaps followed by blank lines (a file over one page, 4 KiB, may also be
  left half-written); whenever it is not exactly one of the two, the backup is next to it, which the next
  run names and which keeps ``--write`` off the file until it is deleted. A file with other names also
  carries the backup's path in its extended attribute ``MARK`` while the backup exists, so that a write
  through a name in another directory is refused too. An error puts the original back (Ctrl-C and SIGTERM
  wait until the write is done: ``files.SignalsHeld``).

**A group** (a script and its ``--config`` file: ``files.FileSet.write_all``) must never be left half
written, a launch that means something else. Each file first keeps what was read in its backup (``keep``:
for the rename, a hard link to the file, which the swap then leaves as the only name of the original: no
copy; else, or where no link can be made, a synced copy); then each is written, its write making no backup
of its own; only when all are written, or all put back after an error, are the backups removed (``drop``).
A kill at any point leaves every file as read, or every file written, or a backup next to each file, each
holding what was read.

As long as its write runs, a backup is locked (``flock``: the copy by its own descriptor, the hard link as the
file read, which ``keep`` locks), and so is the file written in place. Another run that finds a backup
tells by those locks whether its write runs (``backups.running``: the file is being written; run again) or
was interrupted (compare the two, then delete the backup): it never tells a user to delete a running
write's backup.

What is left (docs/usage.md): a process that keeps the file open across a rename write and writes after the
swap writes to the file taken out; in place, a writer that takes no lock and writes anywhere but the end in
the moment between the last look and the write, or appends in the moment between the look at the size and
the cut that ends a write which shortened the file, is overwritten. A backup next to another name of a
file is found only in the file's directory, or through ``MARK``, which a file system without user extended
attributes cannot keep (tmpfs before Linux 6.6, some network file systems).
"""

from __future__ import annotations

import errno
import os
import stat

from autofix.common.errors import WriteError
from autofix.disk import syscalls
from autofix.disk.backups import BACKUP_SUFFIX, backup_left, backup_name, running, temp_name
from autofix.disk.reads import CLOEXEC, NOFOLLOW, Snapshot, digest

CHANGED = "it changed since autofix read it; run autofix again"
REPLACED = "it was replaced since autofix read it (another file is at this path now); run autofix again"
GONE = "it was removed or renamed since autofix read it; run autofix again"
PROTECTED = "the file is write-protected"
WRITTEN_MEANWHILE = "another process wrote to it while autofix wrote it"
LOCKED = "another process holds a lock on it (flock): it is being written; run autofix again"
MARK = "user.autofix.backup"  # an extended attribute of a file written in place: the path of its backup


class Target:
    """The file ``path`` was read as (``expected``, at real path ``real``), open to be written. A context manager.

    Opening it raises ``WriteError`` (nothing changed) unless the path's directory still holds, under the
    file's name, that very file (same device and inode, a regular file), it is not write-protected, and no
    backup of an autofix write is next to it (``backups.backup_name``; for a file with other names, next to
    one of them in its directory, or where the file's ``MARK`` says): ``kept``, the backup (device, inode)
    of this run's own group write (``keep``), is the one accepted. ``st`` is its ``os.stat_result``. Its bytes
    are not looked at until ``verify``, ``write``, ``replace`` or ``write_in_place``.
    """

    def __init__(self, path: str, real: str, expected: Snapshot, *, kept: tuple[int, int] | None = None) -> None:
        self.path, self.real, self.expected = path, real, expected
        self.name = os.path.basename(real)
        self.backup = os.path.join(os.path.dirname(real), backup_name(self.name))  # as messages name it
        self.kept = kept  # the backup of a group write (device, inode): neither made nor removed by a write
        self.linked = False  # ``keep`` made it a second name of this very file (a hard link)
        self.held = False  # an error's message names the backup: ``drop`` leaves it
        self.original = b""  # what ``keep`` kept
        self.marked = False  # MARK is set on the file
        self.locked: bool | None = None  # whether another process holds the file's lock: False once this one has it
        self.dir = self.fd = self.bfd = -1  # bfd: the backup this write made, locked while it exists
        try:
            self.dir = syscalls.open_dir(os.path.dirname(real))
            self._is_it(os.stat(self.name, dir_fd=self.dir, follow_symlinks=False))  # before opening a device
            self.fd = os.open(self.name, os.O_RDWR | os.O_NONBLOCK | os.O_NOCTTY | NOFOLLOW | CLOEXEC,
                              dir_fd=self.dir)
            self.st = os.fstat(self.fd)
            self._is_it(self.st)
            if not self.st.st_mode & 0o222:  # root may write it, but its owner said no
                raise WriteError(path, PROTECTED)
            left = self._backup_here()
            if left is None and self.st.st_nlink > 1:
                left = self._marked() or self._backup_by_another_name()
            if left is not None:
                raise WriteError(path, backup_left(left, running(self.fd, left)))
        except OSError as exc:
            self.close()
            raise WriteError(path, _opening_error(exc)) from None
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Target:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close its descriptors (this drops the locks of an in-place write, or of ``keep``)."""
        for fd in (self.bfd, self.fd, self.dir):
            if fd >= 0:
                os.close(fd)
        self.bfd = self.fd = self.dir = -1

    def _is_it(self, st: os.stat_result) -> None:
        """Raise ``WriteError`` unless ``st`` is the file that was read (a regular file, same device and inode)."""
        if not stat.S_ISREG(st.st_mode):
            raise WriteError(self.path, "it is no longer a regular file" if not stat.S_ISLNK(st.st_mode) else REPLACED)
        if (st.st_dev, st.st_ino) != (self.expected.device, self.expected.inode):
            raise WriteError(self.path, REPLACED)

    def _backup_here(self) -> str | None:
        """The backup next to this name (``self.backup``) when there is one and it is not ``kept``."""
        try:
            st = os.stat(backup_name(self.name), dir_fd=self.dir, follow_symlinks=False)
        except FileNotFoundError:
            return None
        return None if (st.st_dev, st.st_ino) == self.kept else self.backup

    def _marked(self) -> str | None:
        """The backup an in-place write of this file left next to another of its names, wherever it is, as the
        file's ``MARK`` names it (None without one, or when that backup is gone: deleted once compared)."""
        try:
            other = os.fsdecode(os.getxattr(self.fd, MARK))
        except (OSError, AttributeError):  # none, a file system without extended attributes, a system without them
            return None
        return other if other != self.backup and os.path.lexists(other) else None

    def _backup_by_another_name(self) -> str | None:
        """The backup an interrupted write left next to another name of this file (a hard link) in its
        directory, if any (only a file with several links pays for the listing)."""
        try:
            with os.scandir(self.dir) as entries:
                backups = [e.name for e in entries if e.name.startswith(".") and e.name.endswith(BACKUP_SUFFIX)
                           and e.name != backup_name(self.name)]
        except OSError:  # a directory that may not be read
            return None
        for backup in backups:
            try:
                st = os.stat(backup[1:-len(BACKUP_SUFFIX)], dir_fd=self.dir, follow_symlinks=False)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == (self.st.st_dev, self.st.st_ino):
                return os.path.join(os.path.dirname(self.backup), backup)
        return None

    def content(self) -> bytes:
        """The file's bytes now, through its descriptor (at most ``MAX_BYTES`` + 1)."""
        return syscalls.pread_all(self.fd)

    def verify(self) -> bytes:
        """The file's bytes, which must be those read (their digest). Raises ``WriteError``."""
        data = self.content()
        if digest(data) != self.expected.digest:
            raise WriteError(self.path, CHANGED)
        return data

    def write(self, data: bytes) -> Snapshot:
        """Make ``data`` the file's bytes: by ``replace`` when it has one link, else (or when a copy cannot be
        the same file) by ``write_in_place``. The snapshot written. Raises ``WriteError``, ``OSError``."""
        written = self.replace(data) if self.st.st_nlink == 1 else None
        return written if written is not None else self.write_in_place(data)

    def keep(self) -> None:
        """Keep the file as read in its backup until ``drop``: the first step of a group write
        (``files.FileSet.write_all``), whose writes then neither make a backup nor remove it.

        The file is locked (``flock``, as for an in-place write) until ``close``. A file with one link gets a
        second name (a hard link: no copy; a rename write takes the file's name away from it), any other, or
        where no link can be made, a synced copy. Raises ``WriteError`` (nothing kept) when another process
        holds a lock on it, it is not as read, or a backup is next to it by now; ``OSError``.
        """
        self._lock()
        self.original = self.verify()
        name = backup_name(self.name)
        if self.st.st_nlink == 1:
            try:
                os.link(self.name, name, src_dir_fd=self.dir, dst_dir_fd=self.dir, follow_symlinks=False)
            except FileExistsError:  # since it was opened
                raise WriteError(self.path, backup_left(self.backup, running(self.locked, self.backup))) from None
            except OSError:  # no hard links here: a copy
                pass
            else:
                st = os.stat(name, dir_fd=self.dir, follow_symlinks=False)
                if (st.st_dev, st.st_ino) != (self.st.st_dev, self.st.st_ino):  # another file took the name since
                    syscalls.unlink(name, self.dir)
                    raise WriteError(self.path, REPLACED)
                syscalls.fsync(self.dir)
                self.kept, self.linked = (st.st_dev, st.st_ino), True
                return
        self.kept = self._make_backup(self.original)

    def drop(self) -> None:
        """Remove the backup ``keep`` made (the group is written, or put back), unless an error's message
        names it (``held``) or another file is at its name by now."""
        if self.kept is None or self.held:
            return
        name = backup_name(self.name)
        try:
            st = os.stat(name, dir_fd=self.dir, follow_symlinks=False)
        except OSError:
            return
        if (st.st_dev, st.st_ino) == self.kept:
            self._unmark()
            syscalls.unlink(name, self.dir)
        self.kept = None

    def put_back(self, written: Snapshot) -> Snapshot:
        """After ``keep`` and a write that made the file ``written``: write back what ``keep`` kept, if the file
        is still as written (the write's checks). The snapshot put back. Raises ``WriteError``, ``OSError``."""
        if (written.device, written.inode) == (self.st.st_dev, self.st.st_ino):  # written in place: this file
            self.expected = written
            return self.write_in_place(self.original)
        with Target(self.path, self.real, written, kept=self.kept) as again:  # the file the rename put there
            try:
                return again.write(self.original)
            finally:
                self.held = self.held or again.held

    def replace(self, data: bytes) -> Snapshot | None:
        """Swap a temp file holding ``data`` (with this file's owner, mode and extended attributes) for it.

        Returns the snapshot of what was written; or None, with nothing changed, when a copy cannot keep the
        owner or an attribute, or the name cannot be renamed over (``EBUSY``: a mount point, a bind-mounted
        file): ``write_in_place`` does then. Raises ``WriteError`` when the file is not as read before the
        swap (nothing written) or was written to during it (swapped back: as the other process left it),
        ``OSError`` otherwise; the temp file is removed in every case.
        """
        made = self._temp(data)
        if made is None:
            return None
        tmp, tfd = made
        new = None
        holds = "new"  # what the temp name holds: the new text, the original (after the swap), nothing
        try:
            new = os.fstat(tfd)
            self.verify()  # the last look before the swap
            try:
                if syscalls.exchange(self.dir, tmp, self.name):
                    holds = "original"
                else:  # no exchange here: a rename, which cannot tell what it replaced
                    os.replace(tmp, self.name, src_dir_fd=self.dir, dst_dir_fd=self.dir)
                    holds = ""
            except OSError as exc:
                if exc.errno in (errno.EBUSY, errno.EXDEV):  # a mount point: written in place instead
                    return None
                if exc.errno == errno.ENOENT:
                    raise WriteError(self.path, GONE) from None
                raise
            if holds == "original":
                out = os.stat(tmp, dir_fd=self.dir, follow_symlinks=False)  # what the swap took out
                if (out.st_dev, out.st_ino) != (self.st.st_dev, self.st.st_ino) \
                        or digest(self.content()) != self.expected.digest:
                    syscalls.exchange(self.dir, tmp, self.name)  # theirs back where it was, ours in the temp
                    holds = "new"
                    raise WriteError(self.path, f"{WRITTEN_MEANWHILE}: it is left as that process left it; "
                                                "run autofix again", unchanged=False)
                os.unlink(tmp, dir_fd=self.dir)
                holds = ""
            else:
                if os.fstat(self.fd).st_nlink > self.linked:  # the rename did not take it out: another name had
                    # replaced it (``keep``'s backup is the name left to it)
                    raise WriteError(self.path, "it was moved or replaced while autofix wrote it: autofix's version "
                                                "took the place of what was there; run autofix again", unchanged=False)
                now = self.content()  # the original, through the descriptor: written to since the last look?
                if digest(now) != self.expected.digest:
                    self._put_back(now)
                    raise WriteError(self.path, f"{WRITTEN_MEANWHILE}: it is put back as that process left it; "
                                                "run autofix again", unchanged=False)
            syscalls.fsync(self.dir)
            return Snapshot(new.st_dev, new.st_ino, digest(data))
        finally:
            os.close(tfd)
            if holds == "original":  # interrupted between the swap and its check (Ctrl-C): undo it
                try:
                    syscalls.exchange(self.dir, tmp, self.name)
                    holds = "new"
                except OSError:
                    pass  # the original stays in the temp file: never removed
            if holds == "new":  # unless another process put something else at that name since
                try:
                    left = os.stat(tmp, dir_fd=self.dir, follow_symlinks=False)
                except FileNotFoundError:
                    left = None
                if left is not None and new is not None and (left.st_dev, left.st_ino) == (new.st_dev, new.st_ino):
                    syscalls.unlink(tmp, self.dir)

    def _temp(self, data: bytes) -> tuple[str, int] | None:
        """A synced temp file next to this one that holds ``data`` and has its owner, mode and extended
        attributes: (name, descriptor); None (nothing left) when a copy cannot keep one of them."""
        tmp = temp_name(self.name)
        tfd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC, 0o600, dir_fd=self.dir)
        try:
            syscalls.write_all(tfd, data)
            st, made = self.st, os.fstat(tfd)
            kept = True
            if (st.st_uid, st.st_gid) != (made.st_uid, made.st_gid):
                try:
                    os.fchown(tfd, st.st_uid, st.st_gid)
                except PermissionError:
                    kept = False
            if kept:
                os.fchmod(tfd, stat.S_IMODE(st.st_mode))  # after fchown, which clears the setuid and setgid bits
                kept = _copy_xattrs(self.fd, tfd)
            if kept:
                os.fsync(tfd)
                return tmp, tfd
        except BaseException:
            os.close(tfd)
            syscalls.unlink(tmp, self.dir)
            raise
        os.close(tfd)
        syscalls.unlink(tmp, self.dir)
        return None

    def _put_back(self, data: bytes) -> None:
        """After a plain rename: give the name back ``data``, another process's version of the file that the
        rename took out (a copy, renamed over ours)."""
        made = self._temp(data)
        if made is None:
            raise WriteError(self.path, f"{WRITTEN_MEANWHILE}, and its version could not be put back "
                                        "(a copy cannot keep its owner); autofix's version is in it", unchanged=False)
        tmp, tfd = made
        os.close(tfd)
        try:
            os.replace(tmp, self.name, src_dir_fd=self.dir, dst_dir_fd=self.dir)
        except BaseException:
            syscalls.unlink(tmp, self.dir)
            raise

    def write_in_place(self, data: bytes) -> Snapshot:
        """Rewrite the file's own bytes with ``data`` (the module docstring says how); the snapshot written.

        Raises ``WriteError`` when another process holds a lock on it or it is not as read (nothing
        written), or when another process wrote to it meanwhile (then left as that process left it: the
        message says how, and names the backup when it is kept); ``OSError`` when the system refuses (the
        original put back, or kept in the backup, which the message names, if even that failed). After
        ``keep``, the backup is the group's: none is made (a hard link becomes a copy first) nor removed.
        """
        fd = self.fd
        self._lock()
        original = self.verify()
        if self.kept is None:
            self._make_backup(original)
        try:
            if self.linked:  # ``keep``'s backup is this very file: a copy takes its place before a byte changes
                self._copy_over_link(original)
            syscalls.reserve(fd, len(data))  # a full disk fails here, before a byte of the file changes
            if self.content() != original:  # the last look
                raise WriteError(self.path, CHANGED)
        except BaseException:
            self._drop_own()
            raise
        shown = self.backup
        try:
            if len(data) > len(original):
                self._lengthen(len(original), len(data))
            syscalls.pwrite_all(fd, data + b"\n" * (len(original) - len(data)))
            if len(data) < len(original) and not self._shorten(original, len(data)):
                os.fsync(fd)
                self._drop_own()
                raise WriteError(self.path, f"{WRITTEN_MEANWHILE}: it is put back as that process left it; run "
                                            "autofix again", unchanged=False)
            os.fsync(fd)
        except _AppendedFirst as exc:  # nothing of the file changed but the newlines after the other's bytes
            self._drop_own()
            raise WriteError(self.path, f"{WRITTEN_MEANWHILE}: it is left as that process left it, with the "
                                        f"{exc.count} blank line{'s' * (exc.count != 1)} autofix had added at its "
                                        "end; run autofix again", unchanged=False) from None
        except WriteError:
            raise
        except BaseException as exc:  # a full disk, or a signal (SIGINT, SIGTERM) in the middle
            try:
                syscalls.pwrite_all(fd, original)
                os.ftruncate(fd, len(original))
                os.fsync(fd)
            except OSError:
                self.held = True
                if isinstance(exc, OSError):
                    raise OSError(exc.errno, f"{exc.strerror or exc}; the original is kept in {shown}") from None
                raise
            self._drop_own()
            raise
        if self.content()[:len(data)] != data:  # bytes another process wrote over the new text
            self.held = True
            raise WriteError(self.path, f"{WRITTEN_MEANWHILE}: it is left as that process left it, and the "
                                        f"original is kept in {shown}: compare the two, then delete the backup",
                             unchanged=False)
        syscalls.restore_mode(fd, stat.S_IMODE(self.st.st_mode))
        self._drop_own()
        return Snapshot(self.st.st_dev, self.st.st_ino, digest(data))

    def _lock(self) -> None:
        """Take the file's advisory lock (``flock``). Raises ``WriteError`` when another process holds it."""
        import fcntl

        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise WriteError(self.path, LOCKED) from None
        except OSError:  # a file system without flock (some NFS): unlocked, as any writer that takes no lock
            self.locked = None
        else:
            self.locked = False  # by no other process

    def _make_backup(self, original: bytes) -> tuple[int, int]:
        """Keep ``original`` in a synced backup next to the file, locked (``flock``) until ``close``, and name it
        in the file's ``MARK`` when the file has other names (another directory's walk cannot see it). Its
        (device, inode). Raises ``WriteError`` when a backup is there (nothing made), ``OSError`` (nothing left)."""
        name = backup_name(self.name)
        try:
            bfd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC, 0o600, dir_fd=self.dir)
        except FileExistsError:  # since the look when it was opened
            raise WriteError(self.path, backup_left(self.backup, running(self.locked, self.backup))) from None
        try:
            _hold(bfd)
            syscalls.write_all(bfd, original)
            os.fsync(bfd)
            made = os.fstat(bfd)
            syscalls.fsync(self.dir)
            if self.st.st_nlink > 1:
                self._mark()
        except BaseException:
            os.close(bfd)
            self._unmark()
            syscalls.unlink(name, self.dir)
            raise
        self.bfd = bfd
        return made.st_dev, made.st_ino

    def _copy_over_link(self, original: bytes) -> None:
        """Make ``keep``'s backup, a hard link to this file, a copy of ``original`` (a rename over it: the
        backup holds the original all along), locked as ``_make_backup``'s, before the file is written in
        place."""
        tmp = temp_name(self.name)
        tfd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC, 0o600, dir_fd=self.dir)
        try:
            _hold(tfd)
            syscalls.write_all(tfd, original)
            os.fsync(tfd)
            made = os.fstat(tfd)
            os.replace(tmp, backup_name(self.name), src_dir_fd=self.dir, dst_dir_fd=self.dir)
        except BaseException:
            os.close(tfd)
            syscalls.unlink(tmp, self.dir)
            raise
        syscalls.fsync(self.dir)
        self.bfd = tfd
        self.kept, self.linked = (made.st_dev, made.st_ino), False

    def _drop_own(self) -> None:
        """Remove the backup this write made (not a group's: ``drop`` removes that)."""
        if self.kept is None:
            self._unmark()
            syscalls.unlink(backup_name(self.name), self.dir)

    def _mark(self) -> None:
        """Name the backup in the file's extended attribute ``MARK`` (best effort: a file system without them)."""
        try:
            os.setxattr(self.fd, MARK, os.fsencode(self.backup))
        except (OSError, AttributeError):  # (os has no setxattr on macOS)
            return
        self.marked = True

    def _unmark(self) -> None:
        if self.marked:
            try:
                os.removexattr(self.fd, MARK)
            except OSError:
                pass
            self.marked = False

    def _lengthen(self, size: int, to: int) -> None:
        """Append newlines to the file of ``size`` bytes up to ``to`` bytes. Raises ``_AppendedFirst`` when
        another process appended since the last look (its bytes are then before the newlines)."""
        import fcntl

        flags = fcntl.fcntl(self.fd, fcntl.F_GETFL)
        fcntl.fcntl(self.fd, fcntl.F_SETFL, flags | os.O_APPEND)
        try:
            syscalls.write_all(self.fd, b"\n" * (to - size))
        finally:
            fcntl.fcntl(self.fd, fcntl.F_SETFL, flags)
        if os.lseek(self.fd, 0, os.SEEK_CUR) != to:  # where this append ended: after another one
            raise _AppendedFirst(to - size)

    def _shorten(self, original: bytes, size: int) -> bool:
        """Cut the file (the new text padded to the length of ``original``) to ``size`` bytes; False, with
        ``original`` written back instead, when another process has appended to it since the write."""
        if os.fstat(self.fd).st_size != len(original):
            syscalls.pwrite_all(self.fd, original)  # before the other's bytes: the file as that process left it
            return False
        os.ftruncate(self.fd, size)  # an append between the look at the size and this cut is lost: the window left
        return True


class _AppendedFirst(Exception):
    """Another process appended to the file between the last look and the newlines appended to lengthen it."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.count = count


def _hold(fd: int) -> None:
    """Lock the backup ``fd`` (``flock``), for as long as it is open: another run that finds it can tell a
    running write's backup from an interrupted one's (``backups.running``). Best effort."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pass


def _opening_error(exc: OSError) -> str:
    if exc.errno == errno.ENOENT:
        return GONE
    if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink: the file was swapped for one
        return REPLACED
    if exc.errno in (errno.EACCES, errno.EPERM):
        return PROTECTED
    return f"cannot write: {exc.strerror or exc}"


def _copy_xattrs(source: int, dest: int) -> bool:
    """Give the file ``dest`` every extended attribute of the file ``source``; False when one cannot be set."""
    try:
        names = os.listxattr(source)
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return True  # the file system has none
        raise
    for name in names:
        try:
            if name != MARK:  # which names a backup of this file, not of the copy
                os.setxattr(dest, name, os.getxattr(source, name))
        except OSError:
            return False  # e.g. security.* as an unprivileged user
    return True
