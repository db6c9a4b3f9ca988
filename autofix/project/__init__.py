"""Project configuration: ``[tool.autofix]`` in ``pyproject.toml`` or ``autofix.toml``, found and read as ruff does.

- ``configuration``: discovery (the file that configures each checked file) and the settings a file is checked
  with, the command line over the file (``Resolver``);
- ``reading``: one configuration file read and checked (``load``);
- ``keys``: every key, its type, check, default and how the command line combines with it (``KEYS``);
- ``globs``: ``exclude`` and ``per-file-ignores`` patterns (gitignore-like);
- ``toml_positions``: where a key is written, for an error's line and column.

May import: ``autofix.common``, ``autofix.disk``, ``autofix.schema``, ``autofix.pipeline.facts`` (the GPU
table), ``autofix.core.policy``, and the names ``autofix.rules`` and ``autofix.report`` define (rule codes,
output formats).
"""
