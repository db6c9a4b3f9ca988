"""``github``: workflow commands escaped as ``@actions/core`` escapes them, GitHub's per-step annotation cap,
the findings left over as log lines and in the step summary."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autofix.common.diagnostics import Location
from autofix.common.escapes import visible
from autofix.report import github, workflow_commands
from autofix.report.records import ErrorRecord
from tests.report.actions_runner import Runner
from tests.report.build import context, fix, record, replace, unsafe

COMMAND = re.compile(r"^::(?P<level>error|warning|notice) (?P<props>[^:]*)::(?P<data>.*)$")


def unescape(text: str, prop: bool) -> str:
    """What the Actions runner reads back (the reverse of ``escapeData``/``escapeProperty``)."""
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else [])
    for escaped, raw in pairs + [("%25", "%")]:
        text = text.replace(escaped, raw)
    return text


def parse(line: str) -> tuple[str, dict, str] | None:
    """A workflow command line as ``(level, properties, message)``; None for any other line."""
    m = COMMAND.match(line)
    if m is None:
        return None
    props = dict(p.split("=", 1) for p in m["props"].split(","))
    return m["level"], {k: unescape(v, True) for k, v in props.items()}, unescape(m["data"], False)


TRICKY = "50% of a,b: c\r\nnext line %0A not a newline :: still the message"


def test_escaping_round_trips():
    src = "a: 1\nweird: x\n"
    r = record("dir,with:colon/c.yaml", src, "x", code="EP003", message=TRICKY,
               fixes=(fix("Set a: 100%", replace("dir,with:colon/c.yaml", src, "x", "y")),))
    out = github.render([r], context({r.path: src}, [r]))
    command = out.splitlines()[0]
    assert "\r" not in command and "\n" not in command
    level, props, message = parse(command)
    assert level == "error"
    assert props == {"file": "dir,with:colon/c.yaml", "line": "2", "endLine": "2", "col": "8", "endColumn": "9",
                     "title": "EP003 demo-rule-ep003"}
    assert message == TRICKY + "\nfix: Set a: 100%"
    assert "%25 of a,b: c%0D%0Anext line %250A" in command  # data keeps ':' and ','
    assert "file=dir%2Cwith%3Acolon/c.yaml" in command  # properties escape them


def test_escape_functions():
    assert github.escape_data("%\r\n:,") == "%25%0D%0A:,"
    assert github.escape_property("%\r\n:,") == "%25%0D%0A%3A%2C"



def test_a_control_character_never_reaches_the_log_raw():
    """The runner prints a command's values to the log as they are after its own decoding (``%``, line breaks,
    ``:`` and ``,``): an escape sequence in a file's name or a value (a window title, a colour) is shown as its
    escape, in the property and the message alike; C1 too (issue 29, third round)."""
    name = "e\x1b]0;T\x07\x9b.yaml"
    assert github.escape_property(name) == "e\\x1b]0;T\\x07\\x9b.yaml"
    assert github.escape_data("a\tb\x7f\nc") == "a\\tb\\x7f%0Ac"


def _findings(errors: int, warnings: int):
    """``errors`` error findings then ``warnings`` warnings, one per line of a generated file, shuffled
    so that file order differs from the order given."""
    src = "".join(f"key{i}: {i}\n" for i in range(errors + warnings))
    records = [record("c.yaml", src, f"key{i}:", code="EP003" if i < errors else "W001",
                      severity="error" if i < errors else "warning", message=f"finding {i}")
               for i in range(errors + warnings)]
    return src, records[::-1]


def logged(lines: list[str], ctx) -> list[str]:
    """The log lines of a render's ``lines``: between the stop-commands line and its closing one."""
    start, end = lines.index(f"::stop-commands::{ctx.nonce}"), lines.index(f"::{ctx.nonce}::")
    return lines[start + 1:end]


