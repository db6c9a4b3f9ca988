"""Composing YAML within autofix.common.limits, and reading it as ``yaml.safe_load`` does
(autofix/adapters/syntax/yaml_nodes.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from autofix.adapters.syntax import yaml_limits, yaml_loader, yaml_nodes
from autofix.common.errors import InputError
from autofix.common.limits import MAX_YAML_DEPTH, MAX_YAML_NODES


def bomb(levels: int = 9, width: int = 10, indent: str = "") -> str:
    """``a0: &a0 [x, ...]``, ``a1: &a1 [*a0, ...]``, ...: ``width ** levels`` values once expanded."""
    lines = [f"{indent}a0: &a0 [" + ", ".join(["x"] * width) + "]"]
    lines += [f"{indent}a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def refused(text: str, compose=yaml_nodes.compose) -> InputError:
    with pytest.raises(InputError) as err:
        compose(text, "x.yaml")
    assert err.value.line >= 1 and err.value.col >= 1
    return err.value


def position(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based line:col of the ``nth`` occurrence of ``needle``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


# alias bombs and recursive aliases


def test_an_alias_bomb_stops_at_the_alias_that_crosses_the_limit():
    text = bomb()
    err = refused(text)
    assert err.message == (f"YAML aliases expand to more than {MAX_YAML_NODES:,} values (alias *a4 here); "
                           "autofix does not read further")
    # a4 holds 111,111 values and everything before it 123,461: its first alias, on line 6, crosses 200,000
    assert (err.line, err.col) == position(text, "*a4")


def test_a_bomb_through_merge_keys_is_counted_too():
    text = "a0: &a0 {" + ", ".join(f"k{i}: x" for i in range(20)) + "}\n"
    text += "".join(f"a{i}: &a{i} [" + ", ".join([f"{{<<: *a{i - 1}}}"] * 20) + "]\n" for i in range(1, 2))
    text += "".join(f"b{i}: &b{i} [" + ", ".join([f"*{'a1' if i == 1 else f'b{i - 1}'}"] * 20) + "]\n"
                    for i in range(1, 5))
    assert "alias *" in refused(text).message


@pytest.mark.parametrize("text", ["a: &a [*a]\n", "a: &a {b: [1, {c: *a}]}\n", "a: &a {<<: *a, k: 1}\n"])
def test_a_recursive_alias_is_refused_where_it_is_written(text):
    err = refused(text)
    assert "recursive alias" in err.message and "*a" in err.message
    assert (err.line, err.col) == position(text, "*a")


def test_aliases_within_the_limit_are_read():
    text = bomb(levels=5)  # 10 ** 5 values: under the limit
    assert yaml_nodes.load(text) == yaml.safe_load(text)


# nesting


def nested(depth: int, key: str = "k") -> str:
    """A mapping (level 1) holding ``depth - 1`` nested lists."""
    return f"{key}: " + "[" * (depth - 1) + "1" + "]" * (depth - 1) + "\n"


def test_nesting_at_the_limit_is_read_and_one_more_level_is_refused():
    value = yaml_nodes.load(nested(MAX_YAML_DEPTH))
    assert value == yaml.safe_load(nested(MAX_YAML_DEPTH))
    json.dumps(value)  # what the --config adapter does with a nested value, within the recursion limit
    text = nested(MAX_YAML_DEPTH + 1)
    err = refused(text)
    assert err.message == f"YAML collections nested more than {MAX_YAML_DEPTH} levels deep; autofix does not read further"
    assert (err.line, err.col) == (1, 3 + MAX_YAML_DEPTH)  # the 401st collection: its `[`


def test_block_nesting_is_counted_as_flow_nesting_is():
    text = "".join("  " * i + "k:\n" for i in range(MAX_YAML_DEPTH)) + "  " * MAX_YAML_DEPTH + "k: 1\n"
    err = refused(text)  # MAX_YAML_DEPTH + 1 nested mappings
    assert (err.line, err.col) == (MAX_YAML_DEPTH + 1, 2 * MAX_YAML_DEPTH + 1)
    assert yaml_nodes.load(text.replace("k: 1", "1")) is not None  # 400 levels


def test_aliases_that_nest_deeper_than_the_limit_are_refused():
    half = MAX_YAML_DEPTH // 2 + 1
    text = f"a: &a {'[' * half}1{']' * half}\nb: &b {'[' * half}*a{']' * half}\n"
    err = refused(text)
    assert "alias *a here" in err.message and "levels deep" in err.message
    assert (err.line, err.col) == position(text, "*a")


@pytest.mark.parametrize("shape", ["flow", "block", "mapping"])
def test_100000_levels_end_in_an_error_not_a_crash(shape):
    # libyaml's C composer overflows the C stack there (PyYAML 6.0.3): the limit is checked before it runs
    code = {"flow": "'k: ' + '[' * 100000", "block": "'- ' * 100000 + 'x'",
            "mapping": "''.join(' ' * i + 'k:\\n' for i in range(2000))"}[shape]
    script = ("from autofix.adapters.syntax import yaml_nodes\nfrom autofix.common.errors import InputError\n"
              f"try:\n    yaml_nodes.compose({code}, 'x.yaml')\nexcept InputError as e:\n    print(e)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("x.yaml:1:") or proc.stdout.startswith("x.yaml:"), proc.stdout
    assert "error: " in proc.stdout


# values


def test_the_value_limit_counts_every_value_and_stops_at_the_first_past_it():
    items = MAX_YAML_NODES - 3  # the root mapping, its key and the list are values too
    text = "k:\n" + "- 1\n" * items
    assert len(yaml_nodes.load(text)["k"]) == items
    err = refused(text + "- 2\n")
    assert err.message == f"more than {MAX_YAML_NODES:,} YAML values; autofix does not read further"
    assert (err.line, err.col) == (items + 2, 3)


def test_many_keys_stop_at_the_limit():
    text = "host: 0.0.0.0\n" * 150_000
    err = refused(text)
    assert (err.line, err.col) == (100_000, 7)  # key and value: two values a line


def test_documents_share_the_bound():
    doc = "k: [" + ", ".join(["1"] * 999) + "]\n"  # 1002 values
    text = "---\n".join([doc] * (MAX_YAML_NODES // 1002 + 1))
    assert "more than" in refused(text, yaml_nodes.compose_all).message
    assert len(yaml_nodes.compose_all("---\n".join([doc] * 3), "x.yaml").documents) == 3


# merge keys: as yaml.safe_load reads them (whatever PyYAML is installed; 6.0.4 changed `<<: [*a, *b]`)

MERGES = [
    "base: &b {tp-size: 4, ep-size: 2}\ncfg: {<<: *b, tp-size: 8}\n",
    "x: &x {ab: 1}\ny: &y {ab: 2}\nz: {<<: [*x, *y]}\n",
    "x: &x {a: 1}\ny: &y {a: 2}\nz: {<<: [*x, *y]}\n",
    "x: &x {ab: 1}\ny: &y {ab: 2}\nz: {<<: *x, <<: *y}\n",
    "a: &a {k: 1, kk: 1}\nb: &b {<<: *a, m: 2}\nc: &c {<<: *a, kk: 3}\nz: {<<: [*b, *c]}\n",
    "x: &x {b: 1, a: 1}\nz: {c: 0, <<: *x, d: 0}\n",
    "x: &x\n  a: 1\nz:\n  <<: *x\n  =: 2\n",
    "z: {<<: {a: 1, <<: {b: 2}}, c: 3}\n",
    "s: !!set {<<: {a: null}, b: null}\n",
    "l: [{<<: {a: 1}}, {<<: [{a: 2}], a: 3}]\n",
]


@pytest.mark.parametrize("text", MERGES)
def test_merge_keys_read_as_safe_load_reads_them(text):
    assert yaml_nodes.load(text) == yaml.safe_load(text)


@pytest.mark.parametrize("text", [t for t in MERGES if "=:" not in t])  # PyYAML tags a `=` key str, as here
def test_reading_leaves_the_node_graph_as_written(text):
    doc = yaml_nodes.compose(text, "x.yaml")
    doc.construct(doc.root)
    for _key, value in doc.root.value:
        if isinstance(value, yaml.MappingNode):
            doc.effective(value)
    assert yaml.serialize(doc.root) == yaml.serialize(yaml.compose(text, Loader=yaml_loader.Loader))


def test_pairs_say_which_merge_key_they_came_from():
    text = "x: &x {a: 1}\ny: &y {b: 2}\nz:\n  <<: *x\n  c: 3\n  <<: [*y]\n"
    doc = yaml_nodes.compose(text, "x.yaml")
    z = doc.value(doc.root, "z")
    got = [(k.value, v.value, m and m.written, m and m.where)
           for (k, v), m in ((p, doc.merge(z, p)) for p in doc.pairs(z))]
    assert got == [("a", "1", "<<: *x", "4:3"), ("b", "2", "<<: [*y]", "6:3"), ("c", "3", None, None)]
    assert doc.merge(z, doc.pairs(z)[0]).note == "the value comes from the merge key '<<: *x' at 4:3; fix by hand"
    assert [m.start_mark.line for m in doc.merged_mappings(z)] == [0, 1]


def test_the_last_copy_of_a_key_is_the_one_read_and_overridden_merged_pairs_are_not_walked():
    text = "x: &x {command: [a], args: [b]}\nz: {<<: *x, args: [c]}\n"
    doc = yaml_nodes.compose(text, "x.yaml")
    z = doc.value(doc.root, "z")
    assert doc.value(z, "args").value[0].value == "c"
    assert [k.value for k, _ in doc.effective(z)] == ["command", "args"]
    assert [k.value for k, _ in doc.pairs(z)] == ["command", "args", "args"]


@pytest.mark.parametrize(("text", "where"), [
    ("a: {<<: 1}\n", (1, 9)),
    ("a: {<<: [{b: 1}, 2]}\n", (1, 18)),
])
def test_a_merge_of_something_else_is_refused_as_safe_load_refuses_it(text, where):
    with pytest.raises(yaml.constructor.ConstructorError):
        yaml.safe_load(text)
    with pytest.raises(InputError) as err:
        yaml_nodes.load(text)
    assert (err.value.line, err.value.col) == where


# every YAML error names a real position


@pytest.mark.parametrize(("text", "where"), [
    ("a: [1\n", (2, 1)),  # parser
    ("a: *nope\n", (1, 4)),  # composer: undefined alias
    ("a: &x 1\nb: &x 2\n", (2, 4)),  # composer: duplicate anchor
    ("a: 1\n---\nb: 2\n", (2, 1)),  # a second document
    ("a: \x00\n", (1, 4)),  # reader: no mark, a position in bytes
    ("é: b\n\x07", (2, 1)),
    ("k: ééé\x07\n", (1, 7)),
    ("a: !!int ''\n", (1, 4)),  # constructors failing with Python errors
    ("a: !!bool maybe\n", (1, 4)),
    ("a: !!timestamp x\n", (1, 4)),
    ("a: 2001-02-30\n", (1, 4)),
    ("a: !nope 1\n", (1, 4)),
    ("? [1]\n: 2\n", (1, 3)),  # unhashable key
])
def test_every_yaml_error_has_a_real_position(text, where):
    with pytest.raises(Exception):  # noqa: B017 - SGLang's loader refuses it too, in one way or another
        yaml.safe_load(text)
    with pytest.raises(InputError) as err:
        yaml_nodes.load(text, "x.yaml")
    assert (err.value.line, err.value.col) == where, err.value
    assert err.value.message.startswith("invalid YAML: ")


# the cheap check, and the event pass it spares


@pytest.mark.parametrize("text", [
    "a: *x\n", "*x: 1\n", "[*x]\n", "{a:*x}\n", "- *x\n", "a: '1'*x\n", "\ufeff*x\n", "a:\t*x\n",
])
def test_text_that_may_hold_an_alias_is_not_taken_as_bounded(text):
    assert not yaml_limits.surely_within(text)


@pytest.mark.parametrize("text", ["a: b*c\n", "# x*y\n", "a: /x/*.yaml\n", "a: !x*y 1\n"])
def test_a_star_that_is_no_alias_keeps_the_cheap_path(text):
    assert yaml_limits.surely_within(text)


def test_the_usual_config_needs_no_event_pass():
    text = "".join(f"key-number-{i}: value-{i}  # a comment: with - dashes\n" for i in range(60))
    assert len(text) > MAX_YAML_DEPTH and yaml_limits.surely_within(text)


def merge_chain(n: int) -> str:
    """``a0: &a0 {k: 1}``, ``a1: &a1 {<<: *a0}``, ...: each merge nests the mapping it merges one level deeper."""
    return "a0: &a0 {k: 1}\n" + "".join(f"a{i}: &a{i} {{<<: *a{i - 1}}}\n" for i in range(1, n + 1))


def test_a_chain_of_merges_at_the_limit_is_read_and_one_more_is_refused():
    # the one recursion left, PyYAML's own flatten_mapping along merge keys, is bounded by MAX_YAML_DEPTH:
    # root (1), a398 (2), ..., a0 (400)
    text = merge_chain(MAX_YAML_DEPTH - 2)
    assert yaml_nodes.load(text) == yaml.safe_load(text)
    doc = yaml_nodes.compose(text, "x.yaml")
    assert [k.value for k, _ in doc.pairs(doc.value(doc.root, f"a{MAX_YAML_DEPTH - 2}"))] == ["k"]
    err = refused(merge_chain(MAX_YAML_DEPTH - 1))
    assert "alias *a398 here" in err.message and "levels deep" in err.message


# every YAML adapter reads through the same bounds

ADAPTERS = {
    "config": ("yaml_config", lambda body: "tp-size: 8\n" + body),
    "srt-slurm": ("srtslurm", lambda body: "x:\n" + "".join("  " + line + "\n" for line in body.splitlines())
                  + "backend:\n  sglang_config:\n    decode:\n      tp-size: 8\n"),
    "manifest": ("manifest", lambda body: body + "spec:\n  containers:\n    - command: [python3, -m, "
                 "sglang.launch_server]\n      args: [--tp, 8]\n"),
}
BODIES = {
    "bomb": (bomb(), "alias *a4 here"),
    "recursive": ("r: &r [1, *r]\n", "recursive alias"),
    "deep": ("d: " + "[" * 100_000 + "\n", "nest"),
    "block-deep": ("d:\n" + "".join(" " * i + "- \n" for i in range(1, 2000)), "nested more than 400"),
    "many": ("l:\n" + "- 1\n" * MAX_YAML_NODES, "more than 200,000 YAML values"),
}


@pytest.mark.parametrize("body", BODIES, ids=list(BODIES))
@pytest.mark.parametrize("adapter", ADAPTERS, ids=list(ADAPTERS))
def test_every_yaml_adapter_refuses_what_crosses_the_limits(adapter, body):
    import importlib

    from autofix.schema import load

    module, wrap = ADAPTERS[adapter]
    fmt = importlib.import_module(f"autofix.adapters.{module}")
    text, message = BODIES[body]
    with pytest.raises(InputError) as err:
        fmt.read(wrap(text), "x.yaml", load())
    assert err.value.line >= 1 and err.value.col >= 1
    assert message in err.value.message


@pytest.mark.parametrize("scalar", [
    "8", "0", "010", "0x1F", "0b101", "1_000", "+1", "-1", "1:30", "12345678901234567890123", "٣", "!!int 7",
    "yes", "No", "TRUE", "off", "!!bool yes", "true", "abc", "'8'", '"true"', "!!str 8", "8.5", ".inf", "~", "null",
    "2001-02-03", "0o17", "!!float 1",
])
def test_a_scalar_constructs_as_safe_load_reads_it(scalar):
    """``Composed.construct``'s fast path for plain str, int and bool scalars gives what PyYAML's constructor does."""
    text = f"k: {scalar}\n"
    composed = yaml_nodes.compose(text, "-")
    ((_, value_node),) = composed.pairs(composed.root)
    value = composed.construct(value_node)
    expected = yaml.safe_load(text)["k"]
    assert value == expected and type(value) is type(expected)


def test_a_bad_int_is_still_an_input_error():
    with pytest.raises(InputError, match="cannot read the int"):
        yaml_nodes.load("k: !!int x\n")
