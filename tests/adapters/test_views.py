"""Views of YAML scalars and JSON strings: decoded text, offsets, edits carried back."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from autofix.adapters.syntax.strings import json_string_view, yaml_scalar_view
from autofix.common.edits import Edit, apply_edits
from autofix.common.errors import CannotEdit

LOADERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])


def node_at(text: str, path: tuple, loader, offset: int = 0) -> yaml.Node:
    """The node at ``path`` (mapping keys and list indexes) of the YAML in ``text[offset:]``."""
    node = yaml.compose(text[offset:], Loader=loader)
    for step in path:
        if isinstance(step, int):
            node = node.value[step]
        else:
            node = next(v for k, v in node.value if k.value == step)
    return node


def round_trip(text: str, path: tuple, edit: Edit, loader, offset: int = 0) -> None:
    """The edit, carried to the host and re-read, gives the decoded text with the edit applied."""
    view = yaml_scalar_view(text, node_at(text, path, loader, offset), offset)
    host = apply_edits(text, [view.to_host(edit)])
    assert node_at(host, path, loader, offset).value == apply_edits(view.text, [edit]), host


def word_edits(decoded: str) -> list[Edit]:
    """Replace the first word, delete the last one (with the space before it), insert at the end.

    "The end" is before a block scalar's final line breaks, which the text keeps.
    """
    words = list(re.finditer(r"\S+", decoded))
    first, last = words[0], words[-1]
    end = len(decoded.rstrip("\n"))
    edits = [Edit(first.start(), first.end(), "NEW-word"), Edit(end, end, " --port 30000")]
    if len(words) > 1:
        edits.append(Edit(words[-2].end(), last.end(), ""))
    return edits


# (host text, path to the scalar, the decoded text)
EXAMPLES = [
    ("command: python -m sglang.launch_server --tp 8\n", ("command",), "python -m sglang.launch_server --tp 8"),
    ("command: python -m sglang.launch_server  \n  --tp 8\n\n  --port 1 # c\n", ("command",),
     "python -m sglang.launch_server --tp 8\n--port 1"),
    ("command: 'it''s   --tp 8\n   next  \n\n\n  last'\n", ("command",), "it's   --tp 8 next\n\nlast"),
    ('command: "a \\"q\\" b\\\\c\\n\\td\\x41 \\u00e9 \\U0001F600 end"\n', ("command",),
     'a "q" b\\c\n\tdA é \U0001f600 end'),
    ('command: "python -m x \\\n    --tp 8\n\n  --port 1  "\n', ("command",), "python -m x --tp 8\n--port 1  "),
    ("command: |\n  python -m x\n    --tp 8\n\n  --port 1\n\n\nnext: 1\n", ("command",),
     "python -m x\n  --tp 8\n\n--port 1\n"),
    ("command: |-\n  python -m x\n  --tp 8\n\nnext: 1\n", ("command",), "python -m x\n--tp 8"),
    ("command: |+\n  python -m x\n  --tp 8\n\n\nnext: 1\n", ("command",), "python -m x\n--tp 8\n\n\n"),
    ("command: >\n  python -m x\n  --tp 8\n\n  --port 1\n    more\n  end\n", ("command",),
     "python -m x --tp 8\n--port 1\n  more\nend\n"),
    ("command: >-\n  python -m x\n  --tp 8\n", ("command",), "python -m x --tp 8"),
    ("command: >+\n  python -m x\n  --tp 8\n\n", ("command",), "python -m x --tp 8\n\n"),
    ("command: |2\n    python -m x\n  --tp 8\n", ("command",), "  python -m x\n--tp 8\n"),
    ("command: |-2 # the launch\n   python -m x\n  --tp 8\n", ("command",), " python -m x\n--tp 8"),
    ("command: | # the launch\n  python -m x --tp 8\n", ("command",), "python -m x --tp 8\n"),
    ("command: |\r\n  python -m x\r\n  --tp 8\r\n\r\n  --port 1\r\nnext: 1\r\n", ("command",),
     "python -m x\n--tp 8\n\n--port 1\n"),
    ('command: "python -m x\r\n  --tp 8 \\\r\n  --port 1"\r\n', ("command",), "python -m x --tp 8 --port 1"),
    ("command: python -m x\r\n  --tp 8\r\n", ("command",), "python -m x --tp 8"),
    ("\ufeffcommand: 'python -m x   --tp 8'\n", ("command",), "python -m x   --tp 8"),
    ('spec:\n  containers:\n    - args: ["-c", "python -m sglang.launch_server --tp 8"]\n',
     ("spec", "containers", 0, "args", 1), "python -m sglang.launch_server --tp 8"),
    ("spec:\n  containers:\n    - command:\n        - |\n          python -m sglang.launch_server\n"
     "            --tp 8\n      name: x\n", ("spec", "containers", 0, "command", 0),
     "python -m sglang.launch_server\n  --tp 8\n"),
    ("command: [sh, -c, python -m x --tp 8]\n", ("command", 2), "python -m x --tp 8"),
    ("command: é ü 'x' \"y\" a#b c:d\n", ("command",), "é ü 'x' \"y\" a#b c:d"),
]


@pytest.mark.parametrize("loader", LOADERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize(("text", "path", "decoded"), EXAMPLES)
def test_view_text_and_edits(text, path, decoded, loader):
    offset = 1 if text.startswith("\ufeff") else 0
    node = node_at(text, path, loader, offset)
    view = yaml_scalar_view(text, node, offset)
    assert view.text == decoded == loader(text[offset:]).construct_scalar(node)
    assert len(view.offsets) == len(view.text) + 1
    assert list(view.offsets) == sorted(view.offsets)
    for edit in word_edits(decoded):
        round_trip(text, path, edit, loader, offset)


@pytest.mark.parametrize(
    ("text", "char", "at"),
    [
        ('k: "a\\"b\\\\c\\x41"\n', '"', 5),  # an escape maps to its backslash
        ('k: "a\\"b\\\\c\\x41"\n', "\\", 8),
        ('k: "a\\"b\\\\c\\x41"\n', "A", 11),
        ("k: 'a''b'\n", "'", 5),  # '' maps to the first quote
        ("k: a  \n  b\n", " ", 4),  # a folded break maps to the whitespace before it
        ("k: |\n  a\n  b\n", "b", 11),  # indentation is skipped
    ],
)
def test_offsets_point_at_the_source(text, char, at):
    view = yaml_scalar_view(text, node_at(text, ("k",), yaml.SafeLoader))
    assert view.offsets[view.text.index(char)] == at


@pytest.mark.parametrize(
    ("text", "last"),
    [
        ('k: "abc"\n', 7),  # the closing quote
        ("k: 'abc'  # c\n", 7),
        ("k: abc  # c\n", 6),
        ("k: |\n  abc\n\n", 10),  # the end of the last content line
        ("k: |+\n  abc\n\n\nj: 1", 11),
        ("k: >-\n  abc", 11),
    ],
)
def test_last_offset_is_inside_the_scalar(text, last):
    view = yaml_scalar_view(text, node_at(text, ("k",), yaml.SafeLoader))
    assert view.offsets[-1] == last


def test_insert_at_the_very_end_of_quoted_and_stripped_scalars():
    for text in ('k: "a b"\n', "k: 'a b'\n", "k: a b\n", "k: |-\n  a b\nj: 1\n", "k: >-\n  a\n  b\n"):
        round_trip(text, ("k",), Edit(3, 3, " c"), yaml.SafeLoader)


def test_encoders():
    def enc(text, piece):
        return yaml_scalar_view(text, node_at(text, ("k",), yaml.SafeLoader)).encode(piece)

    assert enc("k: a\n", "--tp 8") == "--tp 8"
    assert enc("k: 'a'\n", "it's") == "it''s"
    assert enc('k: "a"\n', 'a\\b"c\nd\te\x07') == 'a\\\\b\\"c\\nd\te\\x07'
    assert enc("k: |\n    a\n", "x\ny") == "x\n    y"
    assert enc("k: |\r\n  a\r\n", "x\ny") == "x\r\n  y"
    assert enc("k: >\n  a\n", "x y") == "x y"


@pytest.mark.parametrize(
    ("text", "piece"),
    [
        ("k: a\n", "x: y"),
        ("k: a\n", "x #y"),
        ("k: a\n", "x\ny"),
        ("k: a\n", "x:"),
        ("k: a\n", "x,y"),
        ("k: a\n", "x\ty"),
        ("k: a\n", "- x"),
        ("k: 'a'\n", "x\ny"),
        ("k: >\n  a\n", "x\ny"),
        ("k: |\n  a\n", "x\ry"),
        ("k: |\n  a\n", "\x07"),
    ],
)
def test_encode_refuses(text, piece):
    view = yaml_scalar_view(text, node_at(text, ("k",), yaml.SafeLoader))
    with pytest.raises(CannotEdit):
        view.encode(piece)


@pytest.mark.parametrize(
    ("text", "edit"),
    [
        ("k: a b\n", Edit(0, 0, "*x ")),  # an indicator at the start of a plain scalar
        ("k: a b\n", Edit(0, 0, " x")),  # leading and trailing spaces are dropped
        ("k: a b\n", Edit(3, 3, "x ")),
        ("k: a b\n", Edit(0, 3, "")),  # an empty plain scalar is null
        ("k: a#b\n", Edit(1, 1, "x ")),  # a comment after all
        ("k: a:b\n", Edit(2, 2, " x")),  # a mapping value after all
        ("k: 'a\n  b'\n", Edit(1, 1, "x ")),  # whitespace before a folded break is dropped
        ("k: 'a\n  b'\n", Edit(2, 2, " x")),  # ... and after it
        ("k: 'a\n\n\n  b'\n", Edit(2, 2, "x")),  # between two folded breaks
        ("k: |\n  a\n\n\n  b\n", Edit(2, 2, "x")),  # at the start of a blank line
        ("k: |\n  a\n", Edit(2, 2, "x")),  # after the final line break
        ("k: |\n  a\n", Edit(1, 1, "x\n")),  # a break that clipping would remove
        ("k: |\n  a\n", Edit(0, 0, " x")),  # more indentation on the first line
        ("k: >\n  a\n  b\n", Edit(2, 2, " x")),  # a more indented line is not folded
    ],
)
def test_to_host_refuses(text, edit):
    view = yaml_scalar_view(text, node_at(text, ("k",), yaml.SafeLoader))
    with pytest.raises(CannotEdit):
        view.to_host(edit)


@pytest.mark.parametrize(
    "text",
    [
        "k: |\nj: 1\n",  # a block scalar with no content lines
        "k: |\n\n\nj: 1\n",
        "k: 'a\u2028b'\n",  # a YAML 1.1 line break we do not map
        'k: "a\\\u2028b"\n',
    ],
)
def test_view_refuses(text):
    node = node_at(text, ("k",), yaml.SafeLoader)
    with pytest.raises(CannotEdit):
        yaml_scalar_view(text, node)


# JSON strings (a Dockerfile exec form)

DOCKERFILE = 'CMD ["sh", "-c", "python -m sglang.launch_server --model \\"a b\\" --tp 8 \\u00e9\\ud83d\\ude00 \\/x"]\n'


def json_region(text: str, index: int) -> tuple[int, int]:
    """Start and end of the ``index``-th string of the exec form's JSON array."""
    spans = [m.span() for m in re.finditer(r'"(?:[^"\\]|\\.)*"', text)]
    return spans[index]


