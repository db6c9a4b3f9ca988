"""DESIGN properties 1, 2, 3 and 5: what ``fix_source`` does to one text.

Each runs on whole configs drawn over the arguments the rules read, written
as an SGLang ``--config`` YAML file and as a shell launch script (one or two
launches), at both fix levels (``unsafe`` False and True).
"""

from __future__ import annotations

import difflib
import os
import random
import re

import pytest
from hypothesis import Phase, event, given, settings
from hypothesis import strategies as st
from strategies import MODELS, SCHEMA, SEEDS, as_drawn, cases, configs, edge_cases, fix, read_explicit, spellings

from autofix.core import engine
from autofix.pipeline.items import SettingsRule
from autofix.rules import RULES
from autofix.rules.base import ArgsRule
from harness.rules.cases import FACTS

EACH_FORMAT = pytest.mark.parametrize("fmt", ("yaml", "shell"))
_ARG_CODES = {r.code for r in RULES if isinstance(r, ArgsRule)}
EACH_LEVEL = pytest.mark.parametrize("unsafe", (False, True), ids=("safe", "unsafe"))


def _draw_case(data, fmt, **kw):
    """A drawn text: one launch per drawn config.

    Whether each launch reads back as its config is property 4's business
    (and ``test_yaml_reads_like_sglang``'s); these properties hold for
    whatever the text means.
    """
    configs_, text = data.draw(cases(fmt, **kw), label="configs, text")
    assert len(read_explicit(text, fmt)) == len(configs_)
    return text


def _codes_messages(diagnostics) -> list[tuple[str, str]]:
    return sorted((d.code, d.violation.message) for d in diagnostics)


def check_clean_or_reported(text: str, fmt: str, unsafe: bool) -> None:
    result = fix(text, fmt, unsafe)
    # every layout drawn here has one setting per line (or per flag): every fix can be written
    assert not [c for c in result.conflicts if "fixes not applied" in c]
    event("fixed" if result.changed else "unchanged")
    event("remaining" if result.remaining else "clean after")
    for code in sorted({d.code for d in result.diagnostics}):
        event(f"found {code}")
    again = fix(result.output, fmt, unsafe)
    assert _codes_messages(again.diagnostics) == _codes_messages(result.remaining)
    for d in result.remaining:  # left over only when no fix applies at this level, or fixes conflict
        assert not d.fixable or result.conflicts, d


def check_idempotent(text: str, fmt: str, unsafe: bool) -> None:
    output = fix(text, fmt, unsafe).output
    assert fix(output, fmt, unsafe).output == output


@EACH_FORMAT
@EACH_LEVEL
@given(data=st.data())
def test_fixed_output_is_clean_or_reports_what_remains(fmt, unsafe, data):
    """1. After a fix no rule fires, or what still fires is exactly ``result.remaining``."""
    check_clean_or_reported(_draw_case(data, fmt), fmt, unsafe)


@EACH_FORMAT
@EACH_LEVEL
@given(data=st.data())
def test_fix_is_idempotent(fmt, unsafe, data):
    """2. Fixing the fixed output changes nothing."""
    check_idempotent(_draw_case(data, fmt), fmt, unsafe)


# --- property 3 -------------------------------------------------------------------


def _mention_pattern(fmt: str, dests: set[str]) -> re.Pattern | None:
    """A line that names one of ``dests``: as a YAML key, or as a ``--flag`` word."""
    words = sorted({s for d in dests for s in spellings(d)}, key=len, reverse=True)
    if not words:
        return None
    alt = "|".join(map(re.escape, words))
    if fmt == "yaml":
        return re.compile(rf"^\ufeff?[ \t]*['\"]?(?:{alt})['\"]?[ \t]*:", re.M)
    return re.compile(rf"(?<![\w-])--(?:{alt})(?![\w-])")


def _inserted_into(old: str, new: str, mentions) -> bool:
    """``new`` is ``old`` with one chunk that names a changed dest inserted somewhere (or
    ``old`` is ``new`` with such a chunk removed: swap the arguments)."""
    extra = len(new) - len(old)
    if extra <= 0:
        return False
    for p in range(len(old) + 1):
        if new[:p] != old[:p]:
            break
        if new[p + extra :] == old[p:] and mentions(new[p : p + extra]):
            return True
    return False


_CONTINUATION = re.compile(r"[ \t]*\\(\r?\n)$")


def _explained(old: list[str], new: list[str], mentions) -> bool:
    """Can ``new`` be had from ``old`` by touching only lines that name a changed dest?

    Allowed, line by line: keep a line; delete or rewrite a line that names a
    changed dest; insert a line that names one; insert a chunk that names
    one into a line (a flag appended on the same line, or a continuation);
    remove a chunk that names one from a run of lines, joining them (the
    last flag and the `` \\`` before it, with its line's comment kept); drop
    the `` \\`` that continued a line onto a deleted one (else the next
    command would join the launch).
    """
    n, m = len(old), len(new)
    reach = [[False] * (m + 1) for _ in range(n + 1)]
    reach[0][0] = True
    for i in range(n + 1):
        for j in range(m + 1):
            if not reach[i][j]:
                continue
            if j < m and mentions(new[j]):
                reach[i][j + 1] = True
            if i == n:
                continue
            named = mentions(old[i])
            if named:
                reach[i + 1][j] = True
            if j < m and (named or old[i] == new[j]):
                reach[i + 1][j + 1] = True
            if j < m and i + 1 < n and mentions(old[i + 1]) and (
                    _CONTINUATION.sub(r"\1", old[i]) == new[j]
                    or _inserted_into(_CONTINUATION.sub(r"\1", old[i]), new[j], mentions)):
                reach[i + 1][j + 1] = True  # (and the flags that replace the deleted ones appended to it)
            for k in range(1, min(3, m - j) + 1):
                if _inserted_into(old[i], "".join(new[j : j + k]), mentions):
                    reach[i + 1][j + k] = True
            for k in range(2, min(6, n - i) + 1):
                if j < m and _inserted_into(new[j], "".join(old[i : i + k]), mentions):
                    reach[i + k][j + 1] = True
    return reach[n][m]


