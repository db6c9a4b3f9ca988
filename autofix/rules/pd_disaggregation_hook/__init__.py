"""SGLang's ``arg_groups/pd_disaggregation_hook.py`` (0.5.23): one module per step."""
