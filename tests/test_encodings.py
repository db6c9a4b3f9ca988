"""Text that is not UTF-8 (issue 29, third round): SGLang reads a ``--config`` file as UTF-8 text (``open(path)``
under a UTF-8 locale, then ``yaml.safe_load``, ``server_args_config_parser.py:140``) and refuses any other
(``UnicodeDecodeError``; a UTF-16 text without a byte order mark decodes, and then YAML refuses its zero bytes:
tests/oracle/test_encoding_verdicts.py), but takes a UTF-8 byte order mark. So a file meant as an SGLang
config or launch is an error in whatever encoding it is written, named, walked or read through a launch; a
binary file, or YAML that is no config, still passes a walk quietly. A ``--config`` file autofix cannot read
(a FIFO, a directory) is a note."""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autofix.cli.commands import app
from autofix.disk import files, reads
from autofix.disk.scope import Scope
from autofix.report import FORMATS
from tests.test_walk_errors import unchecked

ROOT = Path(__file__).resolve().parents[1]
CONFIG = "tp-size: 8\nenable-eplb: true\n"  # EP004 (SGLang: parallel_hook.py:791), read as UTF-8
SCRIPT = "#!/bin/sh\npython -m sglang.launch_server --model-path m --tp 8\n"
WORKFLOW = "name: ci\non: push\njobs:\n  a:\n    runs-on: x\n"  # YAML that is no SGLang config


def _after(text: str, comment: bytes) -> tuple[bytes, str]:
    """``text`` as UTF-8 and a last line ``comment``, and where its byte that is not UTF-8 is (at column 6)."""
    return text.encode() + comment, f"{text.count(chr(10)) + 1}:6"


# encoding -> (text -> (its bytes, line:col of the error)), what the error says in "not UTF-8 text (...)"
ENCODINGS = {
    "utf-16le-bom": (lambda t: (codecs.BOM_UTF16_LE + t.encode("utf-16-le"), "1:1"),
                     "byte 0xff: a UTF-16LE byte order mark"),
    "utf-16be-bom": (lambda t: (codecs.BOM_UTF16_BE + t.encode("utf-16-be"), "1:1"),
                     "byte 0xfe: a UTF-16BE byte order mark"),
    "utf-16le": (lambda t: (t.encode("utf-16-le"), "1:2"), "byte 0x00: UTF-16LE without a byte order mark"),
    "utf-16be": (lambda t: (t.encode("utf-16-be"), "1:1"), "byte 0x00: UTF-16BE without a byte order mark"),
    "utf-32le-bom": (lambda t: (codecs.BOM_UTF32_LE + t.encode("utf-32-le"), "1:1"),
                     "byte 0xff: a UTF-32LE byte order mark"),
    "utf-32be-bom": (lambda t: (codecs.BOM_UTF32_BE + t.encode("utf-32-be"), "1:1"),
                     "byte 0x00: a UTF-32BE byte order mark"),
    "utf-32le": (lambda t: (t.encode("utf-32-le"), "1:2"), "byte 0x00: UTF-32LE without a byte order mark"),
    "utf-32be": (lambda t: (t.encode("utf-32-be"), "1:1"), "byte 0x00: UTF-32BE without a byte order mark"),
    "latin-1": (lambda t: _after(t, b"# caf\xe9\n"), "byte 0xe9"),
    "utf-8-stray-byte": (lambda t: _after(t, b"# x: \xff\n"), "byte 0xff"),
}
BINARY = {  # no config, no launch, in no encoding: a walk passes them over quietly
    "png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0\x1f\xf3\xffa",
    "elf": b"\x7fELF\x02\x01\x01\0" + bytes(range(256)) * 4,
    "zeros": bytes(256),
    "utf-16-looking": b"\x01\0\xfe\x80" * 64,
    "bytes": bytes(range(256))[::-1] * 4,
}


def run(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="autofix")


def errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ": error: " in line]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_config_in_another_encoding_is_an_error_named_or_walked(project, encoding):
    """Named, a UTF-16 or UTF-32 text without a byte order mark was skipped as no config (it is valid UTF-8);
    walked, every UTF-16 and UTF-32 one passed quietly (judged on its bytes read as UTF-8): exit 0."""
    encode, why = ENCODINGS[encoding]
    data, at = encode(CONFIG)
    (project / "d").mkdir()
    (project / "d" / "c.yaml").write_bytes(data)
    (project / "d" / "ok.yaml").write_text("tp-size: 8\n")
    for args in (["d/c.yaml"], ["d"], ["d", "--output-format", "json"]):
        r = run(*args)
        assert r.exit_code == 2, (args, r.output)
        assert errors(r.stderr) == [f"d/c.yaml:{at}: error: not UTF-8 text ({why})"], r.stderr
    assert unchecked("json", r.stdout) == [("d/c.yaml", int(at.split(":")[0]))]
    assert (project / "d" / "c.yaml").read_bytes() == data


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_walked_utf16_config_is_listed_in_every_format(project, fmt):
    """The tester's reproducer (``iconv -t utf-16``: a byte order mark, then UTF-16LE), in every format."""
    (project / "d").mkdir()
    (project / "d" / "u16.yaml").write_bytes(CONFIG.encode("utf-16"))
    r = run("d", "--output-format", fmt)
    assert r.exit_code == 2, r.output
    assert r.stderr.splitlines()[-1] == "No violations found. 1 file could not be checked."
    if fmt not in ("full", "concise"):
        assert unchecked(fmt, r.stdout) == [("d/u16.yaml", 1)]


@pytest.mark.parametrize("encoding", [e for e in ENCODINGS if e.startswith("utf-")])
def test_a_launch_in_another_encoding_is_an_error_named_or_walked(project, encoding):
    encode, why = ENCODINGS[encoding]
    data, at = encode(SCRIPT)
    (project / "serve.sh").write_bytes(data)
    named, walked = run("serve.sh"), run(".")
    assert named.exit_code == walked.exit_code == 2, walked.output
    assert errors(named.stderr) == errors(walked.stderr) == [f"serve.sh:{at}: error: not UTF-8 text ({why})"]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_yaml_that_is_no_config_passes_a_walk_quietly_in_any_encoding(project, encoding):
    data, _ = ENCODINGS[encoding][0](WORKFLOW)
    (project / "ci.yaml").write_bytes(data)
    (project / "ok.yaml").write_text("tp-size: 8\n")
    r = run(".")
    assert (r.exit_code, r.stderr) == (0, "All checks passed!\n")
    assert run("ci.yaml").exit_code == 2  # named: it cannot be checked (as a Latin-1 one could not before)


@pytest.mark.parametrize("name", BINARY)
def test_a_binary_file_passes_a_walk_quietly(project, name):
    for suffix in (".yaml", ".sh"):
        (project / f"blob{suffix}").write_bytes(BINARY[name])
    (project / "ok.yaml").write_text("tp-size: 8\n")
    r = run(".")
    assert (r.exit_code, r.stderr) == (0, "All checks passed!\n")


# --- a --config file that is not UTF-8 text: SGLang refuses to start (finding 1) ---------------------------------

LAUNCH = "python -m sglang.launch_server --model-path m --config c.yaml\n"
REFUSED = "(the --config file of s.sh: SGLang refuses to start)"


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_config_file_that_is_not_utf8_is_an_error(project, encoding):
    """It passed as unknown, exit 0 ("All checks passed!"), like a missing one; invalid YAML was an error."""
    encode, why = ENCODINGS[encoding]
    data, at = encode(CONFIG)
    (project / "c.yaml").write_bytes(data)
    (project / "s.sh").write_text(LAUNCH)
    for args in (["s.sh"], ["s.sh", "--write"], ["."]):  # the walk reports it once, through the launch
        r = run(*args)
        assert r.exit_code == 2, (args, r.output)
        assert errors(r.stderr) == [f"c.yaml:{at}: error: not UTF-8 text ({why}) {REFUSED}"], r.stderr
        assert r.stderr.splitlines()[-1] == "No violations found. 1 file could not be checked."
    assert (project / "c.yaml").read_bytes() == data and (project / "s.sh").read_text() == LAUNCH


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_config_file_that_is_not_utf8_is_listed_in_every_format(project, fmt):
    """Listed as a --config file with invalid YAML is (tests/test_config_merge.py)."""
    (project / "c.yaml").write_bytes(b"tp-size: 8\n# caf\xe9\n")
    (project / "s.sh").write_text(LAUNCH)
    (project / "bad.yaml").write_text("tp-size: [8\n")
    (project / "b.sh").write_text(LAUNCH.replace("c.yaml", "bad.yaml"))
    r = run("s.sh", "b.sh", "--output-format", fmt)
    assert r.exit_code == 2, r.output
    assert r.stderr.splitlines()[-1] == "No violations found. 2 files could not be checked."
    if fmt not in ("full", "concise"):
        assert unchecked(fmt, r.stdout) == [("c.yaml", 2), ("bad.yaml", 2)]


