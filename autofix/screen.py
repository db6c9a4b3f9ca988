"""What a check keeps of each violation it finds: the run's ``Policy`` (which rules, how safe their fixes) and
the suppression comments of the files a launch is written in.

A violation left out here is neither reported nor fixed (``engine.Screen``): a suppressed finding stays as
written and holds back no other fix. One ``FileScreen`` serves one ``fix_source`` call: the text and the
``--config`` files its launches read, each with its own comments.
"""

from __future__ import annotations

from autofix.model import Location, Violation
from autofix.policy import DEFAULT, Policy
from autofix.suppressions import Suppressions


class FileScreen:
    """The policy and the suppression comments of the files of one ``fix_source`` call, by path."""

    def __init__(self, policy: Policy = DEFAULT) -> None:
        self.policy = policy
        self.files: dict[str, Suppressions] = {}

    def read(self, path: str, text: str) -> None:
        """Read the suppression comments of ``text``, the file at ``path`` (once per path)."""
        if path not in self.files:
            self.files[path] = Suppressions.read(text)

    def annotate(self, path: str, launches) -> None:
        """Remember the Kubernetes annotations (``Launch.suppress``) of ``launches``, read from ``path`` as
        it was read (their places are the ones ``__call__`` is given)."""
        found = tuple(s for launch in launches for s in launch.suppress)
        if found:
            self.files.setdefault(path, Suppressions()).annotate(found)

    def __call__(self, path: str, violation: Violation, where: Location, launch: Location | None,
                 annotations: tuple[tuple[int, int], ...] = ()) -> Violation | None:
        """``violation`` as the run reports it, or None to leave it out.

        ``path`` is the file the launch is read from, ``where`` the place the diagnostic points at (its
        ``path`` set when that is another file: a ``--config`` file), ``launch`` where a launch written as a
        command starts (None for a settings file: a comment above its first key covers only that key),
        ``annotations`` where the Kubernetes annotations of the launch's object are (line, column).
        """
        if not self.policy.reports(violation.code):
            return None
        in_file = where.path or path
        comments = self.files.get(in_file)
        if comments:
            start = launch.line if launch is not None and in_file == path else None
            if comments.covers(violation.code, where.line, start, annotations if in_file == path else ()):
                return None
        return self.policy.adjust(violation)
