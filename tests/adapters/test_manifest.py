"""Kubernetes and compose manifests: compose string semantics, YAML aliases, scripts in shell words."""

from __future__ import annotations

import pytest

from autofix.adapters import manifest
from autofix.common.diagnostics import UNKNOWN, Drop, Set
from autofix.common.errors import CannotEdit
from autofix.core.api import FixOptions, fix_source
from autofix.schema import load

SCHEMA = load()


def explicit(text: str) -> list[dict]:
    return [launch.parsed.explicit for launch in manifest.read(text, "m.yaml", SCHEMA)]


def fixed(text: str, unsafe: bool = False):
    result = fix_source(text, manifest, path="m.yaml", options=FixOptions(unsafe=unsafe))
    return [(d.code, d.location.line, d.location.col) for d in result.diagnostics], result.output


def compose(service: str) -> str:
    return "services:\n  s:\n    image: lmsysorg/sglang\n" + service


# compose: a string is split into words by compose itself, no shell runs it


def test_compose_sh_c_string_runs_its_script():
    text = compose('    command: sh -c "python3 -m sglang.launch_server --model-path m --enable_metrics"\n')
    codes, out = fixed(text)
    assert codes == [("ARG001", 4, 68)]
    assert out == text.replace("enable_metrics", "enable-metrics")


def test_compose_bash_lc_single_quoted_string_with_dollars():
    # $$M: the script sees $M, which sh expands: unknown
    text = compose("    command: bash -lc 'python3 -m sglang.launch_server --model-path $$M --tp 2'\n")
    assert explicit(text) == [{"model_path": UNKNOWN, "tp_size": 2}]
    launch = manifest.read(text, "m.yaml", SCHEMA)[0]
    from autofix.common.edits import apply_edits
    out = apply_edits(text, manifest.edit(text, launch, [Set("chat_template", "tmpl")], SCHEMA))
    assert out == text.replace("--tp 2'", "--tp 2 --chat-template tmpl'")
    with pytest.raises(CannotEdit, match="single-quoted"):  # shlex quotes "$x" as '$x'
        manifest.edit(text, launch, [Set("chat_template", "$x")], SCHEMA)


def test_compose_double_dollar_in_a_string_is_a_literal_dollar():
    text = compose("    command: python3 -m sglang.launch_server --model-path m --moe-a2a-backend $$BACKEND\n")
    words = manifest.read(text, "m.yaml", SCHEMA)[0].parsed.words
    assert [(w.text, w.dynamic) for w in words][-1] == ("$BACKEND", False)
    codes, out = fixed(text)  # not a choice: the value SGLang gets is the literal $BACKEND
    assert codes == [("ARG003", 4, text.index("--moe") - text.index("    command") + 1)] and out == text


@pytest.mark.parametrize("written", ["$BACKEND", "${BACKEND}", "${BACKEND:-deepep}", "$$$BACKEND"])
def test_compose_interpolation_in_a_string_is_unknown(written):
    text = compose(f"    command: python3 -m sglang.launch_server --model-path m --moe-a2a-backend {written}\n")
    assert explicit(text) == [{"model_path": "m", "moe_a2a_backend": UNKNOWN}]


def test_compose_string_and_list_read_dollars_alike():
    string = compose("    command: python3 -m sglang.launch_server --model-path m --moe-a2a-backend $$B --tp ${TP}\n")
    listed = compose('    command: [python3, -m, sglang.launch_server, --model-path, m, --moe-a2a-backend, "$$B",'
                     ' --tp, "${TP}"]\n')
    def words(text):
        return [(w.text, w.dynamic) for w in manifest.read(text, "m.yaml", SCHEMA)[0].parsed.words]

    assert words(string) == words(listed) == [("--model-path", False), ("m", False), ("--moe-a2a-backend", False),
                                              ("$B", False), ("--tp", False), ("${TP}", True)]


def test_compose_sh_c_entrypoint_and_string_command_is_no_launch():
    # compose splits the string: sh runs the script `python3`, the other words are its $0, $1...: no SGLang
    # words, only what DKR003 reports (tests/adapters/test_sh_c_split.py)
    text = compose('    entrypoint: ["sh", "-c"]\n'
                   "    command: python3 -m sglang.launch_server --model-path m --enable_metrics\n")
    [launch] = manifest.read(text, "compose.yaml", load())
    assert launch.parsed.words == () and launch.host.script == "python3"


