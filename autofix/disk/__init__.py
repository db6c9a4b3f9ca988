"""Every read and write of a file or a stream (besides ``cli.main``'s own exit paths).

- ``files``: reading a path or stdin once, bounded; walking directories; the project's scope (``Scope``);
- ``writes``: replacing a file with its fixed text atomically, or not at all.

May import: ``autofix.common``.
"""
