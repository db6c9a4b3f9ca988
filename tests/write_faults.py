"""Faults injected into autofix's write path at each point between its system calls, and what must hold.

``Steps`` wraps the functions ``files.FileSet.write`` reaches the system through (``os``'s, ``fcntl``'s and
``syscalls.exchange``/``reserve``) and counts their calls; before call number ``at`` it does ``action``
once: what another process could do at that moment. ``run(case, action, at)`` does one write of
``case.original`` -> ``case.fixed`` in a fresh directory with one such fault, and ``check`` raises
``AssertionError`` unless what must hold holds:

* ``append`` (another process appends a line, open/append/close): the line is never lost with the write
  reported done: written, the file is the fixed text and the line; refused, the original and the line
  (and, when the in-place write had lengthened the file first, its newlines after the line). The one
  exception is the window ``writes`` names: an in-place write of a shorter text, between its look at the
  size and the cut (``WINDOW``); ``check`` returns True when the line was lost there.
* ``symlink`` (the path is moved aside and a symlink to another file put there: a ``git checkout``) and
  ``directory`` (its directory is moved aside and a symlink to another directory put there): the other
  file is never written; the file read (wherever it is now) is the fixed text if the write says so, else
  the original.
* ``term`` (SIGTERM sent there, with the handler ``autofix.cli.main`` installs): the run stops (``SystemExit``),
  the file is the original or the fixed text, nothing left next to it.
* ``kill`` (SIGKILL: the process ends there, nothing runs after; a forked child): the file is the original
  or the fixed text, either perhaps with newlines after it, and is something else than the original or the
  fixed text only while the backup is next to it; whatever is left next to it (a backup, a temp file) is
  named by the next walk, and a backup keeps the next ``--write`` off the file.

* ``look`` (another autofix run looks at the file there: what it says of a backup next to it, walking or
  writing): it never calls the backup an interrupted write's (to be deleted), while the write runs.

Nothing may be left next to the file but by ``kill``. ``kinds``: ``rename`` (one link), ``rename-plain``
(a system without ``RENAME_EXCHANGE``), ``links`` (a hard link: in place), ``busy`` (the rename refused with
``EBUSY``, as for a bind-mounted file: in place).

``run_group`` does the same for a group (``files.FileSet.write_all``: a ``--config`` file ``c.yaml`` and its
script ``r.sh``, written all or none), ``GROUP_ACTIONS`` at each point, ``fails``: the script is appended to
as its write starts, so the config file already written is put back. ``kill``: both files as read (the
script perhaps with the line appended) or both written, or else a backup holding what was read next to
EACH file (a half-written file never without its own), each named by the next walk as an interrupted
write's and keeping ``--write`` off its file; ``term``: both or neither written, nothing left; ``append``
(to the script) and ``append-first`` (to the config file): written, the line is kept; refused, both are as
read and the line kept; ``look`` as above. ``GROUP_KINDS`` adds ``mixed`` (the config file has a hard link,
the script not).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path

from autofix.common.errors import InputError, WriteError
from autofix.disk import files, syscalls, writes
from autofix.disk.backups import BACKUP_SUFFIX, backup_name, left_beside, left_note
from autofix.disk.walk import expand

KINDS = ("rename", "rename-plain", "links", "busy")
ACTIONS = ("append", "symlink", "directory", "term", "kill", "look")
GROUP_KINDS = (*KINDS, "mixed")
GROUP_ACTIONS = ("kill", "term", "append", "append-first", "look")
LINE = b"port: 30000\n"
OTHER = b"tp-size: 2\n"  # the file a swapped-in symlink leads to: never written
WINDOW = "ftruncate"  # in place, a shorter text: an append just before the cut is lost (module docstring)

_OS = ("open", "close", "read", "write", "pread", "pwrite", "fstat", "stat", "lstat", "fsync", "ftruncate",
       "replace", "rename", "unlink", "link", "fchmod", "fchown", "listxattr", "getxattr", "setxattr", "removexattr",
       "scandir", "lseek", "readlink")
SECOND = b"#!/bin/sh\nserve --config c.yaml --enable-dp-attention\n"  # a group's script, as read
SECOND_FIXED = "#!/bin/sh\nserve --config c.yaml --attn-dp-size 8\n"


class Steps:
    """A context: count the system calls of the write path (``calls``: their names, in order); before call
    number ``at`` (or at the end, when there are no more) do ``action`` once. ``fsync`` is counted but not
    made (it changes nothing a test can see, and costs milliseconds)."""

    def __init__(self, at: int | None = None, action=None) -> None:
        self.at, self.action = at, action
        self.calls: list[str] = []
        self.done = False
        self._saved: list[tuple[object, str, object]] = []
        self._busy = False

    def _fire(self) -> None:
        if not self.done and self.action is not None:
            self.done = True
            self.aside(self.action)

    def aside(self, what) -> None:
        """Do ``what`` (another process's doing) without counting its system calls."""
        busy, self._busy = self._busy, True
        try:
            what()
        finally:
            self._busy = busy

    def _wrap(self, owner, name: str, real):
        def counted(*args, **kwargs):
            if self._busy:
                return real(*args, **kwargs)
            if len(self.calls) == self.at:
                self._fire()
            self.calls.append(name)
            if name == "fsync":
                return None
            return real(*args, **kwargs)
        return counted

    def __enter__(self) -> Steps:
        for owner, names in ((os, _OS), (fcntl, ("flock", "fcntl")), (syscalls, ("exchange", "reserve"))):
            for name in names:
                real = getattr(owner, name)
                self._saved.append((owner, name, real))
                setattr(owner, name, self._wrap(owner, name, real))
        return self

    def __exit__(self, kind, exc, tb) -> None:
        for owner, name, real in reversed(self._saved):
            setattr(owner, name, real)
        if kind is None and self.at is not None:
            self._fire()  # after the last call: the write is done


@dataclass(frozen=True)
class Case:
    original: bytes
    fixed: str
    kind: str


@dataclass
class Scene:
    """One write's directory: ``root/d/sub/c.yaml`` (the file), ``root/d/o.yaml`` and ``root/d/other/c.yaml``
    (what the swaps lead to), ``root/d/link.yaml`` (its hard link, kind ``links``)."""

    root: Path
    case: Case

    @property
    def path(self) -> Path:
        return self.root / "d" / "sub" / "c.yaml"

    def make(self) -> files.FileSet:
        sub, other = self.root / "d" / "sub", self.root / "d" / "other"
        sub.mkdir(parents=True)
        other.mkdir()
        self.path.write_bytes(self.case.original)
        (self.root / "d" / "o.yaml").write_bytes(OTHER)
        (other / "c.yaml").write_bytes(OTHER)
        if self.case.kind == "links":
            os.link(self.path, self.root / "d" / "link.yaml")
        disk = files.FileSet()
        disk.read(str(self.path))
        return disk

    def act(self, action: str) -> None:
        """Do ``action`` as another process would (``kill`` and ``term`` end this one)."""
        d = self.root / "d"
        if action == "append":
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            os.write(fd, LINE)
            os.close(fd)
        elif action == "symlink":
            os.rename(self.path, d / "sub" / "aside.yaml")
            os.symlink(d / "o.yaml", self.path)
        elif action == "directory":
            os.rename(d / "sub", d / "sub.old")
            os.symlink(d / "other", d / "sub")
        elif action == "term":  # the handler autofix.cli.main installs raises SystemExit(143)
            os.kill(os.getpid(), signal.SIGTERM)
        elif action == "kill":
            os._exit(137)
        elif action == "look":
            look([self.path], self.root / "d")

    def read_file(self, action: str | None) -> Path:
        """Where the file that was read is now (after ``action``)."""
        d = self.root / "d"
        if action == "symlink" and (d / "sub" / "aside.yaml").exists():
            return d / "sub" / "aside.yaml"
        if action == "directory" and (d / "sub.old").exists():
            return d / "sub.old" / "c.yaml"
        return self.path


def _patched(kind: str):
    """What ``kind`` changes of ``writes`` (a context)."""
    saved = syscalls.exchange

    class Patch:
        def __enter__(self):
            if kind == "rename-plain":
                syscalls.exchange = lambda dir_fd, a, b: False
            elif kind == "busy":
                def busy(dir_fd, a, b):
                    raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), b)
                syscalls.exchange = busy

        def __exit__(self, *exc):
            syscalls.exchange = saved
    return Patch()


