"""The last step of a check: the fixed text (and its edited ``--config`` files) read back, as the next run
would read them, must mean exactly the settings the fixes intended; else nothing is written
(``InternalError``, black's ``assert_equivalent``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autofix.adapters.launch import Launch
from autofix.common.errors import InternalError
from autofix.core.configs import launched

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter
    from autofix.core.configs import ConfigFiles
    from autofix.schema import Schema


def verify(output: str, adapter: Adapter, path: str, schema: Schema, intended: list[dict[str, Any]],
           configs: ConfigFiles, outputs: dict[str, str]) -> None:
    """Read ``output``, the fixed text at ``path``, back with the edited ``--config`` files (``outputs``: name
    -> text, read and found as ``configs`` reads and finds them): each launch must run exactly
    ``intended`` (``dest -> value``). Raises ``InternalError`` when one does not, or a text does not read."""
    try:
        again = adapter.read(output, path, schema)
        read = {p: configs.read(t, p)[0] for p, t in outputs.items()}
    except Exception as exc:  # noqa: BLE001 - any failure here is ours
        raise InternalError(f"{path}: the fixed text does not read back ({exc})") from None
    names = {configs.identity(p): p for p in read}

    def lookup(p: str) -> tuple[str, Launch] | None:
        name = names.get(configs.identity(p))
        return (name, read[name]) if name is not None else None

    got = [launched(launch, adapter, path, schema, configs.place, lookup).parsed.explicit_for(schema)
           for launch in again]
    if _nan_safe(got) != _nan_safe(intended):
        raise InternalError(f"{path}: the fixed text reads back as {got}, not {intended}")


def _nan_safe(launches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The settings with each float NaN (`--x nan` reads as a new NaN each time, never equal) made comparable."""
    return [{d: "nan" if isinstance(v, float) and v != v else v for d, v in s.items()} for s in launches]
