"""``--output-format json-lines``: the objects of ``json`` (``autofix.report.json_format``), one per line.

Each line is one compact JSON object with sorted keys and escaped non-ASCII; the text is empty when there
is nothing to report.
"""

from __future__ import annotations

from collections.abc import Sequence

from autofix.report.json_format import objects
from autofix.report.records import Record, RenderContext
from autofix.report.shared import dumps


def render(records: Sequence[Record], ctx: RenderContext) -> str:
    """One line per diagnostic, then one per input that could not be checked."""
    return "".join(dumps(o, separators=(",", ":")) + "\n" for o in objects(records, ctx))
