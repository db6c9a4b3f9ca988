"""The fuzz target: one input, checked and fixed as a user would, and what must hold whatever it is.

``check_input(data, name, unsafe)`` writes ``data`` to a fresh directory as
``name`` and runs ``autofix NAME`` (the diff), ``autofix NAME --write`` and
``autofix NAME`` again on what was written, in-process through
``runner.run``. It raises ``AssertionError`` unless:

1. every run exits 0, 1 or 2 and prints no traceback and no internal error
   (the runner's guard turns any exception into an "internal error" line:
   here that is a bug found);
2. ``--write`` changes nothing when the diff was empty, and otherwise
   writes exactly the input with the printed diff applied (an independent
   applier, ``harness.unified``): no byte changes outside the diff's hunks,
   and no other file appears (no temp file, no backup left);
3. re-run clean: checking the written file again offers no diff and no
   fixable violation.

Inputs come from ``strategies.inputs``: raw bytes, text over YAML and shell
syntax, and structure-aware mutations of the golden fixtures.
"""

from __future__ import annotations

import io
import shutil
import tempfile
from pathlib import Path

from hypothesis import event
from hypothesis.control import currently_in_test_context

from autofix.cli.runner import Checks, FileOptions, Mode, run
from harness.unified import apply_unified

NAMES = ("config.yaml", "serve.sh", "Dockerfile", "deploy.yaml", "recipe.yaml", "compose.yml")


def _run(path: Path, mode: Mode, unsafe: bool) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rep = run([str(path)], mode, out=out, err=err, checks=Checks(FileOptions(unsafe=unsafe)))
    return rep.exit_code, out.getvalue(), err.getvalue()


def _healthy(code: int, out: str, err: str, what: str) -> None:
    assert code in (0, 1, 2), f"{what}: exit {code}"
    for bad in ("Traceback", "internal error"):
        assert bad not in err and bad not in out, f"{what}: {bad}\n{err[-3000:]}"


def _diff_of(out: str) -> str:
    """The unified diff in a one-file run's stdout (after its diagnostic lines), or ''."""
    at = out.find("--- ") if out.startswith("--- ") else out.find("\n--- ")
    return "" if at < 0 else out[at + (0 if out.startswith("--- ") else 1):]


def check_input(data: bytes, name: str, unsafe: bool = False) -> None:
    """Run the three checks above on ``data`` saved as ``name``; raise ``AssertionError`` on a breach."""
    root = Path(tempfile.mkdtemp(prefix="autofix-fuzz-"))
    try:
        path = root / name
        path.write_bytes(data)
        code, out, err = _run(path, Mode.DIFF, unsafe)
        _healthy(code, out, err, "check")
        assert path.read_bytes() == data, "the default mode wrote to the file"
        diff = _diff_of(out)
        if currently_in_test_context():  # statistics for --hypothesis-show-statistics
            event(f"exit {code}" + (" with a diff" if diff else ""))
        code, wout, werr = _run(path, Mode.WRITE, unsafe)
        _healthy(code, wout, werr, "--write")
        written = path.read_bytes()
        assert sorted(p.name for p in root.iterdir()) == [name], "a file was left behind"
        if not diff:
            assert written == data, "--write changed a file whose diff was empty"
            return
        if written == data:  # not written: only when --write reported why
            assert code == 2 or "fixes not applied" in werr, f"diff printed but nothing written:\n{werr}"
            return
        expected = apply_unified(data.decode("utf-8"), diff)
        assert written.decode("utf-8") == expected, "--write wrote other bytes than the diff shows"
        code, again, aerr = _run(path, Mode.DIFF, unsafe)
        _healthy(code, again, aerr, "re-run")
        assert not _diff_of(again), f"not clean after --write: it would change again:\n{again}"
        assert " [*] " not in again, f"not clean after --write: a fixable violation remains:\n{again}"
    finally:
        shutil.rmtree(root, ignore_errors=True)

