"""The rule registry: every family listed by hand, in SGLang's pipeline order.

The order matters: SGLang stops at its first refusal, so the first violation
in this order is the one SGLang would report. Docker's reading of a
Dockerfile comes before SGLang sees a word; then the argparse-stage
families (argparse reading the words), then the settings checks of
``arg_groups/pipeline.py``.
"""

from __future__ import annotations

from autofix.errors import UnknownRule
from autofix.rules import config_file, deprecated, dockerfile, ep_dispatch, marlin, options, repeats, values, versions
from autofix.rules.base import Rule

# Docker's parser; the --config merger; argparse; then pipeline.py: handle_deprecated_*,
# handle_eplb_and_dispatch, validate_experimental_sgl_marlin
FAMILIES = (dockerfile, config_file, versions, options, values, repeats, deprecated, ep_dispatch, marlin)

RULES: tuple[Rule, ...] = tuple(r for family in FAMILIES for r in family.RULES)
BY_CODE: dict[str, Rule] = {r.code: r for r in RULES}
BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}


def get(code_or_name: str) -> Rule:
    """The rule with this code (``EP003``, any case) or name (``ep-dispatch-needs-a2a``).

    Raises ``UnknownRule``.
    """
    found = BY_CODE.get(code_or_name.upper()) or BY_NAME.get(code_or_name)
    if found is None:
        raise UnknownRule(f"unknown rule: {code_or_name}")
    return found
