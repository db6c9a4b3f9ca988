"""The edits the launches of one text ask for, settled together (``api.fix_source``'s two stages).

Launches usually read disjoint text; the variants of an srt-slurm sweep all read its base. A fix there is
made only when every launch that reads the edited text asks for that same fix.
"""

from __future__ import annotations

from autofix.adapters.launch import Launch
from autofix.common.diagnostics import Location
from autofix.common.edits import Edit

_SHARED = "other launches read the same settings (a sweep's shared base) and need them otherwise: fix by hand"


class Proposals:
    """The edits each launch of a text asks for, settled together.

    Launches usually read disjoint text. When several read the same text
    (the base of an srt-slurm sweep, read by every variant), a fix there is
    applied only when every launch that reads it asks for exactly the same
    fix (the same edits); otherwise it is refused, with the reason. A
    launch's context says what it reads with ``covers(edit)``; without one,
    a launch reads only its own text. A fix's edits stand or fall together.
    """

    def __init__(self, launches: list[Launch]) -> None:
        self.launches = launches
        self.fixes: dict[tuple[int, int | None], tuple[Edit, ...]] = {}  # (launch, fix or None: all) -> edits
        self.refused: dict[int, str] = {}  # launch -> why (some of) its fixes are not applied
        self.blocked: set[int] = set()  # launches none of whose fixes is applied
        self.where: dict[int, Location] = {}  # where a refused launch's note points, when not at its start

    @property
    def edits(self) -> dict[int, list[Edit]]:
        """Launch -> every edit it asked for."""
        out: dict[int, list[Edit]] = {}
        for (index, _), edits in self.fixes.items():
            out.setdefault(index, []).extend(edits)
        return out

    def add(self, index: int, edits: list[Edit], fix: int | None = None) -> None:
        """Launch ``index`` asks for ``edits``: one fix (``fix``: its number), or all its fixes as one."""
        self.fixes[(index, fix)] = tuple(edits)

    def refuse(self, index: int, why: str, where: Location | None = None, whole: bool = True) -> None:
        """Launch ``index``'s fixes (``whole``) or one of them cannot be written (``CannotEdit``).

        ``where`` is the exception's ``location``, if any.
        """
        self.refused.setdefault(index, why)
        if whole:
            self.blocked.add(index)
        if where is not None:
            self.where.setdefault(index, where)

    def _readers(self, edit: Edit) -> set[int]:
        return {j for j, launch in enumerate(self.launches)
                if getattr(launch.ctx, "covers", None) is not None and launch.ctx.covers(edit)}

    def settle(self) -> tuple[list[Edit], set[tuple[int, int | None]]]:
        """(the edits to apply, without repeats; the (launch, fix) keys applied).

        A launch ``refuse``d has none applied. Refusals are in ``refused``.
        """
        candidates = {key for key, edits in self.fixes.items() if edits and key[0] not in self.blocked}
        while True:
            # an edit is wanted by a launch when one of its candidate fixes makes it
            wanted: dict[Edit, set[int]] = {}
            for key in candidates:
                for e in self.fixes[key]:
                    wanted.setdefault(e, set()).add(key[0])
            bad = {key for key in candidates if any(not self._readers(e) <= wanted[e] for e in self.fixes[key])}
            if not bad:
                break
            candidates -= bad
            for index in {i for i, fix in bad if fix is None}:  # a launch whose fixes are one fixpoint falls whole
                self.refuse(index, _SHARED)
                candidates = {key for key in candidates if key[0] != index}
        applied = candidates
        for key, edits in self.fixes.items():
            if edits and key not in applied:
                self.refused.setdefault(key[0], _SHARED)
        return list(dict.fromkeys(e for key in applied for e in self.fixes[key])), applied
