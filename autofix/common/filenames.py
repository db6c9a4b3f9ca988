"""What a file's name says it is: a YAML file (``is_yaml``), a Dockerfile (``is_dockerfile``), a file that may
well launch nothing (``launcher_kind``), one a directory walk looks at (``WALK_SUFFIXES``). Names only: nothing
here touches the disk, so the walk (``autofix.disk.walk``), the adapters' choice of one
(``autofix.adapters.detect``), the core's ``--config`` look-up and the ``--config`` rules all ask it.
"""

from __future__ import annotations

import os

# What a directory walk looks at (files named on the command line are always read).
WALK_SUFFIXES = (".yaml", ".yml", ".sh", ".bash")
SHELL_SUFFIXES = (".sh", ".bash")
DOCKERFILE_NAMES = ("dockerfile", "containerfile")


def is_dockerfile(path: str) -> bool:
    """``Dockerfile``, ``Dockerfile.gpu``, ``serve.dockerfile`` (and the same for ``Containerfile``)."""
    name = os.path.basename(path).lower()
    return name in DOCKERFILE_NAMES or name.startswith(_DOCKERFILE_PREFIXES) or name.endswith(_DOCKERFILE_SUFFIXES)


_DOCKERFILE_PREFIXES = tuple(f"{n}." for n in DOCKERFILE_NAMES)
_DOCKERFILE_SUFFIXES = tuple(f".{n}" for n in DOCKERFILE_NAMES)


def is_yaml(path: str) -> bool:
    """Whether ``path`` is named like a YAML file: ``.yaml`` or ``.yml``, any case.

    The same test SGLang's ``--config`` reader makes before it opens a file
    (``_validate_yaml_file``, server_args_config_parser.py:159; CFG007).
    """
    return path.lower().endswith((".yaml", ".yml"))


def launcher_kind(path: str) -> bool:
    """Files that may well launch nothing (a shell script, a Dockerfile): skipped quietly when they do not."""
    return path.lower().endswith(SHELL_SUFFIXES) or is_dockerfile(path)
