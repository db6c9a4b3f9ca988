"""How a container is handed its launch, before SGLang reads a word.

Docker's parser (BuildKit, which autofix reads Dockerfiles with: PyPI
``dockerfile``) decides what command an instruction runs, and how an
``ENTRYPOINT`` and a ``CMD`` join; a shell given ``-c`` runs one word as its
script, whether Docker, compose or Kubernetes hands it the words. These rules
mirror that, not SGLang: no SGLang source line applies, SGLang never starts.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.common.diagnostics import Fix, Requote, Violation
from autofix.common.written import NotJson, ShellForm, SplitScript, Written
from autofix.rules.base import host_rule

BUILDKIT = "buildkit:frontend/dockerfile/parser/line_parsers.go (parseMaybeJSON)"
BUILDKIT_JOIN = "buildkit:frontend/dockerfile/dockerfile2llb/convert.go (dispatchCmd, dispatchEntrypoint: withShell)"
SH_C = "posix:sh -c command_string [command_name [argument...]]"


@host_rule("DKR001", "exec-form-not-json", at=BUILDKIT)
def exec_form_not_json(w: Written) -> Iterator[Violation]:
    """A `CMD`, `ENTRYPOINT` or `RUN` written as an exec form (`[...]`) that is not valid JSON.

    ## What it does
    Checks Dockerfile instructions whose arguments start with `[` and hold
    an SGLang launch but are not a JSON array of strings: a trailing comma,
    single or curly quotes, a word or a number without quotes, a missing
    comma, no closing `]`.

    ## Why SGLang refuses it
    SGLang never gets the words. Docker takes the exec form only for a JSON
    array of strings; any other text is silently the shell form, run as
    `/bin/sh -c '["python3", "-m", ...,]'`, whose first word `[python3,` is
    no command: the container exits as it starts (a `RUN` fails the build).
    BuildKit's build check `JSONArgsRecommended` (a warning that a shell
    form will not pass signals on, unless a `SHELL` is set) and hadolint's
    `DL3025` ("use arguments JSON notation") see a shell-form `CMD` or
    `ENTRYPOINT` here, not a broken array; neither checks `RUN`. A valid
    JSON array that holds a number (`["--tp", 8]`) Docker refuses to
    build: autofix reports it as an error in the file.

    ## Example
    ```dockerfile
    FROM lmsysorg/sglang:latest
    CMD ["python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct",]
    ```
    Use instead:
    ```dockerfile
    FROM lmsysorg/sglang:latest
    CMD ["python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct"]
    ```

    ## Fix safety
    When the text reads beyond doubt as a list of words, as a YAML or
    Python list would (a trailing comma, single quotes without a backslash,
    curly quotes, plain words and numbers), the fix writes those words as
    the JSON array, editing only those items and the comma: safe. The
    launch is then read as Docker will run it, and checked. A missing comma
    (two words, or one?), an empty item, no closing `]` or text after it:
    reported, not fixed.

    ## SGLang source
    None: SGLang never starts. The behaviour mirrored is BuildKit's,
    `buildkit:frontend/dockerfile/parser/line_parsers.go (parseMaybeJSON)`
    (v0.12.5, the parser PyPI `dockerfile` 3.4.0 bundles).
    """
    form = w.host
    if not isinstance(form, NotJson):
        return
    fails = "the build" if form.keyword == "RUN" else "as the container starts"
    fixes = () if form.words is None else (
        Fix.safe(Requote(0, form.words), title=f"Write the {form.keyword} arguments as a JSON array"),)
    yield Violation(f"{form.keyword} is not a valid JSON array ({', '.join(form.errors)}): Docker runs it as a "
                    f"/bin/sh -c command, which fails {fails}", (), fixes, entry=0)


def _quoted(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[:limit - 3] + "...")


@host_rule("DKR002", "entrypoint-cmd-shell-form", at=BUILDKIT_JOIN)
def entrypoint_cmd_shell_form(w: Written) -> Iterator[Violation]:
    """An `ENTRYPOINT` and a `CMD` in different forms: the launch does not get the `CMD`'s words.

    ## What it does
    Checks the `ENTRYPOINT` and `CMD` of each stage (its own or inherited,
    as Docker builds the image) where one launches SGLang and one of them
    is in shell form.

    ## Why SGLang refuses it
    Docker runs a shell-form instruction as `/bin/sh -c '<text>'`. An
    exec-form `ENTRYPOINT` then gets a shell-form `CMD` as the three words
    `/bin/sh -c '<text>'`, and SGLang stops at them (`unrecognized
    arguments: /bin/sh -c ...`). A shell-form `ENTRYPOINT` takes no
    arguments at all: the `CMD`'s words become the shell's `$0`, `$1`...,
    so its launch runs without them (`--model-path` is then missing), or,
    when the `CMD` is the launch, the launch never runs. BuildKit's build
    check `JSONArgsRecommended` and hadolint's `DL3025` recommend the exec
    form for each instruction alone.

    ## Example
    ```dockerfile
    FROM lmsysorg/sglang:latest
    ENTRYPOINT ["python3", "-m", "sglang.launch_server"]
    CMD --model-path meta-llama/Llama-3.1-8B-Instruct --tp 2
    ```
    Use instead:
    ```dockerfile
    FROM lmsysorg/sglang:latest
    ENTRYPOINT ["python3", "-m", "sglang.launch_server"]
    CMD ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp", "2"]
    ```

    ## Fix safety
    When the shell-form text is plain words (quotes, but nothing the shell
    would expand, no operator), the fix writes them as a JSON array, and
    the launch is then read as Docker will run it, and checked. That is
    safe where the instruction is part of the SGLang launch; writing a
    shell-form `ENTRYPOINT` that runs another program (a script) in exec
    form passes it the `CMD`'s launch as arguments, which it never had:
    unsafe. Text with `$VAR`, `&&` or a glob is reported, not fixed; nor
    is one on several lines.

    ## SGLang source
    None: SGLang never gets the words as written. The behaviour mirrored is
    BuildKit's (v0.12.5), the shell form prefixed with the image's shell
    (`/bin/sh -c`), and a builder flag on `CMD` refused (`instructions.Parse`):
    `buildkit:frontend/dockerfile/dockerfile2llb/convert.go (dispatchCmd, dispatchEntrypoint: withShell)`
    """
    form = w.host
    if not isinstance(form, ShellForm):
        return
    if form.flag is not None:
        message = (f"CMD is in shell form, and Docker reads its {form.flag} as a build flag: the build fails "
                   f"(unknown flag: {form.flag[2:]}); as a JSON array it would be the ENTRYPOINT's arguments")
    elif not form.dropped:
        message = (f"CMD is in shell form: the ENTRYPOINT's launch gets it as the words /bin/sh -c "
                   f"{_quoted(form.text)}, which SGLang refuses")
    elif form.runs_cmd:
        message = "ENTRYPOINT is in shell form: Docker runs it with /bin/sh -c alone, so the CMD's launch never runs"
    else:
        message = ("ENTRYPOINT is in shell form: Docker runs it with /bin/sh -c alone, so its launch never gets the "
                   "CMD's words")
    make = Fix.safe if form.safe else Fix.unsafe
    fixes = () if form.words is None else (
        make(Requote(0, form.words), title=f"Write the {form.keyword} arguments as a JSON array"),)
    yield Violation(message, (), fixes, entry=0)


@host_rule("DKR003", "shell-script-split", at=SH_C)
def shell_script_split(w: Written) -> Iterator[Violation]:
    """A shell given `-c` and a launch written as several words: it runs only the first.

    ## What it does
    Checks container commands (a Dockerfile's `ENTRYPOINT` and `CMD`, a
    compose service's `entrypoint` and `command`, a Kubernetes container's
    `command` and `args`) where `sh -c` (any shell, `bash -lc`...) is
    followed by an SGLang launch spread over several words.

    ## Why SGLang refuses it
    `sh -c` takes one word as its script; the words after it are the
    script's `$0`, `$1`.... `entrypoint: ["sh", "-c"]` with `command:
    python3 -m sglang.launch_server ...` runs `python3` alone: compose
    splits a string `command` into words itself, without a shell (and drops
    what follows an unquoted `&&`, `;` or `|`), and Docker appends them. The
    same holds for a `CMD` list after an `ENTRYPOINT ["sh", "-c"]`, or
    Kubernetes `args` items after `command: ["sh", "-c"]`; a shell-form
    `CMD` there makes the script `/bin/sh`. The container exits, or idles,
    and SGLang never starts.

    ## Example
    ```dockerfile
    FROM lmsysorg/sglang:latest
    ENTRYPOINT ["sh", "-c"]
    CMD ["python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct"]
    ```
    Use instead:
    ```dockerfile
    FROM lmsysorg/sglang:latest
    ENTRYPOINT ["sh", "-c"]
    CMD ["python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct"]
    ```

    ## Fix safety
    The fix writes the words as one script word, so the shell runs what
    was written: a compose string as it stands, made the one item of a list
    (the shell then does what `sh -c` was there for: `$$VAR`, `&&`), list
    items when each is a plain word (joined with blanks, nothing to quote),
    a shell-form `CMD` as the one item of a JSON array. Safe. Items that
    hold blanks, quotes or `$`, words split over two keys, a string shared
    through a YAML alias or one that holds the shell too are reported, not
    fixed.

    ## SGLang source
    None: SGLang never starts. The behaviour mirrored is the shell's (POSIX),
    `posix:sh -c command_string [command_name [argument...]]`, with the
    words as compose (`go-shellwords`), Docker and Kubernetes hand them over.
    """
    split = w.host
    if not isinstance(split, SplitScript):
        return
    if split.where == "command string":
        message = (f"{split.shell} runs only {split.script!r} as its script: compose splits the command string "
                   "into words, and the others become its $0, $1..., so SGLang never starts")
    elif split.where == "CMD in shell form":
        message = (f"{split.shell} gets the CMD in shell form as /bin/sh -c {_quoted(split.rest[-1])}: it runs "
                   "/bin/sh as its script, so SGLang never starts")
    else:
        rest = " ".join(split.rest)
        message = (f"{split.shell} runs only {split.script!r} as its script: the other words of the launch "
                   f"({_quoted(rest)}) become its $0, $1..., so SGLang never starts")
    title = {"command string": "Make the command string the one item of a list",
             "CMD in shell form": "Write the CMD as a JSON array of one item, the script"}.get(
        split.where, f"Join the {split.where} into one script word")
    fixes = () if split.words is None else (Fix.safe(Requote(0, split.words), title=title),)
    yield Violation(message, (), fixes, entry=0)


RULES = (exec_form_not_json, entrypoint_cmd_shell_form, shell_script_split)
