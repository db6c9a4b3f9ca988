"""``handle_data_parallelism`` (``arg_groups/parallel_hook.py:276``, 0.5.23): replicas vs attention DP, and the LM-head paths.

SGLang has two kinds of data parallelism: replicas (`--dp-size`, one
server copy each) and attention DP (`--attn-dp-size`, attention groups
inside the TP group). The step refuses both at once, scales the
scheduling budgets by the attention-DP size, and checks the LM-head
options that only attention DP can run (``_dp_lm_head_validation``).
"""

from __future__ import annotations

from autofix.common.diagnostics import UNKNOWN, Fix, Op, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.shared import attention_dp_over_tp, attn_dp_enabled

STEP = "handle_data_parallelism"
DEFAULTS_CALL = 294  # parallel_hook.py: run_post_process_pass(_data_parallelism_defaults)
TP_LM_HEAD_CALL = 367  # parallel_hook.py: run_post_process_pass(_tp_lm_head_all_to_all_default)
VALIDATION_CALL = 368  # parallel_hook.py: run_post_process_pass(_dp_lm_head_validation)


@settings_rule("DP002", "attn-dp-size-positive", step=STEP, at="arg_groups/parallel_hook.py:286")
def attn_dp_size_positive(view: ResolvingView) -> Violation | None:
    """Flag an attention-DP size below 1.

    ## What it does
    Checks for `--attn-dp-size` 0 or negative.

    ## Why SGLang refuses it
    The size counts attention groups inside the TP group; there is at least
    one. SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 0
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ```

    ## Fix safety
    Removing `--attn-dp-size` (1: no attention DP) guesses what the user
    meant: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:286` (`handle_data_parallelism`, 0.5.23)
    """
    size = view["attn_dp_size"]
    if size >= 1:
        return None
    return Violation(f"--attn-dp-size must be at least 1, not {size}", args=("attn_dp_size",))


@attn_dp_size_positive.fix
def _no_attn_dp(view: ResolvingView) -> Fix | None:
    return remove(view, "attn_dp_size", "--attn-dp-size", " (no attention DP)")


@settings_rule("DP003", "replicas-or-attention-dp", step=STEP, at="arg_groups/parallel_hook.py:288")
def replicas_or_attention_dp(view: ResolvingView) -> Violation | None:
    """Flag data-parallel replicas together with attention DP.

    ## What it does
    Checks for `--dp-size` above 1 with `--attn-dp-size` above 1, as they
    are after the deprecated `--enable-dp-attention` and DWDP have set them
    (`--dp-size 8 --enable-dp-attention` alone is `--attn-dp-size 8`; next
    to an explicit `--attn-dp-size` it keeps the replicas).

    ## Why SGLang refuses it
    Replicas are separate copies of the server, attention DP splits the
    attention of one copy; SGLang runs one or the other and raises a
    ValueError while resolving its arguments. `--dp-size` meant attention
    DP in older releases, so configs half-migrated from
    `--enable-dp-attention` hit this.

    ## Example
    ```yaml
    tp-size: 8
    dp-size: 8
    attn-dp-size: 8
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    ```

    ## Fix safety
    Which one the user meant is ambiguous. Removing `--dp-size` keeps
    attention DP (the old meaning of `--dp-size`), removing
    `--attn-dp-size` keeps the replicas: both change the layout, unsafe,
    in that order.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:288` (`handle_data_parallelism`, 0.5.23)
    """
    dp, attn = view["dp_size"], view["attn_dp_size"]
    if dp <= 1 or attn <= 1:
        return None
    return Violation(f"--dp-size {dp} (replicas) with --attn-dp-size {attn} (attention DP): SGLang runs one of "
                     "them, not both; keep --attn-dp-size (what --dp-size meant with --enable-dp-attention) or "
                     "the replicas", args=("dp_size", "attn_dp_size"))


def _keep_one(view: ResolvingView, dest: str, flag: str, why: str) -> Fix | None:
    """Remove ``dest``, and the deprecated `--enable-dp-attention`: next to `--attn-dp-size` it does nothing,
    without it it would turn the replicas into attention DP (DP001)."""
    if not view.is_explicit(dest):
        return None
    if view.is_explicit("enable_dp_attention"):
        return Fix.unsafe(Unset(dest), Unset("enable_dp_attention"),
                          title=f"Remove {flag} and --enable-dp-attention{why}")
    return Fix.unsafe(Unset(dest), title=f"Remove {flag}{why}")


