"""Where a run reads and writes (issue 29, cases 4 and 5): the project, and what the command line names.

The project is the repository holding the working directory (``scope.Scope``). A file outside it (after
resolving symlinks) is never read for content to print, and never written, unless named on the command
line: a walked symlink to one, a script's ``--config`` file by ``../``, an absolute path or a symlink. A
``--config`` file inside the container its launch runs in (``docker run``, ``kubectl exec``) is never
read on this host, and the project's ``exclude`` and ``per-file-ignores`` apply to a ``--config`` file
reached through a script as to the file walked on its own.

Each test runs in a temp project (``project``: ``.git`` and the working directory) and spies on every file
opened in the process, so "not read" means not opened, not just not printed.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autofix.adapters import argv, by_name, embedded
from autofix.cli import config_files, runner, workers
from autofix.cli.commands import app
from autofix.cli.config_files import on_disk
from autofix.core.api import fix_source
from autofix.disk import files, reads
from autofix.disk.scope import Scope

LAUNCH = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3"
SECRET = "sk-live-0123456789abcdef"
# read, this file is found at fault twice (a key SGLang does not know, EP003), and its diff shows the secret
SECRETS = f"api_key: {SECRET}\ntp-size: 8\nep-dispatch-algorithm: static\n"
FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "rdjson", "gitlab")


def run(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="autofix")


@pytest.fixture
def opened(monkeypatch):
    """The real path of every file this process opens from here on (``os.open`` and ``open``)."""
    seen: list[str] = []
    real_os_open, real_open = os.open, builtins.open

    def os_open(path, flags, *args, **kwargs):
        seen.append(os.path.realpath(path))
        return real_os_open(path, flags, *args, **kwargs)

    def py_open(file, *args, **kwargs):
        if isinstance(file, (str, bytes, os.PathLike)):
            seen.append(os.path.realpath(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(builtins, "open", py_open)
    return seen


@pytest.fixture
def outside(tmp_path_factory) -> Path:
    """A secrets file in a directory that is no part of the project."""
    path = tmp_path_factory.mktemp("outside") / "secrets.yaml"
    path.write_text(SECRETS)
    return path


def _never_shown(r, secret: str = SECRET) -> None:
    assert secret not in r.stdout and secret not in r.stderr
    assert "api_key" not in r.stdout and "api_key" not in r.stderr  # nor a key name of it


# --- case 4: a script's --config file outside the project ----------------------------------------------------


@pytest.mark.parametrize("how", ["relative", "absolute", "symlink"])
def test_a_config_outside_the_project_is_not_read_printed_or_written(project, outside, opened, how):
    """``--config ../x/secrets.yaml``, ``--config /abs/secrets.yaml`` and ``--config link.yaml`` (a symlink in
    the project to that file): before, its key names and (in the diff) its values were printed and --write
    rewrote it."""
    written = {"relative": os.path.relpath(outside, project), "absolute": str(outside), "symlink": "link.yaml"}[how]
    if how == "symlink":
        (project / "link.yaml").symlink_to(outside)
    (project / "serve.sh").write_text(f"{LAUNCH} --config {written} --tp 8\n")
    before = outside.read_bytes()
    for fmt in FORMATS:
        for mode in ([], ["--write"]) if fmt in ("full", "concise") else ([],):
            r = run("serve.sh", "--output-format", fmt, *mode)
            _never_shown(r)
            assert r.exit_code == 0, r.output  # the launch alone is clean: what the file sets is unknown
            note = (f"serve.sh:1:{len(LAUNCH) + 2}: warning: --config {written} is outside the project "
                    f"({os.path.realpath(project)}): not read, and the settings it would give are unknown (name "
                    "it on the command line to read it)\n")
            assert r.stderr.count(note) == 1, r.stderr
    assert outside.read_bytes() == before
    assert str(outside) not in opened


def test_the_note_is_not_in_a_machine_format(project, outside):
    """The note goes to stderr, as the walk's notes do; the document holds the diagnostics and errors only."""
    (project / "serve.sh").write_text(f"{LAUNCH} --config {outside}\n")
    r = run("serve.sh", "--output-format", "json")
    assert json.loads(r.stdout) == [] and "is outside the project" in r.stderr


def test_a_config_outside_read_by_several_scripts_is_noted_once(project, outside):
    for name in ("a.sh", "b.sh"):
        (project / name).write_text(f"{LAUNCH} --config {outside}\n{LAUNCH} --config {outside} --tp 2\n")
    r = run(".")
    assert r.exit_code == 0 and r.stderr.count("is outside the project") == 1, r.stderr


def test_a_config_named_on_the_command_line_is_read_wherever_it_is(project, outside):
    """Naming the file is how to have it read: it is then checked through the launch, and written."""
    written = os.path.relpath(outside, project)
    (project / "serve.sh").write_text(f"{LAUNCH} --config {written} --tp 8\n")
    r = run("serve.sh", str(outside))
    assert r.exit_code == 1 and f"{written}:3:1: error: EP003" in r.stdout and "outside" not in r.stderr
    assert run("serve.sh", str(outside), "--write").exit_code == 0
    assert outside.read_text() == f"api-key: {SECRET}\ntp-size: 8\nep-dispatch-algorithm: dynamic\n"


