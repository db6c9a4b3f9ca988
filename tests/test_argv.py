"""The shell launch adapter: finding launches, reading words, minimal edits."""

from __future__ import annotations

import pytest

from autofix.adapters import argv as shell
from autofix.common.diagnostics import UNKNOWN, Set, Unset
from autofix.common.edits import apply_edits
from autofix.common.errors import CannotEdit
from autofix.core.api import FixOptions, fix_source
from autofix.schema import load

SCHEMA = load()


def launches(text: str) -> list[dict]:
    return [launch.parsed.explicit for launch in shell.read(text, "s.sh", SCHEMA)]


def edited(text: str, *ops, index: int = 0) -> str:
    launch = shell.read(text, "s.sh", SCHEMA)[index]
    return apply_edits(text, shell.edit(text, launch, list(ops), SCHEMA))


def test_finds_every_launch_form():
    text = (
        "#!/bin/bash\n"
        "python -m sglang.launch_server --tp 2\n"
        "FOO=1 BAR=2 python3 -m sglang.launch_server --tp-size=4  # prefill\n"
        "nohup /opt/venv/bin/python3.11 -m sglang.launch_server --ep 8 > log 2>&1 &\n"
        "if true; then sglang serve org/model --tp 8; fi\n"
        "echo python -m other --tp 1\n"
    )
    assert launches(text) == [
        {"tp_size": 2},
        {"tp_size": 4},
        {"ep_size": 8},
        {"model_path": "org/model", "tp_size": 8},
    ]


def test_quotes_continuations_and_expansions():
    text = 'python -m sglang.launch_server \\\n  --moe-a2a-backend "none" \\\n  --tp $TP \\\n  --ep-dispatch-algorithm=\'lp\'\n'
    assert launches(text) == [{"moe_a2a_backend": "none", "tp_size": UNKNOWN, "ep_dispatch_algorithm": "lp"}]


def test_serve_model_type_is_not_a_server_flag():
    assert launches("sglang serve m --model-type llm --tp 2\n") == [{"model_path": "m", "tp_size": 2}]


def test_replace_keeps_the_words_quote_style():
    text = "python -m sglang.launch_server --ep-dispatch-algorithm 'static'\n"
    assert edited(text, Set("ep_dispatch_algorithm", "dynamic")) == \
        "python -m sglang.launch_server --ep-dispatch-algorithm 'dynamic'\n"


def test_replace_inline_value():
    text = "python -m sglang.launch_server --ep-dispatch-algorithm=static --tp 8\n"
    assert edited(text, Set("ep_dispatch_algorithm", "dynamic")) == \
        "python -m sglang.launch_server --ep-dispatch-algorithm=dynamic --tp 8\n"


def test_add_flag_on_one_line():
    text = "python -m sglang.launch_server --tp 8 > log.txt 2>&1 &\n"
    assert edited(text, Set("ep_size", 8)) == "python -m sglang.launch_server --tp 8 --ep-size 8 > log.txt 2>&1 &\n"


def test_add_flag_as_a_continuation_line():
    text = "python -m sglang.launch_server \\\n    --tp 8 \\\n    --port 30000\necho done\n"
    assert edited(text, Set("ep_size", 8)) == \
        "python -m sglang.launch_server \\\n    --tp 8 \\\n    --port 30000 \\\n    --ep-size 8\necho done\n"


def test_add_flag_above_a_last_line_that_carries_a_comment():
    text = "python -m sglang.launch_server \\\n  --tp 8 \\\n  --port 30000  # http\n"
    assert edited(text, Set("ep_size", 8)) == \
        "python -m sglang.launch_server \\\n  --tp 8 \\\n  --ep-size 8 \\\n  --port 30000  # http\n"


def test_unset_removes_a_whole_continuation_line():
    text = "python -m sglang.launch_server \\\n  --enable-eplb \\\n  --tp 8\n"
    assert edited(text, Unset("enable_eplb")) == "python -m sglang.launch_server \\\n  --tp 8\n"


def test_unset_removes_every_occurrence_inline():
    text = "python -m sglang.launch_server --enable-eplb --tp 8 --enable-eplb\n"
    assert edited(text, Unset("enable_eplb")) == "python -m sglang.launch_server --tp 8\n"


def test_each_launch_is_fixed_on_its_own():
    text = (
        "python -m sglang.launch_server --model-path m --ep-dispatch-algorithm static --moe-a2a-backend deepep &\n"
        "python -m sglang.launch_server --model-path m --ep-dispatch-algorithm static &\n"
    )
    result = fix_source(text, shell)
    assert [d.location.line for d in result.diagnostics] == [2]
    assert result.output == text.replace("static &", "dynamic &")


