"""Hypothesis strategies: whole SGLang configs over the arguments the rules read.

A *config* is an ordered ``dest -> value`` dict, the explicit settings one
launch should read back as. It is drawn from the schema (choices, int sizes,
store_true flags) over the union of what every rule reads, so the draws reach
the corners the rules care about. ``yaml_texts`` and ``shell_texts`` render
one config in many of the ways people write it: alias and prefix spellings,
comments, quotes, blank lines, CRLF, a BOM, a missing final newline,
backslash continuations, ``--flag=value``, env prefixes, a second launch.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import yaml
from hypothesis import strategies as st

from autofix.adapters import argv, yaml_config
from autofix.common.arguments import Word, parse_words
from autofix.common.diagnostics import Applicability, Location, Unset
from autofix.core import engine
from autofix.core.api import FixOptions, FixResult, fix_source
from autofix.pipeline.items import SettingsRule
from autofix.pipeline.trace import reads
from autofix.rules import SETTINGS, deprecated
from autofix.schema import load, others_of
from harness.rules.casekit import facts_of
from harness.rules.cases import ALL_CASES, FACTS

SCHEMA = load()
MARLIN = "experimental_sgl_marlin"


def _case_configs() -> list[dict[str, Any]]:
    return [parse_words(SCHEMA, [Word(t, Location(1, i + 1)) for i, t in enumerate(c.argv)]).explicit
            for c in ALL_CASES]


# What each settings rule reads, found by running the pipeline over the rule cases (nothing declares it).
RULE_READS: dict[str, tuple[str, ...]] = {
    it.code: tuple(sorted(dests)) for it, dests in reads(SETTINGS, SCHEMA, _case_configs(), FACTS).items()
    if isinstance(it, SettingsRule) and dests
}


def _case_values() -> dict[str, list[Any]]:
    seen: dict[str, list[Any]] = {}
    for config in _case_configs():
        for dest, value in config.items():
            if value not in seen.setdefault(dest, []):
                seen[dest].append(value)
    return seen


# The values the rule cases write, per dest: what a dest of no simple kind (a float, a path, JSON) draws.
CASE_VALUES = _case_values()


def _drawable(dest: str) -> bool:
    option = SCHEMA[dest]
    return (dest in _CUSTOM or option.is_store_true or option.kind == "boolean_optional"
            or option.choices is not None or option.type == "int"
            or bool(CASE_VALUES.get(dest)))


_CUSTOM = ("model_path", "init_expert_location", "lora_paths", "lora_drain_wait_threshold",
           "return_aux_hidden_state_layer_ids")
RULE_DESTS: tuple[str, ...] = tuple(dict.fromkeys(d for dests in RULE_READS.values() for d in dests if _drawable(d)))
# Options SGLang's --config merger refuses (lora_paths) can only be flags.
YAML_DESTS: tuple[str, ...] = tuple(d for d in RULE_DESTS if SCHEMA[d].config_file != "refused")
MODELS = ("meta-llama/Llama-3.1-8B-Instruct", "/models/Qwen3-30B-A3B", "deepseek-ai/DeepSeek-V3")

# Values the rules branch on, drawn more often than a uniform pick of the choices would.
_FAVOURED = {
    "moe_runner_backend": (MARLIN, "auto", "megamoe", "flashinfer_cutlass", "flashinfer_cutedsl"),
    "moe_a2a_backend": ("none", "deepep", "ascend_tp", "mooncake"),
    "ep_dispatch_algorithm": ("static", "lp"),
    "lora_backend": ("triton", "csgmv", "triton_v2"),
    "ep_join_mode": ("scale",),
    "quantization": ("modelopt_fp4", "nvfp4_online", "mxfp8", "fp8"),
}
_SIZES = st.one_of(st.sampled_from((1, 2, 4, 8)), st.integers(0, 16))
_JSON = st.dictionaries(st.sampled_from(("layer", "experts", "a")), st.integers(0, 8), min_size=1, max_size=2).map(json.dumps)
_LORA_PATHS = st.lists(st.sampled_from(("/loras/sql", "chat=/loras/chat", "tool-lora")), max_size=2, unique=True)
# LoRA (family D): target modules are a list ("all" alone, or with others: LORA008); the drain threshold a float
_LORA_TARGETS = st.one_of(st.just(["all"]), st.lists(st.sampled_from(("all", "q_proj", "v_proj", "gate_up_proj")),
                                                     min_size=1, max_size=3))
_LORA_DRAIN = st.sampled_from((-1.0, 0.0, 0.5))  # NaN (refused too) reads back unequal to itself


def values(dest: str) -> st.SearchStrategy[Any]:
    """Values of ``dest`` as the argument reader yields them (int, str, True, list)."""
    option = SCHEMA[dest]
    if dest == "model_path":
        return st.sampled_from(MODELS)
    if dest == "init_expert_location":
        return st.one_of(st.just("trivial"), _JSON)
    if dest == "lora_paths":
        return _LORA_PATHS
    if dest == "lora_target_modules":
        return _LORA_TARGETS
    if dest == "lora_drain_wait_threshold":
        return _LORA_DRAIN
    if dest == "return_aux_hidden_state_layer_ids":  # one or more ints (nargs +)
        return st.lists(st.sampled_from((1, 2, 3, -1)), min_size=1, max_size=3)
    if option.is_store_true or option.kind == "boolean_optional":
        return st.just(True)
    if option.choices is not None:
        choices = st.sampled_from(option.choices)
        return st.one_of(st.sampled_from(_FAVOURED[dest]), choices) if dest in _FAVOURED else choices
    if option.type == "int":
        return _SIZES
    if CASE_VALUES.get(dest):
        return st.sampled_from(CASE_VALUES[dest])
    raise NotImplementedError(f"no value strategy for {dest} ({option.kind}, {option.type})")


# At most this many dests in one drawn config: enough for every rule's combination, few enough that a draw
# does not trip a dozen rules at once.
MAX_DESTS = 12


def _seeds() -> dict[str, tuple[dict[str, Any], ...]]:
    """code -> the configs of the rule cases that report it with the facts the properties use (``FACTS``: H200,
    DeepSeek-V3), and that write only dests the strategies draw."""
    drawn = set(RULE_DESTS) | {"model_path"}
    out: dict[str, list[dict[str, Any]]] = {}
    for c, config in zip(ALL_CASES, _case_configs()):
        if c.gpu != "h200" or not set(config) <= drawn:
            continue
        # a case with other facts (another model, a draft model's config) seeds the codes autofix reports on it
        # with FACTS (LORA017 on Qwen3-MoE; SPEC029 only where the DFLASH block size is written)
        found = set(c.codes) if facts_of(c) == FACTS else {v.code for v in engine.check(config, SCHEMA, FACTS)}
        for code in c.codes:
            if code in found:
                out.setdefault(code, []).append(config)
    return {code: tuple(configs) for code, configs in out.items()}


# The rule cases' own configs, as seeds by the code they report: a draw near a case reaches the corner of that
# rule however many rules there are (a uniform draw over ~100 dests almost never does).
SEEDS = _seeds()


def as_drawn(seed: dict[str, Any], model_path: str | None) -> dict[str, Any]:
    """A rule case's config (a seed) as ``configs`` draws it as it is: the drawn ``model_path`` (None: none) first,
    then the case's other settings."""
    return {**({"model_path": model_path} if model_path is not None else {}),
            **{d: v for d, v in seed.items() if d != "model_path"}}


