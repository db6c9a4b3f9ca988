"""``handle_gpu_memory_settings``: the chunk size by GPU memory, known only with ``--gpu``."""

from __future__ import annotations

import pytest

from autofix.common.diagnostics import UNKNOWN
from autofix.pipeline.facts import GPUS, NO_FACTS, Facts
from autofix.pipeline.run import resolve
from autofix.rules import SETTINGS
from autofix.rules.shared import chunked_prefill_size_for
from autofix.schema import load
from tests.rules.test_rules import explicit

SCHEMA = load()


def chunked_prefill_size(argv, facts) -> object:
    return resolve(explicit(argv), SCHEMA, SETTINGS, facts, fixes=False).view.value("chunked_prefill_size")


@pytest.mark.parametrize("gpu, size", [("a100", 8192), ("h100", 8192), ("h200", 8192), ("b200", 16384),
                                       ("gb200", 16384), ("mi300x", 16384), ("mi355x", 16384)])
def test_the_chunk_size_follows_the_gpu_memory(gpu, size):
    assert chunked_prefill_size([], Facts.for_gpu(gpu, 8)) == size


def test_without_gpu_the_chunk_size_is_unknown():
    assert chunked_prefill_size([], NO_FACTS) is UNKNOWN
    assert chunked_prefill_size(["--tp-size", "8"], Facts({"gpu.count": 8})) is UNKNOWN


@pytest.mark.parametrize("facts", [NO_FACTS, Facts.for_gpu("b200")], ids=["no-gpu", "b200"])
def test_a_written_chunk_size_is_kept_and_needs_no_gpu(facts):
    assert chunked_prefill_size(["--chunked-prefill-size", "1024"], facts) == 1024
    assert chunked_prefill_size(["--chunked-prefill-size", "-1"], facts) == -1


def test_a_model_free_launch_keeps_sglangs_none():
    # `--model-path dummy` returns before the model steps (pipeline.py:107): nothing is sized
    assert chunked_prefill_size(["--model-path", "dummy"], Facts.for_gpu("h200")) is None


@pytest.mark.parametrize("mib, size", [(16 * 1024, 2048), (20 * 1024 - 1, 2048), (20 * 1024, 4096),
                                       (48 * 1024, 4096), (60 * 1024, 8192), (90 * 1024, 8192),
                                       (160 * 1024 - 1, 8192), (160 * 1024, 16384)])
def test_the_buckets_are_sglangs(mib, size):
    assert chunked_prefill_size_for(mib) == size


def test_every_gpu_has_the_memory_fact_in_mib():
    for name, facts in GPUS.items():
        assert 60 * 1024 < facts["gpu.memory_mib"] < 400 * 1024, name
