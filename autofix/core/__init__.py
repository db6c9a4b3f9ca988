"""The core: one text checked and fixed, without touching the disk.

- ``api``: ``fix_source``, the entry point (read -> argparse stage -> settings stage -> fixpoint -> edits ->
  read back), one module per step:
- ``options``: what a call is given (``FixOptions``, the caller's ``ConfigReader``) and what its stages share;
- ``argparse_stage``: how the settings are written, fixed in place and re-read, to a fixpoint;
- ``configs``: the ``--config`` files the launches of a text read (``ConfigFiles``); ``merge``: a shell
  launch and its ``--config`` file read as one launch;
- ``settings_stage``: each launch's settings through SGLang's resolution steps, to a fixpoint;
- ``engine``: checking a launch's settings and applying the fixes; the one fixpoint loop (``fixpoint``);
- ``proposals``, ``fix_edits``: the text edits the fixes ask for, settled together and placed;
- ``readback``: the fixed texts read back; ``results``: ``FixResult`` and the diagnostics put together;
- ``screen``, ``policy``: which violations a run keeps (``--select``, suppressions) and which fixes it applies.

Nothing here reads the disk (``tests/test_core_boundaries.py``).

May import: ``autofix.common``, ``autofix.schema``, ``autofix.adapters``, ``autofix.pipeline``,
``autofix.rules``.
"""
