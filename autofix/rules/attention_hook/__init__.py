"""SGLang's ``arg_groups/attention_hook.py`` (0.5.23): one module per step."""
