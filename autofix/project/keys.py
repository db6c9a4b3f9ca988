"""The keys a configuration file may hold (``KEYS``): each one's name, TOML type, check, help, default, and how the
command line combines with it (``Key.cli``); a value of the file or of the command line turned into the form the
key stores (``stored``), or refused with where and why. ``docs/configuration.md`` shows the table
(``render_keys``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from autofix.core.policy import ALL, RuleId, first_unknown
from autofix.disk.walk import SKIP_DIRS
from autofix.pipeline.facts import HardwareError, hardware
from autofix.schema import DEFAULT_VERSION


class Invalid(ValueError):
    """Raised by a key's check: the value has the right type but autofix cannot use it.

    ``at`` is the path from the key to the offending part (``(2,)``: the list's third item); ``on_key``: the
    part is a key (a glob of ``per-file-ignores``), so the error points at it rather than at its value.
    """

    def __init__(self, message: str, at: tuple[str | int, ...] = (), on_key: bool = False) -> None:
        super().__init__(message)
        self.at = at
        self.on_key = on_key


# --- value types -------------------------------------------------------------------------------------------


def toml_type(value: Any) -> str:
    """The TOML type of ``value``, with its article ("a string", "an integer")."""
    if isinstance(value, bool):
        return "a boolean"
    for kind, name in ((str, "a string"), (int, "an integer"), (float, "a float"), (list, "a list"),
                       (dict, "a table")):
        if isinstance(value, kind):
            return name
    return f"a {type(value).__name__}"  # datetime, date, time


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Kind:
    """The TOML type a key's value must have: ``mismatch`` says where and how a value differs from it (None:
    it has it), ``normalise`` makes the stored form (tuples for lists)."""

    what: str  # "a list of strings"
    mismatch: Callable[[Any], tuple[tuple[str | int, ...], str] | None]
    normalise: Callable[[Any], Any] = lambda v: v


def _scalar(kind: type, what: str) -> Kind:
    def mismatch(v):
        ok = isinstance(v, kind) and (kind is bool or not isinstance(v, bool))
        return None if ok else ((), f"not {toml_type(v)}")
    return Kind(what, mismatch)


def _strings_mismatch(v: Any, at: tuple[str | int, ...] = (), of: str = "") -> tuple[tuple, str] | None:
    if not isinstance(v, list):
        return at, f"not {toml_type(v)}" if not of else f"but {of} is {toml_type(v)}"
    for i, item in enumerate(v):
        if not isinstance(item, str):
            return (*at, i), f"but item {i + 1}{' of ' + of if of else ''} is {toml_type(item)}"
    return None


def _table_mismatch(v: Any) -> tuple[tuple, str] | None:
    if not isinstance(v, dict):
        return (), f"not {toml_type(v)}"
    for glob, selectors in v.items():
        found = _strings_mismatch(selectors, (glob,), repr(glob))
        if found:
            return found
    return None


STRING = _scalar(str, "a string")
INTEGER = _scalar(int, "an integer")
BOOLEAN = _scalar(bool, "a boolean")
STRINGS = Kind("a list of strings", _strings_mismatch, tuple)
GLOB_TABLE = Kind("a table of glob = [selectors]", _table_mismatch,
                  lambda v: tuple((g, tuple(s)) for g, s in v.items()))

# --- checks (a value of the right type that autofix cannot use raises Invalid) ------------------------------


def suggest(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``known``, or ``""``."""
    if len(word) > 100:  # far from every name (difflib would index all of it first)
        return ""
    import difflib

    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


@lru_cache(maxsize=1)
def rule_ids() -> tuple[RuleId, ...]:
    """Every rule a selector can name (``autofix.rules.RULES``), imported on first use."""
    from autofix.rules import RULES

    return tuple(RuleId(r.code, r.name) for r in RULES)  # type: ignore[arg-type]  # a derivation there has both


def _check_version(value: str) -> None:
    from autofix.schema import versions

    if value not in versions():
        raise Invalid(f"no argument table for SGLang {value}; one of: {', '.join(versions())}")


def _check_gpu(value: str) -> None:
    try:
        hardware(value)
    except HardwareError as exc:
        raise Invalid(str(exc)) from None


def _check_gpus_per_node(value: int) -> None:
    try:
        hardware(None, value)
    except HardwareError as exc:
        raise Invalid(str(exc)) from None


def _check_selectors(value: Sequence[str]) -> None:
    rules = rule_ids()
    i = first_unknown(value, rules)  # linear in the selectors (a 16 MB list: issue 29)
    if i is not None:
        known = [r.code for r in rules] + [r.name for r in rules]
        raise Invalid(f"{value[i]!r} names no rule (a code such as EP003, a prefix such as EP, a rule name, "
                      f"or ALL; see `autofix rules`){suggest(value[i], known)}", (i,))


def _glob_problem(pattern: str, negation: bool) -> str | None:
    if pattern.startswith("!") and not negation:
        return f"{pattern!r}: '!' (negation) is only read in per-file-ignores"
    if not pattern.lstrip("!").strip("/").removeprefix("./"):
        return f"{pattern!r} is not a glob (empty)"
    return None


def _check_globs(value: Sequence[str]) -> None:
    for i, pattern in enumerate(value):
        problem = _glob_problem(pattern, negation=False)
        if problem:
            raise Invalid(problem, (i,))


def _check_glob_table(value: Sequence[tuple[str, Sequence[str]]]) -> None:
    for glob, selectors in value:
        problem = _glob_problem(glob, negation=True)
        if problem:
            raise Invalid(problem, (glob,), on_key=True)
        try:
            _check_selectors(selectors)
        except Invalid as exc:
            raise Invalid(str(exc), (glob, *exc.at)) from None


