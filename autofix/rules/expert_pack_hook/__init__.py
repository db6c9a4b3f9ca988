"""SGLang's ``arg_groups/expert_pack_hook.py`` (0.5.23): one module per step."""
