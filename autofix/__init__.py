"""autofix: find SGLang server configurations SGLang would refuse, and fix them.

Library use::

    from autofix.core.api import fix_source
    from autofix.adapters import yaml_config
    result = fix_source(text, yaml_config, path="config.yaml")
    result.diagnostics, result.output
"""

__version__ = "0.1.0"
