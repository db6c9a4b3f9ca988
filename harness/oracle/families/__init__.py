"""The fidelity harness's rule families past MoE and parallelism: one module each.

A family module holds ``NAME`` (what ``scripts/fidelity.py --family`` takes) and
``settings(draw, c, tp, divisors)``, a hypothesis-drawn fragment: it adds to the
config ``c`` (dest -> value) the settings its rules read, drawn so that SGLang's
other checks mostly pass and every value the rules branch on comes up often.
``reachable_configs`` in ``harness/oracle/fidelity.py`` draws the MoE/parallel base
and then, for ``all``, each family now and then; for one family, that family
always.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def modules() -> dict[str, ModuleType]:
    """Every family module of this package, by ``NAME``, in module-name order."""
    out: dict[str, ModuleType] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        mod = importlib.import_module(f"{__name__}.{info.name}")
        out[mod.NAME] = mod
    return out
