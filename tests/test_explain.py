"""autofix explain: a rule code or name, or SGLang's pasted error (message, log, traceback) -> the rule, or why none.

The messages are SGLang 0.5.23's, the tracebacks the oracle's (tests/data/tracebacks/README says which
flags); tests/oracle/test_explain_messages.py checks every rule's message against SGLang's own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autofix.cli.commands import app
from autofix.explain.lookup import explain, message
from autofix.explain.sites import PLACEHOLDER, load, words
from autofix.pipeline.items import SettingsRule
from autofix.rules import SETTINGS

TRACEBACKS = Path(__file__).parent / "data" / "tracebacks"
EP003_MESSAGE = ("--ep-dispatch-algorithm static picks a different physical replica per rank, which only holds up when "
                 "an a2a backend routes each token to a single rank. Use --ep-dispatch-algorithm dynamic with "
                 "--moe-a2a-backend none.")
RUN019_MESSAGE = "experimental_sgl_marlin EP requires --moe-a2a-backend none"
MORI_MESSAGE = ("SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK (default 4096) must be >= the per-rank MoRI dispatch "
                "tokens (chunked_prefill_size by default)")
SAME_MESSAGE = "The expert parallel size must be 1 or the same as the tensor parallel size"  # moe_hook.py:89 and :102


def run(*args, input=None):
    return CliRunner().invoke(app, ["explain", *args], input=input, prog_name="autofix")


def traceback(name: str) -> str:
    return (TRACEBACKS / f"{name}.txt").read_text(encoding="utf-8")


EP003_LINE = ("SGLang's check at arg_groups/parallel_hook.py:783 (handle_eplb_and_dispatch), {how}, "
              "is rule EP003 ep-dispatch-needs-a2a")
RUN019_LINE = ("SGLang's check at lora/marlin_lora_temp/policy.py:23 (validate_experimental_sgl_marlin_server_args, "
               "called from arg_groups/validation_hook.py:575), {how}, is rule RUN019 marlin-ep-needs-no-a2a")
MORI_LINE = ("SGLang's check at arg_groups/moe_hook.py:567 (handle_a2a_moe), {how}, has no rule: skipped-env: "
             "the capacity is SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK")
NOT_RECOGNISED = "Not recognised: no rule code or name"

# (id, argv, stdin, exit code, the first line's start (None: the rule's page comes first), the rules' pages in order)
CASES = [
    ("EP003-code", ["ep003"], None, 0, None, ["EP003"]),
    ("EP003-name", ["ep-dispatch-needs-a2a"], None, 0, None, ["EP003"]),
    ("EP003-message", [EP003_MESSAGE], None, 0, EP003_LINE.format(how="found by its message"), ["EP003"]),
    ("EP003-valueerror", [f"ValueError: {EP003_MESSAGE}"], None, 0, EP003_LINE.format(how="found by its message"),
     ["EP003"]),
    ("EP003-message-words", ["ValueError:", *EP003_MESSAGE.split()], None, 0,
     EP003_LINE.format(how="found by its message"), ["EP003"]),
    ("EP003-traceback", [traceback("EP003-static-a2a-none")], None, 0, EP003_LINE.format(how="named in the traceback"),
     ["EP003"]),
    ("EP003-traceback-stdin", [], traceback("EP003-static-a2a-none"), 0,
     EP003_LINE.format(how="named in the traceback"), ["EP003"]),
    ("EP003-log-stdin-dash", ["-"], "[2025-06-01 10:00:00] server starting\n" + traceback("EP003-static-a2a-none")
     + "[2025-06-01 10:00:01] exiting\n", 0, EP003_LINE.format(how="named in the traceback"), ["EP003"]),
    ("EP003-location", ["sglang/srt/arg_groups/parallel_hook.py:783"], None, 0,
     EP003_LINE.format(how="at the location given"), ["EP003"]),
    ("RUN019-message", [RUN019_MESSAGE], None, 0, RUN019_LINE.format(how="found by its message"), ["RUN019"]),
    ("RUN019-valueerror", [f"ValueError: {RUN019_MESSAGE}"], None, 0, RUN019_LINE.format(how="found by its message"),
     ["RUN019"]),
    ("RUN019-message-stdin", ["-"], f"ValueError: {RUN019_MESSAGE}\n", 0, RUN019_LINE.format(how="found by its message"),
     ["RUN019"]),
    ("RUN019-traceback", [traceback("RUN019-marlin-deepep")], None, 0, RUN019_LINE.format(how="named in the traceback"),
     ["RUN019"]),
    ("CFG001-traceback", [traceback("CFG001-config-key")], None, 0,
     "SGLang's check at utils/server_args_config_parser.py:173 (_convert_config_to_args), named in the traceback, "
     "is rule CFG001 refused-config-key", ["CFG001"]),
    # two rules at one statement: both; the exception SGLang raised it from (a chained traceback) picks one
    ("EEP013-EEP014-location", ["sglang/srt/arg_groups/parallel_hook.py:612"], None, 0,
     "SGLang's check at arg_groups/parallel_hook.py:612 (handle_elastic_ep), at the location given, is mirrored by 2 "
     "rules: EEP013 elastic-scale-up-attention-topology, EEP014 elastic-scale-up-replica-multiples", ["EEP013", "EEP014"]),
    ("EEP014-chained-traceback", [traceback("EEP014-chained")], None, 0,
     "SGLang's check at arg_groups/parallel_hook.py:612 (handle_elastic_ep), named in the traceback, raised again "
     "from elastic_ep/topology.py:36 (physical_ep_size_to_dp_size), is rule EEP014", ["EEP014"]),
    # one message at two sites, each a rule's: both
    ("RUN008-RUN006-same-message", [SAME_MESSAGE], None, 0,
     "The message fits 2 of SGLang's checks about equally well:", ["RUN006", "RUN008"]),
    ("uncovered-env-traceback", [traceback("mori-dispatch-budget")], None, 1, MORI_LINE.format(how="named in the traceback"),
     []),
    ("uncovered-env-message", [f"AssertionError: {MORI_MESSAGE}"], None, 1, MORI_LINE.format(how="found by its message"),
     []),
    ("garbage", ["the GPU caught fire while loading the weights"], None, 1, NOT_RECOGNISED, []),
    ("unknown-code", ["NOPE1"], None, 1, NOT_RECOGNISED, []),
]


@pytest.mark.parametrize("argv, stdin, exit_code, first, pages", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_explain(argv, stdin, exit_code, first, pages):
    r = run(*argv, input=stdin)
    assert r.exit_code == exit_code, r.output
    if first is None:
        assert r.stdout.startswith(f"# {pages[0]} ")
    else:  # the match score aside
        assert re.sub(r" \(match \d\.\d\d\)", "", r.stdout).startswith(first), r.stdout
    shown = [line.split()[1] for line in r.stdout.splitlines() if line.startswith("# ")]
    assert sorted(shown) == sorted(pages)


@pytest.mark.parametrize("argv, stdin", [([], ""), (["-"], " \n"), ([""], None)], ids=["empty-stdin", "blank-stdin", "empty"])
def test_nothing_to_explain_is_a_usage_error(argv, stdin):
    r = run(*argv, input=stdin)
    assert r.exit_code == 2
    assert "nothing to explain" in r.stderr


def test_a_frame_no_site_holds_falls_back_to_the_message():
    moved = traceback("EP003-static-a2a-none").replace("line 783, in handle_eplb", "line 790, in handle_eplb")
    found = explain(moved)
    assert (found.how, [r.code for r in found.rules], found.frame.where) == (
        "message", ["EP003"], "arg_groups/parallel_hook.py:790")


def test_a_frame_in_another_function_is_not_the_site():  # another SGLang's line 783
    moved = traceback("EP003-static-a2a-none").replace("in handle_eplb_and_dispatch", "in handle_something_else")
    assert explain(moved).how == "message"


@pytest.mark.parametrize("text, expected", [
    ("Use --ep-dispatch-algorithm dynamic.", {"use", "--ep-dispatch-algorithm", "dynamic"}),
    ("experimental_sgl_marlin EP requires", {"experimental_sgl_marlin", "ep", "requires"}),
    ("tp_size=8, got 'fp8' (e.g. 2)", {"tp_size", "got", "fp8", "e.g"}),  # numbers and one-letter words dropped
    (f"--{PLACEHOLDER}-size must be {PLACEHOLDER}x, not none", {"must", "be", "not", "none"}),  # partial words dropped
], ids=["flags", "identifiers", "numbers", "placeholders"])
def test_words(text, expected):
    assert words(text) == expected


def test_the_message_is_the_last_exception_line_on():
    assert message(traceback("RUN019-marlin-deepep")) == RUN019_MESSAGE
    assert message(f"log line\nValueError: {RUN019_MESSAGE}\n") == RUN019_MESSAGE
    assert message(RUN019_MESSAGE) == RUN019_MESSAGE


def test_the_index_holds_every_settings_rule_line():
    index = load()
    missing = [r.code for r in SETTINGS if isinstance(r, SettingsRule)
               if not (site := index.at(r.position.file, r.position.line)) or r.code not in site.rules]
    assert not missing, "run python scripts/coverage.py, then python scripts/gen_messages.py"


def test_the_coverage_data_names_the_rules_at_each_site():
    data = json.loads((Path(__file__).parents[1] / "autofix" / "schema" / "sglang-0.5.23-coverage.json").read_text())
    stale = [r.code for r in SETTINGS if isinstance(r, SettingsRule)
             if r.at in data["sites"] and r.code not in data["sites"][r.at]["rules"]]
    assert not stale, "run python scripts/coverage.py"


def _v2_modes_traceback(call: int, caller: str) -> str:
    return f'''Traceback (most recent call last):
  File "/x/sglang/srt/arg_groups/validation_hook.py", line 222, in check_server_args
    check_lora_server_args(server_args)
  File "/x/sglang/srt/arg_groups/lora_hook.py", line {call}, in {caller}
    _check_v2_lora_modes(cfg, option)
  File "/x/sglang/srt/arg_groups/lora_hook.py", line 30, in _check_v2_lora_modes
    raise ValueError(f"{{option}} does not yet support {{mode}}")
ValueError: --lora-backend triton_v2 does not yet support two-batch overlap
'''


def test_a_traceback_through_a_nested_call_names_the_rule_of_that_path():
    # lora_hook.py:30 is reached from check_lora_server_args (:54, LORA002) or check_lora_moe_runner_args (:208, LORA025)
    assert [r.code for r in explain(_v2_modes_traceback(54, "check_lora_server_args")).rules] == ["LORA002"]
    assert [r.code for r in explain(_v2_modes_traceback(208, "check_lora_moe_runner_args")).rules] == ["LORA025"]


def test_the_site_at_a_place_is_the_first_whose_statement_holds_it():
    from autofix.explain.sites import load

    index = load()
    places = {(s.path, line) for s in index.sites for line in range(s.first - 1, s.last + 2)}
    places |= {("no/such/file.py", 1), (index.sites[0].path, 10**9)}
    for path, line in sorted(places):
        assert index.at(path, line) is next((s for s in index.sites if s.holds(path, line)), None)


def test_a_traceback_of_a_hundred_thousand_frames_is_explained_as_one_of_one():
    # each frame's site is looked up in an index (a scan of every site for each frame took 20 s here; not timed)
    frame = '  File "/usr/lib/python3/site-packages/sglang/srt/server_args.py", line 1234, in check_server_args\n'
    head, tail = "Traceback (most recent call last):\n", "ValueError: tp size must be 8\n"
    assert explain(head + frame * 100_000 + tail) == explain(head + frame + tail)
