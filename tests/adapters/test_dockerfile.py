"""autofix.adapters.dockerfile: launches as Docker runs them (logical lines, heredocs, stages)."""

from __future__ import annotations

import pytest

from autofix.adapters import dockerfile
from autofix.core.api import FixOptions, fix_source
from autofix.schema import load


def found(result) -> list[tuple[str, int, int, bool]]:
    return [(d.code, d.location.line, d.location.col, d.fixable) for d in result.diagnostics]


def fix(text: str):
    return fix_source(text, dockerfile, options=FixOptions(unsafe=True))


# -- shell form read as Docker's logical line ---------------------------------------


def test_backtick_escape_is_read_as_the_logical_line_and_fixed_in_place():
    text = ("# escape=`\nFROM lmsysorg/sglang:latest\n"
            "CMD python3 -m sglang.launch_server --model-path m `\n"
            "    --enable_metrics `\n"
            "    --moe-a2a-backend DeepEP\n")
    r = fix(text)
    assert found(r) == [("ARG001", 4, 5, True), ("ARG003", 5, 5, True)]
    assert r.output == text.replace("--enable_metrics", "--enable-metrics").replace("DeepEP", "deepep")
    assert fix(r.output).diagnostics == ()


def test_comment_line_inside_a_continuation_is_dropped_as_docker_does():
    text = ("FROM x\nCMD python3 -m sglang.launch_server --model-path m \\\n"
            "# a comment\n"
            "    --enable_metrics\n")
    r = fix(text)
    assert found(r) == [("ARG001", 4, 5, True)]
    assert r.output == text.replace("--enable_metrics", "--enable-metrics")


def test_logical_line_deletion_keeps_the_joined_lines():
    text = ("FROM x\nCMD python3 -m sglang.launch_server --model-path m --enable-metrics \\\n"
            "# c\n"
            "    --enable-metrics \\\n"
            "    --tp 2\n")
    r = fix(text)
    assert found(r) == [("ARG007", 2, 52, True)]
    assert r.output == ("FROM x\nCMD python3 -m sglang.launch_server --model-path m \\\n"
                        "# c\n"
                        "    --enable-metrics \\\n"
                        "    --tp 2\n")


def test_logical_line_edit_across_a_joined_line_is_refused():
    text = ("FROM x\nCMD python3 -m sglang.launch_server --model-path m --tp \\\n"
            "# c\n"
            "    8 --tp 8\n")
    r = fix(text)
    assert found(r) == [("ARG007", 2, 52, False)]
    assert r.output == text
    assert r.conflicts == ("-:2:5: fixes not applied: Docker joins this instruction's lines before the shell "
                           "runs it, and this edit would cross a line it joined (a continuation, or a comment "
                           "line it drops)",)


def test_logical_line_append_goes_after_the_last_argument():
    text = ("# escape=`\nFROM x\n"
            "CMD python3 -m sglang.launch_server --model-path m `\n"
            "    --tp 8 --moe-runner-backend experimental_sgl_marlin --ep-size 8 --moe-a2a-backend deepep\n")
    r = fix(text)
    assert [d.code for d in r.diagnostics] == ["RUN019"]
    assert r.output == text.replace("--moe-a2a-backend deepep", "--moe-a2a-backend none")


# -- heredocs --------------------------------------------------------------------------


def test_lone_heredoc_body_is_a_script_edited_in_place():
    text = "FROM x\nRUN <<EOT\npython3 -m sglang.launch_server --model-path m --enable_metrics\nEOT\n"
    r = fix(text)
    assert found(r) == [("ARG001", 3, 48, True)]
    assert r.output == text.replace("--enable_metrics", "--enable-metrics")


def test_heredoc_with_a_shell_shebang_is_a_script():
    text = "FROM x\nRUN <<EOT\n#!/bin/bash\npython3 -m sglang.launch_server --model-path m --enable_metrics\nEOT\n"
    r = fix(text)
    assert found(r) == [("ARG001", 4, 48, True)]
    assert r.output == text.replace("--enable_metrics", "--enable-metrics")


@pytest.mark.parametrize("text", [
    # stdin of python, not a script
    "FROM x\nRUN python3 <<EOF\nimport os; os.system('python3 -m sglang.launch_server --enable_metrics')\nEOF\n",
    # a lone heredoc that BuildKit runs with the interpreter of its #! line
    "FROM x\nRUN <<EOT\n#!/usr/bin/env python3\n"
    "import os; os.system('python3 -m sglang.launch_server --enable_metrics')\nEOT\n",
])
def test_heredoc_that_is_not_a_shell_script_is_not_read(text):
    assert dockerfile.read(text, "-", load()) == []


def test_tab_stripping_heredoc_is_read_but_not_edited():
    text = "FROM x\nRUN <<-EOT\n\tpython3 -m sglang.launch_server --model-path m --enable_metrics\n\tEOT\n"
    r = fix(text)
    assert found(r) == [("ARG001", 3, 49, False)]
    assert r.output == text
    assert r.conflicts == ("-:3:2: fixes not applied: Docker removes the leading tabs of a '<<-' heredoc "
                           "before the shell runs it",)


# -- stages ----------------------------------------------------------------------------

