"""``parse_words`` against a real ``argparse.ArgumentParser`` built from the schema.

autofix re-implements argparse's reading of a command line (so that every
setting keeps the words it came from). This checks it word list by word
list against the real thing built from the same option table
(``sglang_model.real_parser``): where argparse accepts, both give the same
explicit settings and autofix reports no problem; where argparse refuses,
autofix reports at least one problem. SGLang's custom actions are never
drawn (their behaviour is SGLang's code, not argparse's).
"""

from __future__ import annotations

from functools import cache

from hypothesis import given
from hypothesis import strategies as st
from sglang_model import CONVERTERS, argparse_reads
from strategies import SCHEMA

from autofix.common.arguments import Word, parse_words
from autofix.common.diagnostics import Location
from autofix.schema import Option

# --- words --------------------------------------------------------------------

DRAWN = tuple(o for o in SCHEMA.options if o.kind != "custom")
# Options grouped by argparse shape (action, nargs, converter, choices or not): a draw picks a
# shape first, so the rare ones (nargs "?", --x/--no-x) come up as often as plain int options.
SHAPES: dict[tuple, list[Option]] = {}
for _o in DRAWN:
    SHAPES.setdefault((_o.kind, _o.nargs, _o.type in CONVERTERS and _o.type, _o.choices is None), []).append(_o)
OPTIONS = st.sampled_from(sorted(SHAPES, key=repr)).flatmap(lambda shape: st.sampled_from(SHAPES[shape]))
_BAD = ("abc", "", "1.5", "-", "x y", "-1", "-.5", "-x", "--tp-size", "0x10", "{")


def _good_values(o: Option) -> st.SearchStrategy[str]:
    if o.choices is not None:
        return st.sampled_from([str(c) for c in o.choices])
    if o.type == "int":
        return st.integers(-2, 64).map(str)
    if o.type == "float":
        return st.sampled_from(("0.5", "1", "-2.5", "1e-3", "inf", "8"))
    if o.type == "json":
        return st.sampled_from(('{"a": 1}', "[1, 2]", '"s"', "3", "NaN"))
    if o.type and o.type.endswith(".human_readable_int"):
        return st.sampled_from(("8", "1k", "1.5k", "2Ki", " 16 ", "8.0", "1.5Ki", "1K"))
    if o.type and o.type.endswith(".json_list_type"):
        return st.sampled_from(("[1, 2]", '["a"]', "{}", "NaN", "[1e400]"))
    if o.type and o.type.endswith(".parse_cuda_graph_config_arg"):
        return st.sampled_from(('{"decode": {"backend": "full"}}', "{}", "[1]", '{"x": {}}'))
    if o.type and o.type.endswith(".nullable_str"):
        return st.sampled_from(("None", "", "/p"))
    return st.sampled_from(("abc", "/models/x", "a=b", "x y", "-", "deepep"))


def _values(o: Option) -> st.SearchStrategy[str]:
    good = _good_values(o)
    return st.one_of(good, good, good, st.sampled_from(_BAD))


def _prefixes(o: Option) -> tuple[str, ...]:
    return _prefixes_of(SCHEMA.options.index(o))


@cache
def _prefixes_of(index: int) -> tuple[str, ...]:
    o = SCHEMA.options[index]
    out = []
    for flag in o.flags:
        for k in range(3, len(flag)):
            m = SCHEMA.match(flag[:k])
            if m.status == "prefix" and m.option is o:
                out.append(flag[:k])
    return tuple(out)


@st.composite
def setting_words(draw) -> list[str]:
    """One option with values: any spelling, ``--flag value...`` or ``--flag=value``, sometimes wrong."""
    o = draw(OPTIONS)
    flag = draw(st.sampled_from(o.flags))
    if _prefixes(o) and draw(st.integers(0, 3)) == 0:
        flag = draw(st.sampled_from(_prefixes(o)))
    if o.nargs == 0:
        if draw(st.integers(0, 9)) == 0:
            return [f"{flag}={draw(_values(o))}"]  # argparse: ignored explicit argument
        return [flag]
    count = {None: st.just(1), "?": st.integers(0, 1), "*": st.integers(0, 3), "+": st.integers(1, 3)}[o.nargs]
    n = draw(count)
    if draw(st.integers(0, 9)) == 0:
        n = max(0, n - 1)  # a missing value
    texts = [draw(_values(o)) for _ in range(n)]
    if n == 1 and draw(st.booleans()):
        return [f"{flag}={texts[0]}"]
    return [flag, *texts]


@st.composite
def any_prefix(draw) -> list[str]:
    """A cut-off flag: unique, ambiguous (``--pp``) or exact; maybe with ``=value``."""
    flag = draw(st.sampled_from(SCHEMA._long_flags))
    word = flag[: draw(st.integers(2, len(flag)))]
    if draw(st.integers(0, 3)) == 0:
        word += "=" + draw(st.sampled_from(("1", "x", "")))
    return [word]


NOISE = st.sampled_from(
    (
        "--pp", "--enable", "--not-an-option", "--tp_size", "-x", "---tp", "--tp-size-x", "-h",
        "--he", "--help", "--=1", "--", "model", "-1", "x y", "", "-", "--tp 2", "--zz=a b",
    )
).map(lambda w: [w])

WORD_LISTS = st.lists(
    st.one_of(setting_words(), setting_words(), setting_words(), any_prefix(), NOISE), max_size=6
).map(lambda groups: [w for g in groups for w in g])


def _same_reading(words: list[str]) -> None:
    parsed = parse_words(SCHEMA, [Word(w, Location(1, i + 1)) for i, w in enumerate(words)])
    expected = argparse_reads(words)
    if expected == "help":
        assert parsed.help_index >= 0, f"argparse prints help for {words}, parse_words does not see it"
    elif expected is None:
        assert parsed.help_index < 0 and parsed.problems, f"argparse refuses {words}, parse_words reports nothing"
    else:
        assert not parsed.problems, f"argparse accepts {words}"
        assert parsed.explicit == expected


@given(WORD_LISTS)
def test_parse_words_reads_what_argparse_reads(words):
    """Settings mixed with abbreviations, ambiguous prefixes, unknown flags and stray words."""
    _same_reading(words)


@given(st.lists(setting_words(), max_size=6).map(lambda groups: [w for g in groups for w in g]))
def test_parse_words_on_settings_only(words):
    """Lists of settings alone, which argparse mostly accepts."""
    _same_reading(words)
