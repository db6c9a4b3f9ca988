"""Text a report can always print: a file name that is not UTF-8, and a stream that cannot hold a character.

A name read from the disk or the command line that is not valid UTF-8 holds each byte that is not as a lone
surrogate (U+DC80 to U+DCFF: Python's ``surrogateescape``, ``os.fsdecode``), which UTF-8 text cannot hold. Every
report shows such a byte as ``\\xNN`` (``caf\\xe9.yaml``), as Python's ``backslashreplace`` shows bytes; SARIF's
URIs percent-encode the name's bytes instead (``caf%E9.yaml``, ``shared.artifact``), so they stay exact. The
file itself is still read and written by its real name.

``ERRORS`` is the name of the codec error handler that does the same on a stream, and escapes a character the
stream's encoding cannot hold (``\\xe9``, ``\\u2026``: an ASCII stdout): ``autofix.cli`` sets it on
stdout and stderr, so a report line never fails to print.
"""

from __future__ import annotations

import codecs

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
