"""Project configuration: find ``[tool.autofix]`` / ``autofix.toml`` for each checked file and resolve its settings
(the command line over the file), as ruff does. One file is read and checked by ``reading.load``.

Use::

    resolver = Resolver({"select": None, "ignore": ["EP004"]}, config_file=None, isolated=False)
    settings = resolver.settings("deploy/serve.yaml")   # ConfigError (an InputError: exit 2) for a bad file
    settings.policy, settings.facts, settings.target_version, settings.skips(named=True)
    resolver.excluded("deploy/venv", is_dir=True)        # a directory walk asks before it enters one

``keys.KEYS`` is the table of keys (name, type, check, help, default, how the command line combines with it);
``docs/configuration.md`` shows it (``keys.render_keys``).

## Where the configuration comes from
One file configures a checked file: the closest one found walking up from the checked file's directory, up to
the root of the repository holding it (a directory with ``.git``; no higher: a file above a repository is no
part of it), or to the file system's root outside any repository. A file found so is read only where it leads
to a file in its project (``reading.Within``: that repository, else its own directory; or the run's, the repository
holding ``cwd``, else ``cwd``), judged by the file opened (``reads.read_bytes``); elsewhere, a ``ConfigError``. In
each directory ``.autofix.toml`` wins over ``autofix.toml``, which wins over ``pyproject.toml``; the first two
hold their keys at the top level, ``pyproject.toml`` in its ``[tool.autofix]`` table, and a ``pyproject.toml``
without that table does not count (the walk goes on up). Files at different levels are never merged.
``--config-file PATH`` names the one file used for every checked file (a ``pyproject.toml`` named so must have
``[tool.autofix]``); ``--isolated`` uses none. Stdin is configured from the current directory, or from the
directory of ``--stdin-filename``. Each directory is looked at once per run (``Resolver`` keeps what it found).

Paths and globs written in a file are relative to that file's directory (its *root*); those given on the
command line to the current directory.

## How the command line combines with a file
Each key of ``keys.KEYS`` says how (``Key.cli``): ``replaces`` (the command line's value, when given, is used instead
of the file's) or ``extends`` (the file's list, then the command line's). ``select`` also resets the file's
``extend-select``: ``--select`` names the whole selection, as a later layer does in ruff. The file's
``ignore`` and ``unfixable`` still apply under ``--select``; where a selector that turns a rule on and one that
turns it off both match, the more specific one wins (``autofix.core.policy``), so ``--select EP003`` still reports
EP003 when the file ignores ``EP``, and not when it ignores ``EP003`` itself. ``per-file-ignores`` drop the
rules they name for the files they match whatever selects them (as ruff's do). ``--gpu`` replaces the file's
``gpu`` and, when it has a COUNT, the file's ``gpus-per-node``; ``--gpus-per-node`` replaces the count either
of them gives.

## Globs (``exclude``, ``extend-exclude``, ``per-file-ignores``)
Read as gitignore reads them (``autofix.project.globs`` says exactly how): a pattern without ``/`` (``venv``,
``*.sh``) matches a name at any depth, one with ``/`` the path from the root; ``**`` spans directories; a
pattern that matches a directory matches everything below it. Each entry is judged by the configuration of
the directory that holds it; nothing at or above that configuration's root is looked at.

Pure apart from reading the configuration files it finds (``reads.read_bytes``: bounded, regular files only)
and one ``lstat`` per name of the walk up (and one ``stat`` of each directory's ``.git``). A name that is there
but cannot be read as a configuration file (a directory, a FIFO, a device, a symlink to nothing), or a document
tomllib would not read in bounded time (nested too deeply, a dotted key of too many parts:
``limits.MAX_TOML_KEY_PARTS``), is a ``ConfigError``, never passed over.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from autofix.common.errors import ConfigError
from autofix.core.policy import Policy
from autofix.disk.paths import plain, repository_root, within
from autofix.pipeline.facts import Facts, HardwareError, hardware, parse_gpu
from autofix.project import globs
from autofix.project.keys import BY_NAME, EXTENDS, GLOB_TABLE, KEYS, STRINGS, Key, rule_ids, stored

if TYPE_CHECKING:  # read only where a configuration file is found: a run without one never loads it
    from autofix.project import reading

NAMES = (".autofix.toml", "autofix.toml", "pyproject.toml")  # precedence within one directory, highest first


class OptionError(ValueError):
    """A command-line override autofix cannot use (``--select EPX``): ``param`` is the option (``--select``)."""

    def __init__(self, message: str, param: str) -> None:
        super().__init__(message)
        self.param = param


@dataclass(frozen=True)
class Settings:
    """The effective options for one checked file: the command line's over its configuration file's.

    ``values`` holds every key's effective value by name (a key without a field here is read from it);
    ``excluded``: the file matches ``exclude``/``extend-exclude`` (a walk skips it; a file named on the command
    line only with ``force-exclude``: ``skips``). ``config`` is None when no file applies.
    """

    path: str
    config: str | None
    root: str
    target_version: str
    facts: Facts
    policy: Policy
    unsafe_fixes: bool
    show_fixes: bool
    output_format: str
    force_exclude: bool
    excluded: bool
    values: Mapping[str, Any] = field(repr=False)

    def skips(self, named: bool) -> bool:
        """Whether the run skips this file: excluded, and found by a walk or ``force-exclude`` is on."""
        return self.excluded and (not named or self.force_exclude)


class _Failed:
    """A directory whose configuration file cannot be used: asking again raises the same error."""

    __slots__ = ("error",)

    def __init__(self, error: ConfigError) -> None:
        self.error = error


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(eq=False, repr=False)
class _Resolved:
    """One configuration file (or none) with the command line over it: what every file it configures shares."""

    config: reading.Config | None
    root: str
    values: Mapping[str, Any]
    exclude: tuple[tuple[globs.Glob, str], ...]  # exclude + extend-exclude: (glob, the directory it is relative to)
    ignores: tuple[tuple[globs.Glob, str, tuple[str, ...]], ...]  # per-file-ignores: (glob, its root, selectors)
    facts: Facts
    policies: dict[tuple[str, ...], Policy] = field(default_factory=dict)


def _override_error(key: Key) -> Callable[..., OptionError]:
    option = f"--{key.name}"
    return lambda at, message, on_key: OptionError(message.replace(repr(key.name), option, 1), option)


class Resolver:
    """The settings of each checked file of one run: the command line over the closest configuration file.

    ``overrides`` maps key names (``extend_select`` or ``extend-select``) to what the user passed, None for
    unset; lists may be lists or tuples. They are checked here as a file's values are: ``OptionError`` names
    the option. ``config_file`` (``--config-file``) is the one file for every checked file; ``isolated``
    (``--isolated``) reads none; ``stdin_filename`` says where stdin's configuration is looked for (default:
    ``cwd``). ``ConfigError`` is raised for a file that cannot be used, whenever a checked file needs it.

    Each directory's configuration is looked for once; each file once read; each distinct policy built once.
    """

    def __init__(self, overrides: Mapping[str, Any] | None = None, *, config_file: str | None = None,
                 isolated: bool = False, stdin_filename: str | None = None, cwd: str | None = None) -> None:
        if config_file is not None and isolated:
            raise OptionError("--config-file and --isolated cannot be used together", "--isolated")
        self.cwd = os.path.abspath(cwd if cwd is not None else os.getcwd())
        self.isolated = isolated
        self.stdin_filename = stdin_filename
        self._cli = self._overrides(overrides or {})
        self._fixed: reading.Config | None = None
        if config_file is not None:
            from autofix.project import reading

            path = os.path.join(self.cwd, config_file)
            self._fixed = reading.load(path, shown=config_file, required=True)
        self._dirs: dict[str, reading.Config | None | _Failed] = {}
        self._project: str | None = None  # the run's project, for ``_within``: found when first needed
        self._resolved: dict[int, _Resolved] = {}
        self._excluded_dirs: dict[str, bool] = {}

    def _overrides(self, given: Mapping[str, Any]) -> dict[str, Any]:
        out = {}
        for raw_name, value in given.items():
            name = raw_name.replace("_", "-")
            key = BY_NAME.get(name)
            if key is None:
                raise ValueError(f"no configuration key {raw_name!r}")  # a caller's mistake, not the user's
            if value is None:
                continue
            if key.kind is GLOB_TABLE and isinstance(value, (list, tuple)):
                value = dict(value)  # (glob, selectors) pairs
            out[name] = stored(key, _as_toml(value), _override_error(key))
        gpu, per_node = out.get("gpu"), out.get("gpus-per-node")
        if gpu is not None and per_node is not None:
            try:
                hardware(gpu, per_node)
            except HardwareError as exc:
                raise OptionError(str(exc), exc.param) from None
        return out

    # -- discovery

    def config_for(self, path: str) -> reading.Config | None:
        """The configuration file of the checked file ``path`` (``-``: stdin), or None."""
        target = self._target(path)
        return self._config_for_dir(self.cwd if target is None else os.path.dirname(target))

    def _target(self, path: str) -> str | None:
        """The absolute path settings are found for: stdin's filename, if any, for ``-``."""
        if path == "-":
            if self.stdin_filename is None:
                return None
            path = self.stdin_filename
        return os.path.normpath(os.path.join(self.cwd, plain(path)))  # (``lnk/..``: where lnk leads)

    def _config_for_dir(self, directory: str) -> reading.Config | None:
        if self.isolated:
            return None
        if self._fixed is not None:
            return self._fixed
        seen: list[str] = []
        current = directory
        while True:
            if current in self._dirs:
                found = self._dirs[current]
                break
            seen.append(current)
            try:
                found = self._look_in(current)
            except ConfigError as exc:
                found = _Failed(exc)
            if found is not None or os.path.exists(os.path.join(current, ".git")):  # a repository's root: no higher
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        for d in seen:
            self._dirs[d] = found
        if isinstance(found, _Failed):
            raise found.error
        return found

    def _look_in(self, directory: str) -> reading.Config | None:
        for name in NAMES:
            path = os.path.join(directory, name)
            if _named(path):
                from autofix.project import reading

                found = reading.load(path, shown=_shown(path, self.cwd), required=name != "pyproject.toml",
                                     inside=self._within(directory))
                if found is not None:
                    return found
        return None

    def _within(self, directory: str) -> reading.Within:
        """Where a configuration file found in ``directory`` may lead: its project (the repository holding it, else
        ``directory`` itself), or the run's (the repository holding the current directory, else that)."""
        from autofix.project import reading

        if self._project is None:
            self._project = os.path.realpath(repository_root(self.cwd))
        return reading.Within((os.path.realpath(repository_root(directory)), self._project))

    # -- resolution

    def _resolve(self, config: reading.Config | None) -> _Resolved:
        found = self._resolved.get(id(config))
        if found is not None:
            return found
        root = config.root if config is not None else self.cwd
        file_values = dict(config.values) if config is not None else {}
        for name, key in BY_NAME.items():
            if name in self._cli:
                for dropped in key.resets:
                    file_values.pop(dropped, None)
        values: dict[str, Any] = {}
        sources: dict[str, list[tuple[Any, str]]] = {}  # per key: (a part of its value, the directory it is
        # relative to: the file's root or the current directory)
        for key in KEYS:
            mine, theirs = file_values.get(key.name), self._cli.get(key.name)
            if key.cli == EXTENDS:
                parts = [(key.default if mine is None else mine, root), (theirs, self.cwd)]
                parts = [(v, r) for v, r in parts if v]
            elif theirs is not None:
                parts = [(theirs, self.cwd)]
            else:
                parts = [(key.default if mine is None else mine, root)]
            sources[key.name] = parts
            if key.kind in (STRINGS, GLOB_TABLE):
                values[key.name] = tuple(x for v, _ in parts for x in v)
            else:
                values[key.name] = parts[0][0] if parts else None
        exclude = tuple((globs.compile_glob(p), r) for k in ("exclude", "extend-exclude") for v, r in sources[k]
                        for p in v)
        ignores = tuple((globs.compile_glob(g), r, sels) for v, r in sources["per-file-ignores"] for g, sels in v)
        values["gpus-per-node"], facts = self._hardware(file_values)
        found = _Resolved(config, root, MappingProxyType(values), exclude, ignores, facts)
        self._resolved[id(config)] = found
        return found

    def _hardware(self, file_values: Mapping[str, Any]) -> tuple[int | None, Facts]:
        """GPUs per node and the hardware facts: the GPU named on the command line, else in the file; the count
        of ``--gpus-per-node``, else of ``--gpu``, else of the file's ``gpus-per-node``, else of its ``gpu``
        (each source was checked to agree with itself)."""
        gpus = [self._cli.get("gpu"), file_values.get("gpu")]
        parsed = [parse_gpu(g) if g is not None else (None, None) for g in gpus]
        name = parsed[0][0] or parsed[1][0]
        counts = (self._cli.get("gpus-per-node"), parsed[0][1], file_values.get("gpus-per-node"), parsed[1][1])
        count = next((c for c in counts if c is not None), None)
        return count, hardware(name, count)

    def _policy(self, resolved: _Resolved, dropped: tuple[str, ...]) -> Policy:
        """The policy of ``resolved``'s selectors, less every rule ``dropped`` (per-file-ignores) names."""
        found = resolved.policies.get(dropped)
        if found is not None:
            return found
        v = resolved.values
        policy = Policy.build(rule_ids(), select=(*v["select"], *v["extend-select"]), ignore=v["ignore"],
                              fixable=v["fixable"], unfixable=v["unfixable"],
                              extend_safe_fixes=v["extend-safe-fixes"], extend_unsafe_fixes=v["extend-unsafe-fixes"])
        if dropped:
            every = frozenset(r.code for r in rule_ids())
            named = Policy.build(rule_ids(), select=dropped).selected
            kept = (every if policy.selected is None else policy.selected) - (every if named is None else named)
            policy = replace(policy, selected=kept)
        resolved.policies[dropped] = policy
        return policy

    def settings(self, path: str) -> Settings:
        """The settings of checked file ``path`` (``-``: stdin, found from ``stdin_filename`` or ``cwd``).

        Raises ``ConfigError`` when the configuration file that applies cannot be used.
        """
        target, resolved, policy = self._found(path)
        return self._settings(path, resolved, policy, target is not None and self._excluded(target, None))

    def checks(self, path: str) -> tuple[Policy, bool, str, Facts]:
        """What checked file ``path`` is checked with, as ``settings(path)`` gives it: (policy, unsafe-fixes,
        target-version, hardware facts), without building its settings or judging whether it is excluded (the
        walk asked ``skips``): asked of every checked file (issue 15). Raises ``ConfigError`` as ``settings``."""
        _, resolved, policy = self._found(path)
        v = resolved.values
        return policy, v["unsafe-fixes"], v["target-version"], resolved.facts

    def _found(self, path: str) -> tuple[str | None, _Resolved, Policy]:
        """``path``'s target (``_target``), the configuration that applies to it and its policy."""
        target = self._target(path)
        resolved = self._resolve(self._config_for_dir(self.cwd if target is None else os.path.dirname(target)))
        dropped: tuple[str, ...] = ()
        if target is not None:
            name = os.path.basename(target)
            for glob, root, selectors in resolved.ignores:
                if globs.matches(glob, globs.below(target, root), name) != glob.negated:
                    dropped += selectors
        return target, resolved, self._policy(resolved, dropped)

    def skips(self, path: str, named: bool) -> bool:
        """What ``settings(path).skips(named)`` says of the file ``path`` (not a directory), without building its
        settings: a walk asks it of every file it finds (issue 15)."""
        target = self._target(path)
        if target is None:
            return False
        if named and not self._resolve(self._config_for_dir(os.path.dirname(target))).values["force-exclude"]:
            return False
        return self._excluded(target, False)

    def run_settings(self) -> Settings:
        """The settings of the current directory: where the options read once per run come from (``Key.run``:
        ``output-format``, ``show-fixes``), as ruff reads them."""
        resolved = self._resolve(self._config_for_dir(self.cwd))
        return self._settings(".", resolved, self._policy(resolved, ()), False)

    @staticmethod
    def _settings(path: str, resolved: _Resolved, policy: Policy, excluded: bool) -> Settings:
        v = resolved.values
        return Settings(path, None if resolved.config is None else resolved.config.path, resolved.root,
                        v["target-version"], resolved.facts, policy, v["unsafe-fixes"], v["show-fixes"],
                        v["output-format"], v["force-exclude"], excluded, v)

    def excluded(self, path: str, *, is_dir: bool | None = None) -> bool:
        """Whether ``path`` (a file or a directory) matches ``exclude``/``extend-exclude``, or lies in a
        directory that does.

        Each entry is judged by the configuration of the directory that holds it, and only while it lies
        below that configuration's root: a path outside the root by its name alone, a directory above it
        not at all. The current directory and the directories above it are never judged either (a project
        checked out under ``venv/`` is checked from inside it). A walk asks this of each directory before it
        enters it (``is_dir=True`` spares a ``stat`` for a pattern that ends in ``/``); the answers for
        directories are kept.
        """
        return self._excluded(os.path.normpath(os.path.join(self.cwd, plain(path))), is_dir)

    def _excluded(self, path: str, is_dir: bool | None) -> bool:
        # up the path, one directory at a time, until an answer (not by recursion: a path a thousand
        # directories deep would exceed Python's recursion limit, issue 29); each asks only while its parent's
        # answer is its own
        asked: list[str] = []  # the directories whose answer is the one found
        found = False
        while True:
            if is_dir and path in self._excluded_dirs:
                found = self._excluded_dirs[path]
                break
            if is_dir:
                asked.append(path)
            hit, up = self._matched(path, is_dir)
            if hit or not up:
                found = hit
                break
            path, is_dir = os.path.dirname(path), True
        for directory in asked:
            self._excluded_dirs[directory] = found
        return found

    def _matched(self, path: str, is_dir: bool | None) -> tuple[bool, bool]:
        """Whether ``path`` itself matches an exclusion of the configuration of its directory, and whether,
        when it does not, its parent is to be asked (it lies below that configuration's root)."""
        parent = os.path.dirname(path)
        if parent == path or within(self.cwd, path):
            return False, False
        resolved = self._resolve(self._config_for_dir(parent))
        below = globs.below(path, resolved.root)  # None outside the root: judged by its name alone
        name = os.path.basename(path)
        checked = lambda: os.path.isdir(path) if is_dir is None else is_dir  # noqa: E731 - asked if need be
        rel = {resolved.root: below}
        for glob, root in resolved.exclude:
            if root not in rel:
                rel[root] = globs.below(path, root)
            if globs.hit(glob, rel[root], name, checked):
                return True, False
        return False, below is not None


def _as_toml(value: Any) -> Any:
    """A command-line value as tomllib would give it: tuples as lists, mappings as dicts."""
    if isinstance(value, Mapping):
        return {k: _as_toml(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_toml(v) for v in value]
    return value


def _named(path: str) -> bool:
    """Whether a directory holds the name ``path`` (one ``lstat``, as ``isfile`` was one ``stat``): a regular
    file, or anything else that ``reading.load`` then refuses (a directory, a FIFO, a device, a symlink to
    nothing), so that a configuration file that cannot be used stops the run instead of being passed over (issue 29)."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:  # there, but not to be looked at (no permission): load says why
        return exc.errno != errno.ENAMETOOLONG  # in a directory too deep to name (PATH_MAX): no file by this path
    return True


def _shown(path: str, cwd: str) -> str:
    """``path`` as errors name it: relative to ``cwd`` when below it, else absolute."""
    return globs.below(path, cwd) or path