def _check_output_format(value: str) -> None:
    from autofix.report import FORMATS

    if value not in FORMATS:
        raise Invalid(f"unknown output format {value!r}; one of: {', '.join(FORMATS)}{suggest(value, FORMATS)}")


# --- the keys ------------------------------------------------------------------------------------------------

REPLACES, EXTENDS = "replaces", "extends"  # how a command-line value combines with the file's (Key.cli)


# never compared or printed: no __eq__ or __repr__ to compile at start-up (issues 15, 30)
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Key:
    """One configuration key: its kebab-case name, type, check, help, and how the command line combines with it.

    ``check`` raises ``Invalid`` for a value of the right type that autofix cannot use. ``cli``: ``replaces``
    (the command line's value, when given, instead of the file's) or ``extends`` (the file's list, then the
    command line's). ``resets``: keys whose file value a command-line value of this key drops too.
    ``run``: the key is read once per run, from the current directory's configuration (``Resolver.run_settings``).
    """

    name: str
    kind: Kind
    check: Callable[[Any], None] | None
    help: str
    default: Any = None
    cli: str = REPLACES
    resets: tuple[str, ...] = ()
    run: bool = False

    @property
    def dest(self) -> str:
        """The name as a Python identifier (``extend_select``): the command line's parameter, an override's key."""
        return self.name.replace("-", "_")


KEYS: tuple[Key, ...] = (
    Key("target-version", STRING, _check_version, "The SGLang release the configs must start on.",
        DEFAULT_VERSION),
    Key("gpu", STRING, _check_gpu, "The GPUs the launches run on: NAME or COUNTxNAME (h200, 8xh200); "
        "`--gpu COUNTxNAME` also replaces the file's gpus-per-node."),
    Key("gpus-per-node", INTEGER, _check_gpus_per_node, "GPUs per node (the COUNT of gpu, which it must match; "
        "`--gpus-per-node` replaces the COUNT of the file's gpu)."),
    Key("select", STRINGS, _check_selectors, "The rules to report, as selectors: a code (EP003), a prefix (EP), "
        "a rule name or ALL.", (ALL,), resets=("extend-select",)),
    Key("extend-select", STRINGS, _check_selectors, "Rules to report besides select's.", (), EXTENDS),
    Key("ignore", STRINGS, _check_selectors, "Rules not to report.", (), EXTENDS),
    Key("fixable", STRINGS, _check_selectors, "The rules whose fixes may be applied.", (ALL,)),
    Key("unfixable", STRINGS, _check_selectors, "Rules whose fixes are only shown, never applied.", (), EXTENDS),
    Key("extend-safe-fixes", STRINGS, _check_selectors, "Rules whose fixes count as safe (applied by --write).",
        (), EXTENDS),
    Key("extend-unsafe-fixes", STRINGS, _check_selectors, "Rules whose fixes count as unsafe (applied only with "
        "unsafe-fixes); unsafe wins where both name a rule.", (), EXTENDS),
    Key("per-file-ignores", GLOB_TABLE, _check_glob_table, "Rules not to report in the files a glob matches, "
        "whatever selects them; a glob starting with ! applies to the files it does not match.", (), EXTENDS),
    Key("exclude", STRINGS, _check_globs, "Globs of the files and directories a walk skips (replaces the "
        "default list).", tuple(sorted(SKIP_DIRS))),
    Key("extend-exclude", STRINGS, _check_globs, "Globs a walk skips besides exclude's.", (), EXTENDS),
    Key("force-exclude", BOOLEAN, None, "Skip excluded files even when named on the command line (as pre-commit "
        "names them).", False),
    Key("unsafe-fixes", BOOLEAN, None, "Also offer and apply fixes that change behaviour.", False),
    Key("show-fixes", BOOLEAN, None, "List every fix under each violation.", False, run=True),
    Key("output-format", STRING, _check_output_format, "How diagnostics are printed: full, concise, json, "
        "json-lines, sarif, github, rdjson or gitlab.", "full", run=True),
)
BY_NAME: Mapping[str, Key] = MappingProxyType({k.name: k for k in KEYS})


def render_keys() -> str:
    """The keys as a Markdown table (``docs/configuration.md`` holds it; a test keeps the two the same)."""
    rows = ["| key | type | default | the command line's value | what it does |", "|---|---|---|---|---|"]
    for k in KEYS:
        default = "" if k.default in (None, ()) else f"`{_toml(k.default)}`"
        how = f"{k.cli} the file's" + (f" (and drops its {', '.join(f'`{r}`' for r in k.resets)})" if k.resets
                                       else "")
        run = " Read once per run, from the current directory's configuration." if k.run else ""
        rows.append(f"| `{k.name}` | {k.kind.what} | {default} | {how} | {k.help}{run} |")
    return "\n".join(rows) + "\n"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def stored(key: Key, raw: Any, error: Callable[..., Exception]) -> Any:
    """``raw`` as key ``key`` stores it; ``error(at, message, on_key)`` makes the exception raised when it
    cannot be."""
    found = key.kind.mismatch(raw)
    if found is not None:
        at, detail = found
        raise error(at, f"{key.name!r} must be {key.kind.what}, {detail}", False)
    value = key.kind.normalise(raw)
    if key.check is not None:
        try:
            key.check(value)
        except Invalid as exc:
            raise error(exc.at, f"{key.name!r}: {exc}", exc.on_key) from None
    return value
