"""Where a text's comments are, as the format's own reader says, for the suppression tests.

Each oracle takes a text holding ``token`` once and says whether the token lies in a comment (True), in
something read as data (False), or cannot say (None: the text does not read). None of them asks autofix's
comment map (``comments`` of the adapters, ``embedded.script_comments``):

- YAML: PyYAML's pure-Python ``SafeLoader`` (``yaml.safe_load``, SGLang's loader) loads every document; a
  comment is dropped, anything else keeps the token in a key or a value;
- shell: bash itself. The script is made the body of a function that ``declare -f`` prints back from bash's
  parse: comments are dropped, words, strings and heredoc bodies kept. (Run by a restricted bash, with
  no command on ``PATH``, in a scratch directory: nothing in the script is run, unless it closed the function
  itself early, and then only builtins that write nothing.)
- Dockerfile: BuildKit's parser (the ``dockerfile`` package): the instructions' text as it reads them and
  their heredoc bodies; a comment line is in neither;
- a shell script a launch is read in (a ``sh -c`` list item, a Dockerfile ``RUN``, a ``bash -c`` word):
  bash again, on the script's text as the shell gets it (which strings are such scripts is the adapter's
  reading, ``Embedded.scripts``, tested against bash and Docker elsewhere).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from types import ModuleType

import yaml

from autofix.adapters import argv, dockerfile, manifest, srtslurm, yaml_config
from autofix.adapters.embedded import Embedded
from autofix.common.errors import InputError
from autofix.schema import load

BASH = shutil.which("bash", path="/bin:/usr/bin")
SCHEMA = load()


def bash_comment(script: str, token: str) -> bool | None:
    """Whether bash reads ``token`` in ``script`` as (part of) a comment; None when bash cannot parse it."""
    with tempfile.TemporaryDirectory() as scratch:
        wrapper = f"f() {{\n{script}\n}}\ndeclare -f f\n"
        done = subprocess.run([BASH, "--norc", "--noprofile", "-r", "-c", wrapper], cwd=scratch,
                              env={"PATH": f"{scratch}/none", "LC_ALL": "C.UTF-8"}, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=20)
    printed = done.stdout.decode("utf-8", "surrogateescape")
    if done.returncode != 0 or not printed.startswith("f ()"):
        return None
    return token not in printed


def yaml_comment(text: str, token: str) -> bool | None:
    """Whether PyYAML's own loader drops ``token`` (a comment); None when it does not load the text."""
    try:
        docs = list(yaml.load_all(text, Loader=yaml.SafeLoader))
    except (yaml.YAMLError, ValueError, TypeError):
        return None
    todo: list = list(docs)
    while todo:
        value = todo.pop()
        if isinstance(value, str) and token in value:
            return False
        if isinstance(value, dict):
            todo.extend(value.keys())
            todo.extend(value.values())
        elif isinstance(value, list):
            todo.extend(value)
    return True


def dockerfile_comment(text: str, token: str) -> bool | None:
    """Whether BuildKit drops ``token`` with a comment line; None when it refuses the Dockerfile."""
    import dockerfile as buildkit

    try:
        commands = buildkit.parse_string(text)
    except (buildkit.GoParseError, UnicodeDecodeError):
        return None
    lines = text.split("\n")
    for c in commands:
        if token in c.original or any(token in h.content for h in c.heredocs):
            return False
        if c.sub_cmd and "<<" in c.original and token in "\n".join(lines[c.start_line:c.end_line]):
            return False  # `ONBUILD RUN <<EOF`: the package gives no body, but the lines are one
    return True


HOST = {yaml_config: yaml_comment, srtslurm: yaml_comment, manifest: yaml_comment, argv: bash_comment,
        dockerfile: dockerfile_comment}


def in_comment(fmt: ModuleType, text: str, path: str, token: str) -> bool | None:
    """Whether ``token`` is in a comment of ``text`` read as ``fmt``: the file's own, or one of a shell script
    a launch is read in. None when the format's reader or autofix cannot read the text."""
    host = HOST[fmt](text, token)
    if host is None:
        return None
    try:
        launches = fmt.read(text, path, SCHEMA)
    except InputError:
        return None
    if host:
        return True
    for launch in launches:
        ctx = launch.ctx
        for chain in ctx.scripts if isinstance(ctx, Embedded) else ():
            script = chain[0].text
            if token in script and bash_comment(script, token):
                return True
    return False
