"""The core: one text checked and fixed, without touching the disk.

- ``api``: ``fix_source``, the entry point (read -> argparse stage -> settings stage -> fixpoint -> edits ->
  read back), and ``FixResult``;
- ``engine``: checking a launch's settings and applying the fixes, to a fixpoint;
- ``proposals``, ``fix_edits``: the text edits the fixes ask for, settled together and placed;
- ``merge``: a shell launch and the ``--config`` file it names, read as one launch;
- ``screen``, ``policy``: which violations a run keeps (``--select``, suppressions) and which fixes it applies.

May import: ``autofix.common``, ``autofix.schema``, ``autofix.adapters``, ``autofix.pipeline``,
``autofix.rules``.
"""
