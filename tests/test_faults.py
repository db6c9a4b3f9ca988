"""Bad input and faults, as a new user meets them: nothing lost, nothing hangs, nothing crashes.

Each test names the case it covers. The command line runs in-process
(``CliRunner``) except where a real process matters (a FIFO with a writer,
an unprivileged user), which runs ``python -m autofix`` in a subprocess.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

import autofix.cli.one_file
import autofix.cli.run_options
import autofix.cli.runner
import autofix.core.api
from autofix.cli.commands import app
from autofix.cli.runner import Mode
from autofix.common.errors import WriteError
from autofix.common.limits import MAX_BYTES
from autofix.disk import files
from tests import write_faults

BAD = "tp-size: 8\nmoe-a2a-backend: none\nep-dispatch-algorithm: static\n"
GOOD = BAD.replace("static", "dynamic")
LAUNCH = "python3 -m sglang.launch_server --model-path m --tp 8 --ep-dispatch-algorithm static\n"
ROOT = Path(__file__).resolve().parent.parent


def run(*args, input=None):
    return CliRunner().invoke(app, list(args), input=input, prog_name="autofix")


def in_a_process(*args, timeout=30, **kw):
    """Run the command in a real process (``python -m autofix``)."""
    return subprocess.run([sys.executable, "-m", "autofix", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=kw.pop("cwd", None), env={**os.environ, "PYTHONPATH": str(ROOT)}, **kw)


# --- --write: refuse a file that changed, keep what makes it the same file --------------------------------------

def test_write_refuses_a_file_that_changed_since_it_was_read(tmp_path, monkeypatch):
    p = tmp_path / "c.yaml"
    p.write_text(BAD)
    real = autofix.core.api.fix_source

    def meanwhile(*args, **kwargs):  # another process appends a line while autofix works
        result = real(*args, **kwargs)
        with open(p, "a") as f:
            f.write("port: 30000\n")
        return result

    monkeypatch.setattr(autofix.cli.run_options, "fix_source", meanwhile)
    r = run(str(p), "--write")
    assert r.exit_code == 2
    assert p.read_text() == BAD + "port: 30000\n"  # the other process's line is kept, nothing of ours written
    assert f"{p}:1:1: error: not written: it changed since autofix read it" in r.stderr
    assert "Fixed" not in r.stderr.replace("Fixed 0", "")


def test_file_set_refuses_a_replaced_file(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text(BAD)
    disk = files.FileSet()
    disk.read(str(p))
    tmp = tmp_path / "new"
    tmp.write_text(BAD)  # same bytes, another file (an editor's save)
    os.replace(tmp, p)
    with pytest.raises(WriteError, match="replaced since autofix read it"):
        disk.write(str(p), GOOD)
    assert p.read_text() == BAD


def test_write_refuses_a_write_protected_file(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text(BAD)
    p.chmod(0o444)
    r = run(str(p), "--write")
    assert r.exit_code == 2
    assert p.read_text() == BAD and stat.S_IMODE(p.stat().st_mode) == 0o444
    assert "not written: the file is write-protected; the file is unchanged" in r.stderr
    assert "Fixed 0 in 0 files; 1 remaining. 1 file could not be written." in r.stderr


# --- issue 29: a write re-verifies at the last moment, and writes only the file read under that path ------------

def test_a_line_appended_while_the_backup_is_synced_is_kept_and_the_file_not_written(tmp_path, monkeypatch):
    # case 1: an in-place write (a hard link) looked at the file, synced its backup for a while, then overwrote
    # what another process had appended meanwhile, and said "Fixed", exit 0
    p, q = tmp_path / "cfg.yaml", tmp_path / "l.yaml"
    p.write_text(BAD)
    os.link(p, q)
    real, calls = os.fsync, []

    def slow_sync(fd):  # the first fsync is the backup's (strace -e inject=fsync:delay_exit=... in the issue)
        calls.append(fd)
        if len(calls) == 1:
            with open(p, "a") as f:
                f.write("port: 30000\n")
        return real(fd)

    monkeypatch.setattr(os, "fsync", slow_sync)
    r = run(str(p), "--write")
    assert p.read_text() == BAD + "port: 30000\n" == q.read_text()
    assert r.exit_code == 2 and f"{p}:1:1: error: not written: it changed since autofix read it" in r.stderr
    assert "Fixed" not in r.stderr.replace("Fixed 0", "")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["cfg.yaml", "l.yaml"]


def _swap_after_read(monkeypatch, name: str, swap) -> None:
    """Call ``swap()`` once the file ``name`` is read and checked, before its fix is written."""
    real = autofix.core.api.fix_source

    def checked(text, fmt, *, path, **kwargs):
        result = real(text, fmt, path=path, **kwargs)
        if path == name:
            swap()
        return result

    monkeypatch.setattr(autofix.cli.run_options, "fix_source", checked)


@pytest.mark.parametrize("how", ["symlink", "directory"])
def test_a_path_swapped_for_a_symlink_after_it_was_read_is_not_written_through(tmp_path, monkeypatch, how):
    # case 2: after 1.yaml is written, 2.yaml (or its directory) is swapped for a symlink to 1.yaml (a git
    # checkout can do this): 1.yaml got 2.yaml's fixed text, exit 0
    one, two = tmp_path / "a" / "c.yaml", tmp_path / "b" / "c.yaml"
    for p, tp in ((one, 8), (two, 4)):
        p.parent.mkdir()
        p.write_text(BAD.replace("tp-size: 8", f"tp-size: {tp}"))

    def swap():
        if how == "symlink":
            os.rename(two, tmp_path / "b" / "x.yaml")
            os.symlink(one, two)
        else:
            os.rename(tmp_path / "b", tmp_path / "b.old")
            os.symlink(tmp_path / "a", tmp_path / "b")

    _swap_after_read(monkeypatch, str(two), swap)
    r = run(str(one), str(two), "--write")
    assert one.read_text() == GOOD  # its own fix, not 2's
    aside = tmp_path / "b" / "x.yaml" if how == "symlink" else tmp_path / "b.old" / "c.yaml"
    assert aside.read_text() == BAD.replace("tp-size: 8", "tp-size: 4")
    assert r.exit_code == 2
    assert f"{two}:1:1: error: not written: it was replaced since autofix read it" in r.stderr


def test_a_path_swapped_while_a_worker_checked_it_is_not_written_through(tmp_path, monkeypatch):
    # case 2 with -j: the real path a worker read is the one the main process's write must still find
    from autofix.cli import workers

    monkeypatch.setattr(workers, "PARALLEL_FROM", 2)
    monkeypatch.setattr(workers, "CHUNK", 1)
    one, two = tmp_path / "1.yaml", tmp_path / "2.yaml"
    one.write_text(BAD)
    two.write_text(BAD.replace("tp-size: 8", "tp-size: 4"))
    real = autofix.cli.one_file.OneFile._adopt

    def adopt(self, ready):
        if str(two) in ready.reals:  # read by a worker; 1.yaml is written: now the swap
            os.rename(two, tmp_path / "x.yaml")
            os.symlink(one, two)
        return real(self, ready)

    monkeypatch.setattr(autofix.cli.one_file.OneFile, "_adopt", adopt)
    out, err = io.StringIO(), io.StringIO()
    rep = autofix.cli.runner.run([str(one), str(two)], Mode.WRITE, out=out, err=err, jobs=2)
    assert one.read_text() == GOOD and (tmp_path / "x.yaml").read_text() == BAD.replace("tp-size: 8", "tp-size: 4")
    assert rep.exit_code == 2 and "2.yaml:1:1: error: not written: it was replaced" in err.getvalue()


def _killed_writing_in_place(p: Path) -> None:
    """Read ``p`` (a file with a hard link: written in place) and fix it to ``GOOD`` in a forked child that dies,
    as a SIGKILL would, right as the new text is about to be written (its ``pwrite``)."""
    disk = files.FileSet()
    disk.read(str(p))
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.pwrite = lambda *args: os._exit(137)
            disk.write(str(p), GOOD)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def test_a_kill_during_an_in_place_write_leaves_no_zeros_and_a_named_backup(tmp_path):
    # case 3: posix_fallocate grew the file before pwrite; a kill in between left a trailing NUL (invalid
    # YAML) and a .autofix-backup that the next run never mentioned
    p, q = tmp_path / "cfg.yaml", tmp_path / "l.yaml"
    p.write_text(BAD)
    os.link(p, q)
    _killed_writing_in_place(p)
    data = p.read_bytes()
    assert b"\0" not in data and data in (BAD.encode(), BAD.encode() + b"\n", GOOD.encode())
    backups = [x.name for x in tmp_path.iterdir() if x.name.endswith(".autofix-backup")]
    assert backups == [".cfg.yaml.autofix-backup"]
    r = run(str(tmp_path))
    assert (f"{p}:1:1: warning: a backup of an interrupted autofix write is next to it "
            f"({tmp_path}/.cfg.yaml.autofix-backup): compare the two, then delete the backup") in r.stderr
    r = run(str(p), "--write")
    assert r.exit_code == 2 and p.read_bytes() == data
    assert (f"{p}:1:1: error: not written: a backup of an interrupted autofix write is next to it "
            f"({tmp_path}/.cfg.yaml.autofix-backup)") in r.stderr
    os.unlink(tmp_path / backups[0])  # compared, deleted: written now
    assert run(str(p), "--write").exit_code == 0
    assert p.read_bytes() == q.read_bytes() == data.replace(b"static", b"dynamic")


def test_a_backup_next_to_another_name_of_the_file_keeps_write_off_it_too(tmp_path):
    p, q = tmp_path / "cfg.yaml", tmp_path / "l.yaml"
    p.write_text(BAD)
    os.link(p, q)
    (tmp_path / ".cfg.yaml.autofix-backup").write_text(BAD)
    r = run(str(q), "--write")
    assert r.exit_code == 2 and ".cfg.yaml.autofix-backup" in r.stderr and p.read_text() == BAD


def test_a_backup_next_to_a_named_file_or_a_config_file_is_named_once(project):
    # issue 29: `autofix cfg.yaml` said nothing of the backup a kill left next to it, and `autofix cfg.yaml
    # --write`, the file already fixed when the kill came, said "All checks passed!" with the backup still there
    (project / "cfg.yaml").write_text(GOOD)
    (project / ".cfg.yaml.autofix-backup").write_text(BAD)
    warning = ("cfg.yaml:1:1: warning: a backup of an interrupted autofix write is next to it "
               "(.cfg.yaml.autofix-backup): compare the two, then delete the backup (--write leaves the file alone "
               "until then)")
    for args in ((), ("--write",)):
        r = run("cfg.yaml", *args)
        assert r.exit_code == 0 and warning in r.stderr, r.stderr
    (project / "serve.sh").write_text("python3 -m sglang.launch_server --config cfg.yaml --tp 8\n")
    for args in (("serve.sh",), ("serve.sh", "cfg.yaml"), (".",), (".", "--write")):  # through its launch too
        r = run(*args)
        assert r.stderr.count(".cfg.yaml.autofix-backup") == 1, (args, r.stderr)


def test_a_backup_next_to_the_file_a_named_symlink_leads_to_is_named(project):
    """A write through a symlink writes the file it leads to, and leaves its backup there: a check run names it
    (only ``--write`` refused it before) (issue 29, third round)."""
    (project / "real").mkdir()
    (project / "real" / "c.yaml").write_text(GOOD)
    (project / "real" / ".c.yaml.autofix-backup").write_text(BAD)
    (project / "l.yaml").symlink_to("real/c.yaml")
    for args in (("--check",), ()):
        r = run("l.yaml", *args)
        assert r.exit_code == 0 and "l.yaml:1:1: warning: a backup of an interrupted autofix write" in r.stderr, \
            r.stderr
        assert "real/.c.yaml.autofix-backup" in r.stderr, r.stderr


def test_a_backup_next_to_a_hard_link_in_another_directory_keeps_write_off_the_file(project):
    # issue 29: the refusal looked for a backup next to the names of the file in the directory written only
    p, q = project / "cfg.yaml", project / "sub" / "l.yaml"
    p.write_text(BAD)
    q.parent.mkdir()
    os.link(p, q)
    _killed_writing_in_place(p)
    assert (project / ".cfg.yaml.autofix-backup").exists()
    data = p.read_bytes()
    r = run("sub/l.yaml", "--write")
    assert r.exit_code == 2 and p.read_bytes() == data, r.stderr
    assert (f"sub/l.yaml:1:1: error: not written: a backup of an interrupted autofix write is next to it "
            f"({project}/.cfg.yaml.autofix-backup)") in r.stderr
    (project / ".cfg.yaml.autofix-backup").unlink()  # compared, deleted: written now, and nothing left on it
    r = run("sub/l.yaml", "--write")
    assert r.exit_code == 0 and p.read_bytes() == q.read_bytes() == data.replace(b"static", b"dynamic"), r.stderr
    assert "user.autofix.backup" not in os.listxattr(p)


@pytest.mark.parametrize("locked", ["file", "backup"])
def test_a_running_writes_backup_is_never_called_an_interrupted_one(project, locked):
    # issue 29: two --write runs on one hard-linked file told each other to delete the live backup; a write holds
    # a lock (flock) on the file (in place) or on its backup (a group's, a hard link to the file renamed over)
    import fcntl

    p, q = project / "cfg.yaml", project / "l.yaml"
    p.write_text(BAD)
    os.link(p, q)
    backup = project / ".cfg.yaml.autofix-backup"
    backup.write_text(BAD)
    with open(p if locked == "file" else backup, "rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        for args in (("cfg.yaml", "--write"), ("l.yaml", "--write"), (".",), ("cfg.yaml",)):
            r = run(*args)
            assert "it is being written: another process holds a lock on it (flock), and the backup of that write " \
                   "is next to it" in r.stderr, (args, r.stderr)
            assert "interrupted" not in r.stderr and "delete" not in r.stderr, (args, r.stderr)
        assert p.read_text() == BAD
    r = run("cfg.yaml", "--write")  # the lock gone with its process: the write was interrupted
    assert r.exit_code == 2 and "a backup of an interrupted autofix write is next to it" in r.stderr


def test_a_walk_names_a_temp_file_an_interrupted_write_left(tmp_path):
    (tmp_path / "cfg.yaml").write_text(GOOD)
    (tmp_path / ".cfg.yaml.0a1b2c3d.autofix").write_text(GOOD)
    r = run(str(tmp_path))
    assert r.exit_code == 0
    assert (f"{tmp_path}/cfg.yaml:1:1: warning: a temp file of an interrupted autofix write is next to it "
            f"({tmp_path}/.cfg.yaml.0a1b2c3d.autofix)") in r.stderr


def test_a_bind_mounted_file_is_written_in_place_when_it_cannot_be_renamed_over(tmp_path, monkeypatch):
    # case 12 (simulated): docker -v and a Kubernetes subPath mount one file: a rename over it fails (EBUSY)
    import errno

    from autofix.disk import syscalls

    p = tmp_path / "cfg.yaml"
    p.write_text(BAD)
    inode = p.stat().st_ino

    def busy(*args, **kwargs):
        raise OSError(errno.EBUSY, "Device or resource busy")

    monkeypatch.setattr(syscalls, "exchange", busy)
    monkeypatch.setattr(os, "replace", busy)
    r = run(str(p), "--write")
    assert r.exit_code == 0, r.stderr
    assert p.read_text() == GOOD and p.stat().st_ino == inode
    assert sorted(x.name for x in tmp_path.iterdir()) == ["cfg.yaml"]


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="a bind mount needs root")
def test_a_bind_mounted_file_is_fixed(tmp_path):
    # case 12, for real: a mount namespace of its own, one file bound over another
    src, cfg = tmp_path / "src.yaml", tmp_path / "cfg.yaml"
    src.write_text(BAD)
    cfg.write_text("x\n")
    script = f"mount --bind {src} {cfg} && {sys.executable} -m autofix {cfg} --write"
    r = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    if "mount:" in r.stderr or "unshare:" in r.stderr:
        pytest.skip(f"no bind mount here: {r.stderr.strip()}")
    assert r.returncode == 0, r.stderr
    assert src.read_text() == GOOD and cfg.read_text() == "x\n"  # written through the mount: into src


def test_a_file_another_process_holds_locked_is_not_written(tmp_path):
    import fcntl

    p, q = tmp_path / "cfg.yaml", tmp_path / "l.yaml"
    p.write_text(BAD)
    os.link(p, q)
    with open(p, "rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        r = run(str(p), "--write")
    assert r.exit_code == 2 and p.read_text() == BAD
    assert "not written: another process holds a lock on it (flock)" in r.stderr


def test_sigterm_during_a_write_stops_the_run_once_the_script_and_its_config_are_written(tmp_path, monkeypatch):
    import signal

    from autofix.cli import main as cli
    from autofix.disk import writes

    monkeypatch.chdir(tmp_path)  # the project: a --config file outside it is not read, nor written
    (tmp_path / "c.yaml").write_text("ep-dispatch-algorithm: static\n")
    script = tmp_path / "serve.sh"
    script.write_text("python3 -m sglang.launch_server --config c.yaml --tp_size 8\n")
    real, sent = writes.Target.replace, []

    def replace(self, data):
        if not sent:
            sent.append(1)
            os.kill(os.getpid(), signal.SIGTERM)  # held until the group is written
        return real(self, data)

    monkeypatch.setattr(writes.Target, "replace", replace)
    before = signal.signal(signal.SIGTERM, cli._terminated)
    try:
        with pytest.raises(SystemExit) as stopped:
            autofix.cli.runner.run([str(script)], Mode.WRITE, out=io.StringIO(), err=io.StringIO())
    finally:
        signal.signal(signal.SIGTERM, before)
    assert stopped.value.code == 143
    assert (tmp_path / "c.yaml").read_text() != "ep-dispatch-algorithm: static\n"
    assert script.read_text() != "python3 -m sglang.launch_server --config c.yaml --tp_size 8\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["c.yaml", "serve.sh"]


def test_sigterm_waits_for_the_write_with_another_thread_running():
    # a signal held back from the main thread (pthread_sigmask) goes to another (a -j run has one), and Python
    # then runs its handler in the main thread all the same: in the middle of the write, which left its backup
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        case = write_faults.Case(BAD.encode(), GOOD, "links")
        calls = write_faults.count(case)
        for at in range(len(calls) + 1):
            write_faults.run(case, "term", at, calls)
    finally:
        stop.set()


SHORTER = "tp-size: 8\nmoe-a2a-backend: none\n"


@pytest.mark.parametrize("fixed", [GOOD, SHORTER], ids=["longer", "shorter"])
@pytest.mark.parametrize("action", write_faults.ACTIONS)
def test_a_write_keeps_its_promises_whatever_happens_between_two_of_its_system_calls(action, fixed):
    """Every point of the write path, each way to write (``tests/write_faults.py`` says what must hold)."""
    windows = []
    for kind in write_faults.KINDS:
        case = write_faults.Case(BAD.encode(), fixed, kind)
        calls = write_faults.count(case)
        for at in range(len(calls) + 1):
            if write_faults.run(case, action, at, calls):
                windows.append((kind, calls[at]))
    # the one window the docs name: in place, a shorter text, an append just before the cut
    expected = [("links", "ftruncate"), ("busy", "ftruncate")] if action == "append" and fixed == SHORTER else []
    assert windows == expected


@pytest.mark.parametrize("fixed", [GOOD, SHORTER], ids=["longer", "shorter"])
@pytest.mark.parametrize("action, fails", [(a, f) for a in write_faults.GROUP_ACTIONS for f in (False, True)
                                           if not (f and a.startswith("append"))])  # one append at a time
def test_a_group_write_keeps_its_promises_whatever_happens_between_two_of_its_system_calls(action, fails, fixed):
    """Issue 29, case 3 for a script and its --config file (a SIGKILL between their writes left a launch that
    meant something else, and no trace): every point of the group write, each way to write, and with the
    second file failing so that the first is put back (``tests/write_faults.py`` says what must hold)."""
    windows = []
    for kind in write_faults.GROUP_KINDS:
        case = write_faults.GroupCase(BAD.encode(), fixed, kind, fails)
        calls = write_faults.count_group(case)
        for at in range(len(calls) + 1):
            window = write_faults.run_group(case, action, at, calls)
            if window is not None:
                windows.append((kind, window))
    # the one window the docs name: in place, a shorter text, an append just before the cut
    appended = {"append": 1, "append-first": 0}.get(action)
    expected = [(kind, appended) for kind in write_faults.GROUP_KINDS if appended is not None
                and write_faults.GroupScene(None, write_faults.GroupCase(b"", "", kind)).in_place(appended)
                and (appended == 1 or fixed == SHORTER)]
    assert windows == expected


def test_hundreds_of_hard_linked_files_written_while_another_process_appends_lose_no_line(tmp_path):
    """The issue's case 1 with real processes: an appender appends to each file in turn while ``--write`` runs
    on them (in place: hard links). No line is ever lost, whatever the timing (no timing is asserted)."""
    names = []
    (tmp_path / "cfg").mkdir()
    (tmp_path / "links").mkdir()
    for i in range(200):
        p = tmp_path / "cfg" / f"c{i:03}.yaml"
        p.write_text(BAD)
        os.link(p, tmp_path / "links" / p.name)
        names.append(str(p))
    appender = subprocess.Popen([sys.executable, "-c", f"""
