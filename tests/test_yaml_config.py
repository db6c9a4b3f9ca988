"""The --config YAML adapter: SGLang's reading, and minimal edits."""

from __future__ import annotations

import json

import pytest
import yaml

from autofix.adapters import yaml_config
from autofix.common.diagnostics import Set, Unset
from autofix.common.edits import apply_edits
from autofix.common.errors import CannotEdit, InputError
from autofix.common.limits import MAX_YAML_DEPTH
from autofix.core.api import FixOptions, fix_source
from autofix.schema import load

SCHEMA = load()


def explicit(text: str) -> dict:
    [launch] = yaml_config.read(text, "c.yaml", SCHEMA)
    return launch.parsed.explicit


def edited(text: str, *ops) -> str:
    [launch] = yaml_config.read(text, "c.yaml", SCHEMA)
    return apply_edits(text, yaml_config.edit(text, launch, list(ops), SCHEMA))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tp-size: 8\n", {"tp_size": 8}),
        ("tensor-parallel-size: 8\n", {"tp_size": 8}),
        ("tp: 8\n", {"tp_size": 8}),  # argparse prefix, accepted by SGLang
        ("ep: 4\n", {"ep_size": 4}),  # declared alias
        ("enable-eplb: true\n", {"enable_eplb": True}),
        ("enable-eplb: yes\n", {"enable_eplb": True}),  # YAML 1.1 boolean, as PyYAML reads it
        ("enable-eplb: false\n", {}),  # store-true false is dropped by the merger
        ("tp-size: 4\ntp: 8\n", {"tp_size": 8}),  # the last one wins
        ("tp-size: 4\ntp-size: 8\n", {"tp_size": 8}),  # duplicate key: the last one wins
        ("cuda-graph-bs-decode: [1, 2, 4]\n", {"cuda_graph_bs_decode": [1, 2, 4]}),
        ("cuda-graph-bs-decode: []\n", {}),  # an empty list is skipped
        ("json-model-override-args: {a: 1}\n", {"json_model_override_args": '{"a": 1}'}),
        ("", {}),
        ("# only a comment\n", {}),
    ],
)
def test_reads_what_sglang_reads(text, expected):
    assert explicit(text) == expected


def test_underscore_key_is_not_misread():
    [launch] = yaml_config.read("tp_size: 8\n", "c.yaml", SCHEMA)
    assert launch.parsed.explicit == {}
    assert launch.parsed.problems[0].message == "unrecognized arguments: --tp_size"


@pytest.mark.parametrize(
    "text",
    ["a: 1\n", "on: yes\nx: 0o17\ny: 1_000\nz: 2001-12-14\n", "k: !!str 8\n", "a: &x 1\nb: *x\n", "k: 08\n", "k: 1e3\n"],
)
def test_c_loader_and_sglangs_safe_load_agree(text):
    assert yaml.load(text, Loader=yaml.CSafeLoader) == yaml.safe_load(text)


@pytest.mark.parametrize(
    ("text", "line", "col", "message"),
    [
        ("a: [1\n", 2, 1, "invalid YAML"),
        ("- 1\n", 1, 1, "mapping at the top level, not a list"),
        ("just text\n", 1, 1, "mapping at the top level, not a scalar"),
        ("a: 1\n---\nb: 2\n", 2, 1, "invalid YAML"),
        ("8: x\n", 1, 1, "config keys must be strings"),
    ],
)
def test_bad_input_names_the_position(text, line, col, message):
    with pytest.raises(InputError) as info:
        yaml_config.read(text, "c.yaml", SCHEMA)
    assert (info.value.line, info.value.col) == (line, col)
    assert message in info.value.message


def test_replace_keeps_comment_and_quote_style():
    text = "a2a: x\nep-dispatch-algorithm: 'static'   # why\n"
    assert edited(text, Set("ep_dispatch_algorithm", "dynamic")) == "a2a: x\nep-dispatch-algorithm: 'dynamic'   # why\n"


def test_add_line_in_the_files_indentation_and_newlines():
    text = "\ufeff  tp-size: 8\r\n  # trailing comment\r\n"
    assert edited(text, Set("ep_size", 8)) == "\ufeff  tp-size: 8\r\n  ep-size: 8\r\n  # trailing comment\r\n"


