"""DEP001/DEP002: deprecated options and values, in a launch script and in a ``--config`` file.

Each case is a launch (``LAUNCH`` + ``flags``) and, where it means something
there, the same settings as a ``--config`` file (``MODEL_KEY`` + ``yaml``):
what autofix reports (code, message), the exact text after ``fix``, and the
verdicts of SGLang 0.5.23 they rest on, recorded with ../shared/oracle
(``check.py --no-warnings --fields all``, 8x H200 or, for the Blackwell-only
attention backends, 8x B200; DeepSeek-V3 config) and re-checked by
tests/oracle/test_deprecated_verdicts.py.

``oracle`` keys: ``input``/``fixed`` (the launch before and after ``fix``),
``yaml``/``yaml_fixed`` (the config file before and after), each ``ok`` or
``error <where SGLang raised>``; ``differs`` lists the resolved fields that
differ between input and fixed launch (only the deprecated inputs' own
echoes: every setting SGLang runs with is the same). A fixed config file
resolves exactly like the fixed launch.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from autofix.adapters import argv as shell
from autofix.adapters import yaml_config
from autofix.core.api import FixOptions, fix_source
from autofix.rules.deprecated import OPTIONS, VALUES
from autofix.schema import load
from harness.rules.casekit import oracle_facts

LAUNCH = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "
MODEL_KEY = "model-path: deepseek-ai/DeepSeek-V3\n"
CONFIG_REFUSED = "error sglang/srt/utils/server_args_config_parser.py:173"
NO_AMD_PLUGIN = "error sglang/srt/kernel_plugins/amd/binding.py:215"  # oracle: kernel plugin not installed
CUDA_GRAPH_ECHOES = ["cuda_graph_backend_decode", "cuda_graph_backend_prefill", "disable_cuda_graph"]


@dataclass(frozen=True)
class Case:
    id: str
    flags: str | None  # after LAUNCH; None: a case only a --config file can have
    diagnostics: tuple[tuple[str, str], ...] = ()
    fixed: str | None = None  # the flags after fix; None: unchanged
    yaml: str | None = None  # after MODEL_KEY
    yaml_diagnostics: tuple[tuple[str, str], ...] = ()
    yaml_fixed: str | None = None
    unsafe: bool = False  # the fix is unsafe: only --unsafe-fixes applies it
    safe_fixed: str | None = None  # with an unsafe fix, the flags after the safe fixes alone; None: unchanged
    gpu: str = "h200"
    oracle: dict | None = None  # None: values only known at launch, nothing to ask SGLang

    @property
    def text(self) -> str:
        return LAUNCH + self.flags + "\n"

    @property
    def config(self) -> str:
        return MODEL_KEY + self.yaml


def d(code: str, message: str) -> tuple[str, str]:
    return (code, message)


DEP001_CASES = [
    Case("DEP001-disable-cuda-graph", "--tp-size 8 --disable-cuda-graph",
         (d("DEP001", "--disable-cuda-graph is deprecated; write --cuda-graph-backend-decode disabled "
                      "--cuda-graph-backend-prefill disabled instead"),),
         "--tp-size 8 --cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled",
         "tp-size: 8\ndisable-cuda-graph: true\n",
         (d("DEP001", "disable-cuda-graph is deprecated, and SGLang refuses it in a --config file; write "
                      "cuda-graph-backend-decode: disabled, cuda-graph-backend-prefill: disabled instead"),),
         "tp-size: 8\ncuda-graph-backend-decode: disabled\ncuda-graph-backend-prefill: disabled\n",
         oracle={"input": "ok", "fixed": "ok", "differs": CUDA_GRAPH_ECHOES,
                 "yaml": CONFIG_REFUSED, "yaml_fixed": "ok"}),
    Case("DEP001-disable-cuda-graph-decode-given", "--tp-size 8 --disable-cuda-graph --cuda-graph-backend-decode full",
         (d("DEP001", "--disable-cuda-graph is deprecated; write --cuda-graph-backend-prefill disabled instead"),),
         "--tp-size 8 --cuda-graph-backend-prefill disabled --cuda-graph-backend-decode full",
         "tp-size: 8\ndisable-cuda-graph: true\ncuda-graph-backend-decode: full\n",
         (d("DEP001", "disable-cuda-graph is deprecated, and SGLang refuses it in a --config file; write "
                      "cuda-graph-backend-prefill: disabled instead"),),
         "tp-size: 8\ncuda-graph-backend-prefill: disabled\ncuda-graph-backend-decode: full\n",
         oracle={"input": "ok", "fixed": "ok", "differs": ["cuda_graph_backend_prefill", "disable_cuda_graph"],
                 "yaml": CONFIG_REFUSED, "yaml_fixed": "ok"}),
    Case("DEP001-disable-cuda-graph-both-given",
         "--tp-size 8 --disable-cuda-graph --cuda-graph-backend-decode full --cuda-graph-backend-prefill breakable",
         (d("DEP001", "--disable-cuda-graph is deprecated; with --cuda-graph-backend-decode full "
                      "--cuda-graph-backend-prefill breakable it does nothing: remove it"),),
         "--tp-size 8 --cuda-graph-backend-decode full --cuda-graph-backend-prefill breakable",
         oracle={"input": "ok", "fixed": "ok", "differs": ["disable_cuda_graph"]}),
    Case("DEP001-disable-cuda-graph-pp-unsafe", "--tp-size 4 --pp-size 2 --disable-cuda-graph",
         (d("DEP001", "--disable-cuda-graph is deprecated; write --cuda-graph-backend-decode disabled "
                      "--cuda-graph-backend-prefill disabled instead"),),
         "--tp-size 4 --pp-size 2 --cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled",
         unsafe=True, oracle={"input": "ok", "fixed": "ok", "differs": CUDA_GRAPH_ECHOES}),
    Case("DEP001-disable-cuda-graph-false-in-yaml", None, yaml="tp-size: 8\ndisable-cuda-graph: false\n",
         yaml_diagnostics=(d("DEP001", "disable-cuda-graph is deprecated, and SGLang refuses it in a --config file; "
                                       "false is the default: remove it"),),
         yaml_fixed="tp-size: 8\n", oracle={"yaml": CONFIG_REFUSED, "yaml_fixed": "ok"}),
    Case("DEP001-dp-attention", "--tp-size 8 --dp-size 8 --enable-dp-attention",
         (d("DEP001", "--enable-dp-attention is deprecated; write --attn-dp-size 8 instead of --dp-size 8 with "
                      "--enable-dp-attention"),),
         "--tp-size 8 --attn-dp-size 8",
         "tp-size: 8\ndp-size: 8\nenable-dp-attention: true\n",
         (d("DEP001", "enable-dp-attention is deprecated, and SGLang refuses it in a --config file; write "
                      "attn-dp-size: 8 instead of dp-size: 8 with enable-dp-attention"),),
         "tp-size: 8\nattn-dp-size: 8\n",
         oracle={"input": "ok", "fixed": "ok", "differs": [], "yaml": CONFIG_REFUSED, "yaml_fixed": "ok"}),
    Case("DEP001-dp-attention-dp-prefix", "--tp-size 8 --dp 4 --enable-dp-attention",
         (d("DEP001", "--enable-dp-attention is deprecated; write --attn-dp-size 4 instead of --dp-size 4 with "
                      "--enable-dp-attention"),),
         "--tp-size 8 --attn-dp-size 4", oracle={"input": "ok", "fixed": "ok", "differs": []}),
    Case("DEP001-dp-attention-attn-dp-1", "--tp-size 8 --attn-dp-size 1 --dp-size 4 --enable-dp-attention",
         (d("DEP001", "--enable-dp-attention is deprecated; write --attn-dp-size 4 instead of --dp-size 4 with "
                      "--enable-dp-attention"),),
         "--tp-size 8 --attn-dp-size 4", oracle={"input": "ok", "fixed": "ok", "differs": []}),
    Case("DEP001-dp-attention-dp-repeated", "--tp-size 8 --dp-size 4 --dp-size 8 --enable-dp-attention",
         (d("ARG007", "--dp-size is set again later (--dp-size 8); SGLang uses the later one"),
          d("DEP001", "--enable-dp-attention is deprecated; write --attn-dp-size 8 instead of --dp-size 8 with "
                      "--enable-dp-attention")),
         "--tp-size 8 --attn-dp-size 8",
         "tp-size: 8\ndp-size: 4\nenable-dp-attention: true\ndp-size: 8\n",
         (d("ARG007", "dp-size is set again later (dp-size: 8); SGLang uses the later one"),
          d("DEP001", "enable-dp-attention is deprecated, and SGLang refuses it in a --config file; write "
                      "attn-dp-size: 8 instead of dp-size: 8 with enable-dp-attention")),
         "tp-size: 8\nattn-dp-size: 8\n",
         oracle={"input": "ok", "fixed": "ok", "differs": [], "yaml": CONFIG_REFUSED, "yaml_fixed": "ok"}),
    Case("DEP001-dp-attention-alone", "--tp-size 8 --enable-dp-attention",
         (d("DEP001", "--enable-dp-attention is deprecated; without --dp-size above 1 it does nothing: remove it"),),
         "--tp-size 8",
         "tp-size: 8\nenable-dp-attention: true\n",
         (d("DEP001", "enable-dp-attention is deprecated, and SGLang refuses it in a --config file; without "
                      "dp-size above 1 it does nothing: remove it"),),
         "tp-size: 8\n",
         oracle={"input": "ok", "fixed": "ok", "differs": [], "yaml": CONFIG_REFUSED, "yaml_fixed": "ok"}),
    Case("DEP001-dp-attention-with-attn-dp", "--tp-size 8 --attn-dp-size 8 --enable-dp-attention",
         (d("DEP001", "--enable-dp-attention is deprecated; with --attn-dp-size 8 it does nothing: remove it"),),
         "--tp-size 8 --attn-dp-size 8", oracle={"input": "ok", "fixed": "ok", "differs": []}),
    Case("DEP001-dp-attention-refused-pair", "--tp-size 8 --dp-size 8 --enable-dp-attention --attn-dp-size 8",
         (d("DP003", "--dp-size 8 (replicas) with --attn-dp-size 8 (attention DP): SGLang runs one of them, not "
                     "both; keep --attn-dp-size (what --dp-size meant with --enable-dp-attention) or the replicas"),
          d("DEP001", "--enable-dp-attention is deprecated; next to --attn-dp-size 8 it keeps --dp-size 8 as "
                      "replicas (DP003 says which to keep)")),
         oracle={"input": "error sglang/srt/arg_groups/parallel_hook.py:288"}),
    Case("DEP001-dp-attention-dynamic-dp", "--tp-size 8 --dp-size $DP --enable-dp-attention",
         (d("DEP001", "--enable-dp-attention is deprecated; write --attn-dp-size <dp-size> instead of --dp-size "
                      "<dp-size> with --enable-dp-attention (not fixed: a size is only known at launch)"),)),
    Case("DEP001-dp-attention-before-expansion", '--tp-size 8 --enable-dp-attention "$@"',
         (d("DEP001", "--enable-dp-attention is deprecated; write --attn-dp-size <dp-size> instead of --dp-size "
                      "<dp-size> with --enable-dp-attention (not fixed: a size is only known at launch)"),)),
    Case("DEP001-monokernel-backend", "--tp-size 8 --monokernel-backend amd",
         (d("DEP001", "--monokernel-backend is deprecated; write --enable-amd-monokernel instead"),),
         "--tp-size 8 --enable-amd-monokernel",
         "tp-size: 8\nmonokernel-backend: amd\n",
         (d("DEP001", "monokernel-backend is deprecated; write enable-amd-monokernel: true instead"),),
         "tp-size: 8\nenable-amd-monokernel: true\n",
         # both spellings fail alike: the oracle has no AMD monokernel plugin installed
         oracle={"input": NO_AMD_PLUGIN, "fixed": NO_AMD_PLUGIN, "differs": [],
                 "yaml": NO_AMD_PLUGIN, "yaml_fixed": NO_AMD_PLUGIN}),
    Case("DEP001-monokernel-backend-then-new-flag", "--tp-size 8 --monokernel-backend amd --enable-amd-monokernel",
         (d("ARG007", "--monokernel-backend is set again later (--enable-amd-monokernel); SGLang uses the later one"),),
         "--tp-size 8 --enable-amd-monokernel",
         oracle={"input": NO_AMD_PLUGIN, "fixed": NO_AMD_PLUGIN, "differs": []}),
    Case("DEP001-grpc-mode", "--tp-size 8 --grpc-mode",
         (d("DEP001", "--grpc-mode is deprecated; write --smg-grpc-mode instead"),),
         "--tp-size 8 --smg-grpc-mode",
         "tp-size: 8\ngrpc-mode: true\n",
         (d("DEP001", "grpc-mode is deprecated; write smg-grpc-mode: true instead"),),
         "tp-size: 8\nsmg-grpc-mode: true\n",
         oracle={"input": "ok", "fixed": "ok", "differs": ["grpc_mode"], "yaml": "ok", "yaml_fixed": "ok"}),
    Case("DEP001-grpc-mode-twice", "--tp-size 8 --grpc-mode --grpc-mode",
         (d("ARG007", "--grpc-mode is set again later (--grpc-mode); SGLang uses the later one"),
          d("DEP001", "--grpc-mode is deprecated; write --smg-grpc-mode instead")),
         "--tp-size 8 --smg-grpc-mode", oracle={"input": "ok", "fixed": "ok", "differs": ["grpc_mode"]}),
    Case("DEP001-grpc-mode-with-smg", "--tp-size 8 --grpc-mode --smg-grpc-mode",
         (d("DEP001", "--grpc-mode is deprecated; with --smg-grpc-mode it does nothing: remove it"),),
         "--tp-size 8 --smg-grpc-mode", oracle={"input": "ok", "fixed": "ok", "differs": ["grpc_mode"]}),
    Case("DEP001-fast-image-processor", "--tp-size 8 --disable-fast-image-processor",
         (d("DEP001", "--disable-fast-image-processor is deprecated; write --image-processor-backend pil instead"),),
         "--tp-size 8 --image-processor-backend pil",
         "tp-size: 8\ndisable-fast-image-processor: true\n",
         (d("DEP001", "disable-fast-image-processor is deprecated; write image-processor-backend: pil instead"),),
         "tp-size: 8\nimage-processor-backend: pil\n",
         oracle={"input": "ok", "fixed": "ok", "differs": ["disable_fast_image_processor"],
                 "yaml": "ok", "yaml_fixed": "ok"}),
    Case("DEP001-fast-image-processor-auto",
         "--tp-size 8 --disable-fast-image-processor --image-processor-backend auto",
         (d("DEP001", "--disable-fast-image-processor is deprecated; write --image-processor-backend pil instead of "
                      "--image-processor-backend auto with --disable-fast-image-processor"),),
         "--tp-size 8 --image-processor-backend pil",
         oracle={"input": "ok", "fixed": "ok", "differs": ["disable_fast_image_processor"]}),
    Case("DEP001-fast-image-processor-pil", "--tp-size 8 --image-processor-backend pil --disable-fast-image-processor",
         (d("DEP001", "--disable-fast-image-processor is deprecated; with --image-processor-backend pil it does "
                      "nothing: remove it"),),
         "--tp-size 8 --image-processor-backend pil",
         oracle={"input": "ok", "fixed": "ok", "differs": ["disable_fast_image_processor"]}),
    Case("DEP001-fast-image-processor-torchvision",
         "--tp-size 8 --disable-fast-image-processor --image-processor-backend torchvision",
         (d("DEP001", "--disable-fast-image-processor is deprecated; SGLang refuses it with --image-processor-backend "
                      "torchvision (serving_hook.py:260): keep one of them"),),
         oracle={"input": "error sglang/srt/arg_groups/serving_hook.py:260"}),
    Case("DEP001-allreduce-fusion", "--tp-size 8 --enable-flashinfer-allreduce-fusion",
         (d("DEP001", "--enable-flashinfer-allreduce-fusion is deprecated; write --flashinfer-allreduce-fusion-backend "
                      "auto instead"),),
         "--tp-size 8 --flashinfer-allreduce-fusion-backend auto",
         "tp-size: 8\nenable-flashinfer-allreduce-fusion: true\n",
         (d("DEP001", "enable-flashinfer-allreduce-fusion is deprecated; write flashinfer-allreduce-fusion-backend: "
                      "auto instead"),),
         "tp-size: 8\nflashinfer-allreduce-fusion-backend: auto\n",
         oracle={"input": "ok", "fixed": "ok", "differs": [], "yaml": "ok", "yaml_fixed": "ok"}),
    Case("DEP001-allreduce-fusion-attn-dp", "--tp-size 8 --attn-dp-size 8 --enable-flashinfer-allreduce-fusion",
         (d("DEP001", "--enable-flashinfer-allreduce-fusion is deprecated; write --flashinfer-allreduce-fusion-backend "
                      "auto instead"),),
         "--tp-size 8 --attn-dp-size 8 --flashinfer-allreduce-fusion-backend auto",
         oracle={"input": "ok", "fixed": "ok", "differs": []}),
    Case("DEP001-allreduce-fusion-backend-given",
         "--tp-size 8 --enable-flashinfer-allreduce-fusion --flashinfer-allreduce-fusion-backend trtllm",
         (d("DEP001", "--enable-flashinfer-allreduce-fusion is deprecated; with --flashinfer-allreduce-fusion-backend "
                      "trtllm it does nothing: remove it"),),
         "--tp-size 8 --flashinfer-allreduce-fusion-backend trtllm",
         oracle={"input": "ok", "fixed": "ok", "differs": []}),
    Case("DEP001-after-argparse-fix", "--tp-size 8 --disable-cuda-graph=true",
         (d("ARG005", "--disable-cuda-graph takes no value, but is given 'true'"),
          d("DEP001", "--disable-cuda-graph is deprecated; write --cuda-graph-backend-decode disabled "
                      "--cuda-graph-backend-prefill disabled instead")),
         "--tp-size 8 --cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled",
         oracle={"input": "error argparse", "fixed": "ok"}),
]

SPEC = "--speculative-algorithm EAGLE --speculative-draft-model-path lmsys/eagle"
TOKENSPEED = "SGLang runs cutedsl_mla with an FP8 KV cache instead"

DEP002_CASES = [
    Case("DEP002-qwen25", "--tp-size 8 --tool-call-parser qwen25",
         (d("DEP002", "--tool-call-parser qwen25 is deprecated; write --tool-call-parser qwen instead"),),
         "--tp-size 8 --tool-call-parser qwen",
         "tp-size: 8\ntool-call-parser: qwen25\n",
         (d("DEP002", "tool-call-parser: qwen25 is deprecated; write tool-call-parser: qwen instead"),),
         "tp-size: 8\ntool-call-parser: qwen\n",
         oracle={"input": "ok", "fixed": "ok", "differs": [], "yaml": "ok", "yaml_fixed": "ok"}),
    Case("DEP002-glm45", "--tp-size 8 --tool-call-parser=glm45",
         (d("DEP002", "--tool-call-parser glm45 is deprecated; write --tool-call-parser glm instead"),),
         "--tp-size 8 --tool-call-parser=glm",
         "tp-size: 8\ntool-call-parser: glm45\n",
         (d("DEP002", "tool-call-parser: glm45 is deprecated; write tool-call-parser: glm instead"),),
         "tp-size: 8\ntool-call-parser: glm\n",
         oracle={"input": "ok", "fixed": "ok", "differs": [], "yaml": "ok", "yaml_fixed": "ok"}),
    Case("DEP002-compressed", "--tp-size 8 --attention-backend compressed",
         (d("DEP002", "--attention-backend compressed is deprecated; write --attention-backend dsv4 instead"),),
         "--tp-size 8 --attention-backend dsv4",
         "tp-size: 8\nattention-backend: compressed\n",
         (d("DEP002", "attention-backend: compressed is deprecated; write attention-backend: dsv4 instead"),),
         "tp-size: 8\nattention-backend: dsv4\n",
         oracle={"input": "ok", "fixed": "ok", "differs": [], "yaml": "ok", "yaml_fixed": "ok"}),
    Case("DEP002-compressed-decode-prefill",
         "--tp-size 8 --decode-attention-backend compressed --prefill-attention-backend compressed",
         (d("DEP002", "--decode-attention-backend compressed is deprecated; write --decode-attention-backend dsv4 "
                      "instead"),
          d("DEP002", "--prefill-attention-backend compressed is deprecated; write --prefill-attention-backend dsv4 "
                      "instead")),
         "--tp-size 8 --decode-attention-backend dsv4 --prefill-attention-backend dsv4",
         oracle={"input": "ok", "fixed": "ok", "differs": []}),
    Case("DEP002-compressed-draft", f"--tp-size 8 {SPEC} --speculative-draft-attention-backend compressed",
         (d("DEP002", "--speculative-draft-attention-backend compressed is deprecated; write "
                      "--speculative-draft-attention-backend dsv4 instead"),),
         f"--tp-size 8 {SPEC} --speculative-draft-attention-backend dsv4",
         oracle={"input": "ok", "fixed": "ok", "differs": []}),
    Case("DEP002-tokenspeed-prefill", "--tp-size 8 --prefill-attention-backend tokenspeed_mla",
         (d("DEP002", "--prefill-attention-backend tokenspeed_mla is deprecated; write --prefill-attention-backend "
                      "trtllm_mla instead"),),
         "--tp-size 8 --prefill-attention-backend trtllm_mla",
         "tp-size: 8\nprefill-attention-backend: tokenspeed_mla\n",
         (d("DEP002", "prefill-attention-backend: tokenspeed_mla is deprecated; write prefill-attention-backend: "
                      "trtllm_mla instead"),),
         "tp-size: 8\nprefill-attention-backend: trtllm_mla\n",
         oracle={"input": "ok", "fixed": "ok", "differs": [], "yaml": "ok", "yaml_fixed": "ok"}),
    Case("DEP002-tokenspeed-draft", f"--tp-size 8 {SPEC} --speculative-draft-attention-backend tokenspeed_mla",
         (d("DEP002", "--speculative-draft-attention-backend tokenspeed_mla is deprecated; write "
                      "--speculative-draft-attention-backend cutedsl_mla instead"),),
         f"--tp-size 8 {SPEC} --speculative-draft-attention-backend cutedsl_mla",
         gpu="b200", oracle={"input": "ok", "fixed": "ok", "differs": []}),
    Case("DEP002-tokenspeed", "--tp-size 8 --attention-backend tokenspeed_mla",
         (d("DEP002", f"--attention-backend tokenspeed_mla is deprecated; {TOKENSPEED}: write --attention-backend "
                      "cutedsl_mla --kv-cache-dtype fp8_e4m3"),),
         "--tp-size 8 --attention-backend cutedsl_mla --kv-cache-dtype fp8_e4m3",
         "tp-size: 8\nattention-backend: tokenspeed_mla\n",
         (d("DEP002", f"attention-backend: tokenspeed_mla is deprecated; {TOKENSPEED}: write attention-backend: "
                      "cutedsl_mla, kv-cache-dtype: fp8_e4m3"),),
         "tp-size: 8\nattention-backend: cutedsl_mla\nkv-cache-dtype: fp8_e4m3\n",
         unsafe=True, gpu="b200",
         oracle={"input": "ok", "fixed": "ok", "differs": [], "yaml": "ok", "yaml_fixed": "ok"}),
    Case("DEP002-tokenspeed-hopper", "--tp-size 8 --attention-backend tokenspeed_mla",
         (d("DEP002", f"--attention-backend tokenspeed_mla is deprecated; {TOKENSPEED}: write --attention-backend "
                      "cutedsl_mla --kv-cache-dtype fp8_e4m3"),),
         "--tp-size 8 --attention-backend cutedsl_mla --kv-cache-dtype fp8_e4m3",
         unsafe=True,  # both names are Blackwell-only: refused alike on H200
         oracle={"input": "error sglang/srt/arg_groups/overrides.py:1245",
                 "fixed": "error sglang/srt/arg_groups/overrides.py:1245", "differs": []}),
    Case("DEP002-tokenspeed-decode-bf16",
         "--tp-size 8 --decode-attention-backend tokenspeed_mla --kv-cache-dtype bf16",
         (d("DEP002", f"--decode-attention-backend tokenspeed_mla is deprecated; {TOKENSPEED}: write "
                      "--decode-attention-backend cutedsl_mla --kv-cache-dtype fp8_e4m3"),),
         "--tp-size 8 --decode-attention-backend cutedsl_mla --kv-cache-dtype fp8_e4m3",
         "tp-size: 8\ndecode-attention-backend: tokenspeed_mla\nkv-cache-dtype: bf16\n",
         (d("DEP002", f"decode-attention-backend: tokenspeed_mla is deprecated; {TOKENSPEED}: write "
                      "decode-attention-backend: cutedsl_mla, kv-cache-dtype: fp8_e4m3"),),
         "tp-size: 8\ndecode-attention-backend: cutedsl_mla\nkv-cache-dtype: fp8_e4m3\n",
         unsafe=True, gpu="b200",
         oracle={"input": "ok", "fixed": "ok", "differs": [], "yaml": "ok", "yaml_fixed": "ok"}),
    Case("DEP002-tokenspeed-speculative", f"--tp-size 8 --attention-backend tokenspeed_mla {SPEC}",
         (d("DEP002", f"--attention-backend tokenspeed_mla is deprecated; {TOKENSPEED}: write --attention-backend "
                      "cutedsl_mla --kv-cache-dtype fp8_e4m3 --speculative-attention-mode decode"),),
         "--tp-size 8 --attention-backend cutedsl_mla --kv-cache-dtype fp8_e4m3 --speculative-attention-mode decode "
         + SPEC,
         unsafe=True, gpu="b200", oracle={"input": "ok", "fixed": "ok", "differs": []}),
    Case("DEP002-tokenspeed-twice",
         "--tp-size 8 --attention-backend tokenspeed_mla --decode-attention-backend tokenspeed_mla",
         (d("DEP002", f"--attention-backend tokenspeed_mla is deprecated; {TOKENSPEED}: write --attention-backend "
                      "cutedsl_mla --kv-cache-dtype fp8_e4m3"),
          d("DEP002", f"--decode-attention-backend tokenspeed_mla is deprecated; {TOKENSPEED}: write "
                      "--decode-attention-backend cutedsl_mla")),
         "--tp-size 8 --attention-backend cutedsl_mla --kv-cache-dtype fp8_e4m3 --decode-attention-backend cutedsl_mla",
         # the decode rename alone is safe: the first tokenspeed_mla still implies the FP8 KV cache
         unsafe=True,
         safe_fixed="--tp-size 8 --attention-backend tokenspeed_mla --decode-attention-backend cutedsl_mla",
         gpu="b200", oracle={"input": "ok", "fixed": "ok", "differs": [], "safe_fixed": "ok", "safe_differs": []}),
    Case("DEP002-tokenspeed-fp8-given", "--tp-size 8 --attention-backend tokenspeed_mla --kv-cache-dtype fp8_e4m3",
         (d("DEP002", f"--attention-backend tokenspeed_mla is deprecated; {TOKENSPEED}: write --attention-backend "
                      "cutedsl_mla"),),
         "--tp-size 8 --attention-backend cutedsl_mla --kv-cache-dtype fp8_e4m3",
         gpu="b200", oracle={"input": "ok", "fixed": "ok", "differs": []}),
    Case("DEP002-tokenspeed-dynamic-kv", "--tp-size 8 --attention-backend tokenspeed_mla --kv-cache-dtype $KV",
         (d("DEP002", f"--attention-backend tokenspeed_mla is deprecated; {TOKENSPEED} (not fixed: the KV cache or "
                      "speculative settings are only known at launch)"),)),
]

# The replacements themselves, and values that are not deprecated: nothing to report.
NEIGHBOURS = [
    Case("ok-cuda-graph-backends",
         "--tp-size 8 --cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled",
         yaml="tp-size: 8\ncuda-graph-backend-decode: disabled\ncuda-graph-backend-prefill: disabled\n",
         oracle={"input": "ok", "yaml": "ok"}),
    Case("ok-disable-decode-prefill-cuda-graph", "--tp-size 8 --disable-decode-cuda-graph --disable-prefill-cuda-graph",
         oracle={"input": "ok"}),
    Case("ok-attn-dp-size", "--tp-size 8 --attn-dp-size 8", yaml="tp-size: 8\nattn-dp-size: 8\n",
         oracle={"input": "ok", "yaml": "ok"}),
    Case("ok-dp-size", "--tp-size 8 --dp-size 2", oracle={"input": "ok"}),
    Case("ok-enable-amd-monokernel", "--tp-size 8 --enable-amd-monokernel", oracle={"input": NO_AMD_PLUGIN}),
    Case("ok-smg-grpc-mode", "--tp-size 8 --smg-grpc-mode", yaml="tp-size: 8\nsmg-grpc-mode: true\n",
         oracle={"input": "ok", "yaml": "ok"}),
    Case("ok-image-processor-pil", "--tp-size 8 --image-processor-backend pil", oracle={"input": "ok"}),
    Case("ok-allreduce-fusion-backend", "--tp-size 8 --flashinfer-allreduce-fusion-backend auto",
         oracle={"input": "ok"}),
    # store-true keys set to false are skipped by SGLang's config reader: nothing deprecated reaches it
    Case("ok-deprecated-flags-false-in-yaml", None,
         yaml="tp-size: 8\ngrpc-mode: false\nenable-flashinfer-allreduce-fusion: false\n"
              "disable-fast-image-processor: false\n",
         oracle={"yaml": "ok"}),
    Case("ok-tool-call-parser-qwen", "--tp-size 8 --tool-call-parser qwen", oracle={"input": "ok"}),
    Case("ok-tool-call-parser-glm47", "--tp-size 8 --tool-call-parser glm47", oracle={"input": "ok"}),
    Case("ok-attention-dsv4", "--tp-size 8 --attention-backend dsv4", oracle={"input": "ok"}),
    Case("ok-prefill-trtllm-mla", "--tp-size 8 --prefill-attention-backend trtllm_mla", oracle={"input": "ok"}),
    Case("ok-cutedsl-mla-fp8", "--tp-size 8 --attention-backend cutedsl_mla --kv-cache-dtype fp8_e4m3", gpu="b200",
         oracle={"input": "ok"}),
    Case("ok-dynamic-parser", "--tp-size 8 --tool-call-parser $PARSER"),
]

CASES = DEP001_CASES + DEP002_CASES + NEIGHBOURS
SHELL = [c for c in CASES if c.flags is not None]
CONFIG = [c for c in CASES if c.yaml is not None]
UNSAFE = [c for c in CASES if c.unsafe]


def found(result) -> tuple[tuple[str, str], ...]:
    return tuple((x.code, x.violation.message) for x in result.diagnostics)


@pytest.mark.parametrize("case", SHELL, ids=[c.id for c in SHELL])
def test_launch_script(case: Case):
    result = fix_source(case.text, shell, options=FixOptions(unsafe=case.unsafe))
    assert found(result) == case.diagnostics
    assert result.output == LAUNCH + (case.fixed or case.flags) + "\n"


@pytest.mark.parametrize("case", CONFIG, ids=[c.id for c in CONFIG])
def test_config_file(case: Case):
    result = fix_source(case.config, yaml_config, options=FixOptions(unsafe=case.unsafe))
    assert found(result) == case.yaml_diagnostics
    assert result.output == MODEL_KEY + (case.yaml_fixed or case.yaml)


@pytest.mark.parametrize("case", UNSAFE, ids=[c.id for c in UNSAFE])
def test_unsafe_fix_waits_for_unsafe_fixes(case: Case):
    result = fix_source(case.text, shell)
    assert found(result) == case.diagnostics
    assert result.output == LAUNCH + (case.safe_fixed or case.flags) + "\n"


FIXED = [c for c in CASES if c.fixed or c.yaml_fixed]


@pytest.mark.parametrize("case", FIXED, ids=[c.id for c in FIXED])
def test_fixed_text_is_clean(case: Case):
    if case.fixed:
        assert found(fix_source(LAUNCH + case.fixed + "\n", shell)) == ()
    if case.yaml_fixed:
        assert found(fix_source(MODEL_KEY + case.yaml_fixed, yaml_config)) == ()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_recorded_verdicts_back_the_fix(case: Case):
    """A fix keeps what SGLang runs: the fixed launch resolves like the input (but for the
    deprecated inputs' own echoes), and a config SGLang refused is accepted once fixed."""
    o = case.oracle
    if o is None:
        assert "$" in (case.flags or ""), "only launch-time values go without an oracle verdict"
        return
    if case.safe_fixed:
        assert o["safe_fixed"] == o["input"] and o["safe_differs"] == []
    if case.fixed:
        assert o["fixed"] == o["input"] or o["input"] == "error argparse"
        assert set(o.get("differs", ())) <= {*CUDA_GRAPH_ECHOES, "grpc_mode", "disable_fast_image_processor"}
    if case.yaml_fixed:
        assert o["yaml_fixed"] == (o.get("fixed") or o.get("input") or "ok")
    if not case.fixed and not case.yaml_fixed and case.diagnostics:
        assert o["input"] != "ok"  # reported, not fixed: only where SGLang refuses the combination


def test_tables_agree_with_the_schema():
    schema = load()
    for flag in OPTIONS:
        assert schema.by_flag[flag].deprecated, flag
        assert all(f in schema.by_flag for f, _ in OPTIONS[flag].settings if not f.startswith("<"))
    for (dest, old), (new, _) in VALUES.items():
        choices = schema[dest].choices
        assert choices is None or {old, new} <= set(choices), (dest, old)


def test_other_releases_are_not_judged_by_these_tables():
    """0.5.19 has the same flags and values, but what it maps them to was not checked."""
    text = LAUNCH + "--tp-size 8 --grpc-mode --tool-call-parser qwen25\n"
    assert [c for c, _ in found(fix_source(text, shell))] == ["DEP001", "DEP002"]
    assert found(fix_source(text, shell, options=FixOptions(schema=load("0.5.19")))) == ()



# refused for a reason no rule models: the oracle has no AMD monokernel plugin (its README: optional extras), and
# tokenspeed_mla/cutedsl_mla need Blackwell (overrides.py:1245, KV035: not yet a rule, docs/coverage.md)
REFUSED_ELSEWHERE = {"DEP001-monokernel-backend", "DEP001-monokernel-backend-then-new-flag", "DEP002-tokenspeed-hopper",
                     "ok-enable-amd-monokernel"}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_an_error_exactly_where_sglang_refuses(case: Case):
    """A diagnostic is an error exactly when SGLang refuses the launch (``--disable-fast-image-processor`` with
    ``--image-processor-backend torchvision``, serving_hook.py:260), a warning when it starts."""
    o = case.oracle
    if o is None:
        return  # values only known at launch
    runs = [(o.get("input"), case.text if case.flags is not None else None, shell),
            (o.get("yaml"), case.config if case.yaml is not None else None, yaml_config)]
    for verdict, text, fmt in runs:
        if verdict is None or text is None:
            continue
        diagnostics = fix_source(text, fmt,
                                 options=FixOptions(facts=oracle_facts(case.gpu))).diagnostics  # what the oracle has
        severities = [(d.code, d.violation.severity) for d in diagnostics]
        errors = any(s == "error" for _, s in severities)
        assert errors is (verdict != "ok") or (not errors and case.id in REFUSED_ELSEWHERE), (verdict, severities)
