"""DKR001 exec-form-not-json: each way an exec form is not JSON, where it is reported, and its fix.

Checked against the Dockerfile parser Docker uses (BuildKit, PyPI
``dockerfile``): each broken form below is its shell form (``json=False``),
so Docker runs the text with ``/bin/sh -c``; the fixed text is its exec form,
with exactly the words meant.
"""

from __future__ import annotations

import dockerfile as buildkit
import pytest

from autofix.adapters import dockerfile
from autofix.core.api import FixOptions, fix_source
from autofix.report import diagnostic_line

LAUNCH = '"python3", "-m", "sglang.launch_server", "--model-path", "m"'
GOOD = f"CMD [{LAUNCH}, \"--tp\", \"8\"]"

# (id, the instruction, what DKR001 says is wrong, the fixed instruction or None: reported, not fixed)
CASES = [
    ("trailing-comma", f'CMD [{LAUNCH}, "--tp", "8",]', "a trailing comma", GOOD),
    ("trailing-comma-spaced", f'CMD [ {LAUNCH}, "--tp", "8" , ]', "a trailing comma",
     f'CMD [ {LAUNCH}, "--tp", "8"  ]'),
    ("single-quotes", "CMD ['python3', '-m', 'sglang.launch_server', '--model-path', 'm', '--tp', '8']",
     "single quotes", GOOD),
    ("unquoted-words", "CMD [python3, -m, sglang.launch_server, --model-path, m, --tp, 8]",
     "a word without quotes (python3), a number without quotes (8)", GOOD),
    ("number-and-trailing-comma", f'CMD [{LAUNCH}, "--tp", 8,]', "a number without quotes (8), a trailing comma",
     GOOD),
    ("curly-quotes", "CMD [\u201cpython3\u201d, \u201c-m\u201d, \u201csglang.launch_server\u201d, "
     "\u201c--model-path\u201d, \u201cm\u201d, \u201c--tp\u201d, \u201c8\u201d]", "curly quotes", GOOD),
    ("mixed", f"CMD [{LAUNCH}, '--tp', 8, --enable-metrics,]",
     "single quotes, a number without quotes (8), a word without quotes (--enable-metrics), a trailing comma",
     f'CMD [{LAUNCH}, "--tp", "8", "--enable-metrics"]'),
    ("entrypoint", f"ENTRYPOINT [{LAUNCH},]", "a trailing comma", f"ENTRYPOINT [{LAUNCH}]"),
    ("run", "RUN ['python3', '-m', 'sglang.launch_server', '--model-path', 'm']", "single quotes",
     f"RUN [{LAUNCH}]"),
    ("sh-c-script", "CMD ['sh', '-c', 'python3 -m sglang.launch_server --model-path m']", "single quotes",
     'CMD ["sh", "-c", "python3 -m sglang.launch_server --model-path m"]'),
    # what the text does not say beyond doubt: reported, not fixed
    ("missing-comma", 'CMD ["python3" "-m", "sglang.launch_server", "--model-path", "m"]', "a missing comma",
     None),
    ("empty-item", f'CMD [{LAUNCH},, "--tp", "8"]', "an empty item", None),
    ("unclosed", f'CMD [{LAUNCH}, "--tp", "8"', "no closing ]", None),
    ("text-after", f'CMD [{LAUNCH},] && echo done', "a trailing comma, text after the closing ]", None),
    ("backslash-in-single-quotes", f"CMD [{LAUNCH}, '--chat-template', 'a\\\\b']", "single quotes", None),
    ("words-with-spaces", "CMD [python3 -m sglang.launch_server --model-path m]",
     "a word without quotes (python3), a missing comma", None),
    ("shell-expansion", f'CMD [{LAUNCH}, "--tp", $TP]', "a word without quotes ($TP)", None),
    ("nested", f'CMD [{LAUNCH}, ["--tp", "8"],]', "a nested [", None),
]


def buildkit_json(instruction: str) -> bool:
    """Whether Docker's parser reads the instruction as the exec form."""
    return buildkit.parse_string(f"FROM x\n{instruction}\n")[1].json


