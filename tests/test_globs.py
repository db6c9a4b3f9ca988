"""Globs (``autofix.project.globs``): the same matches as the regex translation they replaced, in polynomial time.

Until issue 29 a glob was translated to a Python regex, which backtracks: ``*a*a*a*a*a*a*a*ab`` on a name
of 60 characters, or thirteen ``**/`` on a path 40 directories deep, ran for minutes. ``_old_regex`` is
that translation (``globs.py`` at ``a74b4c6``), kept here as the reference the matcher must agree with,
with two changes where it disagreed with what the module documents: a class matches no ``/`` (``[/]``,
``[.-0]``), and ``[!-x]`` is "neither ``-`` nor ``x``" (the regex read ``[^/-x]``, the range ``/``-``x``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import warnings

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from autofix.project import globs


def _old_translate(p: str) -> str:
    """The regex body of glob ``p`` as ``globs._translate`` made it (the class branch corrected: above)."""
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
        elif c == "[" and (end := globs._class_end(p, i)) != -1:
            body = p[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            body = body.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
            if negate and body.startswith("-"):  # corrected: not a range from the "/" before it
                body = "\\" + body
            out.append(f"[^/{body}]" if negate else f"(?!/)[{body}]")  # corrected: never "/"
            i = end + 1
        elif c == "{" and (end := p.find("}", i)) != -1 and "," in p[i:end] and "{" not in p[i + 1 : end]:
            out.append("(?:" + "|".join(_old_translate(alt) for alt in p[i + 1 : end].split(",")) + ")")
            i = end + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(p[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _body(pattern: str) -> str:
    """What ``compile_glob`` matches of ``pattern``: without its ``!``, leading ``./`` or ``/``, trailing ``/``."""
    p = pattern[1:] if pattern.startswith("!") else pattern
    p = p.rstrip("/")
    while p.startswith("./"):
        p = p[2:]
    return p.lstrip("/")


def _old_regex(pattern: str) -> re.Pattern[str] | None:
    """``pattern``'s regex as ``compile_glob`` made it; None where it raised (a reversed range, ``[z-a]``)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # "possible set difference" and the like: literals
            return re.compile(f"(?s:{_old_translate(_body(pattern))})\\Z")
    except re.error:
        return None


# Small patterns of every construct, as characters (odd mixes: "[!]", "{a,}") or as whole constructs, and texts
# of the characters they name (old regexes are fast at this size)
PATTERN = st.one_of(
    st.text(st.sampled_from("ab/*?[]!^-{},\\."), max_size=10),
    st.lists(st.sampled_from(["a", "b", "/", "*", "**", "**/", "/**", "?", "[ab]", "[!a]", "[a-b]", "[]a]", "{a,b}",
                              "{a,*}", "{**,a/}", "{,b}", "\\*", "\\", "[", "{", ",", "}", "!", "-", "."]),
             max_size=6).map("".join),
)
TEXT = st.one_of(st.text(st.sampled_from("ab/"), max_size=8), st.text(st.sampled_from("ab/-.]\\{,*\n"), max_size=12))


@given(PATTERN, TEXT)
@example("*a*", "ba")
@example("**/a", "a")
@example("a/**", "a/")
@example("{**,a}/b", "x/y/b")
@example("*{*,a}", "a/b")
@example("[!-b]", "/")
@example("[a-]", "-")
@example("x{**/a,b}", "xa")
@example("**/{**,q}/c", "a/b/c")
@example("a*a", "a")  # the runs around a star may not overlap
@example("?*?", "a")
@example("*b*ab", "aab")
def test_same_matches_as_the_old_regex(pattern, text):
    old = _old_regex(pattern)
    assume(old is not None)
    # compile_glob's matcher (component by component without {a,b}), and the one for any pattern
    matchers = (globs.compile_glob(pattern).match, globs._by_positions(globs._tokens(_body(pattern))))
    # on the text, and on texts made from the pattern, which it often matches (a random text seldom does)
    for t in (text, pattern, re.sub(r"[*?\[\]{}!\\,]", "", pattern), pattern.replace("*", text)):
        expected = old.match(t) is not None
        assert [match(t) for match in matchers] == [expected, expected], t


@given(st.lists(st.sampled_from(["a", "b", "*", "**", "?", "[ab]", "{a,b*}"]), min_size=1, max_size=6)
       .map("/".join), st.lists(st.sampled_from(["a", "b", "ab", "ba"]), min_size=1, max_size=5).map("/".join))
@example("**/a/**/a", "a")  # the groups between "**" may not overlap
@example("**/a/**/a", "a/a")
def test_same_matches_on_paths(pattern, path):
    """Patterns of whole components (``**`` among them) on paths, through ``matches`` as a run asks."""
    old = _old_regex(pattern)
    parts = path.split("/")
    found = any(old.match("/".join(parts[:k]) if "/" in pattern else parts[k - 1]) for k in range(1, len(parts) + 1))
    assert globs.matches(globs.compile_glob(pattern), path, parts[-1]) is found


@pytest.mark.parametrize("pattern, text, hit", [
    ("[/]", "/", False), ("a[.-0]b", "a/b", False), ("a[.-0]b", "a.b", True),  # a class never matches "/"
    ("[!-b]", "-", False), ("[!-b]", "a", True), ("[!-b]", "/", False),
    ("[z-a]", "z", False), ("[z-ab]", "b", True), ("[!z-a]", "q", True),  # a reversed range matches nothing
    ("", "", True), ("", "a", False), ("a", "a", True), ("a?", "ab", True), ("a?", "a/", False),
])
def test_classes_and_corners(pattern, text, hit):
    assert globs.compile_glob(pattern).match(text) is hit


# The reproducers of issue 29, case 7: each ran past 60 s. Run in a child process with a generous timeout,
# only so that a regression fails instead of hanging the suite: nothing here is timed.
PATHOLOGICAL = [
    ("*a*a*a*a*a*a*a*ab", "a" * 60, False),
    ("*a*a*a*a*a*a*a*ab", "a" * 60 + "b", True),
    ("/".join(["**"] * 13) + "/nomatch", "/".join(f"d{i}" for i in range(40)) + "/x.yaml", False),
    ("/".join(["**"] * 13) + "/x.yaml", "/".join(f"d{i}" for i in range(40)) + "/x.yaml", True),
    ("{a,aa}" * 30 + "b", "a" * 50, False),  # alternatives: exponential for a backtracking regex too
    ("*[ab]?" * 20 + "c", "ab" * 200, False),
]


@pytest.mark.parametrize("pattern, path, hit", PATHOLOGICAL, ids=range(len(PATHOLOGICAL)))
def test_pathological_patterns_finish(pattern, path, hit):
    code = ("import sys; from autofix.project import globs; p, path = sys.argv[1:]; "
            "print(globs.matches(globs.compile_glob(p), path, path.rsplit('/', 1)[-1]))")
    done = subprocess.run([sys.executable, "-c", code, pattern, path], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == str(hit), done.stderr
