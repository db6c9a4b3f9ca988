"""The command line and the run: ``autofix PATH...`` from its arguments to its exit code.

- ``main``: the console script; a plain ``autofix PATH...`` runs without typer;
- ``commands``: the typer commands (``check``, ``rules``, ``explain``, ``server``...);
- ``checking``: from the command line's options and the project configuration to a run;
- ``runner``: check or fix a list of paths, report them, write the fixed files (``runner.run``);
- ``run_options``: what a run is asked for (``Mode``, ``Output``, ``FileOptions``, ``Checks``, ``Stdin``,
  ``Exits``); ``run_report``: what it did (``Report``, the exit code);
- ``one_file``: one path of a run: read, check, report, write;
- ``triage``: what a run makes of a file that is no SGLang input or could not be checked;
- ``config_files``: the ``--config`` files of a run on this host (the core's ``ConfigReader`` of a
  ``FileSet``, the files several launches read);
- ``inputs``: the files of a run, in order, each once;
- ``workers``: ``-j``: the files of a long run checked in worker processes;
- ``add_ignores``: ``--add-ignores``.

May import every other package; nothing imports it.
"""
