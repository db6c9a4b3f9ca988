"""``-j/--jobs``: check the files of a long run in worker processes, report them in the main one.

Only the pure, costly part of a file moves to a worker: reading it (and the ``--config`` files its
launches read) and ``api.fix_source``. Everything a run decides across files stays in ``runner.run``, in
the main process, in the order of the files: what is skipped because a launch already handled it,
what is printed once, the writes, the errors, the counts and the exit code. So the output is the same
bytes whatever the number of jobs.

A worker's answer for a file is used only when nothing the main process did since could have changed
it: it carries the snapshot of every file it read (``reads.Snapshot``), and the main process takes it
only when none of those files is one this run wrote since, to other bytes (``files.FileSet.snapshot``: a
``--write`` earlier in the run that rewrote a config file makes the answer stale). Otherwise, and for
every file a worker could not finish (a read error, bad input, a file that is no SGLang input, an
internal error: each has its own message and path through ``runner``), the main process checks the file
again itself, as ``-j 1`` does. That costs one more check of those few files and keeps every error
message and its order exactly as they are without ``-j``.

Work goes out in chunks of ``CHUNK`` files, and at most ``WINDOW`` chunks per worker are in flight: the
per-file overhead (pickling the arguments and the result) stays small and the memory held for ordering
stays flat in the number of files.

A worker ends with the main process, however that ends (``kill -9`` too): on Linux the kernel kills it
(``_killed_with``), elsewhere a thread in it watches the main process (``_watch_parent``).
"""

from __future__ import annotations

import itertools
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from autofix.adapters import detect
from autofix.cli.config_files import on_disk
from autofix.core.api import FixResult
from autofix.disk import files
from autofix.disk.reads import Snapshot
from autofix.disk.scope import Scope

if TYPE_CHECKING:
    from concurrent.futures import Future

    from autofix.cli.run_options import FileOptions
    from autofix.core.policy import Policy

# Below this many files a run stays in-process whatever -j says: starting the workers (a fork each, and
# each warming its own caches on its first files) costs about what checking ~100 clean files does on one
# core (bench/README.md, "-j"), so a smaller run (a pre-commit hook's few files) would only get slower.
PARALLEL_FROM = 200
CHUNK = 32  # files per task: ~15 ms of work, against well under 1 ms of pickling and queueing
WINDOW = 4  # chunks in flight per worker: workers never wait for the main process, memory stays flat


def default_jobs() -> int:
    """All the cores this process may run on (``os.process_cpu_count``, Python 3.13+; else the affinity mask)."""
    count = getattr(os, "process_cpu_count", None)
    if count is not None:
        return count() or 1
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Ready:
    """A worker's answer for one file: the result, the snapshot of each file read for it (by real path), and the
    real path each path it read led to then (``files.FileSet.reals``: a write checks the path still does)."""

    result: FixResult
    snapshots: dict[str, Snapshot]
    reals: dict[str, str]


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Bounds:
    """What a worker may read, as the main process's ``files.FileSet`` does: the run's ``scope.Scope``, what
    its ``excluded`` leaves out, and the policy of each ``--config`` file (``config_policy``; None: the
    checked file's).

    ``excluded`` and ``config_policy`` ask the project's configuration (closures over ``project.Resolver``):
    a forked worker inherits them; a worker started afresh (not on Linux) gets only the scope (it pickles)
    and then reads no ``--config`` file at all: a file whose launch names one is left to the main process.
    """

    scope: Scope | None = None
    excluded: Callable[[str, bool, bool], bool] | None = None
    config_policy: Callable[[str], Policy] | None = None


class _Declined(Exception):
    """A worker that may not decide whether to read a ``--config`` file leaves the whole file to the main
    process."""


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_SHARED: frozenset[str] = frozenset()  # the run's shared --config files (config_files.shared), per worker
_FIX_EDITS = False
_BOUNDS = Bounds()
_CONFIGS = True  # False: read no --config file (a worker that could not be given the bounds' closures)


def _init(shared: frozenset[str], fix_edits: bool, bounds: Bounds, configs: bool, main: int) -> None:
    """A worker's start: the run's constants; Ctrl-C and SIGTERM are the main process's to handle; the
    worker ends with the main process (pid ``main``)."""
    global _SHARED, _FIX_EDITS, _BOUNDS, _CONFIGS
    _SHARED, _FIX_EDITS, _BOUNDS, _CONFIGS = shared, fix_edits, bounds, configs
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not _killed_with(main):
        _watch_parent()


def _killed_with(main: int) -> bool:
    """Have the kernel kill this worker when the main process ends, however it ends (SIGKILL too): Linux's
    PR_SET_PDEATHSIG. Whether it is set. A worker must not outlive the main process: one waiting for work
    would wait forever, as the other workers hold the queue's pipe open (issue 29).

    The signal comes when the *thread* that forked the worker ends: ``results``' own, which every worker is
    forked from (the pool forks them all at its first ``submit``) and which shuts the pool down before it
    goes on. A main process that ended before the call is seen after it (``getppid``).
    """
    if sys.platform != "linux":
        return False
    try:
        import ctypes  # in the worker only: the main process never loads it

        if ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):  # no libc to load, or no prctl in it
        return False
    if os.getppid() != main:
        os._exit(1)
    return True