def test_compose_sh_c_entrypoint_and_one_word_command_runs_it():
    text = compose('    entrypoint: ["sh", "-c"]\n'
                   "    command: '\"python3 -m sglang.launch_server --model-path m --enable_metrics\"'\n")
    codes, out = fixed(text)
    assert codes == [("ARG001", 5, 63)]
    assert out == text.replace("enable_metrics", "enable-metrics")


def test_compose_string_entrypoint_and_string_command_split_together():
    text = compose("    entrypoint: sh -c\n"
                   "    command: \"'python3 -m sglang.launch_server --model-path m --tp 2'\"\n")
    assert explicit(text) == [{"model_path": "m", "tp_size": 2}]


def test_compose_list_entrypoint_and_string_arguments_are_read_not_edited():
    text = compose('    entrypoint: ["python3", "-m", "sglang.launch_server"]\n'
                   "    command: --model-path m --enable_metrics\n")
    assert explicit(text) == [{"model_path": "m"}]
    codes, out = fixed(text)
    assert codes == [("ARG001", 5, 29)] and out == text
    result = fix_source(text, manifest, path="m.yaml")
    assert "split between compose's entrypoint and command" in result.conflicts[0]


# YAML anchors and aliases


SHARED_LIST = """spec:
  containers:
    - name: a
      command: ["python3", "-m", "sglang.launch_server"]
      args: &common
        - --model-path
        - m
        - --enable_metrics
    - name: b
      command: ["python3", "-m", "sglang.launch_server"]
      args: *common
"""


def test_a_list_shared_through_an_alias_is_reported_and_not_edited():
    assert explicit(SHARED_LIST) == [{"model_path": "m"}, {"model_path": "m"}]
    result = fix_source(SHARED_LIST, manifest, path="m.yaml")
    assert [(d.code, d.location.line, d.location.col, d.fixable) for d in result.diagnostics] == \
        [("ARG001", 8, 11, False)]
    assert result.output == SHARED_LIST
    assert {c.split(": ", 1)[1] for c in result.conflicts} == \
        {"fixes not applied: the list is shared through a YAML alias (&common); fix it by hand"}
    launch = manifest.read(SHARED_LIST, "m.yaml", SCHEMA)[1]
    with pytest.raises(CannotEdit) as refused:  # the note points at the `*common` the launch reads
        manifest.edit(SHARED_LIST, launch, [Set("tp_size", 2)], SCHEMA)
    alias = SHARED_LIST.index("*common")
    line = SHARED_LIST.count("\n", 0, alias) + 1
    assert (refused.value.location.line, refused.value.location.col) == (line, alias - SHARED_LIST.rfind("\n", 0, alias))


SHARED_SCALAR = """spec:
  containers:
    - name: a
      command: ["python3", "-m", "sglang.launch_server"]
      args: [--model-path, m, --moe-a2a-backend, none, --ep-dispatch-algorithm, &algo static]
    - name: b
      command: ["python3", "-m", "sglang.launch_server"]
      args:
        - --model-path
        - m
        - --moe-a2a-backend
        - none
        - --ep-dispatch-algorithm
        - *algo
"""


def test_a_scalar_shared_through_an_alias_is_not_edited_by_any_launch():
    for unsafe in (False, True):
        result = fix_source(SHARED_SCALAR, manifest, path="m.yaml", options=FixOptions(unsafe=unsafe))
        assert [(d.code, d.location.line) for d in result.diagnostics] == [("EP003", 5), ("EP003", 13)]
        assert result.output == SHARED_SCALAR
        assert all("the item is shared through a YAML alias (&algo)" in c for c in result.conflicts)
        assert len(result.conflicts) == 2


