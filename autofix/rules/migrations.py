"""Migrations the argument tables cannot tell by themselves, read off SGLang's code.

Data for ``versions.option_not_in_target_version``. When an old option and
its replacement share a field, the tables say enough and nothing is needed
here; a switch whose replacement is one *value* of another option, or an
option whose field went away, is listed with the SGLang line that shows it.
``settings`` are ``(flag, values)``: empty values keep the entry's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Moved:
    """What an option of another release becomes, and whether the meaning is the same."""

    settings: tuple[tuple[str, tuple[Any, ...]], ...]
    same: bool
    source: str
    note: str = ""


MOVED: dict[str, Moved] = {}
