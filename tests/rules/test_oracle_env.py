"""The facts the tests give for the oracle's environment cover every variable a rule reads."""

from __future__ import annotations

import re
from pathlib import Path

import autofix.rules
from harness.rules.casekit import ORACLE_ENV


def test_every_environment_variable_a_rule_reads_has_the_oracles_value():
    root = Path(autofix.rules.__file__).parent
    read = {m for p in root.rglob("*.py") for m in re.findall(r'fact\("(env\.[A-Z0-9_]+)"\)', p.read_text())}
    assert read and read <= ORACLE_ENV.keys(), sorted(read - ORACLE_ENV.keys())
