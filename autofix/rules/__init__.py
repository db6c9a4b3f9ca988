"""The rule registry.

``WRITTEN``: the checks of how a launch is written, in the order SGLang (and
before it, the host) meets them: Docker's reading of a Dockerfile, the
``--config`` merger, argparse. ``SETTINGS``: the derivations and settings
rules of SGLang's resolution steps, one package per SGLang hook module and
one module per step (``autofix/rules/moe_hook/handle_a2a_moe.py`` holds the
checks of ``handle_a2a_moe`` in ``sglang/srt/arg_groups/moe_hook.py``),
gathered from those modules; their order is their pipeline position
(``autofix.pipeline.run.order``), not this tuple's.
"""

from __future__ import annotations

from autofix.errors import UnknownRule
from autofix.pipeline.items import Derivation, SettingsRule
from autofix.pipeline.run import order
import importlib
import pkgutil

from autofix.rules import (config_file, deprecated, dockerfile, lora_paths, options, repeats, suppression, values,
                           versions)
from autofix.rules.base import CommentRule, WrittenRule
from autofix.schema import load

WRITTEN: tuple[WrittenRule, ...] = tuple(
    r for family in (dockerfile, config_file, versions, options, values, lora_paths, repeats, deprecated)
    for r in family.RULES
)
def _step_modules():
    """The step modules: each subpackage is named after an SGLang module (arg_groups/<name>.py), each of its
    modules after a step; a step with many checks may be a package of modules itself."""
    for package in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg):
        pkg = importlib.import_module(f"{__name__}.{package}")
        for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg.__name__}."):
            yield importlib.import_module(info.name)


def defined_in(item: Derivation | SettingsRule) -> str:
    """The module that defines ``item`` (its function's)."""
    return (item.check if isinstance(item, SettingsRule) else item.derive).__module__


def _items() -> tuple[Derivation | SettingsRule, ...]:
    """Every derivation and settings rule defined at module level in a step module, once each."""
    found: dict[int, Derivation | SettingsRule] = {}
    for module in _step_modules():
        for value in vars(module).values():
            if isinstance(value, (Derivation, SettingsRule)) and defined_in(value) == module.__name__:
                found.setdefault(id(value), value)
    return tuple(found.values())


SETTINGS: tuple[Derivation | SettingsRule, ...] = _items()
# What a user can look up by code: every rule, and every derivation that warns (its override code), the
# settings ones in pipeline order
Rule = WrittenRule | SettingsRule | Derivation
# The checks of autofix's own suppression comments (run by api.fix_source once the others have run)
COMMENTS: tuple[CommentRule, ...] = suppression.RULES
# (an override made by several declarations of one step, DWDP008, is documented by the first)
BY_CODE: dict[str, Rule] = {}
for _r in (*WRITTEN, *(it for it in order(SETTINGS, load()) if isinstance(it, SettingsRule) or it.code), *COMMENTS):
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
