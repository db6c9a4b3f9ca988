"""Where the instructions of a Dockerfile are, to the character.

``instructions(text)`` lists every instruction of a Dockerfile with exact
character offsets into ``text``: the keyword, where the arguments begin,
and, for the exec form (``CMD ["python3", "-m", ...]``), every element of
the JSON array with its decoded value and the span of its string literal.

How the work is split:

* Which lines make up each instruction, whether Docker reads its arguments
  as a JSON array (exec form) and the values it decodes, the heredoc bodies
  that follow it, and which Dockerfiles Docker refuses all come from
  BuildKit's own parser, through the PyPI package ``dockerfile`` (it wraps
  ``github.com/moby/buildkit/frontend/dockerfile/parser``; version 3.4.0
  ships BuildKit v0.12.5).
* The character offsets inside those lines are computed by applying
  BuildKit's rules for one instruction again (``dockerfile_instruction``: the
  escape character, line continuation, comment and empty lines dropped inside
  a continued instruction, builder flags, the JSON array). What it finds is
  checked against what BuildKit found (keyword, line range, form, flags and
  decoded values); a disagreement raises ``autofix.common.errors.InternalError``
  rather than giving a wrong offset.

Parser directives (``# escape=`` and ``# syntax=``) are read here, as BuildKit
reads them: only in the comment lines at the very top; the first other line
ends them. The escape character is ``\\`` or the backtick. The rules for one
instruction are ``dockerfile_instruction``'s.
"""

from __future__ import annotations

import bisect
import re
from types import ModuleType

from autofix.adapters.syntax.dockerfile_instruction import (
    BOM,
    FLAG_SPLIT_BYTES,
    GO_SPACE,
    Instruction,
    instruction,
    lstrip_go,
    trim_newline,
)
from autofix.common.errors import InputError
from autofix.common.limits import MAX_DOCKERFILE_BYTES, MAX_DOCKERFILE_LINES

__all__ = ["comments", "instructions"]

_STOP = "autofix does not read further"
# Go RE2's \s is ASCII: [\t\n\f\r ].
_DIRECTIVE = re.compile(r"#[\t\n\f\r ]*([a-zA-Z][a-zA-Z0-9]*)[\t\n\f\r ]*=[\t\n\f\r ]*(.+?)[\t\n\f\r ]*\Z", re.DOTALL)


def instructions(text: str, path: str = "-") -> list[Instruction]:
    """Every instruction of the Dockerfile ``text``, in order.

    ``path`` is only used in error messages. A text with no instruction at
    all (empty, or only comments) gives ``[]``.

    Raises ``autofix.common.errors.InputError(path, line, col, message)`` for a
    Dockerfile that Docker refuses to parse: an invalid or repeated
    ``# escape=`` directive, a JSON array holding something other than
    strings, an unterminated heredoc, a line over 64 KiB; and one past
    ``limits.MAX_DOCKERFILE_LINES`` or ``MAX_DOCKERFILE_BYTES``. A continuation
    character on the last line is not an error (Docker accepts it).
    Also raises ``InputError`` for a ``# escape=`` directive placed after a
    ``# check=`` directive, which current BuildKit reads but the bundled
    parser (BuildKit v0.12.5) ignores, so that the two cannot disagree
    silently.
    """
    import dockerfile  # BuildKit's parser; imported here to keep start-up fast

    _check_size(text, path)
    lines = text.split("\n")
    # offsets of the start of every physical line
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    if lines and lines[-1] == "":
        # a final newline does not start another line
        lines.pop()
        starts.pop()

    escape = _escape_char(lines, path)
    nul = text.find("\x00")
    if nul >= 0:  # the binding hands BuildKit a C string: it would read only the text before it
        line = text.count("\n", 0, nul) + 1
        raise InputError(path, line, nul - starts[line - 1] + 1,
                         "a NUL character: BuildKit's parser, as autofix runs it, stops reading there")

    try:
        commands = dockerfile.parse_string(text)
    except UnicodeDecodeError:  # BuildKit cut a character at a byte it takes for a blank: the binding cannot say it
        at = next((i for i, c in enumerate(text) if ord(c) > 0x7F
                   and any(b in FLAG_SPLIT_BYTES for b in c.encode("utf-8")[1:])), 0)
        line = bisect.bisect_right(starts, at)
        raise InputError(path, line, at - starts[line - 1] + 1,
                         "BuildKit reads this character as separate bytes (one of them a blank to it): write "
                         "the instruction's flags in ASCII") from None
    except dockerfile.GoParseError as exc:
        message = str(exc)
        if message.startswith("file with no instructions"):
            return []
        line = _error_line(dockerfile, text, message)
        raise InputError(path, line or 1, 1, f"Docker cannot parse this Dockerfile: {message}") from None

    out = []
    for cmd in commands:
        if not cmd.cmd:
            continue  # only continuation characters: nothing to point at
        out.append(instruction(cmd, lines, starts, escape, path))
    return out


