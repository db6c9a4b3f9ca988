"""``check_server_args``: the chunked-prefill size in whole KV pages (KV090)."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView, Unknown
from autofix.rules.shared import CHUNKED_PREFILL_BY_MEMORY, LARGEST, attn_dp_enabled

STEP = "check_server_args"

# What an unknown chunk or page size can be. The chunk size SGLang sizes by GPU memory (memory_hook.py:89-177) is
# one of these, before attention DP divides it; every page size the attention backends snap to is a power of two
# up to 128 (overrides.py:1199-1336), and an unset one without a snap is 1 (64 on MUSA and ROCm's 5-D layout).
DEFAULT_CHUNKS = tuple(sorted({size for _, size in CHUNKED_PREFILL_BY_MEMORY} | {LARGEST}))
SNAPPED_PAGES = (1, 16, 32, 64, 128)


def _chunk_sizes(view: ResolvingView) -> tuple[int | None, ...]:
    """The chunked-prefill size at the check, or what it can be when the GPU is not known (``Unknown`` when
    neither: a written size divided by an unknown attention DP)."""
    try:
        return (view["chunked_prefill_size"],)
    except Unknown:
        if view.is_explicit("chunked_prefill_size"):
            raise
        groups = view["attn_dp_size"] if attn_dp_enabled(view) else 1
        return tuple(size // groups for size in DEFAULT_CHUNKS)


def _page_sizes(view: ResolvingView) -> tuple[int, ...]:
    """The page size at the check, or what it can be when the platform (and so the snaps) is not known."""
    try:
        return (view["page_size"],)
    except Unknown:
        written = view.written("page_size")  # a read the pipeline's baseline tracks, unlike `view.explicit`
        return tuple({*SNAPPED_PAGES, written}) if isinstance(written, int) else SNAPPED_PAGES


def _misfit(size: int | None, page: int) -> bool:
    # None: a model-free launch sizes nothing; a page size of 0 fails the same `%` (integer modulo by zero)
    return size is not None and size > 0 and (page == 0 or size % page != 0)


@settings_rule("KV090", "chunked-prefill-in-pages", step=STEP, at="arg_groups/validation_hook.py:244")
def chunked_prefill_in_pages(view: ResolvingView) -> Violation | None:
    """Flag a chunked-prefill size that is not a whole number of KV pages.

    ## What it does
    Checks, off a PD decode server, that the chunked-prefill size SGLang
    ends with (`--chunked-prefill-size`, or its GPU-memory default, divided
    by `--attn-dp-size` under attention DP) is a multiple of the page size
    (`--page-size`, or what the attention backend snaps it to). A size of 0
    or below (no chunking) is exempt. A page size of 0 fails the same
    check: SGLang divides by it (`integer modulo by zero`). Without `--gpu`, the default size and
    the snapped page size are unknown: the rule passes a launch when every
    value they can take fits (a default size is a power of two from 2048
    up, a snapped page size one up to 128), and is silent on the others.
    Not modelled: the models that turn chunked prefill off themselves
    (embedding, some multimodal and decision checkpoints; `model_hook.py`),
    where SGLang skips the check.

    ## Why SGLang refuses it
    A prefill chunk is allocated in whole pages. SGLang stops on an assert
    when the Engine starts.

    ## Example
    ```yaml
    chunked-prefill-size: 1000
    page-size: 64
    ```
    Use instead:
    ```yaml
    chunked-prefill-size: 960
    page-size: 64
    ```

    ## Fix safety
    The nearest whole number of pages below changes the prefill budget a
    little: unsafe. A page size of 0 is removed, so SGLang picks the page
    size (1, or the attention backend's): unsafe too, the page size is the
    author's call.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:244` (`check_server_args`, 0.5.23)
    """
    if view["disaggregation_mode"] == "decode":
        return None
    sizes, pages = _chunk_sizes(view), _page_sizes(view)
    verdicts = {_misfit(size, page) for size in sizes for page in pages}
    if verdicts == {False}:
        return None
    size, page = view["chunked_prefill_size"], view["page_size"]  # a refusal is said with the values (else Unknown)
    per_group = f" per attention-DP group of {view['attn_dp_size']}" if attn_dp_enabled(view) else ""
    if page == 0:
        return Violation(f"the page size 0 holds no chunk: SGLang fails dividing the chunked-prefill size {size}"
                         f"{per_group} by it (integer modulo by zero)", args=("page_size", "chunked_prefill_size"))
    return Violation(f"the chunked-prefill size {size}{per_group} must be a multiple of the page size {page}",
                     args=("chunked_prefill_size", "page_size"))


@chunked_prefill_in_pages.fix
def _whole_pages(view: ResolvingView) -> Fix:
    size, page = view["chunked_prefill_size"], view["page_size"]
    if page == 0:  # no chunk size fits: SGLang's own page size (1, or the attention backend's) instead
        return Fix.unsafe(Unset("page_size"), title="Remove --page-size 0 (SGLang picks the page size)")
    groups = view["attn_dp_size"] if attn_dp_enabled(view) else 1
    new = max(size // page, 1) * page * groups  # SGLang divides the written size by the attention-DP groups
    return Fix.unsafe(Set("chunked_prefill_size", new), title=f"Set --chunked-prefill-size to {new}")
