"""The ``autofix`` command line.

Only typer and the standard library are imported at module level: the
engine, the formats and PyYAML load inside the commands, so ``--help`` and
start-up stay fast.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Annotated

import typer
from typer.core import TyperGroup

from autofix.errors import OutputError


class _DefaultToCheck(TyperGroup):
    """Route ``autofix PATH...`` to ``check``; ``rules`` and ``explain`` stay sub-commands.

    A path that is literally named like a sub-command can be given as ``./rules``.
    """

    def parse_args(self, ctx, args):
        """Prepend ``check`` unless the first word is a sub-command or help."""
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["check", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    cls=_DefaultToCheck,
    add_completion=False,
    no_args_is_help=True,
    help="Find SGLang server configurations that SGLang would refuse, and fix them.\n\n"
    "autofix PATH... checks files (SGLang --config YAML files, shell scripts, Kubernetes and compose manifests, "
    "Dockerfiles and srt-slurm recipes that launch SGLang) "
    "and directories, and prints the diff --write would apply.",
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,  # a failure is one error line per file (runner's guard), never a dump of locals
)


@app.command("check")
def check(
    paths: Annotated[list[str], typer.Argument(help="Files or directories to check; - reads stdin.")],
    write: Annotated[bool, typer.Option("--write", help="Apply the safe fixes in place (stdin: print the fixed text).")] = False,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes", help="Also offer and apply fixes that change behaviour.")] = False,
    show_fixes: Annotated[bool, typer.Option("--show-fixes", help="List every fix under each violation.")] = False,
    stdin_filename: Annotated[str | None, typer.Option(help="Name to report for stdin.")] = None,
    stdin_format: Annotated[str | None, typer.Option(help="Format of stdin: yaml, shell, manifest, dockerfile or srt-slurm (default: from the content).")] = None,
    target_version: Annotated[str, typer.Option(
        help="The SGLang release the configs must start on; an unknown one lists the releases autofix has tables for.",
    )] = "0.5.23",
    gpu: Annotated[str | None, typer.Option(
        "--gpu", metavar="[COUNTx]NAME",
        help="The GPUs the launches run on (h200, 8xh200; one of a100, h100, h200, b200, gb200, mi300x, mi355x): "
        "decides the checks and defaults that depend on the hardware. Unset, those checks stay silent.",
    )] = None,
    gpus_per_node: Annotated[int | None, typer.Option(
        "--gpus-per-node", metavar="N", help="GPUs per node (the COUNT of --gpu COUNTxNAME, which it must match).",
    )] = None,
    verbose: Annotated[bool, typer.Option("--verbose", help="Print the traceback of an internal error.")] = False,
) -> None:
    """Check PATHs (the default command: `autofix PATH...`). Exit 1 on violations, 2 on bad input."""
    from autofix.formats import NAMES
    from autofix.runner import Mode, run

    if stdin_format not in (None, *NAMES):
        raise typer.BadParameter(f"must be one of {', '.join(NAMES)}", param_hint="--stdin-format")
    from autofix.schema import versions

    if target_version not in versions():
        raise typer.BadParameter(f"no argument table for {target_version}; one of: {', '.join(versions())}",
                                 param_hint="--target-version")
    from autofix.pipeline.facts import HardwareError, hardware

    try:
        facts = hardware(gpu, gpus_per_node)
    except HardwareError as exc:
        raise typer.BadParameter(str(exc), param_hint=exc.param) from None
    report = run(
        paths,
        Mode.from_flags(write=write),
        unsafe=unsafe_fixes,
        out=sys.stdout,
        err=sys.stderr,
        stdin_filename=stdin_filename,
        stdin_format=stdin_format,
        show_fixes=show_fixes,
        target_version=target_version,
        verbose=verbose,
        stdin=sys.stdin.buffer,
        facts=facts,
    )
    raise typer.Exit(report.exit_code)


@app.command("rules")
def list_rules(
    output_format: Annotated[str, typer.Option(
        "--output-format", metavar="FORMAT",
        help="text (one line a rule) or json (an array: code, name, severity, summary, sglang_source, step, "
        "fix_safety).",
    )] = "text",
) -> None:
    """List the rules: code, name, what SGLang refuses."""
    if output_format not in ("text", "json"):
        raise typer.BadParameter("must be text or json", param_hint="--output-format")
    from autofix.docs import rule_record
    from autofix.rules import RULES

    if output_format == "json":
        import json

        typer.echo(json.dumps([rule_record(r) for r in RULES], indent=2))
        return
    width = max(len(r.name) for r in RULES)
    for r in RULES:
        typer.echo(f"{r.code:<7} {r.name:<{width}}  {r.summary}")


@app.command("explain", context_settings={"ignore_unknown_options": True})
def explain(
    text: Annotated[list[str] | None, typer.Argument(
        metavar="[TEXT]...",
        help="A rule code (EP003) or name, or SGLang's error message, log or traceback; none or - reads stdin.",
    )] = None,
) -> None:
    """Say which rule TEXT is, why SGLang refuses it, the fix and SGLang's line.

    TEXT is a rule code (EP003) or name, or SGLang's error message, log or traceback as pasted (quoted, or
    on stdin: no TEXT or -). Exit 0 when a rule covers it, 1 when it is an SGLang check no rule covers or
    is not recognised.
    """
    if not text and sys.stdin.isatty():
        raise typer.BadParameter("give a rule code or name, or SGLang's error (or pipe it in)", param_hint="TEXT")
    words = text or ["-"]
    given = sys.stdin.read() if words == ["-"] else " ".join(words)
    if not given.strip():
        raise typer.BadParameter("nothing to explain: give a rule code or name, or paste SGLang's error",
                                 param_hint="TEXT")
    from autofix.explain import explain as match, render

    found = match(given)
    typer.echo(render(found), nl=False)
    raise typer.Exit(found.exit_code)


def _terminated(signum: int, frame) -> None:
    """SIGTERM stops the run as Ctrl-C does: a write in progress is rolled back, temp files removed."""
    raise SystemExit(128 + signum)


def _quiet_stdout() -> None:
    """Point fd 1 at /dev/null, so the interpreter's last flush of a broken stdout says nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
    except OSError:
        pass
    sys.stdout = None


def main() -> None:
    """Console-script entry point.

    A failure outside any one file (each file has its own guard in
    ``runner.run``) is one error line and exit 2; ``--verbose`` re-raises it
    with its traceback. A report that cannot be written (stdout closed or
    full) is one error line and exit 2. Ctrl-C exits 130 and SIGTERM 143,
    after a write in progress is rolled back.
    """
    signal.signal(signal.SIGTERM, _terminated)
    try:
        app(prog_name="autofix")
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
