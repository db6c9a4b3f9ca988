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
* The character offsets inside those lines are computed here, by applying
  BuildKit's rules for one instruction again (the escape character, line
  continuation, comment and empty lines dropped inside a continued
  instruction, builder flags, the JSON array). What this module finds is
  checked against what BuildKit found (keyword, line range, form, flags and
  decoded values); a disagreement raises ``autofix.common.errors.InternalError``
  rather than giving a wrong offset.

BuildKit's rules, as applied here:

* Parser directives (``# escape=`` and ``# syntax=``) are read only in the
  comment lines at the very top; the first other line ends them. The escape
  character is ``\\`` or the backtick.
* A line whose last character other than spaces and tabs is the escape
  character (not itself preceded by another escape character) continues on
  the next line; the escape character and the blanks after it are dropped.
  Comment lines and empty lines met while an instruction continues are
  dropped and do not end it.
* ``\\r`` before ``\\n`` is part of the line ending (spans never include
  it), so CRLF files work like LF files.
* Keywords are case-insensitive (``Instruction.keyword`` is upper case).
* Builder flags (``RUN --mount=... --network=none cmd``) come before the
  arguments; ``args_start`` is after them.
* ``CMD``, ``ENTRYPOINT``, ``RUN``, ``SHELL`` (and ``ADD``, ``COPY``,
  ``VOLUME``) take the exec form when their arguments start with a JSON
  array of strings; anything else silently is the shell form. A JSON array
  holding something other than strings (``CMD ["a", 1]``) is refused by
  Docker, and so raises ``InputError``. As in BuildKit v0.12.5, text after
  the array's closing ``]`` is ignored by Docker (``CMD ["a"] b`` runs
  ``a``).
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass

from autofix.common.errors import InputError, InternalError
from autofix.common.limits import MAX_DOCKERFILE_BYTES, MAX_DOCKERFILE_LINES

__all__ = ["Heredoc", "Instruction", "JsonToken", "comments", "instructions"]

_STOP = "autofix does not read further"


@dataclass(frozen=True, slots=True)
class JsonToken:
    """One element of an exec-form JSON array.

    ``value`` is the decoded string (what Docker passes to the program).
    ``start``/``end`` is the span in the Dockerfile text of the JSON string
    literal, quotes included, so that
    ``json.loads(text[start:end]) == value`` -- except in the rare cases
    where the instruction is not ``verbatim`` (a literal cut by a line
    continuation, or a lone UTF-16 surrogate escape, which Docker decodes
    to U+FFFD).
    """

    value: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Heredoc:
    """One heredoc body that follows an instruction (``RUN <<EOT`` ... ``EOT``).

    ``name`` is the terminator word; ``start``/``end`` span the body in the
    Dockerfile text, from the start of the line after the instruction (or
    after the previous terminator) to the start of the terminator line, so
    ``text[start:end]`` is the content BuildKit reads, every line ending
    included (a CRLF file's ``\\r`` stays: Docker keeps it in the body).
    ``chomp`` is True for ``<<-``, whose body Docker runs with the leading
    tabs of every line removed.
    """

    name: str
    start: int
    end: int
    chomp: bool


