"""The ``--config`` files of a run, as this host has them: the core's way to them (``on_disk``: a
``disk.files.FileSet``'s reads as a ``ConfigReader``), where a ``--config`` word leads (``config_path``), and which
files more than one launch of the run reads (``shared``).

The core decides nothing about the disk: what a path leads to, which two paths are one file (the real
path), and what a file the run may not read means (``reads.NotRead``: a ``Withheld`` note) are said here.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from autofix.adapters import detect
from autofix.core.api import config_files
from autofix.core.options import ConfigReader, FixOptions, Withheld
from autofix.disk.files import FileSet
from autofix.disk.paths import normalize
from autofix.disk.reads import NotRead
from autofix.disk.scope import Scope

if TYPE_CHECKING:
    from autofix.core.policy import Policy
    from autofix.schema import Schema


def config_path(launching: str, written: str) -> str:
    """The path of ``--config`` file ``written``, relative to the launching file ``launching``'s directory, leading
    where the system's look-up of it leads (``paths.normalize``: ``lnk/../p.yaml`` stays as it is when ``lnk`` is a
    symlink, which ``..`` leaves from where it leads)."""
    return normalize(os.path.join(os.path.dirname(launching), written))


def on_disk(read: Callable[[str], str | None], *, shared: frozenset[str] = frozenset(),
            policy: Callable[[str], Policy] | None = None) -> ConfigReader:
    """The ``ConfigReader`` of files on this host read by ``read`` (a ``disk.files.FileSet``'s ``read_config``, or any
    function of a path that gives its text or None when there is none, and raises ``reads.NotRead`` for a file
    it may not read, ``InputError`` for one that is not UTF-8 text): a ``--config`` path leads where the system
    leads it (``config_path``), a file is known by its real path, ``shared`` are the real paths of files
    launches of other texts read, ``policy`` the policy of a file's diagnostics."""
    def read_config(path: str) -> str | Withheld | None:
        try:
            return read(path)
        except NotRead as exc:  # outside the project, excluded, a FIFO: unknown, with a note
            return Withheld(exc.message, exc.hint)

    return ConfigReader(read_config, config_path, os.path.realpath, shared, policy)


def shared(scripts: list[tuple[str, bool]], schema: Schema, scope: Scope | None = None) -> frozenset[str]:
    """The real paths of the ``--config`` files more than one launch of ``scripts`` (path, named) reads.

    Each script is counted once (by real path), read as it is now, as the run reads it (``scope``: not a
    walked symlink to a file outside it); one that cannot be read counts for nothing (it is reported when
    it is checked).
    """
    count: Counter[str] = Counter()
    seen: set[str] = set()
    disk = FileSet(writes=False, scope=scope)
    options = FixOptions(schema=schema)
    for path, named in scripts:
        if path == "-" or os.path.realpath(path) in seen:
            continue
        seen.add(os.path.realpath(path))
        try:
            text = disk.read(path, named=named)
            adapter = detect(path, text)
            if adapter is None or "config" not in text:  # no --config word (cheap: most scripts)
                continue
            count.update(os.path.realpath(c) for c in config_files(text, adapter, path=path, options=options,
                                                                   place=config_path))
        except Exception:  # noqa: BLE001 - reported when the script is checked (in the guard)
            continue
    return frozenset(p for p, n in count.items() if n > 1)
