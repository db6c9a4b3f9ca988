"""The project one run may read files in, and so print and write them (``Scope``): the repository holding the
working directory, and what the command line names.
"""

from __future__ import annotations

import os

from autofix.disk.paths import repository_root, within


class Scope:
    """Where one run may read a file's content (to check it, and so to print it) and write it.

    The project is the real path of the repository root holding the working directory (``repository_root``:
    the closest directory at or above it with a ``.git``), else of the working directory. A file is in
    scope when its real path (every symlink resolved) is at or under the project, or is a file named on the
    command line, or lies under a directory named there (``autofix /elsewhere/tree`` checks that tree's
    files). Nothing is worked out before it is first asked (a run that meets no symlink in a walk and no
    ``--config`` file pays nothing), and then once. Picklable: ``-j`` workers get it.
    """

    __slots__ = ("paths", "cwd", "_root", "_files", "_dirs")

    def __init__(self, paths: list[str] | tuple[str, ...], cwd: str | None = None) -> None:
        self.paths = tuple(p for p in paths if p != "-")  # as given on the command line
        self.cwd = cwd
        self._root: str | None = None
        self._files: frozenset[str] | None = None  # the real paths of the named files
        self._dirs: tuple[str, ...] = ()  # the real paths of the named directories, each ending in os.sep

    def __getstate__(self) -> tuple[tuple[str, ...], str | None]:
        return self.paths, self.cwd

    def __setstate__(self, state: tuple[tuple[str, ...], str | None]) -> None:
        Scope.__init__(self, *state)

    @property
    def root(self) -> str:
        """The project: the real path of the repository root holding the working directory, else of that."""
        if self._root is None:
            self._root = os.path.realpath(repository_root(self.cwd if self.cwd is not None else os.getcwd()))
        return self._root

    def holds(self, real: str) -> bool:
        """Whether the file at real path ``real`` (``os.path.realpath``) is in scope."""
        return within(real, self.root) or self.named(real) or real.startswith(self._dirs)

    def named(self, real: str) -> bool:
        """Whether the file at real path ``real`` was named on the command line."""
        if self._files is None:  # the real paths of what was named, once
            named = [os.path.realpath(os.path.join(self.cwd or "", p)) for p in self.paths]
            self._dirs = tuple(r.rstrip(os.sep) + os.sep for r in named if os.path.isdir(r))
            self._files = frozenset(named)
        return real in self._files

    def outside(self) -> str:
        """Why a file out of scope is not read, for a message."""
        return f"outside the project ({self.root})"
