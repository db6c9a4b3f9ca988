"""Input adapters: text -> launches (settings + where they are), ops -> edits; one module per kind of input.

Each adapter module implements ``contract.Adapter`` whole: ``NAME``, ``SOURCE`` (``config``,
``command`` or ``recipe``), ``CONFIG_FILES``, ``read(text, path, schema) -> list[Launch]``,
``edit(text, launch, ops, schema) -> list[Edit]`` for settings ops, ``edit_entries`` for entry ops,
``comments(text, path) -> list[(start, end)]``, where the comments of its own syntax are (a suppression
marker counts only there, or in a comment of a script a launch is read in: ``embedded.script_comments``),
``looks_like_config`` and ``config_argument``. What differs between adapters is one of those members:
nothing outside this package asks an adapter's name. ``detect`` picks one from a file's name and content;
``by_name`` gives one by ``NAME``. ``syntax`` holds what they read.

May import: ``autofix.common``, ``autofix.schema``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter

# Text that launches SGLang (also how the shell adapter finds launch lines). Written to start with the
# literal "sglang" so the search skips ahead at C speed: 50x faster on a 50 MB file than the plain
# alternation `sglang\.launch_server|\bsglang\s+serve\b`, which it matches span for span.
LAUNCH = re.compile(r"sglang(?:\.launch_server|(?<=\bsglang)\s+serve\b)")
# An srt-slurm recipe: SGLang settings under backend.sglang_config.
SRT_SLURM = re.compile(r"^[ \t]+sglang_config[ \t]*:", re.MULTILINE)
# YAML keys that hold a container's words (Kubernetes, compose).
CONTAINER = re.compile(r"^[ \t]*(?:-[ \t]+)?(?:command|args|entrypoint)[ \t]*:", re.MULTILINE)
# A Dockerfile: its first instruction (after comments and parser directives) is FROM or ARG.
DOCKERFILE = re.compile(r"\A(?:\ufeff)?(?:[ \t]*(?:#[^\n]*)?\r?\n)*[ \t]*(?:FROM|ARG)[ \t]", re.IGNORECASE)


def detect(path: str, text: str) -> Adapter | None:
    """The adapter for this file, or None when it is no SGLang config or launch.

    Decided from the content, with the name as a hint: a Dockerfile (named
    ``Dockerfile``, or named like one and starting with ``FROM``/``ARG``, or
    stdin that starts so); YAML (by name, or on stdin) that
    holds an srt-slurm ``sglang_config``, or containers (``command:``,
    ``args:``, ``entrypoint:``) that launch SGLang; other YAML is an SGLang
    ``--config`` file; any other text that launches SGLang is a shell script.
    """
    from autofix.common.filenames import DOCKERFILE_NAMES, is_dockerfile, is_yaml

    if is_dockerfile(path) or (path == "-" and DOCKERFILE.match(text)):
        named_alone = path.replace("\\", "/").rsplit("/", 1)[-1].lower() in DOCKERFILE_NAMES
        if not named_alone and DOCKERFILE.match(text) is None:
            return None  # `Dockerfile.md`, `dockerfile.py`: named like one, written as something else
        return by_name("dockerfile") if LAUNCH.search(text) else None
    if is_yaml(path) or path == "-":
        if "sglang_config" in text and SRT_SLURM.search(text):  # `in` first: a scan at memchr speed
            return by_name("srt-slurm")
        if LAUNCH.search(text) and CONTAINER.search(text):
            return by_name("manifest")  # Kubernetes or compose: containers that launch SGLang
        if is_yaml(path) or not LAUNCH.search(text):
            return by_name("yaml")
    if LAUNCH.search(text):
        return by_name("shell")
    return None


NAMES = ("yaml", "shell", "srt-slurm", "manifest", "dockerfile")


def by_name(name: str) -> Adapter:
    """The adapter called ``name`` (one of ``NAMES``); raises KeyError."""
    found = _LOADED.get(name)
    if found is None:  # imported on first use (start-up stays lazy), then kept: asked for every file
        import importlib

        found = _LOADED[name] = cast("Adapter", importlib.import_module(_MODULES[name]))
    return found


_MODULES = {"yaml": "autofix.adapters.yaml_config", "shell": "autofix.adapters.argv",
            "srt-slurm": "autofix.adapters.srtslurm", "manifest": "autofix.adapters.manifest",
            "dockerfile": "autofix.adapters.dockerfile"}
_LOADED: dict[str, Adapter] = {}
