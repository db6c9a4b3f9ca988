"""``handle_expert_pack`` (``arg_groups/expert_pack_hook.py:32``, 0.5.23): what `--load-format expert_pack` refuses.

SGLang gathers every reason into one error. The settings decide some of
them (parallel sizes, Waterfill, shared-expert fusion, CUDA-graph
backends); the others need the files (the pack, its manifest, the model
config), which autofix does not read: those stay unchecked.
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView

SIZES = (("tp_size", "--tp-size"), ("dp_size", "--dp-size"), ("attn_dp_size", "--attn-dp-size"),
         ("ep_size", "--ep-size"))
FEATURES = (("enforce_shared_experts_fusion", "--enforce-shared-experts-fusion"),
            ("enable_waterfill", "--enable-waterfill"))
GRAPHS = (("cuda_graph_backend_decode", "--cuda-graph-backend-decode"),
          ("cuda_graph_backend_prefill", "--cuda-graph-backend-prefill"))


def _conflicts(view: ResolvingView) -> list[tuple[str, str, str]]:
    """(dest, flag, what is wrong) for each setting expert_pack refuses."""
    found = [(dest, flag, f"{flag} {view[dest]}") for dest, flag in SIZES if view[dest] != 1]
    found += [(dest, flag, flag) for dest, flag in FEATURES if view[dest]]
    if view["cuda_graph_config"] is None:  # a --cuda-graph-config backend would win over the flags
        found += [(dest, flag, f"{flag} {view[dest]}") for dest, flag in GRAPHS
                  if view[dest] not in (None, "disabled")]
    return found


@settings_rule("PAR004", "expert-pack-settings", step="handle_expert_pack", at="arg_groups/expert_pack_hook.py:192")
def expert_pack_settings(view: ResolvingView) -> Violation | None:
    """Flag `--load-format expert_pack` with parallelism or features it does not run.

    ## What it does
    Checks, for `--load-format expert_pack`, that `--tp-size`,
    `--dp-size`, `--attn-dp-size` and `--ep-size` are 1, that neither
    `--enforce-shared-experts-fusion` nor `--enable-waterfill` is set, and
    that no CUDA-graph backend other than `disabled` is asked for. It does
    not check the pack files and the model config, which SGLang checks in
    the same place.

    ## Why SGLang refuses it
    The expert pack streams the routed experts of a single-GPU server from
    an SSD; sharded or overlapped layouts and captured graphs do not fit
    that path. SGLang raises one ValueError listing every reason while
    resolving its arguments.

    ## Example
    ```yaml
    load-format: expert_pack
    tp-size: 8
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ```

    ## Fix safety
    Removing the conflicting settings keeps the expert pack but shrinks the
    server to one GPU; removing `--load-format` keeps the layout and loads
    the weights the usual way. Both unsafe, in that order. (A launch fixed
    the first way still needs the pack files SGLang asks for.)

    ## SGLang source
    `sglang/srt/arg_groups/expert_pack_hook.py:192` (`handle_expert_pack`, 0.5.23)
    """
    if view["load_format"] != "expert_pack":
        return None
    conflicts = _conflicts(view)
    if not conflicts:
        return None
    return Violation("--load-format expert_pack refuses " + ", ".join(what for _, _, what in conflicts) +
                     ": it runs with every parallel size 1, without Waterfill, shared-expert fusion or CUDA graphs",
                     args=("load_format", *(dest for dest, _, _ in conflicts)))


@expert_pack_settings.fix
def _drop_conflicts(view: ResolvingView) -> Fix | None:
    conflicts = _conflicts(view)
    if not all(view.is_explicit(dest) for dest, _, _ in conflicts):
        return None  # an earlier step declared one: removing settings would not clear it
    return Fix.unsafe(*(Unset(dest) for dest, _, _ in conflicts),
                      title="Remove " + ", ".join(flag for _, flag, _ in conflicts))


@expert_pack_settings.fix
def _no_expert_pack(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("load_format"), title="Remove --load-format expert_pack")


@derivation(step="handle_expert_pack", at="arg_groups/expert_pack_hook.py:194", writes=("disable_cuda_graph",))
def expert_pack_disables_cuda_graphs(view: ResolvingView) -> dict | None:
    """An accepted expert pack runs without CUDA graphs (SGLang declares `--disable-cuda-graph`; and shared-expert
    fusion off, which no modelled check reads)."""
    return {"disable_cuda_graph": True} if view["load_format"] == "expert_pack" else None
