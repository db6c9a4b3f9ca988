"""docs/rule-codes.md, autofix's rule codes against the SGLang catalog's check IDs: true of the rules, and complete.

Offline: every row names a rule as it is (code, name, SGLang line); the page counts every code autofix has; and
every code whose line the shipped coverage data (``autofix/schema/sglang-0.5.23-coverage.json``: each check site
with the catalog's ID for it) shows to be another check than the catalog's of that ID, or only some of its sites,
is listed as such, and no code it shows to be exactly that check. With the catalog
(``../shared/sglang-0.5.23-rules.md``, or ``AUTOFIX_CATALOG``; skipped, saying so, without it, as
tests/test_realworld.py is without the recipes): the page is what ``scripts/coverage.py`` writes from it, and
a code is listed with no entry exactly when no heading of the catalog names its ID.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from autofix.rules import BY_CODE

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "rule-codes.md"
COVERAGE = ROOT / "autofix" / "schema" / "sglang-0.5.23-coverage.json"
CATALOG = Path(os.environ.get("AUTOFIX_CATALOG", ROOT.parent / "shared" / "sglang-0.5.23-rules.md"))
needs_catalog = pytest.mark.skipif(not CATALOG.exists(), reason=f"compares with the SGLang 0.5.23 catalog of the "
                                   f"project's shared folder, not here ({CATALOG}): set AUTOFIX_CATALOG to a copy of it")
_ROW = re.compile(r"\| (\S+) \| `([^`]+)`: (.*) \| `([^`]+)` \| (.*?) \| (.*?) \| (.*?) \|")


def rows() -> dict[str, dict[str, str]]:
    """The page's rows by code: ``name``, ``summary``, ``at``, ``there`` (IDs), ``entry``, ``relation``."""
    out = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("| ") and not line.startswith("| code |"):
            m = _ROW.fullmatch(line)
            assert m, f"not a row of the table: {line}"
            code, name, summary, at, there, entry, relation = m.groups()
            assert code not in out, f"{code} listed twice"
            out[code] = {"name": name, "summary": summary, "at": at, "there": there, "entry": entry,
                         "relation": relation}
    return out


def test_each_row_is_the_rule_as_it_is():
    listed = rows()
    assert listed, "the page lists no code"
    for code, row in listed.items():
        assert code in BY_CODE, f"{code} is no rule of autofix"
        rule = BY_CODE[code]
        assert (row["name"], row["summary"], row["at"]) == (rule.name, rule.summary, rule.at), code


def test_the_page_counts_every_code():
    """A rule added or removed since the page was written changes the count: regenerate it."""
    assert f"Of the {len(BY_CODE)} codes, " in PAGE.read_text(encoding="utf-8"), "run python scripts/coverage.py"


def test_what_the_coverage_data_shows_of_a_code_is_what_the_page_says():
    sites = json.loads(COVERAGE.read_text())["sites"]
    label = {where: site["check"] for where, site in sites.items() if site["check"]}
    by_check, mirrors = defaultdict(set), defaultdict(set)
    for where, check in label.items():
        by_check[check].add(where)
    for where, site in sites.items():
        for code in site["rules"]:
            mirrors[code].add(where)
    listed, decided = rows(), 0
    for code, rule in BY_CODE.items():
        own = {rule.at.split()[0]} | mirrors[code]
        ids = {label[where] for where in own if where in label}
        if not ids:  # an override, or a line the catalog indexes no ID for: only the catalog can say
            continue
        decided += 1
        row = listed.get(code)
        if code in ids and by_check[code] <= own:
            assert row is None, f"{code} is the catalog's check {code}, yet listed: {row}"
        elif code in ids:
            assert row is not None, f"{code} mirrors {len(own & by_check[code])} of the catalog's {code} sites, unlisted"
            assert row["relation"] == f"{len(own & by_check[code])} of {len(by_check[code])} sites", (code, row)
        else:
            assert row is not None, f"{code}'s line is the catalog's {sorted(ids)}, unlisted"
            assert row["relation"] in ("no entry", "another check"), (code, row)
        if row is not None:
            assert set(row["there"].split(", ")) == ids, (code, row["there"], ids)
    assert decided > 200, "the coverage data decided almost nothing: is it the catalog's?"


def _coverage_py():
    spec = importlib.util.spec_from_file_location("coverage_script", ROOT / "scripts" / "coverage.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@needs_catalog
def test_the_page_is_what_coverage_py_writes_from_the_catalog():
    cov = _coverage_py()
    text = CATALOG.read_text(encoding="utf-8")
    _, inside, outside = cov.sites(text)
    assert PAGE.read_text(encoding="utf-8") == cov.codes_markdown(cov.code_rows(text, inside, outside)), \
        "run python scripts/coverage.py"


@needs_catalog
def test_no_entry_is_said_of_exactly_the_codes_no_heading_names():
    """Read apart from scripts/coverage.py: a heading ``#### ID — title``, ``#### A/B — ``, ``#### X018–X021 — ``."""
    named = set()
    for label in re.findall(r"^#### (\S+) — ", CATALOG.read_text(encoding="utf-8"), re.M):
        for part in label.split("/"):
            if m := re.fullmatch(r"([A-Z0-9]*?[A-Z])(\d+)[–-]\1(\d+)", part):
                named |= {f"{m.group(1)}{n:0{len(m.group(2))}d}" for n in range(int(m.group(2)), int(m.group(3)) + 1)}
            else:
                named.add(part)
    listed = rows()
    no_entry = {code for code, row in listed.items() if row["relation"] == "no entry"}
    assert no_entry == set(BY_CODE) - named
    assert all(listed[code]["entry"] == "—" for code in no_entry)
