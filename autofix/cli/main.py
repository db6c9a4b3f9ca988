"""The ``autofix`` console script: ``main``.

Most runs are ``autofix PATH...`` (a pre-commit hook, a CI step), and importing typer and click to parse
them was a fifth of a one-file start-up (issue 15). So a command line of paths only is run here, with
every option at its default, without loading them; anything else (an option, a sub-command, no argument,
a usage or configuration error to word) goes to the typer commands of ``autofix.cli.commands``, which give
the same output and exit code for a plain run. ``tests/test_cli_fast.py`` holds the two paths together:
the defaults of ``check``'s options are ``Request``'s, and both paths print the same bytes.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from typing import NoReturn

from autofix.common.errors import ConfigError, OutputError, ReaderLeft, UsageError

# The sub-commands of ``autofix.cli.commands.app`` (a test checks the two agree): a first word naming one is
# not a path
COMMANDS = ("check", "rules", "explain")


def _paths_only(args: list[str]) -> bool:
    """``args`` is ``autofix PATH...``: at least one word, none an option (``-`` alone is stdin, a path to
    click too), the first no sub-command; and no shell-completion request (click answers those), and not on
    Windows (where click expands wildcards in the arguments)."""
    return (bool(args) and args[0] not in COMMANDS and all(a == "-" or not a.startswith("-") for a in args)
            and "_AUTOFIX_COMPLETE" not in os.environ and os.name != "nt")


def _check_paths(paths: list[str]) -> int | None:
    """Run ``autofix check PATHS`` as the typer command would, with every option at its default; the exit
    code, or None when the command line is refused (the typer command words the error)."""
    try:
        # The imports make most of the objects this process will hold, and all of them live until it exits: the
        # collector walking them again and again while they load, and once more at exit, was 6% of a one-file
        # run (issue 15). So it waits, then leaves them out of its walks (gc.freeze) and runs as usual for
        # the files' objects. (-j workers inherit them frozen too, which keeps their pages shared.)
        gc.disable()
        try:
            from autofix.cli.checking import Request, prepare

            _printable_streams(paths)
        finally:
            gc.freeze()
            gc.enable()

        try:
            job = prepare(Request(paths=paths), env=os.environ, stdout=sys.stdout, stderr=sys.stderr)
        except (UsageError, ConfigError):
            return None
        return job.run(stdin=_stdin())
    except KeyboardInterrupt:  # Ctrl-C: 130, as click exits on it
        return 130


def _run(args: list[str], fast_exit: bool) -> None:
    """Run the command line ``args`` (``sys.argv[1:]``); always ends in ``SystemExit``, or with ``fast_exit``
    in ``_exit_now`` once a command line of paths is checked."""
    if _paths_only(args):
        code = _check_paths(args)
        if code is not None:
            if fast_exit:
                _exit_now(code)
            raise SystemExit(code)
    _printable_streams(args)
    from autofix.cli.commands import app

    app(args=args, prog_name="autofix")


def _exit_now(code: int) -> NoReturn:
    """End the process with ``code`` once the report is out, without tearing the interpreter down.

    Nothing is left to do then: every file is written and closed, the workers (``-j``) are shut down, and
    the streams are flushed here, where a failure is ``main``'s to report as any other write's (``ReaderLeft``,
    ``OutputError``). What a normal exit would add is the modules' teardown and the collector's last passes
    over the objects the imports made: 3% of a one-file run (``bench/``). mypy's command line ends so too
    (``util.hard_exit``, its ``--fast-exit``).
    """
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    os._exit(code)


def _terminated(signum: int, frame) -> None:
    """SIGTERM stops the run as Ctrl-C does: once a write in progress is done (``files.SignalsHeld``)."""
    raise SystemExit(128 + signum)


def _quiet_stdout() -> None:
    """Point fd 1 at /dev/null, so the interpreter's last flush of a broken stdout says nothing."""
    _quiet(1)
    sys.stdout = None


def _quiet_stderr() -> None:
    """The same for fd 2 (after a broken pipe, which may be stderr's too: ``2>&1 | head``)."""
    _quiet(2)
    sys.stderr = None