def exec_args(text: str) -> list[str]:
    return json.loads(text[text.index("[") :])


def test_json_view():
    start, end = json_region(DOCKERFILE, 2)
    view = json_string_view(DOCKERFILE, start, end)
    assert view.text == exec_args(DOCKERFILE)[2]
    assert view.offsets[view.text.index('"')] == DOCKERFILE.index('\\"a')
    assert view.offsets[view.text.index("\U0001f600")] == DOCKERFILE.index("\\ud83d")
    assert view.offsets[-1] == end - 1
    for edit in [*word_edits(view.text), Edit(0, 6, 'py "3"\\'), Edit(len(view.text), len(view.text), " é\n\t")]:
        host = apply_edits(DOCKERFILE, [view.to_host(edit)])
        assert exec_args(host)[2] == apply_edits(view.text, [edit])
    assert view.encode('é"\\\n') == 'é\\"\\\\\\n'


@pytest.mark.parametrize("literal", ['"sh"x', '123', '"a', "'a'"])
def test_json_view_refuses(literal):
    with pytest.raises(CannotEdit):
        json_string_view(literal, 0, len(literal))


# Properties

CHARS = st.sampled_from(list("abcxyz AB-_09.'\"\\#:,[]{}!&*|>%@`é\t"))
WORD_CHARS = st.sampled_from(list("abcxyzAB-_09.'\"\\#:,!&*%é"))


