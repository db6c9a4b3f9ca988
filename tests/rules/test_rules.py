"""Each rule fires on its violating cases and not on their neighbours; its fixes leave the config clean."""

from __future__ import annotations

import json
import shlex
from pathlib import PurePosixPath

import pytest

from autofix.adapters import argv as shell
from autofix.common.arguments import Word, parse_words
from autofix.common.diagnostics import Location
from autofix.core import engine
from autofix.core.api import FixOptions, fix_source
from autofix.rules import SETTINGS, defined_in
from autofix.schema import load
from harness.oracle.oracle import verdict
from harness.rules.casekit import raised_at
from harness.rules.cases import ALL_CASES, FACTS, VERDICTS, Case, facts_of

SCHEMA = load()
CUTLASS = ["--moe-runner-backend", "flashinfer_cutlass"]
CUTEDSL = ["--moe-runner-backend", "flashinfer_cutedsl", "--quantization", "modelopt_fp4"]


def explicit(argv) -> dict:
    parsed = parse_words(SCHEMA, [Word(t, Location(1, i + 1)) for i, t in enumerate(argv)])
    assert parsed.problems == []
    return parsed.explicit


def fixed_argv(case: Case, unsafe: bool = True) -> list[str]:
    """Fix the case written as a launch command and read the fixed words back."""
    text = "python3 -m sglang.launch_server " + shlex.join(case.argv) + "\n"
    result = fix_source(text, shell, options=FixOptions(unsafe=unsafe, facts=facts_of(case)))
    words = shlex.split(result.output)
    return words[3:]


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_reports_exactly_the_expected_codes(case: Case):
    assert [v.code for v in engine.check(explicit(case.argv), SCHEMA, facts_of(case))] == list(case.codes)


# SGLang's verdict on each case as the oracle gave it (scripts/oracle_verdicts.py --rule-cases; re-checked against
# the oracle by tests/oracle/test_rule_verdicts.py): what the offline tests compare with, not the rules' own `at`.
RECORDED: dict[str, dict] = json.loads(VERDICTS.read_text())


def test_every_case_has_a_recorded_verdict():
    missing = sorted({c.id for c in ALL_CASES} - RECORDED.keys())
    assert not missing, f"record them: python scripts/oracle_verdicts.py --rule-cases ({missing})"
    assert sorted(RECORDED.keys() - {c.id for c in ALL_CASES}) == []


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_case_says_the_recorded_verdict(case: Case):
    assert case.sglang == verdict(RECORDED[case.id])


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_verdict_matches_sglang(case: Case):
    """autofix reports an error exactly when SGLang refused the case (the recorded verdict)."""
    errors = [v for v in engine.check(explicit(case.argv), SCHEMA, facts_of(case)) if v.severity == "error"]
    assert bool(errors) == (not RECORDED[case.id]["ok"])


@pytest.mark.parametrize("case", [c for c in ALL_CASES if c.codes], ids=[c.id for c in ALL_CASES if c.codes])
def test_fixes_leave_the_config_clean(case: Case):
    outcome = engine.run(explicit(case.argv), SCHEMA, level=engine.Applicability.UNSAFE, facts=facts_of(case))
    assert outcome.remaining == ()
    assert engine.check(explicit(fixed_argv(case)), SCHEMA, facts_of(case)) == []


REFUSED = [c for c in ALL_CASES if not RECORDED.get(c.id, {"ok": True})["ok"]]


@pytest.mark.parametrize("case", REFUSED, ids=[c.id for c in REFUSED])
def test_first_error_is_the_one_sglang_raises(case: Case):
    """The first error's rule mirrors the line SGLang raised at, as recorded from the oracle (a rule's `at` that
    names another line fails here, whatever its cases say)."""
    [first, *_] = [v for v in engine.check(explicit(case.argv), SCHEMA, facts_of(case)) if v.severity == "error"]
    assert raised_at(first.code) == RECORDED[case.id]["where"]


def test_marlin_deepep_static_is_fixed_in_two_passes():
    argv = ["--tp", "8", "--moe-a2a-backend", "deepep", "--moe-runner-backend", "experimental_sgl_marlin",
            "--ep-dispatch-algorithm", "static"]
    outcome = engine.run(explicit(argv), SCHEMA, level=engine.Applicability.UNSAFE)
    assert [(v.code, v.after) for v in outcome.findings] == [
        ("RUN019", ()),
        ("EP003", ("RUN019",)),  # the second pass's: RUN019's fix made it appear
    ]
    assert outcome.explicit == {"tp_size": 8, "moe_a2a_backend": "none", "ep_size": 8,
                                "moe_runner_backend": "experimental_sgl_marlin", "ep_dispatch_algorithm": "dynamic"}


