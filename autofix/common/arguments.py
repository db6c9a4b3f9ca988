"""Read a list of command-line words into explicit SGLang settings.

This is argparse's own algorithm for the option table SGLang declares
(Python 3.11 ``ArgumentParser._parse_optional`` / ``consume_optional``), run
word by word so that every setting keeps the words it came from: the format
adapters need those to point at and to edit. ``tests/test_arguments.py``
checks it against a real ``argparse.ArgumentParser`` built from the same
table.

A written setting has four shapes here, one per reader: a ``Word`` is one word as the program receives it
(from a shell word, a YAML key or value, a JSON item: where it is, how its adapter edits it); a ``Setting``
is what argparse makes of words (a dest, its value, the words it took: what SGLang uses); an ``Entry`` is a
setting as the user wrote it, what argparse refuses included (an unknown flag and its stray words), which
the argparse-stage rules judge and fix in place; ``ParsedArgs.explicit`` is the ``dest -> value`` map the
resolution steps read. An adapter's handle on where a setting is written is its own (``yaml_config.Pair``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from autofix.common import argtypes
from autofix.common.diagnostics import UNKNOWN, Location
from autofix.schema import Match, Option, Schema

_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


# Not frozen (nor Setting, Entry, yaml_config.Pair): one is made per word or key of every file, and a frozen
# __init__ costs ~1 us more each, ~45 us a file (issue 15). Nothing assigns to them once made.
@dataclass(slots=True)
class Word:
    """One command-line word as the program receives it.

    ``text`` is the word after the shell (or the ``--config`` merger) is done
    with it; ``loc`` is where a reader should look; ``ref`` is the adapter's
    own handle for editing it (opaque here).
    """

    text: str
    loc: Location
    ref: Any = None
    dynamic: bool = False  # holds a shell expansion: its value is UNKNOWN here


@dataclass(slots=True)  # not frozen: see Word
class Setting:
    """One explicit setting: ``--tp 8`` gives dest ``tp_size``, value ``8``.

    ``option_index`` and ``value_indexes`` index the word list it was read
    from; ``inline`` is True for ``--flag=value`` (value inside the option word).
    """

    dest: str
    value: Any
    written: str
    match: str  # "exact" or "prefix"
    option_index: int
    value_indexes: tuple[int, ...]
    inline: bool


@dataclass(frozen=True, slots=True)
class Problem:
    """Something SGLang's argparse stage would refuse, at word ``index``.

    ``kind`` names argparse's error: ``unknown`` (an option it does not
    know), ``stray`` (a word that is no option's value), ``ambiguous`` (a
    prefix of several options), ``missing`` (too few values), ``explicit``
    (``=value`` on a flag that takes none), ``choice`` or ``type`` (a value
    the option refuses).
    """

    index: int
    message: str
    kind: str = "unknown"


@dataclass(slots=True)
class ParsedArgs:
    """Every setting in order, the effective one per dest, and the problems."""

    words: tuple[Word, ...]
    occurrences: list[Setting] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def settings(self) -> dict[str, Setting]:
        """dest -> the setting SGLang uses (argparse keeps the last one)."""
        out: dict[str, Setting] = {}
        for s in self.occurrences:
            out[s.dest] = s
        return out

    opaque_index: int = -1  # last word that may expand to flags (`"$@"`, `$EXTRA_ARGS`)
    help_index: int = -1  # `-h`/`--help`: argparse prints the usage and exits there; nothing after is read
    # settings not written in ``words`` are unknown (a ``--config`` file autofix cannot read comes first)
    base_unknown: bool = False

    def explicit_for(self, schema: Schema) -> dict[str, Any]:
        """dest -> explicit value, as the engine and rules see it.

        After an expansion that may stand for any flags, every dest not set
        later is UNKNOWN: the rules cannot know what the launch will get.
        With ``base_unknown`` (an unreadable ``--config`` file, whose settings
        SGLang puts before every word), every dest not written is UNKNOWN.
        """
        if self.opaque_index < 0 and not self.base_unknown:
            return self.explicit
        out = dict.fromkeys(schema.by_dest, UNKNOWN)
        out.update((s.dest, s.value) for s in self.occurrences if s.option_index > self.opaque_index)
        return out

    @property
    def explicit(self) -> dict[str, Any]:
        """dest -> explicit value as written (see ``explicit_for`` for the engine's view)."""
        return {dest: s.value for dest, s in self.settings.items()}


def _classify(schema: Schema, words: tuple[Word, ...]) -> list[tuple[str, Match | None]]:
    """argparse's pattern letters: 'O' option, 'A' argument, '-' the '--' marker."""
    out: list[tuple[str, Match | None]] = []
    rest_positional = False
    for w in words:
        t = w.text
        if rest_positional:
            out.append(("A", None))
        elif t == "--":
            out.append(("-", None))
            rest_positional = True
        elif not t or t[0] != "-" or len(t) == 1:
            out.append(("A", None))
        else:
            m = schema.match(t)
            if m.status == "unknown" and (_NEGATIVE_NUMBER.match(t) or " " in t):
                out.append(("A", None))
            else:
                out.append(("O", m))
    return out


class _Refused(ValueError):
    """argparse's refusal of a value word: ``kind`` ``type`` or ``choice``, ``message`` what it prints after
    ``argument --flag:``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _converted(option: Option, text: str, release: str) -> Any:
    """``text`` through the option's type in SGLang ``release`` (``autofix.common.argtypes``: every converter SGLang's
    parser uses); raises ``_Refused`` as argparse's ``_get_value`` refuses it."""
    try:
        return argtypes.convert(option.type, text, release)
    except (ValueError, TypeError) as exc:
        raise _Refused("type", argtypes.message(option.type, text, exc)) from None