INHERITED = ('FROM lmsysorg/sglang:latest AS base\n'
             'ENTRYPOINT ["python3", "-m", "sglang.launch_server", "--model-path", "m"]\n'
             '\n'
             'FROM base AS prod\n'
             'CMD ["--tp", "8", "--moe-runner-backend", "experimental_sgl_marlin", "--ep-size", "8", '
             '"--moe-a2a-backend", "deepep"]\n')


def test_inherited_entrypoint_joins_the_stage_cmd():
    r = fix(INHERITED)
    assert found(r) == [("RUN019", 5, 19, True)]
    assert r.output == INHERITED.replace('"deepep"', '"none"')
    assert len(dockerfile.read(INHERITED, "-", load())) == 1


def test_a_stage_that_only_inherits_is_not_read_again():
    text = INHERITED + "\nFROM prod AS final\nEXPOSE 30000\nFROM PROD\n"
    assert len(dockerfile.read(text, "-", load())) == 1
    assert found(fix(text)) == [("RUN019", 5, 19, True)]


def test_stage_names_are_matched_lower_cased_and_other_images_are_not_stages():
    text = INHERITED.replace("AS base", "AS Base")
    assert found(fix(text)) == [("RUN019", 5, 19, True)]
    other = INHERITED.replace("FROM base AS prod", "FROM basement AS prod")
    assert dockerfile.read(other, "-", load())[0].parsed.explicit_for(load()) == {"model_path": "m"}


def test_entrypoint_resets_the_inherited_cmd():
    text = ('FROM x AS base\n'
            'CMD ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--enable_metrics"]\n'
            'FROM base\nENTRYPOINT ["python3", "-m", "sglang.launch_server", "--model-path", "m"]\n')
    launches = dockerfile.read(text, "-", load())
    assert [launch.start.line for launch in launches] == [2, 4]
    assert found(fix(text)) == [("ARG001", 2, 68, True)]


def test_only_the_last_cmd_of_a_stage_runs():
    text = ('FROM x\nCMD ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--enable_metrics"]\n'
            'CMD ["python3", "-m", "sglang.launch_server", "--model-path", "m"]\n')
    assert fix(text).diagnostics == ()


def test_an_entrypoint_two_stages_complete_is_edited_once():
    text = ('FROM x AS a\n'
            'ENTRYPOINT ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--enable_metrics"]\n'
            'CMD ["--tp", "2"]\n'
            'FROM a AS b\nCMD ["--tp", "4"]\n')
    r = fix(text)
    assert [(d.code, d.location.line, d.location.col) for d in r.diagnostics] == [("ARG001", 2, 75)]
    assert r.output == text.replace("--enable_metrics", "--enable-metrics")
    assert r.conflicts == ("-:2:13: fixes not applied: the instruction on line 2 is part of an earlier stage's "
                           "launch too: it is edited there",)


# -- what Docker does not run as a launch --------------------------------------------


def test_broken_exec_json_is_the_shell_form_and_launches_nothing():
    # Docker runs it with /bin/sh -c: no SGLang words, only what DKR001 reports (tests/adapters/test_dockerfile_exec.py)
    text = 'FROM x\nCMD ["python3", "-m", "sglang.launch_server", "--tp", 8\n'
    [launch] = dockerfile.read(text, "-", load())
    assert launch.parsed.words == () and launch.host is not None and launch.host.words is None


def test_sh_c_entrypoint_runs_only_the_first_cmd_word():
    # `sh -c python3 -m sglang.launch_server ...`: the script is "python3"; the rest are its $0, $1...: no SGLang
    # words, only what DKR003 reports (tests/adapters/test_entrypoint_cmd.py)
    split = 'FROM x\nENTRYPOINT ["sh", "-c"]\nCMD ["python3", "-m", "sglang.launch_server", "--enable_metrics"]\n'
    [launch] = dockerfile.read(split, "Dockerfile", load())
    assert launch.parsed.words == () and launch.host.script == "python3"
    whole = 'FROM x\nENTRYPOINT ["sh", "-c"]\nCMD ["python3 -m sglang.launch_server --model-path m --enable_metrics"]\n'
    assert [d.code for d in fix_source(whole, dockerfile, path="Dockerfile").diagnostics] == ["ARG001"]


def test_an_exec_form_item_that_is_no_string_does_not_build():
    """BuildKit's parser (PyPI `dockerfile`) refuses a JSON array holding a number, a boolean or null: the build
    fails, it is not run as the shell form as an array that is not JSON is (docs/inputs.md; round 2, case 5)."""
    from autofix.common.errors import InputError

    for item in ("8", "true", "null"):
        text = f'FROM x\nCMD ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", {item}]\n'
        with pytest.raises(InputError) as err:
            fix_source(text, dockerfile, path="Dockerfile")
        assert (err.value.line, err.value.message) == (2, "Docker cannot parse this Dockerfile: when using JSON "
                                                          "array syntax, arrays must be comprised of strings only")
    unquoted = 'FROM x\nCMD [python3, -m, sglang.launch_server, --model-path, m]\n'  # not JSON: the shell form
    assert [d.code for d in fix_source(unquoted, dockerfile, path="Dockerfile").diagnostics] == ["DKR001"]
