"""``handle_moe_kernel_config`` (``arg_groups/moe_hook.py:71``, 0.5.23): the runner, by quantization, and what each
runner supports, in two modules as the hook has two parts: the quantization pass it runs first, then the runners'
compatibility asserts and fusion writes."""
