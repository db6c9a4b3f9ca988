"""Globs of file paths, as ``exclude`` and ``per-file-ignores`` read them (gitignore-like).

Matched against the path relative to a *root* (the configuration file's directory), with ``/`` between
components, case-sensitively: ``*``, ``?`` and ``[abc]``/``[!abc]`` match within one component; ``**`` as a
whole component matches any number of them (``**/x``, ``x/**``, ``a/**/b``); ``{a,b}`` matches either
(not nested); ``\\`` escapes the next character. A pattern without ``/`` (``venv``, ``*.sh``) matches the
name of the file or of any directory above it, at any depth below the root; one with ``/`` is anchored at
the root (``/build`` and ``./build`` too). A trailing ``/`` makes the pattern match directories only
(``build/``: any directory named build). A pattern that matches a directory matches everything below it.
A leading ``!`` negates (``negated``: the caller applies it where the rest does *not* match). Components at
or above the root are never looked at: a path outside the root is matched by its name alone. In a class,
``a-z`` is a range (one whose ends are reversed, ``z-a``, matches no character, as in git and ``fnmatch``).

Matching takes time polynomial in the lengths of the pattern and the path, whatever either holds (issue 29):
no pattern is a backtracking regex, whose time grows exponentially with its stars (``*a*a*a*a*a*a*ab`` on a
long name). Without ``{a,b}``, each component of the pattern is matched against one of the path's, each run
of characters between two stars at its leftmost fit, and each group of components between two ``**`` the same
way (``_by_components``): a few string searches for a common pattern. A pattern with ``{a,b}`` is matched as
the few patterns it stands for, or else by the set of positions in the path each of its steps reaches
(``_by_positions``: a step costs at most the path's length times its own). A run of characters is found with
a regex that has no quantifier and no alternative: it cannot backtrack either.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

# What a pattern is made of (``_tokens``): one-character tokens (a literal str, or ``_One``) and these
_STAR = 1  # ``*``: any characters but ``/``
_ANY = 2  # ``**`` at the end: anything
_DIRS = 3  # ``**/``: any number of whole components (nothing, or anything that ends with ``/``)
# and a tuple for ``{a,b}``: the alternatives' token lists

Run = tuple  # (finder, size, literal): ``size`` one-character tokens; ``literal`` their text when all are
# literals, else None and ``finder`` a regex (?=...) of them, with no quantifier and no alternative


@dataclass(frozen=True, slots=True)
class Glob:
    """A compiled pattern: an ``anchored`` one matches the path below the root, the others a name; a
    ``dir_only`` one directories only; a ``negated`` one (``!``) applies where the rest does not match.
    ``match(text)``: whether the pattern (without its ``!``, leading ``/`` and trailing ``/``) matches all of
    ``text``."""

    pattern: str
    match: Callable[[str], bool]
    anchored: bool
    dir_only: bool
    negated: bool


def _class_end(p: str, i: int) -> int:
    """The index of the ``]`` closing the class opened at ``p[i]``, or -1."""
    j = i + 1
    if j < len(p) and p[j] in "!^":
        j += 1
    if j < len(p) and p[j] == "]":
        j += 1
    return p.find("]", j)


class _One(str):
    """A token that matches one character and is not a literal (``?``, a class): the regex of it."""

    __slots__ = ()


def _class(body: str) -> _One:
    """The regex of one character of the class ``[body]`` (``!``/``^`` first negates): never ``/``."""
    negate = body[:1] in ("!", "^")
    body = body[1:] if negate else body
    items, slash, i = [], False, 0
    while i < len(body):
        lo = hi = body[i]
        if i + 2 < len(body) and body[i + 1] == "-":  # a range; a "-" first or last is itself
            hi = body[i + 2]
            i += 3
        else:
            i += 1
        if lo <= hi:  # a reversed range matches nothing
            items.append(re.escape(lo) if lo == hi else f"{re.escape(lo)}-{re.escape(hi)}")
            slash = slash or lo <= "/" <= hi
    if negate:
        return _One(f"[^/{''.join(items)}]")
    if not items:
        return _One("(?!)")
    return _One(f"(?!/)[{''.join(items)}]" if slash else f"[{''.join(items)}]")


def _tokens(p: str) -> list:
    """Glob ``p`` as a list of tokens (see ``_STAR``)."""
    out: list = []
    i, n = 0, len(p)
    while i < n:
        c = p[i]
        if c == "*" and p.startswith("**", i) and (i == 0 or p[i - 1] == "/") and (i + 2 == n or p[i + 2] == "/"):
            out.append(_ANY if i + 2 == n else _DIRS)  # "**/" includes its "/"
            i += 2 if i + 2 == n else 3
        elif c == "*":
            while i < n and p[i] == "*":
                i += 1
            out.append(_STAR)
        elif c == "?":
            out.append(_One("[^/]"))
            i += 1
        elif c == "[" and (end := _class_end(p, i)) != -1:
            out.append(_class(p[i + 1 : end]))
            i = end + 1
        elif c == "{" and (end := p.find("}", i)) != -1 and "," in p[i:end] and "{" not in p[i + 1 : end]:
            out.append(tuple(_tokens(alt) for alt in p[i + 1 : end].split(",")))
            i = end + 1
        elif c == "\\" and i + 1 < n:
            out.append(p[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return out


def _run(tokens: list) -> Run:
    if not any(isinstance(t, _One) for t in tokens):
        return None, len(tokens), "".join(tokens)
    regex = "".join(t if isinstance(t, _One) else re.escape(t) for t in tokens)
    return re.compile(f"(?=(?s:{regex}))"), len(tokens), None


def _at(run: Run, text: str, i: int) -> bool:
    """Whether ``run`` matches ``text`` at ``i``."""
    return text.startswith(run[2], i) if run[2] is not None else run[0].match(text, i) is not None


def _find(run: Run, text: str, start: int, end: int) -> int:
    """The first index from ``start`` where ``run`` matches ``text[:end]``, or -1."""
    if run[2] is not None:
        return text.find(run[2], start, end)
    found = run[0].search(text, start, end)
    return -1 if found is None else found.start()


# --- without {a,b}: component by component, each run of characters at its leftmost place ---------------------


def _component(tokens: list) -> Callable[[str], bool]:
    """Whether one component (a text without ``/``) matches ``tokens`` (one-character tokens and _STAR).

    The classic wildcard match: the run before the first star at the start, the run after the last one at
    the end, and each run between at its leftmost place after the one before. A run placed further right
    would only leave less for the runs after it, so a run that does not fit there fits nowhere.
    """
    runs: list[list] = [[]]
    for t in tokens:
        if t == _STAR:
            runs.append([])
        else:
            runs[-1].append(t)
    if len(runs) == 1:
        finder, size, literal = _run(runs[0])
        return literal.__eq__ if literal is not None else lambda s: len(s) == size and finder.match(s) is not None
    head, *middle, tail = [_run(r) for r in runs]
    if not middle and head[2] is not None and tail[2] is not None:
        prefix, suffix = head[2], tail[2]
        least = len(prefix) + len(suffix)
        return lambda s: len(s) >= least and s.startswith(prefix) and s.endswith(suffix)
    least = head[1] + tail[1] + sum(r[1] for r in middle)

    def match(s: str) -> bool:
        end = len(s) - tail[1]
        if len(s) < least or not _at(head, s, 0) or not _at(tail, s, end):
            return False
        at = head[1]
        for run in middle:
            found = _find(run, s, at, end)
            if found < 0:
                return False
            at = found + run[1]
        return True

    return match


def _fits(group: list, parts: list[str], j: int) -> bool:
    """Whether the component matchers ``group`` match ``parts[j:]``, one each."""
    for i, match in enumerate(group):
        if not match(parts[j + i]):
            return False
    return True


def _leftmost(group: list, parts: list[str], start: int, end: int) -> int:
    """The first ``j`` from ``start`` where ``group`` fits ``parts[j:end]``, or -1."""
    for j in range(start, end - len(group) + 1):
        if _fits(group, parts, j):
            return j
    return -1


def _by_components(tokens: list) -> Callable[[str], bool]:
    """The matcher of a pattern without ``{a,b}``: its components against the text's.

    ``*``, ``?`` and classes never match ``/``, so each component of the pattern matches one of the text's
    (``_component``) and ``**/`` any number of them: the groups of components between ``**/`` are placed as
    the runs of characters between stars are, the first at the start, the last at the end, each between at
    its leftmost place (``**`` at the end takes what is left, at least one component).
    """
    items: list = []  # component matchers, _DIRS and _ANY
    part: list = []
    for t in tokens:
        if t == "/" or t == _DIRS or t == _ANY:
            if t == "/":
                items.append(_component(part))
            else:
                items.append(t)  # always at a component's start: "**" is one only after "/" or first
            part = []
        else:
            part.append(t)
    if not tokens or tokens[-1] != _ANY:
        items.append(_component(part))
    if len(items) == 1 and items[0] != _ANY:
        one = items[0]
        return lambda text: "/" not in text and one(text)
    to_end = items[-1] == _ANY
    groups: list[list] = [[]]
    for item in items[:-1] if to_end else items:
        if item == _DIRS:
            groups.append([])
        else:
            groups[-1].append(item)
    head: list
    middle: list[list]
    last: list | None
    # (the ignore: [groups[0], None] holds one group, then None, which only ``last`` takes)
    head, *middle, last = groups if len(groups) > 1 else [groups[0], None]  # type: ignore[assignment]

    def match(text: str) -> bool:
        parts = text.split("/")
        n = len(parts)
        if last is None:
            return (n > len(head) if to_end else n == len(head)) and _fits(head, parts, 0)
        if n < len(head) or not _fits(head, parts, 0):
            return False
        at = len(head)
        for group in middle:
            at = _leftmost(group, parts, at, n)
            if at < 0:
                return False
            at += len(group)
        if to_end:
            return _leftmost(last, parts, at, n - 1) >= 0
        return n - len(last) >= at and _fits(last, parts, n - len(last))

    return match


# --- with {a,b}: the set of positions each step reaches ------------------------------------------------------

_RUN, _EITHER = 0, 4  # step kinds besides _STAR, _ANY and _DIRS: (_RUN, run), (_EITHER, (steps, ...))

Spans = list[tuple[int, int]]  # sorted, disjoint and not adjacent (first, last) ranges of positions in a text


def _steps(tokens: list) -> tuple:
    """``tokens`` as steps: each run of one-character tokens becomes one _RUN."""
    steps: list = []
    run: list[str] = []
    for token in [*tokens, None]:
        if isinstance(token, str):
            run.append(token)
            continue
        if run:
            steps.append((_RUN, _run(run)))
            run = []
        if isinstance(token, tuple):
            steps.append((_EITHER, tuple(_steps(alt) for alt in token)))
        elif token is not None:
            steps.append((token,))
    return tuple(steps)


def _add(spans: Spans, first: int, last: int) -> None:
    """Add the positions ``first``..``last`` to ``spans``, whose last span starts at or before ``first``."""
    if spans and first <= spans[-1][1] + 1:
        if last > spans[-1][1]:
            spans[-1] = (spans[-1][0], last)
    else:
        spans.append((first, last))


def _union(lists: list[Spans]) -> Spans:
    out: Spans = []
    for first, last in sorted(span for spans in lists for span in spans):
        _add(out, first, last)
    return out


def _advance(steps: tuple, text: str, spans: Spans) -> Spans:
    """The positions in ``text`` that ``steps`` can reach from any of ``spans``: each step costs at most
    about the text's length times its own, whatever the steps before it."""
    n = len(text)
    for step in steps:
        kind = step[0]
        out: Spans = []
        if kind == _RUN:
            run = step[1]
            size = run[1]
            for first, last in spans:
                end = min(last + size, n)
                found = _find(run, text, first, end)
                while found >= 0:
                    _add(out, found + size, found + size)
                    found = _find(run, text, found + 1, end)
        elif kind == _STAR:  # from each span, on to the first "/" at or after its end
            for first, last in spans:
                end = text.find("/", last)
                _add(out, first, n if end < 0 else end)
        elif kind == _ANY:
            out = [(spans[0][0], n)]
        elif kind == _DIRS:  # where it was, and just after each "/" at or after the first position
            after, i = [], text.find("/", spans[0][0])
            while i >= 0:
                after.append((i + 1, i + 1))
                i = text.find("/", i + 1)
            out = _union([spans, after]) if after else spans
        else:
            out = _union([_advance(alt, text, spans) for alt in step[1]])
        if not out:
            return out
        spans = out
    return spans


