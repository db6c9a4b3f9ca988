"""Project configuration (``autofix.project.configuration``): discovery, every key, errors at their position, globs,
exclusion, and the command line over the file.

Each table row builds a small tree under ``tmp_path`` (``{relative path: text}``; a path ending in ``/`` is
an empty directory) and asks a ``Resolver`` about one path.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autofix.common.errors import ConfigError, InputError
from autofix.project import configuration, globs, keys, reading, toml_positions
from autofix.project.configuration import OptionError, Resolver
from autofix.project.keys import KEYS
from autofix.project.toml_positions import locate, scan

ROOT = Path(__file__).resolve().parent.parent


def build(tmp: Path, tree: dict[str, str]) -> Path:
    for rel, text in tree.items():
        path = tmp / rel
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp


def rel(tmp: Path, path: str | None) -> str | None:
    return None if path is None else os.path.relpath(path, tmp).replace(os.sep, "/")


TOOL = "[tool.autofix]\n"
PYPROJECT_WITHOUT = '[project]\nname = "demo"\n'


# --- discovery -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    id: str
    tree: dict[str, str]
    path: str  # the checked path, relative to cwd
    config: str | None  # the file that applies, relative to tmp_path
    cwd: str = "."
    options: dict = field(default_factory=dict)  # config_file, isolated, stdin_filename


DISCOVERY = [
    Found("none", {"a/x.yaml": ""}, "a/x.yaml", None),
    Found("same-directory", {"autofix.toml": "", "x.yaml": ""}, "x.yaml", "autofix.toml"),
    Found("found-upward", {"autofix.toml": "", "a/b/x.yaml": ""}, "a/b/x.yaml", "autofix.toml"),
    Found("closest-wins", {"autofix.toml": "", "a/autofix.toml": "", "a/b/x.yaml": ""}, "a/b/x.yaml",
          "a/autofix.toml"),
    Found("closest-wins-no-merge", {"autofix.toml": 'select = ["EP"]\n', "a/pyproject.toml": TOOL}, "a/x.yaml",
          "a/pyproject.toml"),
    Found("dot-file-first", {"a/.autofix.toml": "", "a/autofix.toml": "", "a/pyproject.toml": TOOL}, "a/x.yaml",
          "a/.autofix.toml"),
    Found("autofix-toml-over-pyproject", {"a/autofix.toml": "", "a/pyproject.toml": TOOL}, "a/x.yaml",
          "a/autofix.toml"),
    Found("pyproject-with-table", {"a/pyproject.toml": PYPROJECT_WITHOUT + TOOL}, "a/x.yaml", "a/pyproject.toml"),
    Found("pyproject-inline-table", {"a/pyproject.toml": "[tool]\nautofix = {}\n"}, "a/x.yaml", "a/pyproject.toml"),
    Found("pyproject-without-table-skipped", {"autofix.toml": "", "a/pyproject.toml": PYPROJECT_WITHOUT},
          "a/x.yaml", "autofix.toml"),
    Found("pyproject-other-tool-skipped", {"pyproject.toml": TOOL, "a/pyproject.toml": "[tool.ruff]\n"},
          "a/x.yaml", "pyproject.toml"),
    Found("broken-pyproject-not-ours-skipped", {"autofix.toml": "", "a/pyproject.toml": "[project\n"},
          "a/x.yaml", "autofix.toml"),
    Found("relative-to-cwd", {"autofix.toml": "", "a/autofix.toml": "", "a/x.yaml": ""}, "x.yaml",
          "a/autofix.toml", cwd="a"),
    Found("parent-path", {"a/autofix.toml": "", "b/x.yaml": ""}, "../b/x.yaml", None, cwd="a"),
    Found("config-file", {"ci.toml": "", "a/autofix.toml": ""}, "a/x.yaml", "ci.toml",
          options={"config_file": "ci.toml"}),
    Found("config-file-pyproject", {"cfg/pyproject.toml": TOOL, "a/autofix.toml": ""}, "a/x.yaml",
          "cfg/pyproject.toml", options={"config_file": "cfg/pyproject.toml"}),
    Found("isolated", {"autofix.toml": "", "a/autofix.toml": ""}, "a/x.yaml", None, options={"isolated": True}),
    Found("stdin-from-cwd", {"autofix.toml": "", "a/autofix.toml": ""}, "-", "a/autofix.toml", cwd="a"),
    Found("stdin-filename", {"autofix.toml": "", "a/b/autofix.toml": ""}, "-", "a/b/autofix.toml", cwd="a",
          options={"stdin_filename": "b/x.yaml"}),
    Found("stdin-isolated", {"autofix.toml": ""}, "-", None, options={"isolated": True}),
    # discovery stops at the repository holding the file (a directory with .git, as black's find_project_root):
    # a file above a repository is no part of it (issue 29, second round, case 3); without one it goes on up
    Found("stops-at-the-repository-root", {"autofix.toml": 'ignore = ["ALL"]\n', "repo/.git/": "",
                                            "repo/a/x.yaml": ""}, "repo/a/x.yaml", None),
    Found("the-repository-root-s-own", {"autofix.toml": "", "repo/.git/": "", "repo/autofix.toml": "",
                                        "repo/a/x.yaml": ""}, "repo/a/x.yaml", "repo/autofix.toml"),
    Found("a-worktree-s-git-file", {"autofix.toml": "", "repo/.git": "gitdir: ../main/.git/worktrees/repo\n"},
          "repo/x.yaml", None),
    Found("a-submodule-stops-at-its-own-root", {"repo/.git/": "", "repo/autofix.toml": "",
                                                "repo/sub/.git": "gitdir: x\n"}, "repo/sub/x.yaml", None),
    Found("from-inside-a-repository", {"autofix.toml": "", "repo/.git/": "", "repo/a/": ""}, "x.yaml", None,
          cwd="repo/a"),
    Found("a-repository-named-from-outside", {"autofix.toml": "", "repo/.git/": "", "repo/pyproject.toml": TOOL},
          "repo/x.yaml", "repo/pyproject.toml"),
    Found("stdin-in-a-repository", {"autofix.toml": "", "repo/.git/": ""}, "-", None, cwd="repo"),
    Found("beside-a-repository", {"autofix.toml": "", "repo/.git/": "", "other/x.yaml": ""}, "other/x.yaml",
          "autofix.toml"),
]


@pytest.mark.parametrize("case", DISCOVERY, ids=[c.id for c in DISCOVERY])
def test_discovery(case, tmp_path):
    build(tmp_path, case.tree)
    resolver = Resolver(cwd=str(tmp_path / case.cwd), **case.options)
    settings = resolver.settings(case.path)
    assert rel(tmp_path, settings.config) == case.config
    found = resolver.config_for(case.path)
    assert rel(tmp_path, found.path if found else None) == case.config


SECRET_KEY = "SECRETKEY_sk_live_123"


@pytest.mark.parametrize("repository", [True, False])
@pytest.mark.parametrize("name", configuration.NAMES)
def test_a_discovered_file_that_leads_out_of_the_project_is_not_read(tmp_path, monkeypatch, name, repository):
    """``autofix.toml -> /elsewhere/x.toml``: before, it was read, and its keys named in the error (``unknown key
    'SECRETKEY_...'``). Now it is an error naming it (exit 2), and the file there is never opened. The project of a
    file found by discovery: the repository holding it, else the directory it is in (or the run's own)."""
    proj, elsewhere = tmp_path / "proj", tmp_path / "elsewhere"
    table = "[tool.autofix]\n" if name == "pyproject.toml" else ""
    build(tmp_path, {"proj/x.yaml": "", f"elsewhere/{name}": f"{table}{SECRET_KEY} = 1\n"})
    if repository:
        (proj / ".git").mkdir()
    (proj / name).symlink_to(elsewhere / name)
    opened = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda p, *a, **k: opened.append(os.path.realpath(p)) or real_open(p, *a, **k))
    with pytest.raises(ConfigError) as caught:
        Resolver(cwd=str(proj)).settings("x.yaml")
    assert str(caught.value) == (f"{name}:1:1: error: leads to a file outside the project ({proj}): not read "
                                 "(--config-file names a configuration file to use wherever it is)")
    assert str(elsewhere / name) not in opened
    with pytest.raises(ConfigError, match=SECRET_KEY):  # named: used wherever it is (and so its key is named)
        Resolver(cwd=str(proj), config_file=str(elsewhere / name))


