"""Which dests each derivation and rule reads, found by running them (for tests and the fidelity harness).

Nothing declares what it reads (``autofix.pipeline.view``); a ``Tracer``
records it. ``reads(items, schema, configs)`` runs the pipeline over
``configs`` and returns, per item, every dest it read on any of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from autofix.pipeline import run as pipeline_run
from autofix.pipeline.facts import NO_FACTS, Facts
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


def reads(items: tuple, schema: Schema, configs: Iterable[Mapping[str, Any]],
          facts: Facts = NO_FACTS) -> dict[Any, set[str]]:
    """``item -> dests read`` over the pipeline runs of ``configs`` (``dest -> value`` each)."""
    out: dict[Any, set[str]] = {it: set() for it in items}
    for config in configs:
        view = Tracer(config, schema, facts)
        for item, _, _ in pipeline_run._ordered(items, schema):
            view.current = item
            if isinstance(item, pipeline_run.Derivation):
                pipeline_run._derive(item, view, items, fixes=True)
            else:
                pipeline_run._check(item, view, items, fixes=True)
        for item, dests in view.seen.items():
            out[item] |= dests
    return out