def test_add_line_keeps_a_missing_final_newline():
    assert edited("tp-size: 8", Set("ep_size", 8)) == "tp-size: 8\nep-size: 8"


def test_add_line_to_an_empty_file():
    assert edited("", Set("ep_size", 8)) == "ep-size: 8\n"
    assert edited("# c\n", Set("ep_size", 8)) == "# c\nep-size: 8\n"


def test_store_true_written_false_is_flipped():
    assert edited("lora-use-virtual-experts: false  # off\n", Set("lora_use_virtual_experts", True)) == \
        "lora-use-virtual-experts: true  # off\n"


def test_unset_removes_every_line_that_sets_the_dest():
    text = "enable-eplb: true  # balance\ntp: 8\nenable-eplb: true\n"
    assert edited(text, Unset("enable_eplb")) == "tp: 8\n"


def test_value_that_needs_quotes_in_yaml_is_quoted():
    assert yaml_config.render_scalar("yes") == "'yes'"  # plain would read back as a boolean
    assert yaml_config.render_scalar("dynamic") == "dynamic"
    assert yaml_config.render_scalar("a: b") == "'a: b'"


def test_flow_mapping_cannot_take_a_new_line():
    with pytest.raises(CannotEdit):
        edited("{tp-size: 8, ep-dispatch-algorithm: static}\n", Set("ep_size", 8))


def test_fix_in_a_flow_mapping_value_is_written():
    text = "{moe-a2a-backend: none, ep-dispatch-algorithm: static}\n"
    assert fix_source(text, yaml_config).output == "{moe-a2a-backend: none, ep-dispatch-algorithm: dynamic}\n"


def test_unset_of_the_last_key_keeps_a_missing_final_newline():
    assert edited("tp: 8\nenable-eplb: true", Unset("enable_eplb")) == "tp: 8"
    assert edited("tp: 8\r\nenable-eplb: true", Unset("enable_eplb")) == "tp: 8"


def test_unset_of_the_last_two_keys_without_a_final_newline():
    assert edited("tp: 8\nenable-eplb: true\nep-num-redundant-experts: 2", Unset("enable_eplb"),
                  Unset("ep_num_redundant_experts")) == "tp: 8"


def test_a_repeated_key_keeps_its_first_position_and_its_last_value():
    # PyYAML's dict: {"tp": 2, "tp-size": 8} -> --tp 2 --tp-size 8 -> tp_size 8
    assert explicit("tp: 4\ntp-size: 8\ntp: 2\n") == {"tp_size": 8}
    assert explicit("enable-eplb: true\nenable-eplb: false\n") == {}


def test_an_empty_document_after_a_marker_is_an_empty_config():
    assert explicit("---\n# nothing yet\n") == {}


def test_remove_the_first_key_after_a_bom():
    assert edited("\ufeffenable-eplb: true\ntp-size: 1\n", Unset("enable_eplb")) == "\ufefftp-size: 1\n"


def test_replace_an_alias_value():
    text = "x-algo: &algo static\ntp-size: 8\nep-dispatch-algorithm: *algo\n"
    assert fix_source(text, yaml_config).output == "x-algo: &algo static\ntp-size: 8\nep-dispatch-algorithm: dynamic\n"


def test_replace_a_block_scalar_value():
    text = "ep-dispatch-algorithm: >-\n  static\ntp-size: 8\n"
    assert fix_source(text, yaml_config).output == "ep-dispatch-algorithm: dynamic\ntp-size: 8\n"


def test_a_fix_that_cannot_be_written_is_reported_unfixed():
    text = "{tp-size: 8, moe-runner-backend: experimental_sgl_marlin, moe-a2a-backend: deepep}\n"
    result = fix_source(text, yaml_config, options=FixOptions(unsafe=True))
    assert result.output == text
    assert [(d.code, d.fixable) for d in result.remaining] == [("RUN019", False)]
    assert "flow-style mapping" in result.conflicts[0]


def test_an_anchored_value_keeps_its_anchor():
    text = "ep-dispatch-algorithm: &a static\ntp-size: 8\n"
    assert fix_source(text, yaml_config).output == "ep-dispatch-algorithm: &a dynamic\ntp-size: 8\n"


