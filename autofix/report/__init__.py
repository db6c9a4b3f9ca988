"""The output formats: results turned into text. Reporters return strings; the runner decides where they go.

``text`` holds the human formats (``full``, ``concise``) and the summary line (from ``tally``, the run's
counts); each machine format is a module with ``render(records, ctx) -> str`` (``records``:
``autofix.report.records``), imported only when a run asks for it.

May import: ``autofix.common``, ``autofix.core`` (``FixResult``), ``autofix.rules`` and
``autofix.explain.rule_docs`` (a rule's manual, for SARIF and the text report).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from autofix.report.tally import Tally, fixed_in
from autofix.report.text import colored_diff, diagnostic_line, fix_lines, statistics, summary

__all__ = ["FORMATS", "MACHINE", "Tally", "colored_diff", "diagnostic_line", "fix_lines", "fixed_in", "machine",
           "statistics", "summary"]

# --output-format values, the default first
FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "rdjson", "gitlab")
_MODULES = {"json": "json_format", "json-lines": "json_lines", "sarif": "sarif", "github": "github",
            "rdjson": "rdjson", "gitlab": "gitlab"}
MACHINE = frozenset(_MODULES)


def machine(name: str) -> ModuleType:
    """The renderer module of machine format ``name`` (one of ``MACHINE``); raises KeyError."""
    return importlib.import_module(f"autofix.report.{_MODULES[name]}")
