"""Deprecated options and values: SGLang 0.5.23 still takes them, with a warning, and maps them.

The schema says which options are deprecated (``Option.deprecated``) and
which values an option still accepts (``Option.choices``); what SGLang turns
each deprecated form into is not in it. That is the domain knowledge below:
two small tables, each row with the SGLang line (relative to
``sglang/srt/``, 0.5.23) that does the mapping. A row applies only while
the target version's schema agrees that the form is deprecated (an option)
or still accepted (a value), and names options it knows.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from autofix.common.arguments import Entry
from autofix.common.diagnostics import UNKNOWN, Drop, Fix, Revalue, Rewrite, Set, Unset, Violation
from autofix.common.written import Written
from autofix.rules.base import arg_rule
from autofix.schema import Schema

Settings = tuple[tuple[str, tuple[Any, ...]], ...]  # (flag, values) pairs, as ``Rewrite.settings``
VERSIONS = ("0.5.23",)  # the releases whose mappings the tables below hold (checked with the oracle)


@dataclass(frozen=True, slots=True)
class Replacement:
    """The settings SGLang makes of a deprecated option, and where it does so (``<dp-size>``: a value to fill in)."""

    settings: Settings
    source: str


# Deprecated option (its declared flag) -> the settings SGLang 0.5.23 turns it into.
OPTIONS: dict[str, Replacement] = {
    "--disable-cuda-graph": Replacement(
        (("--cuda-graph-backend-decode", ("disabled",)), ("--cuda-graph-backend-prefill", ("disabled",))),
        "arg_groups/cuda_graph_hook.py:55"),  # lowest precedence: an explicit backend wins
    "--enable-dp-attention": Replacement((("--attn-dp-size", ("<dp-size>",)),), "arg_groups/parallel_hook.py:39"),
    "--monokernel-backend": Replacement((("--enable-amd-monokernel", ()),), "server_args.py:427"),
    "--grpc-mode": Replacement((("--smg-grpc-mode", ()),), "arg_groups/serving_hook.py:340"),
    "--disable-fast-image-processor": Replacement((("--image-processor-backend", ("pil",)),),
                                                  "arg_groups/serving_hook.py:258"),
    "--enable-flashinfer-allreduce-fusion": Replacement(
        (("--flashinfer-allreduce-fusion-backend", ("auto",)),), "arg_groups/serving_hook.py:285"),
}

_ATTENTION = ("attention_backend", "decode_attention_backend", "prefill_attention_backend",
              "speculative_draft_attention_backend")
# (dest, deprecated value) -> the value SGLang 0.5.23 uses instead.
VALUES: dict[tuple[str, str], tuple[str, str]] = {
    ("tool_call_parser", "qwen25"): ("qwen", "arg_groups/serving_hook.py:273"),
    ("tool_call_parser", "glm45"): ("glm", "arg_groups/serving_hook.py:273"),
    **{(dest, "compressed"): ("dsv4", "arg_groups/serving_hook.py:304") for dest in _ATTENTION},
    ("attention_backend", "tokenspeed_mla"): ("cutedsl_mla", "arg_groups/serving_hook.py:304"),
    ("decode_attention_backend", "tokenspeed_mla"): ("cutedsl_mla", "arg_groups/serving_hook.py:304"),
    ("speculative_draft_attention_backend", "tokenspeed_mla"): ("cutedsl_mla", "arg_groups/serving_hook.py:304"),
    ("prefill_attention_backend", "tokenspeed_mla"): ("trtllm_mla", "arg_groups/serving_hook.py:323"),  # decode-only
}
# tokenspeed_mla as the (decode) attention backend also meant an FP8 KV cache and
# decode-mode speculative verify: SGLang sets both (arg_groups/serving_hook.py:324).
FP8_KV_BACKENDS = ("attention_backend", "decode_attention_backend")


@cache
def _deprecated_dests(schema: Schema) -> frozenset[str]:
    """The dests of the deprecated options ``OPTIONS`` maps, in ``schema``'s release."""
    return frozenset(o.dest for o in schema.options if o.deprecated and o.flag in OPTIONS)


_OTHER_FILE = {"command": "in the --config file", "config": "on the command line"}