def test_a_value_shared_through_an_alias_is_not_changed():
    # changing it would change chat-template too (it reads the same node)
    text = "ep-dispatch-algorithm: &a static\ntp-size: 8\nchat-template: *a\n"
    result = fix_source(text, yaml_config)
    assert [d.code for d in result.diagnostics] == ["EP003"] and not result.diagnostics[0].fixable
    assert result.output == text
    assert any("shared through the YAML anchor &a" in c for c in result.conflicts)


# Bounded reading (autofix/common/limits.py): alias bombs, recursive aliases, nesting, size


def _bomb(levels: int = 9, width: int = 10) -> str:
    lines = ["x0: &a0 [" + ", ".join(["x"] * width) + "]"]
    lines += [f"x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "tp-size: 8\n" + "\n".join(lines) + "\n"


def _refused(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        yaml_config.read(text, "c.yaml", SCHEMA)
    assert info.value.line >= 1 and info.value.col >= 1
    return info.value


def test_an_alias_bomb_is_refused_at_the_alias_that_crosses_the_limit():
    text = _bomb()
    err = _refused(text)
    assert "YAML aliases expand to more than 200,000 values (alias *a4 here)" in err.message
    at = text.index("*a4")
    assert (err.line, err.col) == (text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at))


def test_a_recursive_alias_is_refused_not_followed():
    # SGLang reads it as a list holding itself, and argparse refuses the word '[[...]]' (oracle)
    err = _refused("tp-size: 8\ncuda-graph-bs-decode: &a [*a]\n")
    assert (err.line, err.col) == (2, 27) and "recursive alias" in err.message


def test_nesting_at_the_limit_is_read_and_deeper_is_refused():
    depth = MAX_YAML_DEPTH - 1  # the root mapping is the first level
    text = "tp-size: 8\njson-model-override-args: " + "{a: " * depth + "1" + "}" * depth + "\n"
    [launch] = yaml_config.read(text, "c.yaml", SCHEMA)
    assert launch.parsed.explicit["json_model_override_args"] == json.dumps(yaml.safe_load(text)
                                                                            ["json-model-override-args"])
    err = _refused(text.replace("{a: ", "{a: {a: ", 1).replace("}", "}}", 1))
    assert (err.line, err.col) == (2, 27 + 4 * depth) and "more than 400 levels" in err.message


def test_a_hundred_thousand_levels_are_an_error_with_a_position():
    err = _refused("tp-size: 8\ncuda-graph-bs-decode: " + "[" * 100_000 + "\n")
    assert err.line == 2


def test_too_many_values_are_refused_where_the_limit_is_crossed():
    err = _refused("tp-size: 8\n" + "host: 0.0.0.0\n" * 120_000)
    assert (err.line, err.col) == (100_000, 7)  # the mapping, then two values a line: line 100,000's value


def test_a_yaml_error_without_a_mark_still_has_a_position():
    err = _refused("tp-size: 8\nhost: \x07\n")  # libyaml's reader: a byte offset, no line
    assert (err.line, err.col) == (2, 7) and "unacceptable character #x0007" in err.message
    err = _refused("tp-size: 8\nserved-model-name: !!int ''\n")  # a constructor's IndexError
    assert (err.line, err.col) == (2, 20)


# Merge keys, read as SGLang's yaml.safe_load reads them


@pytest.mark.parametrize(
    ("text", "expected"),
    [  # the SGLang verdicts and values are the oracle's (tests/oracle/test_yaml_merge_verdicts.py)
        ("<<: {tp-size: 4, ep-size: 4}\ntp-size: 8\n", {"tp_size": 8, "ep_size": 4}),
        # a key both mappings of a list write: the second's in PyYAML 6.0.4 (SGLang's in the oracle), the first's in 6.0.3
        ("<<: [{tp-size: 2}, {tp-size: 4, ep-size: 2}]\n",
         {"tp_size": yaml.safe_load("<<: [{tp-size: 2}, {tp-size: 4}]")["tp-size"], "ep_size": 2}),
        ("json-model-override-args: &m {tp-size: 4}\n<<: *m\n",
         {"json_model_override_args": '{"tp-size": 4}', "tp_size": 4}),
        ("x: &x {enable-eplb: true}\n<<: *x\n", {"enable_eplb": True}),
    ],
)
def test_merge_keys_are_read_as_sglangs_loader_reads_them(text, expected):
    assert yaml.safe_load(text) is not None
    [launch] = yaml_config.read(text, "c.yaml", SCHEMA)
    assert launch.parsed.explicit == expected
    keys = [w.text[2:] for w in launch.parsed.words if w.text.startswith("--")]
    assert keys == [k for k, v in yaml.safe_load(text).items() if v is not False]  # safe_load's dict, in its order


MERGED_STATIC = ("<<: {ep-dispatch-algorithm: static}\nmoe-a2a-backend: none\ntp-size: 8\nep-size: 8\n"
                 "enable-eplb: true\n")


def test_a_fix_of_a_merged_setting_is_reported_not_applied():
    result = fix_source(MERGED_STATIC, yaml_config, path="c.yaml")
    assert [(d.code, d.location.line, d.fixable) for d in result.diagnostics] == [("EP003", 1, False)]
    assert result.output == MERGED_STATIC
    assert result.conflicts == ("c.yaml:1:1: fixes not applied: cannot change 'ep-dispatch-algorithm': the value "
                                "comes from the merge key '<<: {ep-dispatch-algorithm: static}' at 1:1; fix by hand",)


def test_a_merged_setting_through_an_alias_names_the_merge_key():
    text = "json-model-override-args: &base {ep-dispatch-algorithm: static}\n" + MERGED_STATIC.replace(
        "<<: {ep-dispatch-algorithm: static}", "<<: *base")
    result = fix_source(text, yaml_config, path="c.yaml")
    assert result.output == text
    assert "the value comes from the merge key '<<: *base' at 2:1; fix by hand" in result.conflicts[0]


def test_own_keys_next_to_a_merge_key_are_fixed():
    text = "<<: {tp-size: 8, moe-a2a-backend: none}\nep-size: 8\nenable-eplb: true\nep-dispatch-algorithm: static\n"
    assert fix_source(text, yaml_config).output == text.replace("static", "dynamic")
    overridden = MERGED_STATIC + "ep-dispatch-algorithm: lp\n"  # an own key overrides the merged one
    assert fix_source(overridden, yaml_config).output == overridden.replace(": lp", ": dynamic")


def test_an_own_key_over_a_merged_copy_is_not_removed_or_renamed():
    # removing or renaming it would bring the merged value back
    text = "<<: {tp_size: 4}\ntp_size: 8\n"
    result = fix_source(text, yaml_config, path="c.yaml")
    assert [(d.code, d.fixable) for d in result.diagnostics] == [("ARG001", False)]
    assert result.output == text
    assert "it overrides the value of the merge key '<<: {tp_size: 4}' at 1:1" in result.conflicts[0]


def test_a_merged_copy_an_own_key_overrides_is_no_repeat():
    text = "<<: {tp-size: 4, enable-tf32-matmul: true}\ntp-size: 8\nenable-tf32-matmul: false\n"
    result = fix_source(text, yaml_config, path="c.yaml")
    assert [(d.code, d.location.line) for d in result.diagnostics] == [("CFG001", 3)]  # the copy SGLang reads


def test_a_key_added_after_a_merge_key_goes_after_its_alias():
    text = "x-base: &b {tp-size: 4}\n<<: *b\n"
    out = edited(text, Set("ep_size", 2))
    assert out == text + "ep-size: 2\n"
    assert explicit(out) == {"tp_size": 4, "ep_size": 2}
    assert edited(text.rstrip("\n"), Set("ep_size", 2)) == text + "ep-size: 2"


@pytest.mark.parametrize("text", ["!!str\ntp-size: 8\n", "--- !custom\ntp-size: 8\n"], ids=["str", "custom"])
def test_a_tagged_top_level_mapping_is_refused_as_safe_load_refuses_it(text):
    # found by the fuzz target: the tag was ignored and the file checked as a config SGLang cannot load
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(text)
    with pytest.raises(InputError, match="the top-level mapping is tagged"):
        yaml_config.read(text, "c.yaml", SCHEMA)


def test_an_explicit_map_tag_is_an_ordinary_config():
    assert yaml.safe_load("!!map\ntp-size: 8\n") == {"tp-size": 8}
    assert explicit("!!map\ntp-size: 8\n") == {"tp_size": 8}
