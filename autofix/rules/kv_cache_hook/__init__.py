"""SGLang's ``arg_groups/kv_cache_hook.py`` (0.5.23): one module per step."""