def test_a_named_directory_is_checked_whole_from_anywhere(project, tmp_path_factory, outside):
    """``autofix /elsewhere/tree`` run outside that tree checks the tree's scripts with their config files;
    a config file further out is not read."""
    tree = tmp_path_factory.mktemp("elsewhere")
    (tree / "c.yaml").write_text("tp-size: 8\nep-dispatch-algorithm: static\n")
    (tree / "serve.sh").write_text(f"{LAUNCH} --config c.yaml --tp 8\n{LAUNCH} --config {outside} --tp 8\n")
    r = run(str(tree), "--write")
    assert r.exit_code == 0, r.output
    assert (tree / "c.yaml").read_text() == "tp-size: 8\nep-dispatch-algorithm: dynamic\n"
    _never_shown(r)
    assert outside.read_text() == SECRETS and r.stderr.count("is outside the project") == 1


def test_without_a_repository_the_project_is_the_working_directory(tmp_path, monkeypatch, outside):
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    monkeypatch.chdir(work)
    (work / "c.yaml").write_text("tp-size: 8\nep-dispatch-algorithm: static\n")
    (work / "sub" / "serve.sh").write_text(f"{LAUNCH} --config ../c.yaml --tp 8\n{LAUNCH} --config {outside}\n")
    r = run("sub/serve.sh")
    assert "c.yaml:2:1: error: EP003" in r.stdout and r.stderr.count("outside the project") == 1
    _never_shown(r)
    assert Scope([]).root == os.path.realpath(work)


def test_in_a_repository_the_project_is_its_root(project, monkeypatch):
    """A script in a sub-directory may name a config file anywhere in the repository."""
    (project / "configs").mkdir()
    (project / "deploy").mkdir()
    (project / "configs" / "c.yaml").write_text("tp-size: 8\nep-dispatch-algorithm: static\n")
    (project / "deploy" / "serve.sh").write_text(f"{LAUNCH} --config ../configs/c.yaml --tp 8\n")
    monkeypatch.chdir(project / "deploy")
    r = run("serve.sh")
    assert r.exit_code == 1 and "../configs/c.yaml:2:1: error: EP003" in r.stdout, r.output


def test_with_jobs_the_workers_read_no_config_outside(project, outside, monkeypatch):
    monkeypatch.setattr(workers, "PARALLEL_FROM", 2)
    monkeypatch.setattr(workers, "CHUNK", 2)
    for i in range(6):
        (project / f"s{i}.sh").write_text(f"{LAUNCH} --config {outside} --tp 8\n")
    for jobs in ("1", "2"):
        r = run(".", "-j", jobs, "--write")
        _never_shown(r)
        assert r.exit_code == 0 and r.stderr.count("is outside the project") == 1, r.stderr
    assert outside.read_text() == SECRETS


def test_library_callers_keep_reading_what_they_give(tmp_path, outside):
    """``api.fix_source`` reads what its ``read_config`` gives; a ``FileSet`` without a scope reads anything."""
    script = tmp_path / "serve.sh"
    script.write_text(f"{LAUNCH} --config {outside} --tp 8\n")
    result = fix_source(script.read_text(), argv, path=str(script), config_reader=on_disk(files.FileSet().read_config))
    assert [o.path for o in result.others] == [str(outside)] and not result.unread


# --- case 5: a walk does not read through a symlink to a file outside --------------------------------------------


def _linked_tree(project: Path, outside: Path) -> Path:
    tree = project / "tree"
    tree.mkdir()
    (outside.parent / "real.yaml").write_text(SECRETS)
    (outside.parent / "run.sh").write_text(f"{LAUNCH} --config secrets.yaml --tp 8\n")
    (tree / "link.yaml").symlink_to(outside.parent / "real.yaml")
    (tree / "link.sh").symlink_to(outside.parent / "run.sh")
    (project / "inside.yaml").write_text("tp-size: 8\nep-dispatch-algorithm: static\n")
    (tree / "in.yaml").symlink_to(project / "inside.yaml")  # a symlink inside the project: checked as before
    return tree


def test_a_walk_does_not_write_through_a_symlink_out_of_the_project(project, outside, opened):
    """``tree/link.yaml -> ../outside/real.yaml``: before, ``autofix tree --write`` rewrote real.yaml."""
    _linked_tree(project, outside)
    before = {p: p.read_bytes() for p in outside.parent.iterdir()}
    for mode in ([], ["--write"]):
        r = run("tree", *mode)
        _never_shown(r)
        for name in ("link.yaml", "link.sh"):
            assert (f"tree/{name}:1:1: warning: a symlink to a file outside the project "
                    f"({os.path.realpath(project)}): not read; name it on the command line to check it "
                    "(skipped)\n") in r.stderr, r.stderr
    assert r.exit_code == 0 and (project / "inside.yaml").read_text().endswith("dynamic\n")
    assert {p: p.read_bytes() for p in outside.parent.iterdir()} == before
    assert not {str(p) for p in before} & set(opened)


def test_a_walk_with_jobs_does_not_read_through_a_symlink_out(project, outside, monkeypatch):
    monkeypatch.setattr(workers, "PARALLEL_FROM", 2)
    monkeypatch.setattr(workers, "CHUNK", 2)
    tree = _linked_tree(project, outside)
    for i in range(5):
        (tree / f"c{i}.yaml").write_text("tp-size: 8\nep-dispatch-algorithm: static\n")
    r = run("tree", "-j", "2", "--write")
    _never_shown(r)
    assert r.stderr.count("a symlink to a file outside the project") == 2, r.stderr
    assert (outside.parent / "real.yaml").read_text() == SECRETS


