"""Format adapters: text -> launches (settings + where they are), ops -> edits.

Each adapter module has ``NAME``, ``SOURCE`` (``config`` or ``command``),
``read(text, path, schema) -> list[Launch]``, ``edit(text, launch, ops, schema)
-> list[Edit]`` for settings ops and ``edit_entries`` for entry ops. ``detect`` picks one
from a file's name and content.
"""

from __future__ import annotations

import re
from types import ModuleType

# Text that launches SGLang (also how the shell adapter finds launch lines).
LAUNCH = re.compile(r"sglang\.launch_server|\bsglang\s+serve\b")
# An srt-slurm recipe: SGLang settings under backend.sglang_config.
SRT_SLURM = re.compile(r"^[ \t]+sglang_config[ \t]*:", re.M)


def detect(path: str, text: str) -> ModuleType | None:
    """The adapter for this file, or None when it is no SGLang config or launch.

    ``.yaml``/``.yml`` files are SGLang ``--config`` files; any other text
    that runs ``sglang.launch_server`` or ``sglang serve`` is a launch script;
    stdin that does neither is read as a config.
    """
    if path.lower().endswith((".yaml", ".yml")):
        if SRT_SLURM.search(text):
            return by_name("srt-slurm")
        return by_name("yaml")
    if LAUNCH.search(text):
        return by_name("shell")  # imports bashlex, whose parser tables cost ~80 ms
    if path == "-":
        return by_name("yaml")
    return None


def by_name(name: str) -> ModuleType:
    """The adapter called ``name`` (``yaml`` or ``shell``); raises KeyError."""
    import importlib

    return importlib.import_module({"yaml": "autofix.formats.yaml_config", "shell": "autofix.formats.argv",
                                    "srt-slurm": "autofix.formats.srtslurm"}[name])