import os, sys, time
names = {names!r}
count = [0] * len(names)
i = 0
while not os.path.exists({str(tmp_path / "stop")!r}):
    k = i % len(names)
    fd = os.open(names[k], os.O_WRONLY | os.O_APPEND)
    os.write(fd, b"# appended %d\\n" % count[k])
    os.close(fd)
    count[k] += 1
    i += 1
    time.sleep(0.0002)
print(" ".join(map(str, count)))
"""], stdout=subprocess.PIPE, text=True)
    try:
        r = in_a_process(tmp_path / "cfg", "--write", timeout=300)
    finally:
        (tmp_path / "stop").touch()
        counts = list(map(int, appender.communicate(timeout=60)[0].split()))
    assert r.returncode in (0, 2), r.stderr
    fixed = 0
    for name, n in zip(names, counts):
        text = open(name).read()
        lines = [line for line in text.splitlines() if line.startswith("# appended ")]
        assert lines == [f"# appended {k}" for k in range(n)], f"{name}: a line lost"
        rest = "".join(line + "\n" for line in text.splitlines() if line and not line.startswith("# appended "))
        assert rest in (BAD, GOOD), f"{name}: {text!r}"
        fixed += rest == GOOD
    assert r.stderr.count("\nFixed 1 violation in ") + r.stderr.startswith("Fixed 1 violation in ") == fixed


NOBODY = 65534


def as_nobody(paths: list[str], mode: Mode) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``runner.run`` in a forked child that runs as user ``nobody``.

    A fork, not a new process: the interpreter (under root's home) need not
    be readable by nobody. The check runs once first as the parent, so what
    it imports is loaded before the child drops its privileges.
    """
    autofix.cli.runner.run(paths, Mode.DIFF, out=io.StringIO(), err=io.StringIO())
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            out, err = io.StringIO(), io.StringIO()
            rep = autofix.cli.runner.run(paths, mode, out=out, err=err)
            os.write(w, json.dumps([rep.exit_code, out.getvalue(), err.getvalue()]).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        data = f.read()
    os.waitpid(pid, 0)
    return tuple(json.loads(data))


@pytest.fixture
def shared_dir():
    """A directory other users can reach (pytest's own tmp_path is under a 0700 directory)."""
    d = Path(tempfile.mkdtemp(prefix="autofix-faults-"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a file another user cannot write")
def test_write_refuses_a_file_the_user_may_not_write_even_in_a_writable_directory(shared_dir):
    tmp_path = shared_dir
    # as an unprivileged user, a rename in a world-writable directory would replace a file it cannot write
    tmp_path.chmod(0o777)
    p = tmp_path / "c.yaml"
    p.write_text(BAD)
    p.chmod(0o644)  # root's, not writable by nobody
    code, _, err = as_nobody([str(p)], Mode.WRITE)
    assert code == 2, err
    assert "the file is write-protected" in err
    assert p.read_text() == BAD and p.stat().st_uid == 0


def test_write_keeps_hard_links(tmp_path):
    p, q = tmp_path / "c.yaml", tmp_path / "also.yaml"
    p.write_text(BAD)
    os.link(p, q)
    inode = p.stat().st_ino
    r = run(str(p), "--write")
    assert r.exit_code == 0, r.output
    assert p.read_text() == GOOD and q.read_text() == GOOD
    assert p.stat().st_ino == inode == q.stat().st_ino and p.stat().st_nlink == 2
    assert sorted(x.name for x in tmp_path.iterdir()) == ["also.yaml", "c.yaml"]  # no backup left


def test_write_keeps_extended_attributes_mode_and_owner(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text(BAD)
    p.chmod(0o640)
    try:
        os.setxattr(p, "user.origin", b"review-42")
    except OSError as exc:  # pragma: no cover - a file system without user xattrs
        pytest.skip(f"no user xattrs here: {exc}")
    if os.geteuid() == 0:
        os.chown(p, 65534, 65534)
    r = run(str(p), "--write")
    assert r.exit_code == 0, r.output
    assert p.read_text() == GOOD
    assert os.getxattr(p, "user.origin") == b"review-42"
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    if os.geteuid() == 0:
        assert (p.stat().st_uid, p.stat().st_gid) == (65534, 65534)


def test_in_place_write_restores_the_file_when_the_write_fails(tmp_path, monkeypatch):
    p, q = tmp_path / "c.yaml", tmp_path / "link.yaml"
    p.write_text(BAD)
    os.link(p, q)
    calls = []
    real = os.pwrite

    def full_disk(fd, data, offset):  # the first write (of the new text) fails; the restore goes through
        calls.append(offset)
        if len(calls) == 1:
            raise OSError(28, "No space left on device")
        return real(fd, data, offset)

    monkeypatch.setattr(os, "pwrite", full_disk)
    r = run(str(p), "--write")
    assert r.exit_code == 2
    assert "No space left on device; the file is unchanged" in r.stderr
    assert p.read_text() == BAD == q.read_text()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["c.yaml", "link.yaml"]


@pytest.mark.parametrize("text", [GOOD, GOOD * 3, "tp-size: 8\n"], ids=["longer", "much-longer", "shorter"])
def test_in_place_write_interrupted_by_a_signal_restores_the_file(tmp_path, monkeypatch, text):
    # SIGTERM in the middle of the in-place write (cli turns it into SystemExit(143)): no half file, no backup
    p, q = tmp_path / "c.yaml", tmp_path / "link.yaml"
    p.write_text(BAD)
    os.link(p, q)
    real, calls = os.pwrite, []

    def terminated(fd, data, offset):
        calls.append(offset)
        if len(calls) == 1:
            real(fd, data[:5], offset)  # a part is written, then the signal
            raise SystemExit(143)
        return real(fd, data, offset)

    disk = files.FileSet()
    disk.read(str(p))
    monkeypatch.setattr(os, "pwrite", terminated)
    with pytest.raises(SystemExit):
        disk.write(str(p), text)
    assert p.read_text() == BAD == q.read_text()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["c.yaml", "link.yaml"]


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another owner needs root")
def test_write_keeps_setuid_and_setgid_bits_of_a_file_another_user_owns(tmp_path):
    p = tmp_path / "m.yaml"
    p.write_text(BAD)
    os.chown(p, 65534, 65534)
    os.chmod(p, 0o6755)
    assert run(str(p), "--write").exit_code == 0
    st = os.stat(p)
    assert (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid) == (0o6755, 65534, 65534)
    assert p.read_text() == GOOD


def test_a_closed_or_full_stdout_is_one_error_not_one_per_file(tmp_path):
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text(BAD)
    closed = subprocess.run([sys.executable, "-m", "autofix", str(tmp_path)], capture_output=False, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=lambda: os.close(1))
    with open("/dev/full", "w") as full:
        filled = subprocess.run([sys.executable, "-m", "autofix", str(tmp_path)], stdout=full,
                                stderr=subprocess.PIPE, text=True, timeout=30,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
    for r, why in ((closed, "it is closed"), (filled, "No space left on device")):
        assert r.returncode == 2
        assert r.stderr.strip().splitlines()[-1] == f"autofix: cannot write to stdout: {why}"
        assert "internal error" not in r.stderr


def test_a_file_given_twice_is_checked_once(tmp_path):
    p = tmp_path / "b.yaml"
    p.write_text(BAD)
    os.symlink(p, tmp_path / "l.yaml")
    r = run(str(p), str(tmp_path / "." / "b.yaml"), str(tmp_path / "l.yaml"))
    assert r.exit_code == 1
    assert r.stdout.count("EP003") == 1
    assert "Found 1 violation." in r.stderr


def test_a_walk_reads_bash_scripts_and_warns_about_a_directory_with_nothing_to_check(tmp_path):
    (tmp_path / "run.bash").write_text(LAUNCH)
    (tmp_path / "empty").mkdir()
    r = run(str(tmp_path))
    assert "run.bash:1:" in r.stdout and "EP003" in r.stdout
    assert f"{tmp_path / 'empty'}:1:1: warning: no file to check in this directory" not in r.stderr  # walked into
    r = run(str(tmp_path / "empty"))
    assert r.exit_code == 0
    assert f"{tmp_path / 'empty'}:1:1: warning: no file to check in this directory" in r.stderr


# --- the summary counts only what was written -------------------------------------------------------------------

def test_summary_counts_only_the_files_written(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(BAD)
    b.write_text(BAD)
    b.chmod(0o444)
    r = run(str(a), str(b), "--write")
    assert r.exit_code == 2
    assert a.read_text() == GOOD and b.read_text() == BAD
    assert f"Fixed 1 violation in {a}" in r.stderr and f"Fixed 1 violation in {b}" not in r.stderr
    assert "Found 2 violations. Fixed 1 in 1 file; 1 remaining. 1 file could not be written." in r.stderr


def test_a_script_and_its_config_are_written_both_or_neither(tmp_path):
    (tmp_path / "c.yaml").write_text("ep-dispatch-algorithm: static\n")
    script = tmp_path / "serve.sh"
    script.write_text("python3 -m sglang.launch_server --config c.yaml --tp_size 8\n")
    script.chmod(0o555)  # the script cannot take its fix: the config's is not written either
    r = run(str(script), "--write")
    assert r.exit_code == 2, r.output
    assert (tmp_path / "c.yaml").read_text() == "ep-dispatch-algorithm: static\n"
    assert script.read_text() == "python3 -m sglang.launch_server --config c.yaml --tp_size 8\n"
    assert "Fixed" not in r.stderr.replace("Fixed 0", "")


DP_CONFIG = "dp-size: 8\ntp-size: 8\n"
DP_SCRIPT = "#!/bin/bash\npython3 -m sglang.launch_server --model-path m --config cfg.yaml --enable-dp-attention\n"


def test_a_kill_between_the_writes_of_a_script_and_its_config_leaves_a_backup_of_each_the_next_run_names(project):
    # issue 29 (case 3's class): SIGKILL after cfg.yaml lost dp-size: 8 (moved to the script as --attn-dp-size 8)
    # and before run.sh was written: a launch meaning something else, no trace of it, and the next run's fix
    # (remove --enable-dp-attention) made the loss permanent
    from autofix.disk import writes

    (project / "cfg.yaml").write_text(DP_CONFIG)
    (project / "run.sh").write_text(DP_SCRIPT)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child: killed as the second file of the group is about to be swapped in
        try:
            real, calls = writes.Target.replace, []

            def replace(self, data):
                if calls:
                    os._exit(137)
                calls.append(self.path)
                return real(self, data)

            writes.Target.replace = replace
            autofix.cli.runner.run(["run.sh"], Mode.WRITE, out=io.StringIO(), err=io.StringIO())
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    half = (project / "cfg.yaml").read_text(), (project / "run.sh").read_text()
    assert half == ("tp-size: 8\n", DP_SCRIPT)  # the config file written, the script not
    r = run("run.sh")
    for name in ("cfg.yaml", "run.sh"):
        assert f"{name}:1:1: warning: a backup of an interrupted autofix write is next to it (" in r.stderr
        assert f".{name}.autofix-backup): compare the two, then delete the backup" in r.stderr
    r = run("run.sh", "--write")
    assert r.exit_code == 2 and ((project / "cfg.yaml").read_text(), (project / "run.sh").read_text()) == half
    assert "run.sh:1:1: error: not written: its launch reads cfg.yaml, and a backup of an autofix write is next to " \
           "that file" in r.stderr
    for name in ("cfg.yaml", "run.sh"):  # each backup holds what was read: put back, the launch is whole again
        backup = project / f".{name}.autofix-backup"
        (project / name).write_bytes(backup.read_bytes())
        backup.unlink()
    assert ((project / "cfg.yaml").read_text(), (project / "run.sh").read_text()) == (DP_CONFIG, DP_SCRIPT)
    r = run("run.sh", "--write")
    assert r.exit_code == 0, r.stderr
    assert (project / "run.sh").read_text().endswith("--config cfg.yaml --attn-dp-size 8\n")
    assert sorted(x.name for x in project.iterdir()) == [".git", "cfg.yaml", "run.sh"]


def test_a_script_is_not_written_while_the_config_file_its_launch_reads_has_a_backup(project):
    # issue 29: the fix worked out from what an interrupted write left (dp-size gone from cfg.yaml) removed
    # --enable-dp-attention from the script, the config file itself left unchanged: the loss made permanent
    (project / "cfg.yaml").write_text("tp-size: 8\n")
    (project / ".cfg.yaml.autofix-backup").write_text(DP_CONFIG)
    (project / "run.sh").write_text(DP_SCRIPT)
    r = run("run.sh", "--write")
    assert r.exit_code == 2 and (project / "run.sh").read_text() == DP_SCRIPT, r.stderr
    assert ("run.sh:1:1: error: not written: its launch reads cfg.yaml, and a backup of an autofix write is next "
            f"to that file ({project}/.cfg.yaml.autofix-backup)") in r.stderr


# --- stdin --write is a filter: the whole text always comes out -------------------------------------------------

@pytest.mark.parametrize("text", [
    "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n",
    "# only a comment\n",
    "FROM ubuntu\nRUN echo hi\n",
    "tp-size: [8\n",  # invalid YAML: exit 2, but the text still goes through
    "",
], ids=["configmap", "comment-only", "dockerfile-without-launch", "invalid-yaml", "empty"])
def test_stdin_write_always_prints_the_whole_text(text):
    r = run("-", "--write", input=text)
    assert r.stdout == text
    assert r.exit_code == (2 if "[8" in text else 0), r.stderr


def test_stdin_write_passes_bytes_that_are_not_utf8_through():
    data = b"tp-size: 8\n\xff\xfe\n"
    r = subprocess.run([sys.executable, "-m", "autofix", "-", "--write"], input=data, capture_output=True,
                       timeout=30, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 2 and r.stdout == data
    assert b"-:2:1: error: not UTF-8 text (byte 0xff)" in r.stderr


def test_stdin_write_passes_too_large_input_through():
    data = b"# " + b"x" * (MAX_BYTES + 10) + b"\n"
    r = subprocess.run([sys.executable, "-m", "autofix", "-", "--write"], input=data, capture_output=True,
                       timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 2 and r.stdout == data
    assert b"too large" in r.stderr


# --- only regular files are read ------------------------------------------------------------------------------

def test_a_named_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "c.yaml"
    os.mkfifo(fifo)
    r = in_a_process(fifo, timeout=20)
    assert r.returncode == 2
    assert f"{fifo}:1:1: error: not a regular file (a FIFO)" in r.stderr


def test_a_fifo_with_a_writer_is_neither_read_nor_replaced(tmp_path):
    fifo = tmp_path / "c.yaml"
    os.mkfifo(fifo)

    def writer():  # blocks until someone opens the FIFO for reading
        try:
            with open(fifo, "w") as f:
                f.write(BAD)
        except OSError:
            pass

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    r = in_a_process(fifo, "--write", timeout=20)
    assert r.returncode == 2 and "not a regular file (a FIFO)" in r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the FIFO
    os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # release the writer


def test_a_walk_notes_fifos_devices_and_dangling_links_and_goes_on(tmp_path):
    (tmp_path / "ok.yaml").write_text(BAD)
    os.mkfifo(tmp_path / "f.yaml")
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    (tmp_path / "gone.yaml").symlink_to(tmp_path / "nowhere")
    r = in_a_process(tmp_path, timeout=20)
    assert r.returncode == 1, r.stderr  # the violation in ok.yaml; the skipped files do not change the exit code
    err = r.stderr
    assert f"{tmp_path}/f.yaml:1:1: warning: not a regular file (a FIFO) (skipped)" in err
    # outside the project and the named directory: not even looked at (test_a_symlink_to_dev_zero_is_refused: named)
    assert f"{tmp_path}/zero.yaml:1:1: warning: a symlink to a file outside the project (" in err
    assert f"{tmp_path}/gone.yaml:1:1: warning: cannot read: No such file or directory (skipped)" in err
    assert "ok.yaml:3:1: error: EP003" in r.stdout


def test_a_symlink_to_dev_zero_is_refused(tmp_path):
    link = tmp_path / "c.yaml"
    link.symlink_to("/dev/zero")
    r = in_a_process(link, timeout=20)
    assert r.returncode == 2 and "not a regular file (a character device)" in r.stderr


def test_a_file_over_the_size_limit_is_refused_without_reading_it(tmp_path):
    p = tmp_path / "big.yaml"
    with open(p, "wb") as f:
        f.truncate(MAX_BYTES + 1)  # sparse: nothing is really stored
    r = run(str(p))
    assert r.exit_code == 2
    assert f"{p}:1:1: error: too large ({MAX_BYTES + 1:,} bytes; autofix reads at most {MAX_BYTES:,})" in r.stderr


def test_a_file_that_grows_past_the_bound_after_fstat_is_too_large(tmp_path, monkeypatch):
    """``reads.read_bytes`` reads on past the size ``fstat`` gave (the file grew), and stops one byte past the
    bound: a file that grew beyond it is refused as too large."""
    from autofix.disk import reads

    p = tmp_path / "c.yaml"
    p.write_bytes(b"x" * 5000)
    real_fstat = os.fstat

    def fstat(fd):
        st = list(real_fstat(fd))
        st[6] = 10  # st_size when looked at
        return os.stat_result(st)

    monkeypatch.setattr(os, "fstat", fstat)
    monkeypatch.setattr(reads, "MAX_BYTES", 100)
    with pytest.raises(reads.ReadError, match="too large"):
        reads.read_bytes(str(p))


# --- a walk says what it skipped -------------------------------------------------------------------------------

@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run as another user")
def test_a_walk_notes_a_file_and_a_directory_it_cannot_read(shared_dir):
    tmp_path = shared_dir
    (tmp_path / "ok.yaml").write_text(GOOD)
    secret = tmp_path / "secret.sh"
    secret.write_text(LAUNCH)
    secret.chmod(0o600)
    (tmp_path / "locked").mkdir(mode=0o700)
    code, _, err = as_nobody([str(tmp_path)], Mode.DIFF)
    assert code == 0, err
    assert f"{secret}:1:1: warning: cannot read: Permission denied (skipped)" in err
    assert f"{tmp_path}/locked:1:1: warning: cannot list the directory: Permission denied (skipped)" in err


def test_a_walk_refuses_a_script_that_launches_sglang_but_is_not_utf8(tmp_path):
    # bash runs it, and autofix cannot check it: an error, as when named (issue 29, case 17)
    (tmp_path / "serve.sh").write_bytes(b"# caf\xe9\n" + LAUNCH.encode())
    (tmp_path / "other.sh").write_bytes(b"# caf\xe9\necho hi\n")  # launches nothing: skipped quietly
    r = run(str(tmp_path))
    assert r.exit_code == 2, r.output
    assert r.stderr.splitlines()[:-1] == [f"{tmp_path}/serve.sh:1:6: error: not UTF-8 text (byte 0xe9)"]


# --- one guard per file: no traceback, the run goes on ---------------------------------------------------------

@pytest.mark.parametrize("exc", [RecursionError("maximum recursion depth exceeded"), MemoryError(), KeyError("x")],
                         ids=["recursion", "memory", "bug"])
def test_any_failure_in_one_file_is_exit_2_for_it_and_the_run_goes_on(tmp_path, monkeypatch, exc):
    bad, good = tmp_path / "a.yaml", tmp_path / "b.yaml"
    bad.write_text(BAD)
    good.write_text(BAD)
    real = autofix.core.api.fix_source

    def fails_on_a(text, fmt, *, path, **kwargs):
        if path == str(bad):
            raise exc
        return real(text, fmt, path=path, **kwargs)

    monkeypatch.setattr(autofix.cli.run_options, "fix_source", fails_on_a)
    r = run(str(bad), str(good), "--write")
    assert r.exit_code == 2
    assert f"{bad}:1:1: error: internal error, nothing written: {type(exc).__name__}" in r.stderr
    assert "Traceback" not in r.stderr and "--verbose shows the traceback" in r.stderr
    assert bad.read_text() == BAD and good.read_text() == GOOD  # the next file was still fixed
    assert "Found 1 violation. Fixed 1 in 1 file; 0 remaining. 1 file could not be checked." in r.stderr
    verbose = run(str(bad), "--verbose")
    assert "Traceback (most recent call last)" in verbose.stderr and verbose.exit_code == 2


def test_stdin_write_prints_the_text_even_after_an_internal_error(monkeypatch):
    def boom(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(autofix.cli.run_options, "fix_source", boom)
    r = run("-", "--write", input=BAD)
    assert r.exit_code == 2 and r.stdout == BAD


# --- positions: never 0:0 --------------------------------------------------------------------------------------

def test_no_error_line_has_position_0_0(tmp_path):
    (tmp_path / "ro.yaml").write_text(BAD)
    (tmp_path / "ro.yaml").chmod(0o444)
    cases = [str(tmp_path / "missing.yaml"), str(tmp_path), str(tmp_path / "ro.yaml")]
    r = run(*cases, "--write")
    assert r.exit_code == 2
    assert ":0:0:" not in r.stderr + r.stdout