def test_a_symlink_out_named_on_the_command_line_is_checked(project, outside):
    _linked_tree(project, outside)
    r = run("tree/link.yaml")
    assert "tree/link.yaml:3:1: error: EP003" in r.stdout and "outside" not in r.stderr
    assert run("tree/link.yaml", "--write").exit_code == 0
    assert (outside.parent / "real.yaml").read_text().endswith("dynamic\n")


def test_a_symlink_out_of_the_project_into_a_named_directory_is_checked(project, tmp_path_factory):
    other = tmp_path_factory.mktemp("other")
    (other / "real.yaml").write_text("tp-size: 8\nep-dispatch-algorithm: static\n")
    (project / "link.yaml").symlink_to(other / "real.yaml")
    r = run(".", str(other))
    assert "link.yaml:2:1: error: EP003" in r.stdout and "outside" not in r.stderr


def test_add_ignores_does_not_write_through_a_symlink_out(project, outside):
    _linked_tree(project, outside)
    r = run("tree", "--add-ignores")
    assert "tree/link.yaml:1:1: warning: a symlink to a file outside the project" in r.stderr
    assert (outside.parent / "real.yaml").read_text() == SECRETS
    assert "autofix: ignore[EP003]" in (project / "inside.yaml").read_text()


def test_a_walked_symlink_costs_nothing_more_when_it_is_none(project, monkeypatch):
    """The walk's own files are read with one ``lstat`` and ``O_NOFOLLOW``, and checked by the real path of the
    file opened: no ``realpath`` of theirs (the project's own, once per run), on Linux one ``readlink`` each."""
    for name in ("c.yaml", "d.yaml"):
        (project / name).write_text("tp-size: 8\n")
    calls, links = [], []
    realpath, readlink = os.path.realpath, os.readlink
    monkeypatch.setattr(os.path, "realpath", lambda p, **k: calls.append(p) or realpath(p, **k))
    monkeypatch.setattr(os, "readlink", lambda p, **k: links.append(p) or readlink(p, **k))
    disk = files.FileSet(writes=False, scope=Scope(["."]))
    assert disk.read("c.yaml", named=False) == disk.read("d.yaml", named=False) == "tp-size: 8\n"
    assert calls == [str(project)]
    if sys.platform == "linux":
        assert len(links) == 2 and all(p.startswith("/proc/self/fd/") for p in links)


# --- a path inside a container is never read on this host --------------------------------------------------------

CONTAINERS = [
    ("docker run --gpus all --rm img", "docker run"),
    ("sudo docker run -it img", "docker run"),
    ("docker exec -it box", "docker exec"),
    ("docker container run img", "docker run"),
    ("docker compose run server", "docker run"),
    ("/usr/bin/podman run img", "podman run"),
    ("nerdctl run img", "nerdctl run"),
    ("kubectl exec -it pod -c server --", "kubectl exec"),
    ("kubectl run srv --image=img --", "kubectl run"),
    ("oc exec pod --", "oc exec"),
    ("enroot start img", "enroot start"),
    ("srun --container-image=lmsysorg/sglang:latest", "srun --container-image"),
    ("srun -N 1 --container-image lmsysorg/sglang:latest --container-mounts /a:/a", "srun --container-image"),
]


@pytest.mark.parametrize("wrapper, shown", CONTAINERS)
@pytest.mark.parametrize("through_a_shell", [False, True])
def test_a_config_inside_a_container_is_not_read_on_this_host(project, opened, wrapper, shown, through_a_shell):
    """``docker run img python3 -m sglang... --config /p.yaml`` read (and would have written) this host's
    ``/p.yaml``; so did ``kubectl exec pod -- ...``. The path is the container's. (The file here is in the
    project, to show that it is the container, not the project, that keeps it unread.)"""
    config = project / "p.yaml"
    config.write_text(SECRETS)
    launch = f"{LAUNCH} --config {config} --tp 8"
    line = f"{wrapper} bash -lc '{launch}'\n" if through_a_shell else f"{wrapper} {launch}\n"
    (project / "serve.sh").write_text(line)
    r = run("serve.sh", "--write")
    _never_shown(r)
    assert r.exit_code == 0, r.output
    assert r.stderr.count(f"warning: --config {config} is read inside the container ({shown}), not on this host: "
                          "not read, and the settings it would give are unknown") == 1, r.stderr
    assert str(config) not in opened and config.read_text() == SECRETS


@pytest.mark.parametrize("wrapper", ["srun --nodes 1", "timeout 600", "env CUDA_VISIBLE_DEVICES=0",
                                     "numactl --cpunodebind=0", "srun --job-name docker", "apptainer exec img.sif",
                                     "mpirun -np 1"])
def test_a_launch_on_this_host_reads_its_config(project, wrapper):
    """Wrappers that run the command here (or, Apptainer, with this host's working directory and home bound in):
    the file is read as before."""
    (project / "c.yaml").write_text("tp-size: 8\nep-dispatch-algorithm: static\n")
    (project / "serve.sh").write_text(f"{wrapper} {LAUNCH} --config c.yaml --tp 8\n")
    r = run("serve.sh")
    assert r.exit_code == 1 and "c.yaml:2:1: error: EP003" in r.stdout and "container" not in r.stderr


