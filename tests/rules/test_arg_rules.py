"""The argparse-stage rules: diagnostics, exact fixed texts, neighbours that stay quiet, messages."""

from __future__ import annotations

import pytest

from autofix.adapters import argv as shell
from autofix.adapters import yaml_config
from autofix.core.api import FixOptions, fix_source
from autofix.rules import RULES
from autofix.rules.base import ArgsRule
from tests.rules.arg_cases import CASES, ArgCase

FORMATS = {"yaml": yaml_config, "shell": shell}


def found(result) -> tuple[str, ...]:
    return tuple(f"{d.code} {d.location.line}:{d.location.col}" for d in result.diagnostics)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_diagnostics_and_fixed_text(case: ArgCase):
    result = fix_source(case.text, FORMATS[case.fmt], path=f"x.{case.fmt}")
    assert found(result) == case.found
    assert result.output == (case.text if case.output is None else case.output)
    again = fix_source(result.output, FORMATS[case.fmt])
    assert found(again) == tuple(f"{d.code} {d.location.line}:{d.location.col}" for d in result.remaining)


def test_every_argparse_stage_rule_has_a_case():
    covered = {f.split()[0] for c in CASES for f in c.found} | {"CFG005", "CFG006", "CFG007", "DEP001", "DEP002"}
    assert {r.code for r in RULES if isinstance(r, ArgsRule)} <= covered


def messages(text: str, fmt=shell, **kw) -> list[str]:
    return [f"{d.code} {d.violation.message}" for d in fix_source(text, fmt, options=FixOptions(**kw)).diagnostics]


def test_messages_say_what_sglang_wants():
    launch = "python -m sglang.launch_server --model-path m "
    assert messages(launch + "--enable_metrics\n") == [
        "ARG001 unknown option --enable_metrics: SGLang spells it --enable-metrics"]
    assert messages("tp_size: 8\n", yaml_config) == [
        "ARG001 unknown key 'tp_size': SGLang spells it tp-size (keys are passed on as flags verbatim)"]
    assert messages("moe-runner-backend: DeepEP\n", yaml_config)[0].startswith(
        "ARG003 moe-runner-backend: 'DeepEP' is not a choice (auto, deep_gemm")
    assert messages(launch + "--moe-a2a-backend DeepEP\n") == [
        "ARG003 --moe-a2a-backend: 'DeepEP' is not a choice; SGLang spells it 'deepep'"]
    assert messages(launch + "--cuda-graph-max-bs 8\n", others=()) == [
        "ARG002 --cuda-graph-max-bs is ambiguous: it abbreviates --cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill"]
    assert messages("moe-a2a-backend: no\n", yaml_config)[0].endswith(
        "(YAML reads this value as the boolean false)")
    assert messages("tp-size: 4\ntp-size: 8\n", yaml_config) == [
        "ARG007 tp-size is set again later (tp-size: 8); SGLang uses the later one"]


def test_config_flag_spelling_and_twice_on_the_command_line():
    text = "python -m sglang.launch_server --config=a.yaml\n"
    result = fix_source(text, shell)
    assert found(result) == ("CFG005 1:32",)
    assert result.output == "python -m sglang.launch_server --config a.yaml\n"
    twice = "python -m sglang.launch_server --config a.yaml --config b.yaml\n"
    result = fix_source(twice, shell)
    assert found(result) == ("CFG006 1:48",) and not result.changed
    assert found(fix_source("python -m sglang.launch_server --config a.yaml\n", shell)) == ()


def test_a_config_file_that_is_not_yaml_by_name():
    for name in ("serve.conf", "serve.yaml.bak", "config.json"):
        result = fix_source(f"python -m sglang.launch_server --model-path m --config {name}\n", shell)
        assert found(result) == ("CFG007 1:47",) and not result.changed
    assert found(fix_source("python -m sglang.launch_server --model-path m --config A.YML\n", shell)) == ()
    # --config=FILE with such a file: writing --config FILE would make SGLang refuse it, so no fix
    result = fix_source("python -m sglang.launch_server --model-path m --config=serve.conf\n", shell)
    assert found(result) == ("CFG005 1:47",) and not result.changed
    assert result.diagnostics[0].violation.fixes == ()


def test_a_refused_key_names_the_problem_once():
    # the merger refuses the key before argparse runs: no second report of the value word
    assert messages("enable-tf32-matmul: true\n", yaml_config) == [
        "CFG001 SGLang's --config reader refuses key 'enable-tf32-matmul' (an --x/--no-x switch); "
        "pass it on the command line"]


