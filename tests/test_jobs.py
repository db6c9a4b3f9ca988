"""``-j/--jobs``: the same bytes, in the same order, and the same exit code as ``-j 1``, whatever N.

The threshold and the chunk size are lowered here, so that a few files go through the workers in several
chunks (a real run needs ``workers.PARALLEL_FROM`` files before it starts any).
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autofix.cli import one_file, runner, workers
from autofix.cli.commands import app
from autofix.disk import files
from autofix.disk.reads import Snapshot
from autofix.report.stream import ReportStream

CLEAN = "model-path: meta-llama/Llama-3.1-8B-Instruct\ntp-size: {tp}\nport: 3000{tp}\n"
NEEDS_FIX = "tp-size: 8\nmoe-a2a-backend: none  # single node\nep-dispatch-algorithm: static\n"
MARLIN = "tp-size: 8\nmoe-runner-backend: experimental_sgl_marlin\nmoe-a2a-backend: deepep\nep-dispatch-algorithm: static\n"
SCRIPT = "#!/bin/sh\npython3 -m sglang.launch_server --config launched.yaml --tp 8\n"


def _tree(root: Path) -> Path:
    """Clean configs, configs that need fixes, bad input (invalid YAML, not UTF-8), a script and its config."""
    root.mkdir()
    for i in range(12):
        (root / f"c{i:02}.yaml").write_text(CLEAN.format(tp=1 + i % 2))
    (root / "c03.yaml").write_text(NEEDS_FIX)
    (root / "c07.yaml").write_text(MARLIN)
    (root / "c05.yaml").write_text("tp-size: [\n")  # invalid YAML: an error, exit 2
    (root / "c09.yaml").write_bytes(b"tp-size: \xff\n")  # not UTF-8
    (root / "launched.yaml").write_text(NEEDS_FIX)  # checked through the script, not again on its own
    (root / "serve.sh").write_text(SCRIPT)
    (root / "notes.sh").write_text("#!/bin/sh\necho hello\n")  # launches nothing
    return root


@pytest.fixture
def small_pool(monkeypatch):
    monkeypatch.setattr(workers, "PARALLEL_FROM", 2)
    monkeypatch.setattr(workers, "CHUNK", 3)
    monkeypatch.setattr(workers, "WINDOW", 1)


def _run(paths: list[str], mode: runner.Mode, jobs: int, fmt: str = "full") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rep = runner.run(paths, mode, out=out, err=err, checks=runner.Checks(runner.FileOptions(unsafe=True)),
                     output=runner.Output(fmt), jobs=jobs)
    return rep.exit_code, out.getvalue(), err.getvalue()


# --diff takes no report format: it runs with the full one only
MODES_AND_FORMATS = [(mode, fmt) for mode in (runner.Mode.DIFF, runner.Mode.CHECK)
                     for fmt in ("full", "concise", "json", "sarif", "github")] + [(runner.Mode.DIFF_ONLY, "full")]


@pytest.mark.parametrize("mode, fmt", MODES_AND_FORMATS)
def test_same_output_as_one_job(tmp_path, small_pool, monkeypatch, mode, fmt):
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path / "d")
    one = _run(["d"], mode, 1, fmt)
    assert one[0] == 2  # the bad inputs
    adopted = []
    adopt = one_file.OneFile._adopt
    monkeypatch.setattr(one_file.OneFile, "_adopt", lambda self, ready: adopted.append(adopt(self, ready)) or adopted[-1])
    for jobs in (2, 3):
        assert _run(["d"], mode, jobs, fmt) == one
    # per run the workers answered the 10 good configs and the script; the 2 bad inputs and notes.sh are redone
    assert sum(r is not None for r in adopted) == 2 * 11


def test_write_writes_the_same_files(tmp_path, small_pool, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path / "one")
    shutil.copytree(tmp_path / "one", tmp_path / "two")
    code1, out1, err1 = _run(["one"], runner.Mode.WRITE, 1)
    code2, out2, err2 = _run(["two"], runner.Mode.WRITE, 2)
    assert (code1, out1, err1.replace("one/", "two/")) == (code2, out2, err2)
    assert "Fixed" in err2
    for path in sorted((tmp_path / "one").iterdir()):
        assert path.read_bytes() == (tmp_path / "two" / path.name).read_bytes(), path.name
    assert (tmp_path / "two" / "c03.yaml").read_text() != NEEDS_FIX
    assert not list((tmp_path / "two").glob(".*autofix*"))  # no temp file left behind


def test_stable_order(tmp_path, small_pool, monkeypatch):
    """Reported in the order the files are given (and walked), not the order the workers finish."""
    monkeypatch.chdir(tmp_path)
    names = [f"f{i}.yaml" for i in (5, 1, 4, 2, 3, 0, 6)]
    for name in names:
        (tmp_path / name).write_text(NEEDS_FIX)
    code, out, _ = _run(names, runner.Mode.CHECK, 2, "concise")
    assert code == 1
    assert [line.split(":")[0] for line in out.splitlines()] == names


def test_small_runs_start_no_worker(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(workers, "results", refuse)
    (tmp_path / "a.yaml").write_text(NEEDS_FIX)
    assert _run([str(tmp_path / "a.yaml")], runner.Mode.CHECK, 8)[0] == 1


def test_files_are_counted_once_whatever_their_names(tmp_path, monkeypatch):
    """Fewer than PARALLEL_FROM files, with more names than that (symlinks, a file named twice): no pool."""
    def refuse(*args, **kwargs):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(workers, "results", refuse)
    n = workers.PARALLEL_FROM - 10
    for i in range(n):
        (tmp_path / f"c{i:03}.yaml").write_text(CLEAN.format(tp=1))
    for i in range(20):
        (tmp_path / f"link{i:03}.yaml").symlink_to(f"c{i:03}.yaml")
    named = str(tmp_path / "c000.yaml")
    assert _run([str(tmp_path), named, named], runner.Mode.CHECK, 2)[0] == 0


def test_a_stale_answer_is_checked_again(tmp_path):
    """An answer read before this run rewrote one of its files is not used."""
    path = tmp_path / "a.yaml"
    path.write_text(NEEDS_FIX)
    one = one_file.OneFile(runner.Report(runner.Mode.CHECK), ReportStream(io.StringIO(), "stdout"),
                           ReportStream(io.StringIO(), "stderr"), runner.Output(), runner.Checks(), runner.Stdin(),
                           files.FileSet(), one_file.Once(), frozenset())
    ready = workers._check(str(path), True, runner.FileOptions())
    assert ready is not None and one._adopt(ready) is ready.result
    one.disk.snapshots[str(path.resolve())] = Snapshot(0, 0, b"written since")
    assert one._adopt(ready) is None


def test_cli_option(tmp_path):
    (tmp_path / "a.yaml").write_text(NEEDS_FIX)
    cli = CliRunner()
    for args in (["-j", "2"], ["--jobs", "1"], []):
        assert cli.invoke(app, [str(tmp_path), *args], prog_name="autofix").exit_code == 1
    bad = cli.invoke(app, [str(tmp_path), "-j", "0"], prog_name="autofix")
    assert bad.exit_code == 2 and "--jobs" in bad.output
    assert "--jobs" in cli.invoke(app, ["--help"], prog_name="autofix").output


def test_default_jobs_is_the_cores():
    assert workers.default_jobs() >= 1


@pytest.mark.parametrize("extra", [[], ["--check", "--output-format", "json"], ["--write"]])
def test_cli_at_the_real_threshold(tmp_path, monkeypatch, extra):
    """A run long enough to start the workers, through the command line (project settings, streams, exit)."""
    monkeypatch.chdir(tmp_path)
    for name in ("one", "two"):
        d = tmp_path / name
        d.mkdir()
        for i in range(workers.PARALLEL_FROM):
            (d / f"c{i:03}.yaml").write_text(CLEAN.format(tp=1 + i % 2))
        (d / "c100.yaml").write_text(NEEDS_FIX)
        (d / "c150.yaml").write_text("tp-size: [\n")
    cli = CliRunner()
    one = cli.invoke(app, ["one", "-j", "1", *extra], prog_name="autofix")
    two = cli.invoke(app, ["two", "-j", "2", *extra], prog_name="autofix")
    assert one.exit_code == two.exit_code == 2
    assert two.output == one.output.replace("one/", "two/")
    if extra == ["--write"]:
        assert (tmp_path / "two" / "c100.yaml").read_text() == (tmp_path / "one" / "c100.yaml").read_text() != NEEDS_FIX


def test_no_more_workers_than_chunks(tmp_path, small_pool, monkeypatch):
    started = []
    import concurrent.futures

    real = concurrent.futures.ProcessPoolExecutor

    def counting(max_workers, **kwargs):
        started.append(max_workers)
        return real(max_workers, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", counting)
    names = []
    for i in range(4):
        (tmp_path / f"f{i}.yaml").write_text(NEEDS_FIX)
        names.append(str(tmp_path / f"f{i}.yaml"))
    assert _run(names, runner.Mode.CHECK, 64)[0] == 1
    assert started == [2]  # 4 files in chunks of 3


def test_a_killed_worker_leaves_the_rest_to_the_main_process(tmp_path, small_pool, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path / "d")
    one = _run(["d"], runner.Mode.DIFF, 1)
    check = workers._check

    def dies(path, named, opts):  # in a forked worker: as the kernel's OOM killer would end it
        if path.endswith("c04.yaml"):
            os._exit(1)
        return check(path, named, opts)

    monkeypatch.setattr(workers, "_check", dies)
    assert _run(["d"], runner.Mode.DIFF, 2) == one


# --- the workers end with the main process (issue 29, case 9) --------------------------------------------------

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="reads the process table from /proc")


def _children(pid: int) -> set[int]:
    """The live processes whose parent is ``pid`` (a zombie has ended)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:  # ended meanwhile
                continue
            state, ppid = stat.rsplit(")", 1)[1].split()[:2]
            if int(ppid) == pid and state != "Z":
                found.add(int(entry))
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def _kill_and_watch(main: subprocess.Popen, processes: int) -> set[int]:
    """SIGKILL ``main`` once it has ``processes`` children (or more: spawn's resource tracker); its children
    still alive after a generous wait."""
    deadline = time.monotonic() + 60
    children: set[int] = set()
    while len(children) < processes and main.poll() is None and time.monotonic() < deadline:
        children = _children(main.pid)
        time.sleep(0.005)
    assert len(children) >= processes, "the workers never started"
    main.kill()
    assert main.wait() == -signal.SIGKILL  # killed while its workers were running, not ended on its own
    try:
        deadline = time.monotonic() + 60  # a hang guard only: they end at once
        while _alive(children) and time.monotonic() < deadline:
            time.sleep(0.02)
        return _alive(children)
    finally:
        for pid in _alive(children):  # never leave one behind, even when the test fails
            os.kill(pid, signal.SIGKILL)


@linux_only
def test_workers_end_when_the_main_process_is_killed(tmp_path):
    """``autofix -j 2`` SIGKILLed while its workers check files: they end too (they waited forever on their
    queue, ~27 MB each)."""
    for i in range(3 * workers.PARALLEL_FROM):
        (tmp_path / f"c{i:04}.yaml").write_text(CLEAN.format(tp=1 + i % 2) + "# padding\n" * 200)
    main = subprocess.Popen([sys.executable, "-m", "autofix", "-j", "2", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert _kill_and_watch(main, 2) == set()


@linux_only
@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_without_pdeathsig_a_thread_ends_the_worker(tmp_path, start):
    """Where the kernel cannot be asked (not Linux), ``_watch_parent``: one worker busy, one waiting for work."""
    script = textwrap.dedent(f"""
        import multiprocessing, time
        from concurrent.futures import ProcessPoolExecutor
        from autofix.cli import workers

        if __name__ == "__main__":
            pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context({start!r}),
                                       initializer=workers._watch_parent)
            pool.submit(time.sleep, 600)
            time.sleep(600)
    """)
    main = subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path)
    assert _kill_and_watch(main, 2) == set()