@dataclass(frozen=True, slots=True)
class Instruction:
    """One Dockerfile instruction.

    ``keyword`` is upper case (``CMD``, ``ENTRYPOINT``, ``RUN``, ...);
    ``line``/``col`` are the 1-based position of the keyword (``col`` counts
    characters; a byte-order mark is not counted).

    ``start``/``end`` span the instruction from its keyword to the end of
    its last continuation line, without the line ending. Comment and empty
    lines inside a continued instruction lie within the span (Docker drops
    them). Heredoc bodies are NOT in the span: see ``heredoc``.

    ``args_start`` is where the arguments begin, after the keyword, builder
    flags such as ``RUN --mount=...`` and blanks; it equals ``end`` when the
    instruction has no arguments.

    ``form`` is ``"exec"`` when Docker reads the arguments as a JSON array
    of strings, otherwise ``"shell"`` (for keywords that never take a JSON
    array, such as ``ENV`` or ``FROM``, ``"shell"`` just means "not JSON").
    For the exec form ``tokens`` are the array's elements and ``array_end``
    is the offset of the closing ``]`` (insert new elements before it); for
    the shell form ``tokens`` is empty and ``array_end`` is -1. The
    arguments of ``ONBUILD`` and ``HEALTHCHECK`` hold a nested instruction
    that is not split here: they are always given as the shell form with
    ``verbatim`` False.

    ``escape`` is the escape character in effect (``\\`` or a backtick from
    a ``# escape=`` directive).

    ``heredoc`` is True when the instruction is followed by heredoc bodies
    (``RUN <<EOF`` ... ``EOF``); the bodies and their terminators are not in
    ``start``/``end``, ``form`` is ``"shell"`` and ``verbatim`` is False.
    ``heredocs`` are the bodies, in order (empty for ``ONBUILD RUN <<EOF``,
    whose bodies are not located).

    ``logical`` is the instruction's arguments as Docker's logical line has
    them (after joining continuation lines, dropping comment and empty lines
    inside the instruction, the escape characters that continue a line and
    the blanks after them, and trimming blanks at both ends), with the source
    offset of each of its characters plus one final entry just past the last
    one (``end`` when there are no arguments). For the shell form of ``CMD``,
    ``ENTRYPOINT`` and ``RUN`` the text is exactly what ``/bin/sh -c`` gets.
    Logical characters ``i..j-1`` come from one run of the source exactly
    when ``offsets[j - 1] - offsets[i] == j - 1 - i``.

    ``verbatim`` says whether the written text can be read and edited as is:

    * shell form: ``text[args_start:end]`` (reading each ``\\r\\n`` as
      ``\\n``) is what ``/bin/sh -c`` gets, up to the backslash-newline pairs
      that the shell joins just as Docker does. It is False when the escape
      character is a backtick, when comment or empty lines were dropped
      inside the instruction, when blanks follow a line-continuation
      character, for heredocs, and for ``ONBUILD``/``HEALTHCHECK``. Callers
      handing the region to a shell reader should refuse to edit then.
    * exec form: every token's ``text[start:end]`` is exactly its JSON
      string literal.
    """

    keyword: str
    line: int
    col: int
    start: int
    end: int
    args_start: int
    form: str
    tokens: tuple[JsonToken, ...]
    array_end: int
    escape: str
    heredoc: bool = False
    verbatim: bool = True
    logical: tuple[str, tuple[int, ...]] = ("", ())
    heredocs: tuple[Heredoc, ...] = ()


# Go's unicode.IsSpace (used by BuildKit's TrimSpace / TrimLeftFunc).
_GO_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# extractBuilderFlags tests unicode.IsSpace(rune(byte)) byte by byte: of the UTF-8 bytes, the ASCII blanks, and
# 0x85 and 0xA0, which are never a character's first byte but are the second byte of some (U+0145, U+00E0, ...).
_FLAG_SPACE = frozenset("\t\n\v\f\r ")
_FLAG_SPLIT_BYTES = (0x85, 0xA0)
# BuildKit's reWhitespace, which splits the keyword from the rest.
_CMD_SPACE = frozenset("\t\v\f\r ")
# Go RE2's \s is ASCII: [\t\n\f\r ].
_DIRECTIVE = re.compile(r"#[\t\n\f\r ]*([a-zA-Z][a-zA-Z0-9]*)[\t\n\f\r ]*=[\t\n\f\r ]*(.+?)[\t\n\f\r ]*\Z", re.DOTALL)
_JSON_SPACE = " \t\n\r"
_BOM = "\ufeff"
_NESTED = frozenset({"ONBUILD", "HEALTHCHECK"})


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
                   and any(b in _FLAG_SPLIT_BYTES for b in c.encode("utf-8")[1:])), 0)
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
        out.append(_instruction(cmd, lines, starts, escape, path))
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
_COMMENT_LINE = re.compile("^(?:(?<![\\s\\S])" + _BOM + ")?[" + re.escape("".join(sorted(_GO_SPACE - {"\n"})))
                           + "]*(#)[^\n]*", re.MULTILINE)
_HEREDOC_MARK = re.compile(r"<<(-?)")


