"""What the fuzz target found, kept: each input it shrank to, and what autofix now does with it."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from autofix.adapters import argv, dockerfile, yaml_config
from autofix.adapters.syntax.dockerfile_syntax import instructions
from autofix.cli.commands import app
from autofix.core.api import FixOptions, fix_source
from harness.fuzz.target import check_input

# A stray word (`\'`, the word `'`) after the EPLB flags that RUN022's unsafe fix removes.
STRAY_AFTER_REMOVED = (
    "#!/usr/bin/env bash\npython3 -m sglang.launch_server \\\n    --model-path m \\\n    --tp 8 --ep 8 \\\n"
    "    --moe-runner-backend experimental_sgl_marlin \\\n    --enable-lora \\\n    --lora-use-virtual-experts \\\n"
    "    --lora-backend triton \\\n    --max-lora-rank 16 \\\n    --lora-target-modules all \\\n"
    "    --enable-eplb \\\n    --ep-num-redundant-experts 32 \\'\n    --port 30000\n"
)


def test_a_nul_character_in_a_dockerfile_is_bad_input_not_an_internal_error():
    data = (b"'\x00# escape=`\nFROM lmsysorg/sglang:v0.5.23-cu129\nCMD python3 -m sglang.launch_server "
            b"--model-path m --tp 8 `\n    --moe-a2a-backend DeepEP\n")
    check_input(data, "Dockerfile")


def test_an_abbreviated_flag_key_is_spelled_in_full_not_rewritten_to_itself():
    # ARG005's fix wrote `enable-ep: true` again (the reader passes `--enable-ep true`): never clean after --write
    data = (b"\xef\xbb\xbftensor-parallel-size: 8\nexpert-parallel-size: 8\nenable-ep: true\n"
            b"ep-dispatch-algorithm: static\n")
    check_input(data, "config.yaml")


def test_an_unterminated_quote_in_a_compose_command_string_is_bad_input_where_it_opens():
    # compose (go-shellwords) refuses such a string; the `sh -c` path raised CannotEdit past every handler
    data = (b'services:\n  decode:\n    image: lmsysorg/sglang:v0.5.23-cu129\n'
            b'    command: sh -c "python3 -m sglang.launch_server')
    check_input(data, "deploy.yaml")
    result = CliRunner().invoke(app, ["-", "--stdin-filename", "compose.yml"], input=data.decode())
    assert result.exit_code == 2
    assert "compose.yml:4:20: error: compose cannot split this command string: an unterminated quote" in result.stderr


def test_an_exec_form_script_continued_across_lines_is_read_as_docker_joins_it():
    # the JSON string held a `\` continuation: decoding the raw text failed ("Invalid \escape") past every handler
    data = (b'FROM x\nCMD ["sh", "-c", "\\\npython3 -m sglang.launch_server --model-path m --tp 8 '
            b'--moe-a2a-backend DeepEP --port ${PORT:-30000}"]\n')
    check_input(data, "Dockerfile")
    result = fix_source(data.decode(), dockerfile, path="Dockerfile")
    assert [(d.code, d.location.line, d.location.col) for d in result.diagnostics] == [("ARG003", 3, 55)]
    assert result.output == data.decode().replace("DeepEP", "deepep")


END_OF_OPTIONS = (
    "#!/usr/bin/env bash\npython -m sglang.launch_server \\\n  --model-path deepseek-ai/DeepSeek-V3 \\\n  --tp 8 \\\n"
    "  --moe-a2a-backend=deepep \\\n  --moe-runner-backend experimental_sgl_marlin \\\n  --enable-eplb \\\n  --"
)


@pytest.mark.parametrize(("text", "codes", "why"), [
    # RUN022's unsafe fix removed the EPLB flags: the edited line gave the stray word to --lora-target-modules
    (STRAY_AFTER_REMOVED, ["RUN022", "ARG006"], "would give the word(s) no option takes to --lora-target-modules"),
    # RUN019's unsafe fix pins --ep-size 8; added after `--`, argparse reads it as a positional
    (END_OF_OPTIONS, ["RUN019", "ARG006"], "cannot add --ep-size after the '--' that ends the options"),
], ids=["removal-gives-a-stray-word-away", "flag-added-after-double-dash"])
def test_a_fix_that_would_change_what_the_other_words_mean_is_not_made(text, codes, why):
    # both stopped the read-back check with an internal error
    result = fix_source(text, argv, path="s.sh", options=FixOptions(unsafe=True))
    assert result.output == text
    assert [d.code for d in result.remaining] == codes
    assert any(why in c for c in result.conflicts)
    check_input(text.encode(), "serve.sh", unsafe=True)


def test_removing_continued_last_lines_keeps_the_continuation_the_next_line_needs():
    # the EPLB lines RUN022's unsafe fix removes end in `\`, and the command goes on with `;` on the line after:
    # the fix also took the `\` before them, leaving a line that opens with `;` (a bash syntax error)
    text = STRAY_AFTER_REMOVED.replace(" \\'\n    --port", " \\\n;    --port")
    result = fix_source(text, argv, path="s.sh", options=FixOptions(unsafe=True))
    assert result.output == text.replace("    --enable-eplb \\\n    --ep-num-redundant-experts 32 \\\n", "")
    check_input(text.encode(), "serve.sh", unsafe=True)


def test_flags_are_not_added_inside_a_word_continued_across_lines():
    # `-\` + newline + `-lora-target-modules` is one word to bash; the flags went above the line it ends on,
    # inside the word
    text = ("python3 -m sglang.launch_server --model-path m --tp 4 --moe-runner-backend experimental_sgl_marlin "
            "--enable-lora --max-lora-rank 64 -\\\n-lora-target-modules all --lora-paths sql=/a > lora.log 2>&1 &\n")
    result = fix_source(text, argv, path="s.sh")
    assert result.output == text.replace(" > lora.log", " --lora-use-virtual-experts --lora-backend triton > lora.log")
    check_input(text.encode(), "serve.sh")


@pytest.mark.parametrize("breaks", ["\u2028\u2028", "\x85", "\u2029", "\r"])
def test_yaml_positions_count_line_feeds_only(breaks):
    # libyaml counts NEL, LS, PS and a lone CR as line breaks: its line numbers pointed past the text's lines
    data = f"tp-size: 8\n{breaks}tp-size: 8\n".encode()
    check_input(data, "config.yaml")
    result = CliRunner().invoke(app, ["-", "--stdin-filename", "config.yaml"], input=data.decode())
    assert result.exit_code == 1
    assert result.stderr.startswith("config.yaml:1:1: warning: ARG007")


def test_builder_flags_are_read_byte_by_byte_as_buildkit_reads_them():
    # BuildKit's extractBuilderFlags tests each UTF-8 byte: U+2028 is no blank there (it is to TrimSpace), so
    # `160 \u2028--enable_metrics` has no builder flags; autofix skipped it as a blank and read two
    data = (b"FROM x\nCMD python3 -m sglang.launch_server \\\n      --model-path m \\\n      --cuda-graph-max-bs---\n"
            b" 160 \xe2\x80\xa8\\\n      --enable_metrics \\\n      --host 0.0.0.0 --port 30000\n")
    check_input(data, "Dockerfile")
    # and a flag holding a character with the byte 0xA0 (a blank to that loop) is cut in two there: refused
    result = CliRunner().invoke(app, ["-", "--stdin-filename", "Dockerfile"],
                                input="FROM x\nRUN --mount=type=cache,target=/r\u00e0 python3 -m sglang.launch_server "
                                      "--model-path m\n")
    assert result.exit_code == 2
    assert "Dockerfile:2:33: error: BuildKit reads this character of a builder flag as separate bytes" in result.stderr


def test_a_flag_key_whose_value_argparse_reads_as_an_option_is_the_value_s_problem():
    # `enable-eplb: -d` is passed on as `--enable-eplb -d`, and argparse refuses `-d` (oracle: "unrecognized
    # arguments: -d"); VER001 took the key's own flag for the refused word and "renamed" it to itself
    data = b"tensor-parallel-size: 8\r\ntensor-parallel-size: 8\r\nexpert-parallel-size: 8\r\nenable-eplb: -d"
    check_input(data, "config.yaml")
    result = CliRunner().invoke(app, ["-", "--stdin-filename", "config.yaml"], input="enable-eplb: -d\n")
    assert "ARG005 enable-eplb is a flag: it takes true or false, not '-d'" in result.stderr
    assert "VER001" not in result.stderr


def test_a_character_buildkit_cuts_in_two_anywhere_in_its_flags_is_bad_input():
    # HEALTHCHECK's flags: BuildKit splits U+0085 (C2 85) at its 0x85 byte; the binding then failed to decode
    data = (b"FROM x\nHEALTHCHECK --interval=30s -\xc2\x85-start-period=600s CMD curl -f http://l || exit 1\n"
            b"CMD python3 -m sglang.launch_server --model-path m\n")
    check_input(data, "Dockerfile")
    result = CliRunner().invoke(app, ["-", "--stdin-filename", "Dockerfile"], input=data.decode())
    assert result.exit_code == 2
    assert "Dockerfile:2:29: error: BuildKit reads this character as separate bytes" in result.stderr


def test_a_dockerfile_keyword_ends_where_buildkit_trims_the_line():
    # `'` + U+2028 + CR: TrimSpace takes both off the end, so the keyword is `'`; autofix read `'\u2028`
    data = (b"'\xe2\x80\xa8\r\nFROM x\nCMD python3 -m sglang.launch_server --model-path m --tp 8 "
            b"--moe-a2a-backend DeepEP\n")
    check_input(data, "Dockerfile")


def test_builder_flags_are_read_from_the_trimmed_line():
    # BuildKit's splitCommand takes the flags from the line TrimSpace'd: a quote left open runs to the last
    # character that is not a blank; autofix kept the trailing blank in the flag (an internal error)
    data = b"FROM x AS base\nENTRYPOINT python3 -m sglang.launch_server\nCMD --'model-path CMD --model-path "
    check_input(data, "Dockerfile")
    [cmd] = [i for i in instructions(data.decode()) if i.keyword == "CMD"]
    assert cmd.args_start == cmd.end and cmd.logical[0] == ""  # all flags (BuildKit: one), no arguments


def test_a_builder_flag_past_ascii_is_compared_as_buildkit_builds_it():
    # extractBuilderFlags appends each byte as a character: BuildKit's flag `--\ufeffmodel-path` is its UTF-8
    # bytes read as Latin-1; autofix compared it with the flag as written (an internal error)
    data = "FROM x\nENTRYPOINT [\"python3\", \"-m\", \"sglang.launch_server\"]\nCMD --\ufeffmodel-path m\n".encode()
    check_input(data, "Dockerfile")


def test_a_key_after_a_lone_carriage_return_is_indented_as_yaml_counts_it():
    # YAML's lines break at a lone CR; autofix's positions do not, but a new key's indentation is YAML's column
    data = (b"model-path: m\r\nmoe-runner-backend: experimental_sgl_marlin\r\nenable-lora: true\r\n"
            b"lora-use-virtual-experts: true\r\nmax-lora-rank: 16\rlora-target-modules: all\r\n")
    check_input(data, "config.yaml")
    result = fix_source(data.decode(), yaml_config, path="c.yaml")
    assert result.output.endswith("lora-target-modules: all\r\nlora-backend: triton\r\n")


def test_a_mapping_value_json_cannot_hold_is_refused_as_sglang_refuses_it():
    # `name: !!binary ...` inside a mapping: SGLang's reader json.dumps the mapping and fails (oracle: TypeError at
    # server_args_config_parser.py:179); autofix's did the same, inside its guard
    data = b"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: !!binary deepseek-r1-sglang\n  namespace:"
    check_input(data, "deploy.yaml")
    result = CliRunner().invoke(app, ["-", "--stdin-filename", "c.yaml", "--stdin-format", "yaml"],
                                input=data.decode())
    # its keys are no SGLang options: YAML that parses, and no config (issue 29, verdicts round 2, case 1)
    assert result.exit_code == 0 and result.stderr.startswith("c.yaml: skipped: not an SGLang config")
    config = b"model-path: m\ntp-size: 8\njson-model-override-args:\n  name: !!binary deepseek-r1-sglang\n"
    check_input(config, "serve.yaml")
    result = CliRunner().invoke(app, ["-", "--stdin-filename", "c.yaml", "--stdin-format", "yaml"],
                                input=config.decode())
    assert result.exit_code == 2
    assert "c.yaml:4:3: error: SGLang's config reader cannot pass 'json-model-override-args' on as JSON" \
        in result.stderr
