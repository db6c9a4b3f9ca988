"""Option spellings SGLang's argparse stage refuses, or reads differently than another release does.

SGLang parses its launch arguments with ``argparse.ArgumentParser``
(``sglang/srt/server_args.py``, ``prepare_server_args``), abbreviations
allowed; ``--config`` keys become ``--<key>`` words verbatim
(``utils/server_args_config_parser.py``), so a YAML key is spelled like a flag.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.common.arguments import Entry
from autofix.common.diagnostics import UNKNOWN, Drop, Fix, Respell, Violation
from autofix.common.written import Written
from autofix.rules.base import arg_rule
from autofix.rules.other_engines import VLLM


def normalized(flag: str) -> str:
    """The spelling a slip most likely meant: ``--Enable_Metrics`` -> ``--enable-metrics``."""
    return "--" + flag.lstrip("-").replace("_", "-").lower()


def known_elsewhere(w: Written, flag: str) -> bool:
    """Whether another shipped SGLang version knows ``flag`` exactly (then ``VER001`` reports it)."""
    return any(flag in other.by_flag for other in w.others)


@arg_rule("ARG001", "unknown-option", at="server_args.py:prepare_server_args (argparse)")
def unknown_option(w: Written) -> Iterator[Violation]:
    """An option, or a `--config` key, that SGLang does not know.

    ## What it does
    Checks every option word and config key against SGLang's argument
    table. An option another shipped SGLang release knows is VER001's.

    ## Why SGLang refuses it
    argparse stops with `unrecognized arguments`. Config keys are passed on
    as `--<key>` verbatim, so `tp_size:` is refused just like `--tp_size`,
    and a vLLM flag (`--max-model-len`) is refused like a typo.

    ## Example
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    tp_size: 8
    ```
    Use instead:
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    tp-size: 8
    ```

    ## Fix safety
    A case or `_`/`-` slip has one meaning: the known spelling, safe. A vLLM
    option gets SGLang's equivalent: safe when the meaning is the same
    (`--max-model-len` -> `--context-length`), unsafe when only close
    (`--gpu-memory-utilization` -> `--mem-fraction-static`), removed when
    SGLang does that by default (`--enable-prefix-caching`), reported with
    what to read instead when there is none. A typo with exactly one close
    known spelling gets it as an unsafe fix; otherwise the close spellings
    are listed.

    ## SGLang source
    `sglang/srt/server_args.py:prepare_server_args (argparse)` (0.5.23)
    """
    for e in w.refused("unknown"):
        flag = e.flag
        if not flag or not flag.startswith("-") or known_elsewhere(w, flag):
            continue
        what = f"key {w.spelling(flag)!r}" if w.keyed else f"option {flag}"
        meant = normalized(flag)
        if meant != flag and w.schema.match(meant).status == "exact":
            why = " (keys are passed on as flags verbatim)" if w.source == "config" else ""
            yield Violation(f"unknown {what}: SGLang spells it {w.spelling(meant)}{why}", (), (
                Fix.safe(Respell(e.index, meant), title=f"Write {w.spelling(meant)}"),), entry=e.index)
            continue
        other = VLLM.get(meant)
        if other is not None:
            yield _vllm(w, e, meant, other)
            continue
        close = w.close(meant)
        if len(close) == 1:
            yield Violation(f"unknown {what}; did you mean {w.spelling(close[0])}?", (), (
                Fix.unsafe(Respell(e.index, close[0]), title=f"Write {w.spelling(close[0])}"),), entry=e.index)
        elif close:
            yield Violation(f"unknown {what}; close spellings: {', '.join(map(w.spelling, close))}", (),
                            entry=e.index)
        else:
            yield Violation(f"unknown {what}", (), entry=e.index)


def _vllm(w: Written, e: Entry, flag: str, other) -> Violation:
    assert e.flag is not None  # an option word
    head = f"{w.spelling(flag)} is a vLLM option"
    note = f" ({other.note})" if other.note else ""
    # set anywhere in the launch (the --config file of a command line too); UNKNOWN: perhaps not
    redundant = other.drop_with is not None and w.values.get(other.drop_with, UNKNOWN) is not UNKNOWN
    if other.drop or redundant:
        return Violation(f"{head}; SGLang needs no equivalent{note}", (), (
            Fix.safe(Drop(e.index), title=f"Remove {w.spelling(e.flag)}"),), entry=e.index)
    if other.flag is None:
        return Violation(f"{head} with no SGLang equivalent{note}", (), entry=e.index)
    target = w.spelling(other.flag)
    fix = Fix.safe if other.same else Fix.unsafe
    same = "" if other.same else ", with a different meaning"
    return Violation(f"{head}; SGLang's is {target}{same}{note}", (), (
        fix(Respell(e.index, other.flag), title=f"Write {target}"),), entry=e.index)


@arg_rule("ARG002", "ambiguous-option", at="server_args.py:prepare_server_args (argparse)")
def ambiguous_option(w: Written) -> Iterator[Violation]:
    """An abbreviation that matches several options (`--pp`).

    ## What it does
    Checks option words and config keys that are a prefix of more than one
    option. A spelling another SGLang release knows exactly is VER001's.

    ## Why SGLang refuses it
    argparse accepts a unique prefix of a long option, but stops with
    `ambiguous option` when several options start with it.

    ## Example
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    pp: 2
    ```
    Use instead:
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    pp-size: 2
    ```

    ## Fix safety
    The candidates are listed and nothing is guessed, except a vLLM
    spelling with an SGLang equivalent (`--model` -> `--model-path`): safe.

    ## SGLang source
    `sglang/srt/server_args.py:prepare_server_args (argparse)` (0.5.23)
    """
    for e in w.refused("ambiguous"):
        assert e.flag is not None  # argparse refuses an option word as ambiguous
        if known_elsewhere(w, e.flag):
            continue
        other = VLLM.get(e.flag)
        if other is not None and other.flag is not None:
            yield _vllm(w, e, e.flag, other)
            continue
        candidates = w.schema.match(e.flag).candidates
        shown = ", ".join(map(w.spelling, candidates[:6])) + (", ..." if len(candidates) > 6 else "")
        yield Violation(f"{w.spelling(e.flag)} is ambiguous: it abbreviates {shown}", (), entry=e.index)


@arg_rule("ARG008", "fragile-abbreviation", at="server_args.py:prepare_server_args (argparse)",
          refuses=False)
def fragile_abbreviation(w: Written) -> Iterator[Violation]:
    """An abbreviation this SGLang accepts but another release refuses or reads as another option.

    ## What it does
    Checks option words and config keys that abbreviate an option here
    (argparse takes a unique prefix) but not in another shipped SGLang
    release, where the prefix is unknown, ambiguous or another option. A
    prefix every release reads the same way (`--tp`) is left alone.

    ## Why it matters
    New options break abbreviations: `--cuda-graph-max-bs` was a full flag,
    and in 0.5.23 it is an ambiguous prefix of two. A config that relies on
    such a prefix breaks on an upgrade or a downgrade.

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --tp 8 --attn-dp 8
    ```
    Use instead (0.5.19 has no `--attn-dp-size`, and refuses both):
    ```shell
    python -m sglang.launch_server --model-path m --tp 8 --attn-dp-size 8
    ```

    ## Fix safety
    The full spelling means exactly what the prefix means here: safe.

    ## SGLang source
    `sglang/srt/server_args.py:prepare_server_args (argparse)` (0.5.23)
    """
    for e in w.entries:
        if e.ignored or e.dest is None or not e.flag or e.dynamic:
            continue
        m = w.schema.match(e.flag)
        if m.status != "prefix":
            continue
        elsewhere = [o for o in w.others if getattr(o.match(e.flag).option, "dest", None) != e.dest]
        if not elsewhere:
            continue
        assert m.option is not None  # a prefix names the one option it abbreviates
        full = m.option.flag
        versions = ", ".join(o.version for o in elsewhere)
        yield Violation(f"{w.spelling(e.flag)} abbreviates {w.spelling(full)} here, but not in SGLang {versions}",
                        (e.dest,), (Fix.safe(Respell(e.index, full), title=f"Write {w.spelling(full)}"),),
                        entry=e.index)


@arg_rule("ARG006", "stray-argument", at="server_args.py:prepare_server_args (argparse)")
def stray_argument(w: Written) -> Iterator[Violation]:
    """A word that is no option's value (`--tp-size 4 8`: the `8`).

    ## What it does
    Checks command lines for words that no option takes.

    ## Why SGLang refuses it
    SGLang takes no positional arguments, so argparse stops with
    `unrecognized arguments`.

    ## Example
    ```shell
    python -m sglang.launch_server --model-path m --tp-size 4 8
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path m --tp-size 8
    ```

    ## Fix safety
    Which word is wrong is the author's call: reported, not fixed.

    ## SGLang source
    `sglang/srt/server_args.py:prepare_server_args (argparse)` (0.5.23)
    """
    for e in w.entries:
        if e.flag is None and e.problem is not None and e.problem.kind == "stray" and not e.dynamic:
            why = " (a CRLF line ending: bash reads the backslash before it as escaping '\\r', " \
                  "not as a line continuation, so the command ends there)" if e.values[0] == "\r" else ""
            yield Violation(f"stray argument {e.values[0]!r}: no option takes it{why}", (), entry=e.index)
@arg_rule("ARG009", "missing-required-option", at="server_args.py:prepare_server_args (argparse)")
def missing_required_option(w: Written) -> Iterator[Violation]:
    """A launch without an option SGLang requires (`--model-path`).

    ## What it does
    Checks command lines for SGLang's required options. A launch that reads
    a `--config` file, or passes on flags it does not show (`"$@"`), may get
    them from there and is not checked; neither is a config file, which
    the command line may complete.

    ## Why SGLang refuses it
    argparse stops with `the following arguments are required`.

    ## Example
    ```shell
    python -m sglang.launch_server --tp-size 8
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp-size 8
    ```

    ## Fix safety
    Only the author knows the model: reported, not fixed.

    ## SGLang source
    `sglang/srt/server_args.py:prepare_server_args (argparse)` (0.5.23)
    """
    if w.source != "command" or w.parsed.opaque_index >= 0:
        return
    given = {e.dest for e in w.entries if e.dest is not None}
    if "config" in given:
        return
    refused = [normalized(e.flag) for e in w.entries
               if e.flag and e.problem is not None and e.problem.kind in ("unknown", "ambiguous")]
    for option in w.schema.options:
        if not option.required or option.dest in given:
            continue
        stem = option.flag.split("-")[2]  # "--model-path" -> "model"
        if any(f[2:].startswith(stem) for f in refused):
            continue  # a refused spelling may be this option (ARG001/ARG002 say so)
        yield Violation(f"{option.flag} is required", (option.dest,))


RULES = (unknown_option, ambiguous_option, stray_argument, fragile_abbreviation, missing_required_option)
