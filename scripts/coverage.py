"""Write docs/coverage.md and its data: every raise/assert site of SGLang's argument checks, and the rule that mirrors it.

    python scripts/coverage.py [CATALOG]     # default: ../shared/sglang-0.5.23-rules.md

The sites are the catalog's appendix (every ``raise``/``assert`` in
``sglang/srt/arg_groups/``, each with the catalog's check ID and what
decides it: ARG the flags, HW the hardware, MODEL the model config, ENV
the environment, INFRA SGLang's own plumbing), grouped by the catalog's
families. A site is *covered* when a rule's position (``at``) is that line.
Otherwise its status is the one written in ``scripts/coverage_notes/*.txt``
(``<path>:<line> <status>: <reason>``; ``covered`` there names the rule
that mirrors a check SGLang re-raises elsewhere), else what its class implies
(MODEL, ENV: skipped; INFRA: unreachable), else "not yet".

The same sites go to ``autofix/schema/sglang-0.5.23-coverage.json`` (site ->
status, reason, covering rule codes, catalog check ID, class, kind), which
``autofix explain`` reads to say why no rule covers a check; run
``scripts/gen_messages.py`` after it (it indexes these sites' messages).

It also writes docs/rule-codes.md: autofix's rule codes against the catalog's
check IDs, which share a namespace but not always a meaning (``code_rows``).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autofix.pipeline.items import SettingsRule  # noqa: E402
from autofix.rules import BY_CODE, SETTINGS  # noqa: E402

CATALOG = ROOT.parent / "shared" / "sglang-0.5.23-rules.md"
NOTES = ROOT / "scripts" / "coverage_notes"
JSON_NAME = "sglang-0.5.23-coverage.json"  # what `autofix explain` reads
OUTSIDE = "outside.txt"  # the notes of sites outside the catalog (outside arg_groups/)
STATUSES = ("covered", "skipped-model", "skipped-env", "skipped-hardware", "unreachable", "not yet")
_SITE = re.compile(r"(\d+)([ar]) (\S+) (\S+)")
_ID = re.compile(r"[A-Z][A-Z0-9]*\d+")
CODES_PAGE = "rule-codes.md"  # docs/rule-codes.md: the rule codes against the catalog's IDs


def families(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """``({check id: family letter}, {family letter: title})`` from the catalog's headings."""
    of: dict[str, str] = {}
    titles: dict[str, str] = {}
    family = None
    for line in text.splitlines():
        if m := re.match(r"## Family ([A-Z]) — (.*)", line):
            family = m.group(1)
            titles[family] = m.group(2)
        elif line.startswith("## "):
            family = None
        elif family and (m := re.match(r"#### (\S+(?:[–/]\S+)*) — ", line)):
            for part in re.split(r"[/]", m.group(1)):
                of[part] = family
                for found in _ID.findall(part):
                    of.setdefault(found, family)
    return of, titles


def appendix(text: str) -> list[tuple[str, int, str, str, str]]:
    """``(path, line, kind, check id, class)`` of every site in the catalog's appendix."""
    body = text[text.index("## Appendix"):]
    out = []
    for m in re.finditer(r"^\* `(arg_groups/[^`]+)` \(\d+\): (.*)$", body, re.M):
        for site in m.group(2).split(" · "):
            if s := _SITE.fullmatch(site.strip()):
                out.append((m.group(1), int(s.group(1)), s.group(2), s.group(3), s.group(4)))
    return out


