"""autofix.adapters.syntax.dockerfile_syntax and dockerfile_instruction: exact offsets of Dockerfile instructions."""

from __future__ import annotations

import json

import dockerfile
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autofix.adapters.syntax.dockerfile_instruction import Instruction
from autofix.adapters.syntax.dockerfile_syntax import instructions
from autofix.common.errors import InputError


def check_tokens(text: str, ins: Instruction) -> None:
    """Every exec token's span is its JSON literal; array_end is a ']'."""
    if ins.form == "exec":
        assert text[ins.array_end] == "]"
        for t in ins.tokens:
            assert json.loads(text[t.start:t.end]) == t.value
            assert ins.args_start <= t.start < t.end <= ins.array_end
    else:
        assert ins.tokens == () and ins.array_end == -1


def parse(text: str) -> list[Instruction]:
    out = instructions(text)
    for ins in out:
        if ins.verbatim:
            check_tokens(text, ins)
        assert text[ins.start:ins.end].upper().startswith(ins.keyword)
        assert "\r" not in text[ins.end - 1:ins.end]
    return out


def one(text: str, keyword: str) -> Instruction:
    found = [i for i in parse(text) if i.keyword == keyword]
    assert len(found) == 1
    return found[0]


def test_exec_form_cmd():
    text = 'FROM x\nCMD ["python3", "-m", "sglang.launch_server", "--tp", "8"]\n'
    ins = one(text, "CMD")
    assert ins.form == "exec" and ins.line == 2 and ins.col == 1
    assert [t.value for t in ins.tokens] == ["python3", "-m", "sglang.launch_server", "--tp", "8"]
    assert text[ins.tokens[0].start:ins.tokens[0].end] == '"python3"'
    assert text[ins.start:ins.end] == text.splitlines()[1]
    assert ins.args_start == text.index("[")
    assert ins.array_end == text.rindex("]")
    assert ins.escape == "\\" and ins.verbatim and not ins.heredoc


def test_exec_form_entrypoint_and_run_with_escapes():
    text = 'ENTRYPOINT ["sh", "-c", "echo \\"hi\\" \\u00e9"]\nRUN ["a\\\\b"]\n'
    ent = one(text, "ENTRYPOINT")
    assert ent.form == "exec"
    assert [t.value for t in ent.tokens] == ["sh", "-c", 'echo "hi" é']
    run = one(text, "RUN")
    assert [t.value for t in run.tokens] == ["a\\b"]


def test_shell_forms():
    text = "FROM x\nRUN pip install sglang\nENTRYPOINT python3 -m sglang.launch_server\nCMD --tp 8\n"
    for kw, args in (("RUN", "pip install sglang"), ("ENTRYPOINT", "python3 -m sglang.launch_server")):
        ins = one(text, kw)
        assert ins.form == "shell" and ins.tokens == () and ins.array_end == -1
        assert text[ins.args_start:ins.end] == args
        assert ins.verbatim
    # BuildKit reads leading "--words" as builder flags for every instruction,
    # so "CMD --tp 8" has the argument "8"
    cmd = one(text, "CMD")
    assert text[cmd.args_start:cmd.end] == "8"


def test_lowercase_keywords_and_indent():
    text = 'from x as build\n  cmd ["a"]\n\tRun echo hi\n'
    ins = parse(text)
    assert [i.keyword for i in ins] == ["FROM", "CMD", "RUN"]
    assert (ins[1].line, ins[1].col) == (2, 3)
    assert (ins[2].line, ins[2].col) == (3, 2)
    assert text[ins[1].start:ins[1].start + 3] == "cmd"


def test_run_mount_flags():
    text = 'RUN --mount=type=cache,target="/root/.cache pip" --network=none pip install sglang\n'
    ins = one(text, "RUN")
    assert text[ins.args_start:ins.end] == "pip install sglang"
    text = 'RUN --mount=type=cache,target=/r ["pip", "install", "sglang"]\n'
    ins = one(text, "RUN")
    assert ins.form == "exec" and [t.value for t in ins.tokens] == ["pip", "install", "sglang"]


def test_continuation_with_comments_and_blank_lines():
    text = (
        "FROM x\n"
        "CMD python3 -m sglang.launch_server \\\n"
        "    # the tensor parallel size\n"
        "\n"
        "    --tp 8 \\\n"
        "   \n"
        "    --port 30000\n"
        "EXPOSE 30000\n"
    )
    ins = parse(text)
    cmd = ins[1]
    assert cmd.keyword == "CMD" and cmd.form == "shell"
    assert text[cmd.start:cmd.end].endswith("--port 30000")
    assert text[cmd.args_start:cmd.end].startswith("python3")
    assert not cmd.verbatim  # sh would not drop the comment line
    assert ins[2].keyword == "EXPOSE" and ins[2].line == 8


