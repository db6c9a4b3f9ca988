"""``handle_elastic_ep``, its first checks (parallel_hook.py:519-582): the elastic backend, the EPLB algorithm, join modes."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.parallel_hook.handle_elastic_ep.common import STEP, _elastic, _scaling_active

ELASTIC_EPLB_ALGORITHMS = ("elasticity_aware", "elasticity_aware_hierarchical")


@derivation(step=STEP, at="arg_groups/parallel_hook.py:526", writes=("eplb_algorithm",))
def elastic_eplb_algorithm_default(view: ResolvingView) -> dict | None:
    """Elastic EP with EPLB resolves the EPLB algorithm `auto` to `elasticity_aware` (EEP001).

    `auto` asks SGLang to choose, so it replaces nothing the user chose: no override.
    """
    if not _elastic(view) or not view["enable_eplb"] or view["eplb_algorithm"] != "auto":
        return None
    return {"eplb_algorithm": "elasticity_aware"}


@settings_rule("EEP002", "elastic-ep-eplb-algorithm", step=STEP, at="arg_groups/parallel_hook.py:531")
def elastic_ep_eplb_algorithm(view: ResolvingView) -> Violation | None:
    """Flag elastic EP with EPLB and an EPLB algorithm that is not elasticity-aware.

    ## What it does
    Checks for `--elastic-ep-backend` (any value, `none` included: argparse
    stores the string) with `--enable-eplb` and an `--eplb-algorithm` other
    than `auto`, `elasticity_aware` or `elasticity_aware_hierarchical`.

    ## Why SGLang refuses it
    Under elastic EP ranks come and go; only the elasticity-aware
    algorithms place experts over the ranks that are alive. SGLang stops on
    an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    ep-size: 8
    enable-eplb: true
    elastic-ep-backend: mooncake
    eplb-algorithm: deepseek
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ep-size: 8
    enable-eplb: true
    elastic-ep-backend: mooncake
    eplb-algorithm: elasticity_aware
    ```

    ## Fix safety
    `elasticity_aware` is what `auto` picks under elastic EP; it keeps EPLB
    and the elastic backend: safe. Dropping `--enable-eplb` is unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:531` (`handle_elastic_ep`, 0.5.23)
    """
    if not _elastic(view) or not view["enable_eplb"]:
        return None
    algorithm = view["eplb_algorithm"]
    if algorithm in ELASTIC_EPLB_ALGORITHMS:
        return None
    return Violation(f"--elastic-ep-backend with --enable-eplb needs --eplb-algorithm auto, elasticity_aware or "
                     f"elasticity_aware_hierarchical, not {algorithm}", args=("eplb_algorithm", "elastic_ep_backend"))


@elastic_ep_eplb_algorithm.fix
def _elasticity_aware(view: ResolvingView) -> Fix:
    return Fix.safe(Set("eplb_algorithm", "elasticity_aware"), title="Set --eplb-algorithm to elasticity_aware")


@elastic_ep_eplb_algorithm.fix
def _no_eplb(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("enable_eplb"), title="Remove --enable-eplb")


@settings_rule("EEP003", "elastic-ep-needs-pp1", step=STEP, at="arg_groups/parallel_hook.py:538")
def elastic_ep_needs_pp1(view: ResolvingView) -> Violation | None:
    """Flag elastic EP with pipeline parallelism.

    ## What it does
    Checks for `--elastic-ep-backend` (any value) with `--pp-size` other
    than 1.

    ## Why SGLang refuses it
    Elastic EP rebuilds the expert-parallel group over the whole world of
    ranks; a pipeline stage is only part of it. SGLang stops on an assert
    while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 4
    pp-size: 2
    elastic-ep-backend: mooncake
    ```
    Use instead:
    ```yaml
    tp-size: 4
    elastic-ep-backend: mooncake
    ```

    ## Fix safety
    Removing `--pp-size` (1) changes the parallel layout: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:538` (`handle_elastic_ep`, 0.5.23)
    """
    if not _elastic(view) or view["pp_size"] == 1:
        return None
    return Violation(f"--elastic-ep-backend needs --pp-size 1, not {view['pp_size']}",
                     args=("pp_size", "elastic_ep_backend"))


@elastic_ep_needs_pp1.fix
def _pp1(view: ResolvingView) -> Fix:
    if view.is_explicit("pp_size"):
        return Fix.unsafe(Unset("pp_size"), title="Remove --pp-size (1)")
    return Fix.unsafe(Set("pp_size", 1), title="Set --pp-size to 1")


@settings_rule("EEP005", "join-mode-needs-elastic-backend", step=STEP, at="arg_groups/parallel_hook.py:547")
def join_mode_needs_elastic_backend(view: ResolvingView) -> Violation | None:
    """Flag an elastic EP join mode without an elastic EP backend.

    ## What it does
    Checks for `--elastic-ep-join-mode` (`scale` or `recover`) while
    `--elastic-ep-backend` is not given.

    ## Why SGLang refuses it
    Joining an elastic deployment goes through the elastic backend's
    communicator; without one there is nothing to join. SGLang stops on an
    assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-join-mode: recover
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-join-mode: recover
    elastic-ep-backend: mooncake
    ```

    ## Fix safety
    Which backend the deployment uses (`mooncake` or `nixl`) cannot be read
    from the flags: adding `--elastic-ep-backend mooncake` is unsafe, and so
    is removing the join mode (offered second).

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:547` (`handle_elastic_ep`, 0.5.23)
    """
    mode = view["ep_join_mode"]
    if mode is None or _elastic(view):
        return None
    return Violation(f"--elastic-ep-join-mode {mode} needs --elastic-ep-backend (mooncake or nixl)",
                     args=("ep_join_mode", "elastic_ep_backend"))


@join_mode_needs_elastic_backend.fix
def _mooncake_backend(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("elastic_ep_backend", "mooncake"), title="Set --elastic-ep-backend to mooncake")


@join_mode_needs_elastic_backend.fix
def _no_join_mode(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("ep_join_mode"), title="Remove --elastic-ep-join-mode")


@settings_rule("EEP006", "scale-joiner-node-rank", step=STEP, at="arg_groups/parallel_hook.py:551")
def scale_joiner_node_rank(view: ResolvingView) -> Violation | None:
    """Flag an elastic EP scale joiner that does not launch as node rank 1.

    ## What it does
    Checks for `--elastic-ep-join-mode scale` with `--node-rank` other than
    1 (the default is 0).

    ## Why SGLang refuses it
    A scale-up adds exactly one TP group to the deployment, and SGLang
    numbers it node rank 1 (the primary being 0). SGLang stops on an assert
    while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    elastic-ep-join-mode: scale
    elastic-ep-join-rank-offset: 8
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    elastic-ep-join-mode: scale
    elastic-ep-join-rank-offset: 8
    node-rank: 1
    ```

    ## Fix safety
    `--node-rank 1` is the only rank a joiner may have, but it says where
    this process sits in the launch: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:551` (`handle_elastic_ep`, 0.5.23)
    """
    if view["ep_join_mode"] != "scale" or view["node_rank"] == 1:
        return None
    return Violation(f"--elastic-ep-join-mode scale needs --node-rank 1, not {view['node_rank']}",
                     args=("node_rank", "ep_join_mode"))


@scale_joiner_node_rank.fix
def _node_rank1(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("node_rank", 1), title="Set --node-rank to 1")


@settings_rule("EEP007", "scale-joiner-rank-offset", step=STEP, at="arg_groups/parallel_hook.py:555")
def scale_joiner_rank_offset(view: ResolvingView) -> Violation | None:
    """Flag an elastic EP scale joiner without a positive join rank offset.

    ## What it does
    Checks for `--elastic-ep-join-mode scale` with
    `--elastic-ep-join-rank-offset` 0 (the default) or below.

    ## Why SGLang refuses it
    The joining group's ranks are numbered after the deployment's current
    EP ranks, so the offset must be the current effective EP size. SGLang
    stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    elastic-ep-join-mode: scale
    node-rank: 1
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    elastic-ep-join-mode: scale
    node-rank: 1
    elastic-ep-join-rank-offset: 8
    ```

    ## Fix safety
    The current EP size of the running deployment is not in the config.
    When `--elastic-ep-initial-size` (the primary's launch size) is given,
    the offset is set to it, which holds only if the deployment has not
    grown since: unsafe. Otherwise the one fix is to launch as no joiner
    (remove `--elastic-ep-join-mode`): unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:555` (`handle_elastic_ep`, 0.5.23)
    """
    if view["ep_join_mode"] != "scale":
        return None
    offset = view["ep_join_rank_offset"]
    if offset > 0:
        return None
    return Violation(f"--elastic-ep-join-mode scale needs --elastic-ep-join-rank-offset set to the deployment's "
                     f"current EP size, not {offset}", args=("ep_join_rank_offset", "ep_join_mode"))


@scale_joiner_rank_offset.fix
def _offset_initial_size(view: ResolvingView) -> Fix | None:
    initial = view["elastic_ep_initial_size"]
    if initial is None or initial <= 0:
        return None
    return Fix.unsafe(Set("ep_join_rank_offset", initial),
                      title=f"Set --elastic-ep-join-rank-offset to {initial} (the initial size: no scale-up since)")


scale_joiner_rank_offset.fix(_no_join_mode)


@settings_rule("EEP008", "join-rank-offset-needs-scale", step=STEP, at="arg_groups/parallel_hook.py:561")
def join_rank_offset_needs_scale(view: ResolvingView) -> Violation | None:
    """Flag an elastic EP join rank offset without `--elastic-ep-join-mode scale`.

    ## What it does
    Checks for `--elastic-ep-join-rank-offset` other than 0 while the join
    mode is not `scale` (unset or `recover`).

    ## Why SGLang refuses it
    Only a scale joiner numbers its ranks after the deployment's; anywhere
    else the offset would shift rank numbers nobody expects. SGLang stops on
    an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    elastic-ep-join-rank-offset: 8
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    ```

    ## Fix safety
    Removing the offset is unsafe: the launch may have been meant as a scale
    joiner (then it also needs `--elastic-ep-join-mode scale` and
    `--node-rank 1`).

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:561` (`handle_elastic_ep`, 0.5.23)
    """
    offset = view["ep_join_rank_offset"]
    if offset == 0 or view["ep_join_mode"] == "scale":
        return None
    return Violation(f"--elastic-ep-join-rank-offset {offset} is only valid with --elastic-ep-join-mode scale",
                     args=("ep_join_rank_offset", "ep_join_mode"))


@join_rank_offset_needs_scale.fix
def _no_offset(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("ep_join_rank_offset"), title="Remove --elastic-ep-join-rank-offset")


@settings_rule("EEP010", "max-ep-size-needs-elastic-backend", step=STEP, at="arg_groups/parallel_hook.py:567")
def max_ep_size_needs_elastic_backend(view: ResolvingView) -> Violation | None:
    """Flag `--max-ep-size` without an elastic EP backend.

    ## What it does
    Checks for `--max-ep-size` while `--elastic-ep-backend` is not given.

    ## Why SGLang refuses it
    The largest EP size only bounds an elastic deployment's scale-up.
    SGLang stops on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    max-ep-size: 16
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ```

    ## Fix safety
    Removing `--max-ep-size` drops a value the user wrote: unsafe. Adding
    `--elastic-ep-backend mooncake` turns on elastic EP (and, above
    `--tp-size`, runtime scale-up with its own requirements): unsafe,
    offered second.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:567` (`handle_elastic_ep`, 0.5.23)
    """
    if view["max_ep_size"] is None or _elastic(view):
        return None
    return Violation(f"--max-ep-size {view['max_ep_size']} needs --elastic-ep-backend",
                     args=("max_ep_size", "elastic_ep_backend"))


@max_ep_size_needs_elastic_backend.fix
def _no_max_ep_size(view: ResolvingView) -> Fix:
    return Fix.unsafe(Unset("max_ep_size"), title="Remove --max-ep-size")


max_ep_size_needs_elastic_backend.fix(_mooncake_backend)


@settings_rule("EEP011", "max-ep-size-positive", step=STEP, at="arg_groups/parallel_hook.py:570")
def max_ep_size_positive(view: ResolvingView) -> Violation | None:
    """Flag a `--max-ep-size` of 0 or below.

    ## What it does
    Checks for `--max-ep-size` at most 0 with an elastic EP backend.

    ## Why SGLang refuses it
    It is the largest EP size the deployment may grow to. SGLang stops on
    an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    max-ep-size: 0
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    ```

    ## Fix safety
    No positive size can be read from a non-positive one; removing it (no
    runtime scale-up, which a size of 0 could not allow either) keeps what
    the launch can mean: safe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:570` (`handle_elastic_ep`, 0.5.23)
    """
    size = view["max_ep_size"]
    if size is None or size > 0 or not _elastic(view):
        return None
    return Violation(f"--max-ep-size must be positive, not {size}", args=("max_ep_size",))


@max_ep_size_positive.fix
def _drop_max_ep_size(view: ResolvingView) -> Fix:
    return Fix.safe(Unset("max_ep_size"), title="Remove --max-ep-size")


@settings_rule("EEP012", "elastic-initial-size-needs-scale-up", step=STEP, at="arg_groups/parallel_hook.py:578")
def elastic_initial_size_needs_scale_up(view: ResolvingView) -> Violation | None:
    """Flag `--elastic-ep-initial-size` without runtime scale-up.

    ## What it does
    Checks for `--elastic-ep-initial-size` unless `--elastic-ep-backend` is
    given and `--max-ep-size` is larger than `--tp-size`.

    ## Why SGLang refuses it
    The initial size is the EP size a deployment starts from before it
    grows; without room to grow it means nothing. SGLang stops on an assert
    while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    elastic-ep-initial-size: 8
    ```
    Use instead:
    ```yaml
    tp-size: 8
    elastic-ep-backend: mooncake
    ```

    ## Fix safety
    Without runtime scale-up the EP size is the launch size: removing the
    initial size changes nothing that runs, safe. (Raising `--max-ep-size`
    above `--tp-size` would turn on scale-up, with its own requirements.)

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:578` (`handle_elastic_ep`, 0.5.23)
    """
    if view["elastic_ep_initial_size"] is None or _scaling_active(view):
        return None
    return Violation("--elastic-ep-initial-size is only valid with --elastic-ep-backend and a --max-ep-size above "
                     f"--tp-size ({view['tp_size']})", args=("elastic_ep_initial_size", "max_ep_size"))


@elastic_initial_size_needs_scale_up.fix
def _no_initial_size(view: ResolvingView) -> Fix:
    return Fix.safe(Unset("elastic_ep_initial_size"), title="Remove --elastic-ep-initial-size")
