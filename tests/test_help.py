"""`-h`/`--help` on a launch: argparse prints the usage and exits; no server starts."""

from __future__ import annotations

import pytest

from autofix.adapters import argv as shell
from autofix.core.api import fix_source


@pytest.mark.parametrize("flags", ["--help", "-h", "--he", "--tp 8 --help --bogus", "--model-path m --hel"])
def test_a_launch_that_asks_for_help_starts_no_server(flags):
    """argparse prints the usage and exits at -h/--help (or a unique prefix): nothing to report."""
    text = f"python3 -m sglang.launch_server {flags}\n"
    result = fix_source(text, shell, path="serve.sh")
    assert result.diagnostics == () and result.output == text


def test_help_takes_part_in_prefix_matching():
    # --h abbreviates --help and --host alike: ambiguous, as argparse says
    codes = [d.code for d in fix_source("python3 -m sglang.launch_server --model-path m --h x\n", shell).diagnostics]
    assert codes == ["ARG002"]
