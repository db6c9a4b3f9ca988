"""Which YAML is an SGLang ``--config`` file (issue 29, case 16).

A YAML file counts when at least half of its top-level keys name SGLang options in full (a flag as the
``--config`` reader passes it, an alias, or one spelt with ``_``). An abbreviation is no evidence: argparse
reads ``image`` as ``--image-processor-backend``, and a Helm values file is no SGLang config. SGLang still
reads an abbreviation in a file that is one, and every diagnostic about such a key names the option.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from autofix.adapters import detect, yaml_config
from autofix.adapters.yaml_config import looks_like_config_text, sglang_key
from autofix.cli.commands import app
from autofix.core.api import fix_source
from autofix.report import diagnostic_line
from autofix.schema import load

HELM_VALUES = """\
# Default values for web.
replicaCount: 1
image:
  repository: nginx
  tag: latest
  pullPolicy: IfNotPresent
imagePullSecrets: []
nameOverride: ""
fullnameOverride: ""
serviceAccount:
  create: true
  annotations: {}
podAnnotations: {}
podSecurityContext: {}
securityContext: {}
service:
  type: ClusterIP
  port: 80
ingress:
  enabled: false
resources: {}
autoscaling:
  enabled: false
  minReplicas: 1
  maxReplicas: 100
nodeSelector: {}
tolerations: []
affinity: {}
"""

# Common YAML that is not an SGLang config and launches nothing: none may be read as one.
NOT_SGLANG = {
    "charts/web/values.yaml": HELM_VALUES,
    "charts/web/values-small.yaml": "replicaCount: 1\nimage: {repository: nginx, tag: latest}\n",  # the issue's
    "charts/web/Chart.yaml": "apiVersion: v2\nname: web\ndescription: A Helm chart\ntype: application\n"
                             "version: 0.1.0\nappVersion: \"1.16.0\"\ndependencies:\n  - name: redis\n"
                             "    version: 17.x\n    repository: https://charts.bitnami.com/bitnami\n",
    ".github/workflows/ci.yml": "name: ci\non:\n  push:\n    branches: [main]\n  pull_request:\npermissions:\n"
                                "  contents: read\nconcurrency:\n  group: ci\njobs:\n  test:\n"
                                "    runs-on: ubuntu-latest\n"
                                "    steps:\n      - uses: actions/checkout@v4\n      - run: make test\n",
    "docker-compose.yml": "services:\n  web:\n    image: nginx:latest\n    ports:\n      - \"8080:80\"\n"
                          "  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: example\n"
                          "volumes:\n  data: {}\n",
    "k8s/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"
                           "  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n"
                           "      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n"
                           "          image: nginx:1.25\n          args: [\"nginx\", \"-g\", \"daemon off;\"]\n",
    "k8s/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: env\ndata:\n  MODE: prod\n",
    "ansible/site.yml": "- hosts: all\n  become: true\n  vars:\n    port: 8080\n  tasks:\n"
                        "    - name: install nginx\n      apt: {name: nginx, state: present}\n",
    "ansible/group_vars/all.yml": "ansible_user: deploy\nhost: web1\nport: 8080\nenv: prod\nspec: small\n"
                                  "data: /srv\nextra: {}\nmode: fast\n",
    ".pre-commit-config.yaml": "default_language_version:\n  python: python3.11\nrepos:\n"
                               "  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.6.0\n"
                               "    hooks:\n      - id: ruff\n",
    "mkdocs.yml": "site_name: My Docs\nsite_url: https://example.com\nrepo_url: https://github.com/x/y\n"
                  "theme:\n  name: material\nnav:\n  - Home: index.md\nplugins:\n  - search\n"
                  "markdown_extensions:\n  - toc:\n      permalink: true\n",
}

# SGLang configs as people write them: still read, abbreviations and `_` spellings included.
SGLANG = {
    "full-names.yaml": "model-path: deepseek-ai/DeepSeek-V3\ntp-size: 8\nmem-fraction-static: 0.85\n",
    "aliases.yaml": "model: Qwen/Qwen3-8B\ntensor-parallel-size: 2\n",
    "abbreviations.yaml": "model-path: Qwen/Qwen3-8B\ntp: 2\n",  # `tp` works in SGLang: read, and checked
    "underscores.yaml": "model_path: Qwen/Qwen3-8B\ntp_size: 2\n",  # refused by SGLang (ARG001): reported
}


@pytest.mark.parametrize("key, counts", [
    ("tp-size", True), ("tensor-parallel-size", True), ("model", True), ("ep", True),  # flags and aliases
    ("tp_size", True), ("mem_fraction_static", True),  # a full name spelt with `_`
    ("tp", False), ("image", False), ("data", False), ("extra", False),  # abbreviations
    ("spec", False), ("mode", False), ("tp_s", False),  # ambiguous prefixes; a prefix spelt with `_`
    ("help", False), ("replicaCount", False), ("tp-size=8", False),
])
def test_a_key_counts_only_when_it_names_an_option_in_full(key, counts):
    assert sglang_key(key, load()) is counts


@pytest.mark.parametrize("path", sorted(NOT_SGLANG))
def test_common_yaml_is_not_read_as_an_sglang_config(path):
    text = NOT_SGLANG[path]
    fmt = detect(path, text)
    if fmt is None:
        return
    try:
        result = fix_source(text, fmt, path=path)
    except yaml_config.NotAConfig:  # a workflow's `on:` key is a boolean, a playbook a list: parses, no config
        assert not looks_like_config_text(text, load())
        return
    assert not result.is_config, [diagnostic_line(d) for d in result.diagnostics]


@pytest.mark.parametrize("path", sorted(SGLANG))
def test_sglang_configs_are_still_read(path):
    result = fix_source(SGLANG[path], yaml_config, path=path)
    assert result.is_config


def test_a_walk_reports_none_of_the_common_yaml(tmp_path):
    config = "model-path: Qwen/Qwen3-8B\ntp: 2\nimage: foo\nmem-fraction-static: 0.8\n"
    for path, text in {**NOT_SGLANG, "serve/config.yaml": config}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    r = CliRunner().invoke(app, [str(tmp_path), "--isolated"], prog_name="autofix")
    # only the SGLang config is reported, and its abbreviated key names the option it is read as
    assert [line for line in r.stdout.splitlines() if ": error: " in line or ": warning: " in line] == [
        f"{tmp_path}/serve/config.yaml:3:1: error: ARG003 image (read as image-processor-backend): 'foo' is not a "
        "choice (auto, torchvision, pil)"], r.output
    assert r.exit_code == 1


@pytest.mark.parametrize("text, message", [
    ("tp: eight\n", "ARG004 tp (read as tp-size): 'eight' is not a valid int"),
    ("moe-a2a: DeepEP\n",
     "ARG003 [*] moe-a2a (read as moe-a2a-backend): 'DeepEP' is not a choice; SGLang spells it 'deepep'"),
    ("tp: null\n", "CFG002 tp (read as tp-size) is null: it reaches SGLang as the word None, which SGLang refuses"),
    ("tp: 2\ntp-size: 4\n",
     "ARG007 [*] tp (read as tp-size) is set again later (tp-size: 4); SGLang uses the later one"),
    ("enable-ep: yes please\n",
     "ARG005 enable-ep (read as enable-eplb) is a flag: it takes true or false, not 'yes please'"),
    ('lora-pa: "{x}"\n', "LORA026 lora-pa (read as lora-paths): {x} is read as a JSON adapter, but is no JSON "
                          "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"),
], ids=["ARG004", "ARG003", "CFG002", "ARG007", "ARG005", "LORA026"])
def test_a_diagnostic_about_an_abbreviated_key_names_the_option(text, message):
    r = fix_source("model-path: m\n" + text, yaml_config, path="c.yaml")
    assert diagnostic_line(r.diagnostics[0]).split(": ", 2)[2] == message


def test_on_a_command_line_too():
    from autofix.adapters import argv

    r = fix_source("python3 -m sglang.launch_server --model-path m --moe-a2a DeepEP\n", argv, path="run.sh")
    assert [d.violation.message for d in r.diagnostics] == [
        "--moe-a2a (read as --moe-a2a-backend): 'DeepEP' is not a choice; SGLang spells it 'deepep'"]


# YAML that parses and starts SGLang in a string, but is no --config file, manifest or recipe (issue 29, verdicts
# round 2, case 1): a CI step, a playbook task, a template's user data. Its top-level keys decide, not its strings.
LAUNCHES_IN_A_STRING = {
    # `on:` unquoted is the boolean True to YAML 1.1: "config keys must be strings", exit 2, once
    ".github/workflows/serve.yml": "name: serve\non: [push]\njobs:\n  smoke:\n    runs-on: [self-hosted, gpu]\n"
                                   "    steps:\n      - uses: actions/checkout@v4\n"
                                   "      - run: python3 -m sglang.launch_server --model-path m --tp 2 &\n"
                                   "      - run: curl --retry 30 localhost:30000/health\n",
    ".github/workflows/quoted.yml": 'name: q\n"on": [push]\njobs:\n  a:\n    runs-on: ubuntu-latest\n'
                                    "    steps:\n      - run: python3 -m sglang.launch_server --model-path m\n",
    "ansible/serve.yml": "- hosts: gpu\n  become: true\n  tasks:\n    - name: start sglang\n"
                         "      shell: nohup python3 -m sglang.launch_server --model-path m --tp 8 &\n",
    "status.yaml": "200: ok\n404: missing\nstart: python3 -m sglang.launch_server --model-path m\n",
    "cfn/server.yaml": 'AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  Server:\n'
                       "    Type: AWS::EC2::Instance\n    Properties:\n      ImageId: !Ref AmiId\n"
                       "      UserData:\n        Fn::Base64: !Sub |\n          #!/bin/bash\n"
                       "          python3 -m sglang.launch_server --model-path m --tp 8\n",
    ".gitlab-ci.yml": ".setup:\n  script:\n    - pip install sglang\nsmoke:\n  script:\n"
                      "    - !reference [.setup, script]\n    - python3 -m sglang.launch_server --model-path m &\n",
    "charts/sglang/values.yaml": "replicaCount: 1\nimage: {repository: lmsysorg/sglang, tag: latest}\n"
                                 "startCommand: python3 -m sglang.launch_server --model-path m --tp 8\n",
}


@pytest.mark.parametrize("path", sorted(LAUNCHES_IN_A_STRING))
def test_yaml_that_only_mentions_a_launch_is_passed_over_in_a_walk(path, project):
    (project / path).parent.mkdir(parents=True, exist_ok=True)
    (project / path).write_text(LAUNCHES_IN_A_STRING[path])
    r = CliRunner().invoke(app, [".", "--output-format", "github"], prog_name="autofix")  # the README's CI step
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", "All checks passed!\n")


@pytest.mark.parametrize("path", sorted(LAUNCHES_IN_A_STRING))
def test_yaml_that_only_mentions_a_launch_is_skipped_with_a_note_when_named(path, project):
    (project / path).parent.mkdir(parents=True, exist_ok=True)
    (project / path).write_text(LAUNCHES_IN_A_STRING[path])
    r = CliRunner().invoke(app, [path], prog_name="autofix")
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines()[0] == (f"{path}: skipped: not an SGLang config (fewer than half of its top-level "
                                        "keys name SGLang options), nor a manifest or srt-slurm recipe that "
                                        "launches SGLang")


@pytest.mark.parametrize("text, error", [
    ("- tp-size: 8\n", "1:1: error: an SGLang config must be a mapping at the top level, not a list"),
    ("tp-size: !Ref tp\nmodel-path: m\n", "1:10: error: invalid YAML: could not determine a constructor for the tag "
                                          "'!Ref'"),
    ("tp-size: 8\n200: ok\n", "2:1: error: config keys must be strings, not int 200"),
    # does not parse and launches SGLang: what it meant cannot be known, and SGLang would run it
    ("jobs: {a: [python3 -m sglang.launch_server --tp 8\n", "2:1: error: invalid YAML"),
], ids=["list-of-options", "tagged-option", "an-int-key", "broken-and-launches"])
def test_yaml_meant_for_sglang_that_it_refuses_stays_an_error_in_a_walk(text, error, project):
    (project / "serve.yaml").write_text(text)
    r = CliRunner().invoke(app, ["."], prog_name="autofix")
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith(f"serve.yaml:{error}"), r.stderr
