"""Walking the inputs: each path named on the command line as given, each directory named walked for the files
to check (``expand``), in sorted order, without recursion, a directory listed only if the directory opened is in
the run's ``Scope``.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from autofix.common.filenames import WALK_SUFFIXES, is_dockerfile, is_yaml
from autofix.disk.backups import left_by_writes, left_note
from autofix.disk.reads import CLOEXEC, NOFOLLOW, opened_real, strerror

if TYPE_CHECKING:
    from autofix.disk.scope import Scope

# What a walk does not enter (unless named; the project's configuration may say otherwise: ``exclude``).
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox"}


def expand(paths: list[str], note: Callable[[str], None] = lambda _: None,
           excluded: Callable[[str, bool, bool], bool] | None = None, *,
           only_yaml: bool = False, left: Callable[[str, str], None] | None = None,
           scope: Scope | None = None) -> Iterator[tuple[str, bool]]:
    """(path, named) for each input: named paths as given, directories walked in sorted order.

    A walk does not follow symlinked directories, nor enter ``SKIP_DIRS``
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
        note(f"{exc.filename}:1:1: warning: cannot list the directory: {strerror(exc)} (skipped)")

    def left_out(directory: str) -> None:
        assert scope is not None  # only a walk with a scope leaves a directory out
        note(f"{directory}:1:1: warning: leads to a directory {scope.outside()} (a directory on its path changed "
             "since the walk listed it): not listed (skipped)")

    def skip(path: str, named: bool = False, is_dir: bool = False) -> bool:
        if excluded is not None:
            return excluded(path, named, is_dir)
        return not named and os.path.basename(path) in SKIP_DIRS

    for p in paths:
        if p != "-" and os.path.isdir(p):
            found = 0
            for root, dirs, names in _walk(p, unlisted, scope, left_out):
                dirs[:] = sorted(d for d in dirs if not skip(os.path.join(root, d), is_dir=True))
                leftovers = None if only_yaml else left_by_writes(names)  # names listed anyway: no system call
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
                assert left_out is not None  # given with the scope that left the directory out
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


_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def _listing(directory: str, nested: bool, scope: Scope):
    """``os.scandir`` of ``directory`` opened (``nested``: without following a symlink at its last part), or None
    when the directory opened is not in ``scope``. Raises ``OSError`` as ``os.scandir`` does."""
    fd = os.open(directory, os.O_RDONLY | _DIRECTORY | CLOEXEC | (NOFOLLOW if nested else 0))
    try:
        real = opened_real(fd, directory, os.fstat(fd))
        return os.scandir(fd) if real is not None and scope.holds(real) else None  # (scandir lists a copy of fd)
    finally:
        os.close(fd)