def _by_positions(tokens: list) -> Callable[[str], bool]:
    """The matcher of any pattern (``{a,b}`` may hold ``/`` and ``**``): ``_advance`` from the start. The
    run of characters the pattern ends with, when it does, must be at the text's end first."""
    steps = _steps(tokens)
    last = steps[-1][1] if steps and steps[-1][0] == _RUN else (None, 0, "")

    def match(text: str) -> bool:
        if len(text) < last[1] or not _at(last, text, len(text) - last[1]):
            return False
        spans = _advance(steps, text, [(0, 0)])
        return bool(spans) and spans[-1][1] == len(text)

    return match


_EXPANDED = 64  # at most this many patterns without {a,b} stand for one with them (_matcher)


def _matcher(tokens: list) -> Callable[[str], bool]:
    """The fastest exact matcher of ``tokens``: ``_by_components`` without ``{a,b}``; with, when no
    alternative holds ``**`` and they make few patterns (``{dev,prod}/*.{yml,yaml}``: four), the patterns
    it stands for, each ``_by_components``; else ``_by_positions``."""
    choices = [t for t in tokens if isinstance(t, tuple)]
    if not choices:
        return _by_components(tokens)
    count = 1
    for alts in choices:
        count *= len(alts)
        if count > _EXPANDED:
            break
    if count > _EXPANDED or any(t == _ANY or t == _DIRS for alts in choices for alt in alts for t in alt):
        return _by_positions(tokens)
    expanded: list[list] = [[]]
    for t in tokens:
        expanded = [[*e, *alt] for e in expanded for alt in t] if isinstance(t, tuple) else [[*e, t] for e in expanded]
    matchers = [_by_components(e) for e in expanded]
    return lambda text: any(match(text) for match in matchers)


