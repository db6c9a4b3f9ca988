"""``--output-format github``: GitHub Actions workflow commands that annotate the findings.

One ``::error`` or ``::warning`` command per finding: ``file`` (relative to the root), ``line``,
``endLine``, ``col`` and ``endColumn`` (1-based, in characters, the end exclusive; the columns only for a
span on one line, which is all GitHub takes; a span that takes a line break ends on that line), ``title``
(code and name) and the message, then the fixes one per line. Values are escaped as ``@actions/core``
escapes them: ``%``, ``\\r`` and ``\\n`` in the message; those and ``:`` and ``,`` in a property; any other
control character, which the runner would print raw to the log, as its escape (``\\x1b``).

GitHub shows at most 10 error, 10 warning and 10 notice annotations per step (and 50 per job). So the
first ``PER_STEP`` findings of each level, in file order and inputs that could not be checked first, are
annotated, errors before warnings; every other finding is printed as a plain log line
(``path:line:col: severity: CODE message``; a control character of a name as its escape, ``\\x1b``, ``\\n``),
and one closing line counts them. The log lines start with a
file's name, which may read as a workflow command (``::error file=x::FAKE.yaml``): they are printed
between ``::stop-commands::`` and its closing line (``workflow_commands.guarded``, the token
``RenderContext.nonce``), so the runner reads no command there. ``step_summary`` lists the findings left
without an annotation as Markdown for ``$GITHUB_STEP_SUMMARY``, every cell's text escaped for Markdown
(a name is never a link, an image or HTML).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from autofix.common.escapes import printable, visible, visible_but_breaks
from autofix.report.records import Record, RenderContext
from autofix.report.shared import display_path, full_message, level, shown_end
from autofix.report.workflow_commands import guarded

PER_STEP = 10  # annotations GitHub shows per step and level
SUMMARY_BUDGET = 512 * 1024  # bytes of step summary we write; GitHub refuses more than 1 MiB per step


@dataclass(frozen=True, slots=True)
class _Finding:
    """A record, or an input that could not be checked, as this format prints it."""

    level: str  # "error" | "warning"
    path: str  # relative to the root when under it
    line: int
    col: int
    end_line: int
    end_col: int
    code: str  # "" for an input that could not be checked
    title: str
    message: str
    fixes: tuple[str, ...]  # "fix: ..." / "unsafe fix: ..." lines, best first


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as ``@actions/core``'s ``escapeData``; any other control character
    (an escape sequence's ``\\x1b`` in a file's name or a value) shown as its escape, as in the log lines: the
    runner prints the command's values to the log, and ``@actions/core`` does not escape them (issue 29)."""
    return visible_but_breaks(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value, escaped as ``@actions/core``'s ``escapeProperty``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(records: Sequence[Record], ctx: RenderContext) -> str:
    """The annotations, the log lines of the findings left over, and a closing line ("" for no findings)."""
    findings = _findings(records, ctx)
    if not findings:
        return ""
    annotated, rest = _plan(findings)
    commands = "".join(_command(f) + "\n" for f in annotated)
    logged = guarded("".join(_log_line(f) + "\n" for f in rest), ctx.nonce) if rest else ""
    return commands + logged + _closing(findings, rest) + "\n"


def step_summary(records: Sequence[Record], ctx: RenderContext) -> str | None:
    """Markdown listing every finding that got no annotation (None when all did), at most
    ``SUMMARY_BUDGET`` bytes: the rows that do not fit are counted in a last line."""
    _, rest = _plan(_findings(records, ctx))
    if not rest:
        return None
    head = ["## autofix: findings without an annotation", "",
            f"GitHub shows at most {PER_STEP} error and {PER_STEP} warning annotations per step; "
            f"{_count(len(rest), 'finding')} did not get one (each is in the step's log too).", "",
            "| file:line | code | message | fix |", "|---|---|---|---|"]
    out, size = head, sum(len(s.encode()) + 1 for s in head)
    for n, f in enumerate(rest):
        row = (f"| {_cell(f'{f.path}:{f.line}')} | {_cell(f.code or 'not checked')} | {_cell(f.message)} | "
               f"{_cell(f.fixes[0] if f.fixes else '')} |")
        if size + len(row.encode()) + 200 > SUMMARY_BUDGET:
            out += ["", f"… and {_count(len(rest) - n, 'more finding')}, left out to keep this summary under "
                        f"{SUMMARY_BUDGET // 1024} KiB: see the step's log."]
            break
        out.append(row)
        size += len(row.encode()) + 1
    return "\n".join(out) + "\n"


def _findings(records: Sequence[Record], ctx: RenderContext) -> list[_Finding]:
    """The inputs that could not be checked, then the records in file order; paths and messages
    ``printable`` (a name that is not UTF-8 as ``caf\\xe9.yaml``)."""
    unchecked = [_Finding("error", printable(display_path(e.path, ctx.root)), e.start.line, e.start.col,
                          e.start.line, e.start.col, "", "autofix: could not check", printable(e.message), ())
                 for e in ctx.errors]
    ordered = sorted(records, key=lambda r: (display_path(r.path, ctx.root), r.start, r.end))
    ends = [shown_end(ctx.sources.get(r.path), r.start, r.end) for r in ordered]
    return unchecked + [
        _Finding(level(r.severity), printable(display_path(r.path, ctx.root)), r.start.line, r.start.col, end.line,
                 end.col, r.code, f"{r.code} {r.name}", printable(full_message(r)),
                 tuple(f"{'fix' if f.applicability_name == 'safe' else f.applicability_name + ' fix'}: {f.title}"
                       for f in r.fixes))
        for r, end in zip(ordered, ends)]


def _plan(findings: list[_Finding]) -> tuple[list[_Finding], list[_Finding]]:
    """The annotated findings (errors first) and the rest, each in the order given."""
    used: Counter = Counter()
    annotated: list[_Finding]
    rest: list[_Finding]
    annotated, rest = [], []
    for f in findings:
        (annotated if used[f.level] < PER_STEP else rest).append(f)
        used[f.level] += 1
    annotated.sort(key=lambda f: f.level != "error")
    return annotated, rest


def _command(f: _Finding) -> str:
    props = {"file": f.path, "line": str(f.line), "endLine": str(f.end_line)}
    if f.line == f.end_line:
        props.update(col=str(f.col), endColumn=str(f.end_col))
    props["title"] = f.title
    body = "\n".join([f.message, *f.fixes])
    return f"::{f.level} {','.join(f'{k}={escape_property(v)}' for k, v in props.items())}::{escape_data(body)}"


def _log_line(f: _Finding) -> str:
    """One log line: the name's control characters shown as escapes (``escapes.visible``), the message's line
    breaks as spaces."""
    what = f"{f.code} {_one_line(f.message)}" if f.code else f"could not check: {_one_line(f.message)}"
    return visible(f"{f.path}:{f.line}:{f.col}: {f.level}: {what}")


def _closing(findings: list[_Finding], rest: list[_Finding]) -> str:
    by = Counter((f.level, bool(f.code)) for f in findings)
    parts = [f"autofix: {_count(by['error', True], 'error')}, {_count(by['warning', True], 'warning')}"]
    if by["error", False]:
        parts.append(f"{_count(by['error', False], 'input')} could not be checked")
    if rest:
        parts.append(f"{len(findings) - len(rest)} annotated, {len(rest)} more printed above as log lines "
                     f"(GitHub shows {PER_STEP} error and {PER_STEP} warning annotations per step)")
    else:
        parts.append("all annotated")
    return "; ".join(parts) + "."


def _one_line(text: str) -> str:
    return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


# every ASCII punctuation character, backslash-escaped: CommonMark then shows each as itself, so no text
# makes a link, an image, emphasis, HTML, an entity or a table's column (GFM reads "\\|" as "|")
_MARKDOWN = str.maketrans({c: "\\" + c for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"})


def _cell(text: str) -> str:
    """Text for a Markdown table cell, shown as it is: punctuation escaped, line breaks as ``<br>``."""
    text = text.translate(_MARKDOWN)
    return text.replace("\r\n", "<br>").replace("\n", "<br>").replace("\r", "<br>")
