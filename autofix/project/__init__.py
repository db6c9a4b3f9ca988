"""Project configuration: ``[tool.autofix]`` in ``pyproject.toml`` or ``autofix.toml``, found and read as ruff does.

- ``configuration``: discovery, every key and its checks, and the settings a file is checked with;
- ``globs``: ``exclude`` and ``per-file-ignores`` patterns (gitignore-like);
- ``toml_positions``: where a key is written, for an error's line and column.

May import: ``autofix.common``, ``autofix.disk``, ``autofix.schema``, ``autofix.pipeline.facts`` (the GPU
table), ``autofix.core.policy``, and the names ``autofix.rules`` and ``autofix.report`` define (rule codes,
output formats).
"""
