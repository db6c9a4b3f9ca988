"""``_pipeline_parallel_overlap_disable`` (``arg_groups/overrides.py:1624``, 0.5.23): pipeline parallelism turns the overlap scheduler off."""  # noqa: E501

from __future__ import annotations

from autofix.pipeline.items import derivation
from autofix.pipeline.view import ResolvingView


@derivation(step="_pipeline_parallel_overlap_disable", at="arg_groups/overrides.py:1627",
            writes=("disable_overlap_schedule",))
def pp_disables_overlap_schedule(view: ResolvingView) -> dict | None:
    """With `--pp-size` above 1 SGLang disables the overlap scheduler (PP001; it logs a warning).

    No config can ask for the overlap scheduler: `--disable-overlap-schedule`
    is a store-true flag, and a config file's `false` leaves it unset. So the
    declaration never replaces a value the user wrote, and it does not warn.
    It is what makes `check_pipeline_parallel_compat`'s first assert
    (`validation_hook.py:121`, PP002) hold.
    """
    if view["pp_size"] <= 1:
        return None
    return {"disable_overlap_schedule": True}
