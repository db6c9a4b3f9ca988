"""Shared test set-up: hypothesis profiles, the golden-update switch, and ``project`` (a run inside ``tmp_path``).

Property tests run derandomized with a fixed budget by default (CI and the
README's test command), so a test run cannot flake;
``HYPOTHESIS_PROFILE=thorough`` explores at random with a bigger budget.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=3000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", help="rewrite fixtures/*.out.* and *.txt from the current output")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """``tmp_path`` as the project a run is in: a repository root (``.git``) and the working directory, so
    the files a launch names beside its script are in it (``scope.Scope``), as they are for a user who runs
    autofix in the repository."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path
