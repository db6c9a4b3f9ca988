"""What the machine formats share: where a file is relative to the root, a source's lines and byte columns,
the message a record prints, a stable identity for each finding, and their JSON text.

Lines end at ``\\n`` (as ``autofix.common.edits.line_col`` counts them: a ``\\r`` before it is part of the line).
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from urllib.parse import quote

from autofix.common.diagnostics import Location
from autofix.common.escapes import printable
from autofix.report.records import Record

SRCROOT = "%SRCROOT%"  # the uriBaseId of paths under RenderContext.root (SARIF)
TOOL = "autofix"
INFORMATION_URI: str | None = None  # the project's home page, once it has one (SARIF, rdjson)


def relative(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` with ``/`` separators, or None when it is outside ``root``.

    A relative ``path`` is taken as relative to ``root`` (the working directory); ``-`` (stdin) stays ``-``.
    """
    if not os.path.isabs(path):
        rel = posixpath.normpath(path.replace(os.sep, "/"))
        return None if rel == ".." or rel.startswith("../") else rel
    base, target = os.path.normpath(root), os.path.normpath(path)
    if not os.path.isabs(base) or os.path.commonpath([base, target]) != base:
        return None
    return os.path.relpath(target, base).replace(os.sep, "/")


def display_path(path: str, root: str) -> str:
    """The path a report shows: relative to ``root`` when the file is under it, else as given."""
    return relative(path, root) or path


def artifact(path: str, root: str) -> dict:
    """A SARIF ``artifactLocation``: a percent-encoded URI relative to ``%SRCROOT%`` for a file under
    ``root``, an absolute ``file://`` URI for one outside it (or the path as a URI reference when neither
    is possible: a relative root). The name's bytes are encoded, so a name that is not UTF-8 is exact
    (``caf%E9.yaml``)."""
    rel = relative(path, root)
    if rel is not None:
        return {"uri": _quoted(rel), "uriBaseId": SRCROOT}
    full = path if os.path.isabs(path) else os.path.join(root, path)
    if os.path.isabs(full):
        return {"uri": PurePath(os.path.normpath(full)).as_uri()}  # from os.fsencode: the bytes too
    return {"uri": _quoted(path.replace(os.sep, "/"))}


def _quoted(path: str) -> str:
    """``path`` percent-encoded from its bytes on disk (``os.fsencode``)."""
    try:
        return quote(os.fsencode(path))
    except UnicodeEncodeError:  # a lone surrogate that is no byte (not from the disk): as a report shows it
        return quote(printable(path))


def root_uri(root: str) -> str | None:
    """``root`` as an absolute ``file://`` URI ending in ``/``, or None when ``root`` is not absolute."""
    if not os.path.isabs(root):
        return None
    uri = PurePath(os.path.normpath(root)).as_uri()
    return uri if uri.endswith("/") else uri + "/"


def line_starts(source: str) -> list[int]:
    """The index of each line's first character (one more entry than ``source`` has ``\\n``)."""
    starts = [0]
    at = source.find("\n")
    while at != -1:
        starts.append(at + 1)
        at = source.find("\n", at + 1)
    return starts


def line_text(source: str, line: int) -> str:
    """Line ``line`` (1-based) of ``source`` without its ``\\n``; ``""`` past the last line."""
    lines = source.split("\n")
    return lines[line - 1] if 1 <= line <= len(lines) else ""


def byte_column(source: str, line: int, col: int) -> int:
    """The 1-based UTF-8 byte column of character column ``col`` on ``line`` of ``source``.

    A column past the line's end counts one byte per character beyond it.
    """
    text = line_text(source, line)
    head = text[: col - 1]
    return len(head.encode("utf-8")) + 1 + max(0, col - 1 - len(text))


def shown_end(source: str | None, start: Location, end: Location) -> Location:
    """Where a report shows a span ending: an end at column 1 of a later line (the span takes the line break
    before it) moves to the end of that line, so the span names no line it does not touch. Without the
    source, ``end`` as it is."""
    if source is None or end.col != 1 or end.line <= start.line:
        return end
    return Location(end.line - 1, len(line_text(source, end.line - 1)) + 1)


def full_message(record: Record) -> str:
    """The record's message, and when it only appears after other fixes, which (as the text report says)."""
    if not record.after:
        return record.message
    verb = "is" if len(record.after) == 1 else "are"
    return f"{record.message} (appears once {', '.join(record.after)} {verb} fixed)"


def level(severity: str) -> str:
    """``error`` for a launch SGLang refuses, ``warning`` for everything else."""
    return "error" if severity == "error" else "warning"


def identities(findings: Sequence[tuple[str, str, int, int]], sources: Mapping[str, str], root: str) -> list[str]:
    """A stable identity (32 hex digits) for each finding ``(code, path, line, col)``, in the order given.

    It hashes the code, the path relative to ``root``, the text of the finding's line with its whitespace
    collapsed, and how many findings before it (by path, line, column) share those three: moving the line,
    re-indenting it or checking out the repository elsewhere keeps it; two findings never share one.
    """
    keys = [(code, display_path(path, root), " ".join(line_text(sources.get(path, ""), line).split()))
            for code, path, line, _ in findings]
    order = sorted(range(len(findings)), key=lambda i: (keys[i][1], findings[i][2], findings[i][3]))
    seen: Counter = Counter()
    out = [""] * len(findings)
    for i in order:
        nth = seen[keys[i]]
        seen[keys[i]] += 1
        # surrogatepass: a name that is not UTF-8 hashes its own bytes (two names never share them)
        payload = json.dumps([*keys[i], nth], ensure_ascii=False).encode("utf-8", "surrogatepass")
        out[i] = hashlib.sha256(payload).hexdigest()[:32]
    return out


def dumps(value, **how) -> str:
    """``value`` as JSON text (``json.dumps`` with sorted keys and ``how``), non-ASCII escaped, each string
    ``printable``: a name that is not UTF-8 is ``caf\\xe9.yaml`` in it, never a lone surrogate, which a JSON
    reader may refuse."""
    text = json.dumps(value, sort_keys=True, **how)
    if "\\ud" not in text:  # every surrogate, paired or not, is escaped as \udXXX: none, the common case
        return text
    return json.dumps(_printable(value), sort_keys=True, **how)


def _printable(value):
    """``value`` (JSON data) with each string, key or value, ``printable``."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable(k) if isinstance(k, str) else k: _printable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_printable(v) for v in value]
    return value
