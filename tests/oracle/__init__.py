"""Tests against SGLang 0.5.23's own argument checks, run through the oracle (``harness/oracle/oracle.py``)."""

from __future__ import annotations

import pytest

from harness.oracle.oracle import SKIP_REASON, available

# A test that compares with SGLang: skipped, saying why and how to set the oracle up, where it is not set up.
requires_oracle = pytest.mark.skipif(not available(), reason=SKIP_REASON)
