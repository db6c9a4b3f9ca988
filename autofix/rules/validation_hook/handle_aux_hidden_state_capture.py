"""``handle_aux_hidden_state_capture`` (``arg_groups/validation_hook.py:697``, 0.5.23): capturing a target's
auxiliary hidden states without a draft (`--enable-return-aux-hidden-states`).

With the flag, `--speculative-algorithm` only names the capture convention
(EAGLE3, DFLASH or DSPARK); SGLang resets it to none before any other step
reads it, so no speculation runs.
"""

from __future__ import annotations

from autofix.common.diagnostics import Fix, Set, Unset, Violation
from autofix.pipeline.items import derivation, settings_rule
from autofix.pipeline.view import ResolvingView
from autofix.rules.fixes import remove

STEP = "handle_aux_hidden_state_capture"
METHODS = ("EAGLE3", "DFLASH", "DSPARK")


def _method(view: ResolvingView) -> str:
    return (view["speculative_algorithm"] or "").upper()


@settings_rule("SPEC002", "aux-layer-ids-need-capture", step=STEP, at="arg_groups/validation_hook.py:707")
def aux_layer_ids_need_capture(view: ResolvingView) -> Violation | None:
    """Flag auxiliary hidden-state layer ids without the capture flag.

    ## What it does
    Checks for `--return-aux-hidden-state-layer-ids` without
    `--enable-return-aux-hidden-states`.

    ## Why SGLang refuses it
    The layer ids say which layers to capture; without capture they mean
    nothing. SGLang stops with a ValueError.

    ## Example
    ```yaml
    return-aux-hidden-state-layer-ids: [1, 2]
    ```
    Use instead:
    ```yaml
    return-aux-hidden-state-layer-ids: [1, 2]
    enable-return-aux-hidden-states: true
    speculative-algorithm: DFLASH
    ```

    ## Fix safety
    Capture needs a convention (EAGLE3, DFLASH or DSPARK) the ids do not
    name, and removing the ids drops what the user wrote: both unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:707` (`handle_aux_hidden_state_capture`, 0.5.23)
    """
    if view["enable_return_aux_hidden_states"] or view["return_aux_hidden_state_layer_ids"] is None:
        return None
    return Violation("--return-aux-hidden-state-layer-ids needs --enable-return-aux-hidden-states",
                     args=("return_aux_hidden_state_layer_ids", "enable_return_aux_hidden_states"))


@aux_layer_ids_need_capture.fix
def _no_layer_ids(view: ResolvingView) -> Fix | None:
    return remove(view, "return_aux_hidden_state_layer_ids", "--return-aux-hidden-state-layer-ids")


@settings_rule("SPEC003", "aux-capture-convention", step=STEP, at="arg_groups/validation_hook.py:714")
def aux_capture_convention(view: ResolvingView) -> Violation | None:
    """Flag hidden-state capture without EAGLE3, DFLASH or DSPARK as its convention.

    ## What it does
    Checks for `--enable-return-aux-hidden-states` while
    `--speculative-algorithm` (any case) is not `EAGLE3`, `DFLASH` or
    `DSPARK` (missing included; `NEXTN` and `EAGLE` are not conventions).

    ## Why SGLang refuses it
    The algorithm names which layers' states to capture for a draft to be
    trained on. SGLang stops with a ValueError.

    ## Example
    ```yaml
    enable-return-aux-hidden-states: true
    ```
    Use instead:
    ```yaml
    enable-return-aux-hidden-states: true
    speculative-algorithm: EAGLE3
    ```

    ## Fix safety
    EAGLE3 is the convention that needs no layer ids; which one the user
    meant cannot be known: unsafe. Removing capture is unsafe too.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:714` (`handle_aux_hidden_state_capture`, 0.5.23)
    """
    if not view["enable_return_aux_hidden_states"] or _method(view) in METHODS:
        return None
    return Violation("--enable-return-aux-hidden-states needs --speculative-algorithm EAGLE3, DFLASH or DSPARK, "
                     f"not {view['speculative_algorithm']}",
                     args=("speculative_algorithm", "enable_return_aux_hidden_states"))


@aux_capture_convention.fix
def _eagle3(view: ResolvingView) -> Fix:
    return Fix.unsafe(Set("speculative_algorithm", "EAGLE3"), title="Set --speculative-algorithm to EAGLE3")


