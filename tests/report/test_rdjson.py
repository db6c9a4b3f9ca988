"""``rdjson``: reviewdog's Diagnostic Format, checked against a model of ``proto/rdf/reviewdog.proto``, and
each suggestion applied as reviewdog's GitHub reviewer and GitHub would apply it."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autofix.common.diagnostics import Applicability, Location
from autofix.report import rdjson
from autofix.report.records import ErrorRecord, FixRecord, Record, TextEdit
from tests.report.build import applied, context, edit_at, fix, line_start, loc, offset, record, replace, unsafe

# reviewdog.proto, message by message: field -> type ("int32", "string", a message, an enum, or [a message]).
# protobuf's JSON reader refuses any other field.
PROTO = {
    "DiagnosticResult": {"diagnostics": ["Diagnostic"], "source": "Source", "severity": "Severity"},
    "Diagnostic": {"message": "string", "location": "Location", "severity": "Severity", "source": "Source",
                   "code": "Code", "suggestions": ["Suggestion"], "original_output": "string", "images": ["Image"]},
    "Location": {"path": "string", "range": "Range"},
    "Range": {"start": "Position", "end": "Position"},
    "Position": {"line": "int32", "column": "int32"},
    "Suggestion": {"range": "Range", "text": "string"},
    "Source": {"name": "string", "url": "string"},
    "Code": {"value": "string", "url": "string"},
    "Image": {"image_url": "string", "alt": "string", "caption": "string"},
}
SEVERITY = {"UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"}


def proto_problems(value, kind: str = "DiagnosticResult", where: str = "$") -> list[str]:
    """Where ``value`` is not a JSON form of message ``kind``: unknown fields, wrong types, bad enum names."""
    if isinstance(kind, list):
        if not isinstance(value, list):
            return [f"{where}: not a list"]
        return [p for i, v in enumerate(value) for p in proto_problems(v, kind[0], f"{where}[{i}]")]
    if kind == "string":
        return [] if isinstance(value, str) else [f"{where}: not a string"]
    if kind == "int32":
        ok = isinstance(value, int) and not isinstance(value, bool) and -2**31 <= value < 2**31
        return [] if ok else [f"{where}: not an int32"]
    if kind == "Severity":
        return [] if value in SEVERITY else [f"{where}: severity {value!r}"]
    if not isinstance(value, dict):
        return [f"{where}: not an object"]
    fields = PROTO[kind]
    return [f"{where}.{k}: no such field in {kind}" for k in value if k not in fields] + [
        p for k, v in value.items() if k in fields for p in proto_problems(v, fields[k], f"{where}.{k}")]


def meaning_problems(result: dict, sources: dict[str, str]) -> list[str]:
    """What the proto's comments require: 1-based positions, a start in every range, an end not before its
    start (ends are exclusive), one line-wise suggestion per diagnostic, within the file's lines."""
    problems = []
    for i, d in enumerate(result["diagnostics"]):
        where = f"diagnostics[{i}]"
        if not d.get("message") or not d["location"].get("path"):
            problems.append(f"{where}: empty message or path")
        ranges = [d["location"].get("range")] + [s["range"] for s in d.get("suggestions", [])]
        for r in filter(None, ranges):
            start, end = r.get("start"), r.get("end", r.get("start"))
            if not start or any(p.get("line", 0) < 1 or p.get("column", 1) < 1 for p in (start, end)):
                problems.append(f"{where}: a position before line 1 or column 1, or no start")
            elif (end["line"], end.get("column", 0)) < (start["line"], start.get("column", 0)):
                problems.append(f"{where}: an end before its start")
        if len(d.get("suggestions", [])) > 1:
            problems.append(f"{where}: more than one suggestion")
        for s in d.get("suggestions", []):
            if "column" in s["range"]["start"] or "column" in s["range"].get("end", {}):
                problems.append(f"{where}: a suggestion that is not line-wise")
            lines = sources[d["location"]["path"]].count("\n") + 1
            if s["range"].get("end", s["range"]["start"])["line"] > lines:
                problems.append(f"{where}: a suggestion past the last line")
    return problems


def apply_suggestion(source: str, suggestion: dict) -> str:
    """What GitHub commits for a line-wise suggestion as reviewdog posts it (``buildSingleSuggestion``):
    the suggestion block holds ``text`` and a ``\\n`` (nothing for an empty text), and replaces lines
    start..end, each with its ``\\n``. A last line without ``\\n`` stays without one (our reading of GitHub)."""
    first, last = suggestion["range"]["start"]["line"], suggestion["range"]["end"]["line"]
    lo, hi = line_start(source, first), line_start(source, last + 1)
    body = suggestion["text"] + "\n" if suggestion["text"] else ""
    if hi == len(source) and not source.endswith("\n") and body:
        body = body[:-1]
    return source[:lo] + body + source[hi:]


