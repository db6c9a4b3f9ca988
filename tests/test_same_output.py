"""scripts/same_output.py, the check that two builds give byte-identical output (issue 30), on a tiny corpus.

Two builds are compared with this checkout's: a copy of its ``autofix/`` (identical) and a copy with one
rule message edited. The first must give no difference; the second must be caught, in the report and not
in ``--write``'s output (the fixed violation is not printed there), and so must a tree that differs.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("same_output", ROOT / "scripts" / "same_output.py")
same_output = sys.modules["same_output"] = importlib.util.module_from_spec(spec)  # dataclasses look it up
spec.loader.exec_module(same_output)

MESSAGE = b"needs an a2a backend, but --moe-a2a-backend resolves to none"  # EP003, in examples/config.yaml


def build(tmp_path: Path, name: str, edit: bool) -> Path:
    """A source tree at ``tmp_path/name``: a copy of this checkout's ``autofix/``, with EP003's message
    edited when ``edit``."""
    tree = tmp_path / name
    shutil.copytree(ROOT / "autofix", tree / "autofix", ignore=shutil.ignore_patterns("__pycache__"))
    if edit:
        [source] = [p for p in (tree / "autofix").rglob("*.py") if MESSAGE in p.read_bytes()]
        source.write_bytes(source.read_bytes().replace(MESSAGE, MESSAGE + b" (edited)"))
    return tree


@pytest.fixture
def runs(tmp_path):
    """Compare this checkout against ``tree`` on examples/config.yaml in two modes (report, write)."""
    item = same_output.Input(ROOT / "examples" / "config.yaml", "examples/config.yaml")
    modes = [m for m in same_output.MODES if m.name in ("report", "write")]
    scratch = tmp_path / "scratch"
    scratch.mkdir()

    def compare(tree: Path) -> dict[str, list[str]]:
        work = scratch / tree.name
        work.mkdir()
        results = same_output.compare_builds(ROOT, tree, [(item, m) for m in modes], work)
        return {r.mode.name: r.diffs for r in results}

    return compare


def test_identical_builds_give_no_difference(tmp_path, runs):
    assert runs(build(tmp_path, "same", edit=False)) == {"report": [], "write": []}


def test_an_edited_message_is_caught_where_it_is_printed(tmp_path, runs):
    diffs = runs(build(tmp_path, "edited", edit=True))
    assert diffs["write"] == []
    report = "\n".join(diffs["report"])
    assert diffs["report"][0] == "  stdout differs"
    assert "+examples/config.yaml:7:1: error: EP003 [*] --ep-dispatch-algorithm static " \
           "needs an a2a backend, but --moe-a2a-backend resolves to none (edited)" in report
    assert "stderr" not in report and "exit code" not in report and "tree" not in report


def test_a_tree_that_differs_is_named_with_its_diff():
    a = same_output.Outcome(b"out", b"", 1, {"x/": b"", "x/a.yaml": b"k: 1\n", "x/old": b""})
    b = same_output.Outcome(b"out", b"", 0, {"x/": b"", "x/a.yaml": b"k: 2\n", "x/new": b""})
    assert same_output.compare(a, b) == [
        "  exit code differs: A 1, B 0",
        "  tree: x/a.yaml differs",
        "    --- A/x/a.yaml", "    +++ B/x/a.yaml", "    @@ -1 +1 @@", "    -k: 1", "    +k: 2",
        "  tree: x/new only in B",
        "  tree: x/old only in A",
    ]


def test_stop_commands_tokens_are_numbered_not_compared():
    first = b"::stop-commands::" + b"a" * 32 + b"\nx\n::" + b"a" * 32 + b"::\n"
    other = first.replace(b"a" * 32, b"b" * 32)
    assert same_output.untokened(first) == same_output.untokened(other) == \
        b"::stop-commands::<token-1>\nx\n::<token-1>::\n"
    # one token reused where the other build makes a new one is a difference
    two = first + first.replace(b"a" * 32, b"c" * 32)
    assert same_output.untokened(first + first) != same_output.untokened(two)


def test_an_unknown_revision_is_bad_usage(capsys):
    assert same_output.main(["no-such-revision-of-autofix", "--no-realworld"]) == 2
    assert "neither a directory nor a revision" in capsys.readouterr().err
