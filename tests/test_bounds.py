"""Every input format is read within the bounds of ``autofix/common/limits.py`` (issue 29, findings 6 and 17).

A script nested past ``MAX_SHELL_DEPTH`` or larger than ``MAX_SHELL_BYTES``, wherever it stands (a script
file, a ``bash -c`` word, a Dockerfile's RUN, a Kubernetes ``sh -c`` script, a compose command string), and a
Dockerfile past ``MAX_DOCKERFILE_LINES`` or ``MAX_DOCKERFILE_BYTES``, is an error at the place the bound is
crossed: exit 2, the file untouched (before, 40 000 nested ``{`` took 92 s, a ``bash -c`` word of them more than
two minutes, and a 64 MiB script segfaulted). A file's unknown options get close spellings up to
``MAX_SUGGESTED_SPELLINGS`` of them, and a YAML file that is no SGLang config gets none (before, 99 000 unknown
keys took 43 s, most of it in difflib). The bench (``bench/bench_limits.py``) times these shapes; nothing here
asserts a time.
"""

from __future__ import annotations

import difflib
import resource
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from autofix.cli import triage
from autofix.cli.commands import app
from autofix.common.limits import (
    MAX_DOCKERFILE_BYTES,
    MAX_DOCKERFILE_LINES,
    MAX_SHELL_BYTES,
    MAX_SHELL_DEPTH,
    MAX_SUGGESTED_SPELLINGS,
)

LAUNCH = "python3 -m sglang.launch_server --tp 8"
DEPTH = (f"cannot read the shell script: a shell script nested more than {MAX_SHELL_DEPTH} levels deep "
         "(of bash's grammar); autofix does not read further")
SIZE = (f"cannot read the shell script: a shell script of more than {MAX_SHELL_BYTES:,} bytes; "
        "autofix does not read further")
N = MAX_SHELL_DEPTH + 200  # nested `{ ...; }` levels: past the bound wherever the script stands


def braces(n: int, sep: str = " ") -> str:
    return "{" + sep + ("{" + sep) * (n - 1) + "true;" + sep + ("};" + sep) * (n - 1) + "}"


def run(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="autofix")


def _capped() -> None:  # a run that blows up fails in its own process, not the machine's memory
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def refused(project, name: str, text: str) -> str:
    """The first stderr line of ``autofix --write name`` on ``text``, which must exit 2 and leave the file as it was.

    Run in a process of its own under generous bounds (two minutes, 4 GB of address space) that only keep a
    regression from hanging CI or the machine."""
    path = project / name
    path.write_text(text)
    r = subprocess.run([sys.executable, "-m", "autofix", "--write", name], cwd=project, capture_output=True,
                       text=True, timeout=120, preexec_fn=_capped)
    assert r.returncode == 2, r.stderr[-2000:]
    assert path.read_text() == text
    return r.stderr.splitlines()[0]


@pytest.mark.parametrize("name, text, where", [
    ("b.sh", f"{LAUNCH}\n{braces(40_000)}\n", "b.sh:2:1997"),  # the issue's: 92 s before
    ("b.sh", f"{LAUNCH}\necho " + '"$(echo ' * 20_000 + "x" + ')"' * 20_000 + "\n", "b.sh:2:2663"),
    ("b.sh", f"bash -c '{LAUNCH}\n{braces(40_000)}'\n", "b.sh:2:1997"),
    ("Dockerfile", f"FROM x\nRUN <<EOF\n{LAUNCH}\n{braces(N, chr(10))}\nEOF\n", "Dockerfile:1002:1"),
    ("Dockerfile", f"FROM x\nRUN {LAUNCH}; \\\n{braces(N, ' ' + chr(92) + chr(10))}\n", "Dockerfile:1001:1"),
    ("m.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: s\n      command: [sh, -c]\n"
               f'      args: ["{LAUNCH}; {braces(N)}"]\n', "m.yaml:7:2051"),
    ("compose.yaml", f'services:\n  s:\n    image: x\n    command: "{LAUNCH}; {braces(N)}"\n', "compose.yaml:4:2051"),
], ids=["script-braces", "script-quoted-substitutions", "bash-c", "dockerfile-heredoc", "dockerfile-continued",
        "k8s-sh-c", "compose-string"])
def test_a_script_nested_past_the_bound_is_an_error_where_it_is_crossed(project, name, text, where):
    assert refused(project, name, text) == f"{where}: error: {DEPTH}"


def position(text: str, offset: int) -> str:
    """``line:col`` of ``text[offset]``."""
    return f"{text.count(chr(10), 0, offset) + 1}:{offset - text.rfind(chr(10), 0, offset)}"