@aux_capture_convention.fix
def _no_capture(view: ResolvingView) -> Fix | None:
    return remove(view, "enable_return_aux_hidden_states", "--enable-return-aux-hidden-states")


@settings_rule("SPEC004", "aux-capture-no-draft", step=STEP, at="arg_groups/validation_hook.py:720")
def aux_capture_no_draft(view: ResolvingView) -> Violation | None:
    """Flag hidden-state capture with a draft model.

    ## What it does
    Checks for `--enable-return-aux-hidden-states` (with its convention)
    and `--speculative-draft-model-path`.

    ## Why SGLang refuses it
    Capture runs the target alone (no speculation runs), so a draft would
    never be loaded. SGLang stops with a ValueError.

    ## Example
    ```yaml
    enable-return-aux-hidden-states: true
    speculative-algorithm: EAGLE3
    speculative-draft-model-path: org/eagle3-draft
    ```
    Use instead:
    ```yaml
    enable-return-aux-hidden-states: true
    speculative-algorithm: EAGLE3
    ```

    ## Fix safety
    No draft runs under capture: removing the path keeps what runs, safe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:720` (`handle_aux_hidden_state_capture`, 0.5.23)
    """
    if not view["enable_return_aux_hidden_states"] or _method(view) not in METHODS:
        return None
    if view["speculative_draft_model_path"] is None:
        return None
    return Violation("--enable-return-aux-hidden-states captures without a draft: drop "
                     "--speculative-draft-model-path", args=("speculative_draft_model_path",))


@aux_capture_no_draft.fix
def _no_draft(view: ResolvingView) -> Fix:
    return Fix.safe(Unset("speculative_draft_model_path"), title="Remove --speculative-draft-model-path")


@settings_rule("SPEC005", "aux-capture-needs-pp1", step=STEP, at="arg_groups/validation_hook.py:725")
def aux_capture_needs_pp1(view: ResolvingView) -> Violation | None:
    """Flag hidden-state capture with pipeline parallelism.

    ## What it does
    Checks for `--enable-return-aux-hidden-states` (with its convention, no
    draft) and `--pp-size` other than 1.

    ## Why SGLang refuses it
    The capture hooks only see the layers of the last pipeline rank.
    SGLang stops with a ValueError.

    ## Example
    ```yaml
    enable-return-aux-hidden-states: true
    speculative-algorithm: EAGLE3
    tp-size: 4
    pp-size: 2
    ```
    Use instead:
    ```yaml
    enable-return-aux-hidden-states: true
    speculative-algorithm: EAGLE3
    tp-size: 4
    ```

    ## Fix safety
    Removing `--pp-size` changes the parallel layout: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:725` (`handle_aux_hidden_state_capture`, 0.5.23)
    """
    if not view["enable_return_aux_hidden_states"] or _method(view) not in METHODS:
        return None
    if view["speculative_draft_model_path"] is not None or view["pp_size"] == 1:
        return None
    return Violation(f"--enable-return-aux-hidden-states needs --pp-size 1, not {view['pp_size']}",
                     args=("pp_size", "enable_return_aux_hidden_states"))


@aux_capture_needs_pp1.fix
def _pp1(view: ResolvingView) -> Fix | None:
    return remove(view, "pp_size", "--pp-size (1)")


def _layer_ids_checked(view: ResolvingView) -> bool:
    """Capture got past the convention, draft and PP checks."""
    return (view["enable_return_aux_hidden_states"] and _method(view) in METHODS
            and view["speculative_draft_model_path"] is None and view["pp_size"] == 1)


@settings_rule("SPEC006", "aux-capture-needs-layer-ids", step=STEP, at="arg_groups/validation_hook.py:731")
def aux_capture_needs_layer_ids(view: ResolvingView) -> Violation | None:
    """Flag DFLASH or DSPARK hidden-state capture without layer ids.

    ## What it does
    Checks `--enable-return-aux-hidden-states` with
    `--speculative-algorithm DFLASH` or `DSPARK` for
    `--return-aux-hidden-state-layer-ids`.

    ## Why SGLang refuses it
    EAGLE3 has default capture layers; DFLASH and DSPARK drafts are built
    on layers only the user can name. SGLang stops with a ValueError.

    ## Example
    ```yaml
    enable-return-aux-hidden-states: true
    speculative-algorithm: DFLASH
    ```
    Use instead:
    ```yaml
    enable-return-aux-hidden-states: true
    speculative-algorithm: EAGLE3
    ```

    ## Fix safety
    EAGLE3's default layers are another convention: unsafe. Which layer
    ids to capture cannot be read from the flags.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:731` (`handle_aux_hidden_state_capture`, 0.5.23)
    """
    if not _layer_ids_checked(view) or _method(view) == "EAGLE3" or view["return_aux_hidden_state_layer_ids"]:
        return None
    return Violation(f"--enable-return-aux-hidden-states with {_method(view)} needs "
                     "--return-aux-hidden-state-layer-ids", args=("speculative_algorithm",))


