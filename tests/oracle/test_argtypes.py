"""autofix.common.argtypes against SGLang 0.5.23's own ``type=`` callables, word by word.

One oracle-venv process imports SGLang's converters (behind the oracle's shims) and applies each to every word
of a corpus; autofix's must take the same words, give the same values, and refuse the others, in its own words
where SGLang's converter refuses (``ArgumentTypeError``). The end-to-end verdicts (argparse refusing the launch)
are the ARG004 cases of tests/rules/arg_cases.py.
"""

from __future__ import annotations

import json
import math
import subprocess

import pytest

from autofix.common import argtypes
from autofix.schema import load
from harness.oracle.oracle import CHECK_PY, PYTHON
from tests.oracle import requires_oracle

pytestmark = [pytest.mark.oracle, requires_oracle]

_DEEP = "[" * 1025 + "]" * 1025
NUMBERS = ["8", " 8 ", "+5", "-1", "1_000", "0x10", "1e3", "8.0", "1.5", "", "abc", "\u0668", "9" * 30]
JSON = ["{bad", "{}", '{"a": 1}', "[1, 2,]", "NaN", "Infinity", "-Infinity", "1e400", "[1e400]", "9" * 400,
        "18446744073709551615", "18446744073709551616", "-9223372036854775809", '"\\ud800"', '["\\udc00"]',
        '"\\ud83d\\ude00"', '{"\\ud800": 1}', " [1] ", "null", "None", "1k", "[" * 500 + "]" * 500, _DEEP]
WORDS = {
    "int": NUMBERS,
    "float": [*NUMBERS, "nan", "inf", "-1e400", "1_0.5"],
    "json": JSON,
    "sglang.srt.utils.common.human_readable_int": [
        *NUMBERS, "1k", "1.5k", "25.6k", "1.0k", "2Ki", "1.5Ki", "1K", "1kb", "1 k", " 2Mi ", "3G", "1T", "1Ti",
        "\u0668k", "0.5M", "10.25k"],
    "sglang.srt.utils.common.nullable_str": ["None", "", "none", "x", " None"],
    "sglang.srt.utils.common.json_list_type": JSON,
    "sglang.srt.model_executor.cuda_graph_config.parse_cuda_graph_backend_arg": [
        "tc_piecewise", "full", "breakable", "disabled", "Full", ""],
    "sglang.srt.model_executor.cuda_graph_config.parse_cuda_graph_config_arg": [
        *JSON[:6], "[1]", '{"x": {}}', '{"decode": 1}', '{"decode": {"backend": "tc_piecewise"}}',
        '{"decode": {"foo": 1}}', '{"decode": {"backend": "full", "max_bs": 8}}', '{"prefill": {"max_seq_len": 4}}',
        '{"decode": {"max_context_size": 4}}', '{"decode": {"backend": 1}}', '{"1": {}}', "null"],
}

# SGLang's side: each word through the converter the table names, as argparse calls it
_SCRIPT = r"""
import importlib, importlib.util, json, math, sys
check, words = sys.argv[1], json.load(sys.stdin)
sys.argv = [check, "--"]  # check.py reads its own argv when imported: its shims, no case
spec = importlib.util.spec_from_file_location("oracle_shims", check)
spec.loader.exec_module(importlib.util.module_from_spec(spec))
builtin = {"int": int, "float": float, "str": str, "json": json.loads}

def value(v):
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return v

out = {}
for name, texts in words.items():
    module, _, func = name.rpartition(".")
    fn = builtin.get(name) or getattr(importlib.import_module(module), func)
    answers = []
    for text in texts:
        try:
            answers.append({"ok": True, "value": json.dumps(value(fn(text)), default=repr)})
        except Exception as exc:
            answers.append({"ok": False, "type": type(exc).__name__, "message": str(exc)})
    out[name] = answers
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def sglang() -> dict[str, list[dict]]:
    proc = subprocess.run([str(PYTHON), "-c", _SCRIPT, str(CHECK_PY)], input=json.dumps(WORDS), capture_output=True,
                          text=True, timeout=600, check=True)
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_corpus_covers_every_converter_the_table_names():
    assert {o.type for o in load().options if o.type} - {"str"} <= set(WORDS) == argtypes.KNOWN - {"str"}


def _value(v):
    return repr(v) if isinstance(v, float) and not math.isfinite(v) else v


@pytest.mark.parametrize("name", sorted(WORDS))
def test_each_word_is_taken_or_refused_as_sglang_does(name, sglang):
    for text, theirs in zip(WORDS[name], sglang[name]):
        own = False  # refused by the converter itself (argtypes.Refused), not by what it calls
        try:
            mine = {"ok": True, "value": json.dumps(_value(argtypes.convert(name, text)), default=repr)}
        except (ValueError, TypeError) as exc:
            mine, own = {"ok": False, "message": argtypes.message(name, text, exc)}, isinstance(exc, argtypes.Refused)
        shown = text if len(text) < 60 else text[:60] + "..."
        if theirs["ok"]:
            assert mine == theirs or (name.endswith("json_list_type") and mine["value"] == '"UNKNOWN"'), shown
        elif theirs["type"] == "ArgumentTypeError":  # the converter's own refusal: said in autofix's words
            assert not mine["ok"] and own, (shown, theirs)
        else:  # ValueError, JSONDecodeError, RecursionError: argparse's generic message, or a traceback
            assert not mine["ok"], (shown, theirs)
