"""``autofix explain``: which rule a rule code, a name or a pasted SGLang error is, and why.

``explain(text) -> Explanation`` matches, in this order:

1. ``code``: the text is a rule code (any case) or name.
2. ``traceback``: the last traceback in the text (a log, a chained
   exception: the final one) has frames ``File ".../sglang/srt/<path>",
   line N, in <func>``; the innermost one whose line falls on a check site
   of the index (``autofix.explain.sites``), in the site's function, decides. Without
   frames, a ``sglang/srt/<path>:<line>`` location (the oracle's ``where``)
   does (``location``).
3. ``message``: the exception's message (the text after ``ValueError:`` on
   the traceback's last line, or the whole text) against the index of
   SGLang's messages; a clear winner (``THRESHOLD``, ``MARGIN``) decides,
   close ones are ``candidates``.
4. ``none``.

Pure: text in, an ``Explanation`` out; ``render`` makes it the command's
output. The rules of a site are every rule whose SGLang line (``at``) falls on its statement, and the ones the
coverage data names (a check SGLang raises again elsewhere).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from autofix.common.errors import UnknownRule
from autofix.common.escapes import visible
from autofix.explain.rule_docs import render_rule
from autofix.explain.sites import VERSION, Scored, Site, SiteIndex, load, words
from autofix.pipeline.items import Derivation, SettingsRule
from autofix.rules import BY_CODE, Rule, get

# A message matches a site when its score reaches THRESHOLD and beats the next site's by MARGIN; the sites
# within MARGIN of the best are candidates.
THRESHOLD = 0.5
MARGIN = 0.08
MAX_CANDIDATES = 5
_FRAME = re.compile(r'File "(?P<file>[^"\n]+)", line (?P<line>\d+)(?:, in (?P<func>[^\s]+))?')
_LOCATION = re.compile(r"sglang/srt/(?P<path>[\w/.]+\.py):(?P<line>\d+)")
_EXCEPTION = re.compile(r"^(?:.*?[\s\]])?(?:[A-Za-z_]\w*\.)*(?P<type>[A-Z]\w*(?:Error|Exception))(?::[ \t]?(?P<rest>.*))?$",
                        re.M)
_TRACEBACK = "Traceback (most recent call last):"


@dataclass(frozen=True, slots=True)
class Frame:
    """A traceback frame under ``sglang/srt/``: ``path`` relative to it, ``line``, ``function`` (None for a
    bare ``path:line`` location)."""

    path: str
    line: int
    function: str | None = None

    @property
    def where(self) -> str:
        """``path:line``."""
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class Explanation:
    """What a text was matched to.

    ``how``: ``code``, ``traceback``, ``location``, ``message`` or ``none``.
    ``site`` is the SGLang check site (None for ``code`` and ``none``, and
    for close ``candidates``); ``rules`` the rules that cover it (every
    candidate's, when all candidates are covered); ``frame`` the frame that
    named the site, or the innermost SGLang frame when none did;
    ``score`` the message's match (0..1). ``via`` is where each rule's
    step calls into the site's function, when that is not the hook itself;
    ``cause`` the site of the exception SGLang raised ``site``'s from, when
    that narrowed the rules.
    """

    how: str
    rules: tuple[Rule, ...] = ()
    site: Site | None = None
    candidates: tuple[Scored, ...] = ()
    frame: Frame | None = None
    score: float | None = None
    via: tuple[str, ...] = ()
    cause: Site | None = None

    @property
    def exit_code(self) -> int:
        """0 when a rule covers the text, else 1 (an SGLang check no rule covers, or nothing recognised)."""
        return 0 if self.rules else 1


def tracebacks(text: str) -> list[list[Frame]]:
    """The ``sglang/srt/`` frames of each traceback in ``text``, in order (a chained exception's causes
    first), each outermost first: ``str -> [[Frame]]``; the whole text is one when it has no traceback header."""
    out = []
    for block in text.split(_TRACEBACK)[1:] if _TRACEBACK in text else [text]:
        found = []
        for m in _FRAME.finditer(block):
            file = m.group("file").replace("\\", "/")
            if "sglang/srt/" in file:
                found.append(Frame(file.rsplit("sglang/srt/", 1)[1], int(m.group("line")), m.group("func")))
        out.append(found)
    return out


def frames(text: str) -> list[Frame]:
    """The ``sglang/srt/`` frames of the last traceback in ``text`` (the exception raised last), outermost
    first: ``str -> [Frame]``."""
    return tracebacks(text)[-1]


def _known(trace: list[Frame], index: SiteIndex) -> tuple[Frame, Site] | None:
    """The innermost frame of ``trace`` on a check site of ``index`` (in the site's function), and the site."""
    for frame in reversed(trace):
        site = index.at(frame.path, frame.line)
        if site and frame.function in (None, site.function):
            return frame, site
    return None


def message(text: str) -> str:
    """The exception message in ``text``: from the last ``XError:`` line after the last frame to the end, the
    type dropped; the whole text when it has no such line."""
    last_frame = max((m.end() for m in _FRAME.finditer(text)), default=0)
    found = [m for m in _EXCEPTION.finditer(text) if m.start() >= last_frame]
    if not found:
        return text.strip()
    m = found[-1]
    return ((m.group("rest") or "") + text[m.end():]).strip()


@cache
def _step_modules() -> dict[str, str]:
    """``{step id: the SGLang module of its hook}``."""
    from autofix.schema import load as load_schema

    return {s.id: s.module for s in load_schema().steps}


def _vias(rules: tuple[Rule, ...]) -> dict[str, str]:
    """``{code: "module:line"}``: where each pipeline rule's step calls into its line's function (``via``), or,
    through nested calls (``Position.calls``), the innermost call (``lora_hook.py:54`` or ``:208``)."""
    modules = _step_modules()
    # (a derivation is among the rules only with its code)
    return {r.code: f"{r.position.file}:{r.position.calls[-1]}" if r.position.calls  # type: ignore[misc]
            else f"{modules[r.position.step]}:{r.position.via}" for r in rules
            if isinstance(r, SettingsRule | Derivation) and r.position.via and r.position.step in modules}


def _covering(site: Site, trace: list[Frame]) -> tuple[tuple[Rule, ...], tuple[str, ...]]:
    """The rules of ``site`` and where their steps call into it; with a traceback, a rule reached ``via`` a
    hook line the traceback does not pass is left out (when another one's is passed)."""
    rules = tuple(BY_CODE[c] for c in site.rules if c in BY_CODE)
    vias = _vias(rules)
    passed = {f.where for f in trace}
    if trace and any(v in passed for v in vias.values()):
        rules = tuple(r for r in rules if r.code not in vias or vias[r.code] in passed)
    return rules, tuple(dict.fromkeys(vias[r.code] for r in rules if r.code in vias))


def by_location(text: str, index: SiteIndex) -> Explanation | None:
    """Step 2: the innermost frame of the last traceback (else the last ``sglang/srt/`` location) that is on a
    known check site, or None.

    When several rules mirror that site and an earlier traceback (the
    exception it was raised from) passes a site of fewer of them, those
    decide (``cause``).
    """
    chain = tracebacks(text)
    trace = chain[-1]
    places = trace or [Frame(m.group("path"), int(m.group("line"))) for m in _LOCATION.finditer(text)][-1:]
    found = _known(places, index)
    if not found:
        return None
    frame, site = found
    rules, via = _covering(site, trace)
    cause = None
    for earlier in reversed(chain[:-1] if len(rules) > 1 else []):
        inner = _known(earlier, index)
        narrower = _covering(inner[1], earlier)[0] if inner else ()
        if narrower and set(narrower) < set(rules):
            rules, cause = narrower, inner[1]  # type: ignore[index]  # narrower is found only in inner
            break
    return Explanation("traceback" if trace else "location", rules, site, frame=frame, via=via, cause=cause)


def _most_specific(candidates: tuple[Scored, ...], said: frozenset[str]) -> tuple[Scored, ...]:
    """Of close candidates, the ones whose literal words the text holds all of, less those whose words another such
    candidate's include (``DFLASH ... not supported on device`` is DFLASH's check, not the check of any algorithm
    whose message names it by a placeholder); all of them when no candidate's words are all there."""
    complete = [c for c in candidates if c.site.words and c.site.words <= said]
    if not complete:
        return candidates
    return tuple(c for c in complete if not any(c.site.words < d.site.words for d in complete))


def by_message(text: str, index: SiteIndex, frame: Frame | None = None) -> Explanation | None:
    """Step 3: the site whose message the text's is, or the close candidates; None below ``THRESHOLD``."""
    scored = index.by_message(message(text))
    if not scored or scored[0].score < THRESHOLD:
        return None
    best = scored[0]
    close = tuple(s for s in scored[1:MAX_CANDIDATES] if s.score > best.score - MARGIN)
    if close:
        best, *rest = _most_specific((best, *close), words(message(text)))
        close = tuple(rest)
    if not close:
        rules, via = _covering(best.site, [])
        return Explanation("message", rules, best.site, frame=frame, score=best.score, via=via)
    candidates = (best, *close)
    covered = all(c.site.rules for c in candidates)
    rules = tuple(dict.fromkeys(r for c in candidates for r in _covering(c.site, [])[0])) if covered else ()
    return Explanation("message", rules, candidates=candidates, frame=frame, score=best.score)


def explain(text: str, index: SiteIndex | None = None) -> Explanation:
    """Match ``text`` (a rule code or name, or a pasted SGLang error, log or traceback): ``str -> Explanation``.

    ``index``: the check sites (default: the shipped index, ``autofix.explain.sites.load()``).
    """
    stripped = text.strip()
    if stripped and not any(c.isspace() for c in stripped):
        try:
            return Explanation("code", (get(stripped),))
        except UnknownRule:
            pass
    index = index or load()
    found = by_location(text, index)
    if found:
        return found
    trace = frames(text)
    return by_message(text, index, trace[-1] if trace else None) or Explanation("none", frame=trace[-1] if trace else None)


def _site_name(site: Site, via: tuple[str, ...] = ()) -> str:
    called = f", called from {', '.join(via)}" if via else ""
    return f"{site.where} ({site.function}{called})"


def _no_rule(site: Site) -> str:
    catalog = f"; catalog check {site.check} ({site.site_class})" if site.check else ""
    reason = site.reason or ("no rule is written for it yet" if site.status == "not yet" else "")
    return f"{site.status}: {reason}{catalog}" if reason else f"{site.status}{catalog}"


def _rule_names(rules: tuple[Rule, ...]) -> str:
    names = ", ".join(f"{r.code} {r.name}" for r in rules)
    return f"rule {names}" if len(rules) == 1 else f"mirrored by {len(rules)} rules: {names}"


def render(found: Explanation, version: str = VERSION) -> str:
    """The command's output for ``found``: a line saying how the text was matched, then each rule's page."""
    pages = "\n".join(render_rule(r) for r in found.rules)
    if found.how == "code":
        return pages
    how = (f"found by its message (match {found.score:.2f})" if found.how == "message" else
           "named in the traceback" if found.how == "traceback" else "at the location given")
    if found.cause:
        how += f", raised again from {_site_name(found.cause)}"
    lines = []
    if found.frame and found.how in ("message", "none"):
        # the frame is the pasted text's: a control character in it (an escape sequence) is shown as its escape
        lines.append(f"The traceback's innermost SGLang frame, {visible(found.frame.where)} "
                     f"({visible(str(found.frame.function))}), is no check site autofix knows in SGLang {version}.")
    if found.site:
        if found.rules:
            lines.append(f"SGLang's check at {_site_name(found.site, found.via)}, {how}, is {_rule_names(found.rules)}")
        else:
            lines.append(f"SGLang's check at {_site_name(found.site)}, {how}, has no rule: {_no_rule(found.site)}")
    elif found.candidates:
        lines.append(f"The message fits {len(found.candidates)} of SGLang's checks about equally well:")
        for c in found.candidates:
            covered = _rule_names(_covering(c.site, [])[0]) if c.site.rules else f"no rule: {_no_rule(c.site)}"
            lines.append(f"  {_site_name(c.site)} (match {c.score:.2f}): {covered}")
    else:
        lines.append(f"Not recognised: no rule code or name, no check site of SGLang {version} in a traceback, and "
                     "no message of a check autofix knows (`autofix rules` lists the rules).")
    head = "\n".join(lines) + "\n"
    return f"{head}\n{pages}" if pages else head
