"""What a step sees: SGLang's ``resolving_view`` at one position of the pipeline.

``view[dest]`` is the newest declaration of an earlier step, else the value
the user wrote, else SGLang's default (``model_override_base.py:94``,
``ResolvingConfig``). A value nobody knows (``--tp $TP``, or a declaration
that read one) is not returned: reading it raises ``Unknown``, and the
pipeline turns that into silence (a check), unknown outputs (a
derivation) or a missing fix (a fix builder). Code that reads a view so
never handles ``UNKNOWN`` itself: what it returns can only depend on
values that are known, so it holds whatever the unknown ones turn out to be.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autofix.common.diagnostics import UNKNOWN
from autofix.pipeline.facts import NO_FACTS, Facts
from autofix.schema import Schema


class Unknown(Exception):
    """A read of a setting or fact that is not known; ``name`` is the dest or fact name."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class ResolvingView:
    """The settings at one pipeline position, read through the declarations so far.

    ``explicit`` is the user's settings as written (``dest -> value``,
    UNKNOWN for a shell expansion); ``is_explicit(dest)`` says whether the
    user set ``dest`` (even to its default value). ``view[dest]`` raises
    ``KeyError`` for a dest the schema does not know and ``Unknown`` for a
    value nobody knows; ``view.fact(name)`` reads a hardware, model or
    environment fact (see ``autofix.pipeline.facts``) and raises ``Unknown``
    unless it is given.
    """

    __slots__ = ("explicit", "schema", "facts", "_declared", "_defaults", "reads")

    def __init__(self, explicit: Mapping[str, Any], schema: Schema, facts: Facts = NO_FACTS) -> None:
        self.explicit: dict[str, Any] = dict(explicit)
        self.schema = schema
        self.facts = facts
        self._declared: dict[str, Any] = {}
        self._defaults = schema.defaults
        self.reads: list[str] | None = None  # while a list, every dest and fact read is appended (run.py's memo)

    def value(self, dest: str) -> Any:
        """``view[dest]``, but ``UNKNOWN`` is returned, not raised (for the pipeline's own bookkeeping)."""
        if self.reads is not None:
            self.reads.append(dest)
        declared = self._declared
        if dest in declared:
            return declared[dest]
        explicit = self.explicit
        if dest in explicit:
            return explicit[dest]
        return self._defaults[dest]

    def __getitem__(self, dest: str) -> Any:
        found = self.value(dest)
        if found is UNKNOWN:
            raise Unknown(dest)
        return found

    def is_explicit(self, dest: str) -> bool:
        """Whether the user set ``dest`` (even to its default value)."""
        if self.reads is not None:
            self.reads.append("explicit:" + dest)
        return dest in self.explicit

    def written(self, dest: str) -> Any:
        """The value the user wrote for ``dest``, else the default: SGLang's raw input (``_raw_input``).

        Raises ``Unknown`` for a value only known at launch.
        """
        if self.reads is not None:
            self.reads.append("explicit:" + dest)
        found = self.explicit.get(dest, self.schema.default(dest)) if dest in self.schema.by_dest else None
        if found is UNKNOWN:
            raise Unknown(dest)
        return found

    def fact(self, name: str) -> Any:
        """A hardware, model or environment fact (``platform.is_sm100``); raises ``Unknown`` unless given."""
        if self.reads is not None:
            self.reads.append("fact:" + name)
        found = self.facts.get(name)
        if found is UNKNOWN:
            raise Unknown(name)
        return found

    def declare(self, values: Mapping[str, Any]) -> None:
        """Record a step's declarations: later reads see them (the pipeline calls this)."""
        self._declared.update(values)

    def declared(self) -> dict[str, Any]:
        """Every dest some step declared, with its newest value."""
        return dict(self._declared)
