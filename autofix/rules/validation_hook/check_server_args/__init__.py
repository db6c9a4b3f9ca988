"""``check_server_args`` (``arg_groups/validation_hook.py:172``, 0.5.23): the checks SGLang makes on the final
values at Engine launch.

These run after the whole resolution pipeline, on what it resolved; only ``python -m sglang.launch_server``
(an Engine) makes them. One module per family: ``sizes_and_pipeline`` (sizes, pipeline parallelism, replicas,
two-batch overlap); the speculative, LoRA (``check_lora_server_args``, called at line 222) and PD checks each
in a module of their own; ``chunked_prefill`` (whole KV pages, KV090) and ``pdmux`` (PD-Multiplexing).
"""
