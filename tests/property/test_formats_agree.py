"""One launch, written in every format autofix reads, is one launch.

The same drawn config is rendered as a shell script (as is, and as
``bash -lc "<script>"``), a Kubernetes Deployment (block list, flow list,
``sh -c`` literal block), a compose service (string command, ``sh -c
"<script>"`` string, entrypoint + list), a Dockerfile (exec form, shell
form, ``sh -c`` in JSON) and an srt-slurm recipe. Every rendering must give the same
diagnostics (srt-slurm, whose keys are spelled without ``--``: the same
codes) and, after fixing, the same explicit settings; every byte outside
the launch's own words must stay as written, and fixing again changes nothing.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from strategies import SCHEMA, comparable, configs

from autofix.adapters import by_name, detect
from autofix.core.api import FixOptions, fix_source

PROGRAM = ["python3", "-m", "sglang.launch_server"]


def words_of(config: dict[str, Any]) -> list[str]:
    """The command-line words of ``config``, as the program receives them."""
    out = []
    for dest, value in config.items():
        flag = SCHEMA[dest].flag
        if value is True:
            out.append(flag)
        elif isinstance(value, list) and SCHEMA[dest].nargs is None:  # one word of JSON (--forward-hooks)
            out += [flag, json.dumps(value)]
        elif isinstance(value, list):
            out += [flag, *map(str, value)]
        else:
            out += [flag, str(value)]
    return out


def _yaml_token(word: str, plain: bool) -> str:
    if plain:
        try:
            if yaml.safe_load(f"- {word}\n") == [word] and word == word.strip():
                return word
        except yaml.YAMLError:
            pass
    return json.dumps(word)


def _marked(before: str, body: str, after: str) -> tuple[str, tuple[int, int]]:
    return before + body + after, (len(before), len(before) + len(body))


def shell(words, plain):
    return _marked("#!/bin/bash\nset -e\n", " ".join(PROGRAM + [shlex.quote(w) for w in words]), "\necho done\n")


_K8S_HEAD = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang  # the server
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:latest
"""
_K8S_TAIL = """          env:
            - name: HF_HOME
              value: /cache
---
apiVersion: v1
kind: Service
metadata:
  name: sglang
"""


def _bash_double(script: str) -> str:
    return '"' + "".join("\\" + c if c in '\\"$`' else c for c in script) + '"'


def shell_bash_c(words, plain):
    script = " ".join(PROGRAM + [shlex.quote(w) for w in words])
    return _marked("#!/bin/bash\nset -e\nbash -lc ", _bash_double(script), " > server.log 2>&1\necho done\n")


def k8s_block(words, plain):
    body = "".join(f"            - {_yaml_token(w, plain)}\n" for w in words)
    return _marked(_K8S_HEAD + '          command: ["python3", "-m", "sglang.launch_server"]\n          args:\n',
                   body, _K8S_TAIL)


def k8s_flow(words, plain):
    body = ", ".join(_yaml_token(w, plain) for w in PROGRAM + words)
    return _marked(_K8S_HEAD + "          args: [", body, "]\n" + _K8S_TAIL)


def k8s_sh_c(words, plain):
    script = " \\\n              ".join([" ".join(PROGRAM)] + [shlex.quote(w) for w in words])
    return _marked(_K8S_HEAD + '          command: ["/bin/sh", "-c"]\n          args:\n            - |\n'
                   "              echo starting\n              ", script, "\n" + _K8S_TAIL)


def compose_string(words, plain):
    line = " ".join(PROGRAM + [shlex.quote(w) for w in words]).replace("$", "$$")
    return _marked("services:\n  sglang:\n    image: lmsysorg/sglang\n    command: ", json.dumps(line),
                   "\n    ports:\n      - \"30000:30000\"\n")


def compose_sh_c(words, plain):
    script = " ".join(PROGRAM + [shlex.quote(w) for w in words])
    word = '"' + "".join("\\" + c if c in '\\"' else c for c in script).replace("$", "$$") + '"'
    return _marked("services:\n  sglang:\n    image: lmsysorg/sglang\n    command: ", json.dumps("sh -c " + word),
                   "\n    ports:\n      - \"30000:30000\"\n")


def compose_list(words, plain):
    body = ", ".join(_yaml_token(w.replace("$", "$$"), plain) for w in words)
    return _marked("services:\n  sglang:\n    image: lmsysorg/sglang\n"
                   "    entrypoint: [\"python3\", \"-m\", \"sglang.launch_server\"]\n    command: [", body, "]\n")


