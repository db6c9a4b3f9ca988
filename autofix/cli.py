"""The ``autofix`` console script: ``main``.

Most runs are ``autofix PATH...`` (a pre-commit hook, a CI step), and importing typer and click to parse
them was a fifth of a one-file start-up (issue 15). So a command line of paths only is run here, with
every option at its default, without loading them; anything else (an option, a sub-command, no argument,
a usage or configuration error to word) goes to the typer commands of ``autofix.commands``, which give
the same output and exit code for a plain run. ``tests/test_cli_fast.py`` holds the two paths together:
the defaults of ``check``'s options are ``Request``'s, and both paths print the same bytes.
"""

from __future__ import annotations

import gc
import os
import signal
import sys

from autofix.errors import ConfigError, OutputError, UsageError

# The sub-commands of ``autofix.commands.app`` (a test checks the two agree): a first word naming one is
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
            from autofix.checking import Request, prepare

            _printable_streams()
        finally:
            gc.freeze()
            gc.enable()

        try:
            job = prepare(Request(paths=paths), env=os.environ, stdout=sys.stdout, stderr=sys.stderr)
        except (UsageError, ConfigError):
            return None
        return job.run(stdin=sys.stdin.buffer)
    except KeyboardInterrupt:  # Ctrl-C: 130, as click exits on it
        return 130


def _run(args: list[str]) -> None:
    """Run the command line ``args`` (``sys.argv[1:]``); always ends in ``SystemExit``."""
    if _paths_only(args):
        code = _check_paths(args)
        if code is not None:
            raise SystemExit(code)
    _printable_streams()
    from autofix.commands import app

    app(args=args, prog_name="autofix")


def _terminated(signum: int, frame) -> None:
    """SIGTERM stops the run as Ctrl-C does: once a write in progress is done (``files.SignalsHeld``)."""
    raise SystemExit(128 + signum)


def _quiet_stdout() -> None:
    """Point fd 1 at /dev/null, so the interpreter's last flush of a broken stdout says nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
    except OSError:
        pass
    sys.stdout = None


def _printable_streams() -> None:
    """stdout and stderr print a character their encoding cannot hold (an ASCII locale, ``PYTHONIOENCODING``)
    as its backslash escape, and a byte of a file name that is not UTF-8 as ``\\xNN``, instead of failing
    the run after ``--write`` has written its files (``report.escapes``)."""
    from autofix.report.escapes import ERRORS

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors=ERRORS)
        except (AttributeError, ValueError, OSError):  # None, closed, or not a text file (replaced)
            pass


def main() -> None:
    """Console-script entry point.

    A failure outside any one file (each file has its own guard in
    ``runner.run``) is one error line and exit 2; ``--verbose`` re-raises it
    with its traceback. A report that cannot be written (stdout closed or
    full) is one error line and exit 2; a character stdout's encoding cannot
    hold is not a failure (``_printable_streams``). Ctrl-C exits 130 and
    SIGTERM 143, once a write in progress is done (never half done).
    """
    signal.signal(signal.SIGTERM, _terminated)
    try:
        _run(sys.argv[1:])
    except OutputError as exc:  # stdout closed or full: the files are as the lines before said
        _quiet_stdout()
        print(f"autofix: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except BrokenPipeError:  # `autofix dir | head`: the reader left, nothing is wrong with the files
        sys.stderr.close()
        raise SystemExit(1) from None
    except Exception as exc:  # noqa: BLE001 - last resort: never a bare traceback
        if "--verbose" in sys.argv[1:]:
            raise
        print(f"autofix: internal error: {type(exc).__name__}: {exc} (please report this; --verbose shows "
              "the traceback)", file=sys.stderr)
        raise SystemExit(2) from None
