"""The bounded YAML loader (autofix/adapters/syntax/yaml_nodes.py, within yaml_limits.py) reads what
``yaml.safe_load`` reads.

Within the limits, on documents with anchors, aliases and merge keys
(``<<: *a``, ``<<: [*a, *b]``, inline ``<<: {...}``, and merges of
something that is not a mapping, which both refuse), it gives the same
values, and refuses exactly what safe_load refuses. Beyond the limits
(alias bombs of any shape, nesting past ``MAX_YAML_DEPTH``) it raises
``InputError``, never another exception. With small limits patched in, the
event pass refuses exactly the documents whose expanded size or height
crosses them, and the character bound it spares never lets one through.
"""

from __future__ import annotations

from unittest import mock

import pytest
import yaml
from hypothesis import assume, given
from hypothesis import strategies as st

from autofix.adapters.syntax import yaml_limits, yaml_nodes
from autofix.common.errors import InputError
from autofix.common.limits import MAX_YAML_DEPTH, MAX_YAML_NODES

KEYS = ["a", "b", "ab", "tp-size", "x_y", "=", "1", "yes", "null", "'q k'"]
SCALARS = ["1", "0x1f", "1.5", "yes", "off", "~", "null", "'q'", '"d q"', "text", "2001-12-14", ".inf", "-1",
           "''", "a b"]


@st.composite
def documents(draw, max_anchors: int = 6) -> str:
    """A block mapping of anchored values (``kN: &aN <flow node>``) whose later values name earlier ones."""
    kinds: list[str] = []  # the kind of each anchor's node: "map", "seq" or "scalar"
    lines = []
    for i in range(draw(st.integers(1, max_anchors))):
        kind, text = draw(_node(kinds, draw(st.integers(0, 3))))
        if text.startswith("*"):  # an alias takes no anchor of its own
            kind, text = "seq", f"[{text}]"
        kinds.append(kind)
        lines.append(f"k{i}: &a{i} {text}")
    return "\n".join(lines) + "\n"


def _node(kinds: list[str], depth: int) -> st.SearchStrategy[tuple[str, str]]:
    scalar = st.sampled_from(SCALARS).map(lambda s: ("scalar", s))
    alias = st.sampled_from(range(len(kinds))).map(lambda i: (kinds[i], f"*a{i}")) if kinds else scalar
    if depth == 0:
        return st.one_of(scalar, alias)
    child = _node(kinds, depth - 1)
    seq = st.lists(child, max_size=4).map(lambda items: ("seq", "[" + ", ".join(t for _, t in items) + "]"))
    return st.one_of(scalar, alias, seq, _mapping(kinds, child))


def _mapping(kinds: list[str], child) -> st.SearchStrategy[tuple[str, str]]:
    maps = [i for i, k in enumerate(kinds) if k == "map"]
    merge = st.one_of(
        st.just(None),
        st.sampled_from(range(len(kinds))).map(lambda i: f"*a{i}") if kinds else st.just(None),  # any kind
        st.lists(st.sampled_from(maps), min_size=1, max_size=3).map(
            lambda ids: "[" + ", ".join(f"*a{i}" for i in ids) + "]") if maps else st.just(None),
        st.lists(st.tuples(st.sampled_from(KEYS), st.sampled_from(SCALARS)), max_size=3).map(
            lambda pairs: "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"),
    )
    pairs = st.lists(st.tuples(st.sampled_from(KEYS), child), max_size=4)

    @st.composite
    def build(draw):
        own = [f"{k}: {t}" for k, (_, t) in draw(pairs)]
        for _ in range(draw(st.integers(0, 2))):
            m = draw(merge)
            if m is not None:
                own.insert(draw(st.integers(0, len(own))), f"<<: {m}")
        return "map", "{" + ", ".join(own) + "}"

    return build()


def _safe_load(text: str):
    try:
        return True, yaml.safe_load(text)
    except Exception as exc:  # noqa: BLE001 - any refusal of SGLang's loader (ConstructorError, ValueError, ...)
        return False, exc


@given(documents())
def test_within_the_limits_the_values_are_safe_loads(text):
    ok, expected = _safe_load(text)
    if ok:
        assert yaml_nodes.load(text, "x.yaml") == expected
    else:
        with pytest.raises(InputError) as err:
            yaml_nodes.load(text, "x.yaml")
        assert err.value.line >= 1 and err.value.col >= 1


@st.composite
def bombs(draw) -> str:
    """``width ** levels`` > MAX_YAML_NODES values, in lists, mappings or merge keys, flow or block."""
    width = draw(st.integers(2, 12))
    levels = 1
    while width ** levels <= MAX_YAML_NODES:
        levels += 1
    style = draw(st.sampled_from(["seq", "map", "merge"]))
    lines = []
    for i in range(levels + 1):
        if i == 0:
            body = ", ".join(f"x{j}: 1" for j in range(width))
            lines.append(f"a0: &a0 {{{body}}}")
            continue
        refs = [f"*a{i - 1}"] * width
        if style == "seq":
            lines.append(f"a{i}: &a{i} [{', '.join(refs)}]")
        elif style == "map":
            lines.append(f"a{i}: &a{i} {{{', '.join(f'k{j}: {r}' for j, r in enumerate(refs))}}}")
        else:  # each level merges the one before, under its own keys
            lines.append(f"a{i}: &a{i} {{{', '.join(f'k{j}: {{<<: {r}}}' for j, r in enumerate(refs))}}}")
    if draw(st.booleans()):
        lines.append(f"use: [*a{levels}]")
    return "\n".join(lines) + "\n"


