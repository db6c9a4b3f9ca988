"""The syntax the adapters read, to the character: bash words, Dockerfile instructions, YAML nodes, quoted
strings, and a host text seen as the text a program receives (``text_view``).

May import: ``autofix.common``.
"""