def test_plain_continuation_is_verbatim():
    text = "CMD python3 -m sglang.launch_server \\\n  --tp 8 \\\n  --ep-dispatch-algorithm static\n"
    cmd = one(text, "CMD")
    assert cmd.verbatim and cmd.line == 1
    assert text[cmd.args_start:cmd.end] == text[4:-1]


def test_blanks_after_continuation_character():
    text = "RUN echo a \\  \t\n  b\nCMD c\n"
    run, cmd = parse(text)
    assert text[run.start:run.end] == "RUN echo a \\  \t\n  b"
    assert not run.verbatim
    assert cmd.line == 3


def test_exec_array_across_lines_with_comment():
    text = (
        'CMD ["python3", "-m", \\\n'
        "  # model\n"
        '  "sglang.launch_server", \\\n'
        '  "--model-path", "/models/x"]\n'
    )
    ins = one(text, "CMD")
    assert ins.form == "exec" and ins.verbatim
    assert [t.value for t in ins.tokens] == ["python3", "-m", "sglang.launch_server", "--model-path", "/models/x"]
    assert ins.tokens[2].start == text.index('"sglang')
    assert ins.array_end == len(text) - 2
    assert ins.end == len(text) - 1


def test_string_cut_by_continuation_is_not_verbatim():
    text = 'CMD ["sglang.launch\\\n_server"]\n'
    ins = one(text, "CMD")
    assert ins.form == "exec" and not ins.verbatim
    assert ins.tokens[0].value == "sglang.launch_server"


@pytest.mark.parametrize("args", ['["a", ]', "[a]", '["a"', "['a']", '["a", NaN]', "[ python3 ]"])
def test_invalid_json_is_shell_form(args):
    text = f"CMD {args}\n"
    ins = one(text, "CMD")
    assert ins.form == "shell" and ins.tokens == ()
    assert text[ins.args_start:ins.end] == args


def test_non_string_array_is_refused():
    with pytest.raises(InputError) as exc:
        instructions('FROM x\nRUN echo\nCMD ["a", 1]\n', "Dockerfile")
    assert exc.value.path == "Dockerfile" and exc.value.line == 3
    assert "strings only" in exc.value.message


def test_text_after_array_is_ignored_like_docker():
    text = 'CMD ["a"] trailing\n'
    ins = one(text, "CMD")
    assert ins.form == "exec" and [t.value for t in ins.tokens] == ["a"]
    assert ins.array_end == text.index("]")


def test_escape_directive_backtick():
    text = (
        "# escape=`\n"
        "FROM mcr.microsoft.com/windows\n"
        "RUN dir C:\\ `\n"
        "    && echo done\n"
        'CMD ["python3", `\n'
        '     "-m", "sglang.launch_server"]\n'
    )
    ins = parse(text)
    assert [i.keyword for i in ins] == ["FROM", "RUN", "CMD"]
    assert all(i.escape == "`" for i in ins)
    run = ins[1]
    assert text[run.start:run.end] == "RUN dir C:\\ `\n    && echo done"
    assert not run.verbatim
    cmd = ins[2]
    assert cmd.form == "exec" and cmd.verbatim
    assert [t.value for t in cmd.tokens] == ["python3", "-m", "sglang.launch_server"]


def test_escape_directive_only_at_top():
    text = "FROM x\n# escape=`\nRUN a `\nCMD b\n"
    ins = parse(text)
    assert [i.keyword for i in ins] == ["FROM", "RUN", "CMD"]
    assert ins[1].escape == "\\"


def test_syntax_directive_then_escape():
    text = "# syntax=docker/dockerfile:1\n# escape=`\nRUN a `\n  b\n"
    (run,) = parse(text)
    assert run.escape == "`" and text[run.start:run.end] == "RUN a `\n  b"


def test_bad_escape_directive_is_refused():
    with pytest.raises(InputError) as exc:
        instructions("# escape=x\nFROM x\n")
    assert exc.value.line == 1


def test_crlf():
    text = 'FROM x\r\nCMD ["python3", \\\r\n  "-m"]\r\nRUN a \\\r\n  b\r\n'
    ins = parse(text)
    assert [i.keyword for i in ins] == ["FROM", "CMD", "RUN"]
    assert text[ins[0].start:ins[0].end] == "FROM x"
    cmd = ins[1]
    assert [t.value for t in cmd.tokens] == ["python3", "-m"]
    assert text[cmd.start:cmd.end] == 'CMD ["python3", \\\r\n  "-m"]'
    run = ins[2]
    assert text[run.start:run.end] == "RUN a \\\r\n  b" and run.line == 4