def notes() -> dict[str, tuple[str, str]]:
    """``{"path:line": (status, reason)}`` from ``scripts/coverage_notes/*.txt``."""
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(NOTES.glob("*.txt")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            m = re.fullmatch(r"(\S+:\d+) (not yet|[a-z-]+): (.+)", line.strip())
            allowed = STATUSES if path.name == OUTSIDE else STATUSES[:-1]  # outside the catalog, "not yet" is said
            if not m or m.group(2) not in allowed:
                raise SystemExit(f"{path}:{n}: expected '<path>:<line> <status>: <reason>', status one of "
                                 f"{', '.join(allowed)}")
            out[m.group(1)] = (m.group(2), m.group(3))
    return out


def status(site_class: str, note: tuple[str, str] | None) -> tuple[str, str]:
    """The status and reason of a site no rule covers."""
    if note:
        return note
    if "MODEL" in site_class:
        return "skipped-model", "needs the model's config"
    if "ENV" in site_class:
        return "skipped-env", "needs the launch's environment variables"
    if site_class == "INFRA":
        return "unreachable", "SGLang's own plumbing: no launch reaches it"
    return "not yet", ""


@dataclass(frozen=True)
class Site:
    """One check site and what covers it: a row of docs/coverage.md, an entry of the coverage JSON.

    ``where`` is ``path:line`` relative to ``sglang/srt/`` (the catalog's line); ``kind``, ``check`` and
    ``site_class`` are the catalog's (None outside ``arg_groups/``), ``family`` its family letter;
    ``reason`` is the note's or the class's (the covering rules' codes and names for a site a rule's
    position covers); ``rules`` the codes of the rules that cover it.
    """

    where: str
    status: str
    reason: str
    rules: tuple[str, ...] = ()
    kind: str | None = None
    check: str | None = None
    site_class: str | None = None
    family: str | None = None


def _named(found: list[SettingsRule]) -> str:
    return ", ".join(f"{r.code} `{r.name}`" for r in found)


def _codes(reason: str) -> tuple[str, ...]:
    """The rule codes a ``covered`` note names (``EEP013 `scale-up-attention-topology` (...)``)."""
    from autofix.rules import BY_CODE

    return tuple(dict.fromkeys(c for c in _ID.findall(reason) if c in BY_CODE))


def sites(text: str) -> tuple[dict[str, str], list[Site], list[Site]]:
    """``(family titles, catalog sites in appendix order, sites outside arg_groups/ by path)`` from the catalog's
    ``text``, the rules' positions and the notes."""
    family_of, titles = families(text)
    rules: dict[str, list[SettingsRule]] = {}
    for it in SETTINGS:
        if isinstance(it, SettingsRule):
            rules.setdefault(it.position.at, []).append(it)
    written = notes()
    inside = []
    for path, line, kind, check, site_class in appendix(text):
        family = family_of.get(check) or family_of.get(_ID.findall(check)[0] if _ID.findall(check) else "", "G")
        where = f"{path}:{line}"
        if where in rules:
            state, why, codes = "covered", _named(rules[where]), tuple(r.code for r in rules[where])
        else:
            state, why = status(site_class, written.get(where))
            codes = _codes(why) if state == "covered" else ()
        inside.append(Site(where, state, why, codes, "assert" if kind == "a" else "raise", check, site_class, family))
    outside = {where: Site(where, "covered", _named(found), tuple(r.code for r in found))
               for where, found in rules.items() if not where.startswith("arg_groups/")}
    outside.update({where: Site(where, *note, _codes(note[1]) if note[0] == "covered" else ())
                    for where, note in written.items() if not where.startswith("arg_groups/") and where not in outside})
    return titles, inside, [outside[w] for w in sorted(outside)]


def expand(label: str) -> list[str]:
    """The check IDs a catalog heading's label names: ``A2A011/A2A012/A2A013`` each, ``EEP018–EEP021`` each ID
    from the first to the last (the catalog's ranges are of one prefix)."""
    out = []
    for part in label.split("/"):
        m = re.fullmatch(r"([A-Z][A-Z0-9]*?)(\d+)[–-]\1(\d+)", part)
        if m:
            width = len(m.group(2))
            out += [f"{m.group(1)}{n:0{width}d}" for n in range(int(m.group(2)), int(m.group(3)) + 1)]
        else:
            out.append(part)
    return out


@dataclass(frozen=True)
class Entry:
    """A check of the catalog: its heading (``label`` as written, ``title``) and the lines its ``Kind`` and
    ``Where`` name, as ``(path, first, last)`` relative to ``sglang/srt/`` (an override is often a range)."""

    label: str
    title: str
    lines: tuple[tuple[str, int, int], ...]

    def holds(self, where: str) -> bool:
        """Whether ``where`` (``path:line``) is one of this entry's lines."""
        path, _, line = where.rpartition(":")
        return line.isdigit() and any(p == path and lo <= int(line) <= hi for p, lo, hi in self.lines)


def entries(text: str) -> dict[str, Entry]:
    """The catalog's checks by ID (a heading that names several IDs is each one's entry)."""
    out: dict[str, Entry] = {}
    for m in re.finditer(r"^#### (\S+) — (.*)\n((?:- .*\n)*)", text, re.M):
        named = " ".join(re.findall(r"^- (?:Kind|Where): (.*)$", m.group(3), re.M))
        lines = tuple((p, int(a), int(b or a)) for p, a, b in re.findall(r"`([\w/.]+\.py):(\d+)(?:-(\d+))?`", named))
        for check in expand(m.group(1)):
            out.setdefault(check, Entry(m.group(1), m.group(2), lines))
    return out


# How a rule code stands to the catalog's check of the same ID (docs/rule-codes.md lists all but SAME)
SAME = "same"  # the catalog's check of that ID is the rule's: the lines it names hold the rule's, and no other site
NO_ENTRY = "no entry"  # the catalog has no check of that ID
PART = "part"  # the catalog's ID names more sites (raise/assert statements) than the rule mirrors
OTHER_CHECK = "another check"  # the catalog's ID is another check: the catalog gives the rule's line another ID
OTHER_LINE = "another line"  # the catalog's entry names other lines, and gives the rule's line no ID


@dataclass(frozen=True)
class CodeRow:
    """One rule code against the catalog: a row of docs/rule-codes.md.

    ``at`` is the rule's SGLang line; ``there`` the catalog's IDs of the lines the rule mirrors (the
    appendix's for a raise/assert site, else the entries whose lines hold them); ``entry`` the catalog's check of
    the code's ID (None: no such check) and ``sites`` how many appendix sites it has, ``mirrored`` how many of
    them the rule mirrors (its line, or a coverage note's).
    """

    code: str
    name: str
    summary: str
    at: str
    there: tuple[str, ...]
    entry: Entry | None
    sites: int
    mirrored: int
    relation: str


def _code_key(code: str) -> tuple[str, int]:
    m = re.fullmatch(r"(.*?)(\d+)", code)
    return (m.group(1), int(m.group(2))) if m else (code, 0)


def code_rows(text: str, inside: list[Site], outside: list[Site]) -> list[CodeRow]:
    """Every rule code of autofix (``BY_CODE``: checks, overrides, argparse-stage and autofix's own families)
    against the catalog ``text`` and its sites (``sites``), in code order."""
    checks = entries(text)
    label = {s.where: s.check for s in inside}
    appendix: dict[str, set[str]] = {}
    for s in inside:
        appendix.setdefault(s.check, set()).add(s.where)
    mirrors: dict[str, set[str]] = {}  # code -> the sites it covers, at its line or by a coverage note
    for s in (*inside, *outside):
        for code in s.rules:
            mirrors.setdefault(code, set()).add(s.where)
    rows = []
    for code in sorted(BY_CODE, key=_code_key):
        rule = BY_CODE[code]
        at = rule.at
        own = {at.split()[0]} | mirrors.get(code, set())
        # a raise/assert site's ID is the appendix's; only a line it does not index is looked up in the entries
        there = sorted({label[w] for w in own if w in label}
                       or {c for c, e in checks.items() if any(map(e.holds, own))}, key=_code_key)
        entry, sites = checks.get(code), appendix.get(code, set())
        if entry is None:
            relation = NO_ENTRY
        elif own & sites or any(map(entry.holds, own)):
            relation = SAME if sites <= own else PART
        elif any(w in label for w in own):
            relation = OTHER_CHECK
        else:
            relation = OTHER_LINE
        rows.append(CodeRow(code, rule.name, rule.summary, at, tuple(there), entry, len(sites), len(own & sites),
                            relation))
    return rows


def codes_markdown(rows: list[CodeRow]) -> str:
    """docs/rule-codes.md: the rows whose code is not the catalog's check of the same ID."""
    listed = [r for r in rows if r.relation != SAME]
    counts = Counter(r.relation for r in rows)

    def catalog(r: CodeRow) -> str:
        if r.entry is None:
            return "—"
        size = f" ({r.sites} site{'s' * (r.sites != 1)})" if r.sites else ""
        return f"{r.entry.label} — {r.entry.title}{size}"

    def relation(r: CodeRow) -> str:
        return f"{r.mirrored} of {r.sites} sites" if r.relation == PART else r.relation

    out = ["# Rule codes and the catalog's check IDs", "",
           "Generated by `python scripts/coverage.py`. autofix's rule codes and the check IDs of the SGLang 0.5.23 "
           "catalog (`../shared/sglang-0.5.23-rules.md`; docs/coverage.md lists its check sites) look alike, and "
           "most agree, but a rule code is autofix's name for the check its rule mirrors: a code is never renamed "
           "(suppression comments and configurations name it), so where the two differ this page says how. "
           f"Of the {len(rows)} codes, {counts[SAME]} name the catalog's check of the same ID (the lines the "
           "catalog gives it hold the rule's, and it has no other site); the other "
           f"{len(listed)} are listed, with the relation:", "",
           f"- *{NO_ENTRY}* ({counts[NO_ENTRY]}): the catalog has no check of that ID. The rule mirrors one the "
           "catalog files under another ID (*catalog ID there*), an override or a check the catalog does not list, "
           "or it is of one of autofix's own families (`ARG`, `CFG`, `DEP`, `VER`: how the launch is written; "
           "`DKR`: how a container is handed it; `SUP`: suppression comments).",
           f"- *N of M sites* ({counts[PART]}): the catalog's ID groups M raise/assert sites, the rule mirrors N "
           "of them (other rules, of other codes, may mirror the rest).",
           f"- *{OTHER_CHECK}* ({counts[OTHER_CHECK]}): the catalog's ID is another check; the catalog gives the "
           "rule's line another ID.",
           f"- *{OTHER_LINE}* ({counts[OTHER_LINE]}): the catalog's entry of that ID names other lines of SGLang "
           "than the rule's, and gives the rule's line no ID: an override the catalog places at its function or its "
           "condition, autofix at the value it returns, or a `raise` it places at its message's line; compare the "
           "titles.", "",
           "| code | rule | SGLang line | catalog ID there | the catalog's check of that ID | relation |",
           "|---|---|---|---|---|---|"]
    out += [f"| {r.code} | `{r.name}`: {r.summary} | `{r.at}` | {', '.join(r.there) or '—'} | {catalog(r)} | "
            f"{relation(r)} |" for r in listed]
    return "\n".join(out) + "\n"


def markdown(titles: dict[str, str], inside: list[Site], outside: list[Site]) -> str:
    """docs/coverage.md."""
    rows: dict[str, list[str]] = {f: [] for f in titles}
    counts: dict[str, Counter] = {f: Counter() for f in titles}
    for s in inside:
        counts[s.family][s.status] += 1
        rows[s.family].append(f"| `{s.where}` | {s.kind} | {s.check} | {s.site_class} | {s.status} | {s.reason} |")
    out = ["# Coverage", "",
           "Generated by `python scripts/coverage.py`. Every `raise`/`assert` in SGLang 0.5.23's "
           "`sglang/srt/arg_groups/` (the argument checks), with the check ID and class the catalog gives it "
           "(ARG: the flags decide; HW: the hardware, known with `--gpu`; MODEL: the model's config; ENV: "
           "the environment; INFRA: SGLang's plumbing), and the autofix rule that mirrors it. A site no "
           "rule covers is *skipped* when autofix cannot know what decides it (it stays silent there), "
           "*unreachable* when no launch gets there, *not yet* when a rule is still to be written. Checks "
           "SGLang makes outside `arg_groups/` (the Marlin policy, the runtime context) are listed at the end. "
           f"The check IDs are the catalog's: where a rule's code is not the ID of its check, [{CODES_PAGE}]({CODES_PAGE}) says "
           "how the two differ.",
           "",
           "| family | sites | " + " | ".join(STATUSES) + " |", "|---|---:|" + "---:|" * len(STATUSES)]
    for family, c in counts.items():
        out.append(f"| {family} | {sum(c.values())} | " + " | ".join(str(c[s]) for s in STATUSES) + " |")
    for family, title in titles.items():
        out += ["", f"## Family {family}: {title}", "", "| site | kind | check | class | status | rule or reason |",
                "|---|---|---|---|---|---|", *rows[family]]
    out += ["", "## Outside `arg_groups/`", "",
            "Checks SGLang makes elsewhere that a rule mirrors, or that the fidelity harness "
            f"(`scripts/fidelity.py`) saw refuse a drawn launch (`scripts/coverage_notes/{OUTSIDE}`).", "",
            "| site | status | rule or reason |", "|---|---|---|",
            *(f"| `{s.where}` | {s.status} | {s.reason} |" for s in outside)]
    return "\n".join(out) + "\n"


def as_json(inside: list[Site], outside: list[Site]) -> str:
    """The coverage JSON explain ships: ``{"sglang": version, "sites": {where: {status, reason, rules, check,
    class, kind}}}``, one site a line, keys sorted."""
    entries = {s.where: {"status": s.status, "reason": s.reason, "rules": list(s.rules), "check": s.check,
                         "class": s.site_class, "kind": s.kind} for s in (*inside, *outside)}
    lines = [f"{json.dumps(w)}: {json.dumps(entries[w], sort_keys=True)}" for w in sorted(entries)]
    return '{"sglang": "0.5.23", "sites": {\n' + ",\n".join(lines) + "\n}}\n"


def main() -> int:
    catalog = Path(sys.argv[1]) if len(sys.argv) > 1 else CATALOG
    text = catalog.read_text(encoding="utf-8")
    titles, inside, outside = sites(text)
    (ROOT / "docs" / "coverage.md").write_text(markdown(titles, inside, outside), encoding="utf-8")
    (ROOT / "autofix" / "schema" / JSON_NAME).write_text(as_json(inside, outside), encoding="utf-8")
    (ROOT / "docs" / CODES_PAGE).write_text(codes_markdown(code_rows(text, inside, outside)), encoding="utf-8")
    counts: dict[str, Counter] = {f: Counter() for f in titles}
    for s in inside:
        counts[s.family][s.status] += 1
    for family, c in counts.items():
        print(f"{family}: {sum(c.values())} sites, " + ", ".join(f"{c[s]} {s}" for s in STATUSES if c[s]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