def _values(option: Option, texts: list[str], release: str) -> Any:
    if option.nargs == "?" and not texts:
        return option.const  # `--model-checksum` alone
    conv = [_converted(option, t, release) for t in texts]  # argparse converts every word, then checks the choices
    if option.choices is not None:
        for v in conv:
            if v not in option.choices:
                choices = ", ".join(map(repr, option.choices))
                raise _Refused("choice", f"invalid choice: {v!r} (choose from {choices})")
    if option.kind == "store_const" or option.nargs == 0:
        if option.kind == "boolean_optional":
            return None
        return option.const
    if option.nargs in (None, "?") and len(conv) == 1:
        return conv[0]
    return conv


def _zero_arg_value(option: Option, written_flag: str) -> Any:
    if option.kind == "boolean_optional":
        return not written_flag.startswith("--no-")
    if option.kind in ("store_true", "custom"):
        return True if option.const is None else option.const
    return option.const


def _help_exits(parsed: ParsedArgs, kinds: list[tuple[str, Match | None]]) -> bool:
    """Whether argparse gets to the ``--help`` word being read and exits there.

    It does not when an ambiguous prefix stands anywhere (argparse sorts
    every word before consuming any) or an option before it was refused
    (a bad value is an error on the spot; ``parsed.problems`` holds only the
    words read so far); unknown and stray words are
    only refused at the end, so help wins over them.
    """
    if any(p.kind not in ("unknown", "stray") for p in parsed.problems):
        return False
    return not any(k == "O" and m is not None and m.status == "ambiguous" for k, m in kinds)


def parse_words(schema: Schema, words: tuple[Word, ...] | list[Word]) -> ParsedArgs:
    """Read ``words`` (no program name) into settings and argparse problems.

    Never raises for bad input: what argparse would refuse becomes a
    ``Problem`` and reading goes on, so one bad word does not hide the rest.
    """
    words = tuple(words)
    dynamic = any(w.dynamic for w in words)  # else no value word is looked at for an expansion
    kinds = _classify(schema, words)
    parsed = ParsedArgs(words)
    i, n = 0, len(words)
    while i < n:
        kind, m = kinds[i]
        if kind != "O":  # no positionals: argparse (3.11) leaves these, "--" included, unrecognized
            if words[i].dynamic:
                parsed.opaque_index = i
            else:
                parsed.problems.append(Problem(i, f"unrecognized arguments: {words[i].text}", "stray"))
            i += 1
            continue
        assert m is not None
        if m.status == "ambiguous":
            parsed.problems.append(
                Problem(i, f"ambiguous option: {m.written} could match {', '.join(m.candidates)}", "ambiguous")
            )
            i += 1
            continue
        if m.status == "unknown":
            parsed.problems.append(Problem(i, f"unrecognized arguments: {words[i].text}", "unknown"))
            i += 1
            continue
        option = m.option
        assert option is not None
        # the flag argparse names in its messages: the first that the written one starts (itself, most often)
        full_flag = m.written if option.flags[0] == m.written else \
            next((f for f in option.flags if f.startswith(m.written)), option.flag)
        value_idx: tuple[int, ...]  # the indexes of the words of its values
        if m.explicit is not None:
            if option.nargs == 0:
                parsed.problems.append(
                    Problem(i, f"argument {full_flag}: ignored explicit argument {m.explicit!r}", "explicit")
                )
                i += 1
                continue
            texts, value_idx, nxt = [m.explicit], (), i + 1
        else:
            j = i + 1
            while j < n and kinds[j][0] == "A":
                j += 1
            available = j - (i + 1)
            want = option.nargs
            if want == 0:
                take = 0
            elif want is None:
                take = 1 if available >= 1 else -1
            elif want == "?":
                take = min(1, available)
            elif want == "*":
                take = available
            elif want == "+":
                take = available if available >= 1 else -1
            else:
                take = int(want) if available >= int(want) else -1
            if take < 0:
                need = "one argument" if want is None else "at least one argument" if want == "+" else f"{want} arguments"
                parsed.problems.append(Problem(i, f"argument {full_flag}: expected {need}", "missing"))
                i += 1
                continue
            value_idx = tuple(range(i + 1, i + 1 + take))
            texts = [words[k].text for k in value_idx]
            nxt = i + 1 + take
        if option.kind == "help" and _help_exits(parsed, kinds):
            parsed.help_index = i
            break
        try:
            if option.nargs == 0:
                value = _zero_arg_value(option, full_flag)
            elif m.explicit is not None and words[i].dynamic:
                value = UNKNOWN
            elif dynamic and any(words[k].dynamic for k in value_idx):
                # a list keeps its known length: `--lora-paths a=$X` is still non-empty
                value = [UNKNOWN] * len(value_idx) if option.nargs in ("*", "+") else UNKNOWN
            else:
                value = _values(option, texts, schema.version)
        except _Refused as exc:
            parsed.problems.append(Problem(i, f"argument {full_flag}: {exc}", exc.kind))
            value = UNKNOWN  # what was meant is unknown: rules that read it stay silent
        parsed.occurrences.append(
            Setting(option.dest, value, m.written, m.status, i, value_idx, m.explicit is not None)
        )
        i = nxt
    return parsed