def test_ssh_runs_on_another_host_and_is_not_read_at_all(project, opened):
    config = project / "p.yaml"
    config.write_text(SECRETS)
    (project / "serve.sh").write_text(f"ssh gpu-node {LAUNCH} --config {config} --tp 8\n"
                                      f"ssh gpu-node bash -c '{LAUNCH} --config {config}'\n")
    r = run("serve.sh")
    _never_shown(r)
    assert str(config) not in opened


def test_a_container_launch_is_one_no_config_file_is_shared_by(project):
    """A container launch's file is not this host's: it counts for no sharing (``config_files.shared``)."""
    (project / "c.yaml").write_text("tp-size: 8\nep-dispatch-algorithm: static\n")
    (project / "serve.sh").write_text(f"{LAUNCH} --config c.yaml --tp 8\ndocker run img {LAUNCH} --config c.yaml\n")
    assert run("serve.sh", "--write").exit_code == 0
    assert (project / "c.yaml").read_text().endswith("dynamic\n")  # one reader here: fixed in the file


@pytest.mark.parametrize("values, found", [
    (["docker", "run", "img", "python3", "-m", "sglang.launch_server"], "docker run"),
    (["docker", "--context", "remote", "exec", "box"], "docker exec"),
    (["docker", "build", "."], None),
    (["salloc", "--container-image=img", "srun"], "salloc --container-image"),
    (["srun", "--container-name", "x"], None),
    (["kubectl", "logs", "pod"], None),
    (["oc"], None),
    (["python3", "-m", "sglang.launch_server"], None),
])
def test_runs_elsewhere(values, found):
    assert embedded.runs_elsewhere(values) == found


def test_host_formats_never_read_a_config_file(project):
    """Kubernetes manifests, compose files, Dockerfiles and srt-slurm recipes launch in a container (or as
    srtctl writes the flags): their ``--config`` is never looked up on this host."""
    asked = []

    def read_config(path):
        asked.append(path)
        return SECRETS

    texts = {
        "manifest": "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: s\n    command: [python3, -m, "
                    "sglang.launch_server, --config, /p.yaml, --tp, '8']\n",
        "dockerfile": "FROM img\nCMD python3 -m sglang.launch_server --config /p.yaml --tp 8\n",
        "srt-slurm": "backend:\n  sglang_config:\n    prefill:\n      config: /p.yaml\n      tp-size: 8\n",
    }
    for name, text in texts.items():
        result = fix_source(text, by_name(name), path=f"x.{name}", config_reader=on_disk(read_config))
        assert not result.others and SECRET not in str(result)
    compose = "services:\n  s:\n    command: python3 -m sglang.launch_server --config /p.yaml --tp 8\n"
    fix_source(compose, by_name("manifest"), path="compose.yml", config_reader=on_disk(read_config))
    assert asked == []


# --- exclusion and per-file-ignores apply to a --config file reached through a script ------------------------------

VIOLATION = "tp-size: 8\nep-dispatch-algorithm: static\n"


def test_an_excluded_config_is_not_read_through_a_script(project, opened):
    (project / "autofix.toml").write_text('extend-exclude = ["generated"]\n')
    (project / "generated").mkdir()
    config = project / "generated" / "c.yaml"
    config.write_text(SECRETS)
    (project / "serve.sh").write_text(f"{LAUNCH} --config generated/c.yaml --tp 8\n")
    for args in (["serve.sh"], ["."], ["serve.sh", "--write"]):
        r = run(*args)
        _never_shown(r)
        assert r.exit_code == 0 and r.stderr.count(
            f"serve.sh:1:{len(LAUNCH) + 2}: warning: --config generated/c.yaml is excluded by the project's "
            "configuration: not read, and the settings it would give are unknown\n") == 1, r.stderr
    assert str(config) not in opened and config.read_text() == SECRETS


def test_an_excluded_config_named_on_the_command_line_is_read_unless_force_exclude(project):
    (project / "autofix.toml").write_text('extend-exclude = ["generated"]\n')
    (project / "generated").mkdir()
    (project / "generated" / "c.yaml").write_text(VIOLATION)
    (project / "serve.sh").write_text(f"{LAUNCH} --config generated/c.yaml --tp 8\n")
    r = run("serve.sh", "generated/c.yaml")
    assert r.exit_code == 1 and "generated/c.yaml:2:1: error: EP003" in r.stdout and "excluded" not in r.stderr
    (project / "autofix.toml").write_text('extend-exclude = ["generated"]\nforce-exclude = true\n')
    r = run("serve.sh", "generated/c.yaml")
    assert r.exit_code == 0 and "is excluded by the project's configuration" in r.stderr


def test_exclusion_applies_to_a_config_read_by_a_worker(project, monkeypatch):
    monkeypatch.setattr(workers, "PARALLEL_FROM", 2)
    monkeypatch.setattr(workers, "CHUNK", 2)
    (project / "autofix.toml").write_text('extend-exclude = ["generated"]\n')
    (project / "generated").mkdir()
    (project / "generated" / "c.yaml").write_text(SECRETS)
    for i in range(6):
        (project / f"s{i}.sh").write_text(f"{LAUNCH} --config generated/c.yaml --tp 8\n")
    r = run(".", "-j", "2")
    _never_shown(r)
    assert r.exit_code == 0 and r.stderr.count("is excluded") == 1, r.stderr