@pytest.mark.parametrize("cwd", ["proj", "proj/sub"])
def test_a_discovered_symlink_within_the_project_is_read(tmp_path, cwd):
    """In a repository, a configuration file may be a symlink to one anywhere in it; without one, to one in its own
    directory or in the current one."""
    build(tmp_path, {"proj/shared/autofix.toml": 'ignore = ["EP003"]\n', "proj/sub/x.yaml": ""})
    (tmp_path / "proj" / "sub" / "autofix.toml").symlink_to("../shared/autofix.toml")
    with pytest.raises(ConfigError, match="outside the project"):  # no repository: sub is the project
        Resolver(cwd=str(tmp_path / "proj" / "sub")).settings("x.yaml")
    resolver = Resolver(cwd=str(tmp_path / "proj"))  # ... unless the run's is proj
    assert resolver.settings("sub/x.yaml").config == str(tmp_path / "proj" / "sub" / "autofix.toml")
    (tmp_path / "proj" / ".git").mkdir()
    resolver = Resolver(cwd=str(tmp_path / cwd))
    path = "sub/x.yaml" if cwd == "proj" else "x.yaml"
    assert resolver.settings(path).config == str(tmp_path / "proj" / "sub" / "autofix.toml")


def test_a_configuration_above_the_repository_through_the_command_line(tmp_path, monkeypatch):
    """The tester's reproducer: ``/tmp/up/autofix.toml`` with ``ignore = ["ALL"]`` silenced ``/tmp/up/proj``, a
    repository; and ``proj/autofix.toml -> /tmp/outside.toml`` printed its key names."""
    from typer.testing import CliRunner

    from autofix.cli.commands import app

    build(tmp_path, {"autofix.toml": 'ignore = ["ALL"]\n', "proj/.git/": "",
                     "proj/c.yaml": "tp-size: 8\nep-dispatch-algorithm: static\n",
                     "outside.toml": f"{SECRET_KEY} = 1\n"})
    monkeypatch.chdir(tmp_path / "proj")
    r = CliRunner().invoke(app, ["c.yaml"], prog_name="autofix")
    assert r.exit_code == 1 and "c.yaml:2:1: error: EP003" in r.stdout, r.output
    (tmp_path / "proj" / "autofix.toml").symlink_to(tmp_path / "outside.toml")
    r = CliRunner().invoke(app, ["c.yaml"], prog_name="autofix")
    assert r.exit_code == 2 and SECRET_KEY not in r.output and r.stderr.startswith(
        "autofix.toml:1:1: error: leads to a file outside the project"), r.output


def test_each_directory_is_looked_at_once(tmp_path, monkeypatch):
    """Each name once, however many files each directory holds; and the file found is asked where it leads (its
    real path, and where its project is: ``realpath``, which looks at each part of a path) once."""
    build(tmp_path, {"autofix.toml": 'select = ["EP"]\n', "a/b/c/": ""})
    looked, loaded, resolved = [], [], []
    named, load, realpath = configuration._named, reading.load, os.path.realpath
    monkeypatch.setattr(configuration, "_named", lambda p: looked.append(p) or named(p))
    monkeypatch.setattr(reading, "load", lambda *a, **k: loaded.append(a[0]) or load(*a, **k))
    monkeypatch.setattr(os.path, "realpath", lambda p, **k: resolved.append(p) or realpath(p, **k))
    resolver = Resolver(cwd=str(tmp_path))
    for i in range(200):
        for d in ("", "a/", "a/b/", "a/b/c/"):
            resolver.settings(f"{d}f{i}.yaml")
    assert len(looked) == len(set(looked)) <= 4 * len(configuration.NAMES)
    assert loaded == [str(tmp_path / "autofix.toml")]
    assert len(resolved) <= 3  # the file's real path, its project's, the run's


def test_a_bad_file_is_read_once_and_fails_every_file_below(tmp_path, monkeypatch):
    build(tmp_path, {"autofix.toml": "selct = []\n"})
    loaded = []
    load = reading.load
    monkeypatch.setattr(reading, "load", lambda *a, **k: loaded.append(a[0]) or load(*a, **k))
    resolver = Resolver(cwd=str(tmp_path))
    for path in ("x.yaml", "a/y.yaml", "a/b/z.yaml"):
        with pytest.raises(ConfigError, match="unknown key 'selct'"):
            resolver.settings(path)
    assert len(loaded) == 1


@pytest.mark.parametrize("options, message", [
    ({"config_file": "missing.toml"}, "missing.toml:1:1: error: cannot read: No such file or directory"),
    ({"config_file": "pyproject.toml"}, "pyproject.toml:1:1: error: no [tool.autofix] table"),
    ({"config_file": "bad.toml"}, "bad.toml:1:1: error: unknown key 'nope'"),
], ids=["missing", "pyproject-without-table", "bad"])
def test_config_file_errors(tmp_path, options, message):
    build(tmp_path, {"pyproject.toml": PYPROJECT_WITHOUT, "bad.toml": "nope = 1\n"})
    with pytest.raises(ConfigError) as caught:
        Resolver(cwd=str(tmp_path), **options)
    assert str(caught.value).startswith(message)


def test_config_file_and_isolated_exclude_each_other(tmp_path):
    with pytest.raises(OptionError, match="cannot be used together"):
        Resolver(cwd=str(tmp_path), config_file="x.toml", isolated=True)


