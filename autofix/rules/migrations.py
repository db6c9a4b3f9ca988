"""Migrations the argument tables cannot tell by themselves, read off SGLang's code.

Data for ``versions.option_not_in_target_version``. When an old option and
its replacement share a field, the tables say enough and nothing is needed
here; a switch whose replacement is one *value* of another option, or an
option whose field went away, is listed with the SGLang line that shows it.
``settings`` are ``(flag, values)``: empty values keep the entry's own. No
settings and ``same``: the option did nothing, remove it. No settings and
not ``same``: there is no replacement, and ``note`` says what to do instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Moved:
    """What an option of another release becomes, and whether the meaning is the same."""

    settings: tuple[tuple[str, tuple[Any, ...]], ...]
    same: bool
    source: str
    note: str = ""


# Keyed by the option's spelling in the release it comes from. Sources are 0.5.23 paths unless marked.
MOVED: dict[str, Moved] = {
    "--prefill-round-robin-balance": Moved((), True, "0.5.19 server_args.py:3862",
                                           "it did nothing but warn since 0.5.9"),
    "--collect-tokens-histogram": Moved((), True, "0.5.19 server_args.py:3867",
                                        "it did nothing but warn; --enable-metrics collects the histograms"),
    "--disable-piecewise-cuda-graph": Moved((("--cuda-graph-backend-prefill", ("disabled",)),), True,
                                            "arg_groups/fields/exec_.py:621"),
    "--enable-breakable-cuda-graph": Moved((("--cuda-graph-backend-prefill", ("breakable",)),), True,
                                           "arg_groups/fields/exec_.py:621"),
    "--enforce-piecewise-cuda-graph": Moved((), False, "model_executor/cuda_graph_config.py:237",
                                            "its tc_piecewise backend was removed; pick --cuda-graph-backend-prefill"),
    "--cuda-graph-tc-compiler": Moved((), False, "model_executor/cuda_graph_config.py:187",
                                      "removed with the tc_piecewise backend"),
    "--piecewise-cuda-graph-compiler": Moved((), False, "model_executor/cuda_graph_config.py:187",
                                             "removed with the tc_piecewise backend"),
}
