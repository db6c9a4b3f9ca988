"""Format adapters: text -> launches (settings + where they are), ops -> edits.

Each adapter module has ``NAME``, ``read(text, path, schema) -> list[Launch]``
and ``edit(text, launch, ops, schema) -> list[Edit]``. ``detect`` picks one
from a file's name and content.
"""

from __future__ import annotations

import re
from types import ModuleType

_LAUNCH = re.compile(r"sglang\.launch_server|\bsglang\s+serve\b")


def detect(path: str, text: str) -> ModuleType | None:
    """The adapter for this file, or None when it is no SGLang config or launch.

    ``.yaml``/``.yml`` files are SGLang ``--config`` files; shell scripts
    (``.sh``, ``.bash`` or a shell shebang) and stdin are launch scripts when they
    mention ``sglang.launch_server`` or ``sglang serve``.
    """
    from autofix.formats import argv, yaml_config

    lower = path.lower()
    if lower.endswith((".yaml", ".yml")):
        return yaml_config
    is_shell = lower.endswith((".sh", ".bash")) or re.match(r"#!.*\b(ba|z|da|k)?sh\b", text)
    if is_shell or path == "-":
        if _LAUNCH.search(text):
            return argv
        if path == "-":
            return yaml_config
    return None


def by_name(name: str) -> ModuleType:
    """The adapter called ``name`` (``yaml`` or ``shell``); raises KeyError."""
    from autofix.formats import argv, yaml_config

    return {"yaml": yaml_config, "shell": argv}[name]