def test_a_config_file_with_a_utf8_byte_order_mark_is_read(project):
    """SGLang reads it (the mark is no character of YAML's): the oracle finds EP004 in it, at
    parallel_hook.py:791 (tests/oracle/test_encoding_verdicts.py); the mark stays when the file is written."""
    data = codecs.BOM_UTF8 + CONFIG.encode()
    (project / "c.yaml").write_bytes(data)
    (project / "s.sh").write_text(LAUNCH)
    for args in (["s.sh"], ["c.yaml"], ["."]):
        r = run(*args)
        assert r.exit_code == 1 and r.stdout.startswith("c.yaml:2:1: error: EP004 "), (args, r.output)
    (project / "c.yaml").write_bytes(data + b"ep-size: 2\nep-dispatch-algorithm: static\n")
    r = run("c.yaml", "--write", "--unsafe-fixes")
    assert r.exit_code == 0, r.output
    assert (project / "c.yaml").read_bytes().startswith(codecs.BOM_UTF8 + b"tp-size: 8\n")


# --- a --config file autofix cannot read: a note, as for one it does not read on purpose --------------------------

def in_a_process(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """A real process: a FIFO opened for reading would wait for a writer (the bound only keeps a regression from
    hanging the run)."""
    return subprocess.run([sys.executable, "-m", "autofix", *args], capture_output=True, text=True, timeout=60,
                          cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX file kinds")
@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_config_file_that_cannot_be_read_is_a_note(project, kind):
    """It was passed over with nothing said, as a missing file is (which may exist on the launch host)."""
    os.mkfifo(project / "c.yaml") if kind == "fifo" else (project / "c.yaml").mkdir()
    (project / "s.sh").write_text(LAUNCH.replace("\n", " --ep-dispatch-algorithm static\n"))
    what = {"fifo": "a FIFO", "directory": "a directory"}[kind]
    note = (f"s.sh:1:47: warning: --config c.yaml is not a regular file ({what}): not read, and the settings "
            "it would give are unknown")
    r = in_a_process("s.sh", cwd=project)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", f"{note}\nAll checks passed!\n")
    r = in_a_process("s.sh", "--output-format", "json", cwd=project)  # on stderr only, as the other notes
    assert (r.returncode, json.loads(r.stdout), r.stderr.splitlines()[0]) == (0, [], note)


@pytest.mark.parametrize("error, said", [
    (lambda p: reads.ReadError(p, "cannot read: Permission denied"), "cannot be read (Permission denied)"),
    (lambda p: reads.ReadError(p, "too large (9 bytes; autofix reads at most 8)"), "is too large (9 bytes; "
     "autofix reads at most 8)"),
    (lambda p: reads.Missing(p, "cannot read: No such file or directory"), None),  # may be on the launch host
])
def test_what_read_config_makes_of_a_file_it_cannot_read(project, monkeypatch, error, said):
    """(No permission cannot be made as root: the error ``read_bytes`` raises for it, given.)"""
    def read_bytes(path, **_):
        raise error(path)

    monkeypatch.setattr(reads, "read_bytes", read_bytes)
    for disk in (files.FileSet(), files.FileSet(scope=Scope(["."]))):
        if said is None:
            assert disk.read_config("c.yaml") is None
            continue
        with pytest.raises(reads.NotRead) as exc:
            disk.read_config("c.yaml")
        assert (exc.value.path, exc.value.message) == ("c.yaml", said)