def docker_exec(words, plain):
    body = ", ".join(json.dumps(w) for w in words)
    return _marked('FROM lmsysorg/sglang:latest\nENV HF_HOME=/cache\nCMD ["python3", "-m", "sglang.launch_server", ',
                   body, "]\n")


def docker_shell(words, plain):
    body = " \\\n    ".join([" ".join(PROGRAM)] + [shlex.quote(w) for w in words])
    return _marked("FROM lmsysorg/sglang:latest\nEXPOSE 30000\nCMD ", body, "\n")


def docker_sh_c(words, plain):
    script = " ".join(PROGRAM + [shlex.quote(w) for w in words])
    return _marked('FROM lmsysorg/sglang:latest\nCMD ["/bin/sh", "-c", ', json.dumps(script), "]\n")


def _recipe_value(dest: str, value) -> str:
    if value is True:
        return "true"
    if isinstance(value, list) and SCHEMA[dest].nargs is None:  # one word of JSON (--forward-hooks)
        return json.dumps(json.dumps(value))
    if isinstance(value, list):
        return json.dumps([str(v) for v in value])
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value))


def srt_slurm(config):
    body = "".join(f"      {SCHEMA[dest].flag[2:]}: {_recipe_value(dest, v)}\n" for dest, v in config.items())
    return _marked("name: sweep\nresources:\n  gpu_type: h200\nbackend:\n  type: sglang\n  sglang_config:\n"
                   "    aggregated:\n", body, "benchmark:\n  type: sa-bench\n")


RENDER = {"shell-bash-c": ("serve.sh", shell_bash_c),
          "k8s-block": ("deploy.yaml", k8s_block), "k8s-flow": ("deploy.yaml", k8s_flow),
          "k8s-sh-c": ("deploy.yaml", k8s_sh_c), "compose-string": ("compose.yaml", compose_string),
          "compose-sh-c": ("compose.yaml", compose_sh_c),
          "compose-list": ("compose.yaml", compose_list), "docker-exec": ("Dockerfile", docker_exec),
          "docker-shell": ("Dockerfile", docker_shell), "docker-sh-c": ("Dockerfile", docker_sh_c)}


def _fix(text: str, path: str, unsafe: bool):
    fmt = detect(path, text)
    assert fmt is not None, path
    return fmt, fix_source(text, fmt, path=path, options=FixOptions(unsafe=unsafe))


def _explicit(fmt, text: str, path: str) -> list[dict]:
    return comparable([launch.parsed.explicit for launch in fmt.read(text, path, SCHEMA)])


def _outside_unchanged(text: str, output: str, region: tuple[int, int]) -> None:
    """Everything before and after the launch's words is kept byte for byte."""
    a0, b0 = region
    assert output.startswith(text[:a0]) and output.endswith(text[b0:]), (text, output)


@pytest.mark.parametrize("unsafe", (False, True), ids=("safe", "unsafe"))
@given(data=st.data())
def test_every_format_gives_the_same_diagnostics_and_fixed_args(unsafe, data):
    config = data.draw(configs(), label="config")
    config = {"model_path": "deepseek-ai/DeepSeek-V3", **config}
    plain = data.draw(st.booleans(), label="plain")
    words = words_of(config)

    text, region = shell(words, plain)
    sh_fmt, expected = _fix(text, "serve.sh", unsafe)
    want_diags = sorted((d.code, d.violation.message) for d in expected.diagnostics)
    want_args = _explicit(sh_fmt, expected.output, "serve.sh")
    assert _explicit(sh_fmt, text, "serve.sh") == comparable([config])

    for name, (path, render) in RENDER.items():
        text, region = render(words, plain)
        fmt, got = _fix(text, path, unsafe)
        assert _explicit(fmt, text, path) == comparable([config]), name
        assert sorted((d.code, d.violation.message) for d in got.diagnostics) == want_diags, name
        assert _explicit(fmt, got.output, path) == want_args, name
        _outside_unchanged(text, got.output, region)
        assert _fix(got.output, path, unsafe)[1].output == got.output, name  # fixing again changes nothing

    text, region = srt_slurm(config)
    fmt, got = _fix(text, "recipe.yaml", unsafe)
    assert fmt is by_name("srt-slurm")
    assert _explicit(fmt, text, "recipe.yaml") == comparable([config])
    assert Counter(d.code for d in got.diagnostics) == Counter(c for c, _ in want_diags)
    assert _explicit(fmt, got.output, "recipe.yaml") == want_args
    _outside_unchanged(text, got.output, region)
    assert _fix(got.output, "recipe.yaml", unsafe)[1].output == got.output