def _shown(w: Written, settings: Settings, elsewhere: bool = False) -> str:
    """Settings as this source writes them (``elsewhere``: as the launch's other file does): ``--a x --b`` or
    ``a: x, b: true``."""
    if w.keyed != elsewhere:
        return ", ".join(f"{f[2:]}: {' '.join(map(str, v)) if v else 'true'}" for f, v in settings)
    return " ".join(" ".join([f, *map(str, v)]) for f, v in settings)


def _given(w: Written, settings: Settings) -> str:
    """Settings the launch has, each as the file that writes it does (one of the other file named)."""
    far = {f for f, _ in settings if w.there(w.schema.match(f).option.dest)}  # type: ignore[union-attr]  # known flags
    here = tuple((f, v) for f, v in settings if f not in far)
    there = tuple((f, v) for f, v in settings if f in far)
    parts = ([_shown(w, here)] if here else []) + \
        ([f"{_shown(w, there, elsewhere=True)} ({_OTHER_FILE[w.source]})"] if there else [])
    return " and ".join(parts)


def _judged(w: Written, dests: frozenset[str]) -> Iterator[Entry]:
    """The deprecated options' entries DEP001 judges, in order: those whose value the launch takes, and in a
    ``--config`` file a key its reader refuses although the command line sets the option again (the reader
    refuses the file before anything is merged)."""
    overridden = w.layers.overridden & dests if w.layers is not None and w.source == "config" else frozenset()
    last: dict[str, Entry] = {}
    for e in w.entries:
        if e.dest in overridden and e.words and not e.ignored and not e.dynamic:
            last[e.dest] = e
    refused = [e for e in last.values()  # entries of a dest: of an option word
               if getattr(w.schema.match(e.flag).option, "config_file", None) == "refused"]  # type: ignore[arg-type]
    yield from sorted([*(e for e in w.effective() if e.dest in dests), *refused], key=lambda e: e.index)