@replicas_or_attention_dp.fix
def _keep_attention_dp(view: ResolvingView) -> Fix | None:
    return _keep_one(view, "dp_size", "--dp-size", " (keep attention DP)")


@replicas_or_attention_dp.fix
def _keep_replicas(view: ResolvingView) -> Fix | None:
    return _keep_one(view, "attn_dp_size", "--attn-dp-size", " (keep the replicas)")


def _single_dp_rank(view: ResolvingView) -> str:
    return "a single DP rank (--dp-size and --attn-dp-size 1)"


@derivation(step=STEP, at="arg_groups/overrides.py:1369", via=DEFAULTS_CALL, writes=("enable_dp_lm_head",),
            code="DP005", name="dp-lm-head-needs-dp-ranks", cause=_single_dp_rank)
def dp_lm_head_needs_dp_ranks(view: ResolvingView) -> dict | None:
    """Without DP ranks SGLang turns the DP LM head off.

    ## What it does
    Warns at `--enable-dp-lm-head` when `--dp-size` times `--attn-dp-size`
    is 1 (and the server is no elastic-EP scale joiner).

    ## Why it matters
    The DP LM head splits the vocabulary over the attention-DP ranks; with
    one rank there is nothing to split, and SGLang quietly runs the plain
    LM head. With `--dp-size` above 1 (replicas) the flag stays, and DP009
    refuses it.

    ## Example
    ```yaml
    tp-size: 8
    enable-dp-lm-head: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ```

    ## Fix safety
    Removing the flag resolves the launch to the same values: safe.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1369` (`_data_parallelism_defaults`, run at
    `arg_groups/parallel_hook.py:294`)
    """
    if not view["enable_dp_lm_head"]:
        return None
    if view["dp_size"] * view["attn_dp_size"] != 1 or view["ep_join_mode"] == "scale":
        return None
    return {"enable_dp_lm_head": False}


@derivation(step=STEP, at="arg_groups/parallel_hook.py:315", writes=("schedule_conservativeness",))
def attention_dp_conservativeness(view: ResolvingView) -> dict | None:
    """Attention DP scales `--schedule-conservativeness` by 0.3 (DP007; SGLang says so only in its log)."""
    if not attn_dp_enabled(view):
        return None
    return {"schedule_conservativeness": view["schedule_conservativeness"] * 0.3}


@settings_rule("DP006", "tp-divisible-by-attn-dp", step=STEP, at="arg_groups/parallel_hook.py:326")
def tp_divisible_by_attn_dp(view: ResolvingView) -> Violation | None:
    """Flag an attention-DP size that does not divide the TP size.

    ## What it does
    Checks for `--attn-dp-size` above 1 with `--tp-size` not a multiple of
    it (`--attn-dp-size 4` alone, with TP 1, included).

    ## Why SGLang refuses it
    Attention DP splits the TP group into equal attention groups. SGLang
    stops on a bare assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    attn-dp-size: 3
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    ```

    ## Fix safety
    Both fixes change the layout: `--attn-dp-size` = `--tp-size` (attention
    DP over the whole TP group, the usual layout; divided by
    `--attn-cp-size` when attention CP shares it), or `--tp-size` raised to
    the next multiple of `--attn-dp-size` (more GPUs). Unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/parallel_hook.py:326` (`handle_data_parallelism`, 0.5.23)
    """
    if not attn_dp_enabled(view):
        return None
    tp, attn = view["tp_size"], view["attn_dp_size"]
    if tp % attn == 0:
        return None
    return Violation(f"--attn-dp-size {attn} must divide --tp-size {tp}", args=("attn_dp_size", "tp_size"))


@tp_divisible_by_attn_dp.fix
def _attn_dp_tp(view: ResolvingView) -> Fix:
    size = attention_dp_over_tp(view)
    if size == 1:
        return Fix.unsafe(Unset("attn_dp_size"), title="Remove --attn-dp-size (no attention DP)")
    return Fix.unsafe(Set("attn_dp_size", size), title=f"Set --attn-dp-size to {size}")


