"""One configuration file (``.autofix.toml``, ``autofix.toml``, or ``pyproject.toml``'s ``[tool.autofix]``) read and
checked (``load``): its keys' values (``Config``), or a ``ConfigError`` naming the key and its line. Read bounded
(``reads.read_bytes``), and, for a file found by discovery, only where it leads into its project (``Within``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from autofix.common.errors import ConfigError, InputError
from autofix.common.limits import MAX_TOML_KEY_PARTS
from autofix.disk.encoding import decode
from autofix.disk.paths import within
from autofix.disk.reads import Outside, read_bytes
from autofix.pipeline.facts import parse_gpu
from autofix.project.keys import BY_NAME, stored, suggest, toml_type

if TYPE_CHECKING:
    import tomllib

TABLE = ("tool", "autofix")  # where pyproject.toml holds the keys


@dataclass(frozen=True, slots=True, eq=False)
class Config:
    """One configuration file, read and checked: its keys' values (normalised, kebab-case names).

    ``path`` is absolute, ``shown`` as errors name it, ``root`` the directory its relative paths start from.
    """

    path: str
    shown: str
    root: str
    values: Mapping[str, Any]
    text: str = field(repr=False)
    table: tuple[str, ...] = ()  # where the keys are: TABLE in a pyproject.toml, () at the top level

    def error(self, at: tuple[str | int, ...], message: str, *, value: bool = True) -> ConfigError:
        """A ``ConfigError`` at key path ``at`` (below this file's table): at the value, or at the key."""
        from autofix.project import toml_positions  # only to report an error in a settings file

        line, col = toml_positions.locate(self.text, (*self.table, *at), value=value, table=self.table)
        prefix = "[tool.autofix] " if self.table else ""
        return ConfigError(self.shown, line, col, prefix + message)


def _toml_error(shown: str, text: str, exc: tomllib.TOMLDecodeError) -> ConfigError:
    """tomllib's message, at its position."""
    from autofix.project import toml_positions

    line, col, message = toml_positions.decode_error(text, str(exc))
    return ConfigError(shown, line, col, f"invalid TOML: {message}")


def _check_key_parts(shown: str, text: str) -> None:
    """Raise ``ConfigError`` at a dotted key or table name of more than ``MAX_TOML_KEY_PARTS`` parts, which
    tomllib would read in time growing with their square (``limits``)."""
    from autofix.project import toml_positions

    offset = toml_positions.long_key(text, MAX_TOML_KEY_PARTS)
    if offset is not None:
        line, col = toml_positions.line_col(text, offset)
        raise ConfigError(shown, line, col, f"a dotted key or table name of more than {MAX_TOML_KEY_PARTS} parts "
                                            f"(autofix reads at most {MAX_TOML_KEY_PARTS})")


def _depth_error(shown: str, text: str) -> ConfigError:
    """Arrays or inline tables nested too deeply for tomllib, at the outermost bracket of the deepest nest."""
    from autofix.project import toml_positions

    offset, depth = toml_positions.deepest(text)
    line, col = toml_positions.line_col(text, offset)
    return ConfigError(shown, line, col, f"too deeply nested to read: arrays or inline tables {depth:,} deep")


@dataclass(frozen=True, slots=True)
class Within:
    """The real paths a configuration file found by discovery may lead to: at or under one of ``roots`` (real
    paths; the first is the project a message names)."""

    roots: tuple[str, ...]

    def __call__(self, real: str) -> bool:
        return any(within(real, root) for root in self.roots)


def _read(path: str, shown: str, inside: Within | None = None) -> str:
    try:
        return decode(read_bytes(path, inside=inside)[0], shown).removeprefix("\ufeff")
    except Outside:
        assert inside is not None  # raised only for a read bounded by ``inside``
        raise ConfigError(shown, 1, 1, f"leads to a file outside the project ({inside.roots[0]}): not read "
                                       "(--config-file names a configuration file to use wherever it is)") from None
    except InputError as exc:  # unreadable, not a regular file, too large, not UTF-8
        raise ConfigError(shown, exc.line, exc.col, _dangling(path) or exc.message) from None


def _dangling(path: str) -> str | None:
    """What to say of ``path`` when it is a symlink to nothing (a bare "No such file" would puzzle), else None."""
    try:
        os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            return f"cannot read: a symlink to {os.readlink(path)!r}, which does not exist"
    except OSError:
        pass
    return None


def load(path: str, *, shown: str | None = None, required: bool = True, inside: Within | None = None) -> Config | None:
    """Read and check the configuration file at ``path``.

    A ``pyproject.toml`` without ``[tool.autofix]`` gives None, or, when ``required`` (a file named by
    ``--config-file``), a ``ConfigError``; so does any file autofix cannot read, parse or use (the error names
    the key and its line). A ``pyproject.toml`` that does not mention ``autofix`` at all is not parsed (a
    broken one elsewhere in the tree is no concern of autofix's). ``inside`` (a file found by discovery): a
    file that leads elsewhere (its real path, and that of the file opened) is a ``ConfigError`` too, and not
    read.
    """
    path = os.path.abspath(path)
    shown = shown or path
    text = _read(path, shown, inside)
    is_pyproject = os.path.basename(path) == "pyproject.toml"
    if is_pyproject and not required and "autofix" not in text:
        return None
    import tomllib  # here, not at the top: a run without a settings file never parses TOML (start-up, issue 15)

    if text.count(".") >= MAX_TOML_KEY_PARTS:  # else no key has that many parts
        _check_key_parts(shown, text)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _toml_error(shown, text, exc) from None
    except RecursionError:  # tomllib recurses once per level of nesting: ~300 are too many for it
        raise _depth_error(shown, text) from None
    data: object = document  # the table of autofix's keys: pyproject.toml's [tool.autofix] is any TOML value
    table: tuple[str, ...] = ()
    if is_pyproject:
        table = TABLE
        tool = document.get("tool")
        data = tool.get("autofix") if isinstance(tool, dict) else None
        if data is None:
            if required:
                raise ConfigError(shown, 1, 1, "no [tool.autofix] table (a pyproject.toml named by --config-file "
                                               "must have one)")
            return None
    config = Config(path, shown, os.path.dirname(path), MappingProxyType({}), text, table)
    if not isinstance(data, dict):
        raise config.error((), f"must be a table, not {toml_type(data)}")
    return replace(config, values=MappingProxyType(_checked(config, data)))


def _checked(config: Config, data: Mapping[str, Any]) -> dict[str, Any]:
    """The file's keys, each of the right type and usable, normalised; raises ``ConfigError`` at the first that
    is not (in the file's order)."""
    out: dict[str, Any] = {}
    for name, raw in data.items():
        key = BY_NAME.get(name)
        if key is None:
            raise config.error((name,), _unknown(name), value=False)
        out[name] = stored(key, raw,
                           lambda at, msg, on_key: config.error((name, *at), msg, value=not on_key))  # noqa: B023
    gpu, per_node = out.get("gpu"), out.get("gpus-per-node")
    if gpu is not None and per_node is not None and parse_gpu(gpu)[1] not in (None, per_node):
        raise config.error(("gpus-per-node",), f"'gpus-per-node' is {per_node}, but gpu = {gpu!r} says "
                                               f"{parse_gpu(gpu)[1]} GPUs per node")
    return out


def _unknown(name: str) -> str:
    kebab = name.replace("_", "-")
    if kebab != name and kebab in BY_NAME:
        return f"unknown key {name!r} (did you mean {kebab!r}? keys are kebab-case)"
    return f"unknown key {name!r}{suggest(name, BY_NAME)}"
