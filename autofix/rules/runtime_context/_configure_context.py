"""``_configure_context`` (``runtime_context.py:1543``, 0.5.23): publishing the resolved arguments.

SGLang projects the resolved arguments into its runtime context and
validates the parallel topology there (``_validate_parallel``), after
``check_server_args``: the attention and MoE widths it derives must
multiply back to the TP size. Earlier checks cover most of it; PAR007 is
what they leave (see its docstring).
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove
from autofix.rules.shared import EP_SPANNING_A2A

STEP = "_configure_context"


def _attention_widths_wrong(tp: int, attn_dp: int, attn_cp: int) -> bool:
    """Whether TP // attention DP // attention CP times both is not TP, for a negative attention CP (a positive one
    is checked earlier)."""
    return attn_cp < 0 and attn_dp >= 1 and tp != (tp // attn_dp // attn_cp) * attn_dp * attn_cp


def _moe_widths_wrong(tp: int, ep: int, moe_dp: int, a2a: str) -> bool:
    """Whether TP // EP // MoE DP times both is not TP, where no earlier check looked.

    With MoE DP and a positive EP, CP013-CP015 refuse it first, unless an a2a backend widened EP to TP after them
    (handle_a2a_moe runs after handle_context_parallelism); EP 0 divides by zero first (runtime_context.py:154).
    """
    widened = moe_dp > 1 and ep == tp and a2a != "none"
    return (moe_dp == 1 or ep < 0 or widened) and ep != 0 and tp != ep * moe_dp * (tp // ep // moe_dp)


@settings_rule("PAR007", "parallel-topology", step=STEP, at="runtime_context.py:347", via=1596)
def parallel_topology(view: ResolvingView) -> Violation | None:
    """Flag parallel sizes whose derived widths do not multiply back to the TP size.

    ## What it does
    Checks, on the resolved sizes, that without MoE DP (or with a negative
    EP, or an EP an a2a backend widened to TP after the CP checks ran)
    `--ep-size` times `--moe-dp-size` divides `--tp-size` (SGLang derives
    the MoE TP width as TP // EP // MoE DP, and the product must give TP
    back), and the same of
    the attention widths for a negative `--attn-cp-size` (TP // attention DP
    // attention CP). The other cases are checked earlier (DP006, CP010,
    CP011, CP013-CP015), which report them. With decode CP (`--dcp-size` above 1)
    the check runs only in the scheduler processes, which the oracle does
    not start: autofix stays silent there.

    ## Why SGLang refuses it
    The MoE process groups are laid out from those widths; an EP size that
    does not divide TP (`--tp 8 --ep-size 3`, or an EP above TP) leaves
    ranks without a group. SGLang raises a ValueError when it publishes the
    arguments, after every other check.

    ## Example
    ```yaml
    tp-size: 8
    ep-size: 3
    ```
    Use instead:
    ```yaml
    tp-size: 8
    ep-size: 2
    ```

    ## Fix safety
    Another EP size changes how the experts are sharded: unsafe. The
    nearest EP size below that divides TP is offered, then removing
    `--ep-size`, each removing a negative `--attn-cp-size` too when the
    attention width is wrong as well; neither when an a2a backend makes EP
    the TP size whatever is written. Removing a negative `--attn-cp-size`,
    or `--moe-dp-size`, is offered where that alone clears the check. All
    unsafe.

    ## SGLang source
    `sglang/srt/runtime_context.py:347` (`_validate_parallel`, called by `_configure_context` at
    `runtime_context.py:1596`)
    """
    if view["dcp_size"] > 1:
        return None  # validated only where ranks are placed (runtime_context.py:1567, 1596)
    tp, ep, attn_dp, attn_cp = view["tp_size"], view["ep_size"], view["attn_dp_size"], view["attn_cp_size"]
    problems, args = [], ["tp_size"]
    if _attention_widths_wrong(tp, attn_dp, attn_cp):
        problems.append(f"the attention TP width {tp} // {attn_dp} // {attn_cp} times attention DP {attn_dp} and "
                        f"CP {attn_cp} is not --tp-size {tp}")
        args.append("attn_cp_size")
    moe_dp = view["moe_dp_size"]
    if _moe_widths_wrong(tp, ep, moe_dp, view["moe_a2a_backend"]):
        problems.append(f"--ep-size {ep} x --moe-dp-size {moe_dp} must divide --tp-size {tp} (the MoE TP width is "
                        f"{tp} // {ep} // {moe_dp})" if moe_dp != 1 else
                        f"--ep-size {ep} must divide --tp-size {tp} (the MoE TP width is {tp} // {ep})")
        args.append("ep_size")
    if not problems:
        return None
    return Violation("; ".join(problems), args=tuple(args))


def _widths_hold(view: ResolvingView, ep: int | None = None, moe_dp: int | None = None,
                 attn_cp: int | None = None) -> bool:
    """Whether both widths hold with the sizes given instead of the resolved ones: a fix of one width is no fix
    while the other is wrong (`--ep-size 3 --attn-cp-size -3`)."""
    tp, a2a = view["tp_size"], view["moe_a2a_backend"]
    ep = view["ep_size"] if ep is None else ep
    moe_dp = view["moe_dp_size"] if moe_dp is None else moe_dp
    attn_cp = view["attn_cp_size"] if attn_cp is None else attn_cp
    return not _moe_widths_wrong(tp, ep, moe_dp, a2a) and not _attention_widths_wrong(tp, view["attn_dp_size"], attn_cp)


def _ep_as_written(view: ResolvingView) -> bool:
    """Whether the EP size checked is the `--ep-size` written: an EP-spanning a2a backend makes it the TP size
    whatever is written (A2A006), and other steps re-lay it (DWDP, DeepSeek's prefill-CP layout), so another
    `--ep-size` is no fix there."""
    if not view.is_explicit("ep_size") or view["moe_a2a_backend"] in EP_SPANNING_A2A:
        return False
    return view["ep_size"] == view.written("ep_size")


def _ep_fix(view: ResolvingView, op: Set | Unset) -> Fix | None:
    """``op`` (another `--ep-size`), with a negative `--attn-cp-size` removed too when the attention width is wrong
    as well; None unless that clears both widths."""
    ops, attn_cp = [op], None
    if _attention_widths_wrong(view["tp_size"], view["attn_dp_size"], view["attn_cp_size"]) \
            and view.is_explicit("attn_cp_size"):
        ops.append(Unset("attn_cp_size"))
        attn_cp = 1
    if not _widths_hold(view, ep=op.value if isinstance(op, Set) else 1, attn_cp=attn_cp):
        return None
    title = f"Set --ep-size to {op.value}" if isinstance(op, Set) else "Remove --ep-size"
    if attn_cp is not None:
        title += " and remove --attn-cp-size" if isinstance(op, Set) else " and --attn-cp-size"
    return Fix.unsafe(*ops, title=title)


@parallel_topology.fix
def _dividing_ep_size(view: ResolvingView) -> Fix | None:
    tp, ep = view["tp_size"], view["ep_size"]
    if not _ep_as_written(view) or ep < 1 or tp < 1:
        return None
    return _ep_fix(view, Set("ep_size", max(d for d in range(1, min(ep, tp) + 1) if tp % d == 0)))


@parallel_topology.fix
def _no_ep_size(view: ResolvingView) -> Fix | None:
    return _ep_fix(view, Unset("ep_size")) if _ep_as_written(view) else None


@parallel_topology.fix
def _no_attn_cp_size(view: ResolvingView) -> Fix | None:
    if view["attn_cp_size"] >= 0 or not view.is_explicit("attn_cp_size") or not _widths_hold(view, attn_cp=1):
        return None
    return Fix.unsafe(Unset("attn_cp_size"), title="Remove --attn-cp-size")


@parallel_topology.fix
def _no_moe_dp_size(view: ResolvingView) -> Fix | None:
    """Without MoE DP; None where the EP size alone does not divide TP either (`--ep-size -3 --tp-size 8`): only
    an EP fix clears it there."""
    if view["moe_dp_size"] <= 1 or not view.is_explicit("moe_dp_size") or not _widths_hold(view, moe_dp=1):
        return None
    return Fix.unsafe(Unset("moe_dp_size"), title="Remove --moe-dp-size")


# runtime_context.py: `_configure_context` publishes the arguments (1554: `context.set_server_args`), which builds the
# config bags (1044), installs their derived leaves (906), each by the function its field names (946: the attention
# TP width, `attn_tp_size_of`), which derives all the parallel widths (188, 162) and the attention TP width (150).
ATTN_TP_CALLS = (1044, 906, 946, 188, 162, 150)


@settings_rule("PAR008", "attn-cp-size-not-zero", step=STEP, at="runtime_context.py:76", via=1554,
               calls=ATTN_TP_CALLS)
def attn_cp_size_not_zero(view: ResolvingView) -> Violation | None:
    """Flag an attention context-parallel size of 0.

    ## What it does
    Checks for `--attn-cp-size 0`.

    ## Why SGLang refuses it
    SGLang derives the attention TP width as TP // attention DP //
    attention CP when it publishes the arguments, after every other check,
    and crashes dividing by zero (a ZeroDivisionError).

    ## Example
    ```yaml
    attn-cp-size: 0
    ```
    Use instead:
    ```yaml
    attn-cp-size: 1
    ```

    ## Fix safety
    Size 1 (no attention context parallelism, the default) is the only
    reading of 0 that runs, but it may not be what was meant: unsafe.

    ## SGLang source
    `sglang/srt/runtime_context.py:76` (`derive_attn_tp_size`, reached from `_configure_context` at
    `runtime_context.py:1554`, 0.5.23)
    """
    if view["attn_cp_size"] != 0:
        return None
    return Violation("--attn-cp-size must not be 0 (1: no attention context parallelism)", args=("attn_cp_size",))


@attn_cp_size_not_zero.fix
def _attn_cp_one(view: ResolvingView) -> Fix | None:
    return remove(view, "attn_cp_size", "--attn-cp-size", " (no attention context parallelism)")
