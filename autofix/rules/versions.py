"""Options that exist in another SGLang release but not in the target one, and how to migrate them.

Configs are written for the SGLang their authors ran. autofix ships the
argument table of more than one release (``autofix/schema/``); an option the
target release refuses but another release knows is reported against the
target, with its migration when the two tables say what it became.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.common.arguments import Entry
from autofix.common.diagnostics import Drop, Fix, Respell, Rewrite, Violation
from autofix.common.written import Written
from autofix.rules.base import arg_rule
from autofix.rules.migrations import MOVED
from autofix.schema import Option, Schema


def _known_in(w: Written, flag: str) -> tuple[Schema, Option] | None:
    for other in w.others:  # an exact spelling only: an abbreviation is ARG001's (a typo as likely as a version)
        m = other.match(flag)
        if m.status == "exact" and m.option is not None:
            return other, m.option
    return None


@arg_rule("VER001", "option-not-in-target-version", at="server_args.py:prepare_server_args (argparse)")
def option_not_in_target_version(w: Written) -> Iterator[Violation]:
    """An option of another SGLang release that the target release refuses.

    ## What it does
    Checks option words and config keys the target release (`--target-version`,
    default 0.5.23) does not know, or reads as an ambiguous abbreviation,
    but another shipped release knows: `--cuda-graph-max-bs` was an option of
    0.5.19; in 0.5.23 it is an ambiguous prefix of the per-phase
    `--cuda-graph-max-bs-decode` and `--cuda-graph-max-bs-prefill`.

    ## Why SGLang refuses it
    argparse stops with `unrecognized arguments` or `ambiguous option`: a
    config that started on the release it was written for stops on the next.

    ## Example
    ```yaml
    model-path: deepseek-ai/DeepSeek-V3
    cuda-graph-max-bs: 256
    ```
    Use instead:
    ```yaml
    model-path: deepseek-ai/DeepSeek-V3
    cuda-graph-max-bs-decode: 256
    ```

    ## Fix safety
    When the other release's table maps the option to a setting the target
    release still has (the same field under a new name, such as
    `--cuda-graph-max-bs` for `cuda_graph_max_bs_decode`), the fix writes the
    target's spelling: safe, the value means the same. A switch whose
    replacement is a value of a new option (`--disable-piecewise-cuda-graph`
    -> `--cuda-graph-backend-prefill disabled`) comes from a table read off
    SGLang's code, with its source line. An option with no counterpart is
    reported with what the release notes say to use, if anything.

    ## SGLang source
    `sglang/srt/server_args.py:prepare_server_args (argparse)`; the tables in
    `autofix/schema/` are generated from each release's own parser.
    """
    for e in w.entries:
        if e.problem is None or e.problem.kind not in ("unknown", "ambiguous") or not e.flag or e.dynamic:
            continue
        if w.refused_value(e):
            continue  # the key is right, its value is not (ARG005)
        if e.ignored:
            continue
        found = _known_in(w, e.flag)
        if found is None:
            continue
        other, old = found
        yield _migration(w, e, other, old)


def _migration(w: Written, e: Entry, other: Schema, old: Option) -> Violation:
    assert e.flag is not None  # an option word of another release
    name = w.spelling(e.flag)
    head = f"{name} is an SGLang {other.version} option; {w.schema.version} "
    moved = MOVED.get(old.flag)
    if w.source == "config" and e.raw is False and old.nargs == 0:  # a switch left off: it sets nothing
        return Violation(f"{head}does not have it; set to false it does nothing", (), (
            Fix.safe(Drop(e.index), title=f"Remove {name}"),), entry=e.index)
    if moved is not None and not moved.settings:
        note = f" ({moved.note})" if moved.note else ""
        if moved.same:
            return Violation(f"{head}does not have it, and it can go{note}", (), (
                Fix.safe(Drop(e.index), title=f"Remove {name}"),), entry=e.index)
        return Violation(f"{head}does not have it{note}", (), entry=e.index)
    if moved is not None:
        settings = tuple((flag, tuple(values if values else e.values)) for flag, values in moved.settings)
        shown = " ".join(f"{w.spelling(f)} {' '.join(map(str, v))}".strip() for f, v in settings)
        fix = (Fix.safe if moved.same else Fix.unsafe)(
            Rewrite(e.index, settings[0][0], settings[0][1], settings[1:]), title=f"Write {shown}")
        note = f" ({moved.note})" if moved.note else ""
        return Violation(f"{head}has {shown} instead{note}", (), (fix,), entry=e.index)
    new = w.schema.by_dest.get(old.dest)
    if new is None:
        return Violation(f"{head}does not have it", (), entry=e.index)
    target = w.spelling(new.flag)
    takes_value = lambda o: o.nargs != 0  # noqa: E731
    if takes_value(old) == takes_value(new) and (takes_value(old) or old.const is not None):
        return Violation(f"{head}calls it {target}", (new.dest,), (
            Fix.safe(Respell(e.index, new.flag), title=f"Write {target}"),), entry=e.index)
    return Violation(f"{head}sets its field with {target}", (new.dest,), entry=e.index)


RULES = (option_not_in_target_version,)
