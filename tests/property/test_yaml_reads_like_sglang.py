"""The YAML adapter reads a ``--config`` file as SGLang does.

SGLang loads the file with ``yaml.safe_load`` into a dict, turns every pair
into words (``ConfigArgumentMerger``) and hands them to argparse; the model
of that is ``sglang_model.sglang_reads_config``. The texts here repeat keys
in any spelling and with any value (the rendering the other properties
avoid), since that is where a dict and a walk over the pairs part ways.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from sglang_model import sglang_reads_config
from strategies import YAML_DESTS, configs, read_explicit, yaml_texts

from autofix.adapters import yaml_config
from autofix.schema import load


@given(data=st.data())
def test_yaml_adapter_reads_what_sglang_reads(data):
    config = data.draw(configs(YAML_DESTS), label="config")
    text = data.draw(yaml_texts(config, duplicates="any"), label="text")
    expected = sglang_reads_config(text.removeprefix("\ufeff").replace("\r\n", "\n"))
    [launch] = yaml_config.read(text, "config.yaml", load())
    if expected is None:
        assert launch.parsed.problems
    else:
        assert not launch.parsed.problems
        assert read_explicit(text, "yaml") == [expected]
