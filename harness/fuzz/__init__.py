"""The fuzz target (``target``, ``paths``) and its inputs (``strategies``), run by tests/fuzz and scripts/fuzz.py."""