@pytest.mark.parametrize(("instruction", "errors", "fixed"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_broken_exec_form_is_reported_at_its_bracket_and_fixed_when_clear(instruction, errors, fixed):
    assert not buildkit_json(instruction)
    text = f"FROM lmsysorg/sglang:latest\n{instruction}\n"
    r = fix_source(text, dockerfile, path="Dockerfile")
    [d] = [d for d in r.diagnostics if d.code == "DKR001"]
    keyword = instruction.split()[0]
    assert (d.location.line, d.location.col) == (2, len(keyword) + 2)
    assert d.violation.message.startswith(f"{keyword} is not a valid JSON array ({errors}): Docker runs it")
    assert d.fixable == (fixed is not None)
    assert r.output == (text if fixed is None else text.replace(instruction, fixed))
    if fixed is not None:
        assert buildkit_json(fixed)
        assert fix_source(r.output, dockerfile, path="Dockerfile").diagnostics == ()
    else:
        assert [x.code for x in r.remaining] == ["DKR001"]


@pytest.mark.parametrize("instruction", [
    GOOD,  # exec form: JSON
    f'CMD [ {LAUNCH} ]',
    "CMD python3 -m sglang.launch_server --model-path m",  # shell form
    "RUN [ -f /models/m ] && python3 -m sglang.launch_server --model-path m",  # the shell's test command
    'CMD ["python3", "-m", "vllm.entrypoints.openai.api_server",]',  # broken, but no SGLang launch
    'CMD ["echo", "sglang.launch_server",]',  # names SGLang, launches nothing
    'HEALTHCHECK CMD ["curl", "-f", "http://localhost:30000/health",]',
], ids=["json", "json-spaced", "shell-form", "test-command", "no-sglang", "echo", "healthcheck"])
def test_what_is_not_a_broken_exec_form_launch(instruction):
    text = f"FROM x\n{instruction}\n"
    assert [d.code for d in fix_source(text, dockerfile, path="Dockerfile").diagnostics if d.code == "DKR001"] == []


def test_the_launch_is_checked_once_written_as_json():
    text = ('FROM x\nCMD ["python3", "-m", "sglang.launch_server", "--tp", "8", '
            '"--ep-dispatch-algorithm", "static", "--enable_metrics",]\n')
    r = fix_source(text, dockerfile, path="Dockerfile")
    assert [diagnostic_line(d) for d in r.diagnostics] == [
        "Dockerfile:2:5: error: DKR001 [*] CMD is not a valid JSON array (a trailing comma): Docker runs it as a "
        "/bin/sh -c command, which fails as the container starts",
        "Dockerfile:2:6: error: ARG009 --model-path is required (appears once DKR001 is fixed)",
        "Dockerfile:2:60: error: EP003 [*] --ep-dispatch-algorithm static needs an a2a backend, but --moe-a2a-backend "
        "resolves to none (appears once DKR001 is fixed)",
        "Dockerfile:2:97: error: ARG001 [*] unknown option --enable_metrics: SGLang spells it --enable-metrics "
        "(appears once DKR001 is fixed)",
    ]
    assert r.found == 1
    assert r.output == text.replace('"static", "--enable_metrics",]', '"dynamic", "--enable-metrics"]')
    assert [d.code for d in r.remaining] == ["ARG009"]


def test_an_unfixed_broken_exec_form_hides_the_launch_docker_does_not_run():
    text = 'FROM x\nCMD ["python3" "-m", "sglang.launch_server", "--enable_metrics", "--ep-dispatch-algorithm", "static"]\n'
    r = fix_source(text, dockerfile, path="Dockerfile", options=FixOptions(unsafe=True))
    assert [d.code for d in r.diagnostics] == ["DKR001"]
    assert r.output == text and r.launches == 1


def test_entrypoint_made_json_joins_the_exec_cmd():
    text = ('FROM x\nENTRYPOINT ["python3", "-m", "sglang.launch_server",]\n'
            'CMD ["--model-path", "m", "--enable_metrics"]\n')
    r = fix_source(text, dockerfile, path="Dockerfile")
    assert [(d.code, d.location.line, d.location.col, d.after) for d in r.diagnostics] == [
        ("DKR001", 2, 12, ()), ("ARG001", 3, 27, ("DKR001",))]
    assert r.output == text.replace('",]', '"]').replace("--enable_metrics", "--enable-metrics")


# -- the file around it: CRLF, escape directive, continuation lines --------------------------------


def test_crlf_is_kept():
    text = 'FROM x\r\nCMD [\'python3\', \'-m\', \'sglang.launch_server\', \'--model-path\', \'m\',]\r\nEXPOSE 30000\r\n'
    r = fix_source(text, dockerfile, path="Dockerfile")
    assert [(d.code, d.location.line, d.location.col) for d in r.diagnostics] == [("DKR001", 2, 5)]
    assert r.output == f"FROM x\r\nCMD [{LAUNCH}]\r\nEXPOSE 30000\r\n"


def test_continuation_lines_and_a_comment_line_inside_the_array():
    text = ('FROM x\nCMD ["python3", "-m", "sglang.launch_server", \\\n'
            '    "--model-path", "m", \\\n'
            '# the parallelism\n'
            '    "--tp", 8, \\\n'
            '    ]\n')
    r = fix_source(text, dockerfile, path="Dockerfile")
    assert [(d.code, d.location.line, d.location.col) for d in r.diagnostics] == [("DKR001", 2, 5)]
    assert r.output == text.replace('"--tp", 8, \\', '"--tp", "8" \\')
    assert buildkit.parse_string(r.output)[1].json


def test_backtick_escape_directive():
    text = ("# escape=`\nFROM x\nCMD ['python3', '-m', `\n"
            "     'sglang.launch_server', `\n"
            "     '--model-path', '`m`', '--enable_metrics']\n")
    r = fix_source(text, dockerfile, path="Dockerfile")
    assert [(d.code, d.location.line, d.location.col, d.after) for d in r.diagnostics] == [
        ("DKR001", 3, 5, ()), ("ARG001", 5, 29, ("DKR001",))]
    assert r.output == ('# escape=`\nFROM x\nCMD ["python3", "-m", `\n'
                        '     "sglang.launch_server", `\n'
                        '     "--model-path", "`m`", "--enable-metrics"]\n')
    assert buildkit.parse_string(r.output)[1].value[4] == "`m`"


def test_an_item_cut_by_a_continuation_is_not_edited():
    text = "FROM x\nCMD ['python3', '-m', 'sglang.launch_server', '--model-path', 'm', '--tp', '8\\\n']\n"
    r = fix_source(text, dockerfile, path="Dockerfile")
    assert [(d.code, d.fixable) for d in r.diagnostics] == [("DKR001", False)]
    assert r.output == text
    assert r.conflicts == ("Dockerfile:2:5: fixes not applied: an item of the CMD array is cut by a line Docker "
                           "joins (a continuation or a comment line): write it as JSON by hand",)


def test_a_json_array_holding_a_number_is_docker_s_build_error_not_this_rule():
    from autofix.common.errors import InputError

    with pytest.raises(InputError, match="strings only"):
        fix_source(f'FROM x\nCMD [{LAUNCH}, "--tp", 8]\n', dockerfile, path="Dockerfile")
