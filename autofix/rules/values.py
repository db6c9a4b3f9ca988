"""Values SGLang's argparse stage refuses: not a choice, not of the type, missing.

argparse converts each value with the option's ``type`` and checks it
against ``choices`` as it reads it (``server_args.py:prepare_server_args``).
A ``--config`` value reaches argparse as ``str(value)``
(``utils/server_args_config_parser.py``), so YAML's own readings show up
here: ``no`` is the word ``false``, ``null`` the word ``None``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from autofix.common import argtypes
from autofix.common.arguments import Entry
from autofix.common.diagnostics import Drop, Fix, Respell, Revalue, Rewrite, Violation
from autofix.common.written import Written
from autofix.rules.base import arg_rule
from autofix.schema import Option

_SHOWN_CHOICES = 12


def _refused(w: Written, kind: str) -> Iterator[Entry]:
    for e in w.refused(kind):
        if w.source == "config" and e.raw is None:
            continue  # YAML null: CFG002's
        yield e


def _fold(value: str) -> str:
    return value.casefold().replace("-", "").replace("_", "")


def _yaml_note(w: Written, e: Entry) -> str:
    if w.source == "config" and e.raw is None:
        return " (YAML null is passed on as the word None)"
    if w.source == "config" and isinstance(e.raw, bool):
        return f" (YAML reads this value as the boolean {str(e.raw).lower()})"
    return ""


@arg_rule("ARG003", "invalid-choice", at="server_args.py:prepare_server_args (argparse choices)")
def invalid_choice(w: Written) -> Iterator[Violation]:
    """A value that is not one of the option's choices (`--moe-a2a-backend DeepEP`).

    ## What it does
    Checks the value of every option that has a list of choices.

    ## Why SGLang refuses it
    argparse compares the value with the choices as written, case and all,
    and stops with `invalid choice`. In a config file YAML may have read the
    value as something else first: `no` is the boolean false, passed on as
    the word `false`.

    ## Example
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    moe-a2a-backend: DeepEP
    ```
    Use instead:
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    moe-a2a-backend: deepep
    ```

    ## Fix safety
    When exactly one choice equals the value up to case and `-`/`_`, that
    choice is what was meant: safe. Otherwise the choices are listed, with
    a close one suggested, and nothing is guessed.

    ## SGLang source
    `sglang/srt/server_args.py:prepare_server_args (argparse choices)` (0.5.23)
    """
    for e in _refused(w, "choice"):
        option = w.option(e)
        assert option is not None and option.choices is not None  # argparse refused a choice of a known option
        choices = [str(c) for c in option.choices]
        for item, value in enumerate(e.values):
            if value in choices:
                continue
            same = [c for c in choices if _fold(c) == _fold(value)]
            name = w.name(e)
            if len(same) == 1:
                yield Violation(f"{name}: {value!r} is not a choice; SGLang spells it {same[0]!r}", (option.dest,), (
                    Fix.safe(Revalue(e.index, same[0], item), title=f"Write {same[0]}"),), entry=e.index)
                continue
            import difflib  # only for a value that is refused: a clean run never loads it

            close = difflib.get_close_matches(value, choices, n=1, cutoff=0.75)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            listed = ", ".join(choices[:_SHOWN_CHOICES]) + (", ..." if len(choices) > _SHOWN_CHOICES else "")
            yield Violation(f"{name}: {value!r} is not a choice ({listed}){hint}{_yaml_note(w, e)}",
                            (option.dest,), entry=e.index)
            break


@arg_rule("ARG004", "invalid-value", at="server_args.py:prepare_server_args (argparse type)")
def invalid_value(w: Written) -> Iterator[Violation]:
    """A value the option's type refuses (`--tp-size eight`, `--mm-process-config '{bad'`).

    ## What it does
    Checks every value against its option's type, as argparse converts it:
    integers and floats, JSON (`--limit-mm-data-per-request`,
    `--extra-metric-labels`, ...), JSON lists, which SGLang reads with orjson
    (`--forward-hooks`: no `NaN`, no infinite number), sizes with an SI or
    IEC suffix (`--context-length 128k`, `2Ki`), `--cuda-graph-config`
    (phases and their keys), and the removed `tc_piecewise` graph backend.

    ## Why SGLang refuses it
    argparse converts the value with the option's type and stops with
    `invalid int value` (or `invalid loads value` for JSON, or the type's
    own message) when that fails: `int("8.0")` fails too. In a `--config`
    file a mapping is passed on as JSON, but a string is passed as it is.

    ## Example
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    tp-size: 8.0
    ```
    Use instead:
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    tp-size: 8
    ```

    ## Fix safety
    A whole number written as a float (`8.0` for an integer option) has one
    meaning: `8`, safe. Anything else is reported. SGLang 0.5.23 does not
    bound values such as `--mem-fraction-static` while reading them, and
    neither does this rule.

    ## SGLang source
    `sglang/srt/server_args.py:prepare_server_args (argparse type)` (0.5.23)
    """
    for e in _refused(w, "type"):
        option = w.option(e)
        assert option is not None  # argparse refused a value of a known option
        for item, value in enumerate(e.values):
            why = argtypes.refusal(option.type, value, w.schema.version)
            if why is None:
                continue
            name = w.name(e)
            fixed = _whole(value) if option.type in _INTEGERS else None
            if fixed is not None:
                yield Violation(f"{name}: {value!r} is not an integer; it means {fixed}", (option.dest,), (
                    Fix.safe(Revalue(e.index, fixed, item), title=f"Write {fixed}"),), entry=e.index)
            elif option.type in ("int", "float"):
                yield Violation(f"{name}: {value!r} is not a valid {option.type}{_yaml_note(w, e)}",
                                (option.dest,), entry=e.index)
            elif option.type == "json":
                yield Violation(f"{name}: {value!r} is not JSON ({_json_error(value, why)}){_yaml_note(w, e)}",
                                (option.dest,), entry=e.index)
            else:  # the type's own message, which names the value
                yield Violation(f"{name}: {why}{_yaml_note(w, e)}", (option.dest,), entry=e.index)
            break


_INTEGERS = ("int", "sglang.srt.utils.common.human_readable_int")  # types that read `8` but not `8.0`


def _json_error(text: str, refused: str) -> str:
    """Why ``json.loads`` refuses ``text`` (``refused``: argparse's words, when it is not a JSON error)."""
    try:
        json.loads(text)
    except ValueError as exc:
        return str(exc)
    except RecursionError:
        pass
    return refused


def _whole(text: str) -> int | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return int(number) if number.is_integer() and abs(number) < 2**53 else None


_TRUE, _FALSE = {"true", "1", "yes", "on"}, {"false", "0", "no", "off"}


def _flag_given_value(w: Written, e: Entry, option: Option) -> Violation:
    """A config key of a flag given a value that is not a YAML boolean (``"true"``, ``1``).

    A real YAML boolean lands here only under a key the ``--config`` reader
    does not know as a flag's name: an abbreviation (``enable-ep: true`` for
    ``--enable-eplb``), which it passes as ``--enable-ep true`` (its flag
    test is by full name, server_args_config_parser.py:196); the fix writes
    the flag's full name.
    """
    assert e.flag is not None  # a key
    key, value = w.spelling(e.flag), str(e.raw)
    if isinstance(e.raw, bool):
        full = w.spelling(option.flag)
        fixes = (Fix.safe(Respell(e.index, option.flag), title=f"Write {full}: {value.lower()}"),) if e.raw else \
            (Fix.safe(Drop(e.index), title=f"Remove {key}"),) if not option.default else ()
        return Violation(f"{key} is read as --{key} {value.lower()}: the config reader takes a flag's "
                         f"true/false only under its full name ({full})", (option.dest,), fixes, entry=e.index)
    fixes = ()
    if value.lower() in _TRUE:
        fixes = (Fix.safe(Rewrite(e.index, e.flag), title=f"Write {key}: true"),)
    elif value.lower() in _FALSE and not option.default:
        fixes = (Fix.safe(Drop(e.index), title=f"Remove {key}"),)
    return Violation(f"{w.name(e)} is a flag: it takes true or false, not {e.raw!r}", (option.dest,), fixes,
                     entry=e.index)


@arg_rule("ARG005", "missing-value", at="server_args.py:prepare_server_args (argparse nargs)")
def missing_value(w: Written) -> Iterator[Violation]:
    """An option without the value it needs, or a flag given a value it does not take.

    ## What it does
    Checks for an option with no value after it (`--tp-size` last, or
    followed by another option), a flag written with a value
    (`--enable-metrics=true`), and a flag's config key set to something
    other than a YAML boolean (`enable-metrics: "true"`).

    ## Why SGLang refuses it
    argparse stops with `expected one argument` or `ignored explicit
    argument`. A config key of a flag must be `true` or `false`: any other
    value is passed on as a word after the flag, and refused.

    ## Example
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    enable-metrics: "true"
    ```
    Use instead:
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    enable-metrics: true
    ```

    ## Fix safety
    A true value becomes the bare flag (`true` in a config) and a false one
    is removed (a flag is off by default): safe. A missing value is
    reported.

    ## SGLang source
    `sglang/srt/server_args.py:prepare_server_args (argparse nargs)` (0.5.23)
    """
    for e in w.entries:
        if e.problem is None or e.dynamic or e.ignored or e.flag is None:
            continue
        if (e.problem.kind == "stray" or w.refused_value(e)) and w.keyed and e.dest is not None:
            option = w.schema[e.dest]
            # a recipe key is a flag srtctl writes itself: any option; a --config key only one the reader takes
            takes = w.source == "recipe" or option.config_file != "refused"
            if option.nargs == 0 and takes and e.raw is not None and not isinstance(e.raw, list):
                yield _flag_given_value(w, e, option)
            continue
        if e.problem.kind == "missing":
            yield Violation(f"{w.name(e)} needs a value", (), entry=e.index)
        elif e.problem.kind == "explicit":
            option = w.schema.match(e.flag).option  # type: ignore[assignment]  # argparse knew the flag
            value = e.values[0].lower()
            full = next((f for f in option.flags if f.startswith(e.flag)), option.flag)
            if option.kind == "boolean_optional" and value in _FALSE | _TRUE:
                on = (value in _TRUE) != full.startswith("--no-")
                flag = next(f for f in option.flags if f.startswith("--no-") != on)
                fix = Fix.safe(Rewrite(e.index, flag), title=f"Write {flag}")
            elif value in _TRUE:
                fix = Fix.safe(Rewrite(e.index, full), title=f"Write {full}")
            elif value in _FALSE and option.is_store_true and not option.default:
                fix = Fix.safe(Drop(e.index), title=f"Remove {e.flag}={e.values[0]}")
            else:
                fix = None
            yield Violation(f"{e.flag} takes no value, but is given {e.values[0]!r}", (option.dest,),
                            (fix,) if fix else (), entry=e.index)
RULES = (invalid_choice, invalid_value, missing_value)
