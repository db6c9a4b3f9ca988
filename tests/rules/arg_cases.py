"""Argparse-stage rule cases as data: a text, what autofix reports, the fixed text, SGLang's verdicts.

``sglang`` is what SGLang 0.5.23 did with the input and ``fixed`` what it did
with autofix's safe-fixed output (``ok``, or where it raised: ``argparse``
for a parse error, else ``path:line``), measured with ../shared/oracle (8x
H200, DeepSeek-V3 config; it adds its own ``--model-path``) and re-checked by
tests/oracle/test_arg_rule_verdicts.py. YAML cases are ``--config`` files;
shell cases are one launch line.
"""

from __future__ import annotations

from dataclasses import dataclass

LAUNCH = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "
MERGER = "sglang/srt/utils/server_args_config_parser.py:173"
ARGPARSE = "argparse"


@dataclass(frozen=True)
class ArgCase:
    id: str
    fmt: str  # "yaml" or "shell"
    text: str
    found: tuple[str, ...]  # "CODE line:col" of every diagnostic, in order
    output: str | None  # the text after --write (None: unchanged)
    sglang: str  # SGLang's verdict on the input
    fixed: str = "ok"  # SGLang's verdict on the output


def yaml(id, text, found, output, sglang, fixed="ok") -> ArgCase:
    return ArgCase(id, "yaml", text, tuple(found), output, sglang, fixed)


def shell(id, args, found, output_args, sglang, fixed="ok") -> ArgCase:
    out = None if output_args is None else LAUNCH + output_args + "\n"
    return ArgCase(id, "shell", LAUNCH + args + "\n", tuple(found), out, sglang, fixed)