def count(case: Case) -> list[str]:
    """The system calls of the write of ``case`` with no fault, in order."""
    root = Path(tempfile.mkdtemp(prefix="autofix-faults-"))
    try:
        scene = Scene(root, case)
        disk = scene.make()
        with _patched(case.kind), Steps() as steps:
            disk.write(str(scene.path), case.fixed)
        return steps.calls
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run(case: Case, action: str, at: int, calls: list[str]) -> bool:
    """One write of ``case`` with ``action`` before system call ``at`` (of ``calls``, ``count(case)``), checked.

    Returns True when the write lost an appended line in the window the docs name; raises
    ``AssertionError`` on a breach.
    """
    root = Path(tempfile.mkdtemp(prefix="autofix-faults-"))
    try:
        scene = Scene(root, case)
        disk = scene.make()
        if action == "kill":
            return _killed(scene, disk, at)
        outcome: object = "written"
        before = signal.signal(signal.SIGTERM, _terminated)
        try:
            with _patched(case.kind), Steps(at, lambda: scene.act(action)):
                disk.write(str(scene.path), case.fixed)
        except (WriteError, SystemExit) as exc:
            outcome = exc
        finally:
            signal.signal(signal.SIGTERM, before)
        return _check(scene, action, outcome, calls[at] if at < len(calls) else None)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _terminated(signum, frame):
    raise SystemExit(128 + signum)