K8S = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: s\n      command: [sh, -c]\n      args: ["


@pytest.mark.parametrize("name, text, back", [
    ("s.sh", f"{LAUNCH}\n" + "# c\n" * (MAX_SHELL_BYTES // 2), 0),  # the shape (64 MiB: 8.5 GB or a segfault)
    ("s.sh", f"{LAUNCH}\n" + "a\n" * MAX_SHELL_BYTES, 0),  # the densest parse tree
    ("s.sh", f"{LAUNCH}\n" + "#" * (MAX_SHELL_BYTES - len(LAUNCH) - 2) + "\u00e9\n", 1),  # the bound cuts `é`: at it
    ("m.yaml", K8S + f'"{LAUNCH}' + "; true" * (MAX_SHELL_BYTES // 5) + '"]\n', 0),
    ("compose.yaml", f'services:\n  s:\n    image: x\n    command: "{LAUNCH}' + "; true" * (MAX_SHELL_BYTES // 5)
     + '"\n', 0),
], ids=["comments", "lines", "cut-character", "k8s-sh-c", "compose-string"])
def test_a_script_past_the_byte_bound_is_an_error_at_the_first_byte_past(project, name, text, back):
    where = position(text, text.index(LAUNCH) + MAX_SHELL_BYTES - back)  # the first character not wholly within
    assert refused(project, name, text) == f"{name}:{where}: error: {SIZE}"


@pytest.mark.parametrize("text, message", [
    ("FROM x\n" + "RUN a\n" * MAX_DOCKERFILE_LINES + f"CMD {LAUNCH}\n",
     f"Dockerfile:{MAX_DOCKERFILE_LINES + 1}:1: error: a Dockerfile of more than {MAX_DOCKERFILE_LINES:,} lines"),
    ("FROM x\n" + ("RUN " + "a" * 1000 + "\n") * 300 + f"CMD {LAUNCH}\n",
     f"Dockerfile:262:838: error: a Dockerfile of more than {MAX_DOCKERFILE_BYTES:,} bytes"),
    ("FROM x\n" + "RUN a \\\n" + " a \\\n" * 200_000 + " a\n" + f"CMD {LAUNCH}\n",  # BuildKit's parser: quadratic
     f"Dockerfile:{MAX_DOCKERFILE_LINES + 1}:1: error: a Dockerfile of more than {MAX_DOCKERFILE_LINES:,} lines"),
], ids=["lines", "bytes", "continued-lines"])
def test_a_dockerfile_past_its_bounds_is_an_error_where_it_is_crossed(project, text, message):
    assert refused(project, "Dockerfile", text) == f"{message}; autofix does not read further"


def test_a_dockerfile_at_its_bounds_is_read(project):
    head, tail = "FROM x\n", 'CMD ["python3", "-m", "sglang.launch_server", "--tp", "8", "--model-path", "m"]\n'
    lines = head + "RUN a\n" * (MAX_DOCKERFILE_LINES - 2) + tail
    assert lines.count("\n") == MAX_DOCKERFILE_LINES
    filler = MAX_DOCKERFILE_BYTES - len(head) - len(tail)
    line = "RUN " + "a" * 995 + "\n"
    size = head + line * (filler // len(line) - 1) + "RUN " + "a" * (filler % len(line) + len(line) - 5) + "\n" + tail
    assert len(size.encode()) == MAX_DOCKERFILE_BYTES
    for text in (lines, size):
        (project / "Dockerfile").write_text(text)
        r = run("Dockerfile")
        assert (r.exit_code, r.output) == (0, "All checks passed!\n")


# Close spellings: within a bound per file, and none for a file that is no config.

@pytest.fixture
def asked(monkeypatch) -> list[str]:
    """The words difflib is asked close matches for, in order."""
    words: list[str] = []
    real = difflib.get_close_matches

    def counted(word, *args, **kwargs):
        words.append(word)
        return real(word, *args, **kwargs)

    monkeypatch.setattr(difflib, "get_close_matches", counted)
    return words


def test_a_file_gets_close_spellings_for_its_first_unknown_options_only(project, asked):
    over = MAX_SUGGESTED_SPELLINGS + 50
    known = "".join(f"host: h{i}\n" for i in range(over + 1))  # the file stays a config: most keys are SGLang's
    (project / "c.yaml").write_text("tp-size: 8\n" + known + "".join(f"xk{i:05d}: 1\n" for i in range(over))
                                    + "tp-sise: 8\n")
    r = run("c.yaml")
    assert r.exit_code == 1
    assert len(asked) == MAX_SUGGESTED_SPELLINGS == len(set(asked))
    assert asked[0] == "--xk00000" and "--tp-sise" not in asked
    assert r.stdout.count("ARG001 unknown key") == over + 1
    assert "did you mean" not in r.stdout  # --tp-sise, past the bound, is reported as unknown only


def test_a_repeated_unknown_option_is_compared_once(project, asked):
    (project / "c.yaml").write_text("tp-size: 8\ntp-sise: 8\n")
    (project / "run.sh").write_text(f"{LAUNCH} --tp-sise 2 --tp-sise 4 --model-path m\n")
    r = run("run.sh", "c.yaml")
    assert r.exit_code == 1 and r.stdout.count("did you mean --tp-size?") == 2
    assert r.stdout.count("did you mean tp-size?") == 1
    assert asked == ["--tp-sise", "--tp-sise"]  # once in each file


def test_a_yaml_file_that_is_no_config_is_not_compared(project, asked):
    text = "tp-size: 8\n" + "".join(f"xk{i}: 1\n" for i in range(20)) + "tp-sise: 8\n"  # the shape, smaller
    (project / "w.yaml").write_text(text)
    r = run("w.yaml")
    assert (r.exit_code, r.stderr) == (0, f"w.yaml: skipped: {triage.NOT_A_CONFIG}\nAll checks passed!\n")
    assert asked == []