def test_a_scalar_with_an_unused_anchor_keeps_it():
    text = SHARED_SCALAR.split("    - name: b")[0]
    codes, out = fixed(text)
    assert codes == [("EP003", 5, text.index("--ep-dispatch") - text.index("      args") + 1)]
    assert out == text.replace("&algo static", "&algo dynamic")
    text = text.replace("args: [", "args: [&mp ").replace(", &algo static]", "]\n")  # block item with an anchor
    block = ("spec:\n  containers:\n    - command: [python3, -m, sglang.launch_server]\n      args:\n"
             "        - --moe-a2a-backend\n        - none\n        - --ep-dispatch-algorithm\n"
             "        - &algo !!str static\n")
    codes, out = fixed(block)
    assert out == block.replace("&algo !!str static", "&algo !!str dynamic")


def test_a_script_shared_through_an_alias_is_read_only():
    text = """spec:
  containers:
    - command: ["sh", "-c", &run "python3 -m sglang.launch_server --model-path m --enable_metrics"]
    - command: ["sh", "-c", *run]
"""
    result = fix_source(text, manifest, path="m.yaml")
    col = text.index("--enable_metrics") - text.index("    - command") + 1
    assert [(d.code, d.location.line, d.location.col) for d in result.diagnostics] == [("ARG001", 3, col)]
    assert result.output == text
    assert all("the string is shared through a YAML alias (&run)" in c for c in result.conflicts)


def test_an_anchored_script_block_is_read():
    text = """spec:
  containers:
    - command: ["sh", "-c"]
      args:
        - &run |
          python3 -m sglang.launch_server --model-path m --enable_metrics
"""
    codes, out = fixed(text)
    assert codes == [("ARG001", 6, 58)]
    assert out == text.replace("enable_metrics", "enable-metrics")


# Kubernetes: a script in a shell word of a script


def test_a_bash_lc_word_inside_an_sh_c_script():
    text = """spec:
  containers:
    - command: ["/bin/sh", "-c"]
      args:
        - |
          bash -lc "python3 -m sglang.launch_server --model-path \\"$M\\" --tp 2 --moe-a2a-backend none --ep-dispatch-algorithm static"
"""  # noqa: E501
    assert explicit(text) == [{"model_path": UNKNOWN, "tp_size": 2, "moe_a2a_backend": "none",
                               "ep_dispatch_algorithm": "static"}]
    codes, out = fixed(text)
    assert codes == [("EP003", 6, text.index("--ep-dispatch") - text.index("          bash") + 1)]
    assert out == text.replace("algorithm static", "algorithm dynamic")


# a list item that is not a scalar (a Helm template expression, a nested list) is an unknown word


def test_a_template_expression_item_is_an_unknown_word_and_the_launch_is_checked():
    text = """spec:
  containers:
    - args: ["python3", "-m", "sglang.launch_server", {{ .Values.extra }}, "--moe-a2a-backend", "none",
             "--ep-dispatch-algorithm", "static"]
"""
    launch, = manifest.read(text, "m.yaml", SCHEMA)
    assert launch.parsed.words[0].dynamic and launch.parsed.words[0].text == "{{ .Values.extra }}"
    assert explicit(text) == [{"moe_a2a_backend": "none", "ep_dispatch_algorithm": "static"}]
    codes, out = fixed(text)
    assert codes == []  # what the template writes (any flag) may choose the a2a backend: EP003 stays silent
    text = text.replace('"static"]', '"static", "--enable_metrics"]')
    codes, out = fixed(text)
    assert codes == [("ARG001", 4, 51)]
    assert out == text.replace("enable_metrics", "enable-metrics")


def test_a_nested_list_item_is_an_unknown_word_never_edited():
    text = """spec:
  containers:
    - command:
        - python3
        - -m
        - sglang.launch_server
        - --model-path
        - m
        - [--tp, "2"]
        - --enable_metrics
"""
    launch, = manifest.read(text, "m.yaml", SCHEMA)
    assert [w.dynamic for w in launch.parsed.words] == [False, False, True, False]
    codes, out = fixed(text)
    assert codes == [("ARG001", 10, 11)]
    assert out == text.replace("enable_metrics", "enable-metrics")
    with pytest.raises(CannotEdit, match="not a word but a YAML list"):
        manifest.edit_entries(text, launch, [Drop(1)], SCHEMA)


# Bounded reading (autofix/common/limits.py) and merge keys


