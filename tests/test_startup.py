"""Start-up stays lazy (issue 15): what a run does not need is not read. No timings here: bench/bench_cold.py."""

from __future__ import annotations

import subprocess
import sys

from autofix.schema import _others, load, others_of, versions


def test_load_is_one_table_per_version():
    # load() and load("0.5.23") once parsed the JSON twice (two cache keys)
    assert load() is load(load().version)


def test_others_of_reads_the_other_tables_only_when_used():
    schema = load()
    lazy = others_of(schema)
    assert tuple(lazy) == _others(schema.version)
    assert [s.version for s in lazy] == [v for v in versions() if v != schema.version]
    assert len(lazy) == len(versions()) - 1 and lazy[0] is _others(schema.version)[0]
    assert lazy == others_of(schema) and lazy == tuple(lazy) and hash(lazy) == hash(others_of(schema))


def _fresh(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_a_clean_config_reads_no_other_release(tmp_path):
    path = tmp_path / "clean.yaml"
    path.write_text("model-path: meta-llama/Llama-3.1-8B-Instruct\ntp-size: 2\n", encoding="utf-8")
    out = _fresh(f"""
import io
from autofix import schema
from autofix.cli import runner
runner.run([{str(path)!r}], runner.Mode.DIFF, out=io.StringIO(), err=io.StringIO())
print(schema._others.cache_info().currsize, schema._load.cache_info().currsize)
""")
    assert out == "0 1"


def test_an_option_of_another_release_still_reads_it(tmp_path):
    path = tmp_path / "old.yaml"
    path.write_text("model-path: m\ncuda-graph-max-bs: 8\n", encoding="utf-8")
    out = _fresh(f"""
import io
from autofix import schema
from autofix.cli import runner
o = io.StringIO()
runner.run([{str(path)!r}], runner.Mode.DIFF, out=o, err=io.StringIO())
print("VER001" in o.getvalue(), schema._others.cache_info().currsize)
""")
    assert out == "True 1"


def test_a_config_check_imports_only_what_it_needs(tmp_path):
    # a YAML config in a folder without a settings file: no TOML, no writing, no other format's reader, and no
    # command-line parser (autofix.cli.main runs a command line of paths itself)
    path = tmp_path / "clean.yaml"
    path.write_text("model-path: meta-llama/Llama-3.1-8B-Instruct\ntp-size: 2\n", encoding="utf-8")
    unwanted = ("typer", "click", "autofix.cli.commands", "traceback", "autofix.report.records", "pkgutil",
                "tomllib", "tempfile", "hashlib", "importlib.resources", "tree_sitter", "dockerfile",
                "autofix.adapters.argv", "autofix.adapters.dockerfile", "autofix.adapters.manifest",
                "autofix.adapters.srtslurm", "autofix.project.toml_positions", "autofix.report.sarif",
                "autofix.report.json_format", "autofix.report.github",
                "autofix.project.reading", "autofix.common.diffs", "difflib")
    out = subprocess.run([sys.executable, "-c", f"""
import gc, sys
from autofix.cli.main import main
sys.argv = ["autofix", {str(path)!r}]
try:
    main()
except SystemExit as exit:
    print(exit.code, [m for m in {unwanted!r} if m in sys.modules], gc.isenabled(), gc.get_freeze_count() > 0)
"""], capture_output=True, text=True, check=True, cwd=tmp_path).stdout.strip()
    # the collector is back on for the files' objects, and leaves out what the imports made (autofix.cli.main)
    assert out.splitlines()[-1] == "0 [] True True"
