"""srt-slurm recipes read as srtctl launches them (autofix/adapters/srtslurm.py)."""

from __future__ import annotations

import pytest

from autofix.adapters import srtslurm
from autofix.core.api import fix_source
from autofix.schema import load

SCHEMA = load()


def recipe(body: str, role: str = "decode") -> str:
    lines = "".join(f"      {line}\n" for line in body.splitlines())
    return f"name: x\nbackend:\n  type: sglang\n  sglang_config:\n    {role}:\n{lines}"


def found(text: str) -> list[tuple[str, int, int]]:
    return [(d.code, d.location.line, d.location.col) for d in fix_source(text, srtslurm, path="r.yaml").diagnostics]


def test_words_are_srtctls_sorted_flags_after_its_own():
    [launch] = srtslurm.read(recipe("tp_size: 8\nenable-metrics: true\ndisable-radix-cache: false\nx: null"),
                             "r.yaml", SCHEMA)
    assert [w.text for w in launch.parsed.words] == [
        "--model-path", "/model", "--disaggregation-mode", "decode", "--enable-metrics", "--tp-size", "8"]


def test_a_repeat_is_judged_in_srtctls_order_not_the_files():
    # sorted keys: `tp-size` (4) comes before `tp_size` (8), so SGLang uses 8 and the `tp-size` key is the ignored one
    text = recipe("tp_size: 8\ntp-size: 4")
    assert found(text) == [("ARG007", 7, 7)]
    assert fix_source(text, srtslurm, path="r.yaml").output == recipe("tp_size: 8")


def test_a_switch_given_a_string_is_refused_and_fixed():
    # srtctl passes `--trust-remote-code true`: the word `true` is refused (oracle: unrecognized arguments)
    text = recipe('trust-remote-code: "true"\nenable-metrics: "false"\ndisable-radix-cache: 1')
    assert [c for c, *_ in found(text)] == ["ARG005", "ARG005", "ARG005"]
    assert fix_source(text, srtslurm, path="r.yaml").output == recipe(
        "trust-remote-code: true\ndisable-radix-cache: true")


SWEEP = """base:
  name: sweep
  backend:
    sglang_config:
      decode:
        tp-size: 8
        cuda-graph-max-bs: 64
        ep-dispatch-algorithm: static
        moe-a2a-backend: deepep
zip_override_tp:
  name: [a, b]
  backend:
    sglang_config:
      decode:
        tp-size: [4, 8]
        mem-fraction-static: [0.8]
override_single:
  backend:
    sglang_config:
      decode:
        moe-a2a-backend: null
"""


def test_a_sweep_has_a_launch_per_role_of_the_base_and_of_every_variant():
    launches = srtslurm.read(SWEEP, "r.yaml", SCHEMA)
    explicit = [launch.parsed.explicit for launch in launches]
    assert [e["tp_size"] for e in explicit] == [8, 4, 8, 8]
    assert [e.get("mem_fraction_static") for e in explicit] == [None, 0.8, 0.8, None]  # [0.8] broadcasts
    assert [e.get("moe_a2a_backend") for e in explicit] == ["deepep"] * 3 + [None]  # null deletes the key


def test_a_shared_base_key_is_fixed_when_every_launch_reading_it_needs_that_fix():
    # every launch renames cuda-graph-max-bs; only override_single (a2a deleted) needs another dispatch
    result = fix_source(SWEEP, srtslurm, path="r.yaml")
    assert "cuda-graph-max-bs-decode: 64" in result.output
    assert "ep-dispatch-algorithm: static" in result.output  # the base, and variants that are fine, keep it
    [ep003] = [d for d in result.diagnostics if d.code == "EP003"]
    assert not ep003.fixable and ep003.location.line == 8
    assert any("need them otherwise" in c for c in result.conflicts)


def test_zipped_lists_of_different_lengths_are_refused_as_srtctl_refuses_them():


    from autofix.common.errors import InputError

    bad = SWEEP.replace("tp-size: [4, 8]", "tp-size: [4, 8, 16]").replace("name: [a, b]", "name: [a, b]")
    with pytest.raises(InputError, match="zipped lists of different lengths"):
        srtslurm.read(bad, "r.yaml", SCHEMA)


def _sweep(base: str, variant: str, kind: str = "override_v") -> str:
    ind = lambda body, n: "".join(" " * n + line + "\n" for line in body.splitlines())  # noqa: E731
    return (f"base:\n  backend:\n    sglang_config:\n      decode:\n{ind(base, 8)}"
            f"{kind}:\n  backend:\n    sglang_config:\n      decode:\n{ind(variant, 8)}")


# A fix of the shared base is made only when every launch that merges it needs that same fix
# (found by a fresh-user review; each of these changed a variant's launch before).
@pytest.mark.parametrize(("base", "variant"), [
    ("tp-size: 8\nenable-dp-attention: true\ndata-parallel-size: 8", "data-parallel-size: 4"),  # per-variant dp
    ("tp-size: 8\nenable-dp-attention: true\ndata-parallel-size: 8", "enable-dp-attention: null"),  # deleted
    ("tp-size: 8\ncuda-graph-max-bs: 64", "cuda-graph-max-bs: null"),  # a rename would escape the deletion
    ("tp-size: 8\ndisable-cuda-graph: true", "disable-cuda-graph: false"),  # a rewrite would escape the false
])
def test_a_base_fix_a_variant_does_not_need_is_reported_not_made(base, variant):
    text = _sweep(base, variant)
    result = fix_source(text, srtslurm, path="r.yaml")
    assert result.output == text
    assert result.diagnostics and not any(d.fixable for d in result.diagnostics)
    # nor what --write prints as remaining: `[*]` only where the requested mode fixes it (round 2, case 5)
    assert result.remaining and not any(d.fixable for d in result.remaining)
    assert any("need them otherwise" in c for c in result.conflicts)


