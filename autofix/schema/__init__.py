"""SGLang's argument table (the *schema*) for one SGLang version.

The table is generated from SGLang's own argparse parser by
``scripts/gen_schema.py`` and shipped as JSON; nothing in it is typed by hand.
``Schema.match`` resolves an option string the way SGLang's parser does
(exact spelling or declared alias, then argparse's unique-prefix abbreviation).

May import: nothing of autofix (the bottom layer).
"""

from __future__ import annotations

import bisect
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

DEFAULT_VERSION = "0.5.23"


@dataclass(frozen=True, slots=True)
class Option:
    """One argparse option of ``sglang serve`` / ``python -m sglang.launch_server``.

    ``kind`` is ``store``, ``store_true``, ``store_const``, ``boolean_optional``
    or ``custom``; ``nargs`` is argparse's (None = one value, 0 = none, or
    ``"?"``, ``"*"``, ``"+"``); ``type`` names the converter (``int``, ``float``,
    ``str``, ``json`` or a dotted SGLang function name); ``config_file`` says how
    SGLang's ``--config`` merger treats a YAML key of it (``store_true``,
    ``value`` or ``refused``).
    """

    dest: str
    flags: tuple[str, ...]
    kind: str
    nargs: int | str | None
    const: Any
    type: str | None
    default: Any
    choices: tuple[Any, ...] | None
    required: bool
    config_file: str
    deprecated: bool
    help: str

    @property
    def flag(self) -> str:
        """The canonical spelling: ``--`` + dest with hyphens if declared, else the first flag."""
        canonical = "--" + self.dest.replace("_", "-")
        return canonical if canonical in self.flags else self.flags[0]

    @property
    def is_store_true(self) -> bool:
        """A flag that takes no value and sets True."""
        return self.kind == "store_true"


@dataclass(frozen=True, slots=True)
class Match:
    """How one command-line word resolves against the option table.

    ``status``: ``exact`` (declared spelling), ``prefix`` (argparse abbreviation),
    ``ambiguous`` (a prefix of several options: argparse errors out), or
    ``unknown``. ``explicit`` is the text after ``=`` in ``--flag=value``.
    """

    status: str
    option: Option | None
    written: str  # the option part as written, without "=value"
    explicit: str | None
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Step:
    """One step of SGLang's resolution, in the order SGLang runs them (``scripts/sglang_steps.py``).

    ``id`` is the function's name (``name#2`` for its second run); ``kind``
    is ``hook`` (``run_hook``), ``pass`` (``run_post_process_pass``), ``call``
    or ``check`` (``check_server_args``, after the pipeline); ``module`` the
    file defining it and ``line`` its ``def`` there (relative to
    ``sglang/srt/``); ``call`` the ``pipeline.py`` line running it (None for
    ``check``); ``when`` an enclosing condition's source text; ``model_only``
    whether it runs only for a launch that names a model (not
    ``--model-path dummy``).
    """

    id: str
    name: str
    kind: str
    module: str
    line: int
    call: int | None
    when: str | None
    model_only: bool


class Schema:
    """The option table of one SGLang version, indexed by flag and by dest, and its resolution steps."""

    def __init__(self, version: str, options: tuple[Option, ...], steps: tuple[Step, ...] = ()) -> None:
        self.version = version
        self.options = options
        self.steps = steps
        self.by_flag: dict[str, Option] = {f: o for o in options for f in o.flags}
        for f in HELP.flags:  # argparse adds -h/--help to SGLang's parser (add_help defaults to True)
            self.by_flag.setdefault(f, HELP)
        self.by_dest: dict[str, Option] = {}
        for o in options:
            self.by_dest.setdefault(o.dest, o)
        self.defaults: dict[str, Any] = {dest: o.default for dest, o in self.by_dest.items()}
        self._long_flags = tuple(f for f in self.by_flag if f.startswith("--"))
        self._sorted_flags: list[str] = []  # the long flags in sorted order (made on first use)
        self._prefixes: dict[str, tuple[str, ...]] = {}  # abbreviation -> the long flags it starts
        self._exact: dict[str, Match] = {}  # flag -> its exact match

    def __getitem__(self, dest: str) -> Option:
        return self.by_dest[dest]

    def default(self, dest: str) -> Any:
        """SGLang's argparse default for ``dest``; raises ``KeyError`` for an unknown dest."""
        return self.by_dest[dest].default

    def _starting(self, prefix: str) -> tuple[str, ...]:
        """The long flags that start with ``prefix``, in the table's order (argparse's): found by bisection, as a
        file may hold 100 000 distinct unknown keys (a scan of every flag for each was seconds)."""
        flags = self._sorted_flags
        if not flags:
            flags.extend(sorted(self._long_flags))
        i = j = bisect.bisect_left(flags, prefix)
        while j < len(flags) and flags[j].startswith(prefix):
            j += 1
        if j - i < 2:
            return tuple(flags[i:j])
        wanted = set(flags[i:j])
        return tuple(f for f in self._long_flags if f in wanted)

    def match(self, word: str) -> Match:
        """Resolve ``word`` (which starts with ``-``) as argparse would (Python 3.11).

        Order: exact flag; ``flag=value`` with an exact flag; then unique
        prefixes of long flags (``--tp`` -> ``--tp-size``), ambiguous when more
        than one flag starts with the prefix.
        """
        found = self._exact.get(word)
        if found is not None:
            return found
        if word in self.by_flag:  # kept: each key of a file is matched by four readers
            found = self._exact[word] = Match("exact", self.by_flag[word], word, None)
            return found
        written, explicit = word, None
        if "=" in word:
            written, explicit = word.split("=", 1)
            if written in self.by_flag:
                return Match("exact", self.by_flag[written], written, explicit)
        if word.startswith("--"):
            hits = self._prefixes.get(written)
            if hits is None:  # once per abbreviation (a script may repeat one 10 000 times)
                hits = self._prefixes[written] = self._starting(written)
            if len(hits) == 1:
                return Match("prefix", self.by_flag[hits[0]], written, explicit)
            if len(hits) > 1:
                return Match("ambiguous", None, written, explicit, hits)
        return Match("unknown", None, written, explicit)


