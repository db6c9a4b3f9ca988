"""How much autofix reads: the bounds that keep every run finite and small.

Each limit is checked before the work it bounds, and crossing one is an
``InputError`` at the place it was crossed (exit 2, the file untouched),
never a hang, a memory blow-up or a traceback. SGLang itself has no such
bounds (it would spend minutes and gigabytes on an alias bomb, then fail);
these are set far above any real configuration, manifest or script.
"""

from __future__ import annotations

# Bytes read from one file or from stdin. A real SGLang config, launch script
# or manifest is a few KB; the largest recipes seen are ~10 KB.
MAX_BYTES = 64 * 1024 * 1024

# YAML values (scalars, lists, mappings) in one file once aliases are
# expanded: bounds alias bombs ("billion laughs") and the memory of the node
# tree (~1 KB per value through the whole check). Checked by
# adapters/syntax/yaml_limits.py before libyaml composes the file (a merge key counts
# as the alias it is, so merged pairs are bounded too).
MAX_YAML_NODES = 200_000

# Nesting of YAML collections. SGLang reads --config with yaml.safe_load
# (PyYAML's pure-Python loader), which fails with RecursionError at about 490
# levels (measured with the oracle: 487 read, 491 refused); libyaml's C
# composer, which autofix uses, overflows the C stack far deeper (PyYAML
# 6.0.3 segfaults at ~100 000 levels; 6.0.4's libyaml refuses 1000). Counted
# through aliases too, so that any walk over the composed graph nests at most
# this deep: well inside Python's default recursion limit of 1000.
MAX_YAML_DEPTH = 400

# Dotted parts in one TOML key or table name (``a.b.c = 1``, ``[tool.autofix]``)
# of a configuration file autofix parses. tomllib's time grows with the square
# of a key's parts and with a table name's parts times its keys' (20 000 parts
# ran past a minute); real keys have a few. Checked by project.load before
# tomllib reads the file.
MAX_TOML_KEY_PARTS = 64

# Bytes (UTF-8) of one shell script autofix parses: a script file, a `bash -c` word, a Dockerfile's RUN, CMD or
# ENTRYPOINT script, a manifest's `sh -c` script or a compose command string. tree-sitter-bash keeps ~150-250
# bytes of parse tree per byte of a dense script (`a` on each line: three nodes per two bytes), and autofix walks
# the tree a few times (the repairs, the commands, each re-read): ~0.4 s and ~300 MB per MiB at worst. Real
# launch scripts are a few KB; a larger script is refused at the first byte past the bound (checked by
# adapters/syntax/shell_tree.py before tree-sitter parses it).
MAX_SHELL_BYTES = 1024 * 1024

# Depth of a shell script's parse tree (tree-sitter-bash's nodes: a `{ ...; }` or `( ... )` is one level, a
# `$( ... )` two, a `"$( ... )"` three, each `&&` or `||` of a chain one). tree-sitter answers a node's parent or
# sibling in time growing with its depth, and a command's text holds the text of every command nested in it, so
# deep nesting costs its depth times the script's size. Real scripts nest a few levels (the deepest seen: ~10);
# bash itself refuses ~5 000 nested `{` and overflows its stack at ~2 000 nested `"$(`. Checked by
# adapters/syntax/shell_tree.py on the first parse, at the first node past it.
MAX_SHELL_DEPTH = 1000

# Unknown option spellings of one file that get close spellings ("did you mean"; rule ARG001). difflib compares
# a spelling with each of SGLang's ~560 options, ~0.3 ms a spelling: a config of 50 000 unknown keys spent 15 s
# there. A file's first spellings (in the order its launches are checked; each counted once) get them, the others
# are reported as unknown only. Real files hold a few typos.
MAX_SUGGESTED_SPELLINGS = 1000

# Bytes (UTF-8) and lines of one Dockerfile, checked by adapters/syntax/dockerfile_syntax.py before BuildKit reads
# it. The parser (the `dockerfile` package) spends time growing with the square of an instruction's lines (its
# continuation lines, its heredoc's body: 200 000 lines took 20 s), and autofix ~30 µs and ~2.5 KB on each
# instruction (1 MiB of `RUN a` lines: 5 s, 500 MB). At these bounds the worst is ~0.5 s and ~130 MB. Real
# Dockerfiles are a few KB and a few hundred lines; BuildKit itself refuses a line over 64 KiB.
MAX_DOCKERFILE_BYTES = 256 * 1024
MAX_DOCKERFILE_LINES = 10_000