@st.composite
def configs(draw, dests: tuple[str, ...] = RULE_DESTS, *, model: bool = True,
            codes: tuple[str, ...] | None = None) -> dict[str, Any]:
    """An ordered ``dest -> value`` dict over ``dests`` (and maybe ``model_path`` first), at most ``MAX_DESTS``.

    A third of the draws start from a case of a rule (the rule drawn first, of
    ``codes`` if given, else of every rule with a seed):
    half of them the case as it is, half with each of its settings kept
    with odds 3:1, its values kept or redrawn, and one more dest of a rule's
    reads maybe added; a third focus on one rule's
    ``reads``, each dest in with odds 2:1; the rest pick from all ``dests``.
    """
    out: dict[str, Any] = {}
    if model and draw(st.booleans()):
        out["model_path"] = draw(values("model_path"))
    mode = draw(st.integers(0, 2))
    seeds = [c for configs in SEEDS.values() for c in configs if all(d in dests or d == "model_path" for d in c)]
    if mode == 0 and seeds:
        code = draw(st.sampled_from(sorted(SEEDS) if codes is None else codes))
        mine = [c for c in SEEDS[code] if c in seeds] or seeds
        seed = draw(st.sampled_from(mine))
        if draw(st.booleans()):
            return as_drawn(seed, out.get("model_path"))  # the case itself
        for dest, value in seed.items():
            if dest == "model_path" or draw(st.integers(0, 3)) == 0:
                continue
            out[dest] = value if draw(st.integers(0, 2)) else draw(values(dest))
        near = [d for r in RULE_READS.values() if set(seed) & set(r) for d in r if d in dests and d not in out]
        if near and draw(st.booleans()):
            extra = draw(st.sampled_from(near))
            out[extra] = draw(values(extra))
        return out
    focus = dests
    if mode == 1:
        focus = draw(st.sampled_from([tuple(d for d in r if d in dests) for r in RULE_READS.values()]))
    chosen = [d for d in focus if draw(st.integers(0, 2)) > 0] if len(focus) <= MAX_DESTS else \
        draw(st.lists(st.sampled_from(focus), max_size=MAX_DESTS, unique=True))
    for dest in draw(st.permutations(chosen)):
        out[dest] = draw(values(dest))
    return out