def _check_size(text: str, path: str) -> None:
    """Raise ``InputError`` where ``text`` crosses ``MAX_DOCKERFILE_LINES`` (at the first line past) or
    ``MAX_DOCKERFILE_BYTES`` (the first character past), whichever comes first: BuildKit's parser spends time
    growing with the square of an instruction's lines. Reads the text with ``str`` methods only."""
    past = None
    if text.count("\n") + (not text.endswith("\n")) > MAX_DOCKERFILE_LINES:
        at = -1
        for _ in range(MAX_DOCKERFILE_LINES):
            at = text.find("\n", at + 1)
        past, why = at + 1, f"{MAX_DOCKERFILE_LINES:,} lines"
    if 4 * len(text) > MAX_DOCKERFILE_BYTES:  # else within: four bytes a character at most
        data = text.encode("utf-8", "surrogatepass")
        if len(data) > MAX_DOCKERFILE_BYTES:
            cut = len(data[:MAX_DOCKERFILE_BYTES].decode("utf-8", "ignore"))  # the first character not wholly within
            if past is None or cut < past:
                past, why = cut, f"{MAX_DOCKERFILE_BYTES:,} bytes"
    if past is not None:
        line_start = text.rfind("\n", 0, past) + 1
        raise InputError(path, text.count("\n", 0, past) + 1, past - line_start + 1,
                         f"a Dockerfile of more than {why}; {_STOP}")


def comments(text: str, found: list[Instruction]) -> list[tuple[int, int]]:
    """The spans of the comment lines of the Dockerfile ``text`` (``found``: its ``instructions``), in order.

    BuildKit's rule: a line whose first character after blanks is ``#`` is a
    comment (between instructions, or dropped inside a continued one),
    unless it is part of a heredoc: the bodies that follow an instruction
    and their terminator lines are data, read as written. Each span runs
    from the ``#`` to the end of its line (its ``\\r`` left out). The parser
    directives at the top (``# syntax=``, ``# escape=``) are comment lines
    too here: they name a directive and ``=``, never ``autofix:``. The
    bodies of ``ONBUILD RUN <<EOF`` are not located (``Instruction``): every
    line up to the next instruction is taken for data.
    """
    data = []  # (start, end): heredoc bodies with their terminator lines
    for k, ins in enumerate(found):
        if ins.heredocs:
            last = ins.heredocs[-1].end
            stop = text.find("\n", last)
            data.append((ins.heredocs[0].start, len(text) if stop < 0 else stop))
        elif ins.heredoc:
            data.append((ins.end, found[k + 1].start if k + 1 < len(found) else len(text)))
    out = []
    for m in _COMMENT_LINE.finditer(text):
        at = m.start(1)
        k = bisect.bisect_right(data, (at, len(text))) - 1
        if k >= 0 and data[k][0] <= at < data[k][1]:
            continue
        end = m.end()
        out.append((at, end - 1 if text[end - 1] == "\r" else end))
    return out


# A line that starts with `#` after Go's blanks (BuildKit: TrimLeftFunc(unicode.IsSpace), then `^#`); the file's
# first line after a byte-order mark.
_COMMENT_LINE = re.compile("^(?:(?<![\\s\\S])" + BOM + ")?[" + re.escape("".join(sorted(GO_SPACE - {"\n"})))
                           + "]*(#)[^\n]*", re.MULTILINE)


# -- directives ---------------------------------------------------------------


def _escape_char(lines: list[str], path: str) -> str:
    """The escape character set by the directives at the top (default ``\\``)."""
    escape_old = escape_new = "\\"
    old_done = False
    seen_check = False
    for i, raw in enumerate(lines):
        line = trim_newline(raw)
        if i == 0 and line.startswith(BOM):
            line = line[1:]
        line = lstrip_go(line)
        m = _DIRECTIVE.match(line)
        if not m:
            break
        name = m.group(1).lower()
        if name not in ("escape", "syntax", "check"):
            break
        if name == "check":
            # current BuildKit reads on; v0.12.5 stops reading directives here
            seen_check = True
            old_done = True
        elif name == "escape":
            escape_new = m.group(2)
            if not old_done:
                escape_old = m.group(2)
            elif seen_check and escape_new != escape_old:
                raise InputError(
                    path, i + 1, 1,
                    "an '# escape=' directive after '# check=' is not supported by autofix's "
                    "Dockerfile parser (BuildKit v0.12.5); put '# escape=' first",
                )
    # an invalid value is reported by BuildKit's parser
    return escape_old if escape_old in ("\\", "`") else "\\"


def _error_line(dockerfile: ModuleType, text: str, message: str) -> int:
    """The first line by which BuildKit's ``message`` appears (0 if unknown):
    the shortest prefix of ``text``, in whole lines, that raises it."""
    lines = re.findall(r"[^\n]*\n|[^\n]+\Z", text)

    def fails(k: int) -> bool:
        try:
            dockerfile.parse_string("".join(lines[:k]))
        except dockerfile.GoParseError as exc:
            return str(exc) == message
        return False

    lo, hi = 1, len(lines)
    if not lines or not fails(hi):
        return 0
    while lo < hi:
        mid = (lo + hi) // 2
        if fails(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
