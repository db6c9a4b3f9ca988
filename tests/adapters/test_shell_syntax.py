"""The shell reader reads a script as bash does (``adapters/syntax/``: ``shell_tree.py``, ``shell_syntax.py`` and
``shell_words.py``, under ``argv.py``).

Each case was checked with bash (``bash -n`` for the verdict; a stub
command recording its argv for the words). The numbered sections are the
bugs of the bashlex reader: (1) quadratic time, (2) scripts bash runs that
it refused, (3) launches bash never runs that it edited. The last section
holds the places where tree-sitter-bash reads otherwise than bash and
``shell_tree`` repairs its reading. ``tests/property/test_shell_vs_bash.py``
compares with bash itself on generated scripts.
"""

from __future__ import annotations

import pytest

from autofix.adapters import argv, manifest
from autofix.adapters.syntax import shell_syntax, shell_words
from autofix.common.diagnostics import UNKNOWN
from autofix.common.errors import InputError
from autofix.common.limits import MAX_SHELL_BYTES, MAX_SHELL_DEPTH
from autofix.core.api import fix_source
from autofix.schema import load

SCHEMA = load()
LAUNCH = "python3 -m sglang.launch_server"


def launches(text: str) -> list[dict]:
    return [launch.parsed.explicit for launch in argv.read(text, "s.sh", SCHEMA)]


def refusal(text: str) -> InputError:
    with pytest.raises(InputError) as caught:
        argv.read(text, "s.sh", SCHEMA)
    return caught.value


def words(text: str) -> list[list[str]]:
    """Each simple command's words, as the program receives them."""
    return [[shell_words.value(text, w) for w in c.words] for c in shell_syntax.commands(text)]


# 1. A huge word is read in linear time (timed by bench/bench_shell.py, not here).

BIG = "x" * 1_000_000


@pytest.mark.parametrize("text", [
    f"{LAUNCH} --model-path {BIG} --tp 2\n",
    f'{LAUNCH} --model-path "{BIG}" --tp 2\n',
    f'bash -c "{LAUNCH} --model-path {BIG} --tp 2"\n',
], ids=["plain", "quoted", "bash-c"])
def test_a_one_megabyte_word_is_read_whole(text):
    assert launches(text) == [{"model_path": BIG, "tp_size": 2}]


@pytest.mark.parametrize("text", [
    f'apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: s\n'
    f'      command: [sh, -c, "{LAUNCH} --model-path {BIG} --tp 2"]\n',
    f"services:\n  s:\n    command: {LAUNCH} --model-path {BIG} --tp 2\n",
], ids=["k8s-sh-c", "compose-string"])
def test_a_one_megabyte_word_in_a_manifest_is_read_whole(text):
    assert [launch.parsed.explicit for launch in manifest.read(text, "m.yaml", SCHEMA)] == \
        [{"model_path": BIG, "tp_size": 2}]


# 2. Scripts bash runs are read.


def test_a_launch_in_a_case_arm_is_read():
    text = f'case "$1" in big) {LAUNCH} --model-path m --tp 8 ;; *) echo no ;; esac\n'
    assert launches(text) == [{"model_path": "m", "tp_size": 8}]


def test_a_launch_in_a_case_arm_is_fixed_in_place():
    text = f'case "$1" in\n  big)\n    {LAUNCH} --model-path m --enable_metrics\n    ;;\n  *) echo no ;;\nesac\n'
    result = fix_source(text, argv, path="s.sh")
    assert [(d.code, d.location.line, d.location.col) for d in result.diagnostics] == [("ARG001", 3, 52)]
    assert result.output == text.replace("--enable_metrics", "--enable-metrics")


@pytest.mark.parametrize("end", [" \\", "\\", " \\\n"])
def test_a_backslash_at_the_end_of_the_file_is_dropped(end):
    text = f"{LAUNCH} --model-path m --tp 8{end}"
    assert launches(text) == [{"model_path": "m", "tp_size": 8}]
    broken = f"{LAUNCH} --model-path m --enable_metrics{end}"
    assert fix_source(broken, argv, path="s.sh").output == broken.replace("enable_metrics", "enable-metrics")


