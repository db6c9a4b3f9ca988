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

from autofix.edits import Edit


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

    def host_offset(self, i: int) -> int:
        """The host offset of decoded offset ``i`` (0 <= i <= len(text))."""
        return self.offsets[i]

    def to_host(self, edit: Edit) -> Edit:
        """The host edit for an edit of the decoded text."""
        return Edit(self.offsets[edit.start], self.offsets[edit.end], self.encode(edit.text) if edit.text else "")


def identity(text: str, start: int, end: int) -> View:
    """A region written as is: decoded text is ``text[start:end]``."""
    return View(text[start:end], tuple(range(start, end + 1)), lambda piece: piece)
