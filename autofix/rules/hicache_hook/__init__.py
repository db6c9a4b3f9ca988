"""SGLang's ``arg_groups/hicache_hook.py`` (0.5.23): one module per step."""
