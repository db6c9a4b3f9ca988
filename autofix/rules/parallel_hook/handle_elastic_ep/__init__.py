"""``handle_elastic_ep`` (``arg_groups/parallel_hook.py:519``, 0.5.23): elastic EP, its join modes and runtime
scale-up, one module per part of the hook: the backend and join checks, then runtime scale-up's, in the hook's order
(the attention topology, what it does not run with, the joining group, the deployment, the CUDA graphs, the parallel
layout); what they share in ``common``."""