def test_per_file_ignores_of_a_config_apply_to_what_is_found_in_it(project):
    (project / "autofix.toml").write_text('[per-file-ignores]\n"legacy/*.yaml" = ["EP003"]\n')
    for d in ("legacy", "current"):
        (project / d).mkdir()
        (project / d / "c.yaml").write_text(VIOLATION)
        (project / f"{d}.sh").write_text(f"{LAUNCH} --config {d}/c.yaml --tp 8\n")
    r = run("legacy.sh", "current.sh")
    assert "legacy" not in r.stdout and "current/c.yaml:2:1: error: EP003" in r.stdout, r.output
    assert run("legacy.sh", "current.sh", "--write").exit_code == 0
    assert (project / "legacy" / "c.yaml").read_text() == VIOLATION  # neither reported nor fixed
    assert (project / "current" / "c.yaml").read_text().endswith("dynamic\n")
    # the script's own finding is the script's: the config file's ignores do not reach it
    (project / "legacy.sh").write_text(f"{LAUNCH} --config legacy/c.yaml --ep-dispatch-algorithm static\n")
    r = run("legacy.sh")
    assert r.exit_code == 1 and "legacy.sh:1:" in r.stdout and "EP003" in r.stdout, r.output


def test_per_file_ignores_of_a_config_apply_in_a_worker(project, monkeypatch):
    monkeypatch.setattr(workers, "PARALLEL_FROM", 2)
    monkeypatch.setattr(workers, "CHUNK", 2)
    (project / "autofix.toml").write_text('[per-file-ignores]\n"legacy/*.yaml" = ["EP003"]\n')
    (project / "legacy").mkdir()
    (project / "legacy" / "c.yaml").write_text(VIOLATION)
    for i in range(6):
        (project / f"s{i}.sh").write_text(f"{LAUNCH} --config legacy/c.yaml --tp 8 --port {3000 + i}\n")
    one, two = run(".", "-j", "1"), run(".", "-j", "2")
    assert (one.exit_code, one.stdout, one.stderr) == (two.exit_code, two.stdout, two.stderr) == (
        0, "", "All checks passed!\n")


def test_a_worker_that_cannot_be_given_the_bounds_leaves_configs_to_the_main_process(project, outside, monkeypatch):
    """A worker started afresh (not forked) has the scope but not the project's configuration: it reads no
    ``--config`` file at all. (The worker's globals as ``workers._init`` sets them, without calling it: it
    would ignore Ctrl-C and tie this process to its parent, as it does a worker's.)"""
    (project / "c.yaml").write_text(VIOLATION)
    (project / "serve.sh").write_text(f"{LAUNCH} --config c.yaml --tp 8\n")
    monkeypatch.setattr(workers, "_BOUNDS", workers.Bounds(Scope(["."])))
    monkeypatch.setattr(workers, "_CONFIGS", False)
    assert workers._check("serve.sh", True, runner.FileOptions()) is None
    assert workers._check("c.yaml", True, runner.FileOptions()) is not None


def test_runner_run_keeps_the_bounds_without_a_project_configuration(project, outside):
    """``runner.run`` (the library's run over paths) bounds its reads too."""
    (project / "serve.sh").write_text(f"{LAUNCH} --config {outside} --tp 8\n")
    out, err = io.StringIO(), io.StringIO()
    rep = runner.run(["serve.sh"], runner.Mode.WRITE, out=out, err=err)
    assert rep.exit_code == 0 and SECRET not in out.getvalue() + err.getvalue()
    assert outside.read_text() == SECRETS


# --- a directory swapped for a symlink between a look at a path and its open (second round, case 1) -------------
#
# ``O_NOFOLLOW`` covers a path's last part only: a walk that listed ``sub/x.yaml`` and then opened it by path
# followed ``sub`` when another process had made it a symlink out meanwhile, and printed and rewrote the file
# there. What is read is now judged by the real path of the file opened (``reads.opened_real``). Each test makes
# the race certain: the swap happens right before the open (``swap``), in this process or a worker forked from it.


@pytest.fixture
def swap(monkeypatch):
    """``swap(directory, to, before)``: right before the next ``os.open`` of a path ending with ``before`` (in this
    process, or a ``-j`` worker forked from it), ``directory`` becomes a symlink to ``to`` (the directory itself
    moved to ``NAME.orig``), once: the process that makes ``NAME.swapped`` first swaps it (``mkdir`` is atomic),
    and any other waits for the symlink before its open. Two ``-j`` workers both swapping raced in the harness
    (the second's rename failed, or moved the first's symlink, and its open raised what no run meets: a flake
    seen once in a full suite)."""
    def arm(directory: Path, to: Path, before: str) -> None:
        real_open = os.open

        def os_open(path, flags, *args, **kwargs):
            if os.fsdecode(path).endswith(before):
                try:
                    os.mkdir(directory.with_name(directory.name + ".swapped"))
                except FileExistsError:  # swapped, or being swapped, by this or another process: opened after it
                    deadline = time.monotonic() + 30
                    while not os.path.islink(directory) and time.monotonic() < deadline:
                        time.sleep(0.001)
                else:
                    os.rename(directory, directory.with_name(directory.name + ".orig"))
                    os.symlink(to, directory)
            return real_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", os_open)
    return arm


def _swappable(project: Path, outside: Path, name: str = "x.yaml") -> Path:
    """``sub/NAME`` in the project (a config a check fixes), and the outside directory's ``NAME`` holding the
    secrets: what ``sub`` leads to once swapped."""
    (project / "sub").mkdir()
    (project / "sub" / name).write_text(VIOLATION)
    (outside.parent / name).write_text(SECRETS)
    return outside.parent / name