def _check(scene: Scene, action: str, outcome: object, before: str | None) -> bool:
    case = scene.case
    original, fixed = case.original, case.fixed.encode("utf-8")
    where = scene.read_file(action)
    got = where.read_bytes()
    what = f"{action} before {before} ({case.kind}): {outcome!r}\n{got!r}"
    assert (scene.root / "d" / "o.yaml").read_bytes() == OTHER, f"another file was written: {what}"
    assert (scene.root / "d" / "other" / "c.yaml").read_bytes() == OTHER, f"another file was written: {what}"
    if action == "term":
        assert isinstance(outcome, SystemExit), f"SIGTERM lost: {what}"
        assert got in (original, fixed), f"a half write: {what}"
    elif action == "append":
        if outcome == "written":
            if got == fixed and before == WINDOW and case.kind in ("links", "busy") and len(fixed) < len(original):
                _no_leftovers(where, what)
                return True  # the window left: lost, and the test says where
            assert got == fixed + LINE, f"an append lost, the write reported done: {what}"
        else:
            assert isinstance(outcome, WriteError), what
            pad = b"\n" * max(len(fixed) - len(original), 0)
            assert got in (original + LINE, original + LINE + pad), f"refused, but not as the appender left it: {what}"
    elif outcome == "written":
        assert got == fixed, f"the write reported done: {what}"
    else:
        assert isinstance(outcome, WriteError), what
        assert got == original, f"refused, but the file changed: {what}"
    _no_leftovers(where, what)
    return False


def _no_leftovers(where: Path, what: str) -> None:
    left = sorted(p.name for p in where.parent.iterdir() if ".autofix" in p.name)
    assert not left, f"left next to the file: {left}: {what}"


def _killed(scene: Scene, disk: files.FileSet, at: int) -> bool:
    """The write killed before call ``at`` (in a forked child), and what it leaves checked."""
    case = scene.case
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            with _patched(case.kind), Steps(at, lambda: scene.act("kill")):
                disk.write(str(scene.path), case.fixed)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    original, fixed = case.original, case.fixed.encode("utf-8")
    got = scene.path.read_bytes()
    directory = scene.path.parent
    backup = directory / backup_name("c.yaml")
    left = sorted(p.name for p in directory.iterdir() if ".autofix" in p.name)
    what = f"killed at call {at} ({case.kind}): {got!r}, left {left}"
    grown = original + b"\n" * (len(fixed) - len(original))
    shrunk = fixed + b"\n" * (len(original) - len(fixed))
    assert got in (original, fixed, grown, shrunk), f"a kill left a file that is neither text: {what}"
    if got not in (original, fixed):
        assert backup.exists(), f"a kill left a padded file with no backup: {what}"
    if backup.exists():
        assert original.startswith(backup.read_bytes()), what
    notes: list[str] = []
    list(expand([str(scene.root / "d")], note=notes.append))
    for name in left:
        assert any(str(directory / name) in n for n in notes), f"the next walk does not name {name}: {notes}"
    assert not any("or running" in n for n in notes), notes  # the write is over: it can tell
    if backup.exists():  # and the next --write leaves the file alone
        again = files.FileSet()
        again.read(str(scene.path))
        try:
            again.write(str(scene.path), case.fixed)
        except WriteError as exc:
            assert "a backup of an interrupted autofix write" in exc.message, exc.message
        else:
            raise AssertionError(f"--write wrote a file with a backup next to it: {what}")
    return False


