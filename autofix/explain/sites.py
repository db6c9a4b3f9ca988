"""SGLang's check sites: where each raises, the words of its message, and what covers it.

Two data files ship in ``autofix/schema`` (read once, on first use; only
``autofix explain`` reads them):

* ``sglang-<version>-messages.json`` (``scripts/gen_messages.py``, read from
  SGLang's source with ``ast``): per site ``path:line`` (relative to
  ``sglang/srt/``; the line a traceback names), the enclosing ``function``,
  the ``kind`` (``raise``, ``assert``, or ``other`` for a line that fails
  without raising itself, a division), the ``exception`` type, the
  statement's first and last ``lines``, and the message's words: the
  literal parts of its text as a sorted set (``words``; ``optional``, the
  words only some of its messages have), never the text.
* ``sglang-<version>-coverage.json`` (``scripts/coverage.py``, the data of
  docs/coverage.md): per catalog site, its ``status``, ``reason``, the
  covering ``rules``' codes, the catalog ``check`` ID and ``class``.

``Site`` joins the two with the rules whose ``at`` (the SGLang line a rule
mirrors) falls on the statement. ``SiteIndex.by_message``
scores pasted text against every site's words, by word rarity (idf).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

VERSION = "0.5.23"
# What stands for a value an f-string, %- or .format template fills in: a word touching it is partial.
PLACEHOLDER = "\x00"
_CHUNK = re.compile(r"[a-z0-9_.\-]+")
_NUMBER = re.compile(r"-?[0-9][0-9.]*")


def words(text: str) -> frozenset[str]:
    """The words of a message: ``str -> frozenset[str]``, lowercased.

    A word is a run of letters, digits, ``_``, ``.`` and ``-``, its outer dots
    and trailing dashes dropped, so flags (``--moe-a2a-backend``) and
    identifiers (``experimental_sgl_marlin``, ``server_args.tp_size``) stay
    whole. Numbers and one-letter words are dropped, and so is any word that
    touches ``PLACEHOLDER`` (in ``f"--{name}-size"``, ``-size`` is part of a
    word the message only has once the value is in). The same function reads
    SGLang's templates (``scripts/gen_messages.py``) and pasted messages.
    """
    out = set()
    lowered = text.lower()
    for m in _CHUNK.finditer(lowered):
        start, end = m.span()
        if (start and lowered[start - 1] == PLACEHOLDER) or (end < len(lowered) and lowered[end] == PLACEHOLDER):
            continue
        word = m.group().strip(".").rstrip("-")
        if len(word) > 1 and not _NUMBER.fullmatch(word) and word.strip("-"):
            out.add(word)
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class Site:
    """One SGLang check site: where it is, what it raises, its message's words, what covers it.

    ``where`` is ``path:line`` relative to ``sglang/srt/`` (the line a
    traceback names); ``first``/``last`` the statement's lines (a rule's
    ``at`` is the first; a multi-line ``assert`` fails at its condition's
    line). ``words`` are in every message the site raises, ``optional`` in
    some (a branch, an item of a list it joins). ``rules`` are the codes of the rules that mirror it (several may:
    two rules at one statement); ``status``/``reason``/``check``/``site_class``
    come from the coverage data (``status`` is ``covered`` when a rule does,
    else why none does; ``unlisted`` for a site the catalog does not list).
    """

    where: str
    function: str
    kind: str
    exception: str | None
    first: int
    last: int
    words: frozenset[str]
    optional: frozenset[str]
    rules: tuple[str, ...]
    status: str
    reason: str
    check: str | None = None
    site_class: str | None = None

    @property
    def path(self) -> str:
        """The file, relative to ``sglang/srt/``."""
        return self.where.rsplit(":", 1)[0]

    def holds(self, path: str, line: int) -> bool:
        """Whether ``path:line`` (relative to ``sglang/srt/``) falls on this site's statement."""
        return path == self.path and self.first <= line <= self.last


@dataclass(frozen=True, slots=True)
class Scored:
    """A site and how well a text matches its message (0..1)."""

    score: float
    site: Site


def _load(name: str) -> dict:
    return json.loads(resources.files("autofix.schema").joinpath(name).read_text(encoding="utf-8"))


