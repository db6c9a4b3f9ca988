"""The ``autofix`` commands (typer): ``check``, ``rules``, ``explain``.

``autofix.cli.main`` runs them, except a plain ``autofix PATH...``, which it runs without loading typer and
click (issue 15: they were a fifth of a one-file start-up). Only typer and the standard library are imported at
module level: the engine, the formats and PyYAML load inside the commands, so ``--help`` stays fast.
"""

# No ``from __future__ import annotations`` here: typer reads the options from the annotations of the commands,
# and string annotations made it eval each of them (~130 evals, ~8 ms of every start-up, issue 15).

import os
import sys
from typing import Annotated

import click
import typer
from typer.core import TyperGroup

from autofix.common.errors import ConfigError, UsageError


class _DefaultToCheck(TyperGroup):
    """Route ``autofix PATH...`` to ``check``; ``rules`` and ``explain`` stay sub-commands.

    A path that is literally named like a sub-command can be given as ``./rules``.
    """

    def parse_args(self, ctx, args):
        """Prepend ``check`` unless the first word is a sub-command; ``autofix --help`` is ``check``'s help,
        which lists the other commands."""
        if args and args[0] not in self.commands:
            args = ["check", *args]
        return super().parse_args(ctx, args)


def _version(value: bool) -> None:
    """``--version``: autofix's version and the SGLang releases it has argument tables for."""
    if value:
        from autofix import __version__
        from autofix.schema import DEFAULT_VERSION, versions

        out = _stdout()
        out.line(f"autofix {__version__} (SGLang {DEFAULT_VERSION}; tables for {', '.join(versions())})")
        out.flush()
        raise typer.Exit()


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


def _codes(values: list[str] | None) -> list[str] | None:
    """Selector options as given: repeatable, each comma-separated (``--select EP,A2A005``); None when unset."""
    if values is None:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _globs(values: list[str] | None) -> list[str] | None:
    """Glob options as given: repeatable, each comma-separated as ruff's are, but a comma inside braces stays
    (``--exclude '{dev,prod}/*.yaml',gen``); None when unset."""
    if values is None:
        return None
    out = []
    for value in values:
        depth, start = 0, 0
        for i, c in enumerate(value):
            depth += (c == "{") - (c == "}")
            if c == "," and depth <= 0:
                out.append(value[start:i])
                start = i + 1
        out.append(value[start:])
    return [part.strip() for part in out if part.strip()]


_MODES = "Modes (default: report, and print the diff --write would apply)"
_RULES = "Rules (a code, a prefix such as EP, a name, or ALL; comma-separated)"
_OUT = "Output"
_CONF = "Configuration"
_LAUNCH = "What the launches run on"
_FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "rdjson", "gitlab")


@app.command("check", epilog="Other commands: `autofix rules` lists the rules; `autofix explain TEXT` explains a "
                             "rule code or name, or a pasted SGLang error message or log.")