def test_an_escaped_backslash_at_the_end_of_the_file_stays():
    assert words(f"{LAUNCH} --model-path m\\\\") == [["python3", "-m", "sglang.launch_server", "--model-path", "m\\"]]


# 3. Launches bash never runs are neither read nor edited.


def test_a_launch_after_an_unterminated_quote_is_an_input_error_at_the_quote():
    text = f"echo 'oops\n{LAUNCH} --model-path m --enable_metrics\n"
    error = refusal(text)
    assert (error.path, error.line, error.col) == ("s.sh", 1, 6)
    assert error.message == "cannot read the shell script: ' is never closed: bash reads to the end of the file looking for its '"
    with pytest.raises(InputError):
        fix_source(text, argv, path="s.sh")


@pytest.mark.parametrize(("text", "line", "col"), [
    ('echo "oops\n', 1, 6),
    ("echo $(oops\n", 1, 6),  # what is not closed: where it opens
    ("x=`oops\n", 1, 3),
    ("echo $'oops\n", 1, 6),
    (f"if true; then\n  {LAUNCH} --tp 2\n", 1, 1),
    (f"{LAUNCH} --tp 2\nfi\n", 2, 1),
    (f"{LAUNCH} --tp 2\n  done\n", 2, 3),
    (";;\n", 1, 1),
    (f"{LAUNCH} --tp 2 ;; echo\n", 1, 40),
    ("{ a\n", 1, 1),
    ("echo $'a\\'\n", 1, 6),  # `\'` escapes the quote in $'...': nothing closes it
    ("{ a; } > log x\n", 1, 14),  # no word after a compound command
    ("f() { a; } >log x\n", 1, 17),
    (f'bash -c "echo \'oops; {LAUNCH} --tp 2"\n', 1, 15),  # the script's own error, at its place in the host text
])
def test_a_script_bash_refuses_is_an_input_error_at_a_real_position(text, line, col):
    error = refusal(text)
    assert (error.line, error.col) == (line, col), error


def test_a_launch_in_an_unterminated_heredoc_is_data():
    text = f"cat <<EOF\nhello\n{LAUNCH} --model-path m --enable_metrics\n"
    assert launches(text) == []
    result = fix_source(text, argv, path="s.sh")
    assert (result.diagnostics, result.output) == ((), text)


HEREDOCS = ["cat <<EOF\n{L}\nEOF\n", "cat <<'EOF'\n{L}\nEOF\n", "cat <<-EOF\n\t{L}\n\tEOF\n",
            "cat <<EOF\n$(weird\n{L}\nEOF\n"]
# The delimiter ends at an operator: in a CRLF script it is `EOF`, and no line `EOF\r` ends it.
OPERATOR_AFTER = ['cat <<"E;F";x\n{L}\nE;F\n', "cat <<EOF; echo done\n{L}\nEOF\n", "cat <<EOF>out\n{L}\nEOF\n"]


@pytest.mark.parametrize("heredoc", HEREDOCS + OPERATOR_AFTER)
def test_a_heredoc_body_is_data_up_to_its_delimiter_line(heredoc):
    text = heredoc.replace("{L}", f"{LAUNCH} --tp 1") + f"{LAUNCH} --tp 2\n"
    assert launches(text) == [{"tp_size": 2}]
    crlf = text.replace("\n", "\r\n")
    assert launches(crlf) == ([{"tp_size": 2}] if heredoc in HEREDOCS else [])  # `EOF\r` ends `<<EOF\r`


def test_a_line_that_only_starts_with_the_delimiter_does_not_end_the_heredoc():
    text = f"cat <<EOF\nx\nEOF \n{LAUNCH} --tp 1\nEOFX\n{LAUNCH} --tp 2\n"
    assert launches(text) == []


def test_a_cr_only_script_is_one_comment_line():
    assert launches(f"# x\r{LAUNCH} --model-path m --enable_metrics\r") == []
    assert launches(f"echo x\r{LAUNCH} --tp 2\r") == []  # one `echo` command: it prints the words