# Not a server argument, so the generated tables leave it out; it still takes part in prefix matching.
HELP = Option(dest="help", flags=("-h", "--help"), kind="help", nargs=0, const=None, type=None, default=None,
              choices=None, required=False, config_file="refused", deprecated=False,
              help="argparse's help: prints the usage and exits; the server does not start")


def _option(raw: dict) -> Option:
    choices = raw["choices"]
    return Option(
        dest=raw["dest"],
        flags=tuple(raw["flags"]),
        kind=raw["kind"],
        nargs=raw["nargs"],
        const=raw["const"],
        type=raw["type"],
        default=raw["default"],
        choices=None if choices is None else tuple(choices),
        required=raw["required"],
        config_file=raw["config_file"],
        deprecated=raw["deprecated"],
        help=raw["help"],
    )


def load(version: str = DEFAULT_VERSION) -> Schema:
    """Load the shipped table for ``version``, once per process.

    Raises ``FileNotFoundError`` when no table ships for that version.
    """
    return _load(version)  # one cache key per version: ``load()`` and ``load("0.5.23")`` share the table


# The tables' folder, read with plain os calls: importlib.resources (with the tempfile and zipfile modules it
# imports) was ~5 ms of every start-up (issue 15), and autofix is installed as files (a wheel), not zipped.
_HERE = os.path.dirname(os.path.abspath(__file__))


@cache
def _load(version: str) -> Schema:
    with open(os.path.join(_HERE, f"sglang-{version}.json"), encoding="utf-8") as f:
        text = f.read()
    data = json.loads(text)
    steps = tuple(Step(**s) for s in data.get("steps", ()))
    return Schema(data["sglang_version"], tuple(_option(o) for o in data["options"]), steps)


@cache
def versions() -> tuple[str, ...]:
    """The SGLang versions a table ships for, oldest first (``sglang-<version>.json``; the other data files
    here, ``sglang-<version>-messages.json`` and ``-coverage.json``, are ``autofix explain``'s)."""
    names = os.listdir(_HERE)
    found = [m.group(1) for n in names if (m := re.fullmatch(r"sglang-(\d+(?:\.\d+)*)\.json", n))]
    return tuple(sorted(found, key=lambda v: tuple(map(int, re.findall(r"\d+", v)))))


def others_of(schema: Schema) -> Sequence[Schema]:
    """The shipped tables of every version but ``schema``'s (for migrations), read on first use: only an
    option the target release refuses is looked up in them, so a clean file never reads them (issue 15's
    cold start)."""
    return _Others(schema.version)


class _Others(Sequence):
    """The tables of every shipped version but ``version``, a read-only sequence that loads them (once per
    process, ``_others``' cache) when first indexed, iterated or measured."""

    __slots__ = ("version",)

    def __init__(self, version: str) -> None:
        self.version = version

    def __getitem__(self, index):
        return _others(self.version)[index]

    def __len__(self) -> int:
        return len(_others(self.version))

    def __iter__(self) -> Iterator[Schema]:
        return iter(_others(self.version))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Others):
            return self.version == other.version
        return tuple(self) == other if isinstance(other, tuple) else NotImplemented

    def __hash__(self) -> int:
        return hash(_others(self.version))

    def __repr__(self) -> str:
        return f"others_of({self.version!r})"


@cache
def _others(version: str) -> tuple[Schema, ...]:
    return tuple(load(v) for v in versions() if v != version)
