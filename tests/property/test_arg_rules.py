"""Properties of the argparse-stage rules, over configs drawn from the whole argument table.

1. A config of valid values, written with SGLang's own spellings, gets no
   argparse-stage diagnostic (no false positives).
2. The same config with one spelling or one choice mangled the way people
   mangle them (``_`` for ``-``, upper case) gets exactly one new diagnostic,
   with a safe fix, and ``--write`` gives back the original settings.
"""

from __future__ import annotations

import shlex
from functools import cache
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import FORMATS, SCHEMA, read_explicit

from autofix.adapters.yaml_config import render_scalar
from autofix.core.api import FixOptions, fix_source
from autofix.rules import RULES
from autofix.rules.base import ArgsRule
from autofix.schema import Option

ARG_CODES = {r.code for r in RULES if isinstance(r, ArgsRule)}
_WORD = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8).map(lambda s: "v" + s)


def _drawable(o: Option, fmt: str) -> bool:
    if o.deprecated or o.dest in ("model_path", "config") or o.kind in ("custom", "store_const"):
        return False
    if fmt == "yaml" and o.config_file == "refused":
        return False
    if o.kind == "boolean_optional":
        return True
    if o.nargs not in (None, 0, "+", "*"):
        return False
    return o.choices is not None or o.type in ("int", "float", "str") or o.nargs == 0


@cache
def _deprecated_choice(dest: str, value: str) -> bool:
    """A choice SGLang still takes but maps to another (DEP002's table): valid, yet reported."""
    text = f"python -m sglang.launch_server --model-path m {SCHEMA[dest].flag} {shlex.quote(value)}\n"
    return any(d.code == "DEP002" for d in fix_source(text, FORMATS["shell"],
                                                      options=FixOptions(others=())).diagnostics)


def _value(o: Option) -> st.SearchStrategy[Any]:
    if o.nargs == 0:
        return st.just(True)
    if o.choices is not None:
        one = st.sampled_from([c for c in o.choices if isinstance(c, str) and c and not c.startswith("-")
                               and not _deprecated_choice(o.dest, c)] or [None])
    elif o.type == "int":
        one = st.integers(1, 64)
    elif o.type == "float":
        one = st.sampled_from((0.25, 0.5, 0.75))
    else:
        one = _WORD
    if o.nargs in ("+", "*"):
        return st.lists(one, min_size=1, max_size=3)
    return one


@st.composite
def valid_configs(draw, fmt: str) -> dict[str, Any]:
    options = [o for o in SCHEMA.options if _drawable(o, fmt)]
    chosen = draw(st.lists(st.sampled_from(options), unique_by=lambda o: o.dest, min_size=1, max_size=6))
    config = {"model_path": "deepseek-ai/DeepSeek-V3"}
    for o in chosen:
        value = draw(_value(o))
        assume(value is not None and not (isinstance(value, list) and None in value))
        config[o.dest] = value
    return config


def render(config: dict[str, Any], fmt: str, spelled: dict[str, str] | None = None,
           values: dict[str, Any] | None = None) -> str:
    """``config`` with each dest's canonical spelling (or ``spelled[dest]``) and value (or ``values[dest]``)."""
    spelled, values = spelled or {}, values or {}
    lines, words = [], []
    for dest, value in config.items():
        o = SCHEMA[dest]
        flag = spelled.get(dest, o.flag)
        value = values.get(dest, value)
        if fmt == "yaml":
            lines.append(f"{flag[2:]}: {render_scalar(value)}")
        elif o.nargs == 0:
            words.append(flag)
        else:
            words += [flag, *(map(str, value) if isinstance(value, list) else [str(value)])]
    if fmt == "yaml":
        return "\n".join(lines) + "\n"
    return "python -m sglang.launch_server " + shlex.join(words) + "\n"


def arg_diagnostics(text: str, fmt: str):
    return [d for d in fix_source(text, FORMATS[fmt], options=FixOptions(others=())).diagnostics if d.code in ARG_CODES]


EACH_FORMAT = pytest.mark.parametrize("fmt", ("yaml", "shell"))


@EACH_FORMAT
@given(data=st.data())
def test_valid_configs_get_no_argparse_stage_diagnostic(fmt, data):
    config = data.draw(valid_configs(fmt), label="config")
    text = render(config, fmt)
    assert arg_diagnostics(text, fmt) == []
    assert read_explicit(text, fmt) == [config]


@EACH_FORMAT
@given(data=st.data())
def test_one_mangled_spelling_or_choice_is_one_safe_fix(fmt, data):
    config = data.draw(valid_configs(fmt), label="config")
    dest = data.draw(st.sampled_from(list(config)), label="dest")
    o = SCHEMA[dest]
    spelled, values = {}, {}
    how = data.draw(st.sampled_from(("underscore", "upper", "choice")), label="how")
    if how == "underscore":
        assume("-" in o.flag[2:])
        spelled[dest] = "--" + o.flag[2:].replace("-", "_")
    elif how == "upper":
        spelled[dest] = o.flag.upper()
    else:
        value = config[dest]
        assume(o.choices is not None and isinstance(value, str) and value.upper() != value)
        folded = [c for c in o.choices if str(c).lower().replace("-", "").replace("_", "")
                  == value.lower().replace("-", "").replace("_", "")]
        assume(len(folded) == 1)
        values[dest] = value.upper()
    original, mangled = render(config, fmt), render(config, fmt, spelled, values)
    found = arg_diagnostics(mangled, fmt)
    assert len(found) == 1, [d.violation.message for d in found]
    assert found[0].fixable
    output = fix_source(mangled, FORMATS[fmt], options=FixOptions(others=())).output
    # the settings rules may fix the drawn config too; they do the same to the original
    expected = fix_source(original, FORMATS[fmt], options=FixOptions(others=())).output
    assert read_explicit(output, fmt) == read_explicit(expected, fmt)