def _quiet(fd: int) -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
    except OSError:
        pass


def _stdin():
    """The process's stdin as bytes, or None when it is closed (``sys.stdin`` is None when fd 0 was): it matters
    only when ``-`` is read (``reads.read_stdin``: one error line, exit 2)."""
    return getattr(sys.stdin, "buffer", None)


def _in_actions(args: list[str]) -> bool:
    """Whether what is printed goes to a GitHub Actions log (``GITHUB_ACTIONS=true``), or is meant for one (the
    github format asked for on the command line or in ``AUTOFIX_OUTPUT_FORMAT``)."""
    return (os.environ.get("GITHUB_ACTIONS") == "true" or os.environ.get("AUTOFIX_OUTPUT_FORMAT") == "github"
            or "--output-format=github" in args
            or any(a == "--output-format" and b == "github" for a, b in zip(args, args[1:])))


def _printable_streams(args: list[str]) -> None:
    """stdout and stderr print a character their encoding cannot hold (an ASCII locale, ``PYTHONIOENCODING``)
    as its backslash escape, and a byte of a file name that is not UTF-8 as ``\\xNN``, instead of failing
    the run after ``--write`` has written its files (``common.escapes``); and whatever is printed on them, by
    autofix, click or Python, is guarded in a GitHub Actions log, and fails as one ``OutputError`` or
    ``ReaderLeft`` (``report.stream.install``)."""
    from autofix.common.escapes import ERRORS
    from autofix.report.stream import install

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors=ERRORS)  # type: ignore[union-attr]  # a TextIOWrapper's; anything else: below
        except (AttributeError, ValueError, OSError):  # None, closed, or not a text file (replaced)
            pass
    install(_in_actions(args))


def _say(text: str) -> None:
    """``text`` as one line on stderr (``escapes.visible``), if stderr can still take it."""
    try:
        from autofix.common.escapes import visible

        sys.stderr.write(visible(text) + "\n")
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - stderr closed or gone too: nothing is left to say it on
        pass


def main(*, fast_exit: bool = False) -> None:
    """Run ``autofix`` with ``sys.argv``; ends in ``SystemExit`` with the exit code (``fast_exit``: a command
    line of paths ends the process itself, ``_exit_now``, as the console script does: ``console_entry``).

    A failure outside any one file (each file has its own guard in
    ``runner.run``) is one error line and exit 2; ``--verbose`` adds its
    traceback. A report that cannot be written (stdout closed or full) is
    one error line and exit 2; a reader that left (a broken pipe:
    ``autofix . | head``) stops the run quietly with 141, the status of a
    process SIGPIPE ends; a character stdout's encoding cannot hold is not
    a failure (``_printable_streams``). Ctrl-C exits 130 and SIGTERM 143,
    once a write in progress is done (never half done).
    """
    signal.signal(signal.SIGTERM, _terminated)
    try:
        _run(sys.argv[1:], fast_exit)
    except ReaderLeft:  # `autofix dir | head`: the reader left on purpose; the files are as the lines before said
        _quiet_stdout()
        _quiet_stderr()
        raise SystemExit(128 + signal.SIGPIPE) from None
    except OutputError as exc:  # stdout closed or full: the files are as the lines before said
        _quiet_stdout()
        _say(f"autofix: {exc}")
        raise SystemExit(2) from None
    except Exception as exc:  # noqa: BLE001 - last resort: never a bare traceback
        if "--verbose" in sys.argv[1:]:
            import traceback

            for line in traceback.format_exc().splitlines():
                _say(line)
        how = "" if "--verbose" in sys.argv[1:] else "; --verbose shows the traceback"
        _say(f"autofix: internal error: {type(exc).__name__}: {exc} (please report this{how})")
        raise SystemExit(2) from None


def console_entry() -> None:
    """The ``autofix`` console script and ``python -m autofix``: ``main``, ending the process itself once a
    command line of paths is checked (``fast_exit``). A caller that runs ``main`` in its own process gets
    ``SystemExit`` back instead."""
    main(fast_exit=True)