def test_safe_mode_leaves_unsafe_fixes_as_remaining():
    argv = ["--tp", "8", "--moe-a2a-backend", "deepep", "--moe-runner-backend", "experimental_sgl_marlin"]
    outcome = engine.run(explicit(argv), SCHEMA)
    assert [v.code for v in outcome.remaining] == ["RUN019"]
    assert outcome.explicit == explicit(argv)


def test_fix_safety_is_decided_per_occurrence():
    base = ["--tp", "8", "--moe-runner-backend", "experimental_sgl_marlin", "--enable-lora", "--lora-use-virtual-experts",
            "--max-lora-rank", "16", "--lora-target-modules", "all"]  # LoRA without adapters needs both (LORA009)
    [default_backend] = engine.check(explicit(base), SCHEMA)
    [chosen_backend] = engine.check(explicit(base + ["--lora-backend", "csgmv"]), SCHEMA)
    assert default_backend.fixes[0].applicability == engine.Applicability.SAFE
    assert chosen_backend.fixes[0].applicability == engine.Applicability.UNSAFE


def test_eep042_on_one_dp_rank_offers_the_attention_dp_the_dp_lm_head_needs():
    """With a single DP rank SGLang turns --enable-dp-lm-head off (DP005): the flag alone, added or already written,
    leaves EEP042 firing; attention DP over the TP group with the flag clears it (issue 30). A scale joiner keeps
    the flag on one rank."""
    scale_up = ["--tp", "8", "--elastic-ep-backend", "mooncake", "--max-ep-size", "16", "--moe-a2a-backend", "nixl"]
    joiner = [*scale_up, "--moe-dense-tp-size", "1", "--elastic-ep-join-mode", "scale", "--node-rank", "1",
              "--elastic-ep-join-rank-offset", "8", "--elastic-ep-initial-size", "8"]
    no_scale_up = "Remove --max-ep-size (no runtime scale-up)"

    def eep042_fixes(argv: list[str]) -> list[str]:
        [v] = [v for v in engine.check(explicit(argv), SCHEMA) if v.code == "EEP042"]
        return [f.title for f in v.fixes]

    assert eep042_fixes(scale_up) == ["Set --attn-dp-size to 8 (the --tp-size) and add --enable-dp-lm-head",
                                      no_scale_up]
    assert eep042_fixes([*scale_up, "--enable-dp-lm-head"]) == ["Set --attn-dp-size to 8 (the --tp-size)", no_scale_up]
    assert eep042_fixes([*scale_up, "--attn-dp-size", "8"]) == ["Add --enable-dp-lm-head", no_scale_up]
    assert eep042_fixes(joiner) == ["Add --enable-dp-lm-head", no_scale_up]
    assert eep042_fixes(["--tp", "1", *scale_up[2:]]) == [no_scale_up]  # no attention DP on one GPU


def dynamic(*words: str) -> dict:
    """The explicit settings of ``words``, a word starting with ``$`` only known at launch."""
    ws = [Word(t, Location(1, i + 1), dynamic=t.startswith("$")) for i, t in enumerate(words)]
    return parse_words(SCHEMA, ws).explicit


def test_a_check_that_does_not_need_the_unknown_value_fires_and_a_fix_that_does_is_left_out():
    # EP004 holds whatever $TP is: ep_size is 1 without an a2a backend; its ep_size = tp_size fix needs tp
    [v] = engine.check(dynamic("--tp", "$TP", "--enable-eplb"), SCHEMA)
    assert v.code == "EP004"
    assert [f.title for f in v.fixes] == ["Remove --enable-eplb"]


def test_an_unknown_dwdp_size_leaves_a_backend_that_is_none_anyway():
    # DWDP can only force `none`: with no a2a backend, EP003 holds whatever $D is
    [v] = engine.check(dynamic("--dwdp-size", "$D", "--ep-dispatch-algorithm", "static"), SCHEMA)
    assert v.code == "EP003"
    assert [f.title for f in v.fixes] == ["Set --ep-dispatch-algorithm to dynamic"]  # deepep: DWDP might undo it


def test_a_check_that_needs_the_unknown_value_is_silent():
    assert engine.check(dynamic("--tp", "8", "--moe-a2a-backend", "$A2A", "--ep-dispatch-algorithm", "static"),
                        SCHEMA) == []
    assert engine.check(dynamic("--tp", "8", "--ep-size", "$EP", "--enable-eplb"), SCHEMA) == []


def test_a_check_that_needs_a_fact_is_silent_until_it_is_given():
    argv = ["--tp", "8", "--quantization", "mxfp8", "--moe-runner-backend", "triton"]
    assert engine.check(explicit(argv), SCHEMA) == []  # the GPU decides what mxfp8 runs on
    assert [v.code for v in engine.check(explicit(argv), SCHEMA, FACTS)] == ["RUN003"]
    cutedsl = ["--moe-runner-backend", "flashinfer_cutedsl"]
    assert engine.check(explicit(cutedsl), SCHEMA) == []  # the model decides whether it has NVFP4 MoE layers
    assert [v.code for v in engine.check(explicit(cutedsl), SCHEMA, FACTS)] == ["RUN007"]


