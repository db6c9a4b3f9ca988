"""The rule registry.

``WRITTEN``: the checks of how a launch is written, in the order SGLang (and
before it, the host) meets them: Docker's reading of a Dockerfile, the
``--config`` merger, argparse. ``SETTINGS``: the derivations and settings
rules of SGLang's resolution steps, one module per SGLang hook module
(``autofix/rules/moe_hook.py`` mirrors ``sglang/srt/arg_groups/moe_hook.py``);
their order is their pipeline position (``autofix.pipeline.run.order``),
not this list's.
"""

from __future__ import annotations

from autofix.errors import UnknownRule
from autofix.pipeline.items import Derivation, SettingsRule
from autofix.pipeline.run import order
from autofix.rules import (
    config_file,
    deprecated,
    dockerfile,
    mega_moe_hook,
    moe_hook,
    options,
    parallel_hook,
    repeats,
    validation_hook,
    values,
    versions,
)
from autofix.rules.base import WrittenRule
from autofix.schema import load

WRITTEN: tuple[WrittenRule, ...] = tuple(
    r for family in (dockerfile, config_file, versions, options, values, repeats, deprecated) for r in family.RULES
)
SETTINGS: tuple[Derivation | SettingsRule, ...] = tuple(
    it for hook in (mega_moe_hook, parallel_hook, moe_hook, validation_hook) for it in hook.SETTINGS
)
# What a user can look up by code: every rule, and every derivation that warns (its override code), the
# settings ones in pipeline order
Rule = WrittenRule | SettingsRule | Derivation
# (an override made by several declarations of one step, DWDP008, is documented by the first)
BY_CODE: dict[str, Rule] = {}
for _r in (*WRITTEN, *(it for it in order(SETTINGS, load()) if isinstance(it, SettingsRule) or it.code)):
    BY_CODE.setdefault(_r.code, _r)
RULES: tuple[Rule, ...] = tuple(BY_CODE.values())
BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}


def get(code_or_name: str) -> Rule:
    """The rule with this code (``EP003``, any case) or name (``ep-dispatch-needs-a2a``).

    Raises ``UnknownRule``.
    """
    found = BY_CODE.get(code_or_name.upper()) or BY_NAME.get(code_or_name)
    if found is None:
        raise UnknownRule(f"unknown rule: {code_or_name}")
    return found
