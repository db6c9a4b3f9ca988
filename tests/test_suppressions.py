"""Suppression comments and annotations: what each covers, what an unused one reports, what the fix removes.

One table: the text, the findings ``fix_source`` reports (code, line), and the text ``--write`` writes.
"""

from __future__ import annotations

import pytest

from autofix.adapters import argv, dockerfile, manifest, yaml_config
from autofix.cli.config_files import on_disk
from autofix.core.api import FixOptions, fix_source
from autofix.core.policy import Policy, RuleId
from autofix.rules import RULES

STATIC = "tp-size: 8\nmoe-a2a-backend: none\nep-dispatch-algorithm: static\n"
LAUNCH = "python3 -m sglang.launch_server --model-path m --tp 8 --moe-a2a-backend none"
L = "python3 -m sglang.launch_server --model-path m"  # with `--enable-metricz`: ARG001, no fix
POD = "kind: Pod\nspec:\n  containers:\n    - name: s\n"

CASES = [
    # (id, adapter, text, findings as (code, line), the text --write writes (None: unchanged))
    ("yaml-trailing", yaml_config, STATIC.replace("static\n", "static  # autofix: ignore[EP003] one node\n"),
     [], None),
    ("yaml-above", yaml_config, STATIC.replace("ep-", "# autofix: ignore[EP003] one node\nep-"), [], None),
    ("yaml-above-a-comment-block", yaml_config,
     STATIC.replace("ep-", "# autofix: ignore[EP003] one node\n# the reason, at length\nep-"), [], None),
    ("yaml-above-a-blank-line-covers-nothing", yaml_config,
     STATIC.replace("ep-", "# autofix: ignore[EP003]\n\nep-"), [("SUP001", 3), ("EP003", 5)],
     STATIC.replace("static", "dynamic").replace("ep-", "\nep-")),
    ("yaml-file-level", yaml_config, "# autofix: ignore-file[EP003] one node\n" + STATIC, [], None),
    ("yaml-other-code-does-not-cover", yaml_config, STATIC.replace("static\n", "static  # autofix: ignore[A2A005]\n"),
     [("EP003", 3), ("SUP001", 3)], STATIC.replace("static", "dynamic")),
    ("yaml-unused-code-of-two", yaml_config,
     STATIC.replace("static\n", "static  # autofix: ignore[EP003, A2A005] why\n"), [("SUP001", 3)],
     STATIC.replace("static\n", "static  # autofix: ignore[EP003] why\n")),
    ("yaml-unknown-code", yaml_config, "tp-size: 8  # autofix: ignore[XX999]\n", [("SUP001", 1)], "tp-size: 8\n"),
    ("yaml-malformed", yaml_config, "tp-size: 8  # autofix: ignore EP003\n", [("SUP002", 1)], None),
    ("yaml-any-case", yaml_config, STATIC.replace("static\n", "static  # AUTOFIX: Ignore[ep003]\n"), [], None),
    ("yaml-named-twice", yaml_config, STATIC.replace("static\n", "static  # autofix: ignore[EP003, EP003] x\n"),
     [("SUP001", 3)], STATIC.replace("static\n", "static  # autofix: ignore[EP003] x\n")),
    ("yaml-unused-alone-removes-the-line", yaml_config, "# autofix: ignore[EP003]\ntp-size: 8\n",
     [("SUP001", 1)], "tp-size: 8\n"),
    ("yaml-crlf", yaml_config, "tp-size: 8  # autofix: ignore[EP003]\r\nep-size: 1\r\n", [("SUP001", 1)],
     "tp-size: 8\r\nep-size: 1\r\n"),
    ("shell-trailing", argv, f"{LAUNCH} --ep-dispatch-algorithm static  # autofix: ignore[EP003] one node\n",
     [], None),
    ("shell-above-a-continued-command", argv,
     "# autofix: ignore[EP003] one node\npython3 -m sglang.launch_server --model-path m \\\n  --tp 8 \\\n"
     "  --moe-a2a-backend none \\\n  --ep-dispatch-algorithm static\n", [], None),
    ("shell-covers-only-its-command", argv,
     f"# autofix: ignore[EP003]\n{LAUNCH} --ep-dispatch-algorithm static\n{LAUNCH} --ep-dispatch-algorithm lp\n",
     [("EP003", 3)], f"# autofix: ignore[EP003]\n{LAUNCH} --ep-dispatch-algorithm static\n"
                     f"{LAUNCH} --ep-dispatch-algorithm dynamic\n"),
    ("dockerfile-above-the-instruction", dockerfile,
     f"FROM lmsysorg/sglang\n# autofix: ignore[EP003] one node\nCMD {LAUNCH} \\\n    --ep-dispatch-algorithm static\n",
     [], None),
    # issue 29: a marker counts only in a comment of the file's own syntax, or of a script a launch runs in
    ("shell-marker-in-a-quoted-value", argv,
     f'{L} --served-model-name "m # autofix: ignore[ARG001]" --enable-metricz\n', [("ARG001", 1)], None),
    ("shell-marker-in-a-single-quoted-value", argv,
     f"{L} --served-model-name 'm # autofix: ignore[ARG001]' --enable-metricz\n", [("ARG001", 1)], None),
    ("shell-marker-in-a-heredoc-body", argv,
     f"cat > notes <<EOF\n# autofix: ignore-file[ARG001]\nEOF\n{L} --enable-metricz\n", [("ARG001", 4)], None),
    ("shell-marker-in-a-string-of-a-bash-c-script", argv,
     f"bash -c '{L} --served-model-name \"m # autofix: ignore[ARG001]\" --enable-metricz'\n", [("ARG001", 1)], None),
    ("shell-comment-of-a-bash-c-script", argv,
     f"bash -c '{L} --enable-metricz  # autofix: ignore[ARG001] on purpose'\n", [], None),
    ("shell-comment-after-a-semicolon", argv, f"x=1;# autofix: ignore-file[ARG001]\n{L} --enable-metricz\n", [], None),
    ("shell-file-level-top-comment", argv,
     f"#!/bin/sh\n# autofix: ignore-file[ARG001] on purpose\n{L} --enable-metricz\n", [], None),
    ("shell-malformed-in-a-string-is-data", argv, f'{L} --served-model-name "m # autofix: see the docs"\n', [], None),
    ("yaml-marker-in-a-quoted-value", yaml_config, 'model-path: m\nenable_metricz: "m # autofix: ignore[ARG001]"\n',
     [("ARG001", 2)], None),
    ("yaml-marker-in-a-literal-block", yaml_config,
     "model-path: m\nenable-metricz: true\nchat-template: |\n  # autofix: ignore-file[ARG001]\n",
     [("ARG001", 2)], None),
    ("yaml-marker-in-a-folded-block", yaml_config,
     "model-path: m\nenable-metricz: true\nchat-template: >\n  x # autofix: ignore-file[ARG001]\n",
     [("ARG001", 2)], None),
    ("yaml-block-header-comment", yaml_config,
     "model-path: m\nenable-metricz: |  # autofix: ignore[ARG001] on purpose\n  x\n", [], None),
    ("yaml-malformed-in-a-string-is-data", yaml_config,
     'model-path: m\nserved-model-name: "m # autofix: see the docs"\n', [], None),
    ("manifest-marker-in-another-documents-block", manifest,
     "kind: ConfigMap\ndata:\n  notes: |\n    # autofix: ignore-file[ARG001]\n---\n" + POD
     + '      command: ["python3", "-m", "sglang.launch_server"]\n'
     '      args: ["--model-path", "m", "--enable-metricz"]\n',
     [("ARG001", 11)], None),
    ("manifest-marker-in-a-list-item", manifest,
     POD + '      command: ["python3", "-m", "sglang.launch_server"]\n      args: ["--model-path", "m", '
     '"--served-model-name", "m # autofix: ignore[ARG001]", "--enable-metricz"]\n', [("ARG001", 6)], None),
    ("manifest-comment-of-a-sh-c-script", manifest,
     POD + f"      command: [sh, -c]\n      args:\n        - |\n          # autofix: ignore[ARG001] on purpose\n"
     f"          {L} \\\n            --enable-metricz\n", [], None),
    ("manifest-marker-in-a-string-of-a-sh-c-script", manifest,
     POD + f"      command: [sh, -c]\n      args:\n        - |\n"
     f"          {L} --served-model-name 'm # autofix: ignore[ARG001]' --enable-metricz\n", [("ARG001", 8)], None),
    ("manifest-unused-script-comment-removed-inside-its-string", manifest,
     POD + f'      command: ["sh", "-c", "{LAUNCH} # autofix: ignore[EP003]"]\n', [("SUP001", 5)],
     POD + f'      command: ["sh", "-c", "{LAUNCH}"]\n'),
    ("dockerfile-marker-in-a-heredoc-body", dockerfile,
     f"FROM x\nRUN cat > /notes <<EOF\n# autofix: ignore-file[ARG001]\nEOF\nCMD {L} --enable-metricz\n",
     [("ARG001", 5)], None),
    ("dockerfile-marker-in-an-exec-form-string", dockerfile,
     'FROM x\nCMD ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--served-model-name", '
     '"m # autofix: ignore[ARG001]", "--enable-metricz"]\n', [("ARG001", 2)], None),
    ("dockerfile-comment-line-inside-an-instruction", dockerfile,
     f"FROM x\nCMD {L} \\\n    # autofix: ignore[ARG001] on purpose\n    --enable-metricz\n", [], None),
    ("dockerfile-shell-comment-of-a-cmd", dockerfile,
     f"FROM x\nCMD {L} --enable-metricz  # autofix: ignore[ARG001] on purpose\n", [], None),
    ("dockerfile-comment-of-a-run-heredoc-script", dockerfile,
     f"FROM x\nRUN <<EOF\n# autofix: ignore[ARG001] on purpose\n{L} --enable-metricz\nEOF\n", [], None),
    ("dockerfile-file-level-top-comment", dockerfile,
     f"# autofix: ignore-file[ARG001] on purpose\nFROM x\nCMD {L} --enable-metricz\n", [], None),
]


