"""What a run makes of a file that is no SGLang input or could not be checked: checked with which adapter
(``format_of``), passed over with a note or quietly (``passed_over``), an error or a note (``unchecked``).
One decision, shared by a check run (``runner``) and ``--add-ignores``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autofix.adapters import DOCKERFILE, LAUNCH, by_name, detect
from autofix.adapters.yaml_config import NotAConfig, looks_like_config_text
from autofix.common.errors import InputError
from autofix.common.filenames import is_yaml, launcher_kind
from autofix.disk import files
from autofix.disk.encoding import as_meant
from autofix.disk.reads import ReadError
from autofix.schema import load

if TYPE_CHECKING:
    from autofix.adapters.contract import Adapter
    from autofix.core.api import FixResult

# why a YAML file is not checked: it is no --config file, nor a manifest or recipe that launches SGLang
NOT_A_CONFIG = ("not an SGLang config (fewer than half of its top-level keys name SGLang options), nor a manifest "
                "or srt-slurm recipe that launches SGLang")


def format_of(path: str, shown: str, text: str, named: bool, stdin_format: str | None = None) -> Adapter | None:
    """The adapter that checks ``text``, the file at ``path`` (``-``: stdin, whose format ``stdin_format``
    names, if given) reported as ``shown``; None for a file passed over: a shell script or Dockerfile that
    launches no SGLang is fine (pre-commit passes every ``*.sh``). Raises ``InputError`` for a named file that
    is neither an SGLang config nor a launcher. What a check run and ``--add-ignores`` both decide."""
    if path == "-" and stdin_format:
        return by_name(stdin_format)
    adapter = detect(shown, text)
    if adapter is None:
        launcher = launcher_kind(shown) or text.startswith("#!") \
            or (path == "-" and DOCKERFILE.match(text) is not None)
        if named and not launcher:
            raise InputError(shown, 1, 1, "not an SGLang config (.yaml/.yml) and runs no SGLang launch")
    return adapter


def passed_over(result: FixResult, shown: str, named: bool) -> str | None:
    """The note for ``result``, a text that is neither an SGLang config nor launches SGLang (no false alarms):
    a line when the file was named (reported as ``shown``), else None (a walk passes it over quietly)."""
    if not named:
        return None
    why = NOT_A_CONFIG if by_name(result.format).SOURCE == "config" else "no SGLang launch found"
    return f"{shown}: skipped: {why}"


def unchecked(exc: InputError, path: str, shown: str, named: bool, text: str | None,
              adapter: Adapter | None, disk: files.FileSet) -> tuple[str, str] | None:
    """What a run makes of ``path`` (named on the command line, or met in a walk; reported as ``shown``), which
    could not be checked (``exc``; ``text`` None when it was not read as text, ``adapter`` None when none was
    found): the one decision of a check run and of ``--add-ignores``.

    - ``("error", line)``: exit 2 (and a record in a machine format's document): the file is named, or it is
      meant for SGLang as it is (YAML whose keys are mostly SGLang options, or that does not parse and launches
      SGLang, or what ``_walked`` says is an error): a CI gate must not pass it;
    - ``("note", line)``: a warning on stderr, the exit code unchanged: a named YAML file that does not read as
      a config and is none (a GitHub workflow, a playbook: pre-commit names every YAML file), or a walked file
      ``_walked`` only notes;
    - None: passed over quietly.

    ``disk``: the run's ``files.FileSet``, which reads a walked file again when it is not UTF-8 (``_walked``).
    """
    # read as an SGLang --config file (the YAML that is no recipe nor manifest)
    yaml = text is not None and adapter is not None and adapter.SOURCE == "config" and exc.path == shown
    parsed = isinstance(exc, NotAConfig)  # YAML that parses but is no mapping of strings (a workflow's `on:`)
    # YAML meant as an SGLang config: half its top-level keys name SGLang options, or it does not parse and
    # launches SGLang (a broken manifest: what it meant cannot be known, and SGLang would run it). The strings
    # of YAML that parses say nothing: a workflow's `run:` step is no --config file.
    config = yaml and text is not None and (looks_like_config_text(text, load())
                                            or (not parsed and LAUNCH.search(text) is not None))
    if yaml and not config and (parsed or exc.message.startswith("invalid YAML")):
        # a GitHub workflow, a playbook (pre-commit names every YAML file): not ours; a walk passes it quietly
        return ("note", f"{shown}: skipped: {NOT_A_CONFIG}") if named else None
    if named or config:
        return "error", str(exc)
    walked = _walked(path, text, exc, disk)
    if walked == "error":  # walked and meant for SGLang as it is (a config, a launch)
        return "error", str(exc)
    if walked == "note":  # walked: nothing is known of what it holds, or a template (Helm's)
        return "note", _skipped(exc)
    return None


def _skipped(exc: InputError) -> str:
    """The note for a walked file that is skipped: a warning (it does not change the exit code)."""
    return f"{exc.path}:{exc.line}:{exc.col}: warning: {exc.message} (skipped)"


def _walked(path: str, text: str | None, exc: InputError, disk: files.FileSet) -> str | None:
    """What a file met in a walk that could not be checked (``exc``; ``text`` None when it is not UTF-8) is:

    - ``"error"`` (exit 2, in the document) when SGLang would read it as it is: it mentions an SGLang launch
      (a script, a Dockerfile, a manifest), or it is YAML whose keys are mostly SGLang options; a file that
      is not UTF-8 text is judged on the text it most likely holds (``encoding.as_meant``: in the UTF-16 or
      UTF-32 form its first bytes name, else its ASCII words), so no encoding hides a config or a launch.
      A CI gate must not pass it, as when it is named;
    - ``"note"`` (a warning on stderr) when nothing is known of what it holds (``reads.ReadError``: not a
      regular file, no permission, too large), or it is a template that launches SGLang (``{{ }}``, a Helm
      chart's), which is not what runs until it is rendered;
    - None (passed over quietly): any other file, a script that launches nothing.

    ``disk`` reads the file again (as a walked file: within the run's bounds) when it is not UTF-8.
    """
    if isinstance(exc, ReadError):
        return "note"
    if text is None:
        try:
            text = as_meant(disk.read_bytes(path, named=False))
        except ReadError:  # gone since, or leads elsewhere now
            return "note"
        if is_yaml(path) and looks_like_config_text(text, load()):
            return "error"
    if LAUNCH.search(text) is None:
        return None
    return "note" if "{{" in text and "}}" in text else "error"