def _heredocs(cmd, args_text: str, lines: list[str], starts: list[int], own_last: int,
              path: str) -> tuple[Heredoc, ...]:
    """Where the bodies BuildKit read for ``cmd`` are: each runs up to its terminator line."""
    chomps = [m.group(1) == "-" for m in _HEREDOC_MARK.finditer(args_text)]
    out = []
    line = own_last + 1
    text_end = starts[-1] + len(lines[-1]) if lines else 0
    for k, doc in enumerate(cmd.heredocs):
        count = doc.content.count("\n")
        start = starts[line] if line < len(starts) else text_end
        end_line = line + count
        end = starts[end_line] if end_line < len(starts) else text_end
        body = "\n".join(lines[line:end_line]) + ("\n" if count else "")
        if body != doc.content:
            raise InternalError(f"{path}:{cmd.start_line}: heredoc {doc.name!r} read here differs from BuildKit's")
        # ``<<-`` markers are matched to bodies in order; when the count differs, chomp is unknown: assume it
        chomp = chomps[k] if len(chomps) == len(cmd.heredocs) else True
        out.append(Heredoc(doc.name, start, end, chomp))
        line = end_line + 1  # past the terminator
    return tuple(out)


# -- directives ---------------------------------------------------------------


def _escape_char(lines: list[str], path: str) -> str:
    """The escape character set by the directives at the top (default ``\\``)."""
    escape_old = escape_new = "\\"
    old_done = False
    seen_check = False
    for i, raw in enumerate(lines):
        line = _trim_newline(raw)
        if i == 0 and line.startswith(_BOM):
            line = line[1:]
        line = _lstrip_go(line)
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


# -- one instruction ------------------------------------------------------------


def _trim_newline(s: str) -> str:
    return s.rstrip("\r\n")


def _lstrip_go(s: str) -> str:
    i = 0
    while i < len(s) and s[i] in _GO_SPACE:
        i += 1
    return s[i:]


def _continuation(line: str, escape: str) -> int:
    """Index of the line-continuation character in ``line`` (already without
    its newline), or -1. BuildKit: ``([^E])E[ \\t]*$|^E[ \\t]*$``."""
    j = len(line)
    while j > 0 and line[j - 1] in " \t":
        j -= 1
    if j == 0 or line[j - 1] != escape:
        return -1
    k = j - 1
    if k > 0 and line[k - 1] == escape:
        return -1
    return k


class _Logical:
    """The logical line Docker builds from an instruction's physical lines,
    with the source offset of each of its characters."""

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.seg_l: list[int] = []  # start index in the logical line of each segment
        self.seg_src: list[int] = []  # its start offset in the source

    def add(self, s: str, src: int) -> None:
        if s:
            self.seg_l.append(len(self.chars))
            self.seg_src.append(src)
            self.chars.extend(s)

    @property
    def text(self) -> str:
        return "".join(self.chars)

    def src(self, i: int) -> int:
        """Source offset of logical character ``i``."""
        k = bisect.bisect_right(self.seg_l, i) - 1
        return self.seg_src[k] + (i - self.seg_l[k])

    def contiguous(self, i: int, j: int) -> bool:
        """Whether logical characters ``i..j-1`` are one run of the source."""
        return self.src(j - 1) - self.src(i) == j - 1 - i


