"""Text a report can always print: a file name that is not UTF-8, a control character, and a stream that cannot
hold a character.

A name read from the disk or the command line that is not valid UTF-8 holds each byte that is not as a lone
surrogate (U+DC80 to U+DCFF: Python's ``surrogateescape``, ``os.fsdecode``), which UTF-8 text cannot hold. Every
report shows such a byte as ``\\xNN`` (``caf\\xe9.yaml``), as Python's ``backslashreplace`` shows bytes; SARIF's
URIs percent-encode the name's bytes instead (``caf%E9.yaml``, ``shared.artifact``), so they stay exact. The
file itself is still read and written by its real name.

``ERRORS`` is the name of the codec error handler that does the same on a stream, and escapes a character the
stream's encoding cannot hold (``\\xe9``, ``\\u2026``: an ASCII stdout): ``autofix.cli.main`` sets it on
stdout and stderr, so a report line never fails to print.

A name may also hold control characters (C0, a line break included, DEL, C1): a terminal runs ``\\e]0;...\\a``
or ``\\e[31m`` as a command, and a ``\\n`` splits a report line in two (a forged line for grep, a diff header for
another file). ``visible`` shows each as an escape (``\\x1b``, ``\\n``): every line of a human report is, but
for autofix's own colours and line breaks; a diff names its files as git quotes them (``diffs.diff_name``).
"""

from __future__ import annotations

import codecs
import re

ERRORS = "autofix-printable"


def _escape(exc: UnicodeError) -> tuple[str, int]:
    """The codec error handler ``ERRORS``: a surrogate-escaped byte as ``\\xNN``, any other character the
    encoding cannot hold as its ``backslashreplace`` escape."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for ch in exc.object[exc.start:exc.end]:
        n = ord(ch)
        if 0xDC80 <= n <= 0xDCFF:  # a byte that is not UTF-8, as os.fsdecode keeps it
            n -= 0xDC00
        out.append(f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}")
    return "".join(out), exc.end


codecs.register_error(ERRORS, _escape)  # a name to pass as ``errors=``; registering it again replaces it


def printable(text: str) -> str:
    """``text`` as valid UTF-8 text: unchanged, except each lone surrogate (a byte of a name that is not UTF-8)
    as ``\\xNN`` (another, which no name holds, as ``\\udXXX``)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", ERRORS).decode("utf-8")


# C0 (a line break and a tab included), DEL and C1: what a terminal may act on, or a reader take for a new line
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _shown(match: re.Match[str]) -> str:
    ch = match.group()
    return _NAMED.get(ch) or f"\\x{ord(ch):02x}"


def visible(text: str) -> str:
    """``text`` as one line a terminal shows as it is: ``printable``, and each control character (C0, a line
    break and a tab included, DEL, C1) as its escape (``\\n``, ``\\t``, ``\\r``, else ``\\xNN``): ``str -> str``."""
    if text.isprintable():  # most text: no control character, no lone surrogate
        return text
    return _CONTROL.sub(_shown, printable(text))


# the control characters but the line breaks (a workflow command encodes those itself, and GitHub decodes them)
_CONTROL_INLINE = re.compile("[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def visible_but_breaks(text: str) -> str:
    """``visible(text)`` with ``\\r`` and ``\\n`` kept as they are (``str -> str``): for a GitHub workflow
    command's value, where they are percent-encoded and GitHub reads them back."""
    if text.isprintable():
        return text
    return _CONTROL_INLINE.sub(_shown, printable(text))