def test_a_heredoc_ends_at_its_delimiter_line_whatever_its_body_holds():
    text = "case $x in a) echo ;; esac\ncat <<EOF\n$(weird\nEOF\npython -m sglang.launch_server --ep-dispatch-algorithm lp\n"
    assert launches(text)[-1] == {"ep_dispatch_algorithm": "lp"}


def test_no_edit_means_identical_bytes():
    text = "\ufeffpython -m sglang.launch_server --tp 8\r\n"
    assert fix_source(text, shell).output == text


@pytest.mark.parametrize("word", ["--tp", "--ep-dispatch-algorithm=x", "--pp"])
def test_argparse_problems_do_not_crash(word):
    assert shell.read(f"python -m sglang.launch_server {word}\n", "s.sh", SCHEMA)[0].parsed.problems


def test_unset_on_the_last_continued_line_drops_the_continuation():
    text = "python -m sglang.launch_server \\\n  --tp 8 \\\n  --enable-eplb\necho done\n"
    assert edited(text, Unset("enable_eplb")) == "python -m sglang.launch_server \\\n  --tp 8\necho done\n"


def test_a_variable_inside_a_list_keeps_the_list_non_empty():
    text = ("python3 -m sglang.launch_server --model-path m --tp 4 --moe-runner-backend experimental_sgl_marlin "
            "--lora-paths sql=$ADAPTERS/sql\n")
    result = fix_source(text, shell)
    assert [d.code for d in result.diagnostics] == ["RUN020", "RUN021"]


def test_unset_of_the_last_two_continued_lines():
    text = ("python3 -m sglang.launch_server \\\n  --tp 2 \\\n  --init-expert-location '{\"layer\": 0}' \\\n"
            "  --enable-eplb\nwait\n")
    assert edited(text, Unset("init_expert_location"), Unset("enable_eplb")) == \
        "python3 -m sglang.launch_server \\\n  --tp 2\nwait\n"


def test_unset_of_every_flag_keeps_the_program():
    text = "python3 -m sglang.launch_server \\\n  --enable-eplb\n"
    assert edited(text, Unset("enable_eplb")) == "python3 -m sglang.launch_server\n"


def test_double_quotes_inside_single_quotes_are_kept():
    text = """python -m sglang.launch_server --init-expert-location='{"layer": 0}' --json-model-override-args "{\\"a\\": 1}"\n"""
    assert launches(text) == [{"init_expert_location": '{"layer": 0}', "json_model_override_args": '{"a": 1}'}]


def test_unset_of_a_last_line_with_a_comment_takes_the_comment():
    text = "python3 -m sglang.launch_server \\\n  --tp 1 \\\n  --enable-eplb  # serve\necho\n"
    assert edited(text, Unset("enable_eplb")) == "python3 -m sglang.launch_server \\\n  --tp 1\necho\n"


def test_add_and_remove_at_the_end_of_a_continued_command():
    text = ("python3 -m sglang.launch_server \\\n  --moe-runner-backend experimental_sgl_marlin \\\n"
            "  --enable-lora \\\n  --enable-eplb # x\n")
    out = edited(text, Unset("enable_eplb"), Set("lora_use_virtual_experts", True))
    assert out == ("python3 -m sglang.launch_server \\\n  --moe-runner-backend experimental_sgl_marlin \\\n"
                   "  --enable-lora \\\n  --lora-use-virtual-experts\n")


def test_an_invalid_value_makes_the_setting_unknown():
    text = "python3 -m sglang.launch_server --model-path m --moe-a2a-backend bogus --ep-dispatch-algorithm static\n"
    # argparse refuses the value (ARG003); the settings rules that read it stay silent
    assert [d.code for d in fix_source(text, shell).diagnostics] == ["ARG003"]


@pytest.mark.parametrize("expansion", ['"$@"', '"${A2A[@]}"', "$EXTRA_ARGS"])
def test_an_expansion_that_may_hold_flags_silences_the_rules(expansion):
    text = f"python3 -m sglang.launch_server --tp 8 {expansion} --ep-dispatch-algorithm static\n"
    # the expansion may set --moe-a2a-backend deepep (or --enable-waterfill, which forces it)
    assert fix_source(text, shell).diagnostics == ()
    later = f"python3 -m sglang.launch_server --tp 8 {expansion} --moe-a2a-backend none --ep-dispatch-algorithm static\n"
    assert fix_source(later, shell).diagnostics == ()


