"""What the README and docs/usage.md show is what autofix does."""

from __future__ import annotations

import os
import re
from pathlib import Path

from typer.testing import CliRunner

from autofix.cli.commands import app
from autofix.report import FORMATS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
USAGE = (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")


def run(*args, cwd: Path):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(app, list(args), prog_name="autofix")
    finally:
        os.chdir(old)


def test_the_readme_example_is_what_autofix_prints(tmp_path):
    block = re.search(r"```console\n\$ autofix config.yaml\n(.*?)\n\$ ", README, re.S).group(1)
    shown = block.splitlines()
    diff = shown[shown.index("--- a/config.yaml"):]
    (tmp_path / "config.yaml").write_text("".join(line[1:] + "\n" for line in diff[3:] if line[:1] in " -"))
    r = run("config.yaml", cwd=tmp_path)
    assert r.exit_code == 1
    assert r.stdout.splitlines() == shown


def test_the_readme_explain_example_names_its_rule(tmp_path):
    text = re.search(r'\$ autofix explain "(.*?)"', README).group(1)
    r = run("explain", text, cwd=tmp_path)
    assert r.exit_code == 0 and "RUN019" in r.stdout.splitlines()[0]


def test_usage_lists_every_output_format():
    table = re.search(r"\| format \| what it is for \|\n\|---\|---\|\n(.*?)\n\n", USAGE, re.S).group(1)
    assert [re.match(r"\| `([\w-]+)`", row).group(1) for row in table.splitlines()] == list(FORMATS)
