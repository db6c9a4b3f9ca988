"""The shape every rule has: ``@rule(code, name, reads=...)`` on a check function."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from autofix.model import Violation
from autofix.resolve import View

Check = Callable[[View], Violation | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """A code (``EP003``), a kebab-case name, the dests it reads, its check.

    ``sglang_source`` is the ``path:line`` (relative to ``sglang/srt/``) of
    the raise it mirrors; ``doc`` is the check's docstring: the rule's manual.
    """

    code: str
    name: str
    reads: tuple[str, ...]
    sglang_source: str
    check: Check
    doc: str

    def __call__(self, view: View) -> Violation | None:
        found = self.check(view)
        if found is None:
            return None
        return Violation(found.message, found.args, found.fixes, self.code, self.name)

    @property
    def summary(self) -> str:
        """The docstring's first line."""
        return self.doc.strip().splitlines()[0]


def rule(code: str, name: str, *, reads: tuple[str, ...], sglang_source: str) -> Callable[[Check], Rule]:
    """Decorator: turn a documented check function into a ``Rule``."""

    def wrap(fn: Check) -> Rule:
        if not fn.__doc__:
            raise TypeError(f"rule {code} has no docstring")
        return Rule(code, name, reads, sglang_source, fn, fn.__doc__)

    return wrap