def test_crlf_script_keeps_its_carriage_returns():
    text = "python3 -m sglang.launch_server --tp 8 --ep-dispatch-algorithm static\r\necho hi\r\n"
    assert fix_source(text, shell).output == text.replace("static", "dynamic")


@pytest.mark.parametrize(("written", "fixed"), [
    ('--ep-dispatch-algorithm="lp"', '--ep-dispatch-algorithm="dynamic"'),
    ("--ep-dispatch-algorithm='lp'", "--ep-dispatch-algorithm='dynamic'"),
    ("--ep-dispatch-algorithm=lp", "--ep-dispatch-algorithm=dynamic"),
])
def test_inline_value_keeps_its_quotes(written, fixed):
    text = f"python -m sglang.launch_server --model-path m --tp 8 {written}\n"
    assert fix_source(text, shell, path="serve.sh").output == text.replace(written, fixed)


def test_inline_respell_keeps_the_value_quotes():
    text = 'python -m sglang.launch_server --model-path m --Moe-A2A-Backend="deepep"\n'
    assert fix_source(text, shell, path="serve.sh").output == text.replace("--Moe-A2A-Backend", "--moe-a2a-backend")


# Scripts inside shell words: `bash -lc "<script>"`, `sh -c '<script>'`.


def codes_at(text: str, unsafe: bool = False) -> list[tuple[str, int, int]]:
    result = fix_source(text, shell, path="s.sh", options=FixOptions(unsafe=unsafe))
    return [(d.code, d.location.line, d.location.col) for d in result.diagnostics]


@pytest.mark.parametrize("program", ["bash -lc", "sh -c", "/bin/bash -ec", "zsh -x -c", "exec dash -c", "bash --norc -c"])
def test_a_shell_word_script_is_read(program):
    text = f'{program} "python3 -m sglang.launch_server --model-path d --cuda-graph-max-bs 8"\n'
    col = text.index("--cuda-graph-max-bs") + 1
    assert codes_at(text) == [("VER001", 1, col)]
    assert fix_source(text, shell, path="s.sh").output == text.replace("max-bs 8", "max-bs-decode 8")


def test_a_single_quoted_script_is_edited_inside_its_quotes():
    text = "sh -c 'python3 -m sglang.launch_server --model-path m --enable_metrics'\n"
    assert codes_at(text) == [("ARG001", 1, 55)]
    assert fix_source(text, shell, path="s.sh").output == text.replace("enable_metrics", "enable-metrics")


@pytest.mark.parametrize("wrapper", ["srun --nodes 1", "docker run x", "docker run --gpus all img", "timeout 600",
                                     "kubectl exec pod --", "mpirun -np 2", "sudo -u svc", "env A=1 nohup"])
def test_a_shell_after_a_wrapper_and_its_options_runs_the_script(wrapper):
    text = f'{wrapper} bash -lc "python3 -m sglang.launch_server --model-path d --cuda-graph-max-bs 8"\n'
    col = text.index("--cuda-graph-max-bs") + 1
    assert codes_at(text) == [("VER001", 1, col)]
    assert fix_source(text, shell, path="s.sh").output == text.replace("max-bs 8", "max-bs-decode 8")


@pytest.mark.parametrize("command", ["echo", "printf '%s\\n'", "cat", "grep -F", "sudo echo", "ssh host"])
def test_a_shell_word_after_a_command_that_takes_words_as_data_runs_nothing(command):
    text = f'{command} bash -c "python3 -m sglang.launch_server --enable_metrics"\n'
    assert shell.read(text, "s.sh", SCHEMA) == [], text


def test_an_ansi_c_quoted_script_is_decoded_and_edited_in_its_quoting():
    text = ("bash -c $'python3 -m sglang.launch_server \\\\\\n  --model-path m \\\\\\n"
            "  --chat-template \\'x\\' --tp 2'\n")
    assert launches(text) == [{"model_path": "m", "chat_template": "x", "tp_size": 2}]
    out = edited(text, Set("tp_size", 4), Set("chat_template", "it's"), Set("ep_size", 2))
    assert out == ("bash -c $'python3 -m sglang.launch_server \\\\\\n  --model-path m \\\\\\n"
                   "  --chat-template \\'it\\'\"\\'\"\\'s\\' --tp 4 \\\\\\n  --ep-size 2'\n")
    assert launches(out) == [{"model_path": "m", "chat_template": "it's", "tp_size": 4, "ep_size": 2}]


