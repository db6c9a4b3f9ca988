"""What every adapter hands the engine: one SGLang launch and where its words are, and its ``--config`` word."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from autofix.common.arguments import Entry, ParsedArgs
from autofix.common.diagnostics import Location, Violation
from autofix.common.written import Host

if TYPE_CHECKING:
    from autofix.common.suppressions import Malformed, Suppression


@dataclass(slots=True)
class Launch:
    """One SGLang launch in a source text.

    ``parsed`` holds the settings read from its words; ``start`` is where a
    diagnostic that names no written setting points; ``ctx`` is the
    adapter's own data for building edits; ``entries`` are the settings as
    written, for the argparse-stage rules. ``host`` is set for a command
    its file does not run as written (a Dockerfile exec form that is not
    JSON): SGLang never reads its words, and it has none here.
    ``suppress`` holds the ``autofix.io/ignore`` annotations of the
    Kubernetes object it is written in (``autofix.common.suppressions``).
    ``elsewhere`` names the command that runs it in a container or on
    another host (``docker run``, ``kubectl exec``): the paths it names are
    that container's, and autofix reads none of them on this host.
    """

    parsed: ParsedArgs
    start: Location
    ctx: Any = None
    entries: tuple[Entry, ...] = ()
    host: Host | None = None
    suppress: tuple[Suppression | Malformed, ...] = ()
    elsewhere: str | None = None

    def locate(self, violation: Violation) -> Location:
        """Where a diagnostic for ``violation`` points: its entry, or its first written arg."""
        if violation.entry is not None:
            return self.entries[violation.entry].loc
        return self.location_of(violation.args)

    def location_of(self, dests: tuple[str, ...]) -> Location:
        """Where the first of ``dests`` that the user wrote is written, else ``start``."""
        settings = self.parsed.settings
        for dest in dests:
            if dest in settings:
                return self.parsed.words[settings[dest].option_index].loc
        return self.start


@dataclass(frozen=True, slots=True)
class ConfigArgument:
    """A launch's ``--config FILE``, as SGLang's merger finds it (``Adapter.config_argument``).

    ``index`` is the ``--config`` word's index in ``Launch.parsed.words``;
    ``path`` is FILE as written, or None when autofix cannot know which file
    SGLang reads (FILE is a shell expansion, is missing, or ``--config`` is
    given twice, which SGLang refuses).
    """

    index: int
    path: str | None


def no_config_argument(launch: Launch) -> ConfigArgument | None:
    """``Adapter.config_argument`` of an adapter whose launches read no ``--config`` file on this host
    (``CONFIG_FILES`` None): None."""
    return None
