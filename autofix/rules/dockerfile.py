"""How Docker hands a Dockerfile's launch over, before SGLang reads a word.

Docker's parser (BuildKit, which autofix reads Dockerfiles with: PyPI
``dockerfile``) decides what command an instruction runs. These rules mirror
it, not SGLang: no SGLang source line applies, SGLang never starts.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.model import Fix, Requote, Violation
from autofix.rules.base import host_rule
from autofix.written import Written

BUILDKIT = "buildkit:frontend/dockerfile/parser/line_parsers.go (parseMaybeJSON)"


@host_rule("DKR001", "exec-form-not-json", source=BUILDKIT)
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
    if form is None:
        return
    fails = "the build" if form.keyword == "RUN" else "as the container starts"
    fixes = () if form.words is None else (
        Fix.safe(Requote(0, form.words), title=f"Write the {form.keyword} arguments as a JSON array"),)
    yield Violation(f"{form.keyword} is not a valid JSON array ({', '.join(form.errors)}): Docker runs it as a "
                    f"/bin/sh -c command, which fails {fails}", (), fixes, entry=0)


RULES = (exec_form_not_json,)
