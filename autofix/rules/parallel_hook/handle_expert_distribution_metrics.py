"""``handle_expert_distribution_metrics`` (``arg_groups/parallel_hook.py:794``, 0.5.23): the recorder defaults a balancedness report needs (EP005)."""  # noqa: E501

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView

STEP = "handle_expert_distribution_metrics"


@derivation(step=STEP, at="arg_groups/parallel_hook.py:799", writes=("expert_distribution_recorder_mode",))
def balancedness_report_recorder_mode(view: ResolvingView) -> dict | None:
    """An expert balancedness report turns on the recorder: an unset recorder mode becomes `stat` (EP005).

    It only fills a mode nobody wrote, so it is no override.
    """
    if view["expert_balancedness_report_mode"] == "off" or view["expert_distribution_recorder_mode"] is not None:
        return None
    return {"expert_distribution_recorder_mode": "stat"}


@derivation(step=STEP, at="arg_groups/parallel_hook.py:807", writes=("expert_distribution_recorder_buffer_size",))
def recorder_buffer_size_default(view: ResolvingView) -> dict | None:
    """An unset recorder buffer size becomes `--eplb-rebalance-num-iterations` (EP005).

    That setting is an integer (1000 unless written), so the 1000 fallback at
    line 813 is never reached. It fills an unset value: no override.
    """
    if view["expert_distribution_recorder_buffer_size"] is not None:
        return None
    iterations = view["eplb_rebalance_num_iterations"]
    if iterations is None:
        return None
    return {"expert_distribution_recorder_buffer_size": iterations}