def is_clean(config: dict[str, Any]) -> bool:
    """No rule flags this config: no settings rule, and no deprecated option or value (the argparse stage)."""
    if any(SCHEMA[d].flag in deprecated.OPTIONS or (d, v) in deprecated.VALUES
           for d, v in config.items() if not isinstance(v, list)):
        return False
    return not engine.check(config, SCHEMA, FACTS)


# --- spellings ---------------------------------------------------------------


@cache
def long_flags(dest: str) -> tuple[str, ...]:
    """The ``--`` flags that set ``dest`` to the drawn value (a ``--no-`` form of a boolean one sets False)."""
    option = SCHEMA[dest]
    flags = [f for f in option.flags if f.startswith("--")]
    return tuple(flags[:1] if option.kind == "boolean_optional" else flags)


@cache
def prefixes(dest: str) -> tuple[str, ...]:
    """Abbreviations argparse resolves to ``dest`` alone (``--tp`` for ``--tp-size``), in every shipped release
    (one another release reads otherwise is a finding of its own, ARG008)."""
    out = []
    for flag in long_flags(dest):
        for k in range(3, len(flag)):
            m = SCHEMA.match(flag[:k])
            if m.status == "prefix" and m.option.dest == dest and not flag[:k].startswith("--he") and all(
                    getattr(o.match(flag[:k]).option, "dest", None) == dest for o in others_of(SCHEMA)):
                out.append(flag[:k])
    return tuple(dict.fromkeys(out))


@st.composite
def flag_spelling(draw, dest: str, *, allow_prefix: bool = True) -> str:
    """Any declared long flag, or now and then a unique prefix of one."""
    short = prefixes(dest) if allow_prefix else ()
    if short and draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(short))
    return draw(st.sampled_from(long_flags(dest)))


def spellings(dest: str) -> tuple[str, ...]:
    """Every way ``dest`` can be written, without ``--`` (flags and prefixes)."""
    return tuple(f[2:] for f in (*long_flags(dest), *prefixes(dest)))


# --- YAML --------------------------------------------------------------------

_COMMENTS = ("# SGLang server config", "# tuned for 8×H100\tnode", "#", "# --tp-size: 4 (old)", "# 服务配置")
_TRUE = ("true", "True", "TRUE", "yes", "on")
_FALSE = ("false", "False", "no", "off")


@st.composite
def _yaml_value(draw, dest: str, value: Any) -> str:
    if value is True:
        return draw(st.sampled_from(_TRUE))
    if isinstance(value, list) and SCHEMA[dest].nargs is None:  # one word of JSON (--forward-hooks' list type)
        return "'" + json.dumps(value).replace("'", "''") + "'"
    if isinstance(value, list):  # a flow sequence: the merger passes each item as a value of the option
        return "[" + ", ".join(str(v) for v in value) + "]"
    text = str(value)
    style = draw(st.sampled_from(("plain", "plain", "single", "double")))
    if style == "plain" and isinstance(value, str) and yaml.safe_load(text) != value:
        style = "single"  # a choice spelled like a YAML null, bool or number ("null") is quoted, as people do
    if dest == "init_expert_location" and text.startswith("{"):
        style = draw(st.sampled_from(("flow", "single", "double")))
        if style == "flow":
            return text  # a YAML flow mapping; the merger json.dumps it back to ``text``
    if style == "single":
        return "'" + text.replace("'", "''") + "'"
    if style == "double":
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