@arg_rule("DEP001", "deprecated-option", at="server_args.py:407", refuses=False, versions=VERSIONS)
def deprecated_option(w: Written) -> Iterator[Violation]:
    """Flag a deprecated option that has a replacement in this SGLang version.

    ## What it does
    Checks for `--disable-cuda-graph`, `--enable-dp-attention`,
    `--monokernel-backend amd`, `--grpc-mode`, `--disable-fast-image-processor`
    and `--enable-flashinfer-allreduce-fusion`, and rewrites each as the
    settings SGLang turns it into (`--dp-size N --enable-dp-attention` becomes
    `--attn-dp-size N`). Where other settings already decide what the old
    flag would (`--enable-dp-attention` with no `--dp-size`, an explicit
    `--flashinfer-allreduce-fusion-backend`), the flag does nothing and is
    removed. Where SGLang refuses the combination, it is reported, not fixed.
    A command line and its `--config` file are one launch: the other
    settings are read from both (`--enable-dp-attention` on the command line
    with `dp-size: 8` in the file becomes `--attn-dp-size 8`, and `dp-size`
    leaves the file), and a key the command line sets again is not judged
    (a key the config reader refuses is removed).

    ## Why it matters
    SGLang maps these flags with a warning today and will remove them. Some
    do less than they say: `--enable-dp-attention` alone enables nothing.
    In a `--config` file, `disable-cuda-graph` and `enable-dp-attention` are
    refused outright (`Unsupported config option`), `false` included.

    ## Example
    ```yaml
    disable-fast-image-processor: true
    ```
    Use instead:
    ```yaml
    image-processor-backend: pil
    ```

    ## Fix safety
    Each rewrite resolves to the same settings (checked with SGLang's own
    resolution): safe. One exception: Gemma-4 models with per-layer-input
    embeddings check the legacy `disable_cuda_graph` field itself when
    loading under pipeline parallelism, so with `--pp-size` above 1 the
    `--disable-cuda-graph` rewrite is unsafe. A value known only at launch
    (`--dp-size $DP`, a `--config` file autofix cannot read), or a fix that
    would edit a `--config` file other launches read too, or a command line
    from its `--config` file, leaves the flag reported and unfixed.

    ## SGLang source
    `sglang/srt/server_args.py:407` (the deprecated registrations, 0.5.23); each
    mapping's line is in `autofix/rules/deprecated.py` (`OPTIONS`)
    """
    dests = _deprecated_dests(w.schema)
    if not any(e.dest in dests for e in w.entries):
        return  # most launches: no setting of a deprecated option's dest
    x = w.values  # the launch's: a --config file's settings and the command line's, merged
    for e in _judged(w, dests):
        assert e.flag is not None and e.dest is not None  # an entry of a deprecated option's dest
        option = w.schema.match(e.flag).option
        if option is None or not option.deprecated or option.flag not in OPTIONS:
            continue
        config_refused = w.source == "config" and option.config_file == "refused"
        if e.problem is not None and not (config_refused and e.problem.kind == "stray"):
            continue  # argparse refuses how it is written: ARG00x says so first
        name, repl = w.spelling(e.flag), OPTIONS[option.flag]
        if not all(flag in w.schema.by_flag for flag, _ in repl.settings):
            continue
        head = f"{w.name(e)} is deprecated" + (", and SGLang refuses it in a --config file" if config_refused else "")
        if config_refused and e.raw is False:
            yield Violation(f"{head}; false is the default: remove it", (option.dest,),
                            (Fix.safe(Drop(e.index), title=f"Remove {name}"),), entry=e.index, refuses=True)
            continue
        if config_refused and w.layers is not None and e.dest in w.layers.overridden:
            # every launch's command line sets it again, and the file's value is never used
            yield Violation(f"{head}; the command line sets {option.flag} again: remove it", (option.dest,),
                            (Fix.safe(Drop(e.index), title=f"Remove {name}"),), entry=e.index, refuses=True)
            continue
        if option.flag == "--monokernel-backend" and e.values != ("amd",):
            continue
        text, fix, refused = None, None, False  # a refused key set to neither true nor false: meaning unclear
        if not config_refused or e.raw is True:
            text, fix, refused = _PLANS.get(option.flag, _replace)(w, e, x, repl)
        if fix is not None and w.source == "command" and w.elsewhere(e.dest):
            # the --config file's copy would take over once this one is gone: it goes too
            fix = Fix(fix.ops + (Unset(e.dest),), fix.applicability, fix.title)
        text = text or f"write {_shown(w, repl.settings)} instead"
        yield Violation(f"{head}; {text}", (option.dest,), (fix,) if fix else (), entry=e.index,
                        refuses=config_refused or refused)


# what a deprecated flag's plan says: the message's tail (None: the default wording), the fix, and whether
# SGLang refuses the flag with the launch's other settings (the finding is then an error, not a deprecation)
Plan = tuple[str | None, Fix | None, bool]


def _replace(w: Written, e: Entry, x: Mapping, repl: Replacement) -> Plan:
    """The replacement settings, less those set explicitly (they win over the deprecated flag)."""
    assert e.flag is not None  # a deprecated option's entry, as every plan is handed
    keep, given = [], []
    for flag, values in repl.settings:
        option = w.schema.by_flag[flag]
        if option.dest == e.dest or option.dest not in x:
            keep.append((flag, values))
        elif x[option.dest] is UNKNOWN:
            return None, None, False
        else:
            given.append((flag, () if option.nargs == 0 else (x[option.dest],)))
    fix = Fix.safe
    if e.dest == "disable_cuda_graph" and x.get("pp_size", 1) != 1:
        fix = Fix.unsafe  # models/gemma4_causal.py:874 reads the legacy field under PP
    name = w.spelling(e.flag)
    if not keep:
        return f"with {_given(w, tuple(given))} it does nothing: remove it", \
            fix(Drop(e.index), title=f"Remove {name}"), False
    shown = _shown(w, tuple(keep))
    (flag, values), *more = keep
    return f"write {shown} instead", fix(Rewrite(e.index, flag, values, tuple(more)), title=f"Write {shown}"), False