def look(paths: list[Path], tree: Path) -> None:
    """Another autofix run looks at ``paths`` while they are written: a walk of ``tree``, the backup next to each
    (as for a named file) and a write's check. Raises ``AssertionError`` if one calls a backup an interrupted
    write's."""
    notes: list[str] = []
    list(expand([str(tree)], note=notes.append))
    for path in paths:
        backup = left_beside(str(path))
        if backup is not None:
            notes.append(left_note(str(path), backup))
        disk = files.FileSet()
        try:
            disk.read(str(path))
            disk.check(str(path))
        except (WriteError, InputError) as exc:
            notes.append(str(exc))
    said = [n for n in notes if "backup" in n]
    assert not any("interrupted" in n or "delete" in n for n in said), f"a running write's backup: {said}"


@dataclass(frozen=True)
class GroupCase:
    original: bytes  # the config file's (the script's is SECOND -> SECOND_FIXED)
    fixed: str
    kind: str
    fails: bool = False  # the script is appended to as its write starts: the config file is put back


@dataclass
class GroupScene:
    """One group write's directory: ``root/d/sub/c.yaml`` and ``root/d/sub/r.sh``, with hard links
    ``root/d/link.yaml`` (kinds ``links``, ``mixed``) and ``root/d/link.sh`` (``links``)."""

    root: Path
    case: GroupCase

    @property
    def paths(self) -> tuple[Path, Path]:
        return self.root / "d" / "sub" / "c.yaml", self.root / "d" / "sub" / "r.sh"

    def texts(self) -> list[tuple[str, str]]:
        return [(str(self.paths[0]), self.case.fixed), (str(self.paths[1]), SECOND_FIXED)]

    def originals(self) -> tuple[bytes, bytes]:
        return self.case.original, SECOND

    def fixed(self) -> tuple[bytes, bytes]:
        return self.case.fixed.encode("utf-8"), SECOND_FIXED.encode("utf-8")

    def in_place(self, i: int) -> bool:
        return self.case.kind in ("links", "busy") or (self.case.kind == "mixed" and i == 0)

    def make(self) -> files.FileSet:
        (self.root / "d" / "sub").mkdir(parents=True)
        for path, data in zip(self.paths, self.originals()):
            path.write_bytes(data)
        if self.case.kind in ("links", "mixed"):
            os.link(self.paths[0], self.root / "d" / "link.yaml")
        if self.case.kind == "links":
            os.link(self.paths[1], self.root / "d" / "link.sh")
        disk = files.FileSet()
        for path in self.paths:
            disk.read(str(path))
        return disk

    def act(self, action: str) -> None:
        if action in ("append", "append-first"):
            fd = os.open(self.paths[action == "append"], os.O_WRONLY | os.O_APPEND)
            os.write(fd, LINE)
            os.close(fd)
        elif action == "look":
            look(list(self.paths), self.root / "d")
        elif action == "term":
            os.kill(os.getpid(), signal.SIGTERM)
        elif action == "kill":
            os._exit(137)

    @contextlib.contextmanager
    def failing(self, steps: Steps):
        """With ``case.fails``: the script is appended to (uncounted) as its write starts."""
        if not self.case.fails:
            yield
            return
        real, script = writes.Target.write, str(self.paths[1])

        def write(target, data):
            if target.path == script:
                steps.aside(lambda: self.act("append"))
            return real(target, data)

        writes.Target.write = write
        try:
            yield
        finally:
            writes.Target.write = real


