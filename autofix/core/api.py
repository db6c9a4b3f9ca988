"""The library's entry point: check and fix one text, without touching the disk (``fix_source``).

``fix_source`` mirrors black's ``format_file_contents``: no side effects, and it checks its own output by
reading it back before anyone writes it. It runs the pipeline, one module per step: the adapter reads the
text; the argparse stage (``argparse_stage``) fixes how the settings are written, to a fixpoint; the settings
stage (``settings_stage``) runs each launch's settings through SGLang's resolution steps to a fixpoint
(``engine``) and settles the edits; the edited texts are read back (``readback``); the diagnostics are put
together (``results``).

A shell launch with ``--config FILE`` is one launch with that file, merged as SGLang merges them
(``autofix.core.merge``); ``fix_source`` reaches the file only through the ``ConfigReader`` it is given
(``config_reader``), and returns the file's new text as one of ``FixResult.others``. The file's argparse stage is
checked as the file alone is (its keys judged as config keys, once per file); the settings stage runs on the
merged launch, and each diagnostic and each fix goes to the file that holds the effective value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from autofix.common.diagnostics import Diagnostic
from autofix.common.filenames import is_yaml
from autofix.core import argparse_stage, readback, settings_stage
from autofix.core.argparse_stage import ArgStage
from autofix.core.configs import ConfigFiles
from autofix.core.options import DEFAULT_OPTIONS, Checking, ConfigReader, FixOptions, Withheld, joined
from autofix.core.results import FixResult, Unread, changes, in_order
from autofix.core.screen import FileScreen

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter
    from autofix.core.settings_stage import Settled

__all__ = ["ConfigReader", "FixOptions", "FixResult", "Unread", "Withheld", "config_files", "fix_source"]


def fix_source(text: str, adapter: Adapter, *, path: str = "-", options: FixOptions = DEFAULT_OPTIONS,
               config_reader: ConfigReader | None = None) -> FixResult:
    """Check every launch in ``text`` (the file at ``path``, read by ``adapter``) and apply the fixes at the
    level ``options`` asks for.

    Two stages, as SGLang runs them: first how the settings are written (argparse and ``--config`` reading:
    spellings, choices, repeats), fixed in place and re-read until nothing changes; then the settings SGLang
    resolves from the corrected text. ``options`` (``FixOptions``): the target SGLang release, the facts, the
    policy (which rules are reported and how safe their fixes are; a finding that a suppression comment of its
    file covers, ``autofix.common.suppressions``, is neither reported nor fixed, and a comment that covers
    nothing is reported: SUP001, with a fix that removes it), whether each fix's edits are placed on their
    own, whether a text that is no SGLang config is checked.

    ``config_reader`` (``ConfigReader``) reaches the ``--config FILE`` a shell launch names (FILE relative to
    ``path``'s directory). When it gives a text that reads as an SGLang config, the launch is checked as SGLang
    runs it: the file's settings, overridden by the command line's; the file's new text is in
    ``FixResult.others``. Otherwise (no ``config_reader``, ``path`` is ``-``, FILE is a shell expansion, not
    ``.yaml``/``.yml``, missing) every setting the command line does not write is UNKNOWN, and the rules that
    read one stay silent; a file that is there but does not read as a config SGLang accepts (invalid YAML, not
    a mapping; not UTF-8 text, which ``config_reader.read`` says by raising ``InputError``) is unknown too, and
    is in ``FixResult.errors``. So is, with a note in ``FixResult.unread``, a file ``config_reader.read``
    withholds (``Withheld``: outside the project, excluded, a FIFO) and the file of a launch run in a container
    (``Launch.elsewhere``: ``docker run IMAGE ...``), which is never asked for: FILE is the container's. A file
    is known by its identity (``config_reader.identity``; a symlink and its target are one file, reported under
    the first name a launch used). A file several launches read -- of this text, or of other texts
    (``config_reader.shared``) -- is not edited by the settings stage: its fixes are written on each command
    line (a removal there cannot be, and is reported as not applied).

    Raises ``InputError`` for unreadable input and ``InternalError`` when an edited text does not read back
    as intended.
    """
    screen = FileScreen(options.policy, config_reader.policy if config_reader is not None else None, main=path)
    checking = Checking.of(options, screen)
    configs = ConfigFiles(config_reader, adapter, path, checking)
    arg_stage = argparse_stage.run(text, adapter, path, checking, configs, options.check_non_configs)
    if not arg_stage.is_config and not options.check_non_configs:  # a workflow, a Helm values file: not checked
        return FixResult(path, adapter.NAME, text, text, (), (), len(arg_stage.launches), is_config=False)
    launches = [configs.launched(launch) for launch in arg_stage.launches]  # merged with their --config files
    unread = configs.notes(arg_stage.launches, arg_stage.locator(text))
    settled = settings_stage.run(text, adapter, path, checking, arg_stage, launches, configs)  # each to a fixpoint
    output, outputs = settled.apply()  # the edits: the text's, its --config files' (name -> text)
    readback.verify(settled, output, outputs)
    return _result(text, output, outputs, arg_stage, settled, unread, screen)


def _result(text: str, output: str, outputs: dict[str, str], arg_stage: ArgStage, settled: Settled,
            unread: tuple[Unread, ...], screen: FileScreen) -> FixResult:
    """The ``FixResult`` of ``text``, fixed as ``output`` (its ``--config`` files as ``outputs``): the two stages'
    diagnostics, each in the file it points into, each once; the suppression comments of each file judged."""
    configs, path, level, schema = settled.configs, settled.path, settled.checking.level, settled.checking.schema
    found, left, conflicts = settled.found()
    diagnostics: list[Diagnostic] = [*arg_stage.diagnostics, *found]
    remaining: list[Diagnostic] = [*arg_stage.remaining, *left]
    files = []
    reader = configs.adapter  # (None: no file was read)
    for p, c in configs.files.items():
        if c is None or reader is None:
            continue
        config = FixResult(p, reader.NAME, c.source, outputs[p],
                           in_order(c.written.diagnostics + [d for d in diagnostics if d.path == p]),
                           in_order(c.written.remaining + [d for d in remaining if d.path == p]), 0,
                           tuple(c.written.conflicts), changes=changes(c.written.chain, c.edits))
        files.append(screen.settle(config, level, reader, schema))
    # launches that read the same text (a sweep's variants) find the same things there: say each once
    result = FixResult(path, settled.adapter.NAME, text, output, in_order([d for d in diagnostics if d.path == path]),
                       in_order([d for d in remaining if d.path == path]), len(settled.launches),
                       tuple(dict.fromkeys([*arg_stage.conflicts, *conflicts])),
                       arg_stage.is_config, tuple(files),  # judged as written, whatever the fixes drop
                       tuple(configs.errors.values()), changes(arg_stage.chain, settled.edits), unread)
    return screen.settle(result, level, settled.adapter, schema)


def config_files(text: str, adapter: Adapter, *, path: str, options: FixOptions = DEFAULT_OPTIONS,
                 place: Callable[[str, str], str] = joined) -> list[str]:
    """The ``--config`` file of each launch in ``text`` that reads one, as ``fix_source`` would look it up.

    One path per launch (``place(path, FILE)``, as ``ConfigReader.read`` is given it; a file two launches read
    is listed twice; none for a launch run in a container, whose file is the container's), for the launches as
    they stand after the argparse-stage fixes (so ``--config=FILE``, which CFG005 fixes, counts). A caller that
    checks several texts counts these, by identity, to find the files read by more than one launch of the run
    (``ConfigReader.shared``). Raises ``InputError`` for unreadable input.
    """
    if adapter.CONFIG_FILES is None or path == "-":
        return []
    # the files are not read here: a launch's settings not on its command line are unknown
    checking = Checking.of(FixOptions(unsafe=True, schema=options.schema, others=options.others), None)
    arg_stage = argparse_stage.run(text, adapter, path, checking, ConfigFiles(None, adapter, path, checking))
    out = []
    for launch in arg_stage.launches:
        ref = adapter.config_argument(launch)
        if ref is not None and ref.path is not None and is_yaml(ref.path) and launch.elsewhere is None:
            out.append(place(path, ref.path))
    return out

