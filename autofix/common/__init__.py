"""What every package shares: the vocabulary of a check, with no logic of its own beyond it.

- ``diagnostics``: ``UNKNOWN``, locations, fixes and their ops, violations, diagnostics;
- ``edits``: text edits at character spans, and the changes they make;
- ``diffs``: the unified diff of a change (loaded only when a diff is printed);
- ``arguments``, ``argtypes``: command-line words read into explicit SGLang settings, as argparse reads them;
- ``written``: how one file's settings of a launch are written (what the argparse-stage rules read);
- ``suppressions``: ``# autofix: ignore[...]`` comments;
- ``filenames``: what a file's name says it is (YAML, a Dockerfile, a shell script), without looking at the disk;
- ``escapes``: how a name or a message is shown when it holds control characters or is not UTF-8;
- ``errors``: the exceptions autofix raises; ``limits``: the bounds on what it reads.

May import: ``autofix.schema`` (the argument table) and nothing else of autofix.
"""