def test_a_check_sees_the_values_of_its_position_not_the_final_ones():
    # moe_hook.py:89 reads ep_size 2; handle_a2a_moe (the next step) makes it 8
    argv = [*CUTLASS, "--tp", "8", "--ep-size", "2", "--moe-a2a-backend", "deepep"]
    found = engine.check(explicit(argv), SCHEMA)
    assert [v.code for v in found] == ["RUN006", "A2A006"]
    assert found[0].message.endswith("not 2")
    # moe_hook.py:106 reads the backend before Waterfill and ascend_tp rewrite it
    for a2a, warning in (("mooncake --enable-waterfill", "A2A005"), ("ascend_tp", "A2A028")):
        argv = [*CUTEDSL, "--tp", "8", "--moe-a2a-backend", *a2a.split()]
        assert [v.code for v in engine.check(explicit(argv), SCHEMA)] == ["RUN009", warning]


def test_an_override_warning_says_what_replaces_the_value_and_pins_it():
    [v] = engine.check(explicit(["--tp", "8", "--ep-size", "2", "--moe-a2a-backend", "deepep"]), SCHEMA)
    assert (v.code, v.severity) == ("A2A006", "warning")
    assert v.message == "--ep-size 2 is ignored: the a2a backend deepep makes it 8"
    assert [(f.applicability, f.title) for f in v.fixes] == [(engine.Applicability.SAFE, "Set --ep-size to 8")]


def test_an_override_is_not_pinned_when_an_earlier_check_would_refuse_the_pinned_value():
    """Pinning --ep-size 8 would fail a check before handle_a2a_moe: the fix removes the ignored setting instead."""
    from autofix.common.diagnostics import Violation
    from autofix.pipeline.items import settings_rule
    from autofix.rules.moe_hook.handle_a2a_moe.backend import a2a_backend_overrides_ep_size

    @settings_rule("T001", "no-ep-8", step="handle_moe_kernel_config", at="arg_groups/moe_hook.py:89")
    def no_ep_8(view):
        """A check before handle_a2a_moe that refuses ep_size 8."""
        return Violation("ep 8", ("ep_size",)) if view["ep_size"] == 8 else None

    [v] = engine.check(explicit(["--tp", "8", "--ep-size", "2", "--moe-a2a-backend", "deepep"]), SCHEMA,
                       items=(no_ep_8, a2a_backend_overrides_ep_size))
    assert v.code == "A2A006"
    assert [f.title for f in v.fixes] == ["Remove --ep-size"]


def test_a_dummy_model_skips_the_steps_after_sglang_returns_early():
    argv = ["--tp", "8", "--ep-dispatch-algorithm", "static"]
    assert [v.code for v in engine.check(explicit(argv), SCHEMA)] == ["EP003"]
    assert engine.check(explicit(["--model-path", "dummy", *argv]), SCHEMA) == []
    assert [v.code for v in engine.check(dynamic("--model-path", "$MODEL", *argv), SCHEMA)] == ["EP003"]


def test_violations_of_the_input_are_not_marked_as_appearing_after_a_fix():
    argv = ["--tp", "8", "--moe-runner-backend", "experimental_sgl_marlin", "--enable-lora", "--max-lora-rank", "16",
            "--lora-target-modules", "all"]
    outcome = engine.run(explicit(argv), SCHEMA)
    assert [(v.code, v.after) for v in outcome.findings] == [("RUN020", ()), ("RUN021", ())]


def test_a_derivation_that_declares_outside_its_writes_is_an_error():
    import pytest as _pytest

    from autofix.pipeline.items import DeclarationError, derivation

    @derivation(step="handle_a2a_moe", at="arg_groups/moe_hook.py:465", writes=("moe_a2a_backend",))
    def stray(view):
        """Declares a dest it does not name."""
        return {"ep_size": 8}

    with _pytest.raises(DeclarationError, match=r"declares \['ep_size'\] outside its writes"):
        engine.check(explicit(["--tp", "8"]), SCHEMA, items=(stray,))


def test_each_item_lives_in_the_module_named_after_its_step():
    """A rule of SGLang's step ``handle_a2a_moe`` (arg_groups/moe_hook.py) is in autofix/rules/moe_hook/handle_a2a_moe.py
    (or a module of the package of that name)."""
    steps = {s.id: s for s in load().steps}
    for item in SETTINGS:
        step = steps[item.position.step]
        expected = f"autofix.rules.{PurePosixPath(step.module).stem}.{step.name}"
        module = defined_in(item)
        assert module == expected or module.startswith(expected + "."), (item.code, item.position.step)
