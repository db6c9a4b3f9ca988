"""What every machine format shares: ``render(records, ctx) -> str``, deterministic, no colour; and the
paths they print."""

from __future__ import annotations

import pytest

from autofix.common.diagnostics import Location
from autofix.report import MACHINE, machine
from autofix.report.records import ErrorRecord
from autofix.report.shared import artifact, byte_column, display_path, relative
from tests.report.build import context, fix, record, replace

SRC = "tp-size: 8\nmodel-path: /m/ünï\nep-dispatch-algorithm: static\n"
RECORDS = [record("c.yaml", SRC, "static", fixes=(fix("Set dynamic", replace("c.yaml", SRC, "static", "dynamic")),)),
           record("c.yaml", SRC, "ünï", code="W001", severity="warning")]
CTX = context({"c.yaml": SRC}, RECORDS, errors=(ErrorRecord("bad.yaml", Location(1, 1), "not YAML"),))


@pytest.mark.parametrize("name", sorted(MACHINE))
def test_render_is_pure_text(name):
    module = machine(name)
    out = module.render(RECORDS, CTX)
    assert out == module.render(RECORDS, CTX) and out.endswith("\n")
    assert "\x1b" not in out  # no colour
    empty = module.render([], context({}))
    assert empty == "" or empty.endswith("\n")


@pytest.mark.parametrize("path, expected", [
    ("c.yaml", "c.yaml"), ("./a/../c.yaml", "c.yaml"), ("/repo/sub/c.yaml", "sub/c.yaml"), ("-", "-"),
    ("../c.yaml", None), ("/repository/c.yaml", None), ("/elsewhere/c.yaml", None)])
def test_relative(path, expected):
    assert relative(path, "/repo") == expected
    assert display_path(path, "/repo") == (expected or path)


def test_artifact_uris():
    assert artifact("my dir/c.yaml", "/repo") == {"uri": "my%20dir/c.yaml", "uriBaseId": "%SRCROOT%"}
    assert artifact("../x y.yaml", "/repo/sub") == {"uri": "file:///repo/x%20y.yaml"}
    assert artifact("/tmp/c.yaml", "/repo") == {"uri": "file:///tmp/c.yaml"}


def test_byte_column():
    assert [byte_column("a𐐀b\n", 1, c) for c in (1, 2, 3, 4)] == [1, 2, 6, 7]
    assert byte_column("ab\n", 2, 1) == 1 and byte_column("ab", 1, 5) == 5
