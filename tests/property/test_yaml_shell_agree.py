"""DESIGN property 4: a config written as YAML and as flags is one config.

The same drawn config (only options the ``--config`` merger accepts) is
rendered as an SGLang ``--config`` file and as a shell launch; both must give
the same violation codes and, after fixing, the same explicit settings.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import YAML_DESTS, comparable, configs, fix, read_explicit, shell_texts, yaml_texts

from autofix.pipeline.items import Derivation, SettingsRule
from autofix.rules import RULES


@pytest.mark.parametrize("unsafe", (False, True), ids=("safe", "unsafe"))
@given(data=st.data())
def test_yaml_and_shell_give_the_same_violations_and_fixed_args(unsafe, data):
    config = data.draw(configs(YAML_DESTS), label="config")
    # one setting per dest in both: a repeat would be an argparse-stage finding of one text only
    yaml_text = data.draw(yaml_texts(config, duplicates="none"), label="yaml")
    shell_text = data.draw(shell_texts(config, repeats=False), label="shell")
    assert read_explicit(yaml_text, "yaml") == read_explicit(shell_text, "shell") == comparable([config])

    from_yaml, from_shell = fix(yaml_text, "yaml", unsafe), fix(shell_text, "shell", unsafe)

    # the settings rules agree; the argparse stage may not: a launch needs --model-path, a config file does not
    settings_codes = {r.code for r in RULES if isinstance(r, SettingsRule | Derivation)}
    assert Counter(d.code for d in from_yaml.diagnostics if d.code in settings_codes) == \
        Counter(d.code for d in from_shell.diagnostics if d.code in settings_codes)
    assert read_explicit(from_yaml.output, "yaml") == read_explicit(from_shell.output, "shell")
