"""LoRA (``check_lora_server_args``, ``arg_groups/lora_hook.py``): cases checked with ../shared/oracle.

LoRA's checks run at Engine launch, on the final values. ``SPECULATIVE`` holds the cases whose verdict rests on the
speculative derivations (``--speculative-adaptive`` that SGLang turns off for NGRAM, DFLASH or top-k above 1,
``NEXTN`` read as ``EAGLE``).
"""

from __future__ import annotations

from harness.rules.casekit import at, case, raised_at

L = ["--enable-lora", "--max-lora-rank", "16", "--lora-target-modules", "all"]  # LoRA without adapters
P = ["--lora-paths", "a=/loras/a"]  # LoRA with one adapter (turns LoRA on)
R = ["--moe-runner-backend", "lora_triton", "--lora-backend", "triton_v2"]  # a LoRA MoE runner
V2 = ["--lora-backend", "triton_v2"]

CASES = [
case('LORA001-paths-enable', [*P], [], "ok"),
    case('LORA001-ok-json', ['--lora-paths', '{"lora_name": "a", "lora_path": "/loras/a", "pinned": true}'], [], "ok"),
    case('LORA003-zero', ['--max-loras-per-batch', '0'], ['LORA003'], at('LORA003')),
    case('LORA003-negative-lora', [*P, '--max-loras-per-batch', '-1'], ['LORA003'], at('LORA003')),
    case('LORA003-ok', [*P, '--max-loras-per-batch', '1'], [], "ok"),
    case('LORA002-attn-dp', ['--tp', '8', '--attn-dp-size', '2', *P, *V2], ['LORA002'], at('LORA002')),
    case('LORA002-dp-attention', ['--tp', '8', '--enable-dp-attention', '--dp-size', '8', *P, *V2], ['LORA002'], at('LORA002')),
    case('LORA002-tbo', ['--tp', '8', '--attn-dp-size', '8', '--moe-a2a-backend', 'deepep', '--enable-two-batch-overlap', *P, *V2], ['LORA002'], at('LORA002')),
    # attention DP written with the flags: the fix removes all of them (LORA002-ok-modes-removed), or none when
    # attention DP comes from --enable-dp-attention --dp-size (removing only the overlap flag leaves it refused)
    case('LORA002-ok-modes-removed', ['--tp', '8', '--moe-a2a-backend', 'deepep', *P, *V2], [], "ok"),
    case('LORA002-tbo-dp-attention', ['--tp', '8', '--enable-dp-attention', '--dp-size', '8', '--moe-a2a-backend',
                                      'deepep', '--enable-two-batch-overlap', *P, *V2], ['LORA002'], at('LORA002')),
    case('LORA002-pdmux', [*P, *V2, '--enable-pdmux', '--chunked-prefill-size', '-1', '--disable-overlap-schedule'], ['LORA002'], at('LORA002')),
    case('LORA002-ok-csgmv-dp', ['--tp', '8', '--attn-dp-size', '2', *P], [], "ok"),
    case('LORA002-ok-lora-off', ['--tp', '8', '--attn-dp-size', '2', *V2], [], "ok"),
    case('LORA002-ok-v2', [*P, *V2], [], "ok"),
    case('LORA002-marlin', ['--tp', '8', '--attn-dp-size', '2', *L, '--lora-use-virtual-experts', *V2, '--moe-runner-backend', 'experimental_sgl_marlin'], ['RUN021', 'LORA002'], at('RUN021')),
    case('LORA004-unset', [*P, '--enable-lora-overlap-loading'], ['LORA004'], raised_at("LORA004")),
    case('LORA004-above', [*P, '--enable-lora-overlap-loading', '--max-loaded-loras', '17'], ['LORA004'], raised_at("LORA004")),
    case('LORA004-ok', [*P, '--enable-lora-overlap-loading', '--max-loaded-loras', '16'], [], "ok"),
    case('LORA004-ok-lora-off', ['--enable-lora-overlap-loading'], [], "ok"),
    case('LORA022-standalone', [*P, '--speculative-algorithm', 'STANDALONE'], ['LORA022'], at('LORA022')),
    case('LORA022-standalone-draft', [*L, '--speculative-algorithm', 'STANDALONE', '--speculative-draft-model-path', 'org/draft'], ['LORA022'], at('LORA022')),
    case('LORA022-ok-eagle', [*P, '--speculative-algorithm', 'EAGLE'], [], "ok"),
    case('LORA022-ok-eagle3', [*P, '--speculative-algorithm', 'EAGLE3'], [], "ok"),
    case('LORA022-ok-ngram', [*P, '--speculative-algorithm', 'NGRAM'], [], "ok"),
    case('LORA022-ok-dflash', [*P, '--speculative-algorithm', 'DFLASH', '--speculative-draft-model-path', 'org/draft'], [], "ok"),
    case('LORA022-ok-standalone-no-lora', ['--speculative-algorithm', 'STANDALONE'], [], "ok"),
    case('LORA023-adaptive', [*P, '--speculative-algorithm', 'EAGLE', '--speculative-adaptive'], ['LORA023'], at('LORA023')),
    case('LORA023-adaptive-eagle3', [*P, '--speculative-algorithm', 'EAGLE3', '--speculative-adaptive'], ['LORA023'], at('LORA023')),
    case('LORA023-trtllm', [*P, '--speculative-algorithm', 'EAGLE', '--moe-runner-backend', 'experimental_sgl_trtllm'], ['LORA023'], at('LORA023')),
    case('LORA023-draft-trtllm', [*P, '--speculative-algorithm', 'EAGLE', '--speculative-moe-runner-backend', 'experimental_sgl_trtllm'], ['LORA023'], at('LORA023')),
    case('LORA023-ok-trtllm-ngram', [*P, '--speculative-algorithm', 'NGRAM', '--moe-runner-backend', 'experimental_sgl_trtllm'], [], "ok"),
    case('LORA023-ok-no-lora', ['--speculative-algorithm', 'EAGLE', '--speculative-adaptive'], [], "ok"),
    case('LORA008-all-q', [*L, 'q_proj'], ['LORA008'], at('LORA008')),
    case('LORA008-paths', [*P, '--lora-target-modules', 'all', 'q_proj', 'v_proj'], ['LORA008'], at('LORA008')),
    case('LORA008-ok-all-twice', [*L, 'all'], [], "ok"),
    case('LORA008-ok-lora-off', ['--lora-target-modules', 'all', 'q_proj'], [], "ok"),
    case('LORA009-enable-only', ['--enable-lora'], ['LORA009'], at('LORA009')),
    case('LORA009-rank-only', ['--enable-lora', '--max-lora-rank', '8'], ['LORA009'], at('LORA009')),
    case('LORA009-rank-zero', ['--enable-lora', '--max-lora-rank', '0', '--lora-target-modules', 'q_proj'], ['LORA009'], at('LORA009')),
    case('LORA009-empty-paths', ['--enable-lora', '--lora-paths'], ['LORA009'], at('LORA009')),
    case('LORA009-empty-targets', ['--enable-lora', '--max-lora-rank', '8', '--lora-target-modules'], ['LORA009'], at('LORA009')),
    case('LORA009-ok', [*L], [], "ok"),
    case('LORA010-below', [*L, '--max-loaded-loras', '4'], ['LORA010'], at('LORA010')),
    case('LORA010-below-set-batch', [*L, '--max-loaded-loras', '2', '--max-loras-per-batch', '3'], ['LORA010'], at('LORA010')),
    case('LORA010-ok-equal', [*L, '--max-loaded-loras', '8'], [], "ok"),
    case('LORA010-ok-lora-off', ['--max-loaded-loras', '4'], [], "ok"),
    case('LORA011-paths', [*P, 'b=/loras/b', 'c=/loras/c', '--max-loras-per-batch', '2', '--max-loaded-loras', '2'], ['LORA011'], at('LORA011')),
    case('LORA011-ok', [*P, 'b=/loras/b', '--max-loras-per-batch', '2', '--max-loaded-loras', '2'], [], "ok"),
    case('LORA013-negative', [*L, '--lora-drain-wait-threshold', '-0.5'], ['LORA013'], at('LORA013')),
    case('LORA013-nan', [*P, '--lora-drain-wait-threshold', 'nan'], ['LORA013'], at('LORA013')),
    case('LORA013-ok-zero', [*P, '--lora-drain-wait-threshold', '0'], [], "ok"),
    case('LORA013-ok-lora-off', ['--lora-drain-wait-threshold', '-1'], [], "ok"),
    case('LORA014-draft-lora', ['--speculative-algorithm', 'EAGLE', '--speculative-moe-runner-backend', 'lora_triton'], ['LORA014'], at('LORA014')),
    case('LORA014-draft-lora-marlin', [*P, '--speculative-algorithm', 'EAGLE', '--speculative-moe-runner-backend', 'lora_marlin'], ['LORA014'], at('LORA014')),
    case('LORA014-ok-no-spec', ['--speculative-moe-runner-backend', 'lora_triton'], [], "ok"),
    case('LORA014-ok-inherited', [*P, *R, '--speculative-algorithm', 'EAGLE'], [], "ok"),
    case('LORA015-no-lora', ['--moe-runner-backend', 'lora_triton'], ['LORA015'], at('LORA015')),
    case('LORA015-cutedsl', ['--moe-runner-backend', 'lora_cutedsl', *V2], ['LORA015'], at('LORA015')),
    case('LORA016-csgmv', [*P, '--moe-runner-backend', 'lora_triton'], ['LORA016'], at('LORA016')),
    case('LORA016-triton', [*L, '--moe-runner-backend', 'lora_marlin', '--lora-backend', 'triton'], ['LORA016'], at('LORA016')),
    case('LORA016-ok', [*P, *R], [], "ok"),
    case('LORA025-attn-dp', ['--tp', '8', '--attn-dp-size', '2', *P, *R], ['LORA025'], at('LORA025')),
    case('LORA025-tbo', ['--tp', '8', '--attn-dp-size', '8', '--enable-two-batch-overlap', *P, *R], ['LORA025'], at('LORA025')),
    case('LORA025-ok-modes-removed', ['--tp', '8', *P, *R], [], "ok"),
    case('LORA017-w8a8', [*P, *R, '--quantization', 'w8a8_int8'], ['LORA017'], at('LORA017'), model='qwen3-moe'),
    case('LORA017-ok-fp8', [*P, *R, '--quantization', 'fp8'], [], "ok"),
    case('LORA018-nvfp4', [*P, *R, '--quantization', 'modelopt_fp4'], ['LORA018'], at('LORA018')),
    case('LORA018-ok-marlin', [*P, '--moe-runner-backend', 'lora_marlin', *V2, '--quantization', 'modelopt_fp4'], [], "ok"),
    case('LORA019-deepep', ['--tp', '8', *P, *R, '--moe-a2a-backend', 'deepep'], ['LORA019'], at('LORA019')),
    case('LORA019-waterfill', ['--tp', '8', *P, *R, '--enable-waterfill'], ['LORA019'], at('LORA019')),
    case('LORA019-ok-none', ['--tp', '8', *P, *R, '--moe-a2a-backend', 'none'], [], "ok"),
    case('LORA020-join', ['--tp', '8', *P, *R, '--elastic-ep-backend', 'mooncake', '--elastic-ep-join-mode', 'recover'], ['LORA020'], at('LORA020')),
    case('LORA021-redundant', ['--tp', '8', '--ep-size', '8', *P, *R, '--ep-num-redundant-experts', '8'], ['LORA021'], at('LORA021')),
    case('LORA021-eplb', ['--tp', '8', '--ep-size', '8', *P, *R, '--enable-eplb'], ['LORA021'], at('LORA021')),
    case('LORA021-location', ['--tp', '8', '--ep-size', '8', *P, *R, '--init-expert-location', '{"layer": 0}'], ['LORA021'], at('LORA021')),
    case('LORA021-ok-trivial', ['--tp', '8', '--ep-size', '8', *P, *R, '--init-expert-location', 'trivial', '--ep-num-redundant-experts', '0'], [], "ok"),
    case('LORA017-gguf', [*P, *R, '--quantization', 'gguf'], ['LORA017'], at('LORA017'), model='qwen3-moe'),
    case('LORA017-ok-none-qwen', [*P, *R], [], "ok", model='qwen3-moe'),
    case('LORA025-pdmux', [*L, *R, '--enable-pdmux', '--chunked-prefill-size', '-1', '--disable-overlap-schedule'], ['LORA025'], at('LORA025')),
    case('LORA015-enable-false-config', [*R], ['LORA015'], at('LORA015')),
    case('LORA002-ok-lora-runner-path', [*P, *R, '--tp', '8'], [], "ok"),
    case('LORA004-fix-too-many-paths', ['--lora-paths', 'a=/l/a', 'b=/l/b', 'c=/l/c', '--max-loras-per-batch', '1', '--enable-lora-overlap-loading'], ['LORA004'], raised_at("LORA004")),
    case('LORA010-overlap', [*L, '--enable-lora-overlap-loading', '--max-loaded-loras', '4'], ['LORA010'], at('LORA010')),
    case('LORA022-then-LORA009', ['--enable-lora', '--speculative-algorithm', 'STANDALONE'], ['LORA022', 'LORA009'], at('LORA022')),
    case('LORA003-then-LORA002', ['--tp', '8', '--attn-dp-size', '2', *P, *V2, '--max-loras-per-batch', '0'], ['LORA003', 'LORA002'], at('LORA003')),
    case('LORA010-then-LORA019', ['--tp', '8', *L, *R, '--moe-a2a-backend', 'deepep', '--max-loaded-loras', '1'], ['LORA010', 'LORA019'], at('LORA010')),
]

# Verdicts of the oracle that autofix matches once the speculative derivations are in (handle_speculative_decoding:
# adaptive turned off, a warning there, SPEC097; NEXTN read as EAGLE): add them to CASES with that family's rules
SPECULATIVE = [
    case("LORA023-ok-ngram-adaptive", [*P, "--speculative-algorithm", "NGRAM", "--speculative-adaptive"], ["SPEC097"],
         "ok"),
    case("LORA023-ok-adaptive-topk2", [*P, "--speculative-algorithm", "EAGLE", "--speculative-adaptive",
                                       "--speculative-num-steps", "3", "--speculative-eagle-topk", "2",
                                       "--speculative-num-draft-tokens", "4"], ["SPEC097"], "ok"),
    case("LORA023-ok-adaptive-dflash", [*P, "--speculative-algorithm", "DFLASH", "--speculative-draft-model-path",
                                        "org/draft", "--speculative-adaptive"], ["SPEC097"], "ok"),
    case("LORA023-nextn-adaptive", [*P, "--speculative-algorithm", "NEXTN", "--speculative-adaptive"], ["LORA023"],
         at("LORA023")),
]

CASES += SPECULATIVE
