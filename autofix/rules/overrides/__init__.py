"""SGLang's ``arg_groups/overrides.py`` (0.5.23): its post-process passes that are pipeline steps, one module each."""