def render(records, sources, errors=()) -> dict:
    ctx = context(sources, records, errors=errors)
    result = json.loads(rdjson.render(records, ctx))
    assert proto_problems(result) == [] and meaning_problems(result, sources) == []
    return result


def with_fix(src: str, *edits: TextEdit, path: str = "c.yaml") -> Record:
    return Record(path, loc(src, 0), loc(src, 0), "EP003", "demo", "error", "refused",
                  (FixRecord(Applicability.SAFE, "Fix it", edits),), fixable=True)


def at(src: str, start: int, end: int, content: str) -> TextEdit:
    return edit_at("c.yaml", src, start, end, content)


ABC = "a: 1\nb: 2\nc: 3\n"
NO_EOL = "a: 1\nb: 2"
CRLF = "a: 1\r\nb: 2\r\nc: 3\r\n"
# (source, edits (start, end, content) by offset, the lines and text of the suggestion)
CASES = {
    "replace-in-line": (ABC, [(8, 9, "3")], (2, 2, "b: 3")),
    "delete-line": (ABC, [(5, 10, "")], (2, 2, "")),
    "delete-two-lines": (ABC, [(5, 15, "")], (2, 3, "")),
    "insert-after-line": (ABC, [(5, 5, "x: 9\n")], (1, 1, "a: 1\nx: 9")),
    "insert-at-start": (ABC, [(0, 0, "x: 9\n")], (1, 1, "x: 9\na: 1")),
    "insert-at-end": (ABC, [(15, 15, "d: 4\n")], (3, 3, "c: 3\nd: 4")),
    "insert-at-line-end": (ABC, [(4, 4, "  # one")], (1, 1, "a: 1  # one")),
    "two-edits": (ABC, [(3, 4, "5"), (13, 14, "6")], (1, 3, "a: 5\nb: 2\nc: 6")),
    "no-eol-replace": (NO_EOL, [(8, 9, "3")], (2, 2, "b: 3")),
    "no-eol-append": (NO_EOL, [(9, 9, "\nc: 3")], (2, 2, "b: 2\nc: 3")),
    "no-eol-delete-last-line": (NO_EOL, [(4, 9, "")], (1, 2, "a: 1")),
    "no-eol-empty-last-line": (NO_EOL, [(5, 9, "")], (2, 2, "")),
    "crlf-replace": (CRLF, [(9, 10, "3")], (2, 2, "b: 3\r")),
    "crlf-delete-line": (CRLF, [(6, 12, "")], (2, 2, "")),
    "crlf-insert-after-line": (CRLF, [(6, 6, "x: 9\r\n")], (1, 1, "a: 1\r\nx: 9\r")),
    "empties-a-line": (ABC, [(5, 9, "")], (2, 3, "\nc: 3")),
    "empties-the-last-line": (ABC, [(10, 14, "")], (2, 3, "b: 2\n")),
    "joins-two-lines": (ABC, [(4, 5, "")], (1, 2, "a: 1b: 2")),
    "non-ascii": ("modèle: ünï\nb: 2\n", [(8, 11, "ü")], (1, 1, "modèle: ü")),
}


@pytest.mark.parametrize("name", CASES)
def test_suggestion_is_line_wise_and_applies_as_the_fix(name):
    src, raw, (first, last, text) = CASES[name]
    r = with_fix(src, *(at(src, *e) for e in raw))
    (d,) = render([r], {"c.yaml": src})["diagnostics"]
    (s,) = d["suggestions"]
    assert s == {"range": {"start": {"line": first}, "end": {"line": last}}, "text": text}
    assert apply_suggestion(src, s) == applied(src, r.fixes[0].edits)


@pytest.mark.parametrize("src, raw", [("a: 1\n", (0, 4, "")), ("a: 1\n", (4, 5, ""))],
                         ids=["only-line-emptied", "final-newline-dropped"])
def test_no_suggestion_where_lines_cannot_say_it(src, raw):
    (d,) = render([with_fix(src, at(src, *raw))], {"c.yaml": src})["diagnostics"]
    assert d["suggestions"] == []


@given(lines=st.lists(st.text(alphabet="ab é\r", max_size=4), min_size=1, max_size=5), eol=st.booleans(),
       cuts=st.lists(st.integers(0, 40), min_size=2, max_size=4), texts=st.lists(st.text("x\n\r", max_size=3),
                                                                                  min_size=2, max_size=2))
