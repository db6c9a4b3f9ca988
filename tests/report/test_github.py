"""``github``: workflow commands escaped as ``@actions/core`` escapes them, GitHub's per-step annotation cap,
the findings left over as log lines and in the step summary."""

from __future__ import annotations

import re

from autofix.model import Location
from autofix.report import github
from autofix.report.records import ErrorRecord
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


def _findings(errors: int, warnings: int):
    """``errors`` error findings then ``warnings`` warnings, one per line of a generated file, shuffled
    so that file order differs from the order given."""
    src = "".join(f"key{i}: {i}\n" for i in range(errors + warnings))
    records = [record("c.yaml", src, f"key{i}:", code="EP003" if i < errors else "W001",
                      severity="error" if i < errors else "warning", message=f"finding {i}")
               for i in range(errors + warnings)]
    return src, records[::-1]


def test_cap_with_25_findings():
    src, records = _findings(20, 5)
    ctx = context({"c.yaml": src}, records)
    lines = github.render(records, ctx).splitlines()
    commands = [parse(line) for line in lines if parse(line)]
    assert [c[0] for c in commands] == ["error"] * 10 + ["warning"] * 5
    # the first errors in file order get the annotations
    assert [c[2] for c in commands[:10]] == [f"finding {i}" for i in range(10)]
    plain = [line for line in lines if not parse(line)]
    assert plain[:-1] == [f"c.yaml:{i + 1}:1: error: EP003 finding {i}" for i in range(10, 20)]
    assert plain[-1] == ("autofix: 20 errors, 5 warnings; 15 annotated, 10 more printed above as log lines "
                         "(GitHub shows 10 error and 10 warning annotations per step).")
    # nothing is lost: every finding is annotated or logged, once
    assert sorted([c[2] for c in commands] + [p.split("EP003 ")[1] for p in plain[:-1]]) == sorted(
        f"finding {i}" for i in range(25))
    summary = github.step_summary(records, ctx)
    rows = [row for row in summary.splitlines() if row.startswith("| c.yaml:")]
    assert rows == [f"| c.yaml:{i + 1} | EP003 | finding {i} |  |" for i in range(10, 20)]
    assert "10 findings did not get one" in summary


def test_warnings_have_their_own_cap():
    src, records = _findings(3, 12)
    lines = github.render(records, context({"c.yaml": src}, records)).splitlines()
    assert [p[0] for p in map(parse, lines) if p] == ["error"] * 3 + ["warning"] * 10
    assert lines[-3:-1] == ["c.yaml:14:1: warning: W001 finding 13", "c.yaml:15:1: warning: W001 finding 14"]


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
    assert lines[-2] == "c.yaml:10:1: error: EP003 finding 9"
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
    lines = github.render(everything, context({"c.yaml": src}, everything)).splitlines()
    assert parse(lines[0])[2] == "first\nsecond\nfix: Set it\nunsafe fix: Drop it"
    # thirteen errors: the last three in file order are logged, one line each
    assert lines[-4:-1] == ["c.yaml:10:1: error: EP003 finding 9", "c.yaml:11:1: error: EP003 finding 10",
                            "c.yaml:11:1: error: EP003 first second"]
    summary = github.step_summary(everything, context({"c.yaml": src}, everything))
    assert "| c.yaml:11 | EP003 | first<br>second |  |" in summary


def test_step_summary_stays_under_its_budget(monkeypatch):
    monkeypatch.setattr(github, "SUMMARY_BUDGET", 4096)
    src, records = _findings(60, 0)
    long = [record("c.yaml", src, f"key{i}:", message="x|<y> " * 20 + str(i)) for i in range(60)]
    summary = github.step_summary(long, context({"c.yaml": src}, long))
    assert len(summary.encode()) <= 4096
    assert summary.splitlines()[-1].startswith("… and ") and "more findings" in summary.splitlines()[-1]
    assert "x\\|&lt;y&gt;" in summary  # cells escape '|' and HTML
