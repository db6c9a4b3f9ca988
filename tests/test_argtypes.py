"""Every ``type=`` of SGLang's parsers is applied as argparse applies it (issue 29, verdicts round 2, case 2).

SGLang's own converters are compared word by word in tests/oracle/test_argtypes.py, and whole launches in the
ARG004 cases of tests/rules/arg_cases.py; here: that no table names a converter autofix does not model, the one
that differs between releases, and the reproducer as a user runs it.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from autofix.cli.commands import app
from autofix.common import argtypes
from autofix.schema import load, versions

GRAPH_CONFIG = "sglang.srt.model_executor.cuda_graph_config.parse_cuda_graph_config_arg"


@pytest.mark.parametrize("version", versions())
def test_every_converter_a_table_names_is_modelled(version):
    named = {o.type for o in load(version).options if o.type}
    assert {t for t in named if argtypes.converter(t, version) is None} == set()


def test_the_cuda_graph_config_of_each_release():
    """0.5.19 takes tc_compiler and any backend name (cuda_graph_config.py:229); 0.5.23 neither (:246)."""
    old = '{"decode": {"backend": "tc_piecewise", "tc_compiler": "eager"}}'
    assert argtypes.refusal(GRAPH_CONFIG, old, "0.5.19") is None
    assert argtypes.refusal(GRAPH_CONFIG, old, "0.5.23") == ("this release has no tc_piecewise CUDA graph backend "
                                                            "(it has breakable, full and disabled)")
    assert argtypes.refusal(GRAPH_CONFIG, '{"prefill": {"max_seq_len": 8}}', "0.5.19") == (
        "--cuda-graph-config's prefill takes no key 'max_seq_len' (its keys: backend, max_bs, bs, tc_compiler, "
        "full_prefill_max_req, full_prefill_prefix_chunk_tokens)")


@pytest.mark.parametrize("text, value", [("1k", 1000), ("1.5k", 1500), ("2Ki", 2048), (" 16 ", 16), ("1_000", 1000)])
def test_sizes_with_a_suffix(text, value):
    assert argtypes.convert("sglang.srt.utils.common.human_readable_int", text) == value


@pytest.mark.parametrize("option", ["limit-mm-data-per-request", "mm-process-config", "extra-metric-labels",
                                    "default-chat-template-kwargs", "preferred-sampling-params",
                                    "unified-cache-external-linker-config", "radix-eviction-policy-config"])
def test_invalid_json_is_refused(option, project):
    # SGLang: "argument --<option>: invalid loads value: '{bad'" (the oracle, for each)
    (project / "j.sh").write_text(f"python3 -m sglang.launch_server --model-path m --{option} '{{bad'\n")
    r = CliRunner().invoke(app, ["j.sh", "--check"], prog_name="autofix")
    assert r.exit_code == 1, r.output
    assert r.stdout == (f"j.sh:1:48: error: ARG004 --{option}: '{{bad' is not JSON (Expecting property name "
                        "enclosed in double quotes: line 1 column 2 (char 1))\n")