@pytest.mark.parametrize("fmt, text, found, fixed", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_suppression(fmt, text, found, fixed):
    result = fix_source(text, fmt, path="f")
    assert [(d.code, d.location.line) for d in result.diagnostics] == found
    assert result.output == (text if fixed is None else fixed)
    assert fix_source(result.output, fmt, path="f").output == result.output  # the removal is final


def test_a_suppressed_finding_holds_back_no_other_fix():
    """EP003 is suppressed and stays as written; ARG001's respelling on the same launch is still made."""
    text = f"{LAUNCH} --ep-dispatch-algorithm static --enable_metrics  # autofix: ignore[EP003]\n"
    result = fix_source(text, argv, path="f")
    assert [d.code for d in result.diagnostics] == ["ARG001"]
    assert result.output == text.replace("--enable_metrics", "--enable-metrics")


def test_a_code_the_run_does_not_select_is_not_judged_unused():
    policy = Policy.build([RuleId(r.code, r.name) for r in RULES], ignore=["EP"])
    text = "tp-size: 8  # autofix: ignore[EP003]\n"
    assert fix_source(text, yaml_config, path="f", options=FixOptions(policy=policy)).diagnostics == ()


KUBE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang
  annotations:
    team: serving
    autofix.io/ignore: "{codes}: one node on purpose"
spec:
  template:
    spec:
      containers:
        - name: server
          command: ["python3", "-m", "sglang.launch_server"]
          args: [--model-path, m, --tp, "8", --moe-a2a-backend, none, --ep-dispatch-algorithm, static]
"""


def test_an_unused_lone_annotation_goes_with_its_annotations_key():
    text = KUBE.format(codes="A2A005").replace("    team: serving\n", "")
    result = fix_source(text, manifest, path="k.yaml")
    assert "annotations:" not in result.output and "  name: sglang\nspec:" in result.output


@pytest.mark.parametrize("codes, found, fixed", [
    ("EP003", [], None),
    ("EP003, A2A005", [("SUP001", 7)], KUBE.format(codes="EP003")),
    ("A2A005", [("SUP001", 7), ("EP003", 14)],
     KUBE.format(codes="A2A005").replace('    autofix.io/ignore: "A2A005: one node on purpose"\n', "")
     .replace("static]", "dynamic]")),
], ids=["covers", "one-code-unused", "unused-removes-the-annotation"])
def test_kubernetes_annotation(codes, found, fixed):
    text = KUBE.format(codes=codes)
    result = fix_source(text, manifest, path="k.yaml")
    assert [(d.code, d.location.line) for d in result.diagnostics] == found
    assert result.output == (text if fixed is None else fixed)


def test_a_comment_in_a_config_file_covers_its_own_findings(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("moe-a2a-backend: none\nep-dispatch-algorithm: static  # autofix: ignore[EP003]\n")
    script = f"python3 -m sglang.launch_server --model-path m --tp 8 --config {config}\n"
    result = fix_source(script, argv, path=str(tmp_path / "s.sh"), config_reader=on_disk(lambda p: open(p).read()))
    assert [d.code for r in (result, *result.others) for d in r.diagnostics] == []