@pytest.mark.parametrize("how", ["proc", "getpath", None])
@pytest.mark.parametrize("mode", [[], ["--write"], ["--add-ignores"]])
def test_a_walk_never_reads_through_a_directory_swapped_before_the_open(project, outside, swap, monkeypatch,
                                                                        mode, how):
    """The tester's reproducer: before, ``-api_key: sk-...`` was in the diff and ``--write`` rewrote the outside
    file. Each way the real path of an open file is found: Linux's ``/proc/self/fd``, macOS's ``F_GETPATH``
    (its answer as macOS gives it: the name, NUL-padded), and elsewhere the path's real path checked against
    the file opened (device and inode)."""
    if how == "getpath":
        import fcntl

        proc = lambda fd: os.readlink(f"/proc/self/fd/{fd}").encode()  # noqa: E731
        monkeypatch.setattr(fcntl, "F_GETPATH", 50, raising=False)
        real_fcntl = fcntl.fcntl
        monkeypatch.setattr(fcntl, "fcntl", lambda fd, cmd, arg=0: proc(fd).ljust(len(arg), b"\0") if cmd == 50
                            else real_fcntl(fd, cmd, arg))
    if how is not None and not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs /proc to stand in for the system's own answer")
    monkeypatch.setattr(reads, "_FD_PATH", how)
    target = _swappable(project, outside)
    (project / "a.yaml").write_text(VIOLATION)
    swap(project / "sub", outside.parent, "sub/x.yaml")
    r = run(".", *mode)
    _never_shown(r)
    assert target.read_text() == SECRETS
    assert (project / "sub.orig" / "x.yaml").read_text() == VIOLATION
    assert r.stderr.count(f"sub/x.yaml:1:1: warning: leads to a file outside the project ({project}) (a directory "
                          "on its path changed since the walk listed it): not read; name it on the command line to "
                          "check it (skipped)\n") == 1, r.stderr
    assert "a.yaml" in r.output  # the rest of the walk is checked


@pytest.mark.parametrize("swapped", ["sub", "sub/deep"])
def test_a_walk_never_lists_a_directory_swapped_before_it_is_listed(project, outside, swap, swapped):
    """The walk lists a directory only if the directory it opens is in the project. ``sub/deep``, with ``sub``
    swapped for a symlink out after the walk listed ``sub`` (found ``deep`` in it), is neither listed nor walked;
    nor is ``sub`` swapped after the walk listed the project (passed over, as a symlinked directory is). Before,
    the files there were each named in a note, and the walk went on into the directories there."""
    (project / "sub" / "deep").mkdir(parents=True)
    (project / "sub" / "deep" / "in.yaml").write_text(VIOLATION)
    for d in ("deep", "deep/deeper"):
        (outside.parent / d).mkdir()
        (outside.parent / d / "hidden-name.yaml").write_text(SECRETS)
    (project / "a.yaml").write_text(VIOLATION)
    swap(project / "sub", outside.parent, swapped)
    r = run(".")
    _never_shown(r)
    assert "hidden-name" not in r.output and "deeper" not in r.output, r.output
    note = (f"./sub/deep:1:1: warning: leads to a directory outside the project ({project}) (a directory on its "
            "path changed since the walk listed it): not listed (skipped)\n")
    assert r.stderr.startswith(note) if swapped == "sub/deep" else "./sub" not in r.stderr, r.stderr
    assert r.exit_code == 1 and "a.yaml:2:1: error: EP003" in r.stdout, r.output


def test_a_walk_with_jobs_never_reads_through_a_directory_swapped_before_the_open(project, outside, swap, monkeypatch):
    """The worker that meets the swap reads nothing (and leaves the file to the main process, which does not
    either): its answer would have been taken as it was."""
    monkeypatch.setattr(workers, "PARALLEL_FROM", 2)
    monkeypatch.setattr(workers, "CHUNK", 2)
    target = _swappable(project, outside)
    for i in range(5):
        (project / f"c{i}.yaml").write_text(VIOLATION)
    swap(project / "sub", outside.parent, "sub/x.yaml")
    r = run(".", "-j", "2", "--write")
    _never_shown(r)
    assert target.read_text() == SECRETS and r.stderr.count("sub/x.yaml:1:1: warning: leads to a file outside") == 1
    assert (project / "c4.yaml").read_text().endswith("dynamic\n")


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("mode", [[], ["--write"]])
def test_a_config_is_never_read_through_a_directory_swapped_before_the_open(project, outside, swap, monkeypatch,
                                                                           opened, mode, jobs):
    """``read_config`` looked at the file's real path, then read it: a directory on the way swapped between the two
    led the read out (as a ``-j`` worker's)."""
    monkeypatch.setattr(workers, "PARALLEL_FROM", 2)
    monkeypatch.setattr(workers, "CHUNK", 2)
    target = _swappable(project, outside, "c.yaml")
    for i in range(4):
        (project / f"s{i}.sh").write_text(f"{LAUNCH} --config sub/c.yaml --tp 8 --port {3000 + i}\n")
    swap(project / "sub", outside.parent, "sub/c.yaml")
    r = run(*(f"s{i}.sh" for i in range(4)), "-j", jobs, *mode)
    _never_shown(r)
    assert r.exit_code == 0 and target.read_text() == SECRETS, r.output
    note = (f":1:{len(LAUNCH) + 2}: warning: --config sub/c.yaml is outside the project ({project}): not read, and "
            "the settings it would give are unknown (name it on the command line to read it)")
    # s0.sh met the race (the others a symlink out: a note per real path); with -j 2, whichever worker was first,
    # and the other may have found no ``sub`` at all in the midst of the swap (a missing file: no note)
    assert jobs == "2" or f"s0.sh{note}" in r.stderr, r.stderr
    lines = r.stderr.splitlines()[:-1]
    assert lines and all(line.endswith(note[5:]) for line in lines), r.stderr


