"""srt-slurm recipes read as srtctl launches them (autofix/formats/srtslurm.py)."""

from __future__ import annotations

from autofix.api import fix_source
from autofix.formats import srtslurm
from autofix.schema import load

SCHEMA = load()


def recipe(body: str, role: str = "decode") -> str:
    lines = "".join(f"      {line}\n" for line in body.splitlines())
    return f"name: x\nbackend:\n  type: sglang\n  sglang_config:\n    {role}:\n{lines}"


def found(text: str) -> list[tuple[str, int, int]]:
    return [(d.code, d.location.line, d.location.col) for d in fix_source(text, srtslurm, path="r.yaml").diagnostics]


def test_words_are_srtctls_sorted_flags_after_its_own():
    [launch] = srtslurm.read(recipe("tp_size: 8\nenable-metrics: true\ndisable-radix-cache: false\nx: null"),
                             "r.yaml", SCHEMA)
    assert [w.text for w in launch.parsed.words] == [
        "--model-path", "/model", "--disaggregation-mode", "decode", "--enable-metrics", "--tp-size", "8"]


def test_a_repeat_is_judged_in_srtctls_order_not_the_files():
    # sorted keys: `tp-size` (4) comes before `tp_size` (8), so SGLang uses 8 and the `tp-size` key is the ignored one
    text = recipe("tp_size: 8\ntp-size: 4")
    assert found(text) == [("ARG007", 7, 7)]
    assert fix_source(text, srtslurm, path="r.yaml").output == recipe("tp_size: 8")


def test_a_switch_given_a_string_is_refused_and_fixed():
    # srtctl passes `--trust-remote-code true`: the word `true` is refused (oracle: unrecognized arguments)
    text = recipe('trust-remote-code: "true"\nenable-metrics: "false"\ndisable-radix-cache: 1')
    assert [c for c, *_ in found(text)] == ["ARG005", "ARG005", "ARG005"]
    assert fix_source(text, srtslurm, path="r.yaml").output == recipe(
        "trust-remote-code: true\ndisable-radix-cache: true")
