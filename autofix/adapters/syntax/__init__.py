"""The syntax the adapters read, to the character: bash words, Dockerfile instructions, YAML nodes, quoted
strings, and a host text seen as the text a program receives (``text_view``).

- bash: ``shell_tree`` (tree-sitter-bash's tree, repaired to read as bash does), ``shell_syntax`` (the simple
  commands and their words off it), ``shell_words`` (a word's value, and the text back from it);
- Dockerfiles: ``dockerfile_syntax`` (the file, through BuildKit's parser), ``dockerfile_instruction`` (one
  instruction to the character), ``dockerfile_exec`` (an exec form Docker does not read as one);
- YAML: ``yaml_loader`` (SGLang's loader and its positions), ``yaml_limits`` (the bounds held before composing),
  ``yaml_nodes`` (the composed nodes and the reading ``yaml.safe_load`` makes of them);
- ``strings``: a YAML scalar or a JSON string literal viewed as its decoded text.

May import: ``autofix.common``.
"""