def test_bom():
    text = '\ufeffCMD ["a"]\n'
    (cmd,) = parse(text)
    assert cmd.start == 1 and cmd.col == 1 and cmd.tokens[0].value == "a"


def test_heredoc():
    text = "FROM x\nRUN <<EOF\npython3 -m sglang.launch_server --tp 8\nEOF\nCMD [\"a\"]\n"
    ins = parse(text)
    assert [i.keyword for i in ins] == ["FROM", "RUN", "CMD"]
    run = ins[1]
    assert run.heredoc and run.form == "shell" and not run.verbatim
    assert text[run.start:run.end] == "RUN <<EOF"
    assert ins[2].line == 5 and not ins[2].heredoc


def test_unterminated_heredoc_is_refused():
    with pytest.raises(InputError) as exc:
        instructions("FROM x\nRUN <<EOF\necho hi\n")
    assert exc.value.line == 2


def test_continuation_at_eof_is_accepted():
    text = "FROM x\nRUN echo \\"
    run = parse(text)[1]
    assert text[run.start:run.end] == "RUN echo \\"


def test_empty_and_comment_only():
    assert instructions("") == []
    assert instructions("# nothing\n\n") == []


def test_onbuild_and_healthcheck_are_not_split():
    text = 'ONBUILD CMD ["a"]\nHEALTHCHECK --interval=5s CMD ["curl", "x"]\n'
    onb, hc = parse(text)
    assert onb.keyword == "ONBUILD" and onb.form == "shell" and not onb.verbatim
    assert text[onb.args_start:onb.end] == 'CMD ["a"]'
    assert hc.keyword == "HEALTHCHECK" and text[hc.args_start:hc.end] == 'CMD ["curl", "x"]'


def test_onbuild_heredoc():
    text = "ONBUILD RUN <<EOF\necho hi\nEOF\nCMD [\"a\"]\n"
    onb, cmd = parse(text)
    assert onb.heredoc and not onb.verbatim and text[onb.start:onb.end] == "ONBUILD RUN <<EOF"
    assert cmd.line == 4


def test_copy_exec_form():
    text = 'COPY ["a b", "/c/"]\nCOPY --from=build /x /y\n'
    c1, c2 = parse(text)
    assert c1.form == "exec" and [t.value for t in c1.tokens] == ["a b", "/c/"]
    assert c2.form == "shell" and text[c2.args_start:c2.end] == "/x /y"


def test_no_arguments():
    text = "FROM x\nRUN\n"
    run = parse(text)[1]
    assert run.args_start == run.end and text[run.start:run.end] == "RUN"


MULTI_STAGE = """\
# syntax=docker/dockerfile:1.7
ARG CUDA=12.4.1
FROM nvidia/cuda:${CUDA}-devel-ubuntu22.04 AS build
RUN --mount=type=cache,target=/root/.cache/pip \\
    pip install "sglang[all]" \\
    # flashinfer comes from its own index
    && pip install flashinfer -i https://flashinfer.ai/whl/cu124/torch2.4

FROM nvidia/cuda:${CUDA}-runtime-ubuntu22.04
COPY --from=build /usr/local /usr/local
ENV SGLANG_PORT=30000 \\
    HF_HOME=/models
EXPOSE 30000
HEALTHCHECK CMD curl -f http://localhost:30000/health || exit 1
ENTRYPOINT ["python3", "-m", "sglang.launch_server"]
CMD ["--model-path", "/models/x", \\
     "--tp", "8", \\
     "--port", "30000"]
"""


def test_multi_stage():
    ins = parse(MULTI_STAGE)
    assert [i.keyword for i in ins] == [
        "ARG", "FROM", "RUN", "FROM", "COPY", "ENV", "EXPOSE", "HEALTHCHECK", "ENTRYPOINT", "CMD",
    ]
    run = ins[2]
    assert MULTI_STAGE[run.args_start:].startswith('pip install "sglang[all]"')
    assert MULTI_STAGE[run.start:run.end].endswith("torch2.4")
    cmd = ins[-1]
    assert [t.value for t in cmd.tokens] == ["--model-path", "/models/x", "--tp", "8", "--port", "30000"]
    assert cmd.line == 16 and cmd.verbatim
    assert ins[-2].form == "exec"


SGLANG_DOCKERFILE = """\
FROM lmsysorg/sglang:latest
WORKDIR /sgl-workspace
RUN pip install --no-cache-dir "transformers>=4.45" \\
 && mkdir -p /models
CMD ["python3", "-m", "sglang.launch_server", "--model-path", "/models/x", "--tp", "8"]

FROM lmsysorg/sglang:latest AS ep
# expert parallel
CMD python3 -m sglang.launch_server \\
  --tp 8 \\
  --ep-dispatch-algorithm static
"""