@lru_cache(maxsize=4096)
def compile_glob(pattern: str) -> Glob:
    """``pattern`` compiled (the module docstring says what it matches)."""
    p, negated = (pattern[1:], True) if pattern.startswith("!") else (pattern, False)
    dir_only = p.endswith("/")
    p = p.rstrip("/")
    anchored = "/" in p  # ./x and /x too
    while p.startswith("./"):
        p = p[2:]
    p = p.lstrip("/")
    return Glob(pattern, _matcher(_tokens(p)), anchored, dir_only, negated)


def below(path: str, root: str) -> str | None:
    """``path`` relative to ``root``, with ``/`` separators, when it lies strictly below it, else None.

    Both must be absolute and normalised (``os.path.normpath``): this compares strings, as a run asks it of
    every file.
    """
    if not path.startswith(root) or len(path) <= len(root):
        return None
    if root.endswith(os.sep):
        rel = path[len(root):]
    elif path[len(root)] == os.sep:
        rel = path[len(root) + 1:]
    else:
        return None
    return rel if os.sep == "/" else rel.replace(os.sep, "/")


def hit(glob: Glob, rel: str | None, name: str, is_dir: Callable[[], bool]) -> bool:
    """Whether ``glob`` matches the entry itself: by its path below the root ``rel``, or by its ``name``."""
    if glob.anchored:
        found = rel is not None and glob.match(rel)
    else:
        found = glob.match(name)
    return found and (not glob.dir_only or is_dir())


def matches(glob: Glob, rel: str | None, name: str) -> bool:
    """Whether ``glob`` matches a file or one of its directories below the root (not counting ``negated``)."""
    if rel is None:
        return hit(glob, None, name, lambda: False)
    parts = rel.split("/")
    for k in range(len(parts), 0, -1):
        # (the ignore: a lambda with a default argument, k bound here, is called with none)
        if hit(glob, "/".join(parts[:k]), parts[k - 1], lambda k=k: k < len(parts)):  # type: ignore[misc]
            return True
    return False