@pytest.mark.parametrize("separator", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_only_a_line_feed_ends_a_line(separator):
    # str.splitlines ends lines at these; bash reads them as word characters
    assert launches(f"# note{separator}{LAUNCH} --tp 2\n") == []
    assert words(f"p a{separator}b c\n") == [["p", f"a{separator}b", "c"]]
    error = refusal(f"echo a{separator}b 'oops\n")
    assert (error.line, error.col) == (1, 10)


def test_a_crlf_line_keeps_its_carriage_return_out_of_the_value():
    # bash passes `8\r`; the value is read as written and the \r kept out of edits (ARG006 names a lone `\r`)
    text = f"{LAUNCH} --model-path m --tp 8\r\n"
    assert launches(text) == [{"model_path": "m", "tp_size": 8}]
    assert words(text)[0][-1] == "8\r"


# Bash's words where tree-sitter-bash reads others (every expectation is bash's own output).


@pytest.mark.parametrize(("text", "expected"), [
    ("p a\\ b", ["a b"]),
    ("p \\ x", [" x"]),
    ("p a\\\tb", ["a\tb"]),
    ("p ab\\\ncd", ["abcd"]),
    ('p $"loc" a$"x"', ["loc", "ax"]),
    ('p "a"\\ b', ["a b"]),
    ("p { {", ["{", "{"]),
    ("p x#y", ["x#y"]),
    ("p --k=v=w", ["--k=v=w"]),
    ("p `# c` x", ["x"]),
    ('p "a`# x`b" c`#`d', ["ab", "cd"]),
    ("p 'a\"b' \"a'b\" $'a\\tb' \"\\$x\" '\\$x'", ['a"b', "a'b", "a\tb", "$x", "\\$x"]),
    ("p \"\" ''", ["", ""]),
    ("p a\x0bb c\x0cd", ["a\x0bb", "c\x0cd"]),
])
def test_words_are_bash_s(text, expected):
    assert words(text + "\n")[0] == ["p", *expected]


@pytest.mark.parametrize(("text", "expected"), [
    ('["python3", "-m", 8', [["[python3,", "-m,", "8"]]),  # a word that starts with `[`: no test command
    ("x#y z", [["x#y", "z"]]),
    ("--k=v p", [["--k=v", "p"]]),  # `--k` is no shell name: a word, not an assignment
    ("A=1 B+=2 c[1]=3 p x=1", [["p", "x=1"]]),
    ("p \\\r\nq", [["p", "\r"], ["q"]]),  # `\` escapes the \r: no continuation
    ("p \\\r\n\\\\\r", [["p", "\r"], ["\\\r"]]),
    ("p\n  {\r", [["p"], ["{\r"]]),  # `{\r` is a word, not a brace group
    ("--tp@x y\n--tp%x", [["--tp@x", "y"], ["--tp%x"]]),
    ('[ "$OP" "$L" ] || continue', [["[", "$OP", "$L", "]"], ["continue"]]),  # `[` is a command
    ("cat <<EOF; echo done\nx\nEOF", [["cat"], ["echo", "done"]]),
    ("p > log --tp 8 2>&1 --ep 2", [["p", "--tp", "8", "--ep", "2"]]),  # a redirection takes one word
    (">log p x 3<&- y", [["p", "x", "y"]]),
    ("true && p >>log --tp 8 | q y", [["true"], ["p", "--tp", "8"], ["q", "y"]]),
    ("! p >log x", [["p", "x"]]),
    ("a=b >log c=d", [[]]),  # assignments and a redirection: no command word, no error
    ("`# c` }", [["}"]]),  # `}` is no reserved word where it is not the command's first word
    ("cat <<EOF f | p x\nbody\nEOF", [["cat", "f"], ["p", "x"]]),
])
def test_commands_are_bash_s(text, expected):
    assert words(text + "\n") == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("p ~/x", True), ("p x*", True), ("p {a,b}", True), ("p $((1+2))", True), ('p "$V"', True), ("p --tp{$V", True),
    ("p '~/x'", False), ("p '*'", False), ('p "{a,b}"', False), ("p '$V'", False), ("p \\$V", False),
])
def test_what_bash_expands_is_unknown(text, expected):
    [command] = shell_syntax.commands(text + "\n")
    assert command.words[1].dynamic is expected


