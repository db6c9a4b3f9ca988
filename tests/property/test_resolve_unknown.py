"""A value only known at launch (``--tp $TP``) hides only what depends on it.

The resolved view marks a derived value UNKNOWN when some unknown setting
could change it. Soundness: whatever the unknown settings turn out to be,
a derived value the view does give is the one SGLang's pipeline (as
``resolve`` reproduces it) derives.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from strategies import SCHEMA, values

from autofix.model import UNKNOWN
from autofix.resolve import View

INPUTS = ("moe_runner_backend", "moe_a2a_backend", "ep_size", "tp_size", "dwdp_size", "quantization",
          "enable_waterfill", "ep_dispatch_algorithm", "enable_eplb", "init_expert_location")
DERIVED = ("moe_runner_backend", "moe_a2a_backend", "ep_size", "ep_dispatch_algorithm")


def _value(dest: str):
    if dest in ("dwdp_size",):
        return st.sampled_from((1, 2, 4))
    if SCHEMA[dest].is_store_true:
        return st.booleans()
    return values(dest)


@given(data=st.data())
def test_a_derived_value_the_view_gives_holds_whatever_the_unknowns_are(data):
    given_ = data.draw(st.dictionaries(st.sampled_from(INPUTS), st.none(), max_size=len(INPUTS)), label="dests")
    explicit = {d: data.draw(_value(d), label=d) for d in given_}
    unknown = data.draw(st.sets(st.sampled_from(sorted(explicit)) if explicit else st.nothing()), label="unknown")
    view = View({d: UNKNOWN if d in unknown else v for d, v in explicit.items()}, SCHEMA)
    for _ in range(4):
        concrete = dict(explicit)
        # an unknown may also stand for the default (a `"$@"` that does not set it)
        concrete.update({d: data.draw(st.one_of(st.just(SCHEMA.default(d)), _value(d)), label=f"then {d}")
                         for d in unknown})
        real = View(concrete, SCHEMA)
        for d in DERIVED:
            assert view[d] is UNKNOWN or view[d] == real[d], (d, view[d], real[d])


def test_an_unknown_tp_size_keeps_the_a2a_backend_known():
    view = View({"tp_size": UNKNOWN, "ep_dispatch_algorithm": "static"}, SCHEMA)
    assert view["moe_a2a_backend"] == "none" and view["ep_dispatch_algorithm"] == "static"
    assert View({"tp_size": UNKNOWN, "moe_a2a_backend": "deepep"}, SCHEMA)["ep_size"] is UNKNOWN