@st.composite
def _yaml_key(draw, dest: str) -> str:
    # SGLang matches store_true keys by their exact spelling only: a prefix of
    # one would be passed on as ``--prefix true`` and refused.
    key = draw(flag_spelling(dest, allow_prefix=not SCHEMA[dest].is_store_true))[2:]
    quote = draw(st.sampled_from(("", "", "", "'", '"')))
    return f"{quote}{key}{quote}"


@st.composite
def yaml_texts(
    draw,
    config: dict[str, Any],
    *,
    bom: bool | None = None,
    crlf: bool | None = None,
    duplicates: str = "same-key",
    bare_marker: bool = False,
    edges: bool = False,
) -> str:
    """``config`` as an SGLang ``--config`` file, in one of many layouts.

    Store-true flags the config leaves out may appear as ``key: false`` (the
    merger skips those). ``duplicates``: ``same-key`` may repeat a value key
    earlier in the file with another value (the last one wins, for SGLang as
    for autofix), ``any`` adds repeats of any spelling and value anywhere
    (the text then need not read as ``config``), ``none`` adds none.
    ``bare_marker``: a ``---`` line may open a file with no keys at all (an
    empty config for SGLang); only property 5 draws those, so that one
    crash on them does not hide every other YAML failure. ``edges``: the
    first and the last line are settings (no comment, blank or ``---`` around).
    """
    nl = "\r\n" if (draw(st.booleans()) if crlf is None else crlf) else "\n"
    indent = draw(st.sampled_from(("", "", "", "  ")))
    entries = [(draw(_yaml_key(dest)), dest, value) for dest, value in config.items()]
    absent = [d for d in YAML_DESTS if SCHEMA[d].is_store_true and d not in config]
    if edges and len(entries) < 2:
        absent = []  # an inert line would become the first or the last one
    for dest in draw(st.lists(st.sampled_from(absent), unique=True, max_size=2)) if absent else ():
        at = draw(st.integers(1, max(1, len(entries) - 1)) if edges else st.integers(0, len(entries)))
        entries.insert(at, (draw(_yaml_key(dest)), dest, False))
    if duplicates == "same-key":
        shadowable = [e for e in entries if e[2] is not True and e[2] is not False]
        for key, dest, _ in draw(st.lists(st.sampled_from(shadowable), unique_by=lambda e: e[0], max_size=2)) \
                if shadowable else ():  # by key: a value may be a list
            at = next(i for i, e in enumerate(entries) if e[0] == key)
            entries.insert(draw(st.integers(0, at)), (key, dest, draw(values(dest))))
    elif duplicates == "any":
        for dest in draw(st.lists(st.sampled_from(YAML_DESTS), max_size=3)):
            value = draw(st.booleans()) if SCHEMA[dest].is_store_true else draw(values(dest))
            entries.insert(draw(st.integers(0, len(entries))), (draw(_yaml_key(dest)), dest, value))
    lines: list[str] = []
    if not edges and draw(st.booleans()):
        lines.append(draw(st.sampled_from(_COMMENTS)))
    if not edges and (entries or bare_marker) and draw(st.integers(0, 5)) == 0:
        lines.append("---")
    for key, dest, value in entries:
        extra = "" if edges and not lines else draw(st.sampled_from(("", "", "", "blank", "comment")))
        if extra == "blank":
            lines.append(draw(st.sampled_from(("", "  "))))
        elif extra == "comment":
            lines.append(indent + draw(st.sampled_from(_COMMENTS)))
        text = draw(st.sampled_from(_FALSE)) if value is False else draw(_yaml_value(dest, value))
        sep = draw(st.sampled_from((": ", ": ", ":  ")))
        trailing = draw(st.sampled_from(("", "", "", "  # why", " #\tnote", "  # 8×H100")))
        lines.append(f"{indent}{key}{sep}{text}{trailing}")
    if not edges and draw(st.integers(0, 3)) == 0:
        lines.append(draw(st.sampled_from(_COMMENTS)))
    text = nl.join(lines)
    if lines and draw(st.integers(0, 3)) > 0:
        text += nl
    if bom if bom is not None else draw(st.integers(0, 2)) == 0:
        text = "\ufeff" + text
    return text