def check_only_changed_lines(text: str, fmt: str, unsafe: bool) -> None:
    result = fix(text, fmt, unsafe)
    output = result.output
    before, after = read_explicit(text, fmt), read_explicit(output, fmt)
    assert len(before) == len(after)
    changed = {op.dest for b, a in zip(before, after) for op in engine.net_ops(b, a)}
    # argparse-stage fixes (a repeated key removed) rewrite how a dest is written, not its value
    changed |= {dest for d in result.diagnostics if d.code in _ARG_CODES and d.fixable for dest in d.violation.args}
    if output == text:
        return
    pattern = _mention_pattern(fmt, changed)
    assert pattern is not None, "the text changed but no argument did"
    if not text.endswith("\n") and not output.endswith("\n"):
        # the missing final newline stays missing: a kept line may become the last one
        nl = "\r\n" if "\r\n" in text else "\n"
        text, output = text + nl, output + nl
    old, new = text.splitlines(keepends=True), output.splitlines(keepends=True)
    if not _explained(old, new, lambda s: bool(pattern.search(s))):
        diff = "".join(difflib.unified_diff(old, new, "input", "output"))
        pytest.fail(f"lines that name none of {sorted(changed)} changed:\n{diff}")


@EACH_FORMAT
@EACH_LEVEL
@given(data=st.data())
def test_only_lines_of_changed_args_change(fmt, unsafe, data):
    """3. Every input line that names no changed argument is kept, in order.

    The changed arguments are the dests whose explicit values differ between
    the input and the output, launch by launch (``engine.net_ops``).
    """
    check_only_changed_lines(_draw_case(data, fmt), fmt, unsafe)


@EACH_FORMAT
@given(data=st.data())
def test_removals_at_the_edges_of_the_file(fmt, data):
    """1, 2 and 3 where an unsafe fix removes the first or the last setting of the file."""
    configs_, text = data.draw(edge_cases(fmt), label="configs, text")
    assert len(read_explicit(text, fmt)) == len(configs_)
    check_clean_or_reported(text, fmt, True)
    check_idempotent(text, fmt, True)
    check_only_changed_lines(text, fmt, True)


# --- property 5 -------------------------------------------------------------------


@EACH_FORMAT
@EACH_LEVEL
@given(data=st.data())
def test_no_fix_keeps_every_byte(fmt, unsafe, data):
    """5. A config no rule flags comes back byte for byte (CRLF, BOM, tabs, no final newline)."""
    text = _draw_case(data, fmt, clean=True)
    result = fix(text, fmt, unsafe)
    assert not result.diagnostics
    assert result.output == text
    assert not result.changed


# The settings rules some case reports with the facts the properties use (H200, DeepSeek-V3): the others fire only
# on another GPU or with another model, where the rule cases check them (tests/rules/test_rules.py).
SETTINGS_CODES = frozenset(r.code for r in RULES if isinstance(r, SettingsRule)) & frozenset(SEEDS)


def test_strategies_reach_every_rule():
    """The drawn configs trip every settings rule, or the properties above prove little.

    A third of the draws start from a rule's case (``configs``), half of those as the case is (``as_drawn``, with
    or without a model path): so every rule is reached if each rule's case, drawn that way, trips it. Checked here
    for every rule, one check per case and model path; the draws themselves, below, with a fixed budget.
    """
    missed = [code for code in sorted(SETTINGS_CODES)
              if not any(code in {v.code for v in engine.check(as_drawn(seed, model), SCHEMA, FACTS)}
                         for seed in SEEDS[code] for model in (None, *MODELS))]
    assert missed == []


# The rules the draws below must reach: REACH_SAMPLE of them, a sample that changes as rules come and go (seeded by
# the rule codes: derandomized, as CI wants), or every rule under HYPOTHESIS_PROFILE=thorough. A draw starts from one
# rule's case as it is one time in 6 x (rules in the sample), so each rule's case comes up about 10 times in
# DRAWS_PER_RULE draws per rule and a miss is a one-in-20000 chance per rule: the budget is fixed, whatever the
# number of rules.
REACH_SAMPLE = 16
DRAWS_PER_RULE = 60


def _reach_sample() -> tuple[str, ...]:
    codes = sorted(SETTINGS_CODES)
    if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" or len(codes) <= REACH_SAMPLE:  # tests/conftest.py
        return tuple(codes)
    return tuple(sorted(random.Random(",".join(codes)).sample(codes, REACH_SAMPLE)))


def test_drawn_configs_reach_a_sample_of_rules():
    """The strategy draws the cases as ``test_strategies_reach_every_rule`` assumes: its draws, with the rule drawn
    first among a sample, trip every rule of the sample."""
    sample = _reach_sample()
    seen: set[str] = set()

    @settings(max_examples=DRAWS_PER_RULE * len(sample), database=None, derandomize=True, phases=[Phase.generate],
              deadline=None)
    @given(configs(codes=sample))
    def draw(config):
        seen.update(v.code for v in engine.check(config, SCHEMA, FACTS))

    draw()
    assert set(sample) - seen == set()