def test_cap_with_25_findings():
    src, records = _findings(20, 5)
    ctx = context({"c.yaml": src}, records)
    out = github.render(records, ctx)
    lines = out.splitlines()
    commands = [parse(line) for line in lines if parse(line)]
    assert [c[0] for c in commands] == ["error"] * 10 + ["warning"] * 5
    assert Runner().feed(out).commands == commands  # what the runner reads: the annotations, nothing else
    # the first errors in file order get the annotations
    assert [c[2] for c in commands[:10]] == [f"finding {i}" for i in range(10)]
    plain = logged(lines, ctx)
    assert plain == [f"c.yaml:{i + 1}:1: error: EP003 finding {i}" for i in range(10, 20)]
    assert lines[len(commands)] == f"::stop-commands::{ctx.nonce}" and lines[-2] == f"::{ctx.nonce}::"
    assert lines[-1] == ("autofix: 20 errors, 5 warnings; 15 annotated, 10 more printed above as log lines "
                         "(GitHub shows 10 error and 10 warning annotations per step).")
    # nothing is lost: every finding is annotated or logged, once
    assert sorted([c[2] for c in commands] + [p.split("EP003 ")[1] for p in plain]) == sorted(
        f"finding {i}" for i in range(25))
    summary = github.step_summary(records, ctx)
    rows = [row for row in summary.splitlines() if row.startswith("| c\\.yaml")]
    assert rows == [f"| c\\.yaml\\:{i + 1} | EP003 | finding {i} |  |" for i in range(10, 20)]
    assert "10 findings did not get one" in summary


def test_warnings_have_their_own_cap():
    src, records = _findings(3, 12)
    ctx = context({"c.yaml": src}, records)
    lines = github.render(records, ctx).splitlines()
    assert [p[0] for p in map(parse, lines) if p] == ["error"] * 3 + ["warning"] * 10
    assert logged(lines, ctx) == ["c.yaml:14:1: warning: W001 finding 13", "c.yaml:15:1: warning: W001 finding 14"]


def test_all_fit():
    src, records = _findings(2, 1)
    ctx = context({"c.yaml": src}, records)
    assert github.render(records, ctx).splitlines()[-1] == "autofix: 2 errors, 1 warning; all annotated."
    assert github.step_summary(records, ctx) is None
    assert github.render([], context({})) == "" and github.step_summary([], context({})) is None


def test_inputs_that_could_not_be_checked_come_first():
    src, records = _findings(10, 0)
    bad = ErrorRecord("/repo/bad.yaml", Location(2, 3), "not YAML")
    ctx = context({"c.yaml": src}, records, errors=(bad,))
    lines = github.render(records, ctx).splitlines()
    assert parse(lines[0]) == ("error", {"file": "bad.yaml", "line": "2", "endLine": "2", "col": "3",
                                         "endColumn": "3", "title": "autofix: could not check"}, "not YAML")
    assert logged(lines, ctx) == ["c.yaml:10:1: error: EP003 finding 9"]
    assert "1 input could not be checked" in lines[-1]


def test_span_over_lines_has_no_columns():
    src = "a: [1,\n  2]\n"
    r = record("c.yaml", src, "[1,\n  2]")
    (level, props, _), *_ = [parse(line) for line in github.render([r], context({"c.yaml": src}, [r])).splitlines()]
    assert props == {"file": "c.yaml", "line": "1", "endLine": "2", "title": "EP003 demo-rule-ep003"}


def test_span_that_takes_a_line_break_ends_on_its_line():
    src = "a: 1\nb: 2\n"
    r = record("c.yaml", src, "a: 1\n")
    (level, props, _), *_ = [parse(line) for line in github.render([r], context({"c.yaml": src}, [r])).splitlines()]
    assert (props["line"], props["endLine"], props["col"], props["endColumn"]) == ("1", "1", "1", "5")


def test_fix_lines_and_log_line_on_one_line():
    src, records = _findings(11, 0)
    early = record("c.yaml", src, "key0:", message="first\nsecond", fixes=(
        fix("Set it", replace("c.yaml", src, "0", "1")), unsafe("Drop it", replace("c.yaml", src, "key0: 0\n", ""))))
    late = record("c.yaml", src, "key10:", message="first\r\nsecond")
    everything = [early, *records, late]
    ctx = context({"c.yaml": src}, everything)
    lines = github.render(everything, ctx).splitlines()
    assert parse(lines[0])[2] == "first\nsecond\nfix: Set it\nunsafe fix: Drop it"
    # thirteen errors: the last three in file order are logged, one line each
    assert logged(lines, ctx) == ["c.yaml:10:1: error: EP003 finding 9", "c.yaml:11:1: error: EP003 finding 10",
                                  "c.yaml:11:1: error: EP003 first second"]
    summary = github.step_summary(everything, ctx)
    assert "| c\\.yaml\\:11 | EP003 | first<br>second |  |" in summary


def test_step_summary_stays_under_its_budget(monkeypatch):
    monkeypatch.setattr(github, "SUMMARY_BUDGET", 4096)
    src, records = _findings(60, 0)
    long = [record("c.yaml", src, f"key{i}:", message="x|<y> " * 20 + str(i)) for i in range(60)]
    summary = github.step_summary(long, context({"c.yaml": src}, long))
    assert len(summary.encode()) <= 4096
    assert summary.splitlines()[-1].startswith("… and ") and "more findings" in summary.splitlines()[-1]
    assert "x\\|\\<y\\>" in summary  # cells escape '|' and HTML


