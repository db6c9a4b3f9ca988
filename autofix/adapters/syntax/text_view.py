"""A piece of a host text seen as the text a program receives.

A shell script inside a YAML string (``sh -c "..."``), a JSON string in a
Dockerfile's exec form, a compose command with ``$$`` escapes: the inner
adapter reads the *decoded* text, and its edits are carried back to the host
text here, re-encoded for the host's quoting. Every byte outside an edit
stays as written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from autofix.common.edits import Edit


@dataclass(frozen=True, slots=True)
class View:
    """Decoded text and where each of its characters came from.

    ``offsets`` has ``len(text) + 1`` entries: ``offsets[i]`` is the host
    offset where decoded character ``i`` starts, and the last entry is the
    host offset just past the region. ``encode(piece)`` turns decoded
    replacement text into host text for this region; it raises
    ``CannotEdit`` for text the host's quoting cannot hold.
    """

    text: str
    offsets: tuple[int, ...]
    encode: Callable[[str], str]

    def to_host(self, edit: Edit) -> Edit:
        """The host edit for an edit of the decoded text."""
        return Edit(self.offsets[edit.start], self.offsets[edit.end], self.encode(edit.text) if edit.text else "")


def identity(text: str, start: int, end: int) -> View:
    """A region written as is: decoded text is ``text[start:end]``."""
    return View(text[start:end], tuple(range(start, end + 1)), lambda piece: piece)


@dataclass(frozen=True, slots=True)
class _Within(View):
    """A view of another view's decoded text, seen in that view's host text."""

    inner: View | None = None
    outer: View | None = None

    def to_host(self, edit: Edit) -> Edit:
        """The edit carried through ``inner`` then ``outer`` (each view's own checks apply)."""
        assert self.inner is not None and self.outer is not None
        return self.outer.to_host(self.inner.to_host(edit))


def within(inner: View, outer: View) -> View:
    """``inner`` (a view of ``outer.text``) seen in ``outer``'s host text.

    Offsets go through both (``outer.offsets[inner.offsets[i]]``); an edit
    is encoded by ``inner`` then by ``outer``, each with its own checks: a
    script in a shell word in a YAML string, a compose string's ``$$``.
    """
    offsets = tuple(map(outer.offsets.__getitem__, inner.offsets))
    return _Within(inner.text, offsets, lambda piece: outer.encode(inner.encode(piece)), inner, outer)


@dataclass(frozen=True, slots=True)
class _ReadOnly(View):
    reason: str = ""

    def to_host(self, edit: Edit) -> Edit:
        """Every edit is refused, a deletion too."""
        from autofix.common.errors import CannotEdit

        raise CannotEdit(self.reason)


def read_only(view: View, reason: str) -> View:
    """``view`` for reading only: every edit (insertion, replacement, deletion) raises ``CannotEdit(reason)``."""

    def refuse(piece: str) -> str:
        from autofix.common.errors import CannotEdit

        raise CannotEdit(reason)

    return _ReadOnly(view.text, view.offsets, refuse, reason)
