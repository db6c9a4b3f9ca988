"""The rules that read how a launch is written, before SGLang resolves a value.

Two kinds (as ruff splits token and AST rules), both checks of a
``written.Written`` that yield one violation per offending entry:

* ``ArgsRule`` (``@arg_rule``): SGLang's argparse and ``--config`` stage;
  fixes edit entries in place.
* ``HostRule`` (``@host_rule``): how the file that holds a launch hands it
  over, before SGLang reads a word (a Dockerfile exec form Docker does not
  read as one). It mirrors the host's code (BuildKit's), not SGLang's.

The checks of the settings SGLang resolves are ``SettingsRule``s, at their
pipeline step (``autofix.pipeline.items``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from autofix.common.diagnostics import Violation

if TYPE_CHECKING:
    from autofix.common.suppressions import Malformed, Suppression

    # what a CommentRule's check yields: the comment, the codes the fix removes from it, the violation
    CommentFinding = tuple[Suppression | Malformed, tuple[str, ...], Violation]

Find = Callable[..., Iterable[Violation]]
CommentFind = Callable[..., Iterable["CommentFinding"]]
_Found = TypeVar("_Found")  # what a rule's check yields: a Violation, or a CommentRule's CommentFinding


@dataclass(frozen=True, slots=True, eq=False)  # never compared: no __eq__ to compile at start-up (issue 15)
class WrittenRule(Generic[_Found]):
    """A code (``ARG003``), a kebab-case name, the source it mirrors, its check.

    ``at`` (as on every kind of rule) is the ``path:line`` (relative to ``sglang/srt/``) or
    the function of the code it mirrors (for a ``HostRule``, the host's
    code, ``buildkit:...``); ``doc`` is the check's docstring: the rule's
    manual. ``refuses`` is False for rules whose input SGLang accepts with
    a warning (deprecations) or silently misreads. ``versions`` lists the
    SGLang versions the rule applies to (empty: all versions, for rules
    driven by the version's own argument table).
    """

    code: str
    name: str
    at: str
    check: Callable[..., Iterable[_Found]]
    doc: str
    refuses: bool = True
    versions: tuple[str, ...] = ()

    def find(self: WrittenRule[Violation], written) -> list[Violation]:
        """Every violation this rule finds in ``written`` (a ``Written``), code and name filled in."""
        found = []  # a loop, not a comprehension: most rules find nothing, and a comprehension is a frame more
        for v in self.check(written):
            found.append(Violation(v.message, v.args, v.fixes, self.code, self.name, v.entry,
                                   self.refuses if v.refuses is None else v.refuses))
        return found

    def applies_to(self, version: str) -> bool:
        """Whether this rule checks launches of SGLang ``version``."""
        return not self.versions or version in self.versions

    @property
    def summary(self) -> str:
        """The docstring's first line."""
        return self.doc.strip().splitlines()[0]


class ArgsRule(WrittenRule[Violation]):
    """A check of SGLang's argparse and ``--config`` stage (``Written -> Iterable[Violation]``)."""

    __slots__ = ()


class HostRule(WrittenRule[Violation]):
    """A check of how a file hands its launch over (``Written.host``); every SGLang version."""

    __slots__ = ()


def arg_rule(code: str, name: str, *, at: str, refuses: bool = True,
             versions: tuple[str, ...] = ()) -> Callable[[Find], ArgsRule]:
    """Decorator: turn a documented argparse-stage check (``Written -> Iterable[Violation]``) into an ``ArgsRule``.

    ``versions``: the SGLang releases it checks; empty (the default) for a
    rule driven by each release's own argument table. Raises ``TypeError``
    without a docstring.
    """

    def wrap(fn: Find) -> ArgsRule:
        if not fn.__doc__:
            raise TypeError(f"rule {code} has no docstring")
        return ArgsRule(code, name, at, fn, fn.__doc__, refuses, versions)

    return wrap


def host_rule(code: str, name: str, *, at: str) -> Callable[[Find], HostRule]:
    """Decorator: turn a documented check of how a file hands a launch over (``Written -> Iterable[Violation]``,
    reading ``Written.host``) into a ``HostRule``.

    ``source`` names the host's code it mirrors (``buildkit:<path> (<function>)``): no SGLang line applies,
    SGLang never starts. Raises ``TypeError`` without a docstring.
    """

    def wrap(fn: Find) -> HostRule:
        if not fn.__doc__:
            raise TypeError(f"rule {code} has no docstring")
        return HostRule(code, name, at, fn, fn.__doc__)

    return wrap


class CommentRule(WrittenRule["CommentFinding"]):
    """A check of autofix's own suppression comments in a file (``autofix.rules.suppression``).

    It reads the comments, not a launch: ``check(comments, known)`` yields ``(comment, codes to remove,
    violation)``; the engine never runs it (``WRITTEN`` does not hold it), ``api.fix_source`` does, once the
    other rules have run. Never an error: SGLang does not read the comments.
    """

    __slots__ = ()


def comment_rule(code: str, name: str, *, source: str) -> Callable[[CommentFind], CommentRule]:
    """Decorator: turn a documented check of suppression comments into a ``CommentRule``; ``source`` names
    autofix's module that reads the comments. Raises ``TypeError`` without a docstring."""

    def wrap(fn: CommentFind) -> CommentRule:
        if not fn.__doc__:
            raise TypeError(f"rule {code} has no docstring")
        return CommentRule(code, name, source, fn, fn.__doc__, refuses=False)

    return wrap