# --- shell -------------------------------------------------------------------

_PLAIN_WORD = re.compile(r"[\w@%+=:,./-]+")


@st.composite
def _shell_value(draw, text: str) -> str:
    style = draw(st.sampled_from(("plain", "plain", "single", "double")))
    if style == "plain" and _PLAIN_WORD.fullmatch(text):
        return text
    if style == "double":
        return '"' + re.sub(r'([\\"$`])', r"\\\1", text) + '"'
    return "'" + text.replace("'", "'\"'\"'") + "'"


@st.composite
def _shell_flag(draw, dest: str, value: Any) -> list[str]:
    """The words of one setting, as written in the script (quotes included)."""
    flag = draw(flag_spelling(dest))
    if SCHEMA[dest].nargs == 0:
        return [flag]
    if isinstance(value, list) and SCHEMA[dest].nargs is None:  # one word of JSON (--forward-hooks' list type)
        texts = [json.dumps(value)]
    else:
        texts = [str(v) for v in value] if isinstance(value, list) else [str(value)]
    if len(texts) == 1 and draw(st.booleans()):
        return [flag + "=" + draw(_shell_value(texts[0]))]
    return [flag, *(draw(_shell_value(t)) for t in texts)]


_LEADING = ("#!/bin/bash", "set -euo pipefail", "# start the server", "# 启动 8×H100", "export HF_HOME=/data/hf", "")
_ENV = ("CUDA_VISIBLE_DEVICES=0,1 ", "NCCL_DEBUG=INFO CUDA_VISIBLE_DEVICES=0 ", "HF_TOKEN=$TOKEN ")


@st.composite
def _launch(draw, config: dict[str, Any], *, tabs: bool = True, repeats: bool = True) -> tuple[str, bool]:
    """One launch command; returns (text, ends_with_comment). ``repeats``: some flags may be given twice."""
    head = draw(st.sampled_from(("python3 -m sglang.launch_server", "python -m sglang.launch_server", "sglang serve")))
    if draw(st.integers(0, 3)) == 0:
        head = draw(st.sampled_from(_ENV)) + head
    items = dict(config)
    groups: list[list[str]] = []
    if head.endswith("serve") and "model_path" in items and draw(st.booleans()):
        groups.append([draw(_shell_value(items.pop("model_path")))])  # sglang serve MODEL
    first = len(groups)
    groups.extend(draw(_shell_flag(dest, value)) for dest, value in items.items())
    for dest in draw(st.lists(st.sampled_from(list(items)), unique=True, max_size=2)) if items and repeats else ():
        at = next(i for i, g in enumerate(groups) if i >= first and SCHEMA.match(g[0].split("=")[0]).option is SCHEMA[dest])
        groups.insert(draw(st.integers(first, at)), draw(_shell_flag(dest, draw(values(dest)))))  # the last one wins
    layout = draw(st.sampled_from(("line", "continued", "mixed")))
    indents = ("  ", "    ", "\t") if tabs else ("  ", "    ")
    indent = draw(st.sampled_from(indents))
    out = head
    for words in groups:
        broken = layout == "continued" or (layout == "mixed" and draw(st.booleans()))
        gap = draw(st.sampled_from((" ", " ", "  ", "\t") if tabs else (" ", "  ")))
        out += (" \\\n" + indent if broken else gap) + " ".join(words)
    comment = draw(st.integers(0, 2)) == 0
    if comment:
        out += draw(st.sampled_from(("  # serve", " # tp=8\tep=8")))
    return out, comment


@st.composite
def shell_texts(draw, config: dict[str, Any], second: dict[str, Any] | None = None, *, tabs: bool = True,
                repeats: bool = True) -> str:
    """``config`` as a shell script launching SGLang (then ``second``, when given)."""
    lines = list(draw(st.lists(st.sampled_from(_LEADING), max_size=3)))
    first, comment = draw(_launch(config, tabs=tabs, repeats=repeats))
    if second is not None:
        if not comment and draw(st.booleans()):
            first += " &"
        lines.append(first)
        lines.extend(draw(st.lists(st.sampled_from(("", "# second server", "sleep 5")), max_size=2)))
        lines.append(draw(_launch(second, tabs=tabs, repeats=repeats))[0])
    else:
        lines.append(first)
    if draw(st.integers(0, 4)) == 0:
        lines.append("wait")
    text = "\n".join(lines)
    if draw(st.integers(0, 3)) > 0:
        text += "\n"
    return text