def _dp_attention(w: Written, e: Entry, x: Mapping, repl: Replacement) -> Plan:
    """``--dp-size N --enable-dp-attention`` -> ``--attn-dp-size N`` (when attn-dp-size is 1)."""
    assert e.flag is not None  # a deprecated option's entry
    dp, attn = x.get("dp_size", 1), x.get("attn_dp_size", 1)
    name, dp_name, attn_name = w.spelling(e.flag), w.spelling("--dp-size"), w.spelling("--attn-dp-size")
    if UNKNOWN in (dp, attn):
        return f"write {attn_name} <dp-size> instead of {dp_name} <dp-size> with {name} (not fixed: a size is only " \
               "known at launch)", None, False
    if attn != 1:
        if dp > 1 and attn > 1:
            return f"next to {_given(w, (('--attn-dp-size', (attn,)),))} it keeps " \
                   f"{_given(w, (('--dp-size', (dp,)),))} as replicas (DP003 says which to keep)", None, \
                False  # the pair is refused with or without it: DP003's error, not this warning's
        return f"with {_given(w, (('--attn-dp-size', (attn,)),))} it does nothing: remove it", \
            Fix.safe(Drop(e.index), title=f"Remove {name}"), False
    if dp == 1:
        return f"without {dp_name} above 1 it does nothing: remove it", \
            Fix.safe(Drop(e.index), title=f"Remove {name}"), False
    instead = _shown(w, (("--attn-dp-size", (dp,)),))
    # every copy of both sizes, in either file: one left behind would set the replicas again
    drops = (*w.unset("dp_size"), *w.unset("attn_dp_size"))
    return f"write {instead} instead of {_given(w, (('--dp-size', (dp,)),))} with {name}", \
        Fix.safe(Rewrite(e.index, "--attn-dp-size", (dp,)), *drops, title=f"Write {instead}"), False


def _image_processor(w: Written, e: Entry, x: Mapping, repl: Replacement) -> Plan:
    """``--disable-fast-image-processor`` -> ``--image-processor-backend pil`` unless another backend is chosen."""
    assert e.flag is not None  # a deprecated option's entry
    backend, name = x.get("image_processor_backend"), w.spelling(e.flag)
    if backend is None:
        return _replace(w, e, x, repl)
    if backend is UNKNOWN:
        return None, None, False
    shown = _given(w, (("--image-processor-backend", (backend,)),))
    if backend == "pil":
        return f"with {shown} it does nothing: remove it", Fix.safe(Drop(e.index), title=f"Remove {name}"), False
    if backend == "auto":
        pil = _given(w, (("--image-processor-backend", ("pil",)),))
        return f"write {pil} instead of {shown} with {name}", \
            Fix.safe(w.revalue("image_processor_backend", "pil"), Drop(e.index),
                     title=f"Write {pil} and remove {name}"), False
    # handle_deprecated_args raises before it maps the flag: the launch does not start
    return f"SGLang refuses it with {shown} (serving_hook.py:260): keep one of them", None, True


_PLANS = {"--enable-dp-attention": _dp_attention, "--disable-fast-image-processor": _image_processor}


@arg_rule("DEP002", "deprecated-value", at="arg_groups/serving_hook.py:256", refuses=False,
          versions=VERSIONS)
