"""``handle_elastic_ep`` (``arg_groups/parallel_hook.py:519``, 0.5.23): elastic EP, its join modes and runtime
scale-up, in three modules: the backend and join checks, runtime scale-up, and scale-up's CUDA graphs."""