@dataclass(slots=True)  # not frozen: see Word
class Entry:
    """One setting as the user wrote it: an option word and its value words.

    The argparse-stage rules read these. On a command line an entry is a
    flag with the words it took (``--tp 8``), an unknown flag with the
    stray words after it (``--tp_size 8``), or a lone stray word. A YAML
    adapter makes one entry per key, with ``raw`` the loaded value and
    ``ignored`` saying why SGLang never sees a key (``repeated``: a later
    copy of the key replaces it; ``overridden``: a later layer's copy does,
    an srt-slurm sweep variant's or an own key over a merge key's; ``false``:
    a store-true key set to false).
    ``words`` index ``ParsedArgs.words``; ``problem`` is argparse's refusal.
    """

    index: int
    flag: str | None  # the option part as written (``--tp_size``); None for a stray word
    values: tuple[str, ...]  # the value words SGLang receives (``=value`` included)
    words: tuple[int, ...]
    loc: Location
    dest: str | None = None  # the option SGLang applies it to
    problem: Problem | None = None
    inline: bool = False  # ``--flag=value``
    raw: Any = None
    ignored: str | None = None
    dynamic: bool = False  # a word holds a shell expansion

    @property
    def shown(self) -> str:
        """The entry as a short quote for messages: ``--tp_size 8``."""
        head = self.flag or ""
        if self.inline:
            return " ".join([f"{head}={self.values[0]}", *self.values[1:]])
        return " ".join([head, *self.values]).strip()


def entries_of(parsed: ParsedArgs) -> tuple[Entry, ...]:
    """Group a command line's words into entries, in order (see ``Entry``)."""
    occurrences = {s.option_index: s for s in parsed.occurrences}
    problems = {p.index: p for p in parsed.problems}
    words = parsed.words
    out: list[Entry] = []
    i, n = 0, len(words)
    while i < n:
        w = words[i]
        problem = problems.get(i)
        s = occurrences.get(i)
        if s is not None:
            idx = (i, *s.value_indexes)
            values = (w.text.split("=", 1)[1],) if s.inline else tuple(words[k].text for k in s.value_indexes)
            flag = w.text.split("=", 1)[0] if s.inline else w.text
            out.append(Entry(len(out), flag, values, idx, w.loc, s.dest, problem, s.inline,
                             dynamic=any(words[k].dynamic for k in idx)))
            i = idx[-1] + 1
            continue
        if problem is not None and problem.kind != "stray":
            # an option argparse refused: it takes the stray words after it
            j = i + 1
            while j < n and problems.get(j) is not None and problems[j].kind == "stray":
                j += 1
            flag, inline = w.text, False
            values = tuple(words[k].text for k in range(i + 1, j))
            if "=" in w.text and problem.kind in ("unknown", "ambiguous", "explicit"):
                flag, rest = w.text.split("=", 1)
                values, inline = (rest, *values), True
            out.append(Entry(len(out), flag, values, tuple(range(i, j)), w.loc, None, problem, inline,
                             dynamic=any(words[k].dynamic for k in range(i, j))))
            i = j
            continue
        out.append(Entry(len(out), None, (w.text,), (i,), w.loc, None, problem, dynamic=w.dynamic))
        i += 1
    return tuple(out)