def deprecated_value(w: Written) -> Iterator[Violation]:
    """Flag a deprecated value that SGLang replaces by another.

    ## What it does
    Checks for `--tool-call-parser qwen25` (now `qwen`) and `glm45` (`glm`),
    and for the attention backends `compressed` (now `dsv4`) and
    `tokenspeed_mla` (now `cutedsl_mla`; `trtllm_mla` for
    `--prefill-attention-backend`, where cutedsl_mla does not run) in
    `--attention-backend`, `--decode-`, `--prefill-` and
    `--speculative-draft-attention-backend`.

    ## Why it matters
    SGLang swaps the value with a warning and will drop the old name. The
    old name can hide more: `tokenspeed_mla` as the (decode) attention
    backend also switches the KV cache to FP8 (`--kv-cache-dtype fp8_e4m3`,
    over any other dtype given) and, with speculative decoding, verifies in
    decode mode.

    ## Example
    ```yaml
    tool-call-parser: qwen25
    ```
    Use instead:
    ```yaml
    tool-call-parser: qwen
    ```

    ## Fix safety
    A renamed value resolves to the same settings: safe. For `tokenspeed_mla`
    as the (decode) attention backend the fix also writes
    `--kv-cache-dtype fp8_e4m3` (and `--speculative-attention-mode decode`)
    unless already given. That is what SGLang runs, but it turns a
    quality-relevant choice the old name hid into one the file states, and
    may replace a KV dtype the author wrote (SGLang overrides it): unsafe,
    for the author to confirm. With those settings already in place the
    rename alone is safe. Both backends need Blackwell (SM100); on other
    GPUs SGLang refuses either name alike.

    ## SGLang source
    `sglang/srt/arg_groups/serving_hook.py:256` (`handle_deprecated_args`, 0.5.23)
    """
    if not any(e.values and (e.dest, e.values[0]) in VALUES for e in w.entries):
        return  # most launches: no entry writes a deprecated value (the loop reports only such entries)
    x = w.values  # the launch's: a --config file's settings and the command line's, merged
    extras_done = False  # the FP8 KV settings go with the first tokenspeed_mla only
    for e in w.effective():  # a value another file overrides is never used: nothing to say of it
        if e.problem is not None or len(e.values) != 1 or (e.dest, e.values[0]) not in VALUES:
            continue
        option, old = w.option(e), e.values[0]
        assert option is not None and e.flag is not None and e.dest is not None  # a value of an option VALUES names
        new, _ = VALUES[(e.dest, old)]
        if option.choices is not None and (old not in option.choices or new not in option.choices):
            continue
        if old == "tokenspeed_mla" and e.dest in FP8_KV_BACKENDS:
            extras = ((), ()) if extras_done else _fp8_kv(w, x)
            extras_done = True
            yield _tokenspeed(w, e, new, extras)
            continue
        now = _shown(w, ((e.flag, (new,)),))
        yield Violation(f"{_shown(w, ((e.flag, (old,)),))} is deprecated; write {now} instead", (e.dest,),
                        (Fix.safe(Revalue(e.index, new), title=f"Write {now}"),), entry=e.index)


def _fp8_kv(w: Written, x: Mapping) -> tuple[tuple[Revalue | Set, ...], Settings] | None:
    """What tokenspeed_mla implied besides the backend: (values to change, where they are written; settings to
    add); None if unknown."""
    kv, algorithm = x.get("kv_cache_dtype"), x.get("speculative_algorithm")
    mode = x.get("speculative_attention_mode", "prefill")
    if UNKNOWN in (kv, algorithm, mode):
        return None
    wanted = [("kv_cache_dtype", "--kv-cache-dtype", "fp8_e4m3")]
    if algorithm is not None and mode == "prefill":
        wanted.append(("speculative_attention_mode", "--speculative-attention-mode", "decode"))
    changed, added = [], []
    for dest, flag, value in wanted:
        if dest not in x:
            added.append((flag, (value,)))
        elif x[dest] != value:
            changed.append(w.revalue(dest, value))
    return tuple(changed), tuple(added)


def _tokenspeed(w: Written, e: Entry, new: str,
                extras: tuple[tuple[Revalue | Set, ...], Settings] | None) -> Violation:
    """tokenspeed_mla as the (decode) attention backend: the new backend plus what the old one implied."""
    assert e.flag is not None and e.dest is not None  # an entry of an attention backend
    old = _shown(w, ((e.flag, ("tokenspeed_mla",)),))
    head = f"{old} is deprecated; SGLang runs {new} with an FP8 KV cache instead"
    if extras is None:
        return Violation(f"{head} (not fixed: the KV cache or speculative settings are only known at launch)",
                         (e.dest,), entry=e.index)
    changed, added = extras
    settings = ((e.flag, (new,)), *added, *((w.schema[op.dest].flag if isinstance(op, Set) else w.entries[op.entry].flag,
                                             (op.value,)) for op in changed))
    shown = _given(w, settings)  # type: ignore[arg-type]  # the entry a Revalue writes has its flag
    first = Rewrite(e.index, e.flag, (new,), added) if added else Revalue(e.index, new)
    fix = Fix.unsafe if added or changed else Fix.safe  # a rename alone changes nothing
    return Violation(f"{head}: write {shown}", (e.dest,), (fix(first, *changed, title=f"Write {shown}"),),
                     entry=e.index)


RULES = (deprecated_option, deprecated_value)
