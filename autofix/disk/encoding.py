"""Which text a file's bytes hold: UTF-8 text, byte for byte (``decode``, which refuses anything else, UTF-16
and UTF-32 text that happens to be valid UTF-8 included); for bytes that are not, the UTF-16 or UTF-32 form their
first bytes name (``unicode_form``) and the text they most likely hold (``as_meant``).
"""

from __future__ import annotations

from autofix.common.errors import InputError


def decode(data: bytes, path: str) -> str:
    """UTF-8 text, BOM kept as ``\\ufeff`` and newlines untouched, so encoding it gives ``data`` back.

    Raises ``InputError`` at the first byte that is not UTF-8, and for text in UTF-16 or UTF-32 that is valid
    UTF-8 all the same (no byte order mark, ASCII: ``t\\0p\\0``; ``unicode_form``) at its first zero byte,
    which no reader of UTF-8 takes (YAML refuses the character, bash the file as binary).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_utf8(data, exc.start, path) from None
    if b"\0" in data[:4] and unicode_form(data) is not None:  # (four bytes looked at: a text's cost is its decode)
        raise _not_utf8(data, data.index(0), path)
    return text


def _not_utf8(data: bytes, at: int, path: str) -> InputError:
    """The ``InputError`` for ``data``, not UTF-8 text from byte ``at`` on, naming the UTF-16 or UTF-32 form it
    is in when its first bytes tell (``unicode_form``), at its first zero byte when that comes first (the
    mark, or the first character, of a UTF-32BE text)."""
    form = unicode_form(data)
    if form is not None:
        zero = data.find(0)
        at = zero if 0 <= zero < at else at
    head = data[:at]
    line = head.count(b"\n") + 1
    col = at - (head.rfind(b"\n") + 1) + 1
    why = f"byte 0x{data[at]:02x}" + ("" if form is None else f": {form[1]}")
    return InputError(path, line, col, f"not UTF-8 text ({why})")


# The UTF-16 and UTF-32 forms a text's first bytes name (YAML 1.2, 5.2 "Character Encodings"; RFC 4627's table
# for JSON is the same): a byte order mark (UTF-32LE's starts with UTF-16LE's: it is looked for first), else the
# zero bytes around a first character that is ASCII.
_MARKS = ((b"\xff\xfe\0\0", "utf-32", "a UTF-32LE byte order mark"),
          (b"\0\0\xfe\xff", "utf-32", "a UTF-32BE byte order mark"),
          (b"\xff\xfe", "utf-16", "a UTF-16LE byte order mark"),
          (b"\xfe\xff", "utf-16", "a UTF-16BE byte order mark"))


def unicode_form(data: bytes) -> tuple[str, str] | None:
    """(the Python codec, what to call it) of the UTF-16 or UTF-32 form ``data`` is written in, by its first
    bytes (``_MARKS``, then the zero bytes: YAML 1.2's detection); None for any other text (UTF-8, or none).
    The codec of a marked text reads the mark as one and drops it."""
    for mark, codec, name in _MARKS:
        if data.startswith(mark):
            return codec, name
    head = data[:4]
    if len(head) == 4 and head[:3] == b"\0\0\0" and head[3]:
        return "utf-32-be", "UTF-32BE without a byte order mark"
    if len(head) == 4 and head[0] and head[1:] == b"\0\0\0":
        return "utf-32-le", "UTF-32LE without a byte order mark"
    if len(head) >= 2 and not head[0] and head[1]:
        return "utf-16-be", "UTF-16BE without a byte order mark"
    if len(head) >= 2 and head[0] and not head[1]:
        return "utf-16-le", "UTF-16LE without a byte order mark"
    return None


def as_meant(data: bytes) -> str:
    """The text a file that is not UTF-8 text (``decode`` refused it) most likely holds, to tell what it is
    meant as (an SGLang config, a launch), never to check it: read in the UTF-16 or UTF-32 form its first
    bytes name (``unicode_form``), else as UTF-8 (its mark dropped); each byte that does not decode is
    U+FFFD (Latin-1 text keeps its ASCII words)."""
    form = unicode_form(data)
    return data.decode(form[0] if form is not None else "utf-8-sig", "replace")