def test_later_fixes_are_reported_at_the_original_position():
    # pass 1 renames the key; pass 2 finds the repeat: its position is the original line
    text = "model-path: m\ntp_size: 8  # old\ntp-size: 4\n"
    result = fix_source(text, yaml_config)
    assert found(result) == ("ARG001 2:1", "ARG007 2:1")
    assert result.diagnostics[1].after == ("ARG001",)
    assert result.output == "model-path: m\ntp-size: 4\n"


def test_shell_expansions_are_not_judged():
    text = 'python -m sglang.launch_server --model-path m --tp-size "$TP" --moe-a2a-backend $A2A "$@"\n'
    assert fix_source(text, shell).diagnostics == ()
    assert messages("python -m sglang.launch_server --tp-size 8 \"$@\"\n") == []  # "$@" may hold --model-path


def test_unknown_flag_fix_keeps_the_inline_value_and_quotes():
    text = "python -m sglang.launch_server --model-path m --tp_size=8 --moe-a2a-backend 'DeepEP'\n"
    assert fix_source(text, shell).output == \
        "python -m sglang.launch_server --model-path m --tp-size=8 --moe-a2a-backend 'deepep'\n"


def test_a_key_the_older_reader_refuses_gets_the_spelling_it_takes():
    from autofix.schema import load

    text = "model-path: m\ncuda-graph-max-bs-decode: 256\n"
    result = fix_source(text, yaml_config, options=FixOptions(schema=load("0.5.19")))
    assert found(result) == ("CFG001 2:1",)
    assert result.output == "model-path: m\ncuda-graph-max-bs: 256\n"
    assert found(fix_source(text, yaml_config)) == ()  # 0.5.23 takes it


def test_a_rewrite_in_a_flow_mapping_stays_flow_style():
    text = "{tp-size: 8, disable-cuda-graph: true}\n"
    result = fix_source(text, yaml_config)
    assert found(result) == ("DEP001 1:14",)
    assert result.output == "{tp-size: 8, cuda-graph-backend-decode: disabled, cuda-graph-backend-prefill: disabled}\n"


def test_a_fix_the_layout_cannot_take_is_not_offered():
    text = "{tp-size: 8, enable-dp-attention: true, dp-size: 8}\n"  # dp-size cannot be removed on its own
    result = fix_source(text, yaml_config, options=FixOptions(unsafe=True))
    assert not result.changed and result.conflicts
    assert [(d.code, d.fixable, d.fix_available) for d in result.diagnostics] == [("DEP001", False, False)]


def test_what_remains_after_fixing_is_not_said_to_appear_later():
    text = "model-path: m\ntp_size: 8\ntensor-parallel-size: 8\npp: 2\n"
    result = fix_source(text, yaml_config)
    assert [(d.code, d.after) for d in result.diagnostics] == [
        ("ARG001", ()), ("ARG007", ("ARG001",)), ("ARG002", ())]  # the repeat appears once the rename is done
    assert [(d.code, d.after) for d in result.remaining] == [("ARG002", ())]


def test_an_abbreviation_of_another_release_is_not_a_version_finding():
    from autofix.schema import load

    result = fix_source("model-path: m\nattn-dp: 8\n", yaml_config, options=FixOptions(schema=load("0.5.19")))
    assert [d.code for d in result.diagnostics] == ["ARG001"]


def test_a_crlf_continuation_is_named_as_the_cause():
    text = "python -m sglang.launch_server --model-path m \\\r\n  --tp 8\r\n"
    [message] = messages(text)
    assert message.startswith("ARG006 stray argument '\\r': no option takes it (a CRLF line ending")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_an_error_exactly_where_sglang_refuses(case: ArgCase):
    """A diagnostic is an error when SGLang refuses the launch, else a warning (docs/usage.md), decided per
    occurrence: `tp-size: ~` is refused, `chat-template: ~` starts (CFG002 is both)."""
    result = fix_source(case.text, FORMATS[case.fmt], path=f"x.{case.fmt}")
    errors = [d.code for d in result.diagnostics if d.violation.severity == "error"]
    blind = case.id == "ARG009-no-model"  # the oracle adds --model-path: it cannot see this refusal
    assert bool(errors) is (case.sglang != "ok" or blind), [(d.code, d.violation.severity) for d in result.diagnostics]