def test_the_scripts_read_up_front_are_read_as_the_walk_reads_them(project, outside, swap):
    """``config_files.shared`` reads the walk's scripts before the run, to count the readers of each ``--config``
    file: a script there through a swapped directory is not read (its two launches would make ``c.yaml`` shared)."""
    from autofix.schema import load

    (project / "sub").mkdir()
    (project / "sub" / "s.sh").write_text(f"{LAUNCH} --tp 8\n")
    (outside.parent / "s.sh").write_text(f"{LAUNCH} --config c.yaml\n{LAUNCH} --config c.yaml --tp 2\n")
    scope = Scope(["."])
    assert config_files.shared([("sub/s.sh", False)], load(), scope) == frozenset()
    swap(project / "sub", outside.parent, "sub/s.sh")
    assert config_files.shared([("sub/s.sh", False)], load(), scope) == frozenset()
    assert config_files.shared([("sub/s.sh", True)], load(), scope) == {str(outside.parent / "c.yaml")}  # named


def test_a_walked_file_read_again_is_read_as_the_walk_reads_it(project, outside, swap):
    """A walked file that is not UTF-8 is read again to tell whether SGLang would read it (an error) or not (passed
    over): through a directory swapped meanwhile, that second read judged the outside file; now it is noted."""
    (project / "sub").mkdir()
    (project / "sub" / "x.yaml").write_bytes(b"# caf\xe9\nnotes: 1\n")  # not a config: passed over quietly
    (outside.parent / "x.yaml").write_bytes(b"# caf\xe9\n" + VIOLATION.encode())  # a config: would be an error
    real_read = files.FileSet.read

    def read(self, path, *, named=True):  # the swap after the first read, before the second
        try:
            return real_read(self, path, named=named)
        finally:
            if path == "sub/x.yaml":
                swap(project / "sub", outside.parent, "sub/x.yaml")

    import unittest.mock

    with unittest.mock.patch.object(files.FileSet, "read", read):
        r = run(".")
    assert r.exit_code == 0 and r.stderr == ("sub/x.yaml:1:6: warning: not UTF-8 text (byte 0xe9) (skipped)\n"
                                             "All checks passed!\n"), r.output


@pytest.mark.parametrize("how", ["proc", None])
def test_the_real_path_of_a_file_opened_is_the_file_s_own(project, outside, monkeypatch, how):
    """``reads.opened_real``: a file opened through a directory swapped out and back again is named where it is
    (``/proc``), or not at all (elsewhere: the path's real path now leads to another file)."""
    if how == "proc" and not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc")
    monkeypatch.setattr(reads, "_FD_PATH", how)
    _swappable(project, outside)
    os.rename(project / "sub", project / "sub.orig")
    os.symlink(outside.parent, project / "sub")
    fd = os.open("sub/x.yaml", os.O_RDONLY)
    try:
        os.unlink(project / "sub")
        os.rename(project / "sub.orig", project / "sub")  # back: the path leads inside again
        found = reads.opened_real(fd, "sub/x.yaml", os.fstat(fd))
        assert found == (str(outside.parent / "x.yaml") if how == "proc" else None)
        inside = os.open("sub/x.yaml", os.O_RDONLY)
        try:
            assert reads.opened_real(inside, "sub/x.yaml", os.fstat(inside)) == str(project / "sub" / "x.yaml")
        finally:
            os.close(inside)
    finally:
        os.close(fd)



# --- ``..`` after a symlink in a --config path (second round, case 2) --------------------------------------------


def test_dot_dot_after_a_symlink_is_where_the_symlink_leads(project, outside, opened):
    """``--config lnk/../p.yaml`` with ``lnk -> /outside/dir``: SGLang opens ``/outside/p.yaml``; before, the path
    was collapsed as text (``os.path.normpath``) and the project's own ``p.yaml`` was checked, and fixed."""
    (outside.parent / "dir").mkdir()
    (outside.parent / "p.yaml").write_text(SECRETS)
    (project / "lnk").symlink_to(outside.parent / "dir")
    (project / "p.yaml").write_text(VIOLATION)
    (project / "serve.sh").write_text(f"{LAUNCH} --config lnk/../p.yaml --tp 8\n")
    for mode in ([], ["--write"]):
        r = run("serve.sh", *mode)
        _never_shown(r)
        assert r.exit_code == 0 and r.stdout == "" and r.stderr.startswith(
            f"serve.sh:1:{len(LAUNCH) + 2}: warning: --config lnk/../p.yaml is outside the project"), r.output
    assert (project / "p.yaml").read_text() == VIOLATION and (outside.parent / "p.yaml").read_text() == SECRETS
    assert str(outside.parent / "p.yaml") not in opened


