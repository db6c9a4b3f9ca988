"""The only module that touches files and streams (besides ``cli``)."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from autofix.errors import InputError

# What a directory walk looks at (files named on the command line are always read).
WALK_SUFFIXES = (".yaml", ".yml", ".sh")
SHELL_SUFFIXES = (".sh", ".bash")
DOCKERFILE_NAMES = ("dockerfile", "containerfile")


def is_dockerfile(path: str) -> bool:
    """``Dockerfile``, ``Dockerfile.gpu``, ``serve.dockerfile`` (and the same for ``Containerfile``)."""
    name = os.path.basename(path).lower()
    return name in DOCKERFILE_NAMES or name.startswith(tuple(f"{n}." for n in DOCKERFILE_NAMES)) \
        or name.endswith(tuple(f".{n}" for n in DOCKERFILE_NAMES))


def is_yaml(path: str) -> bool:
    """Whether ``path`` is named like a YAML file: ``.yaml`` or ``.yml``, any case.

    The same test SGLang's ``--config`` reader makes before it opens a file
    (``_validate_yaml_file``, server_args_config_parser.py:159; CFG007).
    """
    return path.lower().endswith((".yaml", ".yml"))


def launcher_kind(path: str) -> bool:
    """Files that may well launch nothing (a shell script, a Dockerfile): skipped quietly when they do not."""
    return path.lower().endswith(SHELL_SUFFIXES) or is_dockerfile(path)
_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox"}


def decode(data: bytes, path: str) -> str:
    """UTF-8 text, BOM kept as ``\\ufeff`` and newlines untouched, so encoding it gives ``data`` back.

    Raises ``InputError`` at the first byte that is not UTF-8.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        head = data[: exc.start]
        line = head.count(b"\n") + 1
        col = exc.start - (head.rfind(b"\n") + 1) + 1
        raise InputError(path, line, col, f"not UTF-8 text (byte 0x{data[exc.start]:02x})") from None


def read_text(path: str) -> str:
    """The text of ``path`` (``-`` = stdin). Raises ``InputError`` when unreadable."""
    if path == "-":
        return decode(sys.stdin.buffer.read(), path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, 0, 0, f"cannot read: {exc.strerror or exc}") from None
    return decode(data, path)


def write_atomic(path: str, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) via a temp file in the same directory.

    A symlink is followed (the file it points to is replaced); the file's
    permission bits, and its owner where the process may set it, are kept; on
    any failure the original is untouched and the temp file removed. Raises
    ``OSError``.
    """
    target = Path(os.path.realpath(path))  # through a symlink: fix the file it points to
    st = target.stat()
    mode = st.st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".autofix", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)  # keep the owner when we may (root)
            except PermissionError:
                pass
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def expand(paths: list[str]) -> Iterator[tuple[str, bool]]:
    """(path, named) for each input: named files as given, directories walked in sorted order."""
    for p in paths:
        if p != "-" and os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
                for name in sorted(files):
                    if name.lower().endswith(WALK_SUFFIXES) or is_dockerfile(name):
                        yield os.path.normpath(os.path.join(root, name)), False
        else:
            yield p, True


def read_if_file(path: str) -> str | None:
    """The text of ``path`` when it is a readable UTF-8 file, else None (missing, a directory, unreadable)."""
    if not os.path.isfile(path):
        return None
    try:
        return read_text(path)
    except InputError:
        return None
