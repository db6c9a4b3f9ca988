"""What the argparse-stage rules read: how one file's settings of a launch are written.

The semantic rules read resolved values (``resolve.View``); these rules read
the words themselves, before SGLang's parser has turned them into values:
unknown spellings, refused choices, repeated settings, keys its ``--config``
reader treats differently from what the author meant.

A launch may be written in two files: a command line and the ``--config``
file it names, which SGLang merges (the file's settings first, the command
line's win). The rules see one file's entries, but the settings of the whole
launch (``Written.values``, ``Layers``): a rule that reads what a dest is
set to, or whether it is set, cannot see one side of the merge only. A rule
that reads no dest judges spellings, and needs nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from autofix.common.arguments import Entry, ParsedArgs
from autofix.common.diagnostics import Drop, Revalue, Set, Unset
from autofix.common.limits import MAX_SUGGESTED_SPELLINGS
from autofix.schema import Option, Schema


@dataclass(frozen=True, slots=True)
class NotJson:
    """A Dockerfile ``CMD``, ``ENTRYPOINT`` or ``RUN`` written as an exec form that is not JSON.

    Docker runs such a text as the shell form (``/bin/sh -c '["python3",
    ...,]'``), so SGLang never reads the words. ``keyword`` is the
    instruction; ``errors`` says what keeps the text from being a JSON array
    of strings (``a trailing comma``), in order; ``words`` are the words the
    author meant when the text says so beyond doubt, else None.
    """

    keyword: str
    errors: tuple[str, ...]
    words: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class Layers:
    """The launch one file's settings are part of, when another file writes the rest (see ``Written``).

    ``values`` are the settings the launch runs with, merged as SGLang merges
    them (dest -> value; ``UNKNOWN`` where it is not known here: a ``--config``
    file autofix cannot read, a shell expansion, launches that read this file
    and set a dest differently). ``others`` are the dests the other file
    writes (the ``--config`` file of a command line; the command lines of a
    ``--config`` file), ``overridden`` this file's dests whose value is never
    used, as every launch's other file sets them later (a command line's over
    its ``--config`` file's). ``editable``: a fix may change the other file
    (``Written.unset``, ``Written.revalue``): only a command line's, when no
    other launch reads that file.
    """

    values: Mapping[str, Any]
    others: frozenset[str] = frozenset()
    overridden: frozenset[str] = frozenset()
    editable: bool = False


@dataclass(frozen=True, slots=True)
class ShellForm:
    """A Dockerfile ``ENTRYPOINT`` and ``CMD`` Docker joins, one of them in shell form (rule DKR002).

    ``keyword`` is the shell-form instruction and ``text`` its arguments (what ``/bin/sh -c`` gets).
    A shell-form ``CMD`` reaches an exec-form ``ENTRYPOINT`` that launches SGLang as the three words
    ``/bin/sh -c '<text>'``; a shell-form ``ENTRYPOINT`` runs alone, the ``CMD``'s words becoming the
    shell's ``$0``, ``$1``... (``dropped``): the ``ENTRYPOINT``'s launch never gets them, or the ``CMD``'s
    launch never runs (``runs_cmd``). ``words`` are the words to write the instruction as, a JSON array,
    when its text is plain words (nothing the shell would expand); ``safe`` says whether that keeps what
    was meant (not when it gives an entrypoint program arguments it never had). ``flag``: the first word,
    when BuildKit takes it as a builder flag (``CMD --model-path m``), which fails the build.
    """

    keyword: str
    text: str
    dropped: bool
    words: tuple[str, ...] | None
    runs_cmd: bool = False
    safe: bool = True
    flag: str | None = None


@dataclass(frozen=True, slots=True)
class SplitScript:
    """A shell run with ``-c`` (``sh -c``, ``bash -lc``) whose script is only the first of the words
    that hold a launch (rule DKR003): it runs that word alone, the others become its ``$0``, ``$1``...

    ``shell`` is the shell and its options (``sh -c``); ``script`` the word it runs; ``rest`` the words
    after it; ``where`` what holds them (``CMD items``, ``CMD in shell form``, ``command string``,
    ``list items``: a compose or Kubernetes list); ``words`` the one word to
    write instead, the script meant, when the words say it beyond doubt, else None.
    """

    shell: str
    script: str
    rest: tuple[str, ...]
    where: str
    words: tuple[str, ...] | None


Host = NotJson | ShellForm | SplitScript


class Spellings:
    """The close spellings of the unknown options of one file (``close``), each found once, for at most
    ``limits.MAX_SUGGESTED_SPELLINGS`` spellings (difflib compares a spelling with every option)."""

    __slots__ = ("_found",)

    def __init__(self) -> None:
        self._found: dict[tuple[str, str], tuple[str, ...]] = {}

    def close(self, schema: Schema, flag: str) -> tuple[str, ...]:
        """The long options of ``schema`` closest to ``flag`` (at most three, best first; ``difflib``'s
        ``get_close_matches`` at 0.8); none past the file's first ``MAX_SUGGESTED_SPELLINGS`` spellings."""
        key = (schema.version, flag)
        found = self._found.get(key)
        if found is None:
            if len(self._found) >= MAX_SUGGESTED_SPELLINGS:
                return ()
            found = self._found[key] = close_spellings(schema, flag)
        return found


