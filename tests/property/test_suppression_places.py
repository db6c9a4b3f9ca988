"""A suppression marker counts exactly where the file's own reader sees a comment.

Hypothesis takes a golden fixture (``fixtures/*/NAME.in.*``) or one of the texts below (the shapes issue 29
found: a ``#`` in a quoted value, a heredoc's body, a YAML ``|`` block, a word ``a#b``), inserts a marker
(``# autofix: ignore-file[ZQ001]``, a code no rule has, so that autofix reports it as SUP001 wherever it
counts; with a blank before it or not) at a drawn offset, and checks ``fix_source``: a SUP001 or SUP002
at the inserted ``#`` exactly when the format's own reader (``comment_oracle``: PyYAML, bash, BuildKit)
reads the marker as a comment, or as a comment of a shell script a launch is read in, and the ``#`` may
start a marker there (it starts the comment, or follows a blank or a line break inside one:
``# note # autofix: ...``; ``# note#autofix:`` is text of a comment). A text that no longer reads (autofix
or the oracle refuses it) is left out.

And ``--add-ignores`` on every fixture: each comment it writes is a comment to the same oracle.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from comment_oracle import in_comment
from hypothesis import assume, given
from hypothesis import strategies as st
from typer.testing import CliRunner

from autofix.adapters import argv, detect, dockerfile, manifest, srtslurm, yaml_config
from autofix.cli.commands import app
from autofix.common.errors import InputError
from autofix.core.api import fix_source

pytestmark = pytest.mark.skipif(shutil.which("bash", path="/bin:/usr/bin") is None, reason="needs bash")

ROOT = Path(__file__).resolve().parents[2]
DIRS = {"yaml_config": yaml_config, "argv": argv, "manifest": manifest, "dockerfile": dockerfile,
        "srt_slurm": srtslurm}
EXT = {argv: "sh", dockerfile: "dockerfile", yaml_config: "yaml", srtslurm: "yaml", manifest: "yaml"}
LAUNCH = "python3 -m sglang.launch_server --model-path m"
# Texts with the places issue 29 found markers read in, and their neighbours.
SHAPES = [
    (argv, f'{LAUNCH} --served-model-name "m # x" --tp 8 # a comment\n'),
    (argv, f"cat > notes <<EOF\n# a line of data\nEOF\n{LAUNCH} --tp 8\n"),
    (argv, f"cat > notes <<'EOF'\n  # data $(x)\nEOF\necho a#b 'c # d' \"e # f\" $'g # h'\n{LAUNCH} --tp 8\n"),
    (argv, f"x=1;# c\n{LAUNCH} --tp 8 $( # note\n) # end\n"),
    (argv, f"bash -c '# in the script\n{LAUNCH} --tp 8 # there too'\n"),
    (yaml_config, 'served-model-name: "m # x"  # c\ntp-size: 8\nchat-template: |\n  # data\n  more\n# after\n'),
    (yaml_config, "a: >-\n  folded # data\n  # data\n # comment\nb: 'q # x' # c\nc: [1, # c\n  2]\n"),
    (manifest, "kind: ConfigMap\ndata:\n  notes: |\n    # data\n---\nkind: Pod\nspec:\n  containers:\n"
               "    - name: s\n      command: [sh, -c]\n      args:\n        - |\n          # a script comment\n"
               f"          {LAUNCH} \\\n            --tp 8  # end\n"),
    (manifest, "spec:\n  containers:\n    - command: [\"sh\", \"-c\", \"# c\\n" + LAUNCH
               + " --served-model-name 'm # x' --tp 8 # d\"]\n"),
    (dockerfile, f"FROM x\n# c\nRUN cat > /notes <<EOF\n# data\nEOF\nCMD {LAUNCH} \\\n  # dropped\n  --tp 8 # sh\n"),
    (dockerfile, f'FROM x\nRUN <<EOF\n# a script comment\n{LAUNCH} --tp 8\nEOF\nCMD ["sh", "-c", "{LAUNCH} # c"]\n'),
]
TEXTS = [(fmt, p.read_bytes().decode("utf-8")) for sub, fmt in DIRS.items()
         for p in sorted((ROOT / "fixtures" / sub).glob("*.in.*"))] + SHAPES
MARKER = "# autofix: ignore-file[ZQ001]"
_NEAR = re.compile(r"[#'\"|>\\\n]|<<")  # places worth inserting at: where comments, strings and blocks start


@st.composite
def insertions(draw):
    """(adapter, text with the marker, offset of its ``#``, the text with a probe there instead)."""
    fmt, text = draw(st.sampled_from(TEXTS))
    near = [m.start() for m in _NEAR.finditer(text)]
    if near and draw(st.booleans()):
        at = min(len(text), max(0, draw(st.sampled_from(near)) + draw(st.integers(-1, 2))))
    else:
        at = draw(st.integers(0, len(text)))
    lead = draw(st.sampled_from(["", " "]))
    return fmt, text[:at] + lead + MARKER + text[at:], at + len(lead), text[:at] + lead + "ZQP01" + text[at:]


def line_col(text: str, at: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, at) + 1
    return text.count("\n", 0, at) + 1, at - start + 1


@given(insertions())
def test_a_marker_counts_exactly_in_a_comment(case):
    fmt, text, at, probe = case
    path = f"f.{EXT[fmt]}"
    comment = in_comment(fmt, text, path, "ZQ001")
    assume(comment is not None)
    try:
        result = fix_source(text, fmt, path=path)
    except InputError:
        assume(False)
    where = line_col(text, at)
    read = any(d.code in ("SUP001", "SUP002") and (d.location.line, d.location.col) == where
               for d in result.diagnostics)
    if comment and at and text[at - 1] not in " \t\n":
        # a `#` after text in a comment (`# note#autofix:`) is no marker; one that starts a comment (`;#`) is
        comment = not in_comment(fmt, probe, path, "ZQP01")
    assert read == bool(comment), (text, at)


def test_add_ignores_writes_real_comments(tmp_path, monkeypatch):
    names = []
    for sub in DIRS:
        for p in sorted((ROOT / "fixtures" / sub).glob("*.in.*")):
            (tmp_path / sub).mkdir(exist_ok=True)
            (tmp_path / sub / p.name).write_bytes(p.read_bytes())
            names.append(f"{sub}/{p.name}")
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(app, [".", "--add-ignores", "--isolated"])
    assert done.exit_code == 0, done.output
    written = 0
    for name in names:
        text = (tmp_path / name).read_bytes().decode("utf-8")
        before = (ROOT / "fixtures" / name).read_bytes().decode("utf-8")
        fmt = detect(name, text)
        for k, m in enumerate(re.finditer(r"# autofix: ignore\[", text)):
            if text.count("autofix:") == before.count("autofix:"):
                break  # nothing written here
            marked = text[:m.start()] + f"# autofix: ignore[ZQ{k:03d}, " + text[m.end():]
            written += 1
            assert in_comment(fmt, marked, name, f"ZQ{k:03d}"), (name, m.start())
    assert written >= 50  # (84 at the time of writing)
    assert CliRunner().invoke(app, [".", "--isolated"]).exit_code == 0