def _watch_parent() -> None:
    """Where the kernel cannot (not Linux): a thread that ends this worker when its parent's sentinel says
    the parent ended (``multiprocessing.parent_process``: the parent's handle, or a pipe the parent holds
    open; after a fork, so do the workers forked after this one, and they end first)."""
    import multiprocessing
    import threading
    from multiprocessing.connection import wait

    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="autofix-parent-watch", daemon=True).start()


def _declined(path: str) -> str | None:
    raise _Declined(path)


def _check(path: str, named: bool, opts: FileOptions) -> Ready | None:
    """``path`` read and checked as ``one_file.OneFile`` does; None when the main process must do it itself."""
    try:
        bounds = _BOUNDS
        disk = files.FileSet(scope=bounds.scope, excluded=bounds.excluded)
        read_config = disk.read_config if _CONFIGS else _declined
        text = disk.read(path, named=named)
        adapter = detect(path, text)
        if adapter is None:
            return None
        configs = on_disk(read_config, shared=_SHARED, policy=bounds.config_policy)
        result = opts.fix(text, adapter, path, configs=configs, fix_edits=_FIX_EDITS)
    except Exception:  # noqa: BLE001 - every error is reported by the main process, which checks it again
        return None
    if result.errors:  # a --config file SGLang refuses: its InputError is reported (and pickles) in the main process
        return None
    return Ready(result, disk.snapshots, disk.reals)


def _check_chunk(chunk: list[tuple[str, bool, FileOptions | None]]) -> list[Ready | None]:
    return [None if opts is None else _check(path, named, opts) for path, named, opts in chunk]


def results(items: Iterable[tuple[str, bool]], count: int, jobs: int, options: Callable[[str], FileOptions], *,
            shared: frozenset[str], fix_edits: bool, before_start: Callable[[], None],
            bounds: Bounds = Bounds()) -> Iterator[Ready | None]:
    """One ``Ready`` or None per item of ``items`` (path, named; ``count`` of them), in their order, checked
    by ``jobs`` workers. ``items`` is read as the answers are taken: a few chunks ahead of them.

    ``options(path)`` gives a file's ``run_options.FileOptions``; a file it raises for is left to the main
    process (which meets the error at its turn). ``before_start`` runs before the workers start
    (``runner`` flushes its streams, so a forked worker holds no unwritten output of the main process).
    Stdin (``-``) is always left to the main process. Closing the iterator stops the workers. ``bounds``:
    what the workers may read (the main process's, see ``Bounds``).
    """
    def task(item: tuple[str, bool]) -> tuple[str, bool, FileOptions | None]:
        path, named = item
        if path == "-":
            return path, named, None
        try:
            return path, named, options(path)
        except Exception:  # noqa: BLE001 - met again, and reported, when the main process reaches it
            return path, named, None

    import multiprocessing  # here, not at import: a run without workers (and the cold start) never loads them
    from concurrent.futures import BrokenExecutor, ProcessPoolExecutor

    jobs = max(1, min(jobs, -(-count // CHUNK)))  # -j 64 over 300 files: no worker without a chunk to check
    items = iter(items)
    chunks = iter(lambda: list(map(task, itertools.islice(items, CHUNK))), [])
    # fork where it is safe and cheap (Linux): the workers start with autofix already imported, and inherit
    # the bounds' closures (a worker started afresh would get them pickled: it gets none, ``Bounds``)
    context = multiprocessing.get_context("fork") if sys.platform == "linux" else None
    before_start()
    forked = context is not None
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_init,
                               initargs=(shared, fix_edits, bounds if forked else Bounds(bounds.scope), forked,
                                         os.getpid()))
    pending: deque[tuple[int, Future[list[Ready | None]] | None]] = deque()
    broken = False
    try:
        for chunk in chunks:
            try:
                future = None if broken else pool.submit(_check_chunk, chunk)
            except BrokenExecutor:  # a worker was killed (out of memory): the rest is checked in-process
                broken, future = True, None
            pending.append((len(chunk), future))
            if len(pending) >= WINDOW * jobs:
                broken = yield from _drain_one(pending, broken)
        while pending:
            broken = yield from _drain_one(pending, broken)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _drain_one(pending: deque[tuple[int, Future[list[Ready | None]] | None]],
               broken: bool) -> Generator[Ready | None, None, bool]:
    """Yield the answers of the oldest chunk in flight (all None when it failed); whether the pool is broken."""
    from concurrent.futures import BrokenExecutor

    size, future = pending.popleft()
    if future is not None and not broken:
        try:
            answers = future.result()
        except BrokenExecutor:  # a worker was killed (out of memory): the rest is checked in-process
            broken = True
        except Exception:  # noqa: BLE001 - e.g. a result that would not pickle: that chunk in-process
            pass
        else:
            yield from answers
            return False
    yield from [None] * size
    return broken