def replace_a_word(data, view) -> Edit | None:
    words = list(re.finditer(r"\S+", view.text))
    if not words:
        return None
    word = data.draw(st.sampled_from(words))
    new = data.draw(st.one_of(st.text(st.sampled_from("abcxyz-"), min_size=1, max_size=6),
                              st.text(WORD_CHARS, min_size=1, max_size=6)))
    return Edit(word.start(), word.end(), new)


def check_word_replacement(data, text: str, loader) -> None:
    node = node_at(text, ("command",), loader)
    if node.style in ("|", ">") and not node.value.strip("\n"):
        with pytest.raises(CannotEdit):  # no content line to anchor edits to
            yaml_scalar_view(text, node)
        return
    view = yaml_scalar_view(text, node)
    assert view.text == node.value
    edit = replace_a_word(data, view)
    if edit is None:
        return
    try:
        host_edit = view.to_host(edit)
    except CannotEdit:
        return  # refused (a plain scalar cannot hold the word): nothing written
    host = apply_edits(text, [host_edit])
    assert node_at(host, ("command",), loader).value == apply_edits(view.text, [edit]), host


@settings(deadline=None)
@given(
    value=st.text(st.one_of(CHARS, st.just("\n")), min_size=1, max_size=60),
    style=st.sampled_from([None, "'", '"', "|", ">"]),
    width=st.sampled_from([12, 30, 80]),
    loader=st.sampled_from(LOADERS),
    data=st.data(),
)
def test_dumped_scalars_round_trip(value, style, width, loader, data):
    text = yaml.dump({"command": value}, default_style=style, width=width, allow_unicode=True)
    if style is not None and style not in "|>":
        text = text.replace(f"{style}command{style}:", "command:", 1)
    check_word_replacement(data, text, loader)


