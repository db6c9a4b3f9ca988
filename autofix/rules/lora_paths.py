"""The adapters `--lora-paths` names, as SGLang's argparse action reads them (``LoRAPathAction``).

Each word is an adapter: ``PATH``, ``NAME=PATH`` or a JSON object. A word that
starts with ``{`` and ends with ``}`` (once stripped) is read as JSON while the
command line is parsed (``arg_groups/argparse_actions.py:16``), before any other
check: a word that is no JSON, or an object without both ``lora_name`` and
``lora_path``, stops the launch there. argparse calls the action for every
``--lora-paths`` it meets, a repeated one too. (A ``--config`` file cannot hold
``--lora-paths`` at all: ARG rules report that.)
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from autofix.common.arguments import Entry
from autofix.common.diagnostics import Fix, Revalue, Violation
from autofix.common.written import Written
from autofix.rules.base import arg_rule

_NAME_KEYS, _PATH_KEYS = ("lora_name", "name"), ("lora_path", "path")


def _json_words(w: Written) -> Iterator[tuple[Entry, int, str]]:
    """``(entry, item, stripped word)`` for every word of a `--lora-paths` that SGLang reads as JSON."""
    for e in w.entries:
        if e.dest != "lora_paths" or e.problem is not None or e.dynamic or e.ignored:
            continue
        for item, value in enumerate(e.values):
            text = value.strip()
            if text.startswith("{") and text.endswith("}"):
                yield e, item, text


def _first(obj: dict, keys: tuple[str, ...]) -> str | None:
    return next((obj[k] for k in keys if isinstance(obj.get(k), str) and obj[k]), None)


@arg_rule("LORA024", "lora-paths-json-needs-name-and-path", at="arg_groups/argparse_actions.py:17")
def lora_paths_json_needs_name_and_path(w: Written) -> Iterator[Violation]:
    """A `--lora-paths` JSON adapter without both `lora_name` and `lora_path`.

    ## What it does
    Checks each `--lora-paths` word written as a JSON object
    (`{"lora_name": ..., "lora_path": ..., "pinned": ...}`) for both keys.

    ## Why SGLang refuses it
    The JSON form exists to name the adapter and pin it; SGLang's argparse
    action asserts both keys while it reads the command line (`looks like a
    JSON str, but it does not contain 'lora_name' and 'lora_path' keys`).

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --lora-paths '{"name": "sql", "path": "/loras/sql"}'
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path m --lora-paths '{"lora_name": "sql", "lora_path": "/loras/sql"}'
    ```

    ## Fix safety
    When the object gives a path (`lora_path` or `path`), the fix writes it
    with `lora_name` (`name`, else the path, as SGLang names a plain path)
    and `lora_path`, keeping `pinned`: a reading of what was meant, unsafe.

    ## SGLang source
    `sglang/srt/arg_groups/argparse_actions.py:17` (`LoRAPathAction`, 0.5.23)
    """
    for e, item, text in _json_words(w):
        try:
            obj = json.loads(text)
        except ValueError:
            continue  # LORA026's
        if not isinstance(obj, dict) or ("lora_name" in obj and "lora_path" in obj):
            continue
        missing = " and ".join(k for k in ("lora_name", "lora_path") if k not in obj)
        fixes: tuple[Fix, ...] = ()
        path = _first(obj, _PATH_KEYS)
        if path is not None:
            fixed = {"lora_name": _first(obj, _NAME_KEYS) or path, "lora_path": path}
            if "pinned" in obj:
                fixed["pinned"] = obj["pinned"]
            words = json.dumps(fixed)
            fixes = (Fix.unsafe(Revalue(e.index, words, item), title=f"Write {words}"),)
        yield Violation(f"{w.name(e)}: the JSON adapter {text} has no {missing}", ("lora_paths",), fixes,
                        entry=e.index)


@arg_rule("LORA026", "lora-paths-invalid-json", at="arg_groups/argparse_actions.py:16 (json.loads)")
def lora_paths_invalid_json(w: Written) -> Iterator[Violation]:
    """A `--lora-paths` word in braces that is not JSON.

    ## What it does
    Checks each `--lora-paths` word that starts with `{` and ends with `}`
    (spaces around it aside) for valid JSON: double-quoted keys and strings,
    no trailing comma.

    ## Why SGLang refuses it
    SGLang's argparse action reads such a word as a JSON adapter object and
    stops with the JSON decoder's error while it reads the command line. A
    shell that strips the quotes of `{"lora_name": ...}` written without
    single quotes around it leaves `{lora_name: ...}`.

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --lora-paths "{'lora_name': 'sql', 'lora_path': '/loras/sql'}"
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path m --lora-paths '{"lora_name": "sql", "lora_path": "/loras/sql"}'
    ```

    ## Fix safety
    None: what the word meant is not always clear.

    ## SGLang source
    `sglang/srt/arg_groups/argparse_actions.py:16 (json.loads)` (`LoRAPathAction`, 0.5.23)
    """
    for e, _item, text in _json_words(w):
        try:
            json.loads(text)
        except ValueError as exc:
            yield Violation(f"{w.name(e)}: {text} is read as a JSON adapter, but is no JSON ({exc})",
                            ("lora_paths",), entry=e.index)


RULES = (lora_paths_invalid_json, lora_paths_json_needs_name_and_path)