def test_dot_dot_after_a_symlink_inside_the_project_is_the_file_sglang_opens(project):
    """``lnk -> deploy/prod``: ``lnk/../c.yaml`` is ``deploy/c.yaml``, the file that is checked and fixed (named as
    written); a directory that is no symlink is collapsed as before (``deploy/../c.yaml`` is ``c.yaml``)."""
    (project / "deploy" / "prod").mkdir(parents=True)
    (project / "lnk").symlink_to("deploy/prod")
    (project / "c.yaml").write_text("tp-size: 8\n")
    (project / "deploy" / "c.yaml").write_text(VIOLATION)
    (project / "serve.sh").write_text(f"{LAUNCH} --config lnk/../c.yaml --tp 8\n"
                                      f"{LAUNCH} --config deploy/../c.yaml --port 1\n")
    r = run("serve.sh")
    assert r.exit_code == 1 and "lnk/../c.yaml:2:1: error: EP003" in r.stdout, r.output
    assert run("serve.sh", "--write").exit_code == 0
    assert (project / "deploy" / "c.yaml").read_text().endswith("dynamic\n")
    assert (project / "c.yaml").read_text() == "tp-size: 8\n"


def test_a_config_path_resolves_as_the_system_resolves_it(project):
    """``config_files.config_path`` leads where the system's own look-up of the path leads (``os.path.realpath`` resolves
    each symlink before the ``..`` after it), whatever the symlinks on the way; and it drops every ``..`` that
    follows a plain directory, so the name stays the short one."""
    from autofix.cli.config_files import config_path

    for d in ("a/b", "c", "d/e", "deploy"):
        (project / d).mkdir(parents=True)
    (project / "l1").symlink_to("a/b")
    (project / "a" / "l2").symlink_to("../d/e")
    (project / "c" / "up").symlink_to("..")
    (project / "f").write_text("")
    scripts = ["serve.sh", "a/serve.sh", "l1/serve.sh", "c/up/serve.sh", str(project / "a" / "b" / "serve.sh")]
    written = ["x.yaml", "../x.yaml", "../../x.yaml", "l1/../x.yaml", "a/l2/../x.yaml", "l2/../../x.yaml",
               "c/up/../x.yaml", "./a/./b/../../x.yaml", "a//b/../x.yaml", "missing/../x.yaml", "f/../x.yaml",
               "/x.yaml", "/../x.yaml", f"{project}/l1/../x.yaml", "l1/../l1/../x.yaml", "up/../../x.yaml"]
    for script in scripts:
        for w in written:
            path = config_path(script, w)
            assert os.path.realpath(path) == os.path.realpath(os.path.join(os.path.dirname(script), w)), (script, w)
            parts = path.split(os.sep)
            for k, part in enumerate(parts[1:], 1):  # no ``..`` after a plain directory
                if part == ".." and parts[k - 1] not in ("..", ""):
                    assert not os.path.isdir(os.sep.join(parts[:k])) or os.path.islink(os.sep.join(parts[:k])), path
    assert config_path("deploy/serve.sh", "../c.yaml") == "c.yaml"
    assert config_path("a/serve.sh", "./b/../l2/../x.yaml") == "a/l2/../x.yaml"


@pytest.mark.parametrize("fmt", ["json", "sarif", "gitlab"])
def test_a_report_names_the_file_dot_dot_leads_to(project, fmt):
    """A machine format's paths are relative to the repository, made so as text; ``lnk/../c.yaml`` is
    ``deploy/c.yaml`` there (with ``lnk -> deploy/prod``), not ``c.yaml``. So is a path named so on the command
    line, and the project's ``per-file-ignores`` match it where it leads."""
    (project / "deploy" / "prod").mkdir(parents=True)
    (project / "lnk").symlink_to("deploy/prod")
    (project / "c.yaml").write_text(VIOLATION)
    (project / "deploy" / "c.yaml").write_text(VIOLATION.replace("tp-size: 8", "tp-size: 4"))
    (project / "serve.sh").write_text(f"{LAUNCH} --config lnk/../c.yaml --port 1\n")
    for args in (["serve.sh"], ["lnk/../c.yaml"]):
        out = run(*args, "--output-format", fmt).stdout
        assert "deploy/c.yaml" in out and '"c.yaml' not in out, out
        assert "/c.yaml" not in out.replace("deploy/c.yaml", ""), out
    (project / "autofix.toml").write_text('[per-file-ignores]\n"deploy/*.yaml" = ["EP003"]\n')
    assert run("serve.sh").exit_code == run("lnk/../c.yaml").exit_code == 0


def test_a_project_configuration_is_never_read_through_a_directory_swapped_before_the_open(project, outside, swap):
    """The project's own configuration file is judged as a ``--config`` file is: by the file opened (second round,
    case 3). ``sub`` swapped between the look at ``sub/autofix.toml`` and its read: the run stops (exit 2) without
    reading the file there, whose key names an error would print."""
    (project / "sub").mkdir()
    (project / "sub" / "x.yaml").write_text(VIOLATION)
    (project / "sub" / "autofix.toml").write_text('ignore = ["EP"]\n')
    (outside.parent / "autofix.toml").write_text(f"{SECRET.replace('-', '_')} = 1\n")
    (outside.parent / "x.yaml").write_text(SECRETS)
    swap(project / "sub", outside.parent, "sub/autofix.toml")
    r = run("sub/x.yaml")
    _never_shown(r, SECRET.replace("-", "_"))
    assert r.exit_code == 2 and r.stderr.startswith(
        f"sub/autofix.toml:1:1: error: leads to a file outside the project ({project}): not read"), r.output
