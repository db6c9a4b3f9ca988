"""The pipeline's memo (``run._Agenda``: the baseline and the steps' decision trees) changes no answer, only
how many steps run.

Each draw is resolved twice: with the agenda every launch shares (warmed
by all the draws before it) and by a plain walk that runs every step in
order, no memo. The violations, their fixes and the resolved values must
be the same.
"""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import SCHEMA, configs

from autofix.common.diagnostics import UNKNOWN
from autofix.pipeline import run
from autofix.pipeline.facts import GPUS, NO_FACTS, Facts
from autofix.rules import SETTINGS


def _plain(explicit, schema, items, facts):
    """``run.resolve`` without the memo: every step runs, in pipeline order (the fixes' own resolves use it)."""
    view = run.ResolvingView(explicit, schema, facts)
    model = explicit.get("model_path", UNKNOWN)
    dummy = model is not UNKNOWN and str(model).lower() in run.NO_MODEL
    found, silent = [], []
    for item, model_only, is_rule in run._ordered(items, schema):
        if model_only and dummy:
            continue
        if is_rule:
            v = run._check(item, view, items, True)
            if v is run._SILENT:
                silent.append(item.code)
            elif v is not None:
                found.append(v)
        else:
            found.extend(run._derive(item, view, items, True))
    return run.Resolution(tuple(found), view, len(silent), frozenset(silent))


def _said(resolution) -> list:
    return [(v.code, v.message, tuple((f.applicability, f.ops) for f in v.fixes)) for v in resolution.violations]


@given(config=configs(), gpu=st.sampled_from((None, *sorted(GPUS))), data=st.data())
def test_the_memo_changes_no_violation_fix_or_value(config, gpu, data):
    facts = NO_FACTS if gpu is None else Facts(GPUS[gpu])
    # values only known at launch (``--tp $TP``): the memo keeps runs that read one, as it keeps the rest
    shell = data.draw(st.sets(st.sampled_from(sorted(config))) if config else st.just(set()))
    config = {k: UNKNOWN if k in shell else v for k, v in config.items()}
    shared = run.resolve(config, SCHEMA, SETTINGS, facts)
    every = _plain(config, SCHEMA, SETTINGS, facts)
    assert _said(shared) == _said(every)
    assert shared.silenced == every.silenced
    assert shared.silent == every.silent
    assert shared.view.declared() == every.view.declared()


@pytest.mark.parametrize("model", ["m", "dummy"])
def test_a_launch_that_sets_only_the_model_is_the_baseline(model):
    """The baseline's own launch: nothing but the declarations the baseline makes, nothing looked up but the
    steps that read the model path."""
    launch = {"model_path": model}
    assert _said(run.resolve(launch, SCHEMA, SETTINGS)) == _said(_plain(launch, SCHEMA, SETTINGS, NO_FACTS))
    assert run.resolve(launch, SCHEMA, SETTINGS).view.declared() == \
        _plain(launch, SCHEMA, SETTINGS, NO_FACTS).view.declared()


def test_a_clean_launch_runs_few_steps():
    """The point of the memo: on a launch like the last, only the steps that read what it sets are looked up,
    and fewer still run."""
    launch = {"model_path": "m", "tp_size": 8, "mem_fraction_static": 0.85}
    run.resolve(launch, SCHEMA, SETTINGS)
    agenda = run._agenda(SETTINGS, SCHEMA)
    looked, ran = [], []
    recall, check, derived = agenda.recall, run._check, run._derived
    with mock.patch.object(agenda, "recall", lambda rank, view: looked.append(rank) or recall(rank, view)), \
            mock.patch.object(run, "_check", lambda *a: ran.append(a[0]) or check(*a)), \
            mock.patch.object(run, "_derived", lambda *a: ran.append(a[0]) or derived(*a)):
        run.resolve(launch, SCHEMA, SETTINGS)
    assert len(looked) < len(agenda.steps) / 10, (len(looked), len(agenda.steps))
    assert not ran