@tp_divisible_by_attn_dp.fix
def _tp_multiple(view: ResolvingView) -> Fix:
    tp, attn = view["tp_size"], view["attn_dp_size"]
    new = -(-tp // attn) * attn
    return Fix.unsafe(Set("tp_size", new), title=f"Set --tp-size to {new} (a multiple of --attn-dp-size {attn})")


@derivation(step=STEP, at="arg_groups/parallel_hook.py:328", writes=("chunked_prefill_size",))
def attention_dp_chunked_prefill(view: ResolvingView) -> dict | None:
    """Attention DP divides `--chunked-prefill-size` by `--attn-dp-size` (DP007).

    The value is read as the budget of the whole TP group; each attention
    group gets its share (-1, no chunking, stays -1). SGLang logs it; it is
    no override: the user's value still means what it says. Unset, the size
    comes from the GPU memory, which autofix does not model: unknown.
    """
    if not attn_dp_enabled(view):
        return None
    size = view["chunked_prefill_size"]
    if size is None:
        return {"chunked_prefill_size": UNKNOWN}
    return {"chunked_prefill_size": size // view["attn_dp_size"]}


@derivation(step=STEP, at="arg_groups/overrides.py:1418", via=TP_LM_HEAD_CALL,
            writes=("enable_tp_lm_head_all_to_all",))
def tp_lm_head_all_to_all_default(view: ResolvingView) -> dict | None:
    """Unset, the TP LM-head all-to-all is on only on PD decode nodes with pure attention DP (DP008).

    That is `--disaggregation-mode decode`, `--attn-dp-size` = `--tp-size`
    above 1, attention CP 1 and no DP LM head; an explicit value is kept.
    """
    if view["enable_tp_lm_head_all_to_all"] is not None:
        return None
    attn = view["attn_dp_size"]
    enable = (view["disaggregation_mode"] == "decode" and attn > 1 and view["tp_size"] == attn
              and view["attn_cp_size"] == 1 and not view["enable_dp_lm_head"])
    return {"enable_tp_lm_head_all_to_all": enable}


@settings_rule("DP009", "dp-lm-head-needs-attention-dp", step=STEP, at="arg_groups/overrides.py:1425",
               via=VALIDATION_CALL)
def dp_lm_head_needs_attention_dp(view: ResolvingView) -> Violation | None:
    """Flag the DP LM head with data-parallel replicas instead of attention DP.

    ## What it does
    Checks for `--enable-dp-lm-head` while attention DP is off. Without any
    DP SGLang drops the flag (DP005), so this fires with `--dp-size` above 1:
    replicas, which have no DP LM head.

    ## Why SGLang refuses it
    The DP LM head shards the vocabulary across the ranks of the
    attention-TP group, which exists only under attention DP. SGLang stops
    on an assert while resolving its arguments.

    ## Example
    ```yaml
    tp-size: 8
    dp-size: 8
    enable-dp-lm-head: true
    ```
    Use instead:
    ```yaml
    tp-size: 8
    attn-dp-size: 8
    enable-dp-lm-head: true
    ```

    ## Fix safety
    Whether the user meant attention DP (the old meaning of `--dp-size`) or
    replicas is ambiguous; both fixes are unsafe. When `--dp-size` divides
    `--tp-size`, `--attn-dp-size` replaces `--dp-size` first; otherwise
    removing `--enable-dp-lm-head` comes first, then attention DP over as
    many GPUs (`--tp-size` times `--dp-size`).

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1425` (`_dp_lm_head_validation`, run at
    `arg_groups/parallel_hook.py:368`)
    """
    if not view["enable_dp_lm_head"] or attn_dp_enabled(view):
        return None
    dp = view["dp_size"]
    return Violation(f"--enable-dp-lm-head needs attention DP (--attn-dp-size), but --dp-size {dp} makes "
                     "replicas; use --attn-dp-size instead if attention DP was meant, else remove the flag",
                     args=("enable_dp_lm_head", "dp_size"))


def _replicas_to_attention_dp(view: ResolvingView) -> Fix | None:
    tp, dp = view["tp_size"], view["dp_size"]
    if dp <= 1 or not view.is_explicit("dp_size"):
        return None
    ops: list[Op] = [Unset("dp_size"), Set("attn_dp_size", dp)]
    if tp % dp == 0:
        return Fix.unsafe(*ops, title=f"Replace --dp-size {dp} with --attn-dp-size {dp}")
    return Fix.unsafe(*ops, Set("tp_size", tp * dp),
                      title=f"Replace --dp-size {dp} with --attn-dp-size {dp} and --tp-size {tp * dp}")


@dp_lm_head_needs_attention_dp.fix
def _dp_lm_head_attention_dp_first(view: ResolvingView) -> Fix | None:
    if view["tp_size"] % view["dp_size"] != 0:
        return None
    return _replicas_to_attention_dp(view)


@dp_lm_head_needs_attention_dp.fix
def _no_dp_lm_head(view: ResolvingView) -> Fix | None:
    return remove(view, "enable_dp_lm_head", "--enable-dp-lm-head")


@dp_lm_head_needs_attention_dp.fix
def _dp_lm_head_attention_dp_more_tp(view: ResolvingView) -> Fix | None:
    if view["tp_size"] % view["dp_size"] == 0:
        return None
    return _replicas_to_attention_dp(view)


def _no_tp_lm_head_all_to_all(view: ResolvingView) -> Fix | None:
    return remove(view, "enable_tp_lm_head_all_to_all", "--enable-tp-lm-head-all-to-all")


@settings_rule("DP010", "tp-lm-head-all-to-all-needs-attention-dp", step=STEP, at="arg_groups/overrides.py:1429",
               via=VALIDATION_CALL)
def tp_lm_head_all_to_all_needs_attention_dp(view: ResolvingView) -> Violation | None:
    """Flag the TP LM-head all-to-all without attention DP.

    ## What it does
    Checks for `--enable-tp-lm-head-all-to-all` while attention DP is off
    (the default never turns it on then).

    ## Why SGLang refuses it
    The all-to-all replaces the gather of LM-head outputs across attention-DP
    groups; without attention DP there is no such gather. SGLang stops on an
    assert while resolving its arguments.

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --tp-size 8 --enable-tp-lm-head-all-to-all
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path m --tp-size 8 --attn-dp-size 8 --enable-tp-lm-head-all-to-all
    ```

    ## Fix safety
    Removing the flag drops a feature the user asked for; turning attention
    DP on over the TP group changes the layout. Both unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1429` (`_dp_lm_head_validation`, run at
    `arg_groups/parallel_hook.py:368`)
    """
    if not view["enable_tp_lm_head_all_to_all"] or attn_dp_enabled(view):
        return None
    return Violation("--enable-tp-lm-head-all-to-all needs attention DP (--attn-dp-size above 1)",
                     args=("enable_tp_lm_head_all_to_all", "attn_dp_size"))


tp_lm_head_all_to_all_needs_attention_dp.fix(_no_tp_lm_head_all_to_all)


@tp_lm_head_all_to_all_needs_attention_dp.fix
def _attention_dp_over_tp(view: ResolvingView) -> Fix | None:
    tp = view["tp_size"]
    if tp <= 1 or view["dp_size"] > 1:
        return None
    return Fix.unsafe(Set("attn_dp_size", tp), title=f"Set --attn-dp-size to {tp} (the --tp-size)")


@settings_rule("DP011", "tp-lm-head-all-to-all-or-dp-lm-head", step=STEP, at="arg_groups/overrides.py:1432",
               via=VALIDATION_CALL)
def tp_lm_head_all_to_all_or_dp_lm_head(view: ResolvingView) -> Violation | None:
    """Flag the TP LM-head all-to-all together with the DP LM head.

    ## What it does
    Checks for `--enable-tp-lm-head-all-to-all` with the DP LM head on:
    `--enable-dp-lm-head`, or DWDP, which turns it on.

    ## Why SGLang refuses it
    The all-to-all needs a TP-sharded LM head; the DP LM head shards it
    over the attention-DP ranks instead. SGLang stops on an assert while
    resolving its arguments.

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --tp-size 8 --attn-dp-size 8 --enable-dp-lm-head --enable-tp-lm-head-all-to-all
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path m --tp-size 8 --attn-dp-size 8 --enable-dp-lm-head
    ```

    ## Fix safety
    Either LM-head layout drops one the user asked for: removing
    `--enable-tp-lm-head-all-to-all`, or `--enable-dp-lm-head` (not offered
    under DWDP, which turns it on anyway). Both unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1432` (`_dp_lm_head_validation`, run at
    `arg_groups/parallel_hook.py:368`)
    """
    if not view["enable_tp_lm_head_all_to_all"] or not attn_dp_enabled(view) or not view["enable_dp_lm_head"]:
        return None
    return Violation("--enable-tp-lm-head-all-to-all needs a TP-sharded LM head, but the DP LM head is on: keep "
                     "one of them", args=("enable_tp_lm_head_all_to_all", "enable_dp_lm_head"))


tp_lm_head_all_to_all_or_dp_lm_head.fix(_no_tp_lm_head_all_to_all)
tp_lm_head_all_to_all_or_dp_lm_head.fix(_no_dp_lm_head)


@settings_rule("DP012", "tp-lm-head-all-to-all-needs-pure-attention-dp", step=STEP,
               at="arg_groups/overrides.py:1436", via=VALIDATION_CALL)
def tp_lm_head_all_to_all_needs_pure_attention_dp(view: ResolvingView) -> Violation | None:
    """Flag the TP LM-head all-to-all with an attention-DP size other than the TP size.

    ## What it does
    Checks for `--enable-tp-lm-head-all-to-all` with attention DP on and
    `--attn-dp-size` not equal to `--tp-size`.

    ## Why SGLang refuses it
    The all-to-all is written for one rank per attention group (attention
    TP 1). SGLang stops on an assert while resolving its arguments.

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --tp-size 8 --attn-dp-size 4 --enable-tp-lm-head-all-to-all
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path m --tp-size 8 --attn-dp-size 8 --enable-tp-lm-head-all-to-all
    ```

    ## Fix safety
    `--attn-dp-size` = `--tp-size` changes the attention layout; removing
    the flag drops the feature. Both unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1436` (`_dp_lm_head_validation`, run at
    `arg_groups/parallel_hook.py:368`)
    """
    if not view["enable_tp_lm_head_all_to_all"] or not attn_dp_enabled(view) or view["enable_dp_lm_head"]:
        return None
    tp, attn = view["tp_size"], view["attn_dp_size"]
    if tp == attn:
        return None
    return Violation(f"--enable-tp-lm-head-all-to-all needs --attn-dp-size equal to --tp-size ({tp}), not {attn}",
                     args=("enable_tp_lm_head_all_to_all", "attn_dp_size"))


tp_lm_head_all_to_all_needs_pure_attention_dp.fix(_attention_dp_over_tp)
tp_lm_head_all_to_all_needs_pure_attention_dp.fix(_no_tp_lm_head_all_to_all)


@settings_rule("DP013", "tp-lm-head-all-to-all-needs-attn-cp-1", step=STEP, at="arg_groups/overrides.py:1441",
               via=VALIDATION_CALL)
def tp_lm_head_all_to_all_needs_attn_cp_1(view: ResolvingView) -> Violation | None:
    """Flag the TP LM-head all-to-all with attention context parallelism.

    ## What it does
    Checks for `--enable-tp-lm-head-all-to-all` (with pure attention DP)
    and `--attn-cp-size` above 1.

    ## Why SGLang refuses it
    The all-to-all assumes each attention group is one rank; attention CP
    splits it further. SGLang stops on an assert while resolving its
    arguments (before the context-parallel step checks the sizes).

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --tp-size 8 --attn-dp-size 8 --attn-cp-size 2 --enable-tp-lm-head-all-to-all
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path m --tp-size 8 --attn-dp-size 8 --enable-tp-lm-head-all-to-all
    ```

    ## Fix safety
    Removing `--attn-cp-size` (1) or the flag each drops something the user
    asked for: unsafe, in that order.

    ## SGLang source
    `sglang/srt/arg_groups/overrides.py:1441` (`_dp_lm_head_validation`, run at
    `arg_groups/parallel_hook.py:368`)
    """
    if not view["enable_tp_lm_head_all_to_all"] or not attn_dp_enabled(view) or view["enable_dp_lm_head"]:
        return None
    if view["tp_size"] != view["attn_dp_size"]:
        return None
    cp = view["attn_cp_size"]
    if cp == 1:
        return None
    return Violation(f"--enable-tp-lm-head-all-to-all needs attention CP 1, not --attn-cp-size {cp}",
                     args=("enable_tp_lm_head_all_to_all", "attn_cp_size"))


@tp_lm_head_all_to_all_needs_attn_cp_1.fix
def _no_attn_cp(view: ResolvingView) -> Fix | None:
    return remove(view, "attn_cp_size", "--attn-cp-size")


tp_lm_head_all_to_all_needs_attn_cp_1.fix(_no_tp_lm_head_all_to_all)
