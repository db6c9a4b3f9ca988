"""The fuzz target's symlink cases (issue 29): random trees of files and symlinks pointing inside and outside a
project, run through the real command line.

``trees`` draws a project (a repository: ``.git``) and a directory beside it, outside. Outside are config
files and scripts, each holding a marker no other file holds (a key and a value of the config, a flag's value
on the script's launch line, the line its diff would show). Inside are config files, scripts whose launches
name ``--config`` files inside, outside (``../``, absolute, through a symlink inside), or in the container
they run in, and symlinks to files inside, outside, to a directory outside, or to nothing. The command line
names the project or a part of it, and sometimes an outside file or a symlink out (to a file or a
directory). Sometimes one of the project's directories is swapped, in the middle of the first run, for a
symlink to a directory outside that holds files of the same names (``swap``): right before the run first
opens a path in it, as another process could do between a look at a path and its open (issue 29, second
round).

``check_tree(tree)`` builds it in a fresh directory and runs ``autofix`` over it as ``autofix.cli.main`` does
(``checking.prepare``, then the job), from the project's root or a directory in it: the default mode in a
random output format, then ``--write``. It raises ``AssertionError`` unless, for every outside file not named
on the command line (nor in a named directory; a named symlink counts as what it points to): no run prints
its marker, on stdout or stderr,
and ``--write`` leaves its bytes as they were; and every run exits 0, 1 or 2 without an internal error.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

LAUNCH = "python3 -m sglang.launch_server --model-path m"
WRAPPERS = ("", "", "", "docker run --rm img ", "kubectl exec pod -- ", "srun --nodes 1 ")


def _config(marker: str) -> str:
    """A config file every check finds at fault: an unknown key (its name is printed) with the marker as its
    value (in the diff of its fix), and EP003 with ``--tp 8``."""
    return f"{marker}_key: {marker}\ntp-size: 8\nep-dispatch-algorithm: static\n"


@dataclass(frozen=True)
class Tree:
    """What ``check_tree`` builds: the files outside, the project's entries, what is named, where it runs.

    ``outside``: (name, kind) with kind ``config`` or ``script`` (its launch names ``ref``, an outside
    config's name, or None). ``entries``: (path in the project, what it is): ``("config", None)``,
    ``("script", launches)`` with each launch (wrapper, how, target), or ``("link", target)``; a target is
    ``out:<name>``, ``in:<path>``, ``outdir`` or ``nowhere``. ``named``: words of the command line, relative
    to the project (``out:<name>`` for an outside file). ``cwd``: the project's sub-directory it runs in.
    ``swap``: a directory of the project swapped for a symlink out during the first run, or None.
    """

    outside: tuple[tuple[str, str, str | None], ...]
    entries: tuple[tuple[str, str, object], ...]
    named: tuple[str, ...]
    cwd: str
    fmt: str
    swap: str | None = None


_DIRS = ("", "", "a/", "a/b/", "c/")


@st.composite
def trees(draw) -> Tree:
    n_out = draw(st.integers(1, 4))
    outside = []
    for i in range(n_out):
        kind = draw(st.sampled_from(("config", "config", "script")))
        outside.append((f"o{i}.{'yaml' if kind == 'config' else 'sh'}", kind, None))
    out_configs = [n for n, k, _ in outside if k == "config"]
    outside = [(n, k, draw(st.sampled_from(out_configs)) if k == "script" and out_configs else None)
               for n, k, _ in outside]
    inside_configs = [f"{draw(st.sampled_from(_DIRS))}i{i}.yaml" for i in range(draw(st.integers(0, 3)))]
    inside_configs = list(dict.fromkeys(inside_configs))
    targets = st.one_of(st.sampled_from([f"out:{n}" for n, _, _ in outside]),
                        st.sampled_from([f"in:{p}" for p in inside_configs] or ["nowhere"]),
                        st.just("outdir"), st.just("nowhere"))
    entries: list[tuple[str, str, object]] = [(p, "config", None) for p in inside_configs]
    for i in range(draw(st.integers(1, 4))):
        path = f"{draw(st.sampled_from(_DIRS))}s{i}.sh"
        launches = tuple((draw(st.sampled_from(WRAPPERS)), draw(st.sampled_from(("relative", "absolute", "link"))),
                          draw(targets)) for _ in range(draw(st.integers(1, 3))))
        entries.append((path, "script", launches))
    for i in range(draw(st.integers(0, 4))):
        suffix = draw(st.sampled_from((".yaml", ".sh", ".yml")))
        entries.append((f"{draw(st.sampled_from(_DIRS))}l{i}{suffix}", "link", draw(targets)))
    links = [p for p, kind, _ in entries if kind == "link"]
    named_pool = ["."] + [f"out:{n}" for n, _, _ in outside] + links + ["a"]
    named = tuple(dict.fromkeys(draw(st.lists(st.sampled_from(named_pool), min_size=1, max_size=3))))
    cwd = draw(st.sampled_from(("", "", "a")))
    fmt = draw(st.sampled_from(("full", "concise", "json", "sarif", "rdjson", "gitlab")))
    swap = draw(st.sampled_from((None, None, "a", "a/b", "c")))
    if swap is not None and (swap == cwd or swap in named):  # a name the user gave leads where it leads
        swap = None
    return Tree(tuple(outside), tuple(entries), named, cwd, fmt, swap)


def _build(base: Path, tree: Tree) -> tuple[Path, Path, dict[Path, str]]:
    """The tree under ``base``: (the project, the outside directory, outside file -> its marker)."""
    project, out = base / "project", base / "outside"
    (project / ".git").mkdir(parents=True)
    for d in ("a/b", "c"):
        (project / d).mkdir(parents=True, exist_ok=True)
    (out / "dir").mkdir(parents=True)
    (out / "dir" / "hidden.yaml").write_text(_config("MARKdir"))
    markers = {out / "dir" / "hidden.yaml": "MARKdir"}
    for i, (name, kind, ref) in enumerate(tree.outside):
        marker = f"MARKout{i}x"
        markers[out / name] = marker
        if kind == "config":
            (out / name).write_text(_config(marker))
        else:
            config = f" --config {ref}" if ref else ""
            (out / name).write_text(f"#!/bin/sh\n{LAUNCH}{config} --tp 8 --served-model-name {marker} --tp_size 8\n")

    def target(spec: str, at: Path) -> Path:
        if spec.startswith("out:"):
            return out / spec[4:]
        if spec.startswith("in:"):
            return project / spec[3:]
        return out / "dir" if spec == "outdir" else project / "nowhere.yaml"

    for path, kind, what in tree.entries:
        p = project / path
        if kind == "config":
            p.write_text("tp-size: 8\nep-dispatch-algorithm: static\n")
        elif kind == "link":
            if not os.path.lexists(p):
                p.symlink_to(os.path.relpath(target(what, p), p.parent))
        else:
            lines = ["#!/bin/sh"]
            for k, (wrapper, how, spec) in enumerate(what):
                real = target(spec, p)
                if how == "absolute":
                    ref = str(real)
                elif how == "relative":
                    ref = os.path.relpath(real, p.parent)
                else:  # through a symlink beside the script
                    link = p.parent / f"{p.stem}-ref{k}.yaml"
                    if not os.path.lexists(link):
                        link.symlink_to(os.path.relpath(real, link.parent))
                    ref = link.name
                lines.append(f"{wrapper}{LAUNCH} --config {ref} --tp 8")
            p.write_text("\n".join(lines) + "\n")
    return project, out, markers


def _mirror(project: Path, out: Path, tree: Tree, allowed: list[str], markers: dict[Path, str]) -> Path:
    """``out/mirror``: a file of each name ``tree.swap`` holds, with a marker (``markers``), but for the names a path
    named on the command line leads to (they may be read, wherever they lead once swapped)."""
    mirror = out / "mirror"
    mirror.mkdir()
    directory = project / tree.swap
    for k, name in enumerate(sorted(os.listdir(directory))):
        if str(directory / name) in allowed or os.path.isdir(directory / name):
            continue
        marker = f"MARKmirror{k}x"
        (mirror / name).write_text(_config(marker) if not name.endswith(".sh") else
                                   f"#!/bin/sh\n{LAUNCH} --tp 8 --served-model-name {marker} --tp_size 8\n")
        markers[mirror / name] = marker
    return mirror


class _Swap:
    """A context in which the first ``os.open`` of a path under ``directory`` (by name, not through a directory
    descriptor) first makes ``directory`` a symlink to ``to`` (it is moved to ``NAME.orig``)."""

    def __init__(self, directory: Path, to: Path) -> None:
        self.directory, self.to, self.done = directory, to, False
        self.real_open = os.open

    def __enter__(self) -> _Swap:
        prefix = str(self.directory) + os.sep

        def os_open(path, flags, *args, **kwargs):
            if not self.done and "dir_fd" not in kwargs and os.path.abspath(os.fsdecode(path)).startswith(prefix):
                self.done = True
                os.rename(self.directory, self.directory.with_name(self.directory.name + ".orig"))
                os.symlink(self.to, self.directory)
            return self.real_open(path, flags, *args, **kwargs)

        os.open = os_open
        return self

    def __exit__(self, *exc) -> None:
        os.open = self.real_open


def _run(args: list[str], cwd: Path, **request) -> tuple[int, str, str]:
    from autofix.cli.checking import Request, prepare

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        job = prepare(Request(paths=args, **request), env={}, stdout=out, stderr=err)
        code = job.run()
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


def check_tree(tree: Tree) -> None:
    """Build ``tree``, run autofix over it (report, then ``--write``); raise ``AssertionError`` on a breach."""
    base = Path(tempfile.mkdtemp(prefix="autofix-fuzz-paths-"))
    try:
        project, out, markers = _build(base, tree)
        cwd = project / tree.cwd
        args = [str(out / w[4:]) if w.startswith("out:") else os.path.relpath(project / w, cwd) for w in tree.named]
        # named on the command line: the file itself (or the one a named symlink points to), or what lies in a
        # named directory (or one a named symlink points to), may be read
        allowed = [os.path.realpath(cwd / a) for a in args]
        dirs = tuple(a + os.sep for a in allowed if os.path.isdir(a))
        swap = None
        if tree.swap is not None:
            swap = _Swap(project / tree.swap, _mirror(project, out, tree, allowed, markers))
        kept = {p: p.read_bytes() for p in markers
                if str(p.resolve()) not in allowed and not str(p.resolve()).startswith(dirs)}
        for request in ({"output_format": tree.fmt}, {"write": True}):
            if swap is not None and not swap.done:
                with swap:
                    code, stdout, stderr = _run(args, cwd, **request)
            else:
                code, stdout, stderr = _run(args, cwd, **request)
            assert code in (0, 1, 2), f"exit {code}"
            for bad in ("Traceback", "internal error"):
                assert bad not in stdout + stderr, f"{bad}\n{stderr[-3000:]}"
            for path in kept:
                marker = markers[path]
                assert marker not in stdout and marker not in stderr, \
                    f"{request}: printed {path.name}, outside the project:\n{stdout[-2000:]}\n{stderr[-2000:]}"
        for path, data in kept.items():
            assert path.read_bytes() == data, f"--write wrote {path}, outside the project"
    finally:
        shutil.rmtree(base, ignore_errors=True)
