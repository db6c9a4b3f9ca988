"""The same setting given more than once in one launch."""

from __future__ import annotations

from collections.abc import Iterator

from autofix.common.diagnostics import Drop, Fix, Violation
from autofix.common.written import Written
from autofix.rules.base import arg_rule


@arg_rule("ARG007", "repeated-option", at="server_args.py:prepare_server_args (argparse)",
          refuses=False)
def repeated_option(w: Written) -> Iterator[Violation]:
    """A setting given more than once: SGLang uses the last and ignores the rest.

    ## What it does
    Checks for one option set more than once in a launch, under any of its
    spellings (`--tp 4 ... --tp-size 8`, `tp-size` and
    `tensor-parallel-size` in one file), and for a repeated config key.

    ## Why it matters
    argparse lets the later setting overwrite the earlier one without a
    word, and YAML keeps the last copy of a repeated key. Half of such a
    file says something SGLang ignores; a reviewer who reads the first
    copy is misled.

    ## Example
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    tp-size: 4
    tensor-parallel-size: 8
    ```
    Use instead:
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    tensor-parallel-size: 8
    ```

    ## Fix safety
    Removing the ignored copies keeps what SGLang runs with: safe.

    ## SGLang source
    `sglang/srt/server_args.py:prepare_server_args (argparse)` (0.5.23)
    """
    last: dict[str, int] = {}
    for e in w.entries:
        if e.dest == "config":
            continue  # SGLang refuses a second --config (CFG006)
        if e.dest is not None and (e.words or e.ignored == "repeated"):
            last[e.dest] = e.index
    for e in w.entries:
        if e.dest is None or e.dest not in last or not (e.words or e.ignored == "repeated") or last[e.dest] == e.index:
            continue
        if e.dynamic:
            continue
        kept = w.entries[last[e.dest]]
        assert e.flag is not None and kept.flag is not None  # entries of a dest: option words
        here = w.spelling(e.flag)
        there = f"{kept.shown}" if not w.keyed else f"{w.spelling(kept.flag)}: {_raw(kept)}"
        yield Violation(f"{w.name(e)} is set again later ({there}); SGLang uses the later one",
                        (e.dest,), (Fix.safe(Drop(e.index), title=f"Remove the ignored {here}"),), entry=e.index)


def _raw(e) -> str:
    v = e.raw
    return str(v).lower() if isinstance(v, bool) else str(v)
RULES = (repeated_option,)
