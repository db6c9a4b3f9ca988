"""Paths as the system resolves them, without opening a file: ``normalize`` (``DIR/..`` goes only where ``DIR``
is a directory), ``plain`` (a path with no ``..`` after a name, for what reads a path as text), ``within``, and
the repository a path lies in (``repository_root``).
"""

from __future__ import annotations

import os
import stat


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


def within(path: str, directory: str) -> bool:
    """Whether ``path`` is ``directory`` or lies below it (both real paths)."""
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


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
