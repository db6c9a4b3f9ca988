"""``json`` and ``json-lines``: ruff's key names, every fix with its own edits, errors as objects."""

from __future__ import annotations

import json

from autofix.common.diagnostics import Location
from autofix.report import json_format, json_lines
from autofix.report.records import ErrorRecord
from tests.report.build import applied, context, fix, record, replace, unsafe

KEYS = {"code", "name", "severity", "message", "filename", "location", "end_location", "fixes", "fix",
        "fixable", "appears_after", "url"}
FIX_KEYS = {"applicability", "title", "message", "edits"}
EDIT_KEYS = {"content", "location", "end_location"}

CONFIG = "tp-size: 8\nmodel-path: /models/ünïcode\nep-dispatch-algorithm: static\n"
SCRIPT = "python -m sglang.launch_server --config c.yaml --tp 8\n"

# EP003 at "static": a safe fix that edits the config, an unsafe one that also edits the script,
# and one that cannot be written on its own
EP003 = record("c.yaml", CONFIG, "static", fixes=(
    fix("Set --ep-dispatch-algorithm to dynamic", replace("c.yaml", CONFIG, "static", "dynamic")),
    unsafe("Drop --tp", replace("c.yaml", CONFIG, "tp-size: 8\n", ""), replace("run.sh", SCRIPT, " --tp 8", "")),
    fix("Enable the a2a backend", writable=False)))
# a warning on a non-ASCII line, appearing once EP003 is fixed, without a fix
W001 = record("c.yaml", CONFIG, "ünïcode", code="W001", severity="warning", after=("EP003",))
UNREADABLE = ErrorRecord("bad.yaml", Location(3, 5), "mapping values are not allowed here")
CTX = context({"c.yaml": CONFIG, "run.sh": SCRIPT}, [EP003, W001], errors=(UNREADABLE,))


def test_round_trip_and_key_set():
    text = json_format.render([EP003, W001], CTX)
    out = json.loads(text)
    assert out == json_format.objects([EP003, W001], CTX)
    assert [set(o) for o in out] == [KEYS] * 3
    for o in out:
        assert o["fix"] == (o["fixes"][0] if o["fixes"] else None)
        for f in o["fixes"]:
            assert set(f) == FIX_KEYS and f["message"] == f["title"]
            assert f["applicability"] in {"safe", "unsafe", "display-only"}
            for e in f["edits"] or ():
                assert set(e) - {"filename"} == EDIT_KEYS
    assert text.isascii() and text.endswith("]\n") and text == json_format.render([EP003, W001], CTX)


def test_record_object():
    first, warning, error = json.loads(json_format.render([EP003, W001], CTX))
    assert first["code"] == "EP003" and first["filename"] == "c.yaml" and first["severity"] == "error"
    assert first["location"] == {"row": 3, "column": 24} and first["end_location"] == {"row": 3, "column": 30}
    assert first["fixable"] is True and first["appears_after"] == [] and first["url"] is None
    safe, drop, enable = first["fixes"]
    assert safe["applicability"] == "safe" and safe["edits"] == [
        {"content": "dynamic", "location": {"row": 3, "column": 24}, "end_location": {"row": 3, "column": 30}}]
    assert drop["applicability"] == "unsafe"
    assert [e.get("filename") for e in drop["edits"]] == [None, "run.sh"]  # only the other file's edit names it
    assert enable["edits"] is None
    # columns count characters: "ünïcode" starts at 21 and ends (exclusive) at 28
    assert warning["location"] == {"row": 2, "column": 21} and warning["end_location"] == {"row": 2, "column": 28}
    assert warning["appears_after"] == ["EP003"] and warning["fix"] is None and warning["fixable"] is False
    assert error == {"code": None, "name": None, "severity": "error", "message": UNREADABLE.message,
                     "filename": "bad.yaml", "location": {"row": 3, "column": 5},
                     "end_location": {"row": 3, "column": 5}, "fixes": [], "fix": None, "fixable": False,
                     "appears_after": [], "url": None}


def test_edits_apply_each_on_their_own():
    safe = json.loads(json_format.render([EP003], CTX))[0]["fix"]
    edits = [replace("c.yaml", CONFIG, "static", e["content"]) for e in safe["edits"]]
    assert applied(CONFIG, edits) == CONFIG.replace("static", "dynamic")


def test_json_lines_holds_the_same_objects():
    text = json_lines.render([EP003, W001], CTX)
    lines = text.splitlines()
    assert len(lines) == 3 and text.endswith("\n")
    assert [json.loads(line) for line in lines] == json.loads(json_format.render([EP003, W001], CTX))
    assert text.isascii()


def test_nothing_to_report():
    empty = context({})
    assert json_format.render([], empty) == "[]\n"
    assert json_lines.render([], empty) == ""
