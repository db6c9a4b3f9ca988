"""Launches found inside another file: the pieces every host adapter shares.

A host adapter (Kubernetes/compose manifests, Dockerfiles) finds where a
launch is written, hands that piece to an inner reader (``argv`` for a
shell script, ``tokens`` for a list of words) and keeps the inner reader's
context wrapped in ``Embedded`` so that edits go back through the same
``View`` to the host text.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any

from autofix.edits import Edit
from autofix.formats import tokens
from autofix.formats.launch import Launch
from autofix.formats.view import View
from autofix.model import EntryOp, Location, Op
from autofix.schema import Schema


@dataclass(frozen=True, slots=True)
class Embedded:
    """An inner reader's launch context, and the view of the host text it read."""

    view: View
    inner: ModuleType  # ``autofix.formats.argv``
    ctx: Any


def locator(text: str) -> Callable[[int], Location]:
    """``offset -> Location`` (1-based line and column) for ``text``."""
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def locate(i: int) -> Location:
        line = bisect.bisect_right(starts, i) - 1
        return Location(line + 1, i - starts[line] + 1)

    return locate


def script_launches(view: View, path: str, schema: Schema, locate: Callable[[int], Location]) -> list[Launch]:
    """The SGLang launches of a shell script seen through ``view``, located in the host text."""
    from autofix.formats import argv

    found = argv.read(view.text, path, schema, lambda i: locate(view.offsets[i]))
    out = []
    for launch in found:
        out.append(replace(launch, ctx=Embedded(view, argv, launch.ctx)))
    return out


def edit(text: str, launch: Launch, ops: list[Op], schema: Schema) -> list[Edit]:
    """Settings edits for a launch a host adapter found (see each inner reader's ``edit``)."""
    ctx = launch.ctx
    if isinstance(ctx, Embedded):
        inner = replace(launch, ctx=ctx.ctx)
        return [ctx.view.to_host(e) for e in ctx.inner.edit(ctx.view.text, inner, ops, schema)]
    return tokens.edit(text, launch, ops, schema)


def edit_entries(text: str, launch: Launch, ops: list[EntryOp], schema: Schema) -> list[Edit]:
    """Argparse-stage edits for a launch a host adapter found."""
    ctx = launch.ctx
    if isinstance(ctx, Embedded):
        inner = replace(launch, ctx=ctx.ctx)
        return [ctx.view.to_host(e) for e in ctx.inner.edit_entries(ctx.view.text, inner, ops, schema)]
    return tokens.edit_entries(text, launch, ops, schema)
