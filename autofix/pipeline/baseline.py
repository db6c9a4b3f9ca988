"""The baseline: what every step reads and finds on a launch that sets nothing.

A step is a pure function of what it reads, in the order it reads it
(``run._Agenda`` keeps its decision trees on that). So a step none of whose
reads on the baseline differs, at its position, from the same read on a
launch finds there what it found on the baseline: the launch need not look
it up at all. ``resolve`` (``autofix.pipeline.run``) walks only the steps
that read a dest the launch sets to another value than the default (or
whether it is written), or one a derivation made differ from the baseline
on the way, and the derivations that declare something on the
baseline (most launches declare the same there: the CUDA graph backends,
the draft's MoE runner, the page-size snaps); the other steps of several
hundred are not touched.

The baseline depends on the facts (a platform fact read on the way) and on
whether the launch names a model (the model-only steps run or not), so
``walk`` is run once per facts and model/no-model, and kept.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from autofix.pipeline.view import ResolvingView

UNANSWERED = object()  # what a step found on the baseline that a launch must not take for its own: look it up


@dataclass(frozen=True, slots=True, eq=False)  # never compared: no __eq__ to compile at start-up (issue 15)
class Baseline:
    """One walk of the pipeline over a launch that sets nothing, per step rank.

    ``found[rank]``: what the step found there (None: a quiet rule, or a
    derivation's declarations: a dict; ``silent`` for a check that read an
    unknown; ``UNANSWERED`` for a rule that fired, or a step that raised:
    its answer is built from the launch itself). ``after[rank]``: the
    value of each dest a derivation ``writes`` right after it, there.
    ``readers[dest]``: the ranks whose reads there include ``dest``'s
    value; ``checkers[dest]``: those that read whether it is written
    (``is_explicit``, ``written``: a launch that writes it differs there,
    whatever the value). ``always``: the ranks a launch looks up whatever
    it sets (``UNANSWERED``); ``declaring``: the derivations
    that declare something there; ``silent``: the ranks of the checks that
    read an unknown there, and ``silent_codes`` their codes.
    """

    found: tuple[Any, ...]
    after: Mapping[int, Mapping[str, Any]]
    readers: Mapping[str, tuple[int, ...]]
    checkers: Mapping[str, tuple[int, ...]]
    always: frozenset[int]
    declaring: tuple[int, ...]
    silent: frozenset[int]
    silent_codes: tuple[str, ...]


Step = Callable[[Any, bool, ResolvingView], Any]


def walk(steps: tuple[tuple[Any, bool, bool], ...], view: ResolvingView, run: Step, dummy: bool,
         silent: object) -> Baseline:
    """The ``Baseline`` of ``steps`` ((item, model only, is a rule), in pipeline order) on ``view`` (a launch
    that sets nothing). ``run(item, is_rule, view)`` runs one step: a rule's violation, None or ``silent``;
    a derivation's declarations, which this declares on ``view``. ``dummy``: the model-only steps are skipped,
    as for a launch of ``--model-path dummy``."""
    found: list[Any] = []
    after: dict[int, dict[str, Any]] = {}
    readers: dict[str, list[int]] = {}
    checkers: dict[str, list[int]] = {}
    always: set[int] = set()
    declaring: list[int] = []
    quiet: dict[int, str] = {}
    for rank, (item, model_only, is_rule) in enumerate(steps):
        if model_only and dummy:
            found.append(None)  # never run: never due either (``resolve`` skips it first)
            continue
        reads = view.reads = []
        try:
            out = run(item, is_rule, view)
        except Exception:  # noqa: BLE001 - a launch runs this step itself, and meets the error there if any
            out = UNANSWERED
        finally:
            view.reads = None
        if is_rule and out is not None and out is not silent:
            out = UNANSWERED  # a violation: its message and fixes are the launch's own
        if out is UNANSWERED:
            always.add(rank)
        elif out is silent:
            quiet[rank] = item.code
        elif out:  # a derivation's declarations
            view.declare(out)
            declaring.append(rank)
        if not is_rule:
            after[rank] = {dest: view.value(dest) for dest in item.writes}
        for name in dict.fromkeys(reads):
            if name.startswith("explicit:"):
                checkers.setdefault(name[9:], []).append(rank)
            elif not name.startswith("fact:"):  # the facts are the launch's own: they never differ
                readers.setdefault(name, []).append(rank)
        found.append(out)
    return Baseline(tuple(found), after, _frozen(readers), _frozen(checkers), frozenset(always), tuple(declaring),
                    frozenset(quiet), tuple(quiet.values()))


def _frozen(index: dict[str, list[int]]) -> dict[str, tuple[int, ...]]:
    return {dest: tuple(ranks) for dest, ranks in index.items()}


def same(a: Any, b: Any) -> bool:
    """Whether a step reading ``a`` where the baseline had ``b`` takes the same path (equal, and of one type:
    ``1`` and ``True`` are equal but may not be read alike)."""
    return a is b or (type(a) is type(b) and a == b)