CASES = [
    # ARG001 unknown-option
    shell("ARG001-underscore-flag", "--enable_metrics", ["ARG001 1:69"], "--enable-metrics", ARGPARSE),
    shell("ARG001-underscore-with-value", "--tp_size 8", ["ARG001 1:69"], "--tp-size 8", ARGPARSE),
    shell("ARG001-case", "--Enable-Metrics", ["ARG001 1:69"], "--enable-metrics", ARGPARSE),
    yaml("ARG001-underscore-key", "tp_size: 8\n", ["ARG001 1:1"], "tp-size: 8\n", ARGPARSE),
    yaml("ARG001-underscore-store-true-key", "enable_metrics: true  # scrape\n", ["ARG001 1:1"],
         "enable-metrics: true  # scrape\n", ARGPARSE),
    yaml("ARG001-underscore-store-true-false-ok", "enable_metrics: false\n", [], None, "ok"),
    shell("ARG001-vllm-same", "--max-model-len 4096", ["ARG001 1:69"], "--context-length 4096", ARGPARSE),
    shell("ARG001-vllm-close-unsafe", "--gpu-memory-utilization 0.8", ["ARG001 1:69"], None, ARGPARSE, ARGPARSE),
    shell("ARG001-vllm-drop", "--enable-prefix-caching --tp 8", ["ARG001 1:69"], "--tp 8", ARGPARSE),
    shell("ARG001-vllm-enable-reasoning", "--enable-reasoning --reasoning-parser deepseek-r1", ["ARG001 1:69"],
          "--reasoning-parser deepseek-r1", ARGPARSE),
    shell("ARG001-vllm-enable-reasoning-alone", "--enable-reasoning", ["ARG001 1:69"], None, ARGPARSE, ARGPARSE),
    shell("ARG001-vllm-none", "--enable-expert-parallel", ["ARG001 1:69"], None, ARGPARSE, ARGPARSE),
    shell("ARG001-typo-several", "--tp-sizee 8", ["ARG001 1:69"], None, ARGPARSE, ARGPARSE),
    shell("ARG001-ok-known", "--enable-metrics --tp-size 8", [], None, "ok"),
    # ARG002 ambiguous-option
    shell("ARG002-pp", "--pp 2", ["ARG002 1:69"], None, ARGPARSE, ARGPARSE),
    yaml("ARG002-pp-key", "pp: 2\n", ["ARG002 1:1"], None, ARGPARSE, ARGPARSE),
    ArgCase("ARG007-model-alias", "shell", LAUNCH + "--model x\n", ("ARG007 1:32",),  # SGLang's alias of --model-path
            "python -m sglang.launch_server --model x\n", "ok"),
    shell("ARG002-ok-unique-prefix", "--tp 8", [], None, "ok"),
    # ARG003 invalid-choice
    shell("ARG003-case", "--moe-a2a-backend DeepEP", ["ARG003 1:69"], "--moe-a2a-backend deepep", ARGPARSE),
    yaml("ARG003-case-key", "moe-runner-backend: DeepGEMM  # fast\n", ["ARG003 1:1"],
         "moe-runner-backend: deep_gemm  # fast\n", ARGPARSE),
    yaml("ARG003-quoted-keeps-quotes", "moe-a2a-backend: 'DeepEP'\n", ["ARG003 1:1"], "moe-a2a-backend: 'deepep'\n",
         ARGPARSE),
    shell("ARG003-inline", "--moe-a2a-backend=DeepEP", ["ARG003 1:69"], "--moe-a2a-backend=deepep", ARGPARSE),
    yaml("ARG003-yaml-boolean", "moe-a2a-backend: no\n", ["ARG003 1:1"], None, ARGPARSE, ARGPARSE),
    shell("ARG003-no-close-choice", "--moe-a2a-backend nvshmem", ["ARG003 1:69"], None, ARGPARSE, ARGPARSE),
    shell("ARG003-ok", "--moe-a2a-backend deepep", [], None, "ok"),
    # ARG004 invalid-value
    yaml("ARG004-float-for-int", "tp-size: 8.0\n", ["ARG004 1:1"], "tp-size: 8\n", ARGPARSE),
    shell("ARG004-word-for-int", "--tp-size eight", ["ARG004 1:69"], None, ARGPARSE, ARGPARSE),
    shell("ARG004-ok-mem-fraction-unbounded", "--mem-fraction-static 1.5", [], None, "ok"),
    # every type= of SGLang's parser (autofix.common.argtypes): json.loads, orjson, sizes, the CUDA graph config
    shell("ARG004-json-invalid", "--limit-mm-data-per-request '{bad'", ["ARG004 1:69"], None, ARGPARSE, ARGPARSE),
    shell("ARG004-json-trailing-comma", "--extra-metric-labels '[1, 2,]'", ["ARG004 1:69"], None, ARGPARSE,
          ARGPARSE),
    shell("ARG004-ok-json-nan", "--extra-metric-labels NaN", [], None, "ok"),  # json.loads reads NaN
    yaml("ARG004-json-string-invalid", 'mm-process-config: "{bad"\n', ["ARG004 1:1"], None, ARGPARSE, ARGPARSE),
    yaml("ARG004-ok-json-mapping", "limit-mm-data-per-request: {image: 2}\n", [], None, "ok"),  # passed as JSON
    shell("ARG004-json-list-nan", "--forward-hooks NaN", ["ARG004 1:69"], None, ARGPARSE, ARGPARSE),  # orjson
    shell("ARG004-json-list-infinite", "--forward-hooks '[1e400]'", ["ARG004 1:69"], None, ARGPARSE, ARGPARSE),
    shell("ARG004-ok-json-list", "--forward-hooks '[]'", [], None, "ok"),
    shell("ARG004-ok-size-suffix", "--context-length 4k --max-total-tokens 2Mi", [], None, "ok"),
    shell("ARG004-size-iec-decimal", "--context-length 1.5Ki", ["ARG004 1:69"], None, ARGPARSE, ARGPARSE),
    shell("ARG004-size-upper-k", "--max-prefill-tokens 16K", ["ARG004 1:69"], None, ARGPARSE, ARGPARSE),
    yaml("ARG004-size-float", "context-length: 4096.0\n", ["ARG004 1:1"], "context-length: 4096\n", ARGPARSE),
    shell("ARG004-graph-config-not-object", "--cuda-graph-config '[1]'", ["ARG004 1:69"], None, ARGPARSE,
          ARGPARSE),
    shell("ARG004-graph-config-unknown-key", """--cuda-graph-config '{"decode": {"max_seq_len": 8}}'""",
          ["ARG004 1:69"], None, ARGPARSE, ARGPARSE),  # a prefill key
    shell("ARG004-ok-graph-config", """--cuda-graph-config '{"decode": {"backend": "full", "max_bs": 8}}'""", [],
          None, "ok"),
    shell("ARG004-graph-backend-removed", "--cuda-graph-backend-decode tc_piecewise", ["ARG004 1:69"], None,
          ARGPARSE, ARGPARSE),  # refused by the type, before the choices
    # ARG005 missing-value
    shell("ARG005-explicit-true", "--enable-metrics=true", ["ARG005 1:69"], "--enable-metrics", ARGPARSE),
    shell("ARG005-explicit-false", "--tp 8 --enable-metrics=false", ["ARG005 1:76"], "--tp 8", ARGPARSE),
    shell("ARG005-missing", "--tp-size", ["ARG005 1:69"], None, ARGPARSE, ARGPARSE),
    yaml("ARG005-flag-given-string", 'enable-metrics: "true"\n', ["ARG005 1:1"], "enable-metrics: true\n", ARGPARSE),
    # an abbreviated flag key: the reader passes `--trust-remote-cod true` (found by the fuzz target, which saw
    # the old fix, `trust-remote-cod: true`, rewrite the line to itself)
    yaml("ARG005-abbreviated-flag-key", "trust-remote-cod: true\n", ["ARG005 1:1"], "trust-remote-code: true\n",
         ARGPARSE),
    yaml("ARG005-abbreviated-flag-key-false", "tp-size: 2\ntrust-remote-cod: false\n", ["ARG005 2:1"], "tp-size: 2\n",
         ARGPARSE),
    # ARG006 stray-argument
    shell("ARG006-stray", "--tp-size 4 8", ["ARG006 1:81"], None, ARGPARSE, ARGPARSE),
    # ARG007 repeated-option
    shell("ARG007-alias-twice", "--tp 4 --tp-size 8", ["ARG007 1:69"], "--tp-size 8", "ok"),
    yaml("ARG007-yaml-alias", "tp-size: 4\ntensor-parallel-size: 8\n", ["ARG007 1:1"], "tensor-parallel-size: 8\n", "ok"),
    yaml("ARG007-duplicate-key", "tp-size: 4  # old\nep-size: 8\ntp-size: 8\n", ["ARG007 1:1"],
         "ep-size: 8\ntp-size: 8\n", "ok"),
    # ARG008 fragile-abbreviation (0.5.19 does not know --attn-dp-size; --tp means --tp-size in both)
    shell("ARG008-new-option-prefix", "--tp 8 --attn-dp 8", ["ARG008 1:76"], "--tp 8 --attn-dp-size 8", "ok"),
    # VER001 option-not-in-target-version
    shell("VER001-renamed-alias", "--cuda-graph-max-bs 64", ["VER001 1:69"], "--cuda-graph-max-bs-decode 64", ARGPARSE),
    yaml("VER001-renamed-key", "mamba-scheduler-strategy: no_buffer\n", ["VER001 1:1"],
         "mamba-radix-cache-strategy: no_buffer\n", ARGPARSE),
    yaml("VER001-did-nothing", "prefill-round-robin-balance: true\ntp-size: 8\n", ["VER001 1:1"], "tp-size: 8\n",
         ARGPARSE),
    shell("VER001-switch-to-value", "--disable-piecewise-cuda-graph", ["VER001 1:69"],
          "--cuda-graph-backend-prefill disabled", ARGPARSE),
    yaml("VER001-switch-off", "disable-piecewise-cuda-graph: false\n", ["VER001 1:1"], "", ARGPARSE),
    shell("VER001-no-replacement", "--enforce-piecewise-cuda-graph", ["VER001 1:69"], None, ARGPARSE, ARGPARSE),
    shell("VER001-gone", "--speculative-skip-dp-mlp-sync", ["VER001 1:69"], None, ARGPARSE, ARGPARSE),
    # ARG009 missing-required-option
    ArgCase("ARG009-no-model", "shell", "python -m sglang.launch_server --tp-size 8\n", ("ARG009 1:1",), None, "ok",
            "ok"),  # the oracle always adds --model-path, so it cannot see this refusal
    # CFG001 refused-config-key
    yaml("CFG001-boolean-optional", "enable-tf32-matmul: true\n", ["CFG001 1:1"], None, MERGER, MERGER),
    yaml("CFG001-boolean-optional-default", "enable-tf32-matmul: false\n", ["CFG001 1:1"], "", MERGER),
    yaml("CFG001-multi-value", "lora-paths: [a=/tmp/a]\n", ["CFG001 1:1"], None, MERGER, MERGER),
    # CFG002 null-config-value
    yaml("CFG002-null-int", "max-running-requests: null\n", ["CFG002 1:1"], "", ARGPARSE),
    yaml("CFG002-null-str", "chat-template: ~\ntp-size: 8\n", ["CFG002 1:1"], "tp-size: 8\n", "ok"),
    yaml("CFG002-null-choice", "moe-a2a-backend:\n", ["CFG002 1:1"], None, ARGPARSE, ARGPARSE),  # default 'none': unsafe
    yaml("CFG002-ok-nullable", "quantization-param-path: null\n", [], None, "ok"),
    yaml("CFG002-null-tp", "tp-size: ~\n", ["CFG002 1:1"], None, ARGPARSE, ARGPARSE),  # default 1: unsafe
    yaml("CFG002-null-flag", "enable-metrics: null\n", ["CFG002 1:1"], "", ARGPARSE),
    yaml("CFG002-null-size", "context-length: null\n", ["CFG002 1:1"], "", ARGPARSE),  # human_readable_int
    yaml("CFG002-null-json", "extra-metric-labels: null\n", ["CFG002 1:1"], "", ARGPARSE),
    # CFG003 list-for-one-value
    yaml("CFG003-two-items", "tp-size: [4, 8]\n", ["CFG003 1:1"], None, ARGPARSE, ARGPARSE),
    yaml("CFG003-ok-one-item", "tp-size: [8]\n", [], None, "ok"),
    yaml("CFG003-ok-nargs-plus", "cuda-graph-bs-decode: [1, 2, 4]\n", [], None, "ok"),
    # CFG004 config-in-config
    yaml("CFG004-nested", "config: other.yaml\ntp-size: 8\n", ["CFG004 1:1"], None, "ok", "ok"),
    # CFG005 config-flag-spelling, CFG006 config-given-twice: the oracle's batch mode passes a config file
    # only as its own "config" key, so these two are checked against SGLang's merger in test_arg_rules.py
    # DEP001/DEP002: tests/rules/test_deprecated.py
    # LORA024, LORA026: --lora-paths words read as JSON adapters (argparse_actions.py; the fixes are unsafe)
    shell("LORA024-name-path-keys", """--lora-paths '{"name": "sql", "path": "/loras/sql"}'""", ["LORA024 1:69"], None,
          "sglang/srt/arg_groups/argparse_actions.py:17", "sglang/srt/arg_groups/argparse_actions.py:17"),
    shell("LORA024-no-path", """--lora-paths a=/loras/a '{"lora_name": "b"}'""", ["LORA024 1:69"], None,
          "sglang/srt/arg_groups/argparse_actions.py:17", "sglang/srt/arg_groups/argparse_actions.py:17"),
    shell("LORA024-repeated-flag", """--lora-paths '{"lora_name": "b"}' --lora-paths a=/x""",
          ["ARG007 1:69", "LORA024 1:69"], "--lora-paths a=/x", "sglang/srt/arg_groups/argparse_actions.py:17"),
    shell("LORA024-ok-pinned", """--lora-paths '{"lora_name": "b", "lora_path": "/l/b", "pinned": true}' c=/l/c""", [],
          None, "ok"),
    shell("LORA026-python-quotes", "--lora-paths \"{'lora_name': 'b', 'lora_path': '/l/b'}\"", ["LORA026 1:69"], None,
          "sglang/srt/arg_groups/argparse_actions.py:16", "sglang/srt/arg_groups/argparse_actions.py:16"),
]