def _instruction(cmd, lines: list[str], starts: list[int], escape: str, path: str) -> Instruction:
    first = cmd.start_line - 1
    logical = _Logical()
    verbatim = escape == "\\"  # for the shell form; the exec form is judged by its tokens
    last_content = first  # last physical line that gave text
    i = first
    while i < len(lines):
        raw = _trim_newline(lines[i])
        src = starts[i]
        if i == first:
            if i == 0 and raw.startswith(_BOM):
                raw, src = raw[1:], src + 1
            stripped = _lstrip_go(raw)
            src += len(raw) - len(stripped)
            raw = stripped
            if raw.startswith("#"):
                raw = ""
        else:
            body = _lstrip_go(raw)
            if body.startswith("#") or body == "":
                verbatim = False  # Docker drops it, the shell would not
                i += 1
                continue
        last_content = i
        k = _continuation(raw, escape)
        if k < 0:
            logical.add(raw, src)
            break
        if k + 1 != len(raw):
            verbatim = False  # blanks after the continuation character
        logical.add(raw[:k], src)
        i += 1
    own_last = min(i, len(lines) - 1)  # last physical line read for the instruction itself
    line_text = logical.text
    end = starts[last_content] + len(_trim_newline(lines[last_content]))

    # keyword: splitCommand trims with TrimSpace, then splits on [\t\v\f\r ]+
    p = 0
    while p < len(line_text) and line_text[p] in _GO_SPACE:
        p += 1
    stop = len(line_text)
    while stop > p and line_text[stop - 1] in _GO_SPACE:  # TrimSpace's right end: a keyword ends there too
        stop -= 1
    q = p
    while q < stop and line_text[q] not in _CMD_SPACE:
        q += 1
    keyword = line_text[p:q]
    if keyword.upper() != cmd.cmd.upper():
        raise InternalError(
            f"{path}:{cmd.start_line}: Dockerfile keyword {keyword!r} read here, {cmd.cmd!r} by BuildKit"
        )
    kw_off = logical.src(p)
    kw_line = bisect.bisect_right(starts, kw_off) - 1
    col = kw_off - starts[kw_line] + 1
    if kw_line == 0 and lines[0].startswith(_BOM):
        col -= 1

    while q < len(line_text) and line_text[q] in _CMD_SPACE:
        q += 1
    try:  # splitCommand: the flags are taken from the line TrimSpace'd (an open quote ends at its end)
        flags, a = _builder_flags(line_text.rstrip("".join(_GO_SPACE)), q)
    except ValueError as exc:
        at = logical.src(exc.args[0])
        at_line = bisect.bisect_right(starts, at) - 1
        raise InputError(path, at_line + 1, at - starts[at_line] + 1,
                         "BuildKit reads this character of a builder flag as separate bytes (one of them a blank "
                         "to it): write the flag in ASCII") from None
    # the arguments are TrimSpace'd
    while a < len(line_text) and line_text[a] in _GO_SPACE:
        a += 1
    args_text = line_text[a:].rstrip("".join(_GO_SPACE))
    args_start = logical.src(a) if args_text else end
    offsets = tuple(logical.src(a + k) for k in range(len(args_text)))
    offsets += (offsets[-1] + 1 if offsets else end,)

    key = keyword.upper()
    heredoc = bool(cmd.heredocs)
    nested = key in _NESTED or cmd.sub_cmd is not None
    if heredoc or nested:
        verbatim = False

    # extractBuilderFlags builds each flag a byte a character: the binding gives a UTF-8 flag's bytes as Latin-1
    if not nested and tuple(f.encode("utf-8").decode("latin-1") for f in flags) != tuple(cmd.flags):
        raise InternalError(f"{path}:{cmd.start_line}: builder flags {flags} read here, {cmd.flags} by BuildKit")
    expect_last = cmd.end_line - 1
    if nested and expect_last > own_last:
        heredoc = True  # ONBUILD RUN <<EOF: the package reports no heredoc for it
    if not heredoc and own_last != expect_last:
        raise InternalError(
            f"{path}:{cmd.start_line}: instruction read up to line {own_last + 1}, BuildKit says {cmd.end_line}"
        )

    form = "shell"
    tokens: tuple[JsonToken, ...] = ()
    array_end = -1
    if cmd.json and not nested:
        verbatim = True
        parsed = _json_array(args_text)
        if parsed is None:
            raise InternalError(f"{path}:{cmd.start_line}: BuildKit read a JSON array that is not read here")
        spans, close = parsed
        toks = []
        for s, e in spans:
            value = _go_string(json.loads(args_text[s:e]))
            if not logical.contiguous(a + s, a + e):
                verbatim = False
            toks.append(JsonToken(value, logical.src(a + s), logical.src(a + e - 1) + 1))
            if json.loads(args_text[s:e]) != value:
                verbatim = False
        tokens = tuple(toks)
        if tuple(t.value for t in tokens) != tuple(cmd.value):
            raise InternalError(f"{path}:{cmd.start_line}: JSON array decoded differently from BuildKit")
        form = "exec"
        array_end = logical.src(a + close)
    elif not nested and key in ("CMD", "ENTRYPOINT", "RUN", "SHELL") and _json_array(args_text) is not None:
        raise InternalError(f"{path}:{cmd.start_line}: a JSON array read here, BuildKit read the shell form")
    elif not nested and key in ("CMD", "ENTRYPOINT", "RUN") and tuple(cmd.value) != ((args_text,) if args_text else ()):
        raise InternalError(f"{path}:{cmd.start_line}: shell-form arguments read differently from BuildKit")

    return Instruction(
        keyword=key,
        line=kw_line + 1,
        col=col,
        start=kw_off,
        end=end,
        args_start=args_start,
        form=form,
        tokens=tokens,
        array_end=array_end,
        escape=escape,
        heredoc=heredoc,
        verbatim=verbatim,
        logical=(args_text, offsets),
        heredocs=_heredocs(cmd, args_text, lines, starts, own_last, path) if cmd.heredocs and not nested else (),
    )


