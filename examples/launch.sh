#!/usr/bin/env bash
# Marlin MoE runner with DeepEP: SGLang refuses this at start-up.
set -euo pipefail

CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 python3 -m sglang.launch_server \
  --model-path deepseek-ai/DeepSeek-V3 \
  --tp 8 \
  --moe-runner-backend experimental_sgl_marlin \
  --moe-a2a-backend deepep \
  --ep-dispatch-algorithm static \
  --port 30000
