"""SGLang's ``arg_groups/mega_moe_hook.py`` (0.5.23): one module per step."""