def count_group(case: GroupCase) -> list[str]:
    """The system calls of the group write of ``case`` with no fault, in order."""
    root = Path(tempfile.mkdtemp(prefix="autofix-faults-"))
    try:
        scene = GroupScene(root, case)
        disk = scene.make()
        with _patched(case.kind), Steps() as steps, scene.failing(steps):
            failed = disk.write_all(scene.texts())
        assert bool(failed) == case.fails, failed
        return steps.calls
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run_group(case: GroupCase, action: str, at: int, calls: list[str]) -> int | None:
    """One group write of ``case`` with ``action`` before system call ``at`` (of ``calls``, ``count_group``),
    checked. Returns the index of the file that lost an appended line in the window the docs name, else None;
    raises ``AssertionError`` on a breach."""
    root = Path(tempfile.mkdtemp(prefix="autofix-faults-"))
    try:
        scene = GroupScene(root, case)
        disk = scene.make()
        if action == "kill":
            _group_killed(scene, disk, at)
            return None
        outcome: object = "written"
        before = signal.signal(signal.SIGTERM, _terminated)
        try:
            with _patched(case.kind), Steps(at, lambda: scene.act(action)) as steps, scene.failing(steps):
                failed = disk.write_all(scene.texts())
            if failed:
                outcome = failed
        except SystemExit as exc:
            outcome = exc
        finally:
            signal.signal(signal.SIGTERM, before)
        return _group_check(scene, action, outcome, calls[at] if at < len(calls) else None)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _group_check(scene: GroupScene, action: str, outcome: object, before: str | None) -> int | None:
    (o1, o2), (f1, f2) = scene.originals(), scene.fixed()
    got = tuple(p.read_bytes() for p in scene.paths)
    what = f"{action} before {before} ({scene.case}): {outcome!r}\n{got!r}"
    refused = (o1, o2 + LINE) if scene.case.fails else (o1, o2)  # as read (and as the appender left the script)
    window = None
    if action == "term":
        assert isinstance(outcome, SystemExit), f"SIGTERM lost: {what}"
        assert got in ((f1, f2), refused), f"a half-written group: {what}"
    elif action in ("append", "append-first"):
        a = 1 if action == "append" else 0
        if outcome == "written":
            expected = [f1, f2]
            expected[a] += LINE
            if got != tuple(expected) and before == WINDOW and scene.in_place(a) \
                    and len(scene.fixed()[a]) < len(scene.originals()[a]) and got == (f1, f2):
                window = a  # the window left: lost, and the test says where
            else:
                assert got == tuple(expected), f"an append lost, the group reported written: {what}"
        else:
            assert isinstance(outcome, list) and len(outcome) == 1, f"a file not put back: {what}"
            pad = b"\n" * max(len(scene.fixed()[a]) - len(scene.originals()[a]), 0)
            for line in (LINE, LINE + pad):
                expected = [o1, o2]
                expected[a] += line
                if got == tuple(expected):
                    break
            else:
                raise AssertionError(f"refused, but not as read and as the appender left it: {what}")
    elif scene.case.fails:
        assert isinstance(outcome, list) and len(outcome) == 1 and "changed" in outcome[0].message, what
        assert got == refused, f"refused, but the other file not put back: {what}"
    else:
        assert outcome == "written" and got == (f1, f2), what
    for path in scene.paths:
        _no_leftovers(path, what)
    return window


def _group_killed(scene: GroupScene, disk: files.FileSet, at: int) -> None:
    """The group write killed before call ``at`` (in a forked child), and what it leaves checked."""
    case = scene.case
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            with _patched(case.kind), Steps(at, lambda: scene.act("kill")) as steps, scene.failing(steps):
                disk.write_all(scene.texts())
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    originals, fixed = scene.originals(), scene.fixed()
    got = [p.read_bytes() for p in scene.paths]
    backups = [p.parent / backup_name(p.name) for p in scene.paths]
    kept = [b.read_bytes() if b.exists() else None for b in backups]
    left = sorted(p.name for p in scene.paths[0].parent.iterdir() if ".autofix" in p.name)
    what = f"killed at call {at} ({case}): {got!r}, left {left}"
    states = []
    for i, (data, original, new) in enumerate(zip(got, originals, fixed)):
        read = (original, original + LINE) if case.fails and i == 1 else (original,)
        padded = (original + b"\n" * (len(new) - len(original)), new + b"\n" * (len(original) - len(new)))
        assert data in (*read, new, *padded), f"a kill left a file that is neither text: {what}"
        states.append("read" if data in read else "written" if data == new else "half")
        if states[-1] == "half":
            assert kept[i] is not None, f"a kill left a padded file with no backup: {what}"
    if len(set(states)) > 1 or "half" in states:  # the group half written: each file's backup is next to it
        for i, backup in enumerate(kept):
            read = (originals[i], originals[i] + LINE) if case.fails and i == 1 else (originals[i],)
            assert backup in read, f"the group half written, {scene.paths[i].name} without its backup: {what}"
    notes: list[str] = []
    list(expand([str(scene.root / "d")], note=notes.append))
    for name in left:
        named = [n for n in notes if str(scene.paths[0].parent / name) in n]
        assert named, f"the next walk does not name {name}: {notes}"
        if name.endswith(BACKUP_SUFFIX):
            assert "interrupted autofix write" in named[0] and "or running" not in named[0], named
    for path, backup in zip(scene.paths, backups):
        assert (left_beside(str(path)) is not None) == backup.exists(), what  # a run naming the file
        if backup.exists():  # and the next --write leaves the file alone
            again = files.FileSet()
            again.read(str(path))
            try:
                again.write(str(path), path.read_text() + "# again\n")
            except WriteError as exc:
                assert "a backup of an interrupted autofix write" in exc.message, exc.message
            else:
                raise AssertionError(f"--write wrote a file with a backup next to it: {what}")
