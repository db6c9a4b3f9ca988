"""The files of a run, in the order ``runner.run`` checks them, each once.

Scripts and Dockerfiles come first, then the YAML files: a ``--config`` file
is then checked through the launches that read it (merged with their flags)
before a walk reaches it alone, whatever the order of the paths. Within each
group the files keep the order of the inputs, directories walked in sorted
order (``walk.expand``). A file reached by several names (``a.yaml
./a.yaml``, a symlink to it) is checked once, under the first name, and as a
named file if any of its names was given on the command line.

A run does not list its YAML files, so its memory stays flat in their number
(issue 15). ``Inputs`` walks the inputs once when it is made (the walk's
notes are printed then, before any file is checked; the scripts are listed,
the files counted) and walks them again for the YAML files each time it is
iterated. What it keeps per file is only for the files that a second name can
reach: the named files, the walked symlinks and what they point to. When two
inputs are the same directory, or one holds the other (``autofix . sub``),
any file can be reached twice: then it lists every file, as before.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator

from autofix.common.filenames import is_yaml
from autofix.disk.scope import Scope
from autofix.disk.walk import expand

Item = tuple[str, bool]  # (path, named on the command line)


class RealPaths:
    """``os.path.realpath`` for many files in few directories: a file that is no symlink is its directory's real
    path and its name (one ``lstat``, not one per part of the path: ~1% of a clean file's time, issue 15)."""

    def __init__(self) -> None:
        self._dirs: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        head, name = os.path.split(path)
        if name in ("", ".", "..") or os.path.islink(path):
            return os.path.realpath(path)
        real_head = self._dirs.get(head)
        if real_head is None:
            real_head = self._dirs[head] = os.path.realpath(head)
        return os.path.join(real_head, name)


class Inputs:
    """The files a run checks (``Item``: path and whether it was named), in order, each once; iterable again
    (a fresh walk for the YAML files each time: the directories are read again).

    ``count`` is how many items an iteration gives (for a progress bar, and to choose worker processes);
    ``scripts`` are the items that are not YAML files, in order. Making one walks ``paths`` and prints the
    walk's notes (``note``); ``excluded``, ``left`` and ``scope`` are ``walk.expand``'s.
    """

    def __init__(self, paths: list[str], note: Callable[[str], None],
                 excluded: Callable[[str, bool, bool], bool] | None,
                 left: Callable[[str, str], None] | None = None, scope: Scope | None = None) -> None:
        self._paths, self._excluded, self._scope, self._real = paths, excluded, scope, RealPaths()
        walked = expand(paths, note=note, excluded=excluded, left=left, scope=scope)
        self._listed: list[Item] | None = None
        if _overlap(paths):
            self._listed = once_each(scripts_first(walked), self._real)
            self.scripts = [item for item in self._listed if not is_yaml(item[0])]
            self._count: int | None = len(self._listed)
            return
        scripts: list[Item] = []
        yaml_names = 0
        self._named: set[str] = set()  # the real paths of the named files
        self._twice: set[str] = set()  # the real paths a second name may reach
        for path, named in walked:
            if path != "-" and (named or os.path.islink(path)):
                real = self._real(path)
                self._twice.add(real)
                if named:
                    self._named.add(real)
            if is_yaml(path):
                yaml_names += 1
            else:
                scripts.append((path, named))
        self.scripts = [(p, named or (p != "-" and self._real(p) in self._named))
                        for p, named in once_each(scripts, self._real)]
        # without a name that a second one may reach, each YAML name is one file; else they are counted when asked
        self._count = len(self.scripts) + yaml_names if not self._twice else None

    @property
    def count(self) -> int:
        """How many items an iteration gives (found by one, once, when some files may have two names)."""
        if self._count is None:
            self._count = sum(1 for _ in self)
        return self._count

    def __iter__(self) -> Iterator[Item]:
        if self._listed is not None:
            yield from self._listed
            return
        seen: set[str] = set()  # of the real paths a second name may reach, those given already
        twice, named_reals, real = self._twice, self._named, self._real
        for item in self.scripts:
            if twice and item[0] != "-":
                seen.add(real(item[0]))
            yield item
        for path, named in expand(self._paths, excluded=self._excluded, only_yaml=True, scope=self._scope):
            if twice:
                found = real(path)
                if found in twice:
                    if found in seen:
                        continue
                    seen.add(found)
                    named = named or found in named_reals
            yield path, named


def _overlap(paths: list[str]) -> bool:
    """Whether two of the directories among ``paths`` are one, or one holds the other."""
    given = [os.path.realpath(p).rstrip(os.sep) + os.sep for p in paths if p != "-" and os.path.isdir(p)]
    dirs = sorted(set(given))  # a directory's own sorts right before what it holds, with the separator on
    return len(dirs) < len(given) or any(b.startswith(a) for a, b in zip(dirs, dirs[1:]))


def scripts_first(items: Iterable[Item]) -> list[Item]:
    """``items``, the files that are not YAML first, each group in its order."""
    scripts: list[Item] = []
    yaml: list[Item] = []
    for item in items:
        (yaml if is_yaml(item[0]) else scripts).append(item)
    scripts.extend(yaml)
    return scripts


def once_each(items: list[Item], real: Callable[[str], str]) -> list[Item]:
    """Each file once, under the first name it was given by (``a.yaml ./a.yaml``, a symlink to it); ``real``
    gives a path's real path."""
    seen: dict[str, int] = {}
    out: list[Item] = []
    for item in items:
        path, named = item
        real_path = path if path == "-" else real(path)
        if real_path in seen:
            if named:  # named again: it stays a named file (its errors are errors)
                out[seen[real_path]] = (out[seen[real_path]][0], True)
            continue
        seen[real_path] = len(out)
        out.append(item)
    return out
