"""An independent reader of unified diffs, for the tests and the fuzz target: applies one file's diff to its old text.

Written from the unified format's description (hunk headers ``@@ -a,b +c,d @@``,
`` ``/``-``/``+`` lines, ``\\ No newline at end of file``); it shares no code
with ``autofix.common.edits``. Lines end at ``\\n`` only, as for ``patch``.
"""

from __future__ import annotations

import re

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")


def apply_unified(before: str, diff: str) -> str:
    """Apply a unified diff of one file to ``before`` (lines end at ``\\n``)."""
    old = before.split("\n")
    old = [line + "\n" for line in old[:-1]] + ([old[-1]] if old[-1] else [])
    lines = diff.split("\n")
    assert lines[0].startswith("--- ") and lines[1].startswith("+++ "), diff
    out: list[str] = []
    pos = 0  # lines of ``old`` consumed
    i = 2
    while i < len(lines) and lines[i]:
        m = _HUNK.match(lines[i])
        assert m, lines[i]
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        out.extend(old[pos:start])
        pos = start
        i += 1
        body: list[tuple[str, str]] = []
        while i < len(lines) and lines[i] and not lines[i].startswith("@@"):
            if lines[i] == "\\ No newline at end of file":
                mark, text = body[-1]
                body[-1] = (mark, text[:-1])
            else:
                body.append((lines[i][0], lines[i][1:] + "\n"))
            i += 1
        for mark, text in body:
            if mark in " -":
                assert old[pos] == text, (old[pos], text)
                pos += 1
            if mark in " +":
                out.append(text)
    out.extend(old[pos:])
    return "".join(out)
