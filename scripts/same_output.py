#!/usr/bin/env python
"""Do two builds of autofix give byte-identical output? The check a behaviour-preserving change (issue 30) runs.

    .venv/bin/python scripts/same_output.py                    # main against the working tree
    .venv/bin/python scripts/same_output.py A B [-j N] [--full] [--realworld DIR | --no-realworld] [--lines N]

A build (A, B) is a path to a source tree (a directory holding ``autofix/``) or
a git revision of the repository this script is in (default: A ``main``, B this
checkout's working tree, uncommitted changes included). A revision is checked
out with ``git worktree add --detach`` into a temporary directory that is
removed at the end: the user's checkout is never touched. Each build is run as
``python -m autofix`` with ``PYTHONPATH`` set to its tree's root and the python
this script runs under (run it with the project's venv): both builds share its
dependencies, so a change that needs other dependencies cannot be compared
here. Byte code goes to a temporary ``PYTHONPYCACHEPREFIX``, never into a tree.

Corpus (taken from this checkout, the same for both builds):

- ``examples/``: the README's example is ``autofix examples/ --unsafe-fixes``,
  which is the run of input ``examples/`` in mode ``unsafe-fixes`` here;
- every file under ``fixtures/`` (the golden inputs, their expected outputs,
  and the files autofix declines: ``.txt``, ``oracle-verdicts.json``);
- ``../shared/realworld/inferencex/`` when present (``--realworld DIR``
  elsewhere, ``--no-realworld`` to leave it out); it is only read.

Inputs: each of the directories ``examples/``, ``fixtures/``,
``fixtures/<format>/`` and the realworld directory, walked, in every mode of
``MODES``: the default report (violations and diff), ``--unsafe-fixes``, the
``json``, ``sarif`` and ``github`` output formats, ``--statistics``,
``--write`` and ``--write --unsafe-fixes``. And each file of ``examples/`` and
``fixtures/``, named on its own, in the modes of ``FILE_MODES`` (report,
json, ``--write --unsafe-fixes``): a walk already prints every file's
report in every mode; a named file adds the path a walk does not take (a
file autofix declines is an error only when named) and its own summary and
exit code. ``--full`` runs every file in every mode, the realworld recipes
one by one too: 2320 runs instead of 655 (measured on this project's 2
cores, shared: 23 minutes instead of 2 to 2.5). Reading stdin (``-``) is
not among the modes.

A run copies its input into a fresh directory and runs autofix there with
the input's path relative to it (``fixtures/argv/x.in.sh``, ``examples/``),
so ``--write`` never touches the originals. Both builds run in the SAME
directory, one after the other (emptied and copied again in between), so the
absolute paths that reach an output (SARIF's ``%SRCROOT%``) are the same and
nothing else is normalised: the comparison is of raw bytes, but for the
``github`` format's ``::stop-commands::TOKEN`` tokens, random by design
(``autofix.report.workflow_commands.token``): each is replaced, wherever it
stands in its stream, by ``<token-N>``, N counting tokens in order of first
appearance, so a build that uses one token where the other uses two still
differs. The directory is outside any git repository, so it is the project
autofix sees. The environment is fixed and minimal (``PATH``, ``LANG=C.UTF-8``, an empty
``HOME``): no ``AUTOFIX_*``, ``GITHUB_*``, ``NO_COLOR`` or ``FORCE_COLOR``
reaches a run, and stdout/stderr are pipes (no colour, no progress bar).

Compared per run: stdout, stderr, exit code, and the tree after it (every
file's path and bytes, so what ``--write`` wrote, and that the other modes
wrote nothing).

Output: one ``DIFF <input> [<mode>]: <what>`` line per run that differs,
each followed by a short unified diff excerpt (``--lines``, default 12, per
stream or file), then ``same: X of Y runs (D directories x 8 modes + F files
x 3 modes), Z differ (S s)``.
Exit 0 when every run is the same, 1 when one differs, 2 on bad usage (an
unknown revision, a tree without ``autofix/``).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REALWORLD = ROOT.parent / "shared" / "realworld" / "inferencex"
TIMEOUT = 300  # seconds a run may take before it counts as hung: only so a hang cannot stall the script


@dataclass(frozen=True)
class Mode:
    """A way to run autofix: a name for the report and the options after the path."""

    name: str
    args: tuple[str, ...]


MODES = (
    Mode("report", ()),
    Mode("unsafe-fixes", ("--unsafe-fixes",)),
    Mode("json", ("--output-format", "json")),
    Mode("sarif", ("--output-format", "sarif")),
    Mode("github", ("--output-format", "github")),
    Mode("statistics", ("--statistics",)),
    Mode("write", ("--write",)),
    Mode("write-unsafe", ("--write", "--unsafe-fixes")),
)
FILE_MODES = tuple(m for m in MODES if m.name in ("report", "json", "write-unsafe"))
STOP = re.compile(rb"::stop-commands::([0-9a-f]{32})")


@dataclass(frozen=True)
class Input:
    """One input: ``source`` (a file or a directory) copied to ``rel`` in the run directory, and ``rel``
    is the path autofix is given (a directory's ends with ``/``, as a user types it)."""

    source: Path
    rel: str

    @property
    def walk(self) -> bool:
        return self.rel.endswith("/")


@dataclass(frozen=True)
class Outcome:
    """What one run left: its streams, exit code (None: killed after ``TIMEOUT``), and the run directory's
    tree (relative POSIX path -> bytes; a directory's path ends with ``/`` and maps to b"")."""

    stdout: bytes
    stderr: bytes
    code: int | None
    tree: dict[str, bytes]


@dataclass
class Result:
    """One (input, mode) run under both builds; ``diffs`` is empty when every byte is the same."""

    input: Input
    mode: Mode
    diffs: list[str] = field(default_factory=list)


class Usage(Exception):
    """Bad usage: an unknown revision, a tree that holds no autofix (exit 2)."""


def corpus(root: Path = ROOT, realworld: Path | None = REALWORLD, full: bool = False) -> list[Input]:
    """The inputs, in a fixed order: ``examples/`` and its files, ``fixtures/``, each ``fixtures/<format>/``
    and every file under it, then the realworld directory, and with ``full`` its files (skipped when
    ``realworld`` is None or does not exist). Realworld paths are given as ``realworld/<name>/...``."""
    inputs = [Input(root / "examples", "examples/")]
    inputs += [Input(p, f"examples/{p.name}") for p in sorted((root / "examples").iterdir()) if p.is_file()]
    fixtures = root / "fixtures"
    inputs.append(Input(fixtures, "fixtures/"))
    inputs += [Input(d, f"fixtures/{d.name}/") for d in sorted(fixtures.iterdir()) if d.is_dir()]
    inputs += [Input(p, "fixtures/" + p.relative_to(fixtures).as_posix())
               for p in sorted(fixtures.rglob("*")) if p.is_file()]
    if realworld is not None and realworld.is_dir():
        base = f"realworld/{realworld.name}"
        inputs.append(Input(realworld, base + "/"))
        inputs += [Input(p, f"{base}/{p.relative_to(realworld).as_posix()}")
                   for p in sorted(realworld.rglob("*")) if full and p.is_file()]
    return inputs


def plan(inputs: list[Input], full: bool = False) -> list[tuple[Input, Mode]]:
    """The runs: each directory in every mode, each file in ``FILE_MODES`` (with ``full``, every mode)."""
    return [(i, m) for i in inputs for m in (MODES if full or i.walk else FILE_MODES)]


def environment(tree: Path, scratch: Path) -> dict[str, str]:
    """The whole environment of a run of the build at ``tree``: its root on ``PYTHONPATH``, byte code
    cached under ``scratch`` (not in the tree), nothing of the caller's but ``PATH``."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(scratch / "home"),
            "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONPATH": str(tree),
            "PYTHONPYCACHEPREFIX": str(scratch / "pycache")}


def snapshot(top: Path) -> dict[str, bytes]:
    """Every entry under ``top``: path relative to it -> bytes (a symlink: ``symlink -> target``)."""
    tree: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        here = Path(dirpath)
        for name in dirnames:
            p = here / name
            rel = p.relative_to(top).as_posix()
            tree[rel + "/"] = b"symlink -> " + os.fsencode(os.readlink(p)) if p.is_symlink() else b""
        for name in filenames:
            p = here / name
            rel = p.relative_to(top).as_posix()
            tree[rel] = b"symlink -> " + os.fsencode(os.readlink(p)) if p.is_symlink() else p.read_bytes()
    return tree


def run(tree: Path, item: Input, mode: Mode, workdir: Path, scratch: Path) -> Outcome:
    """Run the build at ``tree`` on a fresh copy of ``item`` in ``workdir`` (emptied first)."""
    if workdir.exists():
        shutil.rmtree(workdir)
    dest = workdir / item.rel.rstrip("/")
    dest.parent.mkdir(parents=True)
    if item.source.is_dir():
        shutil.copytree(item.source, dest, symlinks=True)
    else:
        shutil.copy2(item.source, dest)
    cmd = [sys.executable, "-m", "autofix", item.rel, *mode.args]
    try:
        done = subprocess.run(cmd, cwd=workdir, env=environment(tree, scratch), stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=TIMEOUT)
        stdout, stderr, code = done.stdout, done.stderr, done.returncode
    except subprocess.TimeoutExpired as exc:
        stdout, stderr, code = exc.stdout or b"", exc.stderr or b"", None
    return Outcome(untokened(stdout), untokened(stderr), code, snapshot(workdir))


def untokened(stream: bytes) -> bytes:
    """``stream`` with each ``::stop-commands::`` token replaced, everywhere, by ``<token-N>`` (N: its
    rank in order of first appearance): the tokens are random, what is around them is not."""
    for n, token in enumerate(dict.fromkeys(STOP.findall(stream)), 1):
        stream = stream.replace(token, b"<token-%d>" % n)
    return stream


def excerpt(a: bytes, b: bytes, name: str, lines: int) -> list[str]:
    """The first ``lines`` lines of the unified diff of ``a`` (build A) and ``b`` (build B), indented."""
    old = a.decode("utf-8", "backslashreplace").splitlines(keepends=True)
    new = b.decode("utf-8", "backslashreplace").splitlines(keepends=True)
    diff = [line.rstrip("\n") for line in difflib.unified_diff(old, new, f"A/{name}", f"B/{name}", n=1)]
    more = [f"... {len(diff) - lines} more diff lines"] if len(diff) > lines else []
    return ["    " + line for line in diff[:lines] + more]


def compare(a: Outcome, b: Outcome, lines: int = 12) -> list[str]:
    """How ``b`` differs from ``a``: a heading per stream, exit code or file that differs, each followed by
    its diff excerpt; [] when they are byte-identical."""
    out: list[str] = []
    for name, x, y in (("stdout", a.stdout, b.stdout), ("stderr", a.stderr, b.stderr)):
        if x != y:
            out += [f"  {name} differs"] + excerpt(x, y, name, lines)
    if a.code != b.code:
        out.append(f"  exit code differs: A {a.code}, B {b.code}")
    for path in sorted(a.tree.keys() | b.tree.keys()):
        if path not in b.tree:
            out.append(f"  tree: {path} only in A")
        elif path not in a.tree:
            out.append(f"  tree: {path} only in B")
        elif a.tree[path] != b.tree[path]:
            out += [f"  tree: {path} differs"] + excerpt(a.tree[path], b.tree[path], path, lines)
    return out


def compare_builds(tree_a: Path, tree_b: Path, pairs: list[tuple[Input, Mode]], scratch: Path,
                   jobs: int = 1, lines: int = 12) -> list[Result]:
    """Run every (input, mode) of ``pairs`` under both builds and compare; results in the order of ``pairs``.

    ``scratch`` must be an existing directory outside any git repository (runs happen in it).
    ``jobs`` runs that many pairs at once, each in its own directory."""
    (scratch / "home").mkdir(exist_ok=True)

    def one(index: int) -> Result:
        item, mode = pairs[index]
        workdir = scratch / "runs" / str(index)
        a = run(tree_a, item, mode, workdir, scratch)
        b = run(tree_b, item, mode, workdir, scratch)
        shutil.rmtree(workdir)
        return Result(item, mode, compare(a, b, lines))

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, range(len(pairs))))


def check_build(tree: Path, scratch: Path) -> None:
    """Raise ``Usage`` unless ``python -m autofix`` with this environment imports the autofix in ``tree``
    (and not, say, the venv's editable install of another checkout)."""
    if not (tree / "autofix" / "__init__.py").is_file():
        raise Usage(f"{tree}: no autofix/__init__.py: not a source tree of autofix")
    probe = subprocess.run([sys.executable, "-c", "import autofix; print(autofix.__file__)"],
                           cwd=scratch, env=environment(tree, scratch), capture_output=True, text=True)
    found = Path(probe.stdout.strip()).resolve() if probe.returncode == 0 else None
    if found != (tree / "autofix" / "__init__.py").resolve():
        raise Usage(f"{tree}: python imports autofix from {found or probe.stderr.strip()}, not from this tree")


def materialise(spec: str, scratch: Path, label: str, added: list[Path]) -> tuple[Path, str]:
    """The tree of build ``spec`` and how to name it: an existing directory as is, else a revision of the
    repository at ROOT checked out (detached) under ``scratch``; the new worktree is appended to
    ``added`` so the caller removes it. Raises ``Usage`` for neither."""
    path = Path(spec)
    if path.is_dir():
        return path.resolve(), f"tree {path.resolve()}"
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}"],
                         capture_output=True, text=True)
    if sha.returncode != 0:
        raise Usage(f"{spec!r} is neither a directory nor a revision of {ROOT}")
    commit = sha.stdout.strip()
    dest = scratch / f"build-{label}"
    added_tree = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(dest), commit],
                                capture_output=True, text=True)
    if added_tree.returncode != 0:
        raise Usage(f"cannot check out {spec} in {dest}: {added_tree.stderr.strip()}")
    added.append(dest)
    return dest, f"revision {spec} ({commit[:12]})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("a", nargs="?", default="main", help="build A: a revision or a source tree (default: main)")
    parser.add_argument("b", nargs="?", default=str(ROOT),
                        help="build B: a revision or a source tree (default: this checkout's working tree)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="runs at once (default: the number of cores)")
    parser.add_argument("--realworld", type=Path, default=REALWORLD, help=f"realworld recipes (default: {REALWORLD})")
    parser.add_argument("--no-realworld", action="store_true", help="leave the realworld recipes out")
    parser.add_argument("--full", action="store_true",
                        help="every file in every mode, the realworld recipes one by one too (4 times the runs)")
    parser.add_argument("--lines", type=int, default=12, help="diff lines shown per stream or file (default: 12)")
    args = parser.parse_args(argv)
    if not args.no_realworld and args.realworld != REALWORLD and not args.realworld.is_dir():
        parser.error(f"--realworld {args.realworld}: not a directory")

    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="same-output-"))
    added: list[Path] = []
    try:
        tree_a, name_a = materialise(args.a, scratch, "A", added)
        tree_b, name_b = materialise(args.b, scratch, "B", added)
        work = scratch / "work"
        work.mkdir()
        for tree in (tree_a, tree_b):
            check_build(tree, work)
        realworld = None if args.no_realworld else args.realworld
        inputs = corpus(ROOT, realworld, args.full)
        pairs = plan(inputs, args.full)
        print(f"A: {name_a}")
        print(f"B: {name_b}")
        print(f"corpus: {ROOT / 'examples'}, {ROOT / 'fixtures'}, "
              + (f"{realworld}" if realworld is not None and realworld.is_dir() else "no realworld recipes"))
        results = compare_builds(tree_a, tree_b, pairs, work, args.jobs, args.lines)
    except Usage as exc:
        print(f"same_output.py: error: {exc}", file=sys.stderr)
        return 2
    finally:
        for dest in added:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(dest)],
                           capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)

    differ = [r for r in results if r.diffs]
    for r in differ:
        print(f"DIFF {r.input.rel} [{r.mode.name}]: " + ", ".join(
            line.strip() for line in r.diffs if line.startswith("  ") and not line.startswith("    ")))
        print("\n".join(r.diffs))
    walks = sum(i.walk for i in inputs)
    shape = " + ".join(f"{n} {what} x {len(modes)} modes" for n, what, modes in (
        (walks, "directories", MODES), (len(inputs) - walks, "files", MODES if args.full else FILE_MODES)) if n)
    print(f"same: {len(results) - len(differ)} of {len(results)} runs ({shape}), {len(differ)} differ "
          f"({time.monotonic() - started:.0f} s)")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
