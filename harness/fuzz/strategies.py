"""What the fuzz target is fed: raw bytes, syntax soup, and mutated golden fixtures.

The mutations are structure-aware: they splice in the tokens the readers
care about (quotes, escapes, continuations, heredocs, anchors, aliases,
merge keys, brackets, BOM, CR, NUL, line and paragraph separators, launch
words, deep nesting, long words) at random places of real inputs, delete,
duplicate and truncate, so that most inputs still launch SGLang and reach
the rules and the fixes.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

from harness.fuzz.target import NAMES

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
_NAME_OF = {"yaml_config": "config.yaml", "argv": "serve.sh", "manifest": "deploy.yaml",
            "dockerfile": "Dockerfile", "srt_slurm": "recipe.yaml"}


def _fixtures() -> list[tuple[str, bytes]]:
    out = []
    for d in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        for f in sorted(d.glob("*.in.*")):
            out.append((_NAME_OF[d.name], f.read_bytes()))
    return out


FIXTURE_INPUTS = _fixtures()

TOKENS = [
    b"'", b'"', b"\\", b"\r", b"\r\n", b"\n", b"\t", b" ", b"#", b"\\\n", b"\\\r\n", b";", b"&&", b"|", b"&",
    b"<<EOF\n", b"<<'EOF'\n", b"EOF\n", b"<<-EOF\n", b"$(", b")", b"`", b"$((1+2))", b"${X}", b"$X", b'"$@"',
    b"case x in\n", b"a) ", b";;\n", b"esac\n", b"if true; then\n", b"fi\n", b"{ ", b" }", b"(", b"$'\\n'",
    b"&a ", b"*a", b"<<: *a\n", b"<<: [*a, *b]\n", b"[", b"]", b"{", b"}", b": ", b"- ", b", ", b"? ", b"---\n",
    b"...\n", b"|\n", b">-\n", b"!!str ", b"!!binary ", b"!!python/object:x ", b"%YAML 1.1\n", b"&b [*a, *a]\n",
    b"\xef\xbb\xbf", b"\x00", "\u2028".encode(), "\u0085".encode(), b"\x0c", b"\x0b", b"\xff", b"\xc3",
    b"--tp ", b"--tp-size 8 ", b"--config c.yaml ", b"--ep-dispatch-algorithm static ", b"--moe-a2a-backend none ",
    b"tp-size: 8\n", b"ep-dispatch-algorithm: static\n", b"python3 -m sglang.launch_server ", b"sglang serve m ",
    b"bash -c \"", b"sh -c '", b"CMD [", b"CMD ", b"ENTRYPOINT [", b"RUN ", b"FROM x\n", b"# escape=`\n",
    b"command: ", b"args: ", b"[" * 50, b"]" * 50, b"x" * 5000, b"- " * 40,
]


@st.composite
def mutated_fixture(draw) -> tuple[bytes, str]:
    """A golden fixture's input with one to five mutations."""
    name, data = draw(st.sampled_from(FIXTURE_INPUTS))
    buf = bytearray(data)
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(("insert", "insert", "delete", "replace", "duplicate-line", "truncate")))
        at = draw(st.integers(0, len(buf)))
        if kind == "insert":
            buf[at:at] = draw(st.sampled_from(TOKENS))
        elif kind == "delete":
            del buf[at:at + draw(st.integers(1, 8))]
        elif kind == "replace":
            buf[at:at + draw(st.integers(1, 4))] = draw(st.sampled_from(TOKENS))
        elif kind == "duplicate-line":
            start = buf.rfind(b"\n", 0, at) + 1
            end = buf.find(b"\n", at)
            end = len(buf) if end < 0 else end + 1
            buf[end:end] = buf[start:end]
        else:
            del buf[at:]
    return bytes(buf), name


soup = st.lists(st.sampled_from(TOKENS) | st.binary(max_size=4), max_size=40).map(b"".join)

inputs = st.one_of(
    mutated_fixture(),
    st.tuples(soup, st.sampled_from(NAMES)),
    st.tuples(st.binary(max_size=300), st.sampled_from(NAMES)),
)
