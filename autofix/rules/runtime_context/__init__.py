"""SGLang's ``runtime_context.py`` (0.5.23): the runtime context the resolved arguments are published into."""