def test_two_backquoted_commands_with_only_blanks_between_are_refused():
    # tree-sitter-bash reads `a` `b` as one substitution: refused rather than misread
    error = refusal(f"{LAUNCH} --tp `a` `b`\n")
    assert (error.line, error.col, "write them as $(a) $(b)" in error.message) == (1, 40, True)
    assert launches(f"{LAUNCH} --tp $(a) --ep `b`\n") == [{"tp_size": UNKNOWN, "ep_size": UNKNOWN}]


def test_deep_nesting_is_no_recursion_error():
    n = MAX_SHELL_DEPTH // 2 - 2  # each `$(echo ` is two levels of the parse tree, the launch's word four
    text = f"{LAUNCH} --model-path m --port " + "$(echo " * n + "x" + ")" * n + " --tp 2\n"
    assert launches(text) == [{"model_path": "m", "port": UNKNOWN, "tp_size": 2}]


# 4. The bounds (``limits.MAX_SHELL_DEPTH``, ``MAX_SHELL_BYTES``): an error where the script crosses one.


def braces(n: int) -> str:
    """``n`` nested ``{ ...; }`` around ``true``: ``n + 4`` levels of the parse tree."""
    return "{ " * n + "true; " + "}; " * n + "\n"


def test_nesting_up_to_the_bound_is_read():
    assert words(f"{LAUNCH} --tp 8\n" + braces(MAX_SHELL_DEPTH - 4))[-1] == ["true"]


@pytest.mark.parametrize("text, col", [
    (braces(MAX_SHELL_DEPTH - 3), 2 * (MAX_SHELL_DEPTH - 3) + 1),  # at `true`, the first node past the bound
    (braces(40_000), 2 * (MAX_SHELL_DEPTH - 2) + 1),  # at the `{` past it; the script (92 s before)
    ("echo " + '"$(echo ' * 20_000 + "x" + ')"' * 20_000 + "\n", None),
    (" && ".join(["a"] * 20_000) + "\n", None),
], ids=["one-past", "40k-braces", "20k-quoted-substitutions", "20k-and-chain"])
def test_nesting_past_the_bound_is_an_error_where_it_is_crossed(text, col):
    error = refusal(f"{LAUNCH} --tp 8\n" + text)
    assert error.line == 2 and error.message == (f"cannot read the shell script: a shell script nested more than "
                                                 f"{MAX_SHELL_DEPTH} levels deep (of bash's grammar); autofix does "
                                                 "not read further")
    assert col is None or error.col == col


def test_nesting_past_the_bound_in_a_script_word_is_placed_in_the_host_text():
    text = f"bash -c '{LAUNCH} --tp 8\n{braces(MAX_SHELL_DEPTH)}'\n"
    error = refusal(text)
    assert (error.line, error.col) == (2, 2 * (MAX_SHELL_DEPTH - 2) + 1)
    assert "nested more than" in error.message


HEAD = f"{LAUNCH} --tp 8\n"


@pytest.mark.parametrize("tail", ["", "\u00e9"], ids=["ascii", "two-byte-character"])
def test_a_script_up_to_the_byte_bound_is_read(tail):
    text = HEAD + "#" * (MAX_SHELL_BYTES - len(HEAD) - len(tail.encode())) + tail
    assert len(text.encode()) == MAX_SHELL_BYTES and launches(text) == [{"tp_size": 8}]


@pytest.mark.parametrize("tail, col", [
    ("\nx\n", MAX_SHELL_BYTES - len(HEAD) + 1),  # the line break after the comment is the first byte past
    ("\u00e9\n", MAX_SHELL_BYTES - len(HEAD)),  # the bound cuts the two bytes of `é`: at the `é`
], ids=["ascii", "cut-character"])
def test_a_script_past_the_byte_bound_is_an_error_at_the_first_byte_past(tail, col):
    text = HEAD + "#" * (MAX_SHELL_BYTES - len(HEAD) - (tail[0] != "\n")) + tail
    error = refusal(text)
    assert error.message == (f"cannot read the shell script: a shell script of more than {MAX_SHELL_BYTES:,} bytes; "
                             "autofix does not read further")
    assert (error.line, error.col) == (2, col)
