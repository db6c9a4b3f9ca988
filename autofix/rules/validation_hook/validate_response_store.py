"""``validate_response_store`` (``arg_groups/validation_hook.py:109``, 0.5.23): the response store is for colocated
serving."""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Violation
from autofix.pipeline.items import settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove


@settings_rule("PD014", "response-store-is-colocated", step="validate_response_store",
               at="arg_groups/validation_hook.py:112")
def response_store_is_colocated(view: ResolvingView) -> Violation | None:
    """Flag `--enable-response-store` on a PD prefill or decode node.

    ## What it does
    Checks for `--enable-response-store` with `--disaggregation-mode`
    `prefill` or `decode`.

    ## Why SGLang refuses it
    The Responses store keeps whole conversations in one server's memory;
    with prefill and decode on different servers neither holds them.
    SGLang raises a ValueError while resolving its arguments.

    ## Example
    ```yaml
    disaggregation-mode: prefill
    enable-response-store: true
    ```
    Use instead:
    ```yaml
    disaggregation-mode: prefill
    ```

    ## Fix safety
    Dropping the store turns off Responses retrieval and chaining; serving
    colocated changes the deployment: both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:112` (`validate_response_store`, 0.5.23)
    """
    if not view["enable_response_store"] or view["disaggregation_mode"] == "null":
        return None
    return Violation(f"--enable-response-store needs colocated serving, not --disaggregation-mode "
                     f"{view['disaggregation_mode']}", args=("enable_response_store", "disaggregation_mode"))


@response_store_is_colocated.fix
def _no_response_store(view: ResolvingView) -> Fix | None:
    return remove(view, "enable_response_store", "--enable-response-store")


@response_store_is_colocated.fix
def _colocated(view: ResolvingView) -> Fix | None:
    return remove(view, "disaggregation_mode", "--disaggregation-mode")