# --- cases: a config and its text ----------------------------------------------


def yaml_cases(config_strategy: st.SearchStrategy | None = None, **kw) -> st.SearchStrategy:
    """(config, YAML text) pairs."""
    base = config_strategy if config_strategy is not None else configs(YAML_DESTS)
    return base.flatmap(lambda c: st.tuples(st.just(c), yaml_texts(c, **kw)))


def shell_cases(config_strategy: st.SearchStrategy | None = None, *, two: bool = True, **kw) -> st.SearchStrategy:
    """(configs, shell text) pairs: one config per launch (one or two launches)."""
    base = config_strategy if config_strategy is not None else configs()
    many = st.lists(base, min_size=1, max_size=2 if two else 1)
    return many.flatmap(
        lambda cs: st.tuples(st.just(cs), shell_texts(cs[0], cs[1] if len(cs) > 1 else None, **kw))
    )


FORMATS = {"yaml": yaml_config, "shell": argv}


def cases(fmt: str, *, clean: bool = False, **kw) -> st.SearchStrategy:
    """(configs, text) pairs for format ``fmt`` (``yaml`` or ``shell``): one config per launch.

    ``clean``: only configs no rule flags (and, in YAML, empty documents too).
    """
    base = configs(YAML_DESTS) if fmt == "yaml" else configs()
    if clean:
        base = base.filter(is_clean)
    if fmt == "yaml":
        kw.setdefault("bare_marker", clean)
        if clean:  # a repeated key is itself a violation (ARG007)
            kw.setdefault("duplicates", "none")
        return yaml_cases(base, **kw).map(lambda case: ([case[0]], case[1]))
    if clean:  # a launch without a model path is refused (ARG009); a repeated flag is reported (ARG007)
        base = base.filter(lambda c: "model_path" in c)
        kw.setdefault("repeats", False)
    return shell_cases(base, **kw)


def _removed_by_fix(config: dict[str, Any]) -> list[str]:
    """The dests the unsafe fixes of ``config`` remove."""
    after = engine.run(config, SCHEMA, Applicability.UNSAFE).explicit
    return [op.dest for op in engine.net_ops(config, after) if isinstance(op, Unset)]


@st.composite
def edge_cases(draw, fmt: str) -> tuple[list[dict[str, Any]], str]:
    """(configs, text) where an unsafe fix removes the file's first or last setting.

    The edges of a file are where removals meet a BOM, a missing final
    newline, a comment on the last line or a dangling continuation.
    """
    dests = YAML_DESTS if fmt == "yaml" else RULE_DESTS
    for _ in range(30):  # rejection sampling: about one draw in six has a removal
        config = draw(configs(dests))
        removed = _removed_by_fix(config)
        if removed:
            break
    if removed:
        dest = draw(st.sampled_from(removed))
        value = config.pop(dest)
        config = {dest: value, **config} if draw(st.booleans()) else {**config, dest: value}
    if fmt == "yaml":
        return [config], draw(yaml_texts(config, duplicates="none", bom=draw(st.booleans()), edges=True))
    return [config], draw(shell_texts(config))


def path_for(fmt: str) -> str:
    return "config.yaml" if fmt == "yaml" else "serve.sh"


def read_explicit(text: str, fmt: str) -> list[dict[str, Any]]:
    """The explicit settings of every launch in ``text``, comparable (``comparable``)."""
    return comparable([launch.parsed.explicit for launch in FORMATS[fmt].read(text, path_for(fmt), SCHEMA)])


def comparable(configs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``configs`` with each NaN as the string "nan": a NaN read from a text is a float of its own, and no two
    NaNs are equal (`--disaggregation-decode-host-receive-threshold nan`)."""
    return [{dest: "nan" if value != value else value for dest, value in c.items()} for c in configs]


def fix(text: str, fmt: str, unsafe: bool) -> FixResult:
    """``fix_source`` with the facts the oracle has (an H200 node): the rules that need the GPU or the model
    config take part too."""
    return fix_source(text, FORMATS[fmt], path=path_for(fmt), options=FixOptions(unsafe=unsafe, facts=FACTS))
