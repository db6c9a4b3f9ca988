"""Deprecated options and values: SGLang 0.5.23 still takes them, with a warning, and maps them."""

from __future__ import annotations

RULES = ()
