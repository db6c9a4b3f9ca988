"""How SGLang reads ``--config``: keys it refuses, values it reads differently, the flag itself.

SGLang merges a ``--config`` YAML file into the command line before argparse
runs (``sglang/srt/utils/server_args_config_parser.py``, ``ConfigArgumentMerger``):
each key becomes ``--<key>`` and each value ``str(value)``. Only the exact
word ``--config`` on the command line names a file.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.common.diagnostics import Drop, Fix, Respell, Rewrite, Violation
from autofix.common.filenames import is_yaml
from autofix.common.written import Written
from autofix.rules.base import arg_rule

CONFIG_PARSER = "utils/server_args_config_parser.py"


@arg_rule("CFG001", "refused-config-key", at=f"{CONFIG_PARSER}:173")
def refused_config_key(w: Written) -> Iterator[Violation]:
    """A `--config` key whose option SGLang's config reader does not take.

    ## What it does
    Checks YAML keys that name an option the config reader only takes on the
    command line: `--x/--no-x` switches (argparse's `BooleanOptionalAction`)
    and options with a custom action or several values (`lora-paths`).

    ## Why SGLang refuses it
    The reader turns keys into words only for plain flags and one-value
    options; for any other key it raises `Unsupported config option` before
    argparse runs, whatever the value. Deprecated options of this kind
    (`enable-dp-attention`, `disable-cuda-graph`) are reported by DEP001,
    with their replacement.

    ## Example
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    enable-tf32-matmul: true
    ```
    Use instead (and pass `--enable-tf32-matmul` on the command line):
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    ```

    ## Fix safety
    When another spelling of the same setting is one the reader takes (in
    0.5.19, `cuda-graph-max-bs` for `cuda-graph-max-bs-decode`), the fix
    writes it: safe. A switch set to its default (`enable-tf32-matmul:
    false` where the default is off) is removed: the launch runs as the
    file says, safe.
    Anything else must move to the command line that launches SGLang; it is
    reported, not fixed.

    ## SGLang source
    `sglang/srt/utils/server_args_config_parser.py:173` (`_convert_config_to_args`, 0.5.23)
    """
    if w.source != "config":
        return
    for e in w.entries:
        assert e.flag is not None  # a key of a --config file
        option = w.schema.by_flag.get(e.flag)  # the reader matches keys exactly, not by prefix
        if option is None or option.config_file != "refused" or option.deprecated \
                or e.ignored in ("repeated", "overridden"):  # a copy the reader never sees
            continue
        key = w.spelling(e.flag)
        kind = "an --x/--no-x switch" if option.kind == "boolean_optional" else "a multi-value option" \
            if option.nargs in ("*", "+") else "an option with a custom action"
        fixes: tuple[Fix, ...] = ()
        # a spelling of the same field the reader takes (0.5.19 refuses `cuda-graph-max-bs-decode`,
        # which shares its field with the alias `cuda-graph-max-bs`, and takes the alias)
        taken = next((o for o in w.schema.options if o.dest == option.dest and o.config_file != "refused"
                      and o.nargs == option.nargs and o.type == option.type), None)
        if taken is not None:
            flag = next(f for f in taken.flags if f.startswith("--"))
            fixes = (Fix.safe(Respell(e.index, flag), title=f"Write {w.spelling(flag)}"),)
        elif option.kind == "boolean_optional" and isinstance(e.raw, bool):
            on = e.raw != e.flag.startswith("--no-")
            if on == bool(option.default):
                fixes = (Fix.safe(Drop(e.index), title=f"Remove {key} (the default)"),)
        yield Violation(f"SGLang's --config reader refuses key {key!r} ({kind}); pass it on the command line",
                        (option.dest,), fixes, entry=e.index)


@arg_rule("CFG002", "null-config-value", at=f"{CONFIG_PARSER}:210", refuses=False)
def null_config_value(w: Written) -> Iterator[Violation]:
    """A `--config` key set to `null`, which SGLang reads as the word `None`.

    ## What it does
    Checks YAML keys whose value is `null` (or `~`, or nothing).

    ## Why it matters
    The config reader writes every value with `str()`, so `null` reaches
    argparse as the word `None`. A number, a choice or a flag refuses it
    (`invalid int value: 'None'`); a text option silently takes the
    four-letter string `None` (a chat template, a revision named `None`).
    The first is reported as an error, the second as a warning.
    Leaving the key out is how a config asks for the default. A text
    option's `null` that the command line sets again is never used, and is
    not reported.

    ## Example
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    max-running-requests: null
    ```
    Use instead:
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    ```

    ## Fix safety
    Removing the key gives the option its default. When that default is
    None (unset), that is what `null` meant: safe. When the default is a
    value, the author may have meant something else (no limit): unsafe.

    ## SGLang source
    `sglang/srt/utils/server_args_config_parser.py:210` (`_add_scalar_arg`, 0.5.23)
    """
    if w.source != "config":
        return
    for e in w.entries:
        if e.raw is not None or not e.words or e.ignored:
            continue
        assert e.flag is not None  # a key of a --config file
        option = w.schema.match(e.flag).option
        if option is None or option.type == "sglang.srt.utils.common.nullable_str":
            continue  # an unknown key is ARG001's; this one type turns "None" back into None
        key = w.spelling(e.flag)
        refused = e.problem is not None
        if not refused and w.layers is not None and e.dest in w.layers.overridden:
            continue  # the command line sets it again: SGLang never uses the word
        fix = (Fix.safe if option.default in (None, False) else Fix.unsafe)(
            Drop(e.index), title=f"Remove {key} (SGLang's default: {option.default!r})")
        what = "which SGLang refuses" if refused else "which SGLang takes as the string 'None'"
        yield Violation(f"{w.name(e)} is null: it reaches SGLang as the word None, {what}", (option.dest,), (fix,),
                        entry=e.index, refuses=refused)  # an error where argparse refuses the word


@arg_rule("CFG003", "list-for-one-value", at=f"{CONFIG_PARSER}:206")
def list_for_one_value(w: Written) -> Iterator[Violation]:
    """A list given to a `--config` key that takes one value (or none).

    ## What it does
    Checks YAML list values of options that take one value, or of flags.

    ## Why SGLang refuses it
    The config reader writes a list as the key followed by one word per
    item. An option that takes one value keeps the first word and argparse
    refuses the next (`unrecognized arguments`); a flag refuses them all. A
    one-item list of a one-value option is read as that item and is fine.

    ## Example
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    tp-size: [4, 8]
    ```
    Use instead:
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    tp-size: 8
    ```

    ## Fix safety
    Which item was meant is the author's call: reported, not fixed.

    ## SGLang source
    `sglang/srt/utils/server_args_config_parser.py:206` (`_add_list_arg`, 0.5.23)
    """
    if w.source != "config":
        return
    for e in w.entries:
        if not isinstance(e.raw, list) or not e.raw or e.dest is None or e.ignored:
            continue
        option = w.schema[e.dest]
        if option.nargs in ("*", "+") or (option.nargs is None and len(e.raw) == 1):
            continue
        key = w.name(e)
        takes = "no value" if option.nargs == 0 else "one value"
        yield Violation(f"{key} takes {takes}, but is given a list of {len(e.raw)}", (option.dest,), entry=e.index)


@arg_rule("CFG004", "config-in-config", at=f"{CONFIG_PARSER}:99", refuses=False)
def config_in_config(w: Written) -> Iterator[Violation]:
    """A `config:` key inside a `--config` file: SGLang does not read it.

    ## What it does
    Checks for a `config` key in a YAML config file.

    ## Why it matters
    SGLang reads one config file, named by `--config` on the command line.
    A `config:` key in that file becomes a `--config` word after the file
    was read, so the file it names is never opened, without a word.

    ## Example
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    config: base.yaml
    ```
    Use instead (copy the settings of `base.yaml` into this file):
    ```yaml
    model-path: meta-llama/Llama-3.1-8B-Instruct
    ```

    ## Fix safety
    Merging another file is the author's call: reported, not fixed.

    ## SGLang source
    `sglang/srt/utils/server_args_config_parser.py:99` (`merge_config_with_args`, 0.5.23)
    """
    if w.source != "config":
        return
    for e in w.entries:
        if e.dest == "config" and not e.ignored:
            yield Violation(f"{w.name(e)}: SGLang does not read a config file named inside a config file",
                            ("config",), entry=e.index)


@arg_rule("CFG005", "config-flag-spelling", at=f"{CONFIG_PARSER}:110", refuses=False)
def config_flag_spelling(w: Written) -> Iterator[Violation]:
    """`--config=FILE` or an abbreviation (`--conf FILE`): SGLang ignores the file.

    ## What it does
    Checks command lines for `--config` written any way but as the word
    `--config` followed by the path.

    ## Why it matters
    SGLang looks for the exact word `--config` before argparse runs. Written
    `--config=FILE` or abbreviated, argparse still accepts the option, so the
    launch starts, with none of the file's settings.

    ## Example
    ```shell
    python -m sglang.launch_server --config=serve.yaml
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --config serve.yaml
    ```

    ## Fix safety
    Writing `--config FILE` makes SGLang read the file the author named:
    safe. The file's own settings then apply, so check it too. When the file
    is not named `.yaml`/`.yml`, SGLang would refuse it once read (CFG007):
    reported, not fixed.

    ## SGLang source
    `sglang/srt/utils/server_args_config_parser.py:110` (`_extract_config_file_path`, 0.5.23)
    """
    for e in w.entries:
        if e.dest != "config" or e.dynamic or e.ignored or (e.flag == "--config" and not e.inline):
            continue
        if w.source == "config":
            continue  # CFG004's
        if e.values and not is_yaml(e.values[0]):
            # read, the file would be refused (CFG007): writing --config FILE would stop the launch
            yield Violation(f"{e.shown}: SGLang reads a config file only after the exact word --config, so it "
                            "starts without this one (written so, it would refuse it: not .yaml/.yml)", ("config",),
                            entry=e.index)
            continue
        yield Violation(f"{e.shown}: SGLang reads a config file only after the exact word --config",
                        ("config",), (Fix.safe(Rewrite(e.index, "--config", e.values[:1]),
                                               title="Write --config FILE"),), entry=e.index)


@arg_rule("CFG006", "config-given-twice", at=f"{CONFIG_PARSER}:113")
def config_given_twice(w: Written) -> Iterator[Violation]:
    """`--config` given more than once on one command line.

    ## What it does
    Checks command lines for a second exact `--config` word.

    ## Why SGLang refuses it
    SGLang reads one config file; before argparse runs it raises
    `Multiple config files specified` when the word `--config` appears
    twice, instead of letting the last one win as for other options.

    ## Example
    ```shell
    python -m sglang.launch_server --config base.yaml --config tuned.yaml
    ```
    Use instead:
    ```shell
    python -m sglang.launch_server --config tuned.yaml
    ```

    ## Fix safety
    Which file holds the wanted settings is the author's call: reported,
    not fixed.

    ## SGLang source
    `sglang/srt/utils/server_args_config_parser.py:113` (`_extract_config_file_path`, 0.5.23)
    """
    if w.source != "command":
        return
    exact = [e for e in w.entries if e.flag == "--config" and not e.inline and not e.ignored]
    for e in exact[1:]:
        yield Violation("--config is given again; SGLang reads one config file",
                        ("config",), entry=e.index)


@arg_rule("CFG007", "config-not-yaml", at=f"{CONFIG_PARSER}:159")
def config_not_yaml(w: Written) -> Iterator[Violation]:
    """`--config FILE` where FILE is not named `.yaml` or `.yml`.

    ## What it does
    Checks the path after the word `--config` for a `.yaml`/`.yml` suffix
    (any case).

    ## Why SGLang refuses it
    SGLang checks the config file's suffix before it opens it and raises
    `Config file must be YAML format` for any other, whatever the file
    holds (`serve.conf`, `config.json`, `serve.yaml.bak`).

    ## Example
    ```shell
    python -m sglang.launch_server --config serve.conf
    ```
    Use instead (after renaming the file):
    ```shell
    python -m sglang.launch_server --config serve.yaml
    ```

    ## Fix safety
    Renaming a file is the author's call: reported, not fixed.

    ## SGLang source
    `sglang/srt/utils/server_args_config_parser.py:159` (`_validate_yaml_file`, 0.5.23)
    """
    if w.source == "config":
        return
    for e in w.entries:
        if e.flag == "--config" and not e.inline and not e.ignored and not e.dynamic and e.values \
                and not is_yaml(e.values[0]):
            yield Violation(f"--config {e.values[0]}: SGLang reads only .yaml/.yml config files",
                            ("config",), entry=e.index)


RULES = (refused_config_key, null_config_value, list_for_one_value, config_in_config, config_flag_spelling,
         config_given_twice, config_not_yaml)