def _rule_sites(rules) -> dict[str, list[tuple[int, str]]]:
    """``{path: [(line, code)]}`` of every rule's SGLang line (``path:line`` positions only)."""
    out: dict[str, list[tuple[int, str]]] = {}
    for rule in rules:
        m = re.fullmatch(r"([\w/.]+\.py):(\d+)", rule.at)
        if m:
            out.setdefault(m.group(1), []).append((int(m.group(2)), rule.code))
    return out


class SiteIndex:
    """Every indexed SGLang check site, looked up by location or by message.

    Built from the two data files and ``rules`` (objects with ``code`` and
    ``at``: ``autofix.rules.RULES``); ``load()`` builds the
    shipped one once.
    """

    def __init__(self, messages: dict, coverage: dict, rules) -> None:
        by_path = _rule_sites(rules)
        cover: dict[str, list[tuple[int, dict]]] = {}
        for where, entry in coverage["sites"].items():
            path, line = where.rsplit(":", 1)
            cover.setdefault(path, []).append((int(line), entry))
        sites = []
        for where, e in messages["sites"].items():
            path = where.rsplit(":", 1)[0]
            first, last = e["lines"]
            entry = next((c for line, c in cover.get(path, ()) if first <= line <= last), None)
            codes = [code for line, code in by_path.get(path, ()) if first <= line <= last]
            codes += [c for c in (entry or {}).get("rules", ()) if c not in codes]
            if codes:
                status, reason = "covered", (entry or {}).get("reason", "")
            elif entry:
                status, reason = entry["status"], entry["reason"]
            else:
                status, reason = "unlisted", "not in the catalog"
            sites.append(Site(where, e["function"], e["kind"], e["exception"], first, last,
                              frozenset(e["words"]), frozenset(e.get("optional", ())), tuple(codes), status, reason,
                              (entry or {}).get("check"), (entry or {}).get("class")))
        self.sites: tuple[Site, ...] = tuple(sites)
        n = len(self.sites)
        df: dict[str, int] = {}
        for s in self.sites:
            for w in s.words | s.optional:
                df[w] = df.get(w, 0) + 1
        self.idf: dict[str, float] = {w: math.log(n / k) + 1e-9 for w, k in df.items()}
        self.version: str = messages.get("sglang", VERSION)
        self._at: dict[tuple[str, int], Site] | None = None  # (path, line) -> its site (``at``), made on first use

    def at(self, path: str, line: int) -> Site | None:
        """The site whose statement holds ``path:line`` (relative to ``sglang/srt/``), or None (the first such
        in ``sites``: a look-up, as a pasted log may hold 100 000 frames)."""
        if self._at is None:
            self._at = {}
            for s in self.sites:
                for k in range(s.first, s.last + 1):
                    self._at.setdefault((s.path, k), s)
        return self._at.get((path, line))

    def by_message(self, text: str) -> list[Scored]:
        """Every site whose message shares a word with ``text``, best first (then by place): ``str -> [Scored]``.

        The score (0..1) weighs each word by its rarity across sites (idf):
        how much of the site's words the text holds (recall; of its optional
        words when it has no others), and how much of the text's known words
        are the site's, optional ones included (precision), as their harmonic
        mean (F1). Words no site has (most values a placeholder filled in) do
        not count against a site.
        """
        mine = words(text) & self.idf.keys()
        if not mine:
            return []
        total_text = sum(self.idf[w] for w in mine)
        out = []
        for s in self.sites:
            needed = s.words or s.optional
            found = sum(self.idf[w] for w in needed & mine)
            if not found:
                continue
            recall = found / sum(self.idf[w] for w in needed)
            precision = sum(self.idf[w] for w in (s.words | s.optional) & mine) / total_text
            out.append(Scored(2 * precision * recall / (precision + recall), s))
        out.sort(key=lambda x: (-x.score, x.site.path, x.site.first))
        return out


@cache
def load() -> SiteIndex:
    """The shipped index for SGLang ``VERSION``, with the registry's rules (built once)."""
    from autofix.rules import RULES

    return SiteIndex(_load(f"sglang-{VERSION}-messages.json"), _load(f"sglang-{VERSION}-coverage.json"), RULES)
