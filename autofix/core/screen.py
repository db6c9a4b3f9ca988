"""What a check keeps of each violation it finds: the run's ``Policy`` (which rules, how safe their fixes) and
the suppression comments of the files a launch is written in.

A violation left out here is neither reported nor fixed (``engine.Screen``): a suppressed finding stays as
written and holds back no other fix. One ``FileScreen`` serves one ``fix_source`` call: the text and the
``--config`` files its launches read, each with its own comments and, when the caller gives them, its own
policy (a project's ``per-file-ignores`` for the config file's path).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from autofix.common.diagnostics import Applicability, Location, Violation
from autofix.common.suppressions import Suppressions
from autofix.core.engine import Screen
from autofix.core.policy import DEFAULT, Policy

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter
    from autofix.adapters.launch import Launch
    from autofix.core.results import FixResult
    from autofix.schema import Schema


class FileScreen:
    """The policy and the suppression comments of the files of one ``fix_source`` call, by path.

    ``policy`` is the checked text's (``main``); ``policy_of(path)``, when given, that of another file a
    launch reads (a ``--config`` file), asked once per path.
    """

    def __init__(self, policy: Policy = DEFAULT, policy_of: Callable[[str], Policy] | None = None,
                 main: str | None = None) -> None:
        self.policy = policy
        self.files: dict[str, Suppressions] = {}
        self._policy_of = policy_of
        self._policies: dict[str, Policy] = {}
        self._main = main  # the checked text's path

    def policy_for(self, path: str | None) -> Policy:
        """The policy of the diagnostics located in the file at ``path`` (None: the checked text)."""
        if path is None or path == self._main or self._policy_of is None:
            return self.policy
        found = self._policies.get(path)
        if found is None:
            found = self._policies[path] = self._policy_of(path)
        return found

    def read(self, path: str, text: str, adapter: Adapter, launches: list[Launch]) -> None:
        """Read the suppression comments of ``text``, the file at ``path`` read by ``adapter`` as
        ``launches`` (once per path), and the Kubernetes annotations of the launches (``Launch.suppress``).

        A marker counts in a comment of the file's own syntax (``adapter.comments``) or of a shell script one of
        ``launches`` is read in (``embedded.script_comments``); both are found only for a text that holds one.
        """
        if path in self.files:
            return

        def comments() -> list[tuple[int, int]]:
            from autofix.adapters.embedded import script_comments

            return [*adapter.comments(text, path), *script_comments(launches)]

        self.files[path] = found = Suppressions.read(text, comments)
        annotations = tuple(s for launch in launches for s in launch.suppress)
        if annotations:
            found.annotate(annotations)

    def select(self, violation: Violation, path: str | None = None) -> Violation | None:
        """``violation`` as the policy of the file it is located in (``path``; None: the checked text)
        reports it (its fixes' safety adjusted), or None for a rule that policy does not select."""
        policy = self.policy if path is None or self._policy_of is None else self.policy_for(path)
        if not policy.reports(violation.code):
            return None
        return policy.adjust(violation)

    def suppressed(self, path: str, violation: Violation, where: Location, launch: Location | None,
                   annotations: tuple[tuple[int, int], ...] = ()) -> bool:
        """Whether a suppression comment (or annotation) covers ``violation`` (and remember it as used).

        ``path`` is the file the launch is read from, ``where`` the place the diagnostic points at (its
        ``path`` set when that is another file: a ``--config`` file), ``launch`` where a launch written as a
        command starts (None for a settings file: a comment above its first key covers only that key),
        ``annotations`` where the Kubernetes annotations of the launch's object are (line, column).
        """
        in_file = where.path or path
        comments = self.files.get(in_file)
        if not comments:
            return False
        start = launch.line if launch is not None and in_file == path else None
        return comments.covers(violation.code, where.line, start, annotations if in_file == path else ())

    def for_launch(self, path: str, launch: Launch, back: Callable[[Location], Location], command: bool) -> Screen:
        """The ``engine.Screen`` of one launch read from ``path``: each violation placed where its diagnostic
        points (``back``: in the text as read); ``command``: the launch is a command, so a comment alone above
        its first line covers all of it."""
        start = back(launch.start) if command else None
        marks = tuple((loc.line, loc.col) for loc in (back(Location(a.line, a.col)) for a in launch.suppress))
        select = self.select if self._policy_of is None else \
            lambda v: self.select(v, back(launch.locate(v)).path or path)
        return Screen(select, lambda v: self.suppressed(path, v, back(launch.locate(v)), start, marks))

    def settle(self, result: FixResult, level: Applicability, adapter: Adapter, schema: Schema) -> FixResult:
        """``result`` with its file's suppression comments judged: SUP001, SUP002 (``rules.suppression.settle``),
        a removal made only where the text still reads as the same launches (``adapter`` and ``schema`` read
        it)."""
        comments = self.files.get(result.path)
        if not comments:
            return result
        from autofix.rules import BY_CODE
        from autofix.rules.suppression import settle

        policy = self.policy_for(result.path)

        def known(code: str) -> bool | None:
            return None if code not in BY_CODE else policy.reports(code)

        def reads_alike(a: str, b: str) -> bool:
            try:
                return [x.parsed.explicit for x in adapter.read(a, result.path, schema)] == \
                    [x.parsed.explicit for x in adapter.read(b, result.path, schema)]
            except Exception:  # noqa: BLE001 - a text that no longer reads is not alike
                return False

        settled: FixResult = settle(result, comments, level, lambda v: self.select(v, result.path), known,
                                    reads_alike)  # a comment covers no comment
        return settled
