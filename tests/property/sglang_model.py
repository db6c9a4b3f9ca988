"""Models of how SGLang reads its arguments, for tests to compare autofix with.

``real_parser()`` is a real ``argparse.ArgumentParser`` built from the schema
(argparse's own algorithm, not autofix's); ``merger_words`` is SGLang 0.5.23's
``ConfigArgumentMerger._convert_config_to_args`` (``srt/utils/server_args_config_parser.py``)
applied to ``yaml.safe_load`` of a config text.

The parser marks nothing required: autofix reads partial argument lists (a
``--config`` file, one half of a merge), so a missing ``--model-path`` is not
its business. SGLang's custom actions are modelled as the plain action they
behave like; they are in the parser so that abbreviations resolve against
the full table.
"""

from __future__ import annotations

import argparse
import json
from functools import cache
from typing import Any

import yaml
from strategies import SCHEMA

from autofix.common import argtypes
from autofix.schema import Option

# SGLang's value converters: Python's own, and SGLang's (human_readable_int, json_list_type, ...) as
# autofix.common.argtypes writes them, which tests/oracle/test_argtypes.py checks against SGLang's own functions. What is
# compared here is argparse's reading of the words around them.
CONVERTERS = {name: argtypes.converter(name, SCHEMA.version) for name in argtypes.KNOWN if name != "str"}


class Refused(Exception):
    """argparse called ``error()`` (or ``exit(0)``, for ``--help``: ``help`` is then True)."""

    def __init__(self, message: str, help: bool = False) -> None:
        super().__init__(message)
        self.help = help


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Refused(message)

    def exit(self, status=0, message=None):
        raise Refused(message or f"exit {status}", help=status == 0)

    def print_help(self, file=None):
        pass


def _add(parser: argparse.ArgumentParser, o: Option) -> None:
    flags = list(o.flags)
    kw: dict = {"dest": o.dest}
    if o.kind == "store_true":
        kw["action"] = "store_true"
    elif o.kind == "boolean_optional":
        negatives = {"--no-" + f[2:] for f in o.flags}
        flags = [f for f in o.flags if f not in negatives]  # the action adds --no-<flag> itself
        kw["action"] = argparse.BooleanOptionalAction
    elif o.kind == "store_const" or o.nargs == 0:  # store_const, or a custom zero-argument action
        kw.update(action="store_const", const=True if o.const is None else o.const)
    else:  # store, or a custom action taking values
        kw["type"] = CONVERTERS.get(o.type or "str", str)
        if o.nargs is not None:
            kw["nargs"] = o.nargs
        if o.nargs == "?":
            kw["const"] = o.const
        if o.choices is not None:
            kw["choices"] = list(o.choices)
    parser.add_argument(*flags, **kw)


@cache
def real_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="sglang serve", argument_default=argparse.SUPPRESS)
    for o in SCHEMA.options:
        _add(parser, o)
    return parser


def argparse_reads(words: list[str]) -> dict | str | None:
    """argparse's namespace as a dict, ``"help"`` when it prints the usage and exits, None when it refuses."""
    try:
        return vars(real_parser().parse_args(words))
    except Refused as exc:
        return "help" if exc.help else None


# --- the --config merger ----------------------------------------------------------


def _keys(o: Option) -> set[str]:
    return {o.dest} | {f[2:].replace("-", "_") for f in o.flags if f.startswith("--")}


_STORE_TRUE_KEYS = frozenset(k for o in SCHEMA.options if o.kind == "store_true" for k in _keys(o))
_REFUSED_KEYS = frozenset(k for o in SCHEMA.options if o.config_file == "refused" for k in _keys(o)) - frozenset(
    k for o in SCHEMA.options if o.config_file != "refused" for k in _keys(o)
)


def merger_words(text: str) -> list[str] | None:
    """The words SGLang's merger makes of a config text, or None when it refuses the file."""
    data = yaml.safe_load(text)  # SGLang: open(path, "r") then yaml.safe_load
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return None
    words: list[str] = []
    for key, value in data.items():
        norm = key.replace("-", "_")
        if norm in _REFUSED_KEYS:
            return None
        if isinstance(value, bool):
            if norm in _STORE_TRUE_KEYS:
                words.extend([f"--{key}"] if value else [])
            else:
                words.extend([f"--{key}", str(value).lower()])
        elif isinstance(value, list):
            if value:
                words.extend([f"--{key}", *(str(v) for v in value)])
        elif isinstance(value, dict):
            words.extend([f"--{key}", json.dumps(value)])
        else:
            words.extend([f"--{key}", str(value)])
    return words


def sglang_reads_config(text: str) -> dict[str, Any] | None:
    """What SGLang's argparse stage makes of a ``--config`` text alone, or None if refused."""
    words = merger_words(text)
    return None if words is None else argparse_reads(words)
