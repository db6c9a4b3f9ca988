"""``gitlab``: a Code Quality report with the fields GitLab requires and one fingerprint per issue."""

from __future__ import annotations

import json

from autofix.common.diagnostics import Location
from autofix.report import gitlab
from autofix.report.records import ErrorRecord
from tests.report.build import context, record

SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def gitlab_problems(report) -> list[str]:
    """What GitLab's "Code Quality report format" requires of each issue: ``description``, ``check_name``,
    ``fingerprint``, ``severity`` (one of its five) and ``location.path`` as strings (the path relative,
    without ``./``), and ``location.lines.begin`` (or ``positions.begin.line``) as an integer."""
    if not isinstance(report, list):
        return ["not a JSON array"]
    problems = []
    for i, issue in enumerate(report):
        for key in ("description", "check_name", "fingerprint", "severity"):
            if not isinstance(issue.get(key), str) or not issue[key]:
                problems.append(f"[{i}].{key}")
        if issue.get("severity") not in SEVERITIES:
            problems.append(f"[{i}].severity {issue.get('severity')!r}")
        location = issue.get("location", {})
        path = location.get("path")
        if not isinstance(path, str) or not path or path.startswith("./"):
            problems.append(f"[{i}].location.path")
        lines = location.get("lines", {})
        begin = lines.get("begin", location.get("positions", {}).get("begin", {}).get("line"))
        if not isinstance(begin, int) or begin < 1 or lines.get("end", begin) < begin:
            problems.append(f"[{i}].location.lines")
    return problems


CONFIG = "tp-size: 8\nep-dispatch-algorithm: static\nep-dispatch-algorithm: static\n"


def render(records, sources, errors=()) -> tuple[str, list]:
    text = gitlab.render(records, context(sources, records, errors=errors))
    report = json.loads(text)
    assert gitlab_problems(report) == []
    return text, report


def test_issues():
    records = [record("./c.yaml", CONFIG, "static"),
               record("/repo/c.yaml", CONFIG, "tp-size: 8\nep", code="W001", severity="warning", after=("EP003",))]
    bad = ErrorRecord("bad.yaml", Location(4, 2), "not YAML")
    text, report = render(records, {"./c.yaml": CONFIG, "/repo/c.yaml": CONFIG}, errors=(bad,))
    assert not text.startswith("\ufeff") and text.isascii() and text.endswith("]\n")
    first, second, unchecked = report
    assert first["check_name"] == "EP003" and first["severity"] == "major"
    assert first["description"] == f"EP003: {records[0].message}"
    assert first["location"] == {"path": "c.yaml", "lines": {"begin": 2, "end": 2}}
    assert second["severity"] == "minor" and second["description"].endswith("(appears once EP003 is fixed)")
    assert second["location"] == {"path": "c.yaml", "lines": {"begin": 1, "end": 2}}
    assert unchecked == {"description": "could not check: not YAML", "check_name": "could-not-check",
                         "fingerprint": unchecked["fingerprint"], "severity": "critical",
                         "location": {"path": "bad.yaml", "lines": {"begin": 4, "end": 4}}}


def test_a_span_ending_after_a_line_break_ends_on_the_line_before():
    _, (issue,) = render([record("c.yaml", CONFIG, "tp-size: 8\n")], {"c.yaml": CONFIG})
    assert issue["location"]["lines"] == {"begin": 1, "end": 1}


def test_fingerprints_are_unique_and_stable():
    twice = [record("c.yaml", CONFIG, "static"), record("c.yaml", CONFIG, "static", nth=1),
             record("c.yaml", CONFIG, "static", code="EP004")]
    _, report = render(twice, {"c.yaml": CONFIG})
    prints = [i["fingerprint"] for i in report]
    assert len(set(prints)) == 3
    moved = "# deploy\n" + CONFIG
    again = [record("c.yaml", moved, "static"), record("c.yaml", moved, "static", nth=1),
             record("c.yaml", moved, "static", code="EP004")]
    assert [i["fingerprint"] for i in render(again, {"c.yaml": moved})[1]] == prints
    assert [i["fingerprint"] for i in render(twice[::-1], {"c.yaml": CONFIG})[1]] == prints[::-1]


def test_nothing_to_report():
    assert render([], {}) == ("[]\n", [])


def test_the_check_can_fail():
    assert gitlab_problems([{"description": "", "severity": "high", "location": {"path": "./a", "lines": {}}}]) == [
        "[0].description", "[0].check_name", "[0].fingerprint", "[0].severity 'high'", "[0].location.path",
        "[0].location.lines"]
