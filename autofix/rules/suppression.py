"""The rules of autofix's own suppression comments (``autofix.common.suppressions``): SUP001, SUP002.

They read the comments of a file, not its launches: after the other rules have run, a comment that
suppressed nothing is reported, with a safe fix that removes it (as ruff's RUF100 removes an unused
``noqa``). ``settle`` adds their findings to a ``FixResult`` and, at a level that applies the fix, removes
the comments from its output.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace

from autofix.common.diagnostics import Applicability, Diagnostic, Fix, Location, TextEdit, Violation
from autofix.common.edits import Edit, apply_edits, compose, line_col, range_after
from autofix.common.suppressions import ANNOTATION, Malformed, Suppression, Suppressions
from autofix.rules.base import CommentRule, comment_rule

SOURCE = "autofix/common/suppressions.py"
# a comment, the codes the fix removes from it, the violation
Found = tuple[Suppression | Malformed, tuple[str, ...], Violation]


@comment_rule("SUP001", "unused-suppression", source=SOURCE)
def unused_suppression(comments: Suppressions, known: Callable[[str], bool | None]) -> Iterator[Found]:
    """Flag a suppression comment, or a code in one, that suppressed no finding.

    ## What it does
    Checks every `# autofix: ignore[...]` and `# autofix: ignore-file[...]` comment (and Kubernetes
    `autofix.io/ignore` annotation) for codes that covered no finding in this run: the finding was fixed,
    the rule no longer fires there, or the code names no rule; and for a code named twice. A code of a rule
    the run does not select (`--select`, `--ignore`) is not judged.

    ## Why it matters
    SGLang never reads these comments. A stale one hides the next real finding of that rule on that line,
    and a misspelled code hides nothing while looking as if it did.

    ## Example
    ```yaml
    tp-size: 8  # autofix: ignore[EP003] single node
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ```

    ## Fix safety
    Removing the unused codes (the whole comment when none is left) changes no setting: safe.

    ## SGLang source
    None: the comments are autofix's own (`autofix/common/suppressions.py`).
    """
    for s, stale, twice in comments.unused():
        stale = tuple(c for c in stale if known(c) is not False)
        twice = tuple(c for c in twice if known(c) is not False)
        if not stale and not twice:
            continue
        unknown = [c for c in stale if known(c) is None]
        parts = [f"suppression of {', '.join(stale)} covers no finding"] if stale else []
        parts += [f"the suppression names {', '.join(twice)} twice"] if twice else []
        why = f" ({', '.join(unknown)}: no such rule)" if unknown else ""
        # every occurrence of a stale code goes; one of a code named twice stays
        drop = tuple(c for c in s.codes if c in stale) + twice
        left = _without(s.codes, drop)
        title = f"Remove {', '.join(dict.fromkeys(drop))} from the comment" if left else "Remove the suppression comment"
        yield s, drop, Violation("; ".join(parts) + why, (), (Fix.safe(title=title),))


def _without(codes: tuple[str, ...], drop: tuple[str, ...]) -> tuple[str, ...]:
    """``codes`` with one occurrence of each code of ``drop`` taken out (a code named twice keeps one)."""
    left = list(codes)
    for c in drop:
        left.remove(c)
    return tuple(left)


@comment_rule("SUP002", "malformed-suppression", source=SOURCE)
def malformed_suppression(comments: Suppressions, known: Callable[[str], bool | None]) -> Iterator[Found]:
    """Flag a comment that starts like a suppression but does not read as one.

    ## What it does
    Checks every comment that starts with `# autofix:` for the form `# autofix: ignore[CODES] reason` or
    `# autofix: ignore-file[CODES] reason`, CODES being rule codes separated by commas. Only a comment of the
    file (or of a shell script a launch is read in) is one: the same text in a string or a heredoc's body is
    data, and is not checked.

    ## Why it matters
    A comment autofix cannot read suppresses nothing: the finding it was written for is still reported,
    and the next reader cannot tell what it meant to hide.

    ## Example
    ```yaml
    ep-dispatch-algorithm: static  # autofix: ignore EP003
    ```
    Use instead:
    ```yaml
    ep-dispatch-algorithm: dynamic
    ```

    ## Fix safety
    No fix: only the author knows which codes were meant.

    ## SGLang source
    None: the comments are autofix's own (`autofix/common/suppressions.py`).
    """
    for m in comments.malformed:
        form = "`autofix.io/ignore: \"CODE: reason\"`" if m.annotation else "`# autofix: ignore[CODE] reason`"
        what = "annotation" if m.annotation else "comment"
        yield m, (), Violation(f"cannot read this suppression {what}: write {form}", ())


RULES: tuple[CommentRule, ...] = (unused_suppression, malformed_suppression)


def _removal(text: str, s: Suppression, keep: tuple[str, ...]) -> Edit | None:
    """The edit that removes suppression ``s`` from ``text``, or keeps only the codes ``keep`` in it; None
    when that cannot be done in place (an annotation that shares its line)."""
    if s.annotation:
        if keep:
            return Edit(s.start, s.end, ", ".join(keep))
        start = text.rfind("\n", 0, s.start) + 1
        nl = text.find("\n", s.start)
        end = len(text) if nl < 0 else nl + 1
        line = text[start:end]
        if not re.match(rf"[ \t]*(['\"]?){re.escape(ANNOTATION)}\1[ \t]*:", line):
            return None
        return Edit(_lone_mapping_key(text, start, end, "annotations"), end, "")
    if keep:
        open_ = text.index("[", s.start)
        close = text.index("]", open_)
        return Edit(open_ + 1, close, ", ".join(keep))
    if s.alone:  # the whole line, with its line break
        start = text.rfind("\n", 0, s.start) + 1
        nl = text.find("\n", s.end)
        return Edit(start, len(text) if nl < 0 else nl + 1, "")
    start = s.start
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    return Edit(start, s.end, "")


def _lone_mapping_key(text: str, start: int, end: int, key: str) -> int:
    """Where a deletion of the block-mapping line ``text[start:end]`` should start: at the line before it
    when that is ``key:`` alone and the deleted line is its only entry (an empty ``annotations:`` would
    be a null the object does not need), else at ``start``."""
    before = text.rfind("\n", 0, max(start - 1, 0)) + 1 if start else 0
    m = re.match(rf"([ \t]*){re.escape(key)}[ \t]*:[ \t]*(?:#[^\n]*)?\r?\n$", text[before:start])
    if not start or m is None:
        return start
    indent = len(m.group(1))
    for nxt in text[end:].splitlines():
        if nxt.strip() and not nxt.lstrip().startswith("#"):
            return before if len(nxt) - len(nxt.lstrip()) <= indent else start
    return before


def settle(result, comments: Suppressions | None, level: Applicability, screen: Callable[[Violation], Violation | None],
           known: Callable[[str], bool | None], reads_alike: Callable[[str, str], bool]):
    """``result`` (an ``api.FixResult``) with the findings of SUP001/SUP002 on ``comments`` added, and the
    unused suppressions removed from its output where the fix applies at ``level``.

    ``screen`` is the run's policy for these rules (selection, fix safety); ``known(code)`` is True for a
    code the run reports, False for one it does not select, None for no rule; ``reads_alike(a, b)`` tells
    whether two versions of the text mean the same launches (a removal that would change one is not made).
    A comment inside text a fix rewrote is left as it is (reported, not fixed).
    """
    if not comments:
        return result
    text = result.source
    found: list[tuple[Diagnostic, Edit | None]] = []  # each finding, and the edit on ``text`` that fixes it
    v: Violation | None  # the rule's, then as the run screens it
    for rule in RULES:
        for where, drop, v in rule.check(comments, known):
            v = screen(Violation(v.message, v.args, v.fixes, rule.code, rule.name, None, False))
            if v is None:
                continue
            # codes to drop: SUP001's, of a Suppression (a Malformed comment has none)
            edit = _removal(text, where, _without(where.codes, drop)) if drop else None  # type: ignore[arg-type, union-attr]
            if edit is None and v.fixes:
                v = replace(v, fixes=())
            placed = (_placed(result.path, text, edit),) if edit is not None else ()
            d = Diagnostic(result.path, Location(where.line, where.col), v, False, bool(v.fixes), placed)
            found.append((d, edit if v.best_fix(level) is not None else None))
    if not found:
        return result
    moved = [(d, range_after(result.changes, e.start, e.end) if e is not None else None) for d, e in found]
    # a span only where there is an edit (the ignore: the checker cannot tie the two)
    applied = [Edit(*span, e.text) for (d, span), (_, e) in zip(moved, found) if span is not None]  # type: ignore[union-attr]
    output, changes = result.output, result.changes
    if applied and reads_alike(output, candidate := apply_edits(output, applied)):
        output, changes = candidate, tuple(compose(changes, applied))
    else:
        moved = [(d, None) for d, _ in moved]
    shown = [replace(d, fixable=span is not None) for d, span in moved]
    left = [d for d in shown if not d.fixable]
    order = lambda d: (d.location, d.code)  # noqa: E731
    return replace(result, output=output, changes=changes,
                   diagnostics=tuple(sorted([*result.diagnostics, *shown], key=order)),
                   remaining=tuple(sorted([*result.remaining, *left], key=order)))


def _placed(path: str, text: str, edit: Edit) -> tuple[TextEdit, ...]:
    return (TextEdit(path, Location(*line_col(text, edit.start)), Location(*line_col(text, edit.end)), edit.text),)
