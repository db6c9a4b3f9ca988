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

    ``.yaml``/``.yml`` files are SGLang ``--config`` files; any other text
    that runs ``sglang.launch_server`` or ``sglang serve`` is a launch script;
    stdin that does neither is read as a config.
    """
    from autofix.formats import argv, yaml_config

    if path.lower().endswith((".yaml", ".yml")):
        return yaml_config
    if _LAUNCH.search(text):
        return argv
    if path == "-":
        return yaml_config
    return None


def by_name(name: str) -> ModuleType:
    """The adapter called ``name`` (``yaml`` or ``shell``); raises KeyError."""
    from autofix.formats import argv, yaml_config

    return {"yaml": yaml_config, "shell": argv}[name]