def test_no_shell_no_script():
    # echo prints the words; `bash script.sh` runs no -c script; `--norc` is not -c
    for text in ['echo bash -c "python3 -m sglang.launch_server --enable_metrics"\n',
                 'bash run.sh "python3 -m sglang.launch_server --enable_metrics"\n',
                 'bash --norc "python3 -m sglang.launch_server --enable_metrics"\n']:
        assert shell.read(text, "s.sh", SCHEMA) == [], text


def test_an_outer_expansion_in_a_double_quoted_script_is_unknown():
    # the outer shell expands $TP (and \$EP reaches the inner shell as $EP): both unknown
    text = 'bash -c "python3 -m sglang.launch_server --model-path \\"$M\\" --tp $TP --ep \\$EP --pp-size 2"\n'
    assert launches(text) == [{"model_path": UNKNOWN, "tp_size": UNKNOWN, "ep_size": UNKNOWN, "pp_size": 2}]
    words = shell.read(text, "s.sh", SCHEMA)[0].parsed.words
    assert [w.dynamic for w in words] == [False, True, False, True, False, True, False, False]


def test_a_double_quoted_script_gets_escaped_edits():
    text = 'bash -c "python3 -m sglang.launch_server --model-path m --chat-template \\"x\\""\n'
    out = edited(text, Set("chat_template", 'a "b" $c'), Set("tp_size", 2))
    assert out == ('bash -c "python3 -m sglang.launch_server --model-path m '
                   '--chat-template \'a \\"b\\" \\$c\' --tp-size 2"\n')
    assert launches(out) == [{"model_path": "m", "chat_template": 'a "b" $c', "tp_size": 2}]


def test_a_single_quoted_script_refuses_a_single_quote():
    text = "sh -c 'python3 -m sglang.launch_server --model-path m --chat-template x'\n"
    launch = shell.read(text, "s.sh", SCHEMA)[0]
    with pytest.raises(CannotEdit, match="single-quoted"):
        shell.edit(text, launch, [Set("chat_template", "it's")], SCHEMA)


def test_a_continued_multi_line_script():
    text = ('bash -c "\n  python3 -m sglang.launch_server \\\n    --model-path m \\\n'
            '    --moe-a2a-backend none \\\n    --ep-dispatch-algorithm static\n"\n')
    assert codes_at(text) == [("EP003", 5, 5)]
    assert edited(text, Unset("ep_dispatch_algorithm")) == \
        'bash -c "\n  python3 -m sglang.launch_server \\\n    --model-path m \\\n    --moe-a2a-backend none\n"\n'


def test_a_script_in_a_script_word():
    text = "sh -c \"bash -lc 'python3 -m sglang.launch_server --model-path m --enable_metrics'\"\n"
    assert codes_at(text) == [("ARG001", 1, text.index("--enable_metrics") + 1)]
    assert fix_source(text, shell, path="s.sh").output == text.replace("enable_metrics", "enable-metrics")


def test_a_mixed_quoting_script_word_is_read_not_edited():
    text = "bash -c 'python3 -m sglang.launch_server --model-path m '\"--tp 2 --enable_metrics\"\n"
    assert launches(text) == [{"model_path": "m", "tp_size": 2}]
    launch = shell.read(text, "s.sh", SCHEMA)[0]
    with pytest.raises(CannotEdit, match="mixes quoting"):
        shell.edit(text, launch, [Set("tp_size", 4)], SCHEMA)


def test_arithmetic_expansion_is_an_unknown_value():
    text = "python -m sglang.launch_server --model-path m --port \"$((30000 + RANK))\" --chat-template '$((x))' --tp $((2*4))\n"
    assert launches(text) == [{"model_path": "m", "port": UNKNOWN, "chat_template": "$((x))", "tp_size": UNKNOWN}]


def test_a_comment_in_backquotes_between_continued_flags_is_read_as_nothing():
    text = "python -m sglang.launch_server --model-path m \\\n  `# tensor parallel` --tp 8 \\\n  --enable_metrics\n"
    result = fix_source(text, shell, path="s.sh")
    assert [(d.code, d.location.line, d.location.col) for d in result.diagnostics] == [("ARG001", 3, 3)]
    assert result.output == text.replace("--enable_metrics", "--enable-metrics")


def test_words_a_data_command_prints_are_no_launch():
    for text in ["echo python3 -m sglang.launch_server --model-path m --ep-dispatch-algorithm static\n",
                 "printf '%s\\n' python3 -m sglang.launch_server --ep-dispatch-algorithm static\n",
                 "grep -r python3 -m sglang.launch_server --enable_metrics\n"]:
        assert shell.read(text, "s.sh", SCHEMA) == [], text