def test_a_rename_of_a_key_a_variant_overrides_and_renames_too_is_made_in_both():
    text = _sweep("tp-size: 8\ncuda-graph-max-bs: 64", "cuda-graph-max-bs: 128")
    assert fix_source(text, srtslurm, path="r.yaml").output == text.replace("cuda-graph-max-bs:", "cuda-graph-max-bs-decode:")


def test_a_zipped_list_is_fixed_item_by_item():
    text = _sweep("tp-size: 8\nep-size: 8", "ep-dispatch-algorithm: [static, lp]\nmem-fraction-static: [0.8, 0.7]",
                  "zip_override_z")
    result = fix_source(text, srtslurm, path="r.yaml")
    assert "ep-dispatch-algorithm: [dynamic, dynamic]" in result.output


def test_a_fix_never_empties_a_role_mapping():
    # an emptied `decode:` is null: srtctl would start no decode worker
    text = recipe("prefill-round-robin-balance: true")
    result = fix_source(text, srtslurm, path="r.yaml")
    assert result.output == text and [d.code for d in result.diagnostics] == ["VER001"]
    assert any("leave the role empty" in c for c in result.conflicts)


# Bounded reading (autofix/common/limits.py) and merge keys in role mappings


def _bomb(levels: int = 9, width: int = 10) -> str:
    lines = ["  a0: &a0 [" + ", ".join(["x"] * width) + "]"]
    lines += [f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "x-anchors:\n" + "\n".join(lines) + "\n"


def test_an_alias_bomb_in_a_role_mapping_is_refused_at_its_alias():
    from autofix.common.errors import InputError

    text = _bomb() + recipe("tp-size: 8\nx: *a8")
    with pytest.raises(InputError) as err:
        srtslurm.read(text, "r.yaml", SCHEMA)
    assert "YAML aliases expand to more than 200,000 values (alias *a4 here)" in err.value.message
    assert err.value.line == 7  # where a5 names a4 the first time


def test_a_recursive_alias_in_a_role_mapping_is_refused():
    from autofix.common.errors import InputError

    with pytest.raises(InputError, match="recursive alias") as err:
        srtslurm.read(recipe("tp-size: 8\ncuda-graph-bs-decode: &a [1, *a]"), "r.yaml", SCHEMA)
    assert (err.value.line, err.value.col) == (7, 36)


def test_nesting_at_the_limit_is_read_in_a_role_and_deeper_is_refused():
    from autofix.common.errors import InputError
    from autofix.common.limits import MAX_YAML_DEPTH

    depth = MAX_YAML_DEPTH - 4  # root, backend, sglang_config and the role are the first four levels
    body = "tp-size: 8\njson-model-override-args: " + "{a: " * depth + "1" + "}" * depth
    [launch] = srtslurm.read(recipe(body), "r.yaml", SCHEMA)
    assert launch.parsed.explicit["tp_size"] == 8
    with pytest.raises(InputError, match="more than 400 levels") as err:
        srtslurm.read(recipe(body.replace("{a: ", "{a: {a: ", 1) + "}"), "r.yaml", SCHEMA)
    assert err.value.line == 7


ROLES = """name: x
backend:
  type: sglang
  sglang_config:
    prefill: &p
      tp-size: 8
      ep-size: 8
      moe-a2a-backend: none
      enable-eplb: true
      ep-dispatch-algorithm: static
    decode:
      <<: *p
      tp-size: 4
      ep-size: 4
"""


def test_a_role_that_merges_another_reads_it_as_srtctls_safe_load_does():
    import yaml

    prefill, decode = srtslurm.read(ROLES, "r.yaml", SCHEMA)
    loaded = yaml.safe_load(ROLES)["backend"]["sglang_config"]
    for launch, role in ((prefill, "prefill"), (decode, "decode")):
        flags = [w.text for w in launch.parsed.words[4:] if w.text.startswith("--")]
        assert flags == ["--" + k for k in sorted(loaded[role])]
    assert decode.parsed.explicit["tp_size"] == 4 and decode.parsed.explicit["ep_dispatch_algorithm"] == "static"
    assert not [e for e in decode.entries if e.ignored == "repeated"]  # the merged copies are overridden


def test_a_fix_of_merged_text_is_reported_from_both_roles_and_made_in_neither():
    result = fix_source(ROLES, srtslurm, path="r.yaml")
    assert [(d.code, d.location.line, d.fixable) for d in result.diagnostics] == [("EP003", 10, False)]
    assert result.output == ROLES
    notes = " ".join(result.conflicts)
    assert "the value comes from the merge key '<<: *p' at 12:7; fix by hand" in notes  # decode's
    assert "need them otherwise" in notes  # prefill's: decode reads that text too


def test_an_own_key_next_to_a_merge_key_is_fixed():
    text = ROLES.replace("      ep-dispatch-algorithm: static\n", "").replace("ep-size: 4\n", "ep-size: 4\n"
                                                                              "      ep-dispatch-algorithm: static\n")
    result = fix_source(text, srtslurm, path="r.yaml")
    assert result.output == text.replace("static", "dynamic")
