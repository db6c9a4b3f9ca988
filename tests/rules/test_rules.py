"""Each rule fires on its violating cases and not on their neighbours; its fixes leave the config clean."""

from __future__ import annotations

import shlex

import pytest

from autofix import engine
from autofix.api import fix_source
from autofix.arguments import Word, parse_words
from autofix.formats import argv as shell
from autofix.model import Location
from autofix.schema import load
from tests.rules.cases import ALL_CASES, Case

SCHEMA = load()


def explicit(argv) -> dict:
    parsed = parse_words(SCHEMA, [Word(t, Location(1, i + 1)) for i, t in enumerate(argv)])
    assert parsed.problems == []
    return parsed.explicit


def fixed_argv(case: Case, unsafe: bool = True) -> list[str]:
    """Fix the case written as a launch command and read the fixed words back."""
    text = "python3 -m sglang.launch_server " + shlex.join(case.argv) + "\n"
    result = fix_source(text, shell, unsafe=unsafe)
    words = shlex.split(result.output)
    return words[3:]


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_reports_exactly_the_expected_codes(case: Case):
    assert [v.code for v in engine.check(explicit(case.argv), SCHEMA)] == list(case.codes)


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_verdict_matches_sglang(case: Case):
    """autofix flags a case exactly when SGLang refused it (verdicts recorded from the oracle)."""
    assert bool(case.codes) == (case.sglang != "ok")


@pytest.mark.parametrize("case", [c for c in ALL_CASES if c.codes], ids=[c.id for c in ALL_CASES if c.codes])
def test_fixes_leave_the_config_clean(case: Case):
    outcome = engine.run(explicit(case.argv), SCHEMA, level=engine.Applicability.UNSAFE)
    assert outcome.remaining == ()
    assert engine.check(explicit(fixed_argv(case)), SCHEMA) == []


@pytest.mark.parametrize("case", [c for c in ALL_CASES if c.codes], ids=[c.id for c in ALL_CASES if c.codes])
def test_first_code_is_the_one_sglang_raises(case: Case):
    from autofix.rules import get

    assert "sglang/srt/" + get(case.codes[0]).sglang_source == case.sglang


def test_marlin_deepep_static_is_fixed_in_two_passes():
    argv = ["--tp", "8", "--moe-a2a-backend", "deepep", "--moe-runner-backend", "experimental_sgl_marlin",
            "--ep-dispatch-algorithm", "static"]
    outcome = engine.run(explicit(argv), SCHEMA, level=engine.Applicability.UNSAFE)
    assert [(f.violation.code, f.pass_no, f.after) for f in outcome.findings] == [
        ("RUN019", 1, ()),
        ("EP003", 2, ("RUN019",)),
    ]
    assert outcome.explicit == {"tp_size": 8, "moe_a2a_backend": "none", "ep_size": 8,
                                "moe_runner_backend": "experimental_sgl_marlin", "ep_dispatch_algorithm": "dynamic"}


def test_safe_mode_leaves_unsafe_fixes_as_remaining():
    argv = ["--tp", "8", "--moe-a2a-backend", "deepep", "--moe-runner-backend", "experimental_sgl_marlin"]
    outcome = engine.run(explicit(argv), SCHEMA)
    assert [v.code for v in outcome.remaining] == ["RUN019"]
    assert outcome.explicit == explicit(argv)


def test_fix_safety_is_decided_per_occurrence():
    base = ["--tp", "8", "--moe-runner-backend", "experimental_sgl_marlin", "--enable-lora", "--lora-use-virtual-experts"]
    [default_backend] = engine.check(explicit(base), SCHEMA)
    [chosen_backend] = engine.check(explicit(base + ["--lora-backend", "csgmv"]), SCHEMA)
    assert default_backend.fixes[0].applicability == engine.Applicability.SAFE
    assert chosen_backend.fixes[0].applicability == engine.Applicability.UNSAFE


def test_unknown_values_do_not_fire():
    words = [Word("--tp", Location(1, 1)), Word("$TP", Location(1, 6), dynamic=True), Word("--enable-eplb", Location(1, 10))]
    assert engine.check(parse_words(SCHEMA, words).explicit, SCHEMA) == []


def test_violations_of_the_input_are_not_marked_as_appearing_after_a_fix():
    argv = ["--tp", "8", "--moe-runner-backend", "experimental_sgl_marlin", "--enable-lora"]
    outcome = engine.run(explicit(argv), SCHEMA)
    assert [(f.violation.code, f.pass_no, f.after) for f in outcome.findings] == [("RUN020", 1, ()), ("RUN021", 1, ())]
