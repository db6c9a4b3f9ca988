"""One Dockerfile instruction, to the character: what it is (``Instruction``, the elements of its exec form's JSON
array, ``JsonToken``, the heredoc bodies after it, ``Heredoc``), and how its offsets are found (``instruction``):
BuildKit's rules for one instruction applied again to the lines BuildKit's parser says it spans, and checked
against what BuildKit read (keyword, line range, form, flags and decoded values; a disagreement raises
``autofix.common.errors.InternalError`` rather than giving a wrong offset). ``dockerfile_syntax`` reads the file.

BuildKit's rules for one instruction, as applied here:

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
from typing import TYPE_CHECKING, NoReturn

from autofix.common.errors import InputError, InternalError

if TYPE_CHECKING:  # what BuildKit's parser gives (the binding, a C extension, has no types): for the checker only
    from typing import Protocol

    class BuildKitHeredoc(Protocol):
        """A heredoc body as BuildKit read it (``dockerfile.Heredoc``)."""

        name: str
        content: str

    class BuildKitCommand(Protocol):
        """One instruction as BuildKit read it (``dockerfile.Command``: its fields autofix reads)."""

        cmd: str  # the keyword as written ("" for a line of continuation characters only)
        sub_cmd: str | None  # the nested instruction's keyword (ONBUILD RUN ...)
        json: bool  # the exec form
        start_line: int  # 1-based, both
        end_line: int
        flags: tuple[str, ...]  # builder flags, each UTF-8 read as Latin-1
        value: tuple[str, ...]  # the arguments as BuildKit read them (the exec form: the decoded strings)
        heredocs: tuple[BuildKitHeredoc, ...]


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
GO_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# extractBuilderFlags tests unicode.IsSpace(rune(byte)) byte by byte: of the UTF-8 bytes, the ASCII blanks, and
# 0x85 and 0xA0, which are never a character's first byte but are the second byte of some (U+0145, U+00E0, ...).
_FLAG_SPACE = frozenset("\t\n\v\f\r ")
FLAG_SPLIT_BYTES = (0x85, 0xA0)
# BuildKit's reWhitespace, which splits the keyword from the rest.
_CMD_SPACE = frozenset("\t\v\f\r ")
_JSON_SPACE = " \t\n\r"
BOM = "\ufeff"
_NESTED = frozenset({"ONBUILD", "HEALTHCHECK"})
_HEREDOC_MARK = re.compile(r"<<(-?)")


def _heredocs(cmd: BuildKitCommand, args_text: str, lines: list[str], starts: list[int], own_last: int,
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


# -- one instruction ------------------------------------------------------------


def trim_newline(s: str) -> str:
    return s.rstrip("\r\n")


def lstrip_go(s: str) -> str:
    i = 0
    while i < len(s) and s[i] in GO_SPACE:
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


def instruction(cmd: BuildKitCommand, lines: list[str], starts: list[int], escape: str, path: str) -> Instruction:
    first = cmd.start_line - 1
    logical = _Logical()
    verbatim = escape == "\\"  # for the shell form; the exec form is judged by its tokens
    last_content = first  # last physical line that gave text
    i = first
    while i < len(lines):
        raw = trim_newline(lines[i])
        src = starts[i]
        if i == first:
            if i == 0 and raw.startswith(BOM):
                raw, src = raw[1:], src + 1
            stripped = lstrip_go(raw)
            src += len(raw) - len(stripped)
            raw = stripped
            if raw.startswith("#"):
                raw = ""
        else:
            body = lstrip_go(raw)
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
    end = starts[last_content] + len(trim_newline(lines[last_content]))

    # keyword: splitCommand trims with TrimSpace, then splits on [\t\v\f\r ]+
    p = 0
    while p < len(line_text) and line_text[p] in GO_SPACE:
        p += 1
    stop = len(line_text)
    while stop > p and line_text[stop - 1] in GO_SPACE:  # TrimSpace's right end: a keyword ends there too
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
    if kw_line == 0 and lines[0].startswith(BOM):
        col -= 1

    while q < len(line_text) and line_text[q] in _CMD_SPACE:
        q += 1
    try:  # splitCommand: the flags are taken from the line TrimSpace'd (an open quote ends at its end)
        flags, a = _builder_flags(line_text.rstrip("".join(GO_SPACE)), q)
    except ValueError as exc:
        at = logical.src(exc.args[0])
        at_line = bisect.bisect_right(starts, at) - 1
        raise InputError(path, at_line + 1, at - starts[at_line] + 1,
                         "BuildKit reads this character of a builder flag as separate bytes (one of them a blank "
                         "to it): write the flag in ASCII") from None
    # the arguments are TrimSpace'd
    while a < len(line_text) and line_text[a] in GO_SPACE:
        a += 1
    args_text = line_text[a:].rstrip("".join(GO_SPACE))
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
        if ch and ord(ch) > 0x7F and any(b in FLAG_SPLIT_BYTES for b in ch.encode("utf-8")[1:]):
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


def _reject_constant(name: str) -> NoReturn:
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
    spans: list[tuple[int, int]] = []
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
