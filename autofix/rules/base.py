"""The shape every rule has: a documented check function under a decorator.

Three kinds, by what they read (as ruff splits token and AST rules):

* ``@rule``: a check of the *settings* SGLang resolves (``resolve.View``)
  that returns at most one violation; its fixes are ``Set``/``Unset`` ops.
* ``@arg_rule``: a check of how the settings are *written*
  (``written.Written``), SGLang's argparse and ``--config`` stage; it yields
  one violation per offending entry, with fixes that edit entries in place.
* ``@host_rule``: a check of how the file that holds a launch hands it
  over (``written.Written.host``), before SGLang reads a word: a Dockerfile
  exec form Docker does not read as one. It mirrors the host's code
  (BuildKit's), not SGLang's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from autofix.model import Violation
from autofix.resolve import View

Check = Callable[[View], Violation | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """A code (``EP003``), a kebab-case name, the dests it reads, its check.

    ``sglang_source`` is the ``path:line`` (relative to ``sglang/srt/``, or
    to the ``sglang`` package for ``utils/...``) of the code it mirrors (for
    a ``host`` rule, the host's code, ``buildkit:...``);
    ``doc`` is the check's docstring: the rule's manual. ``stage`` is
    ``settings``, ``args`` or ``host``. ``refuses`` is False for rules whose input
    SGLang accepts with a warning (deprecations) or silently misreads.
    ``versions`` lists the SGLang versions the rule applies to (empty: all
    versions, for rules driven by the version's own argument table).
    """

    code: str
    name: str
    reads: tuple[str, ...]
    sglang_source: str
    check: Callable
    doc: str
    stage: str = "settings"
    refuses: bool = True
    versions: tuple[str, ...] = ("0.5.23",)

    def __call__(self, view: View) -> Violation | None:
        found = self.check(view)
        if found is None:
            return None
        return self._stamp(found)

    def find(self, written) -> list[Violation]:
        """Every violation an argparse-stage rule finds in ``written`` (a ``Written``)."""
        return [self._stamp(v) for v in self.check(written)]

    def _stamp(self, found: Violation) -> Violation:
        return Violation(found.message, found.args, found.fixes, self.code, self.name, found.entry,
                         self.refuses if found.refuses is None else found.refuses)

    def applies_to(self, version: str) -> bool:
        """Whether this rule checks launches of SGLang ``version``."""
        return not self.versions or version in self.versions

    @property
    def summary(self) -> str:
        """The docstring's first line."""
        return self.doc.strip().splitlines()[0]


def rule(code: str, name: str, *, reads: tuple[str, ...], sglang_source: str) -> Callable[[Check], Rule]:
    """Decorator: turn a documented settings check (``View -> Violation | None``) into a ``Rule``."""

    def wrap(fn: Check) -> Rule:
        if not fn.__doc__:
            raise TypeError(f"rule {code} has no docstring")
        return Rule(code, name, reads, sglang_source, fn, fn.__doc__)

    return wrap


def arg_rule(code: str, name: str, *, sglang_source: str, refuses: bool = True,
             versions: tuple[str, ...] = ()) -> Callable:
    """Decorator: turn a documented argparse-stage check (``Written -> Iterable[Violation]``) into a ``Rule``.

    ``versions``: the SGLang releases it checks; empty (the default) for a
    rule driven by each release's own argument table.
    """

    def wrap(fn: Callable[..., Iterable[Violation]]) -> Rule:
        if not fn.__doc__:
            raise TypeError(f"rule {code} has no docstring")
        return Rule(code, name, (), sglang_source, fn, fn.__doc__, stage="args", refuses=refuses, versions=versions)

    return wrap


def host_rule(code: str, name: str, *, source: str) -> Callable:
    """Decorator: turn a documented check of how a file hands a launch over (``Written -> Iterable[Violation]``,
    reading ``Written.host``) into a ``Rule`` of stage ``host``.

    ``source`` names the host's code it mirrors (``buildkit:<path> (<function>)``): no SGLang line applies,
    SGLang never starts. It checks launches of every SGLang version.
    """

    def wrap(fn: Callable[..., Iterable[Violation]]) -> Rule:
        if not fn.__doc__:
            raise TypeError(f"rule {code} has no docstring")
        return Rule(code, name, (), source, fn, fn.__doc__, stage="host", versions=())

    return wrap