# --- what the runner reads: only the annotations autofix means (issue 29, case 6) ------------------------------

HOSTILE = ["::error file=README.md,line=1::FAKE.yaml", " \t::add-mask::secret.yaml", "a ##[warning]fake.yaml",
           "::stop-commands::x.yaml", "%0A::error::y.yaml", "::group::z.yaml"]


UNCHECKED = tuple(ErrorRecord("c.yaml", Location(i + 1, 1), "not YAML") for i in range(10))  # annotated first


def test_no_name_is_read_as_a_workflow_command():
    src = "key0: 0\nkey1: 1\n"
    more = [record(name, src, "key1:", message=f"finding in {name}\n::error::in a message ##[error]too")
            for name in HOSTILE]  # errors past the cap: log lines
    early = record(HOSTILE[0], src, "key0:", code="W001", severity="warning")  # annotated: its properties
    everything = [*more, early]
    ctx = context({name: src for name in HOSTILE}, everything, errors=UNCHECKED)
    out = github.render(everything, ctx)
    runner = Runner().feed(out)
    assert runner.stopped_for is None  # the log lines' region is closed
    assert [(name, props.get("file")) for name, props, _ in runner.commands] == (
        [("error", "c.yaml")] * 10 + [("warning", HOSTILE[0])])
    # the hostile names are all printed, each in its log line (a tab in one as its escape, \t)
    lines = logged(out.splitlines(), ctx)
    assert len(lines) == len(HOSTILE) and all(any(line.startswith(visible(n)) for line in lines) for n in HOSTILE)


def cells(summary: str) -> list[str]:
    """What a reader sees in the first column of the summary's table (CommonMark with GFM tables, as
    markdown-it renders it), refusing any link, image, emphasis, code or HTML but the line breaks."""
    from markdown_it import MarkdownIt

    seen, cell = [], None
    for token in MarkdownIt("commonmark").enable("table").parse(summary):
        if token.type == "td_open":
            cell = []
        elif token.type == "inline" and cell is not None:
            for child in token.children:
                assert child.type == "text" or (child.type == "html_inline" and child.content == "<br>"), child
                cell.append("\n" if child.type == "html_inline" else child.content)
            seen.append("".join(cell))
            cell = None
    return seen[::4]


@pytest.mark.parametrize("name", ["[x](https:evil.example).yaml", "![i](https:evil.example).yaml",  # no "/" in a name
                                  "<img src=x onerror=alert(1)>.yaml", "a|b.yaml", "`c`.yaml", "*em* _u_.yaml",
                                  "&amp;.yaml", "back\\slash\\|.yaml", "<https:evil.example>.yaml",
                                  "www.evil.example.yaml", "# not a title.yaml"])
def test_the_step_summary_shows_a_name_as_it_is(name):
    src = "key0: 0\nkey1: 1\n"
    late = record(name, src, "key1:", message="see [here](https://evil.example)\n<b>bold</b>")
    summary = github.step_summary([late], context({name: src}, [late], errors=UNCHECKED))
    assert cells(summary) == [f"{name}:2"]
    row = next(line for line in summary.splitlines() if line.endswith("|") and "here" in line)
    assert "\\[here\\]\\(https\\:\\/\\/evil\\.example\\)<br>\\<b\\>bold\\<\\/b\\>" in row


@pytest.mark.parametrize("text, offered", [
    ("c.yaml:1:1: error: --host ::", False), ("a::b\n", False), ("plain\n", False), ("::error::x\n", True),
    (" \t::add-mask::x\n", True), ("\u3000::group::x\n", True), ("ok\r::error::x\n", True), ("a ##[error]b\n", True)])
def test_commands_in(text, offered):
    assert workflow_commands.commands_in(text) is offered


@settings(max_examples=300)
@given(st.lists(st.sampled_from([":", "#", "[", "]", " ", "\t", "\r", "\n", "\u00a0", "\u2028", "\x85", "error",
                                 "warning", "stop-commands", "x", "=", ","]), max_size=30).map("".join))
def test_commands_in_misses_nothing_the_runner_reads(text):
    """Every text the runner reads a command in is guarded, and once guarded it reads none."""
    if Runner().feed(text).commands or Runner().feed(text).stopped_for is not None:
        assert workflow_commands.commands_in(text)
    runner = Runner().feed(workflow_commands.guarded(text))
    assert runner.commands == [] and runner.stopped_for is None