def _bomb(levels: int, width: int) -> str:
    lines = ["  a0: &a0 [" + ", ".join(["x"] * width) + "]"]
    lines += [f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "x-bomb:\n" + "\n".join(lines) + "\n"


def _container(args: str) -> str:
    return f"spec:\n  containers:\n    - name: s\n      command: [python3, -m, sglang.launch_server]\n      args: {args}\n"


def test_an_alias_bomb_in_args_is_refused_at_its_alias():
    from autofix.common.errors import InputError

    text = _bomb(25, 2) + _container("*a24")  # 2 ** 25 words, in constant memory but exponential time before
    with pytest.raises(InputError) as err:
        manifest.read(text, "m.yaml", SCHEMA)
    assert "YAML aliases expand to more than 200,000 values (alias *a14 here)" in err.value.message
    assert err.value.line == text[:text.index("*a14")].count("\n") + 1  # where a15 names it


def test_a_recursive_alias_in_args_is_refused():
    from autofix.common.errors import InputError

    with pytest.raises(InputError, match="recursive alias"):
        manifest.read(_container("&a [--model-path, m, *a]"), "m.yaml", SCHEMA)


def test_nesting_at_the_limit_is_read_in_a_manifest_and_deeper_is_refused():
    from autofix.common.errors import InputError
    from autofix.common.limits import MAX_YAML_DEPTH

    depth = MAX_YAML_DEPTH - 2  # the document and its `metadata` mapping
    text = "metadata: {x: " + "[" * depth + "1" + "]" * depth + "}\n" + _container("[--model-path, m, --tp, 8]")
    assert explicit(text) == [{"model_path": "m", "tp_size": 8}]
    with pytest.raises(InputError, match="more than 400 levels") as err:
        manifest.read(text.replace("[", "[[", 1).replace("]", "]]", 1), "m.yaml", SCHEMA)
    assert (err.value.line, err.value.col) == (1, 15 + depth)


def test_a_big_alias_use_within_the_limit_is_read_in_every_place():
    items = "[" + ", ".join(["--enable-metrics"] * 1000) + "]"
    text = "x: &many " + items + "\n" + _container("*many") + "    - command: [python3, -m, sglang.launch_server]\n" \
        "      args: *many\n"
    assert explicit(text) == [{"enable_metrics": True}] * 2


K8S_MERGE = """spec:
  containers:
    - &server
      name: a
      command: [python3, -m, sglang.launch_server]
      args: [--model-path, m, --enable_metrics]
    - <<: *server
      name: b
      args: [--model-path, m, --tp-size, "2", --enable_metrics]
"""


def test_a_container_that_merges_another_reads_its_command_from_the_merge():
    assert explicit(K8S_MERGE) == [{"model_path": "m"}, {"model_path": "m", "tp_size": 2}]
    result = fix_source(K8S_MERGE, manifest, path="m.yaml")
    # b's own args are fixed; a's are read by b's merge too (shared through &server), so reported only
    assert result.output == K8S_MERGE.replace('"2", --enable_metrics', '"2", --enable-metrics')
    assert [(d.code, d.location.line, d.fixable) for d in result.diagnostics] == \
        [("ARG001", 6, False), ("ARG001", 9, True)]
    assert any("shared through a YAML alias (&server)" in c for c in result.conflicts)


COMPOSE_MERGE = """x-sglang: &sglang
  image: lmsysorg/sglang
  entrypoint: [python3, -m, sglang.launch_server]
  command: [--model-path, m, --enable_metrics]
services:
  a:
    <<: *sglang
  b:
    <<: *sglang
    command: [--model-path, m, --tp-size, "2", --enable_metrics]
"""


def test_a_compose_service_reads_merged_words_and_does_not_edit_them():
    assert explicit(COMPOSE_MERGE) == [{"model_path": "m"}, {"model_path": "m", "tp_size": 2}]
    result = fix_source(COMPOSE_MERGE, manifest, path="m.yaml")
    assert result.output == COMPOSE_MERGE.replace('"2", --enable_metrics', '"2", --enable-metrics')
    assert [(d.code, d.location.line, d.fixable) for d in result.diagnostics] == \
        [("ARG001", 4, False), ("ARG001", 10, True)]
    assert ["m.yaml:7:5: fixes not applied: the value comes from the merge key '<<: *sglang' at 7:5; fix by hand"] \
        == [c for c in result.conflicts if "merge key" in c]  # the note points at the merge key
