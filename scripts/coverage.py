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
from autofix.rules import SETTINGS  # noqa: E402

CATALOG = ROOT.parent / "shared" / "sglang-0.5.23-rules.md"
NOTES = ROOT / "scripts" / "coverage_notes"
JSON_NAME = "sglang-0.5.23-coverage.json"  # what `autofix explain` reads
OUTSIDE = "outside.txt"  # the notes of sites outside the catalog (outside arg_groups/)
STATUSES = ("covered", "skipped-model", "skipped-env", "skipped-hardware", "unreachable", "not yet")
_SITE = re.compile(r"(\d+)([ar]) (\S+) (\S+)")
_ID = re.compile(r"[A-Z][A-Z0-9]*\d+")


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
           "SGLang makes outside `arg_groups/` (the Marlin policy, the runtime context) are listed at the end.",
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
    titles, inside, outside = sites(catalog.read_text(encoding="utf-8"))
    (ROOT / "docs" / "coverage.md").write_text(markdown(titles, inside, outside), encoding="utf-8")
    (ROOT / "autofix" / "schema" / JSON_NAME).write_text(as_json(inside, outside), encoding="utf-8")
    counts: dict[str, Counter] = {f: Counter() for f in titles}
    for s in inside:
        counts[s.family][s.status] += 1
    for family, c in counts.items():
        print(f"{family}: {sum(c.values())} sites, " + ", ".join(f"{c[s]} {s}" for s in STATUSES if c[s]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
