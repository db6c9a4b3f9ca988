"""The pipeline's memo of quiet steps (``run._Agenda``) changes no answer, only how many steps run.

Each draw is resolved twice: with the agenda every launch shares (warmed
by all the draws before it) and with a fresh one (every step runs). The
violations, their fixes and the resolved values must be the same.
"""

from __future__ import annotations

from unittest import mock

from hypothesis import given
from hypothesis import strategies as st
from strategies import SCHEMA, configs

from autofix.model import UNKNOWN
from autofix.pipeline import run
from autofix.pipeline.facts import GPUS, NO_FACTS, Facts
from autofix.rules import SETTINGS


def _fresh(items, schema):
    return run._Agenda(run._ordered(items, schema), schema)


def _said(resolution) -> list:
    return [(v.code, v.message, tuple((f.applicability, f.ops) for f in v.fixes)) for v in resolution.violations]


@given(config=configs(), gpu=st.sampled_from((None, *sorted(GPUS))), data=st.data())
def test_the_memo_changes_no_violation_fix_or_value(config, gpu, data):
    facts = NO_FACTS if gpu is None else Facts(GPUS[gpu])
    # values only known at launch (``--tp $TP``): the memo keeps runs that read one, as it keeps the rest
    shell = data.draw(st.sets(st.sampled_from(sorted(config))) if config else st.just(set()))
    config = {k: UNKNOWN if k in shell else v for k, v in config.items()}
    shared = run.resolve(config, SCHEMA, SETTINGS, facts)
    with mock.patch.object(run, "_agenda", _fresh):
        every = run.resolve(config, SCHEMA, SETTINGS, facts)
    assert _said(shared) == _said(every)
    assert shared.silenced == every.silenced
    assert shared.view.declared() == every.view.declared()


def test_a_clean_launch_runs_few_steps():
    """The point of the memo: on a launch like the last, only the steps that read what it sets are looked up,
    and fewer still run."""
    launch = {"model_path": "m", "tp_size": 8, "mem_fraction_static": 0.85}
    run.resolve(launch, SCHEMA, SETTINGS)
    agenda = run._agenda(SETTINGS, SCHEMA)
    due, _, _, _ = agenda.start(run.ResolvingView(launch, SCHEMA))
    assert len(due) < len(agenda.steps) / 2, (len(due), len(agenda.steps))
