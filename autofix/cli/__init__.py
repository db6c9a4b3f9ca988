"""The command line and the run: ``autofix PATH...`` from its arguments to its exit code.

- ``main``: the console script; a plain ``autofix PATH...`` runs without typer;
- ``commands``: the typer commands (``check``, ``rules``, ``explain``, ``server``...);
- ``checking``: from the command line's options and the project configuration to a run;
- ``runner``: check or fix a list of paths, report them, write the fixed files;
- ``inputs``: the files of a run, in order, each once;
- ``workers``: ``-j``: the files of a long run checked in worker processes;
- ``add_ignores``: ``--add-ignores``.

May import every other package; nothing imports it.
"""