@pytest.mark.parametrize("text", [SGLANG_DOCKERFILE, MULTI_STAGE, SGLANG_DOCKERFILE.replace("\n", "\r\n")])
def test_agrees_with_buildkit(text):
    ours = instructions(text)
    theirs = dockerfile.parse_string(text)
    assert len(ours) == len(theirs)
    lines = text.split("\n")
    for mine, cmd in zip(ours, theirs):
        assert mine.keyword == cmd.cmd.upper()
        assert mine.line == cmd.start_line
        # our span ends on BuildKit's last line (no dropped lines at the end here)
        assert text.count("\n", 0, mine.end) + 1 == cmd.end_line
        assert (mine.form == "exec") == (cmd.json and cmd.cmd.upper() != "HEALTHCHECK")
        if mine.form == "exec":
            assert tuple(t.value for t in mine.tokens) == cmd.value
            for t in mine.tokens:
                assert json.loads(text[t.start:t.end]) == t.value
        assert lines[mine.line - 1].rstrip("\r").lstrip().upper().startswith(mine.keyword)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_sglang_launches(newline):
    text = SGLANG_DOCKERFILE.replace("\n", newline)
    sglang = [i for i in instructions(text) if i.keyword == "CMD"]
    assert sglang[0].form == "exec" and sglang[0].tokens[2].value == "sglang.launch_server"
    assert sglang[1].form == "shell" and sglang[1].verbatim
    assert text[sglang[1].args_start:sglang[1].end].replace("\r\n", "\n") == (
        "python3 -m sglang.launch_server \\\n  --tp 8 \\\n  --ep-dispatch-algorithm static"
    )


PIECES = [
    "FROM x", "RUN a \\", "RUN a \\  ", "  # c", "", "   ", "  b", "CMD [\"a\", \\", "  \"b\"]",
    "CMD [\"a\"]", "cmd [ \"a\" , \"b\" ]", "RUN --mount=type=cache,target=/r \\", "ENTRYPOINT x [", "\\",
    "RUN <<EOF", "EOF", "ONBUILD RUN <<EOF", "\u00a0RUN x", "RUN\u00a0x", "ENV A=1 \\", "# escape=`", "RUN a `",
    "CMD [\"a\\\\\"]",
]


@settings(max_examples=300)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=12), st.sampled_from(["\n", "\r\n"]),
       st.booleans())
def test_random_dockerfiles_agree_with_buildkit(pieces, newline, final_newline):
    """No InternalError: the offsets found here always match BuildKit's reading."""
    text = newline.join(pieces) + (newline if final_newline else "")
    try:
        ours = instructions(text)
    except InputError:
        return
    for ins in ours:
        if ins.verbatim:
            check_tokens(text, ins)
        assert 0 <= ins.start <= ins.args_start <= ins.end <= len(text)
        assert text[ins.start:ins.end].upper().startswith(ins.keyword)


def test_logical_line_of_a_backtick_continuation_with_comment_lines():
    text = "# escape=`\nFROM x\nCMD a `\n# dropped\n\n    b `  \n  c\n"
    cmd = one(text, "CMD")
    logical, offsets = cmd.logical
    assert logical == "a     b   c"
    assert len(offsets) == len(logical) + 1
    assert "".join(text[o] for o in offsets[:-1]) == logical
    assert offsets[-1] == text.rindex("c") + 1
    assert offsets[logical.index("b")] == text.index("b `")


def test_heredoc_bodies_are_located():
    text = "FROM x\nRUN <<A cat && <<-B sh\na\r\nA\n\tb\n\tB\nRUN <<EOT\nEOT\n"
    runs = [i for i in parse(text) if i.keyword == "RUN"]
    a, b = runs[0].heredocs
    assert (a.name, text[a.start:a.end], a.chomp) == ("A", "a\r\n", False)
    assert (b.name, text[b.start:b.end], b.chomp) == ("B", "\tb\n", True)
    (empty,) = runs[1].heredocs
    assert empty.start == empty.end == text.rindex("EOT")


def test_a_nul_character_is_refused_where_it_stands():
    # found by the fuzz target: the binding passes BuildKit a C string, which ends at the NUL, so the
    # instructions after it were never seen and ours disagreed with BuildKit's (an internal error)
    text = "FROM x\nCMD python3 -m sglang.launch_server \x00--tp 8\n"
    with pytest.raises(InputError) as exc:
        instructions(text, "Dockerfile")
    assert (exc.value.line, exc.value.col) == (2, 37)
    assert "NUL character" in exc.value.message