@settings(deadline=None)
@given(
    lines=st.lists(st.text(CHARS, max_size=20), min_size=1, max_size=6),
    chomp=st.sampled_from(["", "-", "+"]),
    trailing=st.integers(0, 2),
    loader=st.sampled_from(LOADERS),
    data=st.data(),
)
def test_literal_blocks_round_trip(lines, chomp, trailing, loader, data):
    first = next((line for line in lines if line.strip(" ")), "")
    indicator = "2" if first[:1] in (" ", "\t") else ""
    body = "".join(f"  {line}\n" if line else "\n" for line in lines)
    text = f"command: |{chomp}{indicator}\n{body}" + "\n" * trailing + "next: 1\n"
    try:
        yaml.compose(text, Loader=loader)
    except yaml.YAMLError:
        return  # e.g. a tab where the indentation would be: not YAML
    if not any(line.strip(" \t") for line in lines):
        return  # no content line: yaml_scalar_view refuses (tested above)
    check_word_replacement(data, text, loader)


@settings(deadline=None)
@given(value=st.text(min_size=1, max_size=40), ascii_only=st.booleans(), data=st.data())
def test_json_strings_round_trip(value, ascii_only, data):
    text = f'CMD ["sh", "-c", {json.dumps(value, ensure_ascii=ascii_only)}]\n'
    start, end = json_region(text, 2)
    view = json_string_view(text, start, end)
    assert view.text == value
    edit = replace_a_word(data, view) or Edit(0, 0, "x")
    assert exec_args(apply_edits(text, [view.to_host(edit)]))[2] == apply_edits(view.text, [edit])
