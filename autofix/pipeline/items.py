"""What a pipeline step holds: derivations (values it declares) and settings rules (its checks).

Both name their place in SGLang once, in a ``Position``: the step (a hook of
``arg_groups/pipeline.py``, or ``check_server_args``) and the SGLang line
they mirror. The pipeline runs them in that order; nothing else orders
them (``autofix.pipeline.run.order``). ``tests/test_positions.py`` opens
the installed SGLang at each line and checks it is a raise or assert (a
rule) or a declaration (a derivation) inside that step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from autofix.common.diagnostics import Fix, Violation
from autofix.pipeline.view import ResolvingView


@dataclass(frozen=True, slots=True)
class Position:
    """Where in SGLang's pipeline something happens.

    ``step`` is a step id of the schema's step list (``handle_a2a_moe``;
    ``name#2`` for a hook's second run). ``at`` is the SGLang line it
    mirrors, ``path:line`` relative to ``sglang/srt/``. ``via`` is the line
    of the step's hook that calls into ``at``'s function, when ``at`` is
    not in the hook itself (a post-process pass in ``overrides.py``, a
    helper next to the hook); within a step, positions are ordered by that
    line (``via``, else ``at``'s). ``calls`` are the lines of the further
    calls, outermost first, from ``via``'s callee down to ``at``'s function,
    when that function is not the one ``via`` calls (``check_lora_server_args``
    calls ``check_lora_moe_runner_args``, which calls ``_check_v2_lora_modes``):
    positions with the same ``via`` are ordered by them.
    """

    step: str
    at: str
    via: int | None = None
    calls: tuple[int, ...] = ()

    @property
    def file(self) -> str:
        """``at``'s file, relative to ``sglang/srt/``."""
        return self.at.rsplit(":", 1)[0]

    @property
    def line(self) -> int:
        """``at``'s line."""
        return int(self.at.rsplit(":", 1)[1])


Derive = Callable[[ResolvingView], Mapping[str, Any] | None]
Cause = Callable[[ResolvingView], str | None]  # None: no warning after all


@dataclass(frozen=True, slots=True, eq=False)
class Derivation:
    """Values one SGLang step declares, as ``derive(view) -> {dest: value}`` (None or {}: nothing).

    ``writes`` lists every dest it may declare; declaring another is an
    error (``DeclarationError``), as SGLang's own declaration check
    (``overrides.py:1753``) refuses undeclared fields. A derivation that
    reads an unknown value declares every dest of ``writes`` unknown.

    When it can change a value the user set (an override), ``code`` and
    ``name`` are the warning's (the catalog's override row, ``A2A006``)
    and ``cause(view)`` says what makes the change, read before it
    (``--moe-a2a-backend deepep``), or None when it replaces nothing the user
    meant (``auto``); ``doc`` is the docstring of ``derive``.
    """

    position: Position
    writes: tuple[str, ...]
    derive: Derive
    doc: str
    code: str | None = None
    name: str | None = None
    cause: Cause | None = None
    versions: tuple[str, ...] = ("0.5.23",)

    @property
    def summary(self) -> str:
        """The docstring's first line."""
        return self.doc.strip().splitlines()[0]

    @property
    def refuses(self) -> bool:
        """False: an override is a warning, SGLang starts."""
        return False

    @property
    def at(self) -> str:
        """The SGLang line of the declaration, relative to ``sglang/srt/`` (``position.at``)."""
        return self.position.at


class DeclarationError(Exception):
    """A derivation declared a dest outside its ``writes`` (a bug in autofix, caught by the tests)."""


Check = Callable[[ResolvingView], Violation | None]
FixBuilder = Callable[[ResolvingView], Fix | None]


@dataclass(frozen=True, slots=True, eq=False)
class SettingsRule:
    """A check of the settings SGLang resolves, at its pipeline position.

    ``check(view)`` returns at most one ``Violation`` (message and args; the
    pipeline adds the code, name and fixes); each of ``fixes`` builds one fix
    from the same view, best first (register them with ``@rule.fix``). A
    check that reads an unknown value is silent; a fix builder that does is
    left out. ``refuses`` is False for a check SGLang makes without refusing
    (a warning); ``versions`` lists the SGLang releases it mirrors.
    """

    code: str
    name: str
    position: Position
    check: Check
    doc: str
    fixes: list[FixBuilder] = field(default_factory=list)
    refuses: bool = True
    versions: tuple[str, ...] = ("0.5.23",)

    def fix(self, builder: FixBuilder) -> FixBuilder:
        """Decorator: add ``builder`` as this rule's next fix (rank: registration order)."""
        self.fixes.append(builder)
        return builder

    @property
    def at(self) -> str:
        """The SGLang line the rule mirrors, relative to ``sglang/srt/`` (``position.at``)."""
        return self.position.at

    @property
    def summary(self) -> str:
        """The docstring's first line."""
        return self.doc.strip().splitlines()[0]

    def applies_to(self, version: str) -> bool:
        """Whether this rule checks launches of SGLang ``version``."""
        return not self.versions or version in self.versions


def settings_rule(code: str, name: str, *, step: str, at: str, via: int | None = None,
                  calls: tuple[int, ...] = (), refuses: bool = True) -> Callable[[Check], SettingsRule]:
    """Decorator: turn a documented check (``ResolvingView -> Violation | None``) into a ``SettingsRule``.

    ``step``, ``at``, ``via`` and ``calls`` make its ``Position``. Raises ``TypeError``
    for a check without a docstring (it is the rule's manual).
    """

    def wrap(fn: Check) -> SettingsRule:
        if not fn.__doc__:
            raise TypeError(f"rule {code} has no docstring")
        return SettingsRule(code, name, Position(step, at, via, calls), fn, fn.__doc__, refuses=refuses)

    return wrap


def derivation(*, step: str, at: str, writes: tuple[str, ...], via: int | None = None,
               calls: tuple[int, ...] = (), code: str | None = None, name: str | None = None,
               cause: Cause | None = None) -> Callable[[Derive], Derivation]:
    """Decorator: turn a documented ``ResolvingView -> {dest: value}`` into a ``Derivation`` (see there).

    Raises ``TypeError`` without a docstring, or with ``code`` but no ``name`` and ``cause``.
    """

    def wrap(fn: Derive) -> Derivation:
        if not fn.__doc__:
            raise TypeError(f"derivation {fn.__name__} has no docstring")
        if code is not None and (name is None or cause is None):
            raise TypeError(f"override {code} needs a name and a cause")
        return Derivation(Position(step, at, via, calls), writes, fn, fn.__doc__, code, name, cause)

    return wrap
