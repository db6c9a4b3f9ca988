"""The files of a run, each once, scripts first (``autofix.cli.inputs``): the YAML files walked, not listed.

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

from autofix.cli.inputs import Inputs, RealPaths, once_each, scripts_first
from autofix.common.filenames import is_yaml
from autofix.disk.walk import _walk, expand


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
    return once_each(scripts_first(expand(paths)), os.path.realpath)


@pytest.mark.parametrize("paths", CASES.values(), ids=CASES.keys())
def test_inputs_give_what_listing_every_file_gives(tmp_path, monkeypatch, paths):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    notes: list[str] = []
    inputs = Inputs(paths, note=notes.append, excluded=None)
    want = _reference(paths)
    assert list(inputs) == want
    assert list(inputs) == want  # and again: a second walk
    assert inputs.scripts == [item for item in want if not is_yaml(item[0])]
    assert inputs.count == len(want)
    ref_notes: list[str] = []
    list(expand(paths, note=ref_notes.append))
    assert notes == ref_notes  # noted once, when made


def test_an_excluded_file_is_left_out_as_a_walk_leaves_it(tmp_path, monkeypatch):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)

    def excluded(path: str, named: bool, is_dir: bool) -> bool:
        return os.path.basename(path) in ("y.yml", "run.sh", "venv") and not named

    paths = ["a", "b", "a/y.yml"]
    assert list(Inputs(paths, note=lambda _: None, excluded=excluded)) == \
        once_each(scripts_first(expand(paths, excluded=excluded)), os.path.realpath)


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


# --- a deep tree (issue 29, case 4 of the second round) ----------------------------------------------------------


def _deep(root: Path, depth: int, text: str) -> str:
    """``root/a/a/.../a/x.yaml``, ``depth`` directories down, holding ``text`` (made through directory descriptors:
    ``os.makedirs`` recurses once per level); its path relative to ``root``."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("a", dir_fd=fd)
            inner = os.open("a", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        out = os.open("x.yaml", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, text.encode())
        os.close(out)
    finally:
        os.close(fd)
    return "a/" * depth + "x.yaml"


@pytest.fixture
def deep_tree(project):
    """``_deep`` in the project, removed after the test without recursion (``shutil.rmtree``, which pytest's
    clean-up uses, recurses once per level too): each level is moved up in turn."""
    yield lambda depth, text: _deep(project, depth, text)
    while (project / "a").is_dir():
        if (project / "a" / "a").is_dir():
            os.rename(project / "a" / "a", project / "a-below")
        for name in os.listdir(project / "a"):
            os.unlink(project / "a" / name)
        os.rmdir(project / "a")
        if (project / "a-below").is_dir():
            os.rename(project / "a-below", project / "a")


def test_the_walk_is_os_walk(tmp_path, monkeypatch):
    """``walk._walk`` gives what ``os.walk`` gives, top down, with the directories pruned and sorted in place as
    ``expand`` does, a symlinked directory listed but not entered, and one that cannot be listed reported."""
    _tree(tmp_path)
    (tmp_path / "a" / "sub" / "deeper" / "still").mkdir(parents=True)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "in.yaml").write_text("")
    (tmp_path / "gone").symlink_to("missing")
    monkeypatch.chdir(tmp_path)

    def walk(walker, top):
        out, errors = [], []
        for root, dirs, names in walker(top, errors.append):
            dirs[:] = sorted(d for d in dirs if d != "venv")
            out.append((root, list(dirs), sorted(names)))
        return out, [e.filename for e in errors]

    import unittest.mock

    real_scandir = os.scandir

    def scandir(path):  # a directory that cannot be listed, whoever the tests run as
        if os.path.basename(os.fspath(path)) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    with unittest.mock.patch.object(os, "scandir", scandir):
        for top in (".", "a", str(tmp_path), "a/dirlink", "missing"):
            assert walk(_walk, top) == walk(lambda t, e: os.walk(t, onerror=e), top), top


def test_a_walk_goes_a_thousand_directories_deep(project, deep_tree):
    """Python 3.11's ``os.walk`` recursed once per level: a tree ~990 deep stopped the run (RecursionError)."""
    deep = deep_tree(1000, "tp-size: 8\n")
    (project / "top.yaml").write_text("tp-size: 8\n")
    notes: list[str] = []
    inputs = Inputs(["."], note=notes.append, excluded=None)
    assert list(inputs) == [("top.yaml", False), (deep, False)] and inputs.count == 2 and notes == []


def test_a_deep_file_is_checked_and_fixed(project, deep_tree):
    """Through the command line: the deep file and the others are reported, fixed, and excluded as configured
    (``Resolver.excluded`` asked the directories above a named file by recursion too)."""
    from typer.testing import CliRunner

    from autofix.cli.commands import app

    bad = "tp-size: 8\nep-dispatch-algorithm: static\n"
    deep = deep_tree(1000, bad)
    (project / "top.yaml").write_text(bad)
    r = CliRunner().invoke(app, ["."], prog_name="autofix")
    assert r.exit_code == 1 and f"{deep}:2:1: error: EP003" in r.stdout and "top.yaml:2:1: error: EP003" in r.stdout
    (project / "autofix.toml").write_text('force-exclude = true\nextend-exclude = ["b"]\n')
    r = CliRunner().invoke(app, [deep, "--write"], prog_name="autofix")
    assert r.exit_code == 0 and (project / deep).read_text().endswith("dynamic\n"), r.output
    (project / "autofix.toml").write_text('force-exclude = true\nextend-exclude = ["a"]\n')
    r = CliRunner().invoke(app, [deep, "top.yaml"], prog_name="autofix")
    assert r.exit_code == 1 and deep not in r.output, r.output


def test_a_tree_deeper_than_a_path_can_name_is_noted_not_fatal(project, deep_tree):
    """Past ``PATH_MAX`` (4 096 bytes on Linux) no path names the deepest directories: the walk notes the one it
    cannot list and checks the rest; before, the project configuration's look-up there (``.autofix.toml``: "File
    name too long") stopped the run."""
    from typer.testing import CliRunner

    from autofix.cli.commands import app

    deep_tree(2100, "tp-size: 8\n")
    (project / "top.yaml").write_text("tp-size: 8\nep-dispatch-algorithm: static\n")
    r = CliRunner().invoke(app, ["."], prog_name="autofix")
    assert r.exit_code == 1 and "top.yaml:2:1: error: EP003" in r.stdout, r.output
    assert r.stderr.count("warning: cannot list the directory: File name too long (skipped)") == 1, r.stderr