def check(
    paths: Annotated[list[str], typer.Argument(help="Files or directories to check; - reads stdin.")],
    write: Annotated[bool, typer.Option("--write", help="Apply the safe fixes in place (stdin: print the fixed "
                                        "text).", rich_help_panel=_MODES)] = False,
    check_only: Annotated[bool, typer.Option("--check", help="Report only, no diff.", rich_help_panel=_MODES)] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print only the diff --write would apply; exit 1 when a file "
                                       "would change.", rich_help_panel=_MODES)] = False,
    unsafe_fixes: Annotated[bool | None, typer.Option("--unsafe-fixes/--no-unsafe-fixes", help="Also offer and "
                            "apply fixes that change behaviour.", rich_help_panel=_MODES, show_default=False)] = None,
    add_ignores: Annotated[bool, typer.Option("--add-ignores", help="Write a suppression comment for every current "
                           "finding (adopting autofix on a large repository).", rich_help_panel=_MODES)] = False,
    exit_zero: Annotated[bool, typer.Option("--exit-zero", help="Exit 0 even when violations are found (errors "
                         "still exit 2).", rich_help_panel=_MODES)] = False,
    exit_non_zero_on_fix: Annotated[bool, typer.Option("--exit-non-zero-on-fix", help="With --write, exit 1 when "
                                    "a file was fixed, even if nothing remains.", rich_help_panel=_MODES)] = False,
    select: Annotated[list[str] | None, typer.Option(help="Report only these rules.", rich_help_panel=_RULES,
                                                     show_default=False)] = None,
    extend_select: Annotated[list[str] | None, typer.Option(help="Report these rules too.", rich_help_panel=_RULES,
                                                            show_default=False)] = None,
    ignore: Annotated[list[str] | None, typer.Option(help="Do not report these rules.", rich_help_panel=_RULES,
                                                     show_default=False)] = None,
    fixable: Annotated[list[str] | None, typer.Option(help="Fix only these rules.", rich_help_panel=_RULES,
                                                      show_default=False)] = None,
    unfixable: Annotated[list[str] | None, typer.Option(help="Report these rules' fixes, never apply them.",
                                                        rich_help_panel=_RULES, show_default=False)] = None,
    extend_safe_fixes: Annotated[list[str] | None, typer.Option(help="Treat these rules' fixes as safe.",
                                                                rich_help_panel=_RULES, show_default=False)] = None,
    extend_unsafe_fixes: Annotated[list[str] | None, typer.Option(help="Treat these rules' fixes as unsafe.",
                                                                  rich_help_panel=_RULES, show_default=False)] = None,
    output_format: Annotated[str | None, typer.Option("--output-format",
                             metavar="FORMAT", help="full (default): lines and the diff; concise: "
                             "lines; json, json-lines, sarif, rdjson (reviewdog), gitlab (Code Quality), github "
                             "(workflow annotations). Also AUTOFIX_OUTPUT_FORMAT.", rich_help_panel=_OUT,
                             show_default=False)] = None,
    show_fixes: Annotated[bool | None, typer.Option("--show-fixes/--no-show-fixes", help="List every fix under "
                          "each violation.", rich_help_panel=_OUT, show_default=False)] = None,
    statistics: Annotated[bool, typer.Option("--statistics", help="Count the violations per rule instead of "
                          "listing them.", rich_help_panel=_OUT)] = False,
    stdin_filename: Annotated[str | None, typer.Option(help="Name to report for stdin.", rich_help_panel=_OUT)] = None,
    stdin_format: Annotated[str | None, typer.Option(help="Format of stdin: yaml, shell, manifest, dockerfile or "
                            "srt-slurm (default: from the content).", rich_help_panel=_OUT)] = None,
    verbose: Annotated[bool, typer.Option("--verbose", help="Print the traceback of an internal error.",
                                          rich_help_panel=_OUT)] = False,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", metavar="N", min=1, help="Check files in N "
                    "processes (default: all cores; runs of fewer than 200 files use one). The output is the "
                    "same, in the same order, whatever N.", rich_help_panel=_OUT, show_default=False)] = None,
    config_file: Annotated[str | None, typer.Option("--config-file", metavar="PATH", help="Use this configuration "
                           "file for every path (\\[tool.autofix] in pyproject.toml, or autofix.toml).",
                           rich_help_panel=_CONF)] = None,
    isolated: Annotated[bool, typer.Option("--isolated", help="Read no configuration file.",
                                           rich_help_panel=_CONF)] = False,
    exclude: Annotated[list[str] | None, typer.Option(
        metavar="GLOB", help="Files and directories a walk skips, replacing the configuration's exclude (and the "
        "default list: .git, venv, ...).", rich_help_panel=_CONF, show_default=False)] = None,
    extend_exclude: Annotated[list[str] | None, typer.Option(
        metavar="GLOB", help="Files and directories a walk skips besides exclude's.", rich_help_panel=_CONF,
        show_default=False)] = None,
    force_exclude: Annotated[bool | None, typer.Option(
        "--force-exclude/--no-force-exclude", help="Skip excluded files even when named on the command line "
        "(as pre-commit names them).", rich_help_panel=_CONF, show_default=False)] = None,
    target_version: Annotated[str | None, typer.Option(
        help="The SGLang release the configs must start on (default: 0.5.23); an unknown one lists the releases "
        "autofix has tables for.", rich_help_panel=_LAUNCH, show_default=False)] = None,
    gpu: Annotated[str | None, typer.Option(
        "--gpu", metavar="[COUNTx]NAME",
        help="The GPUs the launches run on (h200, 8xh200; one of a100, h100, h200, b200, gb200, mi300x, mi355x): "
        "decides the checks and defaults that depend on the hardware. Unset, those checks stay silent.",
        rich_help_panel=_LAUNCH)] = None,
    gpus_per_node: Annotated[int | None, typer.Option(
        "--gpus-per-node", metavar="N", help="GPUs per node (the COUNT of --gpu COUNTxNAME, which it must match).",
        rich_help_panel=_LAUNCH)] = None,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print autofix's version and exit.")] = False,
) -> None:
    """Check PATHs: report what SGLang would refuse and print the fix (the default command: `autofix PATH...`).

    Exit 0: nothing to report; 1: violations (with --write: some remain; with --diff: a file would change);
    2: bad input or usage, or a fix that could not be written.
    """
    from autofix.cli.checking import Request, prepare

    try:
        request = Request(
            paths=paths, write=write, check=check_only, diff=diff, unsafe_fixes=unsafe_fixes,
            add_ignores=add_ignores, exit_zero=exit_zero, exit_non_zero_on_fix=exit_non_zero_on_fix,
            select=_codes(select), extend_select=_codes(extend_select), ignore=_codes(ignore),
            fixable=_codes(fixable), unfixable=_codes(unfixable), extend_safe_fixes=_codes(extend_safe_fixes),
            extend_unsafe_fixes=_codes(extend_unsafe_fixes), output_format=output_format, show_fixes=show_fixes,
            statistics=statistics, stdin_filename=stdin_filename, stdin_format=stdin_format, verbose=verbose,
            jobs=jobs,
            config_file=config_file, isolated=isolated, exclude=_globs(exclude),
            extend_exclude=_globs(extend_exclude), force_exclude=force_exclude, target_version=target_version,
            gpu=gpu, gpus_per_node=gpus_per_node)
        job = prepare(request, env=os.environ, stdout=sys.stdout, stderr=sys.stderr)
    except UsageError as exc:
        if exc.param:
            raise typer.BadParameter(exc.message, param_hint=exc.param) from None
        raise click.UsageError(exc.message) from None
    except ConfigError as exc:  # the project's configuration file: nothing is checked with it
        from autofix.cli.checking import in_actions
        from autofix.report.stream import ReportStream

        ReportStream(sys.stderr, "stderr", guard=in_actions(os.environ) or None).line(str(exc))
        raise typer.Exit(2) from None
    raise typer.Exit(job.run(stdin=getattr(sys.stdin, "buffer", None)))  # None: closed (an error if - is read)


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
    from autofix.explain.rule_docs import rule_record
    from autofix.rules import RULES

    out = _stdout()
    if output_format == "json":
        import json

        out.write(json.dumps([rule_record(r) for r in RULES], indent=2) + "\n")
    else:
        width = max(len(r.name) for r in RULES)  # type: ignore[arg-type]  # a derivation in RULES has a name
        out.write("".join(f"{r.code:<7} {r.name:<{width}}  {r.summary}\n" for r in RULES))
    out.flush()


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
    if not text and sys.stdin is not None and sys.stdin.isatty():
        raise typer.BadParameter("give a rule code or name, or SGLang's error (or pipe it in)", param_hint="TEXT")
    words = text or ["-"]
    if words == ["-"]:
        from autofix.disk.reads import ReadError, read_stdin

        try:  # a closed stdin, one that is not UTF-8 or too large: never a traceback
            given = read_stdin().decode("utf-8", "replace")
        except ReadError as exc:
            raise typer.BadParameter(f"{exc.message}: give a rule code or name, or SGLang's error",
                                     param_hint="TEXT") from None
    else:
        given = " ".join(words)
    if not given.strip():
        raise typer.BadParameter("nothing to explain: give a rule code or name, or paste SGLang's error",
                                 param_hint="TEXT")
    from autofix.explain.lookup import explain as match
    from autofix.explain.lookup import render

    found = match(given)
    out = _stdout()
    out.write(render(found))
    out.flush()
    raise typer.Exit(found.exit_code)


def _stdout():
    """stdout as the report of a command that is not ``check`` prints on it (``report.stream``): guarded in a
    GitHub Actions log, a failure one error line (exit 2), a broken pipe a quiet exit."""
    from autofix.report.stream import ReportStream

    return ReportStream(sys.stdout, "stdout")