aux_capture_needs_layer_ids.fix(_eagle3)


@settings_rule("SPEC007", "aux-layer-ids-non-negative", step=STEP, at="arg_groups/validation_hook.py:739")
def aux_layer_ids_non_negative(view: ResolvingView) -> Violation | None:
    """Flag a negative auxiliary hidden-state layer id.

    ## What it does
    Checks the layer ids of a capture that passed the checks before it for
    a negative id.

    ## Why SGLang refuses it
    Layer ids count from the first layer; SGLang does not count from the
    end. It stops with a ValueError.

    ## Example
    ```yaml
    enable-return-aux-hidden-states: true
    speculative-algorithm: EAGLE3
    return-aux-hidden-state-layer-ids: [1, -1]
    ```
    Use instead:
    ```yaml
    enable-return-aux-hidden-states: true
    speculative-algorithm: EAGLE3
    return-aux-hidden-state-layer-ids: [1]
    ```

    ## Fix safety
    With EAGLE3, removing the ids captures its default layers, not the
    ones written: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:739` (`handle_aux_hidden_state_capture`, 0.5.23)
    """
    ids = view["return_aux_hidden_state_layer_ids"]
    if not _layer_ids_checked(view) or not ids or all(i >= 0 for i in ids):
        return None
    return Violation(f"--return-aux-hidden-state-layer-ids must not be negative: {list(ids)}",
                     args=("return_aux_hidden_state_layer_ids",))


def _eagle3_default_layers(view: ResolvingView) -> Fix | None:
    """EAGLE3 captures its default layers without ids (a list fix is not offered)."""
    if _method(view) != "EAGLE3":
        return None
    return remove(view, "return_aux_hidden_state_layer_ids", "--return-aux-hidden-state-layer-ids (EAGLE3's layers)")


aux_layer_ids_non_negative.fix(_eagle3_default_layers)


@settings_rule("SPEC092", "aux-layer-ids-unique", step=STEP, at="arg_groups/validation_hook.py:744")
def aux_layer_ids_unique(view: ResolvingView) -> Violation | None:
    """Flag an auxiliary hidden-state layer id given twice.

    ## What it does
    Checks the (non-negative) layer ids of a capture for repeats.

    ## Why SGLang refuses it
    Each id names one captured layer; a repeat would capture it twice.
    SGLang stops with a ValueError.

    ## Example
    ```yaml
    enable-return-aux-hidden-states: true
    speculative-algorithm: EAGLE3
    return-aux-hidden-state-layer-ids: [1, 1]
    ```
    Use instead:
    ```yaml
    enable-return-aux-hidden-states: true
    speculative-algorithm: EAGLE3
    return-aux-hidden-state-layer-ids: [1, 2]
    ```

    ## Fix safety
    With EAGLE3, removing the ids captures its default layers, not the
    ones written: unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/validation_hook.py:744` (`handle_aux_hidden_state_capture`, 0.5.23)
    """
    ids = view["return_aux_hidden_state_layer_ids"]
    if not _layer_ids_checked(view) or not ids or any(i < 0 for i in ids) or len(set(ids)) == len(ids):
        return None
    return Violation(f"--return-aux-hidden-state-layer-ids repeats a layer: {list(ids)}",
                     args=("return_aux_hidden_state_layer_ids",))


aux_layer_ids_unique.fix(_eagle3_default_layers)


@derivation(step=STEP, at="arg_groups/validation_hook.py:748", writes=("speculative_algorithm",))
def aux_capture_resets_algorithm(view: ResolvingView) -> dict | None:
    """Capture resets the speculative algorithm to none (SPEC001): it only named the convention, no draft runs."""
    if not view["enable_return_aux_hidden_states"]:
        return None
    return {"speculative_algorithm": None}
