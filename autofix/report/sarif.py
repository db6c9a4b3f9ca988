"""``--output-format sarif``: a SARIF 2.1.0 log of one run, shaped for GitHub code scanning.

The driver lists one rule per code in the records (sorted by code) with what GitHub shows: ``name``,
``shortDescription`` (the rule's summary), ``fullDescription`` (its "What it does", as one paragraph),
``help`` (its page, as text and Markdown), ``defaultConfiguration.level`` and ``properties`` (``tags``,
``problem.severity``, ``sglangSource``). GitHub refuses empty required strings and keeps 1,024 characters
of a description: each is clipped to that.

Each result has ``ruleId``/``ruleIndex``, ``level`` (``error``/``warning``), ``message.text``, one location
(a URI relative to ``%SRCROOT%``, the root, for a file under it, else an absolute ``file://`` URI; the
region in 1-based lines and code-point columns, the end exclusive: ``run.columnKind`` is
``unicodeCodePoints``; a span that takes a line break ends on that line, ``shared.shown_end``, as GitHub
shows an alert in a pull request only when all its lines are in the diff),
``partialFingerprints["autofix/v1"]`` (``shared.identities``: it survives line moves;
``primaryLocationLineHash`` is GitHub's own hash, which ``upload-sarif`` adds from the sources) and
``fixes``: each safe or unsafe fix with edits, best first, as ``artifactChanges`` of ``replacements`` in
the file as read (``properties.applicability`` says which; display-only fixes are left out).

GitHub rejects a run of more than 25,000 results: past that, the errors are kept first and a notification
says how many were left out. The inputs that could not be checked are error notifications of the invocation
(``toolExecutionNotifications``), which then is not ``executionSuccessful``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from autofix.common.diagnostics import Applicability, Location
from autofix.report.records import FixRecord, Record, RenderContext, RuleInfo
from autofix.report.shared import (
    INFORMATION_URI,
    SRCROOT,
    TOOL,
    artifact,
    dumps,
    full_message,
    identities,
    level,
    root_uri,
    shown_end,
)

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
MAX_RESULTS = 25_000  # GitHub rejects a run with more
MAX_TEXT = 1024  # GitHub keeps this much of a rule's short and full description
FINGERPRINT = "autofix/v1"
JsonObject = dict[str, Any]  # an object of the SARIF document: its values are any JSON, so Any
_SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")


def render(records: Sequence[Record], ctx: RenderContext) -> str:
    """The SARIF log as indented JSON (sorted keys, non-ASCII escaped), with a final newline."""
    prints = identities([(r.code, r.path, r.start.line, r.start.col) for r in records], ctx.sources, ctx.root)
    chosen = _kept(records)
    kept, prints = [records[i] for i in chosen], [prints[i] for i in chosen]
    codes = sorted({r.code for r in kept})
    index = {code: i for i, code in enumerate(codes)}
    notes = [_unchecked(e.path, e.start, e.message, ctx.root) for e in ctx.errors]
    if len(kept) < len(records):
        left = len(records) - len(kept)
        notes.append({"level": "warning", "message": {"text": f"{left} result{'s were' if left != 1 else ' was'} "
                      f"left out: GitHub code scanning refuses a run of more than {MAX_RESULTS}."}})
    invocation: dict = {"executionSuccessful": not ctx.errors}
    if notes:
        invocation["toolExecutionNotifications"] = notes
    driver = {"name": TOOL, "version": ctx.version, "rules": [_rule(ctx.rules[c]) for c in codes]}
    if INFORMATION_URI:
        driver["informationUri"] = INFORMATION_URI
    if _SEMVER.match(ctx.version):
        driver["semanticVersion"] = ctx.version
    run = {"tool": {"driver": driver}, "invocations": [invocation], "columnKind": "unicodeCodePoints",
           "results": [_result(r, index[r.code], fp, ctx) for r, fp in zip(kept, prints)],
           "properties": {"sglangVersion": ctx.target_version}}
    if base := root_uri(ctx.root):
        run["originalUriBaseIds"] = {SRCROOT: {"uri": base}}
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return dumps(log, indent=2) + "\n"


def _kept(records: Sequence[Record]) -> list[int]:
    """The indexes of the records GitHub takes, in order: all, or ``MAX_RESULTS`` of them, errors first."""
    if len(records) <= MAX_RESULTS:
        return list(range(len(records)))
    return sorted(sorted(range(len(records)), key=lambda i: (records[i].severity != "error", i))[:MAX_RESULTS])


def _clip(text: str, fallback: str) -> str:
    text = text.strip() or fallback
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _what_it_does(doc: str) -> str:
    """The body of the page's "What it does" section, as one paragraph ("" when it has none)."""
    m = re.search(r"^#+ What it does[ \t]*\n(.*?)(?=^#|\Z)", doc, re.M | re.S)
    return " ".join(m.group(1).split()) if m else ""


def _rule(info: RuleInfo) -> dict:
    summary = _clip(info.summary, info.name or info.code)
    rule: JsonObject = {"id": info.code, "name": info.name or info.code,
            "shortDescription": {"text": summary},
            "fullDescription": {"text": _clip(_what_it_does(info.doc), summary)},
            "help": {"text": info.doc.strip() or summary, "markdown": info.doc.strip() or summary},
            "defaultConfiguration": {"level": level(info.severity)},
            "properties": {"tags": ["sglang", "configuration"], "problem.severity": level(info.severity)}}
    if info.source:
        rule["properties"]["sglangSource"] = info.source
    return rule


def _region(start: Location, end: Location | None = None) -> dict:
    region = {"startLine": start.line, "startColumn": start.col}
    if end is not None:
        region.update(endLine=end.line, endColumn=end.col)
    return region


def _fix(fix: FixRecord, root: str) -> dict:
    changes: dict[str, list] = {}
    for e in sorted(fix.edits or (), key=lambda e: (e.start, e.end)):
        replacement: dict = {"deletedRegion": _region(e.start, e.end)}
        if e.content:
            replacement["insertedContent"] = {"text": e.content}
        changes.setdefault(e.path, []).append(replacement)
    return {"description": {"text": fix.title},
            "artifactChanges": [{"artifactLocation": artifact(p, root), "replacements": reps}
                                for p, reps in changes.items()],
            "properties": {"applicability": fix.applicability_name}}


def _result(r: Record, rule_index: int, fingerprint: str, ctx: RenderContext) -> dict:
    region = _region(r.start, shown_end(ctx.sources.get(r.path), r.start, r.end))
    result = {"ruleId": r.code, "ruleIndex": rule_index, "level": level(r.severity),
              "message": {"text": full_message(r)},
              "locations": [{"physicalLocation": {"artifactLocation": artifact(r.path, ctx.root), "region": region}}],
              "partialFingerprints": {FINGERPRINT: fingerprint}}
    fixes = [_fix(f, ctx.root) for f in r.fixes if f.edits and f.applicability >= Applicability.UNSAFE]
    if fixes:
        result["fixes"] = fixes
    return result


def _unchecked(path: str, start: Location, message: str, root: str) -> dict:
    """The notification for an input that could not be checked."""
    return {"level": "error", "message": {"text": f"could not check {path}: {message}"},
            "locations": [{"physicalLocation": {"artifactLocation": artifact(path, root),
                                                "region": _region(start)}}]}