def close_spellings(schema: Schema, flag: str) -> tuple[str, ...]:
    """The long options of ``schema`` closest to ``flag``: at most three, best first (``difflib``, 0.8)."""
    import difflib  # loaded only for a file with an unknown option

    return tuple(difflib.get_close_matches(flag, [f for f in schema.by_flag if f.startswith("--")], n=3, cutoff=0.8))


@dataclass(frozen=True, slots=True)
class Written:
    """One launch's entries, the parse they came from, and the schemas to judge them by.

    ``schema`` is the target SGLang version's table; ``others`` are the other
    shipped versions (for migrations). ``source`` is ``config`` for an SGLang
    ``--config`` YAML file (keys become ``--key`` words), ``command`` for a
    command line, or ``recipe`` for a mapping a launcher turns into flags
    (srt-slurm's ``sglang_config``: written as keys, read as a command line).
    ``host`` is set when the file that holds the launch does not run its
    words as written (a Dockerfile exec form that is not JSON, ``NotJson``;
    ``ShellForm``, ``SplitScript``).
    ``layers`` is set when another file writes part of the launch (``Layers``).
    ``spellings`` finds the close spellings of the file's unknown options
    within its bound (``Spellings``; None: every one, unbounded).

    ``entries`` and ``parsed`` are this file's words. What the launch sets is
    ``values``; ``effective`` and ``here`` say which of this file's entries
    it takes; ``unset`` and ``revalue`` build the ops that change a setting
    wherever it is written (in the other file: ``Unset``/``Set`` ops, which
    the caller writes there).
    """

    entries: tuple[Entry, ...]
    parsed: ParsedArgs
    schema: Schema
    others: Sequence[Schema] = ()
    source: Literal["config", "command", "recipe"] = "command"
    host: Host | None = None
    layers: Layers | None = None
    spellings: Spellings | None = None

    @property
    def values(self) -> Mapping[str, Any]:
        """dest -> the value the launch runs with, for each dest it sets (``UNKNOWN``: not known here)."""
        return self.layers.values if self.layers is not None else self.parsed.explicit_for(self.schema)

    def effective(self) -> Iterator[Entry]:
        """This file's entries whose value the launch takes, in order: the last of each dest, when no later
        file overrides it (a repeat's earlier copies are ``ARG007``'s); none holding a shell expansion."""
        overridden = self.layers.overridden if self.layers is not None else frozenset()
        last: dict[str, Entry] = {}
        for e in self.entries:
            if e.dest is not None and e.words and not e.ignored:
                last[e.dest] = e
        yield from sorted((e for d, e in last.items() if not e.dynamic and d not in overridden), key=lambda e: e.index)

    def here(self, dest: str) -> Entry | None:
        """The entry of this file whose value the launch takes for ``dest``, if any (see ``effective``)."""
        return next((e for e in self.effective() if e.dest == dest), None)

    def elsewhere(self, dest: str) -> bool:
        """Whether the launch's other file writes ``dest`` (where this file does not, the value comes from there)."""
        return self.layers is not None and dest in self.layers.others

    def unset(self, dest: str) -> tuple[Drop | Unset, ...]:
        """Ops that remove ``dest`` from the launch: every copy in this file (not a sweep base's key a variant
        overrides: other launches read it), and ``Unset`` when the other file writes it too."""
        drops = tuple(Drop(e.index) for e in self.entries if e.dest == dest and e.ignored != "overridden")
        return (*drops, Unset(dest)) if self.elsewhere(dest) else drops

    def revalue(self, dest: str, value: Any) -> Revalue | Set:
        """The op that makes the launch's ``dest`` ``value`` where its value is written: this file's entry, or
        ``Set`` in the other file."""
        e = self.here(dest)
        return Revalue(e.index, value) if e is not None else Set(dest, value)

    def refused(self, kind: str) -> Iterator[Entry]:
        """Entries argparse refuses with a problem of ``kind`` (see ``arguments.Problem``).

        Entries SGLang never sees (a repeated key's earlier copies) and
        entries holding a shell expansion (judged only at launch) are left out.
        """
        for e in self.entries:
            if e.problem is not None and e.problem.kind == kind and not e.dynamic and not e.ignored \
                    and not self.refused_value(e):
                yield e

    def refused_value(self, entry: Entry) -> bool:
        """Whether argparse refuses the *value* a config key gives a flag (``enable-eplb: -d``: the reader
        passes ``--enable-eplb -d``, and ``-d`` is the word refused): ARG005's, not the key's."""
        return (self.keyed and entry.problem is not None and bool(entry.words)
                and entry.problem.index != entry.words[0])

    def option(self, entry: Entry) -> Option | None:
        """The target version's option an entry sets, if SGLang recognises its spelling."""
        return self.schema[entry.dest] if entry.dest is not None else None

    @property
    def keyed(self) -> bool:
        """Whether settings are written as mapping keys (``tp-size: 8``) rather than flags."""
        return self.source in ("config", "recipe")

    def close(self, flag: str) -> tuple[str, ...]:
        """The known long options closest to the unknown ``flag`` (at most three, best first), within the file's
        bound (``spellings``)."""
        if self.spellings is None:
            return close_spellings(self.schema, flag)
        return self.spellings.close(self.schema, flag)

    def spelling(self, flag: str, elsewhere: bool = False) -> str:
        """``flag`` as this source writes it: ``--tp-size`` on a command line, ``tp-size`` as a key
        (``elsewhere``: as the launch's other file does, the ``--config`` file of a command line or the reverse)."""
        return flag[2:] if self.keyed != elsewhere and flag.startswith("--") else flag

    def there(self, dest: str) -> bool:
        """Whether the launch takes ``dest``'s value from its other file, not from this one."""
        return self.elsewhere(dest) and self.here(dest) is None

    def name(self, entry: Entry) -> str:
        """How a message names ``entry``: as written (``spelling``), and when that is an abbreviation,
        with the option SGLang reads it as (``image (read as image-processor-backend)``): argparse takes
        any unique prefix, so a key may be an option its author never meant."""
        if entry.flag is None:
            return ""
        shown = self.spelling(entry.flag)
        found = self.schema.match(entry.flag)
        if found.status != "prefix":
            return shown
        assert found.option is not None  # a prefix names the one option it abbreviates
        return f"{shown} (read as {self.spelling(found.option.flag)})"
