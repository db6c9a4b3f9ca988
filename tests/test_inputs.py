"""The files of a run, each once, scripts first (``autofix.inputs``): the YAML files walked, not listed.

``Inputs`` must give what listing every file gives (``once_each(scripts_first(expand(paths)))``, the way a run
ordered its files before issue 15), over trees with the ways one file gets two names: symlinks (to a file of
the same kind or the other, inside the walk or outside it, in a skipped directory), a file named and walked,
named twice, stdin, and inputs that overlap (which it lists, as before).
"""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest

from autofix import files
from autofix.inputs import Inputs, RealPaths, once_each, scripts_first


def _tree(root: Path) -> None:
    for rel in ("a/x.yaml", "a/y.yml", "a/run.sh", "a/Dockerfile", "a/sub/z.yaml", "b/w.yaml", "b/serve.sh",
                "venv/v.yaml", "c.yaml", "d.sh", "notes.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("tp-size: 1\n")
    (root / "a" / "link.yaml").symlink_to("x.yaml")  # same dir, same kind
    (root / "a" / "sub" / "to-b.yaml").symlink_to("../../b/w.yaml")  # into another input
    (root / "b" / "as-script.sh").symlink_to("w.yaml")  # a script's name for a YAML file
    (root / "b" / "out.yaml").symlink_to("../c.yaml")  # to a file named on the command line
    (root / "b" / "venv.yaml").symlink_to("../venv/v.yaml")  # to a file in a skipped directory
    (root / "a" / "dirlink").symlink_to("sub")  # a symlinked directory: not walked


CASES = {
    "one-dir": ["a"],
    "two-dirs": ["a", "b"],
    "two-dirs-reversed": ["b", "a"],
    "named-then-walked": ["c.yaml", "b"],
    "walked-then-named": ["b", "c.yaml", "a/x.yaml"],
    "named-twice": ["c.yaml", "./c.yaml", "d.sh", "d.sh"],
    "named-symlink": ["a/link.yaml", "a"],
    "stdin": ["-", "a", "-"],
    "named-missing": ["missing.yaml", "a"],
    "same-dir-twice": ["a", "a/"],  # overlapping inputs: listed
    "nested": [".", "a"],
    "nested-symlinked-dir": ["a/sub", "a/dirlink"],
}


def _reference(paths: list[str]) -> list[tuple[str, bool]]:
    return once_each(scripts_first(files.expand(paths)), os.path.realpath)


@pytest.mark.parametrize("paths", CASES.values(), ids=CASES.keys())
def test_inputs_give_what_listing_every_file_gives(tmp_path, monkeypatch, paths):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    notes: list[str] = []
    inputs = Inputs(paths, note=notes.append, excluded=None)
    want = _reference(paths)
    assert list(inputs) == want
    assert list(inputs) == want  # and again: a second walk
    assert inputs.scripts == [item for item in want if not files.is_yaml(item[0])]
    assert inputs.count == len(want)
    ref_notes: list[str] = []
    list(files.expand(paths, note=ref_notes.append))
    assert notes == ref_notes  # noted once, when made


def test_an_excluded_file_is_left_out_as_a_walk_leaves_it(tmp_path, monkeypatch):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)

    def excluded(path: str, named: bool, is_dir: bool) -> bool:
        return os.path.basename(path) in ("y.yml", "run.sh", "venv") and not named

    paths = ["a", "b", "a/y.yml"]
    assert list(Inputs(paths, note=lambda _: None, excluded=excluded)) == \
        once_each(scripts_first(files.expand(paths, excluded=excluded)), os.path.realpath)


def test_disjoint_inputs_keep_nothing_per_yaml_file(tmp_path, monkeypatch):
    """Over 2 000 YAML files in 40 directories, making and walking the inputs holds about as much as over 200."""
    def peak(n_dirs: int) -> int:
        root = tmp_path / f"t{n_dirs}"
        for d in range(n_dirs):
            (root / f"d{d:02}").mkdir(parents=True)
            for i in range(50):
                (root / f"d{d:02}" / f"c{i:03}.yaml").write_text("")
        tracemalloc.start()
        try:
            inputs = Inputs([str(root)], note=lambda _: None, excluded=None)
            assert sum(1 for _ in inputs) == inputs.count == 50 * n_dirs
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(4), peak(40)
    assert large - small < 20_000, (small, large)  # listed, the 1 800 more files would be ~400 KB


def test_real_paths_are_os_realpath(tmp_path, monkeypatch):
    """Files are told apart by real path, found per directory (``RealPaths``): the same as realpath's."""
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "a.yaml").write_text("tp-size: 1\n")
    (tmp_path / "d" / "link.yaml").symlink_to("e/../a.yaml")
    (tmp_path / "d" / "e" / "up").symlink_to("..")
    (tmp_path / "linkdir").symlink_to("d")
    monkeypatch.chdir(tmp_path)
    real = RealPaths()
    paths = ["d/a.yaml", "d/link.yaml", "linkdir/a.yaml", "linkdir/link.yaml", "d/e/up/a.yaml", "d/e/..",
             "d/.", "d/e/../a.yaml", "a.yaml", "missing/x.yaml", "d/missing.yaml", "./d/a.yaml", str(tmp_path / "d"),
             f"{tmp_path}/linkdir/e/up/link.yaml", "d/", "/"]
    for path in paths * 2:  # the second time from what it keeps
        assert real(path) == os.path.realpath(path), path
