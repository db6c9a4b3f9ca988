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
    from autofix.core.settings_stage import Settled
    from autofix.schema import Schema


def verify(settled: Settled, output: str, outputs: dict[str, str]) -> None:
    """Read ``output``, the fixed text, back with the edited ``--config`` files (``outputs``: name -> text):
    each launch must run exactly what its settings stage made of it (``Settled.outcomes``). Nothing to read
    when no text changed. Raises ``InternalError`` when a launch does not, or a text does not read."""
    configs = settled.configs
    if output == settled.arg_stage.text and all(outputs[p] == c.written.text
                                                for p, c in configs.files.items() if c is not None):
        return
    _same(output, settled.adapter, settled.path, settled.checking.schema, [o.explicit for o in settled.outcomes],
          configs, outputs)


def _same(output: str, adapter: Adapter, path: str, schema: Schema, intended: list[dict[str, Any]],
          configs: ConfigFiles, outputs: dict[str, str]) -> None:
    """Read ``output`` (the text at ``path``) and ``outputs`` back, as ``configs`` reads and finds them: each
    launch must run exactly ``intended`` (``dest -> value``)."""
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
