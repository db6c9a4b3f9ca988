"""vLLM ``serve`` options people carry over, and what SGLang 0.5.23 has instead.

Data, not a rule: ``options.unknown_option`` looks flags up here. Each entry
is the vLLM flag, then either SGLang's equivalent and whether the meaning is
the same (a safe fix) or only close (an unsafe fix), or ``None`` with what to
read instead (reported, never guessed). ``tests/rules/test_other_engines.py``
checks every SGLang flag named here against the shipped schema.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Equivalent:
    """SGLang's counterpart of a vLLM flag.

    ``flag`` is None when there is none; ``drop`` means SGLang already
    behaves that way by default, so the flag can simply go; ``drop_with``
    names an SGLang dest whose setting makes the flag redundant (then it
    can go); ``same`` says whether the meaning is identical; ``note`` is
    shown to the user.
    """

    flag: str | None
    same: bool = True
    drop: bool = False
    note: str = ""
    drop_with: str | None = None


VLLM: dict[str, Equivalent] = {
    "--model": Equivalent("--model-path"),
    "--max-model-len": Equivalent("--context-length"),
    "--max-num-seqs": Equivalent("--max-running-requests"),
    "--seed": Equivalent("--random-seed"),
    "--no-enable-prefix-caching": Equivalent("--disable-radix-cache"),
    "--enable-prefix-caching": Equivalent(None, drop=True, note="SGLang's radix (prefix) cache is on by default"),
    "--disable-log-requests": Equivalent(None, drop=True, note="SGLang logs requests only with --log-requests"),
    "--gpu-memory-utilization": Equivalent(
        "--mem-fraction-static", same=False,
        note="vLLM's share of the whole GPU memory is not SGLang's share for weights and KV cache",
    ),
    "--block-size": Equivalent("--page-size", same=False, note="check the attention backend supports the size"),
    "--max-num-batched-tokens": Equivalent(
        None, note="SGLang splits this into --chunked-prefill-size and --max-prefill-tokens"
    ),
    "--enable-expert-parallel": Equivalent(None, note="SGLang takes an expert-parallel size: --ep-size"),
    "--swap-space": Equivalent(None, note="SGLang does not swap KV cache to CPU; see --enable-hierarchical-cache"),
    "--enforce-eager": Equivalent(
        None, note="SGLang 0.5.23 turns CUDA graphs off with --cuda-graph-backend-decode disabled"
    ),
    "--distributed-executor-backend": Equivalent(None, note="SGLang runs one process per GPU; see --nnodes"),
    "--enable-auto-tool-choice": Equivalent(None, note="SGLang parses tool calls when --tool-call-parser is set"),
    "--max-loras": Equivalent("--max-loras-per-batch", same=False, note="SGLang counts adapters per batch"),
    "--uvicorn-log-level": Equivalent("--log-level-http", same=False),
    "--enable-reasoning": Equivalent(
        None, drop_with="reasoning_parser", note="SGLang separates reasoning when --reasoning-parser is set"
    ),
}
