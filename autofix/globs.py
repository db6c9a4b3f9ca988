"""Globs of file paths, as ``exclude`` and ``per-file-ignores`` read them (gitignore-like).

Matched against the path relative to a *root* (the configuration file's directory), with ``/`` between
components, case-sensitively: ``*``, ``?`` and ``[abc]``/``[!abc]`` match within one component; ``**`` as a
whole component matches any number of them (``**/x``, ``x/**``, ``a/**/b``); ``{a,b}`` matches either
(not nested); ``\\`` escapes the next character. A pattern without ``/`` (``venv``, ``*.sh``) matches the
name of the file or of any directory above it, at any depth below the root; one with ``/`` is anchored at
the root (``/build`` and ``./build`` too). A trailing ``/`` makes the pattern match directories only
(``build/``: any directory named build). A pattern that matches a directory matches everything below it.
A leading ``!`` negates (``negated``: the caller applies it where the rest does *not* match). Components at
or above the root are never looked at: a path outside the root is matched by its name alone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class Glob:
    """A compiled pattern: an ``anchored`` one matches the path below the root, the others a name; a
    ``dir_only`` one directories only; a ``negated`` one (``!``) applies where the rest does not match."""

    pattern: str
    regex: re.Pattern[str]
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


def _translate(p: str) -> str:
    """The regex body of glob ``p`` (no anchoring)."""
    out, i, n = [], 0, len(p)
    while i < n:
        c = p[i]
        if c == "*" and p.startswith("**", i) and (i == 0 or p[i - 1] == "/") and (i + 2 == n or p[i + 2] == "/"):
            if i + 2 == n:
                out.append(".*")
                i += 2
            else:
                out.append("(?:[^/]*/)*")
                i += 3
        elif c == "*":
            while i < n and p[i] == "*":
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and (end := _class_end(p, i)) != -1:
            body = p[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            body = body.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
            out.append(f"[^/{body}]" if negate else f"[{body}]")
            i = end + 1
        elif c == "{" and (end := p.find("}", i)) != -1 and "," in p[i:end] and "{" not in p[i + 1 : end]:
            out.append("(?:" + "|".join(_translate(alt) for alt in p[i + 1 : end].split(",")) + ")")
            i = end + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(p[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


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
    return Glob(pattern, re.compile(f"(?s:{_translate(p)})\\Z"), anchored, dir_only, negated)


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
        found = rel is not None and glob.regex.match(rel) is not None
    else:
        found = glob.regex.match(name) is not None
    return found and (not glob.dir_only or is_dir())


def matches(glob: Glob, rel: str | None, name: str) -> bool:
    """Whether ``glob`` matches a file or one of its directories below the root (not counting ``negated``)."""
    if rel is None:
        return hit(glob, None, name, lambda: False)
    parts = rel.split("/")
    for k in range(len(parts), 0, -1):
        if hit(glob, "/".join(parts[:k]), parts[k - 1], lambda k=k: k < len(parts)):
            return True
    return False
