"""A run keeps counts, not results: memory flat in the number of files (``runner.Report``, ``report.Tally``).

The machine formats print one document at the end: the run keeps each diagnostic's record and the text of the
files the renderers look up (a record's file, an edit's, a file that could not be written), and no other. The
texts it keeps are those it kept when it held every result's text (each under its path, the latest one).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from autofix.cli import one_file, runner
from autofix.common.errors import WriteError
from autofix.disk import files
from autofix.disk.reads import read_bytes
from tests.test_jobs import CLEAN, NEEDS_FIX, SCRIPT  # the same inputs as the -j tests

OTHER_SCRIPT = "#!/bin/sh\npython3 -m sglang.launch_server --config launched.yaml --tp 8 --port 30001\n"


def _tree(root: Path) -> Path:
    root.mkdir()
    for i in range(6):
        (root / f"c{i}.yaml").write_text(CLEAN.format(tp=1 + i % 2))
    (root / "c3.yaml").write_text(NEEDS_FIX)
    (root / "locked.yaml").write_text(NEEDS_FIX)
    (root / "locked.yaml").chmod(0o444)  # its fix cannot be written: an error naming it (WRITE)
    (root / "launched.yaml").write_text(NEEDS_FIX)  # read by two scripts: reported once, through the first
    (root / "serve.sh").write_text(SCRIPT)
    (root / "serve2.sh").write_text(OTHER_SCRIPT)
    return root


def _every_text(monkeypatch) -> dict[str, str]:
    """What the run held before: the text of every result, under its path (its --config files' if none yet)."""
    every: dict[str, str] = {}
    emit = one_file.OneFile._emit

    def keep_all(self, result, *args):
        every[result.path] = result.source
        for other in result.others:
            every.setdefault(other.path, other.source)
        return emit(self, result, *args)

    monkeypatch.setattr(one_file.OneFile, "_emit", keep_all)
    return every


@pytest.mark.parametrize("mode", [runner.Mode.CHECK, runner.Mode.WRITE])
@pytest.mark.parametrize("fmt", ["json", "gitlab"])
def test_keeps_the_texts_the_renderers_look_up_and_no_other(tmp_path, monkeypatch, mode, fmt):
    root = _tree(tmp_path / "t")
    monkeypatch.chdir(root)
    every = _every_text(monkeypatch)
    rep = runner.run(["."], mode, out=io.StringIO(), err=io.StringIO(), output=runner.Output(fmt), jobs=1)
    looked_up = {r.path for r in rep.records} | {e.path for r in rep.records for f in r.fixes for e in f.edits or ()}
    looked_up |= {e.path for e in rep.error_records}
    assert rep.sources == {p: every[p] for p in looked_up if p in every}
    assert set(rep.sources) < set(every)  # the clean files' texts are not kept
    if mode is runner.Mode.WRITE:
        assert "locked.yaml" in rep.sources and any(e.path == "locked.yaml" for e in rep.error_records)


def test_a_clean_run_keeps_nothing_per_file(tmp_path):
    root = tmp_path / "t"
    root.mkdir()
    for i in range(20):
        (root / f"c{i:02}.yaml").write_text(CLEAN.format(tp=1 + i % 2))
    rep = runner.run([str(root)], runner.Mode.CHECK, out=io.StringIO(), err=io.StringIO(),
                     output=runner.Output("sarif"), jobs=1)
    assert (rep.exit_code, rep.tally.texts, rep.tally.found) == (0, 20, 0)
    assert rep.records == [] and rep.sources == {} and rep.error_records == []
    assert not hasattr(rep, "results")


def test_the_tally_counts_a_scripts_config_files_once(tmp_path, monkeypatch):
    root = _tree(tmp_path / "t")
    os.chmod(root / "locked.yaml", 0o644)
    monkeypatch.chdir(root)
    err = io.StringIO()
    rep = runner.run(["."], runner.Mode.WRITE, out=io.StringIO(), err=err, jobs=1)
    t = rep.tally
    # c3, locked and launched (through serve.sh, whose --tp 8 needs the fix too) each had EP003
    assert (t.found, t.remaining, rep.exit_code) == (t.fixed, 0, 0)
    assert t.changed >= 3 and t.texts == 11  # 7 YAML files, two scripts, launched.yaml once through each
    assert err.getvalue().splitlines()[-1] == (f"Found {t.found} violations. Fixed {t.fixed} in {t.changed} files; "
                                               "0 remaining.")


def test_a_file_set_forgets_what_an_input_read_and_keeps_what_it_wrote(tmp_path):
    read, wrote = tmp_path / "read.yaml", tmp_path / "wrote.yaml"
    read.write_text("tp-size: 1\n")
    wrote.write_text("tp-size: 1\n")
    disk = files.FileSet()
    disk.read(str(read))
    disk.read(str(wrote))
    disk.write(str(wrote), "tp-size: 2\n")
    disk.done()
    assert disk.snapshot(str(read.resolve())) is None  # a later input reads it again if it needs it
    assert disk.snapshot(str(wrote.resolve())) == read_bytes(str(wrote))[1]  # a stale -j answer shows
    with pytest.raises(WriteError, match="did not read"):
        disk.write(str(read), "tp-size: 3\n")
    disk.read(str(read))
    disk.write(str(read), "tp-size: 3\n")
    assert read.read_text() == "tp-size: 3\n"


@pytest.mark.parametrize("told", [0, 10, 999])
def test_a_file_longer_than_fstat_said_is_read_whole(tmp_path, monkeypatch, told):
    """A read asks for the size fstat gives and a byte more, not the 64 MB limit; a file that grew is read whole."""
    p = tmp_path / "grew.yaml"
    p.write_bytes(b"x" * 1000)
    real_fstat = os.fstat

    def fstat(fd):
        st = list(real_fstat(fd))
        st[6] = told  # st_size
        return os.stat_result(st)

    monkeypatch.setattr(os, "fstat", fstat)
    assert read_bytes(str(p))[0] == b"x" * 1000


def test_a_run_that_never_writes_keeps_no_snapshot(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("tp-size: 1\n")
    disk = files.FileSet(writes=False)
    assert disk.read(str(p)) == "tp-size: 1\n" and disk.snapshots == {} and disk.snapshot(str(p.resolve())) is None