def _builder_flags(line: str, pos: int) -> tuple[list[str], int]:
    """BuildKit's ``extractBuilderFlags`` from ``line[pos:]``: the flags and
    the index where the rest of the line begins.

    BuildKit reads the line byte by byte: a character past ASCII is never a
    blank there (``\u2028`` is one to ``TrimSpace``, not to this loop), and
    one that holds the byte 0x85 or 0xA0 inside a flag would be cut in two:
    ``ValueError`` for that.
    """
    words: list[str] = []
    word: list[str] = []
    phase = "spaces"
    quote = ""
    blank_ok = False
    n = len(line)
    while pos <= n:
        ch = line[pos] if pos < n else ""
        if phase == "spaces":
            if pos == n:
                break
            if ch in _FLAG_SPACE:
                pos += 1
                continue
            if ch != "-" or pos + 1 == n or line[pos + 1] != "-":
                return words, pos
            phase = "word"
        if ch and ord(ch) > 0x7F and any(b in _FLAG_SPLIT_BYTES for b in ch.encode("utf-8")[1:]):
            raise ValueError(pos)
        if pos == n:
            w = "".join(word)
            if w != "--" and (blank_ok or w):
                words.append(w)
            break
        if phase == "word":
            if ch in _FLAG_SPACE:
                phase = "spaces"
                w = "".join(word)
                if w == "--":
                    return words, pos
                if blank_ok or w:
                    words.append(w)
                word = []
                blank_ok = False
                pos += 1
                continue
            if ch in "'\"":
                quote = ch
                blank_ok = True
                phase = "quote"
                pos += 1
                continue
            if ch == "\\":
                if pos + 1 == n:
                    pos += 1
                    continue
                pos += 1
                ch = line[pos]
            word.append(ch)
            pos += 1
            continue
        # phase == "quote"
        if ch == quote:
            phase = "word"
            pos += 1
            continue
        if ch == "\\":
            if pos + 1 == n:
                phase = "word"
                pos += 1
                continue
            pos += 1
            ch = line[pos]
        word.append(ch)
        pos += 1
    return words, n


def _reject_constant(name: str):
    raise ValueError(name)


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _json_array(args: str) -> tuple[list[tuple[int, int]], int] | None:
    """If ``args`` starts with a JSON array of strings (Go's json.Decoder reads
    the first value and ignores what follows): the spans of its string
    literals in ``args`` and the index of its closing ``]``; else None."""
    if not args.startswith("["):
        return None
    try:
        value, _ = _DECODER.raw_decode(args)
    except ValueError:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    spans = []
    i = 1
    while True:
        while args[i] in _JSON_SPACE:
            i += 1
        if args[i] == "]":
            return spans, i
        if args[i] == ",":
            i += 1
            continue
        # a string literal
        j = i + 1
        while args[j] != '"':
            j += 2 if args[j] == "\\" else 1
        spans.append((i, j + 1))
        i = j + 1


def _go_string(value: str) -> str:
    """The string Go's encoding/json gives: a lone surrogate becomes U+FFFD."""
    if any("\ud800" <= c <= "\udfff" for c in value):
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in value)
    return value


def _error_line(dockerfile, text: str, message: str) -> int:
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
