"""What running the pipeline's items shows that its answer does not (for tests and the fidelity harness).

Nothing declares what it reads (``autofix.pipeline.view``); a ``Tracer``
records it. ``reads(items, schema, configs)`` runs the pipeline over
``configs`` and returns, per item, every dest it read on any of them.
``unclearing(items, schema, config)`` names the fixes the pipeline drops
on ``config`` because they would not clear their rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from autofix.common.diagnostics import UNKNOWN, Fix
from autofix.pipeline import run as pipeline_run
from autofix.pipeline.facts import NO_FACTS, Facts
from autofix.pipeline.items import Derivation, SettingsRule
from autofix.pipeline.run import Item
from autofix.pipeline.view import ResolvingView
from autofix.schema import Schema


class Tracer(ResolvingView):
    """A ``ResolvingView`` that notes each dest read while ``current`` names an item."""

    __slots__ = ("seen", "current")

    def __init__(self, explicit: Mapping[str, Any], schema: Schema, facts: Facts = NO_FACTS) -> None:
        super().__init__(explicit, schema, facts)
        self.seen: dict[Any, set[str]] = {}
        self.current: Any = None

    def value(self, dest: str) -> Any:
        if self.current is not None:
            self.seen.setdefault(self.current, set()).add(dest)
        return ResolvingView.value(self, dest)


def reads(items: tuple[Item, ...], schema: Schema, configs: Iterable[Mapping[str, Any]],
          facts: Facts = NO_FACTS) -> dict[Any, set[str]]:
    """``item -> dests read`` over the pipeline runs of ``configs`` (``dest -> value`` each)."""
    out: dict[Any, set[str]] = {it: set() for it in items}
    for config in configs:
        view = Tracer(config, schema, facts)
        for item, _, _ in pipeline_run._ordered(items, schema):
            view.current = item
            if isinstance(item, Derivation):
                pipeline_run._derive(item, view, items, fixes=True)
            else:
                pipeline_run._check(item, view, items, fixes=True)
        for item, dests in view.seen.items():
            out[item] |= dests
    return out


def unclearing(items: tuple[Item, ...], schema: Schema, config: Mapping[str, Any],
               facts: Facts = NO_FACTS) -> list[tuple[SettingsRule, Fix]]:
    """``(rule, fix)`` for each fix a rule that fires on ``config`` (``dest -> value``) builds and the pipeline
    drops, in pipeline order: the launch with it applied still breaks the rule, or reads an unknown there
    (``run._clears``). The pipeline drops them without a word: the rule is reported with the fixes left."""
    view = ResolvingView(config, schema, facts)
    model = config.get("model_path", UNKNOWN)
    dummy = model is not UNKNOWN and str(model).lower() in pipeline_run.NO_MODEL  # as ``run.resolve``
    out = []
    for item, model_only, _ in pipeline_run._ordered(items, schema):
        if model_only and dummy:
            continue  # SGLang returns before this step for a launch of no model
        if isinstance(item, Derivation):
            pipeline_run._derive(item, view, items, fixes=False)
            continue
        try:
            fired = item.check(view)
        except pipeline_run._UNDECIDED:
            continue
        if fired is not None:
            out += [(item, fix) for fix, clears in pipeline_run._built(item, view, items) if not clears]
    return out