def test_broken_pyproject_that_mentions_autofix_is_an_error(tmp_path):
    build(tmp_path, {"pyproject.toml": "[tool.autofix\n"})
    with pytest.raises(ConfigError, match=r"pyproject.toml:1:14: error: invalid TOML: Expected '\]'"):
        Resolver(cwd=str(tmp_path)).settings("x.yaml")


# A name a configuration file would have, on something that cannot be used as one: the run stops (exit 2) and
# names it, without reading a FIFO or a device, or hanging on a document tomllib reads too slowly (issue 29).
# Each is made in tmp_path under the name given; then what the error says (the start of the message).
KINDS = {
    "fifo": (lambda path: os.mkfifo(path), "1:1: error: not a regular file (a FIFO)"),
    "directory": (lambda path: path.mkdir(), "1:1: error: not a regular file (a directory)"),
    "dangling-symlink": (lambda path: path.symlink_to(path.parent / "missing.toml"),
                         "1:1: error: cannot read: a symlink to"),
    "symlink-loop": (lambda path: path.symlink_to(path.name), "1:1: error: cannot read:"),
    "dev-urandom": (lambda path: path.symlink_to("/dev/urandom"),
                    "1:1: error: not a regular file (a character device)"),
    "dev-zero": (lambda path: path.symlink_to("/dev/zero"), "1:1: error: not a regular file (a character device)"),
    "nested-too-deeply": (lambda path: path.write_text("[tool.autofix]\nselect = " + "[" * 5000 + "]" * 5000),
                          "2:10: error: too deeply nested to read: arrays or inline tables 5,000 deep"),
    "dotted-key-too-long": (lambda path: path.write_text("[tool.autofix]\nx" + ".a" * 20_000 + " = 1\n"),
                            "2:1: error: a dotted key or table name of more than 64 parts"),
}


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/urandom"), reason="POSIX file kinds")
@pytest.mark.parametrize("name", ["autofix.toml", "pyproject.toml"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_configuration_file_that_cannot_be_used_stops_the_run(tmp_path, kind, name):
    """Through the command line, in a child process: the timeout only keeps a regression from hanging."""
    (tmp_path / "autofix.toml").write_text("")  # above: must not be used instead
    project_dir = tmp_path / "p"
    project_dir.mkdir()
    make, error = KINDS[kind]
    make(project_dir / name)
    (project_dir / "x.yaml").write_text("model-path: m\n")
    done = subprocess.run([sys.executable, "-m", "autofix", "x.yaml"], cwd=project_dir, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"{name}:{error}"), done.stderr


@pytest.mark.parametrize("text, offset", [
    ("a" + ".b" * 64 + " = 1\n", 0),
    ("a" + ".b" * 63 + " = 1\n", None),
    ("x = 1\n[t" + " . 'b'" * 64 + "]\n", 7),  # a table name, quoted parts, spaces around the dots
    ("x = {y" + '."b"' * 64 + " = 1}\n", 5),  # in an inline table
    ("v = [" + ", ".join(['"a.b"'] * 100) + "]\n", None),  # dots in strings
    ("v = '" + "a." * 100 + "'\n", None),
    ("v = [" + ", ".join(["1.5"] * 100) + "]\n", None),
])
def test_long_dotted_keys_are_found(text, offset):
    assert toml_positions.long_key(text, 64) == offset


def test_the_deepest_nest_is_found_past_strings_and_comments():
    text = 'a = "[[[[" # [[[[\nb = [{c = [1, \'[\'], d = """\n[[""" }, [2]]\n'
    assert toml_positions.deepest(text) == (text.index("[{"), 3)
    assert toml_positions.deepest("x = 1\n") == (0, 0)


def test_config_error_is_an_input_error(tmp_path):
    build(tmp_path, {"autofix.toml": "gpu = 1\n"})
    with pytest.raises(InputError) as caught:  # the CLI's exit 2
        Resolver(cwd=str(tmp_path)).settings("x.yaml")
    assert (caught.value.path, caught.value.line, caught.value.col) == ("autofix.toml", 1, 7)


# --- every key: a good value, a value of the wrong type, a value autofix cannot use --------------------------


@dataclass(frozen=True)
class KeyCase:
    id: str
    toml: str  # written after a comment line, so the key is on line 2
    value: object = None  # the stored value (good cases)
    error: str | None = None  # "line:col: message"


def key_case(id, toml, value=None, error=None):
    return KeyCase(id, toml, value, error)


SELECTOR_KEYS = ("select", "extend-select", "ignore", "fixable", "unfixable", "extend-safe-fixes",
                 "extend-unsafe-fixes")
KEY_CASES = [
    key_case("target-version", 'target-version = "0.5.23"', "0.5.23"),
    key_case("target-version-type", "target-version = 0.5",
             error="2:18: 'target-version' must be a string, not a float"),
    key_case("target-version-unknown", 'target-version = "0.4.0"',
             error="2:18: 'target-version': no argument table for SGLang 0.4.0; one of: "),
    key_case("gpu", 'gpu = "8xh200"', "8xh200"),
    key_case("gpu-type", "gpu = 8", error="2:7: 'gpu' must be a string, not an integer"),
    key_case("gpu-unknown", 'gpu = "tpu"', error="2:7: 'gpu': unknown GPU 'tpu'"),
    key_case("gpus-per-node", "gpus-per-node = 8", 8),
    key_case("gpus-per-node-type", 'gpus-per-node = "8"',
             error="2:17: 'gpus-per-node' must be an integer, not a string"),
    key_case("gpus-per-node-bool", "gpus-per-node = true",
             error="2:17: 'gpus-per-node' must be an integer, not a boolean"),
    key_case("gpus-per-node-zero", "gpus-per-node = 0", error="2:17: 'gpus-per-node': must be at least 1, not 0"),
    key_case("gpu-count-disagrees", 'gpu = "8xh200"\ngpus-per-node = 4',
             error="3:17: 'gpus-per-node' is 4, but gpu = '8xh200' says 8 GPUs per node"),
    *(key_case(k, f'{k} = ["EP", "A2A005", "ep-dispatch-needs-a2a", "ALL"]',
               ("EP", "A2A005", "ep-dispatch-needs-a2a", "ALL")) for k in SELECTOR_KEYS),
    *(key_case(f"{k}-type", f'{k} = "EP"', error=f"2:{len(k) + 4}: {k!r} must be a list of strings, not a string")
      for k in SELECTOR_KEYS),
    *(key_case(f"{k}-item-type", f'{k} = ["EP", 3]',
               error=f"2:{len(k) + 11}: {k!r} must be a list of strings, but item 2 is an integer")
      for k in SELECTOR_KEYS),
    *(key_case(f"{k}-unknown", f'{k} = ["EP",\n  "EPX"]', error=f"3:3: {k!r}: 'EPX' names no rule")
      for k in SELECTOR_KEYS),
    key_case("selector-suggestion", 'select = ["ep-dispatch-need-a2a"]',
             error="2:11: 'select': 'ep-dispatch-need-a2a' names no rule (a code such as EP003, a prefix such as EP, a "
                   "rule name, or ALL; see `autofix rules`) (did you mean 'ep-dispatch-needs-a2a'?)"),
    key_case("per-file-ignores", '[per-file-ignores]\n"tests/*.yaml" = ["EP"]\n"!src/**" = ["ALL"]',
             (("tests/*.yaml", ("EP",)), ("!src/**", ("ALL",)))),
    key_case("per-file-ignores-inline", 'per-file-ignores = { "*.sh" = ["EP003"] }', (("*.sh", ("EP003",)),)),
    key_case("per-file-ignores-type", 'per-file-ignores = ["EP"]',
             error="2:20: 'per-file-ignores' must be a table of glob = [selectors], not a list"),
    key_case("per-file-ignores-entry-type", '[per-file-ignores]\n"a/*" = "EP"',
             error="3:9: 'per-file-ignores' must be a table of glob = [selectors], but 'a/*' is a string"),
    key_case("per-file-ignores-item-type", 'per-file-ignores = { "a/*" = ["EP", 1] }',
             error="2:37: 'per-file-ignores' must be a table of glob = [selectors], but item 2 of 'a/*' is an integer"),
    key_case("per-file-ignores-unknown", '[per-file-ignores]\n"a/*" = ["EP", "NOPE1"]',
             error="3:16: 'per-file-ignores': 'NOPE1' names no rule"),
    key_case("per-file-ignores-empty-glob", '[per-file-ignores]\n"" = ["EP"]',
             error="3:1: 'per-file-ignores': '' is not a glob (empty)"),
    key_case("exclude", 'exclude = ["build", "gen/**"]', ("build", "gen/**")),
    key_case("exclude-type", 'exclude = "build"', error="2:11: 'exclude' must be a list of strings, not a string"),
    key_case("exclude-negated", 'exclude = ["!keep"]',
             error="2:12: 'exclude': '!keep': '!' (negation) is only read in per-file-ignores"),
    key_case("extend-exclude", 'extend-exclude = ["*.gen.yaml"]', ("*.gen.yaml",)),
    key_case("extend-exclude-empty", 'extend-exclude = ["ok", "/"]',
             error="2:25: 'extend-exclude': '/' is not a glob (empty)"),
    *(key_case(k, f"{k} = true", True) for k in ("force-exclude", "unsafe-fixes", "show-fixes")),
    *(key_case(f"{k}-type", f'{k} = "yes"', error=f"2:{len(k) + 4}: {k!r} must be a boolean, not a string")
      for k in ("force-exclude", "unsafe-fixes", "show-fixes")),
    key_case("output-format", 'output-format = "json-lines"', "json-lines"),
    key_case("output-format-type", "output-format = []", error="2:17: 'output-format' must be a string, not a list"),
    key_case("output-format-unknown", 'output-format = "jsonl"',
             error="2:17: 'output-format': unknown output format 'jsonl'; one of: full, concise, json, json-lines, "
                   "sarif, github, rdjson, gitlab (did you mean 'json'?)"),
    key_case("unknown-key", 'selct = ["EP"]', error="2:1: unknown key 'selct' (did you mean 'select'?)"),
    key_case("snake-case-key", 'extend_select = ["EP"]',
             error="2:1: unknown key 'extend_select' (did you mean 'extend-select'? keys are kebab-case)"),
    key_case("unknown-key-no-suggestion", "line-length = 88", error="2:1: unknown key 'line-length'"),
    key_case("unknown-table", "[lint]\nselect = []", error="2:1: unknown key 'lint'"),
    key_case("unknown-dotted-key", "lint.select = []", error="2:1: unknown key 'lint'"),
    key_case("datetime", "gpu = 1979-05-27T07:32:00Z", error="2:7: 'gpu' must be a string, not a datetime"),
]


def key_name(case: KeyCase) -> str:
    return re.match(r"\[?([\w-]+)", case.toml).group(1)


def test_key_cases_cover_every_key():
    covered = {key_name(c) for c in KEY_CASES}
    assert {k.name for k in KEYS} <= covered


@pytest.mark.parametrize("case", KEY_CASES, ids=[c.id for c in KEY_CASES])
def test_key(case, tmp_path):
    build(tmp_path, {"autofix.toml": f"# project settings\n{case.toml}\n"})
    if case.error is None:
        config = reading.load(str(tmp_path / "autofix.toml"), shown="autofix.toml")
        name = key_name(case)
        assert config.values[name] == case.value
        assert Resolver(cwd=str(tmp_path)).settings("x.yaml").values[name] is not None
        return
    with pytest.raises(ConfigError) as caught:
        reading.load(str(tmp_path / "autofix.toml"), shown="autofix.toml")
    position, message = case.error.split(" ", 1)
    assert str(caught.value).startswith(f"autofix.toml:{position} error: {message}")


# --- positions: pyproject.toml forms, invalid TOML ------------------------------------------------------------


POSITIONS = [
    ("pyproject-unknown-key", "pyproject.toml",
     PYPROJECT_WITHOUT + '\n[tool.black]\nline-length = 88\n\n# ours\n\n\n[tool.autofix]\nselect = ["EP"]\n'
     'selct = ["A"]\n',
     "pyproject.toml:12:1: error: [tool.autofix] unknown key 'selct' (did you mean 'select'?)"),
    ("pyproject-type", "pyproject.toml", '[tool.autofix]\ngpu = "h200"\nselect = "EP"\n',
     "pyproject.toml:3:10: error: [tool.autofix] 'select' must be a list of strings, not a string"),
    ("autofix-toml-type", "autofix.toml", '# ours\n\nselect = "EP"\n',
     "autofix.toml:3:10: error: 'select' must be a list of strings, not a string"),
    ("pyproject-inline", "pyproject.toml", '[tool]\nautofix = { select = ["EP"], ignore = "X" }\n',
     "pyproject.toml:2:39: error: [tool.autofix] 'ignore' must be a list of strings, not a string"),
    ("pyproject-dotted", "pyproject.toml", '[tool]\nname = 1\nautofix.gpu = "tpu"\n',
     "pyproject.toml:3:15: error: [tool.autofix] 'gpu': unknown GPU 'tpu'"),
    ("pyproject-dotted-top", "pyproject.toml", 'tool.autofix.show-fixes = 1\n',
     "pyproject.toml:1:27: error: [tool.autofix] 'show-fixes' must be a boolean, not an integer"),
    ("pyproject-quoted-key", "pyproject.toml", '[tool."autofix"]\n"selct" = []\n',
     "pyproject.toml:2:1: error: [tool.autofix] unknown key 'selct'"),
    ("pyproject-subtable", "pyproject.toml", '[tool.autofix]\n\n[tool.autofix.per-file-ignores]\n"a/*" = ["NOPE1"]\n',
     "pyproject.toml:4:10: error: [tool.autofix] 'per-file-ignores': 'NOPE1' names no rule"),
    ("pyproject-subtable-wrong-key", "pyproject.toml", '[tool.autofix]\nx = 1\n[tool.autofix.select]\n',
     "pyproject.toml:2:1: error: [tool.autofix] unknown key 'x'"),
    ("pyproject-table-as-list", "pyproject.toml", '[tool.autofix]\n[tool.autofix.select]\na = 1\n',
     "pyproject.toml:2:1: error: [tool.autofix] 'select' must be a list of strings, not a table"),
    ("pyproject-not-a-table", "pyproject.toml", '[tool]\nautofix = 3\n',
     "pyproject.toml:2:11: error: [tool.autofix] must be a table, not an integer"),
    ("pyproject-array-of-tables", "pyproject.toml", '[[tool.autofix]]\nselect = []\n',
     "pyproject.toml:1:1: error: [tool.autofix] must be a table, not a list"),
    ("multiline-strings-before", "autofix.toml",
     'exclude = [\n  """a\nselect = 1""",  # not a key\n  \'\'\'b\n\'\'\',\n]\nselect = "EP"\n',
     "autofix.toml:7:10: error: 'select' must be a list of strings, not a string"),
    ("crlf", "autofix.toml", "# c\r\n\r\nselect = 'EP'\r\n",
     "autofix.toml:3:10: error: 'select' must be a list of strings, not a string"),
    ("bom", "autofix.toml", "\ufeffselect = 'EP'\n",
     "autofix.toml:1:10: error: 'select' must be a list of strings, not a string"),
    ("toml-error", "autofix.toml", 'select = ["EP"]\ngpu = h200\n',
     "autofix.toml:2:7: error: invalid TOML: Invalid value"),
    ("toml-error-end", "autofix.toml", 'select = ["EP",\n',
     "autofix.toml:2:1: error: invalid TOML: Invalid value"),
    ("toml-duplicate-key", "autofix.toml", 'gpu = "h200"\ngpu = "h100"\n',
     "autofix.toml:2:13: error: invalid TOML: Cannot overwrite a value"),
    ("not-utf8", "autofix.toml", None, "autofix.toml:1:12: error: not UTF-8 text (byte 0xff)"),
]


@pytest.mark.parametrize("name, text, error", [p[1:] for p in POSITIONS], ids=[p[0] for p in POSITIONS])
def test_error_position(name, text, error, tmp_path):
    path = tmp_path / name
    if text is None:
        path.write_bytes(b'select = ["\xff"]\n')
    else:
        path.write_bytes(text.encode("utf-8"))
    with pytest.raises(ConfigError) as caught:
        Resolver(cwd=str(tmp_path)).settings("x.yaml")
    assert str(caught.value).startswith(error)


@pytest.mark.parametrize("text", [
    "a = [}", "a = [1,,]", "[a", "a = {", "= 1", "a = '''x", 'a = "\\', "a = [[[[", "", "\ufeff", "a = [ # c\n",
    '"""', "[[a]]\n[[a]]\nb = [{c = [1, {d = 2}]}]\n",
], ids=repr)
def test_locate_never_raises(text):
    line, col = locate(text, ("a", "b", 0), value=True, table=())
    assert line >= 1 and col >= 1


# strings whose text looks like TOML syntax, each written in one of the four string forms
TRICKY = st.sampled_from(["EP", "a = 1", "[tool.autofix]", "# not a comment", 'x\\"y', "'", "{a, b}", "]", ""])
SPACE = st.sampled_from(["", " ", "  ", "\t"])
GAP = st.sampled_from([",", ", ", ",\n  ", ", # c, ] = [\n ", " ,"])  # between two items of an array


def toml_string(form: str, text: str) -> str:
    if form == "literal" and "'" not in text:
        return f"'{text}'"
    if form == "multi-literal" and "'" not in text:
        return f"'''{text}'''"
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"""{escaped}"""' if form == "multi" else f'"{escaped}"'


@st.composite
def toml_documents(draw):
    """A TOML document of string arrays under plain, quoted and dotted keys, in inline tables and under table
    headers, with the offset of each array and of each of its items (what ``scan`` must find)."""
    text, offsets, table = "", {}, ()
    for n in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            table = (f"t{n}",)
            text += f"\n[{draw(SPACE)}t{n}{draw(SPACE)}]{draw(SPACE)}# header\n"
        key = draw(st.sampled_from([(f"k{n}",), (f"a{n}", f"b{n}"), (f"q.{n}",)]))
        inline = draw(st.booleans())
        text += ".".join(f'"{k}"' if "." in k else k for k in key) + f"{draw(SPACE)}={draw(SPACE)}"
        text += "{ v = " if inline else ""
        path = (*table, *key, *(("v",) if inline else ()))
        offsets[path] = len(text)
        text += "[" + draw(st.sampled_from(["", " ", "\n"]))
        for i, item in enumerate(draw(st.lists(TRICKY, max_size=4))):
            text += draw(GAP) if i else ""
            offsets[(*path, i)] = len(text)
            text += toml_string(draw(st.sampled_from(["basic", "literal", "multi", "multi-literal"])), item)
        text += "]" + (" }" if inline else "") + draw(st.sampled_from(["\n", "  # done\n", "\r\n"]))
    return text, offsets


@given(toml_documents())
def test_scan_finds_every_value(document):
    text, offsets = document
    tomllib.loads(text)  # what the generator writes is TOML
    values = scan(text)[1]
    for path, offset in offsets.items():
        assert values.get(path) == offset, (path, text)


# --- globs -----------------------------------------------------------------------------------------------------


GLOBS = [
    ("*.sh", "x.sh", True), ("*.sh", "a/b/x.sh", True), ("*.sh", "x.shx", False),
    ("venv", "venv/x.yaml", True), ("venv", "a/venv/b/x.yaml", True), ("venv", "venvs/x.yaml", False),
    ("a/*.yaml", "a/x.yaml", True), ("a/*.yaml", "a/b/x.yaml", False), ("a/*.yaml", "b/a/x.yaml", False),
    ("a/**/x.yaml", "a/x.yaml", True), ("a/**/x.yaml", "a/b/c/x.yaml", True), ("**/x.yaml", "b/x.yaml", True),
    ("**/x.yaml", "x.yaml", True), ("a/**", "a/b/c.yaml", True), ("a/**", "b/a/c.yaml", False),
    ("/a", "a/c.yaml", True), ("/a", "x/a/c.yaml", False), ("./a", "x/a/c.yaml", False), ("./a", "a/c.yaml", True),
    ("b/", "a/b/c.yaml", True), ("c.yaml/", "a/c.yaml", False), ("{a,b}/*.y", "b/x.y", True),
    ("{a,b}/*.y", "c/x.y", False), ("[!x]*.y", "a.y", True), ("[!x]*.y", "x.y", False), ("x?.y", "x1.y", True),
    ("a\\*", "a*", True), ("a\\*", "ab", False), ("A.yaml", "a.yaml", False), ("a/*/c", "a/b/d/c", False),
    ("a", "a", True), ("tests", "tests.yaml", False),
]


@pytest.mark.parametrize("pattern, path, hit", GLOBS, ids=[f"{p}~{f}" for p, f, _ in GLOBS])
def test_glob(pattern, path, hit):
    assert globs.matches(globs.compile_glob(pattern), path, path.rsplit("/", 1)[-1]) is hit


def test_glob_outside_the_root_matches_the_name_only():
    assert globs.matches(globs.compile_glob("*.sh"), None, "x.sh")
    assert not globs.matches(globs.compile_glob("a/*.sh"), None, "x.sh")


PER_FILE = [  # (per-file-ignores of a/autofix.toml, checked path relative to tmp, codes still reported)
    ('"*.sh" = ["EP"]', "a/b/run.sh", {"EP": False, "DKR001": True}),
    ('"*.sh" = ["EP"]', "a/b/c.yaml", {"EP": True}),
    ('"b/*.yaml" = ["EP003"]', "a/b/c.yaml", {"EP003": False, "EP004": True}),
    ('"b/*.yaml" = ["EP003"]', "a/c/b/c.yaml", {"EP003": True}),
    ('"b" = ["ALL"]', "a/b/c/d.yaml", {"EP003": False, "DKR001": False}),
    ('"!b/**" = ["EP"]', "a/c.yaml", {"EP": False}),
    ('"!b/**" = ["EP"]', "a/b/c.yaml", {"EP": True}),
    ('"*.yaml" = ["EP"]\n"c.*" = ["DKR"]', "a/c.yaml", {"EP": False, "DKR001": False, "A2A005": True}),
    ('"*.yaml" = ["EP"]', "x.yaml", {"EP": True}),  # outside a/: a's file does not apply
]


@pytest.mark.parametrize("table, path, reports", PER_FILE, ids=[f"{t}~{p}" for t, p, _ in PER_FILE])
@pytest.mark.parametrize("cwd", [".", "a/b"])
def test_per_file_ignores(table, path, reports, cwd, tmp_path):
    build(tmp_path, {"a/autofix.toml": f"[per-file-ignores]\n{table}\n", "a/b/": ""})
    resolver, checked = Resolver(cwd=str(tmp_path / cwd)), os.path.relpath(tmp_path / path, tmp_path / cwd)
    settings = resolver.settings(checked)
    for code, reported in reports.items():
        codes = ("EP003", "EP004") if code == "EP" else (code,)
        assert all(settings.policy.reports(c) is reported for c in codes), code
    # what a run checks the file with, found without its settings
    assert resolver.checks(checked) == (settings.policy, settings.unsafe_fixes, settings.target_version, settings.facts)


def test_per_file_ignores_beat_an_exact_select(tmp_path):
    build(tmp_path, {"autofix.toml": 'select = ["EP003"]\n[per-file-ignores]\n"*.sh" = ["EP"]\n'})
    resolver = Resolver(cwd=str(tmp_path))
    assert resolver.settings("x.yaml").policy.reports("EP003")
    assert not resolver.settings("x.sh").policy.reports("EP003")


def test_per_file_ignores_for_stdin_follow_its_filename(tmp_path):
    build(tmp_path, {"autofix.toml": '[per-file-ignores]\n"*.sh" = ["EP"]\n'})
    assert not Resolver(cwd=str(tmp_path), stdin_filename="run.sh").settings("-").policy.reports("EP003")
    assert not Resolver(cwd=str(tmp_path), stdin_filename="run.sh").checks("-")[0].reports("EP003")
    assert Resolver(cwd=str(tmp_path)).settings("-").policy.reports("EP003")


def test_policy_is_built_once_per_combination(tmp_path):
    build(tmp_path, {"autofix.toml": 'ignore = ["EP004"]\n[per-file-ignores]\n"*.sh" = ["EP"]\n'})
    resolver = Resolver(cwd=str(tmp_path))
    yaml = [resolver.settings(f"d{i}/x.yaml").policy for i in range(5)]
    shell = [resolver.settings(f"d{i}/x.sh").policy for i in range(5)]
    assert all(p is yaml[0] for p in yaml) and all(p is shell[0] for p in shell) and yaml[0] is not shell[0]


# --- exclude ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Excl:
    id: str
    tree: dict[str, str]
    path: str  # relative to cwd
    excluded: bool
    cwd: str = "."
    overrides: dict = field(default_factory=dict)


EXCLUDE = [
    Excl("default-venv", {}, "venv", True),
    Excl("default-inside-venv", {}, "a/.venv/x.yaml", True),
    Excl("default-git", {}, "a/.git", True),
    Excl("default-plain", {}, "a/x.yaml", False),
    Excl("exclude-replaces-default", {"autofix.toml": 'exclude = ["build"]\n'}, "venv/x.yaml", False),
    Excl("exclude-replaced", {"autofix.toml": 'exclude = ["build"]\n'}, "a/build/x.yaml", True),
    Excl("extend-exclude-adds", {"autofix.toml": 'extend-exclude = ["build"]\n'}, "venv/x.yaml", True),
    Excl("extend-exclude-added", {"autofix.toml": 'extend-exclude = ["build"]\n'}, "build", True),
    Excl("anchored", {"autofix.toml": 'extend-exclude = ["/gen", "deploy/*.yaml"]\n'}, "gen/x.yaml", True),
    Excl("anchored-not-deeper", {"autofix.toml": 'extend-exclude = ["/gen"]\n'}, "a/gen/x.yaml", False),
    Excl("anchored-file", {"autofix.toml": 'extend-exclude = ["deploy/*.yaml"]\n'}, "deploy/x.yaml", True),
    Excl("anchored-relative-to-config", {"a/autofix.toml": 'extend-exclude = ["deploy/*.yaml"]\n'},
         "a/deploy/x.yaml", True),
    Excl("anchored-relative-to-config-from-below", {"a/autofix.toml": 'extend-exclude = ["deploy/*.yaml"]\n'},
         "x.yaml", True, cwd="a/deploy"),
    Excl("dir-only-pattern-file", {"autofix.toml": 'extend-exclude = ["x.yaml/"]\n'}, "x.yaml", False),
    Excl("dir-only-pattern-dir", {"autofix.toml": 'extend-exclude = ["gen/"]\n', "a/gen/": ""}, "a/gen", True),
    Excl("nested-config-dir-judged-by-parent", {"autofix.toml": 'extend-exclude = ["a"]\n', "a/autofix.toml": ""},
         "a/x.yaml", True),
    Excl("nested-config-own-rules", {"a/autofix.toml": 'extend-exclude = ["*.sh"]\n'}, "a/b/x.sh", True),
    Excl("nested-config-not-above", {"a/autofix.toml": 'extend-exclude = ["*.sh"]\n'}, "x.sh", False),
    Excl("nothing-above-the-root", {"venv/proj/autofix.toml": ""}, "x.yaml", False, cwd="venv/proj"),
    Excl("nothing-above-the-root-outside-cwd", {"venv/proj/autofix.toml": "", "b/": ""}, "../venv/proj/x.yaml",
         False, cwd="b"),
    Excl("below-cwd-judged", {"venv/proj/autofix.toml": ""}, "venv/proj/x.yaml", True),
    Excl("nothing-above-cwd", {}, "x.yaml", False, cwd="venv/proj"),
    Excl("root-itself", {"autofix.toml": 'exclude = ["*"]\n'}, ".", False),
    Excl("cli-exclude", {"autofix.toml": 'exclude = ["build"]\n'}, "venv/x.yaml", False,
         overrides={"exclude": ["other"]}),
    Excl("cli-exclude-replaces", {"autofix.toml": 'exclude = ["build"]\n'}, "build/x.yaml", False,
         overrides={"exclude": ["other"]}),
    Excl("cli-extend-exclude", {"a/autofix.toml": 'extend-exclude = ["gen"]\n'}, "a/b/x.yaml", True,
         overrides={"extend_exclude": ["a/b"]}),
    Excl("cli-extend-exclude-keeps-file", {"a/autofix.toml": 'extend-exclude = ["gen"]\n'}, "a/gen/x.yaml", True,
         overrides={"extend_exclude": ["a/b"]}),
    Excl("isolated-defaults", {"autofix.toml": 'exclude = []\n'}, "venv/x.yaml", True, overrides={"isolated": True}),
]


@pytest.mark.parametrize("case", EXCLUDE, ids=[c.id for c in EXCLUDE])
def test_exclude(case, tmp_path):
    build(tmp_path, case.tree)
    overrides = dict(case.overrides)
    isolated = overrides.pop("isolated", False)
    resolver = Resolver(overrides, cwd=str(tmp_path / case.cwd), isolated=isolated)
    assert resolver.excluded(case.path) is case.excluded
    if case.path != ".":
        assert resolver.settings(case.path).excluded is case.excluded
    if not (tmp_path / case.cwd / case.path).is_dir():  # what a walk asks of each file it finds
        assert resolver.skips(case.path, named=False) is case.excluded


@pytest.mark.parametrize("file, cli, named, skipped", [
    ("", None, False, True), ("", None, True, False), ("force-exclude = true\n", None, True, True),
    ("", True, True, True), ("force-exclude = true\n", False, True, False),
], ids=["walked", "named", "named-forced-by-file", "named-forced-by-cli", "cli-turns-it-off"])
def test_force_exclude(file, cli, named, skipped, tmp_path):
    build(tmp_path, {"autofix.toml": file + 'extend-exclude = ["gen"]\n'})
    resolver = Resolver({"force_exclude": cli}, cwd=str(tmp_path))
    settings = resolver.settings("gen/x.yaml")
    assert settings.excluded and settings.skips(named) is skipped
    assert resolver.skips("gen/x.yaml", named) is skipped


def test_excluded_directories_are_remembered(tmp_path, monkeypatch):
    build(tmp_path, {"autofix.toml": 'extend-exclude = ["gen/"]\n', "a/gen/": ""})
    resolver = Resolver(cwd=str(tmp_path))
    asked = []
    isdir = os.path.isdir
    monkeypatch.setattr(os.path, "isdir", lambda p: asked.append(p) or isdir(p))
    for i in range(50):
        assert resolver.excluded(f"a/gen/f{i}.yaml")
        assert not resolver.excluded(f"a/f{i}.yaml")
    assert asked == []  # the parents are known directories, and a file's name is never a dir-only match's


# --- the command line over the file ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Over:
    id: str
    file: str
    overrides: dict
    reports: dict = field(default_factory=dict)  # code -> reported
    unfixable: tuple[str, ...] = ()
    fixable: tuple[str, ...] = ()  # codes that must not be unfixable
    safe: tuple[str, ...] = ()
    unsafe: tuple[str, ...] = ()
    values: dict = field(default_factory=dict)  # key -> effective value


OVERRIDES = [
    Over("defaults", "", {}, {"EP003": True, "DKR001": True},
         values={"target-version": "0.5.23", "output-format": "full", "unsafe-fixes": False, "show-fixes": False,
                 "force-exclude": False, "gpu": None, "gpus-per-node": None}),
    Over("file-select", 'select = ["EP"]\n', {}, {"EP003": True, "DKR001": False}),
    Over("cli-select-replaces", 'select = ["EP"]\n', {"select": ["DKR"]}, {"EP003": False, "DKR001": True}),
    Over("cli-select-drops-file-extend-select", 'select = ["EP"]\nextend-select = ["A2A"]\n', {"select": ["DKR"]},
         {"A2A005": False, "EP003": False, "DKR001": True}),
    Over("cli-extend-select-adds", 'select = ["EP"]\n', {"extend_select": ["DKR"]},
         {"EP003": True, "DKR001": True, "A2A005": False}),
    Over("both-extend-selects", 'select = ["EP"]\nextend-select = ["A2A"]\n', {"extend-select": ["DKR"]},
         {"EP003": True, "DKR001": True, "A2A005": True, "CFG001": False}),
    Over("cli-ignore-adds", 'ignore = ["EP003"]\n', {"ignore": ["EP004"]},
         {"EP003": False, "EP004": False, "DKR001": True}),
    Over("file-ignore-under-cli-select", 'ignore = ["EP"]\n', {"select": ["EP003", "EP004"]},
         {"EP003": True, "EP004": True, "DKR001": False}),
    Over("file-ignore-exact-under-cli-select", 'ignore = ["EP003"]\n', {"select": ["EP"]},
         {"EP003": False, "EP004": True}),
    Over("cli-fixable-replaces", 'fixable = ["EP"]\n', {"fixable": ["DKR"]}, unfixable=("EP003",),
         fixable=("DKR001",)),
    Over("file-fixable", 'fixable = ["EP"]\n', {}, unfixable=("DKR001",), fixable=("EP003",)),
    Over("cli-unfixable-adds", 'unfixable = ["EP003"]\n', {"unfixable": ["EP004"]}, unfixable=("EP003", "EP004"),
         fixable=("DKR001",)),
    Over("cli-extend-safe-fixes-adds", 'extend-safe-fixes = ["EP003"]\n', {"extend_safe_fixes": ["EP004"]},
         safe=("EP003", "EP004")),
    Over("cli-extend-unsafe-fixes-adds", 'extend-unsafe-fixes = ["EP003"]\n', {"extend_unsafe_fixes": ["DKR"]},
         unsafe=("EP003", "DKR001")),
    Over("cli-target-version", 'target-version = "0.5.23"\n', {"target_version": "0.5.23"},
         values={"target-version": "0.5.23"}),
    Over("file-booleans", "unsafe-fixes = true\nshow-fixes = true\nforce-exclude = true\n", {},
         values={"unsafe-fixes": True, "show-fixes": True, "force-exclude": True}),
    Over("cli-booleans", "unsafe-fixes = true\nshow-fixes = true\nforce-exclude = true\n",
         {"unsafe_fixes": False, "show_fixes": False, "force_exclude": False},
         values={"unsafe-fixes": False, "show-fixes": False, "force-exclude": False}),
    Over("unset-is-none", "unsafe-fixes = true\n", {"unsafe_fixes": None}, values={"unsafe-fixes": True}),
    Over("cli-output-format", 'output-format = "json"\n', {"output_format": "sarif"},
         values={"output-format": "sarif"}),
    Over("file-gpu", 'gpu = "8xh200"\n', {}, values={"gpu": "8xh200", "gpus-per-node": 8}),
    Over("cli-count-over-file-gpu", 'gpu = "8xh200"\n', {"gpus_per_node": 4},
         values={"gpu": "8xh200", "gpus-per-node": 4}),
    Over("cli-gpu-with-count-over-file-count", 'gpu = "h100"\ngpus-per-node = 8\n', {"gpu": "4xb200"},
         values={"gpu": "4xb200", "gpus-per-node": 4}),
    Over("cli-gpu-keeps-file-count", 'gpu = "h100"\ngpus-per-node = 8\n', {"gpu": "h200"},
         values={"gpu": "h200", "gpus-per-node": 8}),
    Over("cli-exclude-replaces", 'exclude = ["a"]\nextend-exclude = ["b"]\n', {"exclude": ["c"]},
         values={"exclude": ("c",), "extend-exclude": ("b",)}),
    Over("cli-extend-exclude-adds", 'extend-exclude = ["b"]\n', {"extend_exclude": ["c"]},
         values={"extend-exclude": ("b", "c")}),
]


@pytest.mark.parametrize("case", OVERRIDES, ids=[c.id for c in OVERRIDES])
def test_command_line_over_file(case, tmp_path):
    build(tmp_path, {"autofix.toml": case.file})
    settings = Resolver(case.overrides, cwd=str(tmp_path)).settings("x.yaml")
    policy = settings.policy
    for code, reported in case.reports.items():
        assert policy.reports(code) is reported, code
    assert set(case.unfixable) <= policy.unfixable and not set(case.fixable) & policy.unfixable
    assert set(case.safe) <= policy.safe and set(case.unsafe) <= policy.unsafe
    for key, value in case.values.items():
        assert settings.values[key] == value, key
    assert settings.target_version == settings.values["target-version"]
    assert settings.unsafe_fixes is settings.values["unsafe-fixes"]


def test_facts_from_file_and_command_line(tmp_path):
    build(tmp_path, {"autofix.toml": 'gpu = "8xh200"\n'})
    assert Resolver(cwd=str(tmp_path)).settings("x.yaml").facts.get("gpu.name") == "NVIDIA H200"
    facts = Resolver({"gpus_per_node": 4}, cwd=str(tmp_path)).settings("x.yaml").facts
    assert (facts.get("gpu.name"), facts.get("gpu.count")) == ("NVIDIA H200", 4)
    assert Resolver(cwd=str(tmp_path), isolated=True).settings("x.yaml").facts.known == {}


@pytest.mark.parametrize("overrides, param, message", [
    ({"select": ["EPX"]}, "--select", "--select: 'EPX' names no rule"),
    ({"ignore": "EP"}, "--ignore", "--ignore must be a list of strings, not a string"),
    ({"gpu": "tpu"}, "--gpu", "--gpu: unknown GPU 'tpu'"),
    ({"gpu": "8xh200", "gpus_per_node": 4}, "--gpus-per-node", "4, but --gpu 8xh200 says 8 GPUs per node"),
    ({"target_version": "0.1"}, "--target-version", "--target-version: no argument table for SGLang 0.1"),
    ({"output_format": "xml"}, "--output-format", "--output-format: unknown output format 'xml'"),
    ({"exclude": ["!x"]}, "--exclude", "--exclude: '!x': '!' (negation) is only read in per-file-ignores"),
], ids=["select", "type", "gpu", "gpu-count", "target-version", "output-format", "exclude"])
def test_command_line_errors(overrides, param, message, tmp_path):
    with pytest.raises(OptionError) as caught:
        Resolver(overrides, cwd=str(tmp_path))
    assert caught.value.param == param and str(caught.value).startswith(message)


def test_unknown_override_is_a_programming_error(tmp_path):
    with pytest.raises(ValueError, match="no configuration key 'selct'"):
        Resolver({"selct": ["EP"]}, cwd=str(tmp_path))


def test_command_line_globs_are_relative_to_cwd(tmp_path):
    build(tmp_path, {"a/autofix.toml": "", "a/b/": ""})
    resolver = Resolver({"per_file_ignores": {"b/*.yaml": ["EP"]}}, cwd=str(tmp_path / "a"))
    assert not resolver.settings("b/x.yaml").policy.reports("EP003")
    resolver = Resolver({"per_file_ignores": {"b/*.yaml": ["EP"]}}, cwd=str(tmp_path))
    assert resolver.settings("a/b/x.yaml").policy.reports("EP003")


def test_config_file_globs_are_relative_to_its_directory(tmp_path):
    build(tmp_path, {"cfg/ci.toml": '[per-file-ignores]\n"a/*.yaml" = ["EP"]\n'})
    resolver = Resolver(cwd=str(tmp_path), config_file="cfg/ci.toml")
    assert not resolver.settings("cfg/a/x.yaml").policy.reports("EP003")
    assert resolver.settings("a/x.yaml").policy.reports("EP003")


def test_run_settings_come_from_cwd(tmp_path):
    build(tmp_path, {"autofix.toml": 'output-format = "json"\n', "a/autofix.toml": 'output-format = "github"\n'})
    assert Resolver(cwd=str(tmp_path)).run_settings().output_format == "json"
    assert Resolver(cwd=str(tmp_path / "a")).run_settings().output_format == "github"


# --- the key table and its documentation ----------------------------------------------------------------------


def test_every_key_is_kebab_case_and_documented():
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert keys.render_keys() in doc, "docs/configuration.md's key table is out of date: paste render_keys()"
    for key in KEYS:
        assert key.name == key.name.lower() and "_" not in key.name and key.help.endswith(".")
        if key.default is not None and key.check is not None:
            key.check(key.default)  # a default is stored as a file's value is, and is one autofix can use


def test_settings_hold_every_key(tmp_path):
    assert set(Resolver(cwd=str(tmp_path)).settings("x.yaml").values) == {k.name for k in KEYS}