@given(bombs())
def test_an_alias_bomb_is_an_input_error(text):
    with pytest.raises(InputError) as err:
        yaml_nodes.load(text, "x.yaml")
    assert "alias *a" in err.value.message and err.value.line >= 2


@st.composite
def deep(draw) -> str:
    """Nesting past MAX_YAML_DEPTH, flow and block, possibly reached through an alias."""
    depth = draw(st.integers(MAX_YAML_DEPTH + 1, MAX_YAML_DEPTH + 50))
    pattern = draw(st.lists(st.sampled_from(["[", "{k: "]), min_size=1, max_size=8))  # repeated: cheap to draw
    opens = (pattern * depth)[:depth]
    closes = "".join("]" if o == "[" else "}" for o in reversed(opens))
    body = "".join(opens) + "1" + closes
    if draw(st.booleans()):  # half of it anchored, the other half nesting the alias
        half = depth // 2
        inner = "".join(opens[:half]) + "1" + "".join("]" if o == "[" else "}" for o in reversed(opens[:half]))
        outer = "".join(opens[half:]) + "*x" + "".join("]" if o == "[" else "}" for o in reversed(opens[half:]))
        return f"a: &x {inner}\nb: {outer}\n"
    if draw(st.booleans()):
        return "k:\n" + "".join(" " * (2 * i) + "-\n" for i in range(depth)) + " " * (2 * depth) + "1\n"
    return f"k: {body}\n"


@given(deep())
def test_nesting_past_the_limit_is_an_input_error(text):
    with pytest.raises(InputError) as err:
        yaml_nodes.load(text, "x.yaml")
    assert err.value.line >= 1 and err.value.col >= 1


# with small limits: the event pass refuses exactly what crosses them, and the character bound is sound


def _expanded(text: str) -> tuple[int, int]:
    """(values, height) of every document once aliases are expanded: the reference, by recursion (no cycles)."""
    def walk(node, depth):
        if isinstance(node, yaml.ScalarNode):
            return 1, depth
        children = node.value if isinstance(node, yaml.SequenceNode) else [n for pair in node.value for n in pair]
        size, deepest = 1, depth + 1
        for child in children:
            s, d = walk(child, depth + 1)
            size, deepest = size + s, max(deepest, d)
        return size, deepest

    total = height = 0
    for root in yaml.compose_all(text, Loader=yaml.CSafeLoader):
        s, h = walk(root, 0)
        total, height = total + s, max(height, h)
    return total, height


@given(documents(max_anchors=4), st.integers(5, 60), st.integers(1, 6))
def test_the_event_pass_refuses_exactly_what_crosses_the_limits(text, nodes, depth):
    try:
        total, height = _expanded(text)
    except yaml.YAMLError:
        assume(False)
    with mock.patch.object(yaml_limits, "MAX_YAML_NODES", nodes), \
            mock.patch.object(yaml_limits, "MAX_YAML_DEPTH", depth), \
            mock.patch.object(yaml_limits, "surely_within", lambda _: False):
        if total > nodes or height > depth:
            with pytest.raises(InputError):
                yaml_limits.check_limits(text, "x.yaml")
        else:
            yaml_limits.check_limits(text, "x.yaml")


@given(st.text(alphabet="[]{},:?-*&!ab1 \n\t#'\"|>=<.", max_size=24), st.integers(1, 4), st.integers(5, 80))
def test_the_character_bounds_never_pass_what_crosses_the_limits(text, depth, nodes):
    with mock.patch.object(yaml_limits, "MAX_YAML_NODES", nodes), \
            mock.patch.object(yaml_limits, "MAX_YAML_DEPTH", depth):
        within = yaml_limits.surely_within(text)
    try:
        events = list(yaml.parse(text, Loader=yaml.CSafeLoader))
        if any(isinstance(e, yaml.AliasEvent) for e in events):
            assert not within
            return
        total, height = _expanded(text)
    except yaml.YAMLError:
        return
    # the bounds themselves (yaml_limits.surely_within's docstring), then what they decide
    indicators = sum(text.count(c) for c in "-:?,[{")
    assert total <= 3 * len(text) + 1 and total <= 4 * indicators + 1
    assert height <= sum(text.count(c) for c in ":?[{") + sum(text.count(b) for b in yaml_limits._ENTRY_BLANKS) \
        + text.endswith("-")
    assert height <= 2 * (max(map(len, text.split("\n"))) + 1) + text.count("[") + text.count("{")
    if within:
        assert height <= depth and total <= nodes


_values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from(["", "a", "-", "a b"])),
                       lambda inner: st.one_of(st.lists(inner, max_size=3),
                                               st.dictionaries(st.sampled_from(["a", "b", "c-d"]), inner, max_size=3)),
                       max_leaves=30)


@given(_values, st.sampled_from([None, False, True]), st.integers(2, 6), st.integers(20, 80))
def test_the_character_bounds_hold_for_dumped_structures(value, flow, indent, width):
    text = yaml.dump(value, default_flow_style=flow, indent=indent, width=width)
    total, height = _expanded(text)
    brackets = text.count("[") + text.count("{")
    assert total <= 4 * sum(text.count(c) for c in "-:?,[{") + 1 and total <= 3 * len(text) + 1
    assert height <= brackets + text.count(":") + text.count("?") + sum(map(text.count, yaml_limits._ENTRY_BLANKS)) \
        + text.endswith("-")
    assert height <= 2 * (max(map(len, text.split("\n"))) + 1) + brackets