def test_any_suggestion_applies_as_the_fix(lines, eol, cuts, texts):
    src = "\n".join(lines) + ("\n" if eol else "")
    points = sorted(min(c, len(src)) for c in cuts)
    edits = [at(src, points[0], points[1], texts[0])]
    if len(points) == 4:
        edits.append(at(src, points[2], points[3], texts[1]))
    r = with_fix(src, *edits)
    (d,) = render([r], {"c.yaml": src})["diagnostics"]
    result = applied(src, edits)
    if d["suggestions"]:
        assert apply_suggestion(src, d["suggestions"][0]) == result
    else:  # the cases lines cannot say
        assert src == "" or result == "\n" or (src.endswith("\n") and result and not result.endswith("\n"))


def test_byte_columns():
    src = "x: a𐐀b\n"  # the proto's example: 𐐀 takes four bytes
    (d,) = render([record("c.yaml", src, "b")], {"c.yaml": src})["diagnostics"]
    assert d["location"]["range"] == {"start": {"line": 1, "column": 9}, "end": {"line": 1, "column": 10}}
    src = "modèle: ünïcode  # é\nx: 1\n"
    r = record("c.yaml", src, "ünïcode")
    span = render([r], {"c.yaml": src})["diagnostics"][0]["location"]["range"]
    assert span == {"start": {"line": 1, "column": 10}, "end": {"line": 1, "column": 19}}
    line = src.encode().split(b"\n")[0]
    assert line[span["start"]["column"] - 1:span["end"]["column"] - 1].decode() == "ünïcode"


def test_a_span_that_takes_a_line_break_ends_on_its_line():
    (d,) = render([record("c.yaml", ABC, "b: 2\n")], {"c.yaml": ABC})["diagnostics"]
    assert d["location"]["range"] == {"start": {"line": 2, "column": 1}, "end": {"line": 2, "column": 5}}


def test_diagnostic_fields():
    src = ABC
    r = record("/repo/sub/c.yaml", src, "2", code="W001", severity="warning", after=("EP003",))
    result = render([r], {"/repo/sub/c.yaml": src})
    (d,) = result["diagnostics"]
    assert d["location"]["path"] == "sub/c.yaml" and d["severity"] == "WARNING" and result["severity"] == "WARNING"
    assert d["code"] == {"value": "W001"} and d["source"] == result["source"] == {"name": "autofix"}
    assert d["message"] == f"{r.message} (appears once EP003 is fixed)"
    assert d["original_output"] == f"sub/c.yaml:2:4: warning: W001 {d['message']}"
    assert d["suggestions"] == []


def test_which_fix_is_suggested():
    script = "python -m sglang.launch_server --config c.yaml --tp 8\n"
    sources = {"c.yaml": ABC, "run.sh": script}
    only_unsafe = record("c.yaml", ABC, "2", fixes=(unsafe("Set 3", replace("c.yaml", ABC, "2", "3")),))
    second_safe = record("c.yaml", ABC, "2", fixes=(fix("Not on its own", writable=False),
                                                    unsafe("Set 4", replace("c.yaml", ABC, "2", "4")),
                                                    fix("Set 3", replace("c.yaml", ABC, "2", "3"))))
    two_files = record("c.yaml", ABC, "2", fixes=(fix("Set 3 and drop --tp", replace("c.yaml", ABC, "2", "3"),
                                                      replace("run.sh", script, " --tp 8", "")),))
    a, b, c = render([only_unsafe, second_safe, two_files], sources)["diagnostics"]
    assert a["suggestions"] == [] and a["message"] == only_unsafe.message
    assert b["suggestions"] == [{"range": {"start": {"line": 2}, "end": {"line": 2}}, "text": "b: 3"}]
    assert c["suggestions"] == [] and c["message"] == f"{two_files.message} (no suggestion: its fix also edits run.sh)"


def test_inputs_that_could_not_be_checked():
    result = render([], {"bad.yaml": "a:\tb\n"}, errors=(ErrorRecord("bad.yaml", Location(1, 3), "a tab"),))
    (d,) = result["diagnostics"]
    assert d["severity"] == result["severity"] == "ERROR" and "code" not in d
    assert d["location"] == {"path": "bad.yaml", "range": {"start": {"line": 1, "column": 3}}}
    assert d["message"] == "could not check: a tab"
    assert json.loads(rdjson.render([], context({}))) == {"diagnostics": [], "source": {"name": "autofix"}}


def test_the_checks_can_fail():
    assert proto_problems({"diagnostics": [{"message": "m", "severity": "FATAL", "extra": 1}]}) == [
        "$.diagnostics[0].extra: no such field in Diagnostic", "$.diagnostics[0].severity: severity 'FATAL'"]
    bad = {"diagnostics": [{"message": "m", "location": {"path": "c.yaml", "range": {
        "start": {"line": 2, "column": 3}, "end": {"line": 1}}}, "suggestions": [
        {"range": {"start": {"line": 9, "column": 1}}, "text": ""}]}]}
    assert len(meaning_problems(bad, {"c.yaml": ABC})) == 3
    assert offset(ABC, "b") == 5  # the helper the cases' offsets were counted with
