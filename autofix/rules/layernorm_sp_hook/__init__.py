"""SGLang's ``arg_groups/layernorm_sp_hook.py`` (0.5.23): one module per step."""
