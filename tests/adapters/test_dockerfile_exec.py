"""autofix.adapters.syntax.dockerfile_exec: an exec form that is not JSON, read as the words its author meant."""

from __future__ import annotations

import json

import dockerfile as buildkit
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autofix.adapters import dockerfile
from autofix.adapters.syntax.dockerfile_exec import looks_like_exec, read
from autofix.core.api import FixOptions, fix_source


@pytest.mark.parametrize(("args", "words", "errors"), [
    ('["a", "b",]', ("a", "b"), ("a trailing comma",)),
    ("['a', 'b c', '\"q\"']", ("a", "b c", '"q"'), ("single quotes",)),
    ("[a, --x=1, 8, -1.5e3]", ("a", "--x=1", "8", "-1.5e3"), ("a word without quotes (a)",
                                                                 "a number without quotes (8)")),
    ("[\u201ca\u201d, \u2018b\u2019, \u201dc\u201d]", ("a", "b", "c"), ("curly quotes",)),
    ('[ "a" , ]', ("a",), ("a trailing comma",)),
    ('["a" "b"]', None, ("a missing comma",)),
    ("['a' 'b']", None, ("single quotes", "a missing comma")),
    ('["a",, "b"]', None, ("an empty item",)),
    ("[,]", None, ("an empty item",)),
    ('["a", "b"', None, ("no closing ]",)),
    ('["a",] b', None, ("a trailing comma", "text after the closing ]")),
    ('["a", {"b": 1},]', None, ("a nested {",)),
    ("['a\\\\b']", None, ("single quotes",)),  # YAML keeps the backslash, Python reads an escape
    ("['it''s']", None, ("single quotes", "a missing comma")),
    ('["a\\q",]', None, ("a string JSON does not allow", "a trailing comma")),
    ('["a\tb",]', None, ("a string JSON does not allow", "a trailing comma")),  # a raw tab
    ("['a]", None, ("a string without its closing quote", "no closing ]")),
    ("[$HOME, a]", None, ("a word without quotes ($HOME)",)),
    ("[a b]", None, ("a word without quotes (a)", "a missing comma")),
    ("[\u201ca\"b\u201d]", None, ("curly quotes",)),
])
def test_read(args, words, errors):
    intent = read(args)
    assert intent is not None
    assert intent.words == words
    assert intent.errors == errors


def test_a_trailing_comma_is_the_one_edit():
    intent = read('["a", "b" ,  ]')
    assert intent.stray == (10,) and all(it.json for it in intent.items)


@pytest.mark.parametrize(("args", "exec_"), [
    ('["a",]', True),
    ('[ "a", ]', True),
    ("[ -f /x ] && python3 -m sglang.launch_server", False),
    ("[ \"$X\" = 1 ] || python3 -m sglang.launch_server", False),
    ("[[ -n $X ]] && python3 -m sglang.launch_server", False),
    ('[ "a" "]" ]', True),  # the quoted "]" is a word of the array
    ("python3 -m sglang.launch_server", False),
])
def test_looks_like_exec(args, exec_):
    assert looks_like_exec(args) == exec_
    assert (read(args) is not None) == exec_


# -- against BuildKit: what people write, as Docker reads it, and as autofix fixes it -------------

_WORD = st.text(st.sampled_from("abcxyz019-_./=:@%"), min_size=1, max_size=8)
_STYLE = st.sampled_from(["json", "single", "plain", "curly"])


def _render(word: str, style: str) -> str:
    if style == "single":
        return f"'{word}'"
    if style == "curly":
        return f"\u201c{word}\u201d"
    if style == "plain":
        return word
    return json.dumps(word)


@given(st.lists(st.tuples(_WORD, _STYLE), min_size=1, max_size=6), st.booleans(), st.sampled_from(["", " "]),
       st.sampled_from(["CMD", "ENTRYPOINT", "RUN"]), st.sampled_from(["\n", "\r\n"]))
def test_what_people_write_is_fixed_to_the_words_they_meant(items, trailing, pad, keyword, newline):
    words = ["python3", "-m", "sglang.launch_server", *(w for w, _ in items)]
    rendered = ['"python3"', '"-m"', "'sglang.launch_server'", *(_render(w, s) for w, s in items)]
    array = "[" + pad + ", ".join(rendered) + ("," if trailing else "") + pad + "]"
    text = f"FROM x{newline}{keyword} {array}{newline}"
    assert not buildkit.parse_string(text)[1].json  # Docker: the shell form
    r = fix_source(text, dockerfile, path="Dockerfile", options=FixOptions(unsafe=True))
    assert r.diagnostics[0].code == "DKR001" and (r.diagnostics[0].location.line, r.diagnostics[0].location.col) \
        == (2, len(keyword) + 2)
    fixed = buildkit.parse_string(r.output)[1]
    assert fixed.json and list(fixed.value) == words  # Docker: the exec form, with the words meant
    assert r.output.split(newline)[0] == "FROM x" and r.output.endswith(newline)
