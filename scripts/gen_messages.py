"""Write the index of SGLang's check messages that ``autofix explain`` matches pasted errors against.

    python scripts/gen_messages.py                      # the oracle venv's SGLang
    python scripts/gen_messages.py --sglang DIR         # an installed or unzipped wheel: DIR/sglang or DIR
    python scripts/gen_messages.py --check              # exit 1 if the shipped file differs

Reads SGLang 0.5.23's source with ``ast`` (nothing is imported) at every
site of interest: each site of the coverage data (the catalog's ``raise``/
``assert`` sites in ``arg_groups/`` and the ones outside it in
``scripts/coverage_notes/outside.txt``, as ``scripts/coverage.py`` writes
them: run it first) and every rule's SGLang line (its ``at``; a written
rule's only when that is a ``raise``/``assert``).
For each it records the enclosing function, the exception type, the
statement's first and last lines, the line a traceback names for it (a
multi-line ``assert`` fails at its condition's first line: the line of the
compiled ``RAISE_VARARGS``), and the message's words: the literal parts of
the message (string constants, f-string and ``%``/``.format`` templates with
their placeholders, string concatenations, a message assigned to a name
earlier in the function), tokenised by ``autofix.explain.sites.words``; the words
only some of its messages have (a branch of ``a if c else b``, the items a
list collects for a ``"\\n".join``) are ``optional``. Only the
word set is kept, never the message: the index says which words a message
has, not what it says.

Output: ``autofix/schema/sglang-0.5.23-messages.json``, one site a line,
keys sorted.
"""

from __future__ import annotations

import argparse
import ast
import dis
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autofix.explain.sites import PLACEHOLDER, VERSION, words  # noqa: E402

DEFAULT_SGLANG = Path("/tmp/oracle-venv/lib/python3.11/site-packages/sglang")
SCHEMA = ROOT / "autofix" / "schema"
OUT = SCHEMA / f"sglang-{VERSION}-messages.json"
_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[diouxXeEfFgGcrsa%]")
_FIELD = re.compile(r"\{\{|\}\}|\{[^{}]*\}")


def package_dir(given: Path) -> Path:
    """The ``sglang`` package directory of ``given`` (the package itself, or a directory that holds it).

    Raises ``SystemExit`` when neither holds ``srt/``.
    """
    for candidate in (given, given / "sglang"):
        if (candidate / "srt").is_dir():
            return candidate
    raise SystemExit(f"{given}: no sglang package (expected {given}/srt or {given}/sglang/srt)")


class Module:
    """One SGLang source file: its tree, each statement's enclosing function, each raise's traceback line."""

    def __init__(self, path: Path) -> None:
        source = path.read_text(encoding="utf-8")
        self.tree = ast.parse(source)
        self.parents: dict[ast.AST, ast.AST] = {}
        self.statements: list[ast.stmt] = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.stmt):
                self.statements.append(node)
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        self.raise_lines = sorted(_raise_lines(compile(source, str(path), "exec")))

    def statement(self, line: int) -> ast.stmt | None:
        """The innermost ``raise``/``assert`` whose lines hold ``line``, else the innermost statement, else None."""
        found = [n for n in self.statements if n.lineno <= line <= n.end_lineno]
        checks = [n for n in found if isinstance(n, ast.Raise | ast.Assert)]
        pick = checks or [n for n in found if not isinstance(n, ast.FunctionDef | ast.ClassDef | ast.If | ast.For |
                                                                 ast.While | ast.With | ast.Try)]
        pick = pick or [n for n in found if isinstance(n, ast.If)]  # a comparison that raises (TypeError: SPEC130)
        return min(pick, key=lambda n: n.end_lineno - n.lineno, default=None)

    def function(self, node: ast.AST) -> ast.FunctionDef | None:
        """The innermost function around ``node``."""
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                return node
        return None

    def traceback_line(self, node: ast.stmt) -> int:
        """The line a traceback names when ``node`` raises: its ``RAISE_VARARGS``'s (the first in its lines)."""
        inside = [line for line in self.raise_lines if node.lineno <= line <= node.end_lineno]
        return inside[0] if inside else node.lineno


def _raise_lines(code) -> set[int]:
    """The lines of every ``RAISE_VARARGS`` in ``code`` and the code objects it holds."""
    out = {i.positions.lineno for i in dis.get_instructions(code) if i.opname == "RAISE_VARARGS" and i.positions.lineno}
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            out |= _raise_lines(const)
    return out


@dataclass(frozen=True)
class Text:
    """A message template: the ``text`` every message of the site has (a value filled in is ``PLACEHOLDER``),
    and ``optional`` texts some of its messages have (one branch of a conditional, an item of a list)."""

    text: str = ""
    optional: tuple[str, ...] = ()

    def __add__(self, other: Text) -> Text:
        return Text(self.text + other.text, self.optional + other.optional)


HOLE = Text(PLACEHOLDER)


def maybe(*texts: Text) -> Text:
    """A placeholder that may be any of ``texts``: their words are optional."""
    return Text(PLACEHOLDER, tuple(o for t in texts for o in (t.text, *t.optional)))


def template(node: ast.AST | None, module: Module, before: int, depth: int = 0) -> Text:
    """The literal text of a message expression.

    Strings, f-strings, ``+``, ``%``, ``"...".format(...)``; a name is what
    the enclosing function assigned to it before line ``before`` (one
    assignment: its text; several, or ``+=``: optional texts); both branches
    of ``a if c else b`` and the items of ``"sep".join(items)`` (what a list
    collects: ``items.append(...)``, a list literal) are optional texts;
    anything else is a placeholder.
    """
    if node is None:
        return Text()
    if depth > 4:
        return HOLE
    sub = lambda n: template(n, module, before, depth + 1)  # noqa: E731
    if isinstance(node, ast.Constant):
        return Text(node.value) if isinstance(node.value, str) else HOLE
    if isinstance(node, ast.JoinedStr):
        out = Text()
        for v in node.values:
            out += Text(v.value) if isinstance(v, ast.Constant) else sub(v.value) if isinstance(v.value, ast.Name) \
                else HOLE
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return sub(node.left) + sub(node.right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant):
        return Text(_PERCENT.sub(lambda m: "%" if m.group() == "%%" else PLACEHOLDER, str(node.left.value)))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Constant) \
            and isinstance(node.func.value.value, str):
        text = node.func.value.value
        if node.func.attr == "format":
            return Text(_FIELD.sub(lambda m: m.group()[0] if m.group() in ("{{", "}}") else PLACEHOLDER, text))
        if node.func.attr == "join" and node.args:
            items = node.args[0]
            if isinstance(items, ast.GeneratorExp | ast.ListComp):  # "\n".join(f"- {e}" for e in errors)
                each = sub(items.elt) if not isinstance(items.elt, ast.Name) else HOLE
                return maybe(each, *(_collected(g.iter, module, before, depth + 1) for g in items.generators))
            return _collected(items, module, before, depth + 1)
        return HOLE
    if isinstance(node, ast.IfExp):
        return maybe(sub(node.body), sub(node.orelse))
    if isinstance(node, ast.Name):
        values = _assigned(node, module, before)
        if len(values) == 1 and values[0][0]:
            return sub(values[0][1])
        if not values:  # a loop's name: `for ok, reason in ((c, "..."), ...)`, or over a list assigned earlier
            return _looped(node, module, before, depth + 1)
        return maybe(*(sub(v) for _, v in values))
    return HOLE


def _looped(name: ast.Name, module: Module, before: int, depth: int) -> Text:
    """The texts a ``for`` loop above line ``before`` binds ``name`` to, as optional texts: the items at its
    place in each tuple of a literal list or tuple (or one a name is assigned); anything else is a placeholder."""
    sub = lambda n: template(n, module, before, depth + 1)  # noqa: E731
    for loop in _statements(name, module, before):
        if not isinstance(loop, ast.For):
            continue
        targets = loop.target.elts if isinstance(loop.target, ast.Tuple) else [loop.target]
        at = next((i for i, t in enumerate(targets) if isinstance(t, ast.Name) and t.id == name.id), None)
        if at is None:
            continue
        items = loop.iter
        if isinstance(items, ast.Name):
            assigned = _assigned(items, module, before)
            items = assigned[0][1] if len(assigned) == 1 else None
        if not isinstance(items, ast.List | ast.Tuple):
            return HOLE
        parts = [sub(e.elts[at] if isinstance(loop.target, ast.Tuple) else e) for e in items.elts
                 if not isinstance(loop.target, ast.Tuple) or (isinstance(e, ast.Tuple) and len(e.elts) > at)]
        return maybe(*parts)
    return HOLE


def _statements(node: ast.AST, module: Module, before: int) -> list[ast.AST]:
    """The nodes of the function around ``node`` above line ``before``, in source order."""
    fn = module.function(node)
    return sorted((n for n in ast.walk(fn) if getattr(n, "lineno", before) < before), key=lambda n: n.lineno) \
        if fn else []


def _assigned(name: ast.Name, module: Module, before: int) -> list[tuple[bool, ast.expr]]:
    """``(plain, value)`` of what the function around ``name`` assigns to it above line ``before``
    (``plain``: ``=``, not ``+=``)."""
    out = []
    for stmt in _statements(name, module, before):
        if isinstance(stmt, ast.Assign | ast.AugAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == name.id for t in targets):
                out.append((isinstance(stmt, ast.Assign), stmt.value))
    return out


def _collected(items: ast.AST, module: Module, before: int, depth: int) -> Text:
    """The items a list named ``items`` collects above line ``before``, as optional texts: what it is
    assigned (a list literal) and ``append``s / ``extend``s with literals; anything else is a placeholder."""
    if not isinstance(items, ast.Name):
        return HOLE
    sub = lambda n: template(n, module, before, depth + 1)  # noqa: E731
    parts = []
    for _, value in _assigned(items, module, before):
        parts += [sub(e) for e in value.elts] if isinstance(value, ast.List | ast.Tuple) else []
    for call in _statements(items, module, before):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                isinstance(call.func.value, ast.Name) and call.func.value.id == items.id and call.args:
            if call.func.attr == "append":
                parts.append(sub(call.args[0]))
            elif call.func.attr == "extend" and isinstance(call.args[0], ast.List | ast.Tuple):
                parts += [sub(e) for e in call.args[0].elts]
    return maybe(*parts)


def describe(module: Module, stmt: ast.stmt) -> tuple[str, str | None, Text]:
    """``(kind, exception type, message template)`` of a raise/assert statement (kind ``other`` otherwise)."""
    if isinstance(stmt, ast.Assert):
        return "assert", "AssertionError", template(stmt.msg, module, stmt.lineno)
    if not isinstance(stmt, ast.Raise):
        return "other", None, Text()
    exc = stmt.exc
    if isinstance(exc, ast.Call):
        func = exc.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        out = Text()
        for n, arg in enumerate(exc.args):
            out += (HOLE if n else Text()) + template(arg, module, stmt.lineno)
        return "raise", name, out
    if isinstance(exc, ast.Name) and exc.id[:1].isupper():  # raise ValueError
        return "raise", exc.id, Text()
    return "raise", None, Text()  # a bare re-raise, or an exception object built elsewhere


def wanted(coverage: dict, rules) -> set[str]:
    """Every ``path:line`` to index: the coverage data's sites and the rules' SGLang lines."""
    out = set(coverage["sites"])
    for rule in rules:
        if re.fullmatch(r"[\w/.]+\.py:\d+", rule.at):
            out.add(rule.at)
    return out


def index(sglang: Path, where: set[str], required: set[str]) -> tuple[dict[str, dict], list[str]]:
    """``({site: entry}, problems)``: the entry of each of ``where`` (a ``path:line`` under ``sglang/srt/``).

    A line of ``required`` (the coverage data's and the settings rules') that
    holds no statement is a problem; a written rule's line that holds no
    raise/assert is left out (a warning's position).
    """
    modules: dict[str, Module] = {}
    out: dict[str, dict] = {}
    problems = []
    for site in sorted(where):
        path, line = site.rsplit(":", 1)
        if path not in modules:
            modules[path] = Module(sglang / "srt" / path)
        module = modules[path]
        stmt = module.statement(int(line))
        kind, exception, text = describe(module, stmt) if stmt else ("other", None, Text())
        if kind == "other" and site not in required:
            continue
        if stmt is None:
            problems.append(f"{site}: no statement there")
            continue
        fn = module.function(stmt)
        line_no = module.traceback_line(stmt) if kind != "other" else int(line)
        first, last = (stmt.lineno, stmt.end_lineno) if kind != "other" else (int(line), int(line))
        always = words(text.text)
        optional = frozenset().union(*(words(o) for o in text.optional)) - always
        entry = {"function": fn.name if fn else "<module>", "kind": kind, "exception": exception,
                 "lines": [first, last], "words": sorted(always)}
        out[f"{path}:{line_no}"] = entry | ({"optional": sorted(optional)} if optional else {})
    return out, problems


def as_json(sites: dict[str, dict]) -> str:
    """The index file: ``{"sglang": version, "sites": {site: entry}}``, one site a line, keys sorted."""
    lines = [f"{json.dumps(w)}: {json.dumps(sites[w], sort_keys=True)}" for w in sorted(sites)]
    return f'{{"sglang": "{VERSION}", "sites": {{\n' + ",\n".join(lines) + "\n}}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sglang", type=Path, default=DEFAULT_SGLANG,
                    help="the sglang package directory, or a directory holding it (an unzipped wheel)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = ap.parse_args(argv)
    from autofix.pipeline.items import SettingsRule
    from autofix.rules import RULES

    coverage = json.loads((SCHEMA / f"sglang-{VERSION}-coverage.json").read_text(encoding="utf-8"))
    required = set(coverage["sites"]) | {r.at for r in RULES if isinstance(r, SettingsRule)}
    sites, problems = index(package_dir(args.sglang), wanted(coverage, RULES), required)
    for problem in problems:
        print(problem, file=sys.stderr)
    text = as_json(sites)
    if args.check:
        same = args.out.exists() and args.out.read_text(encoding="utf-8") == text
        print(f"{args.out}: {'up to date' if same else 'differs; run scripts/gen_messages.py'}", file=sys.stderr)
        return 0 if same and not problems else 1
    args.out.write_text(text, encoding="utf-8")
    print(f"{args.out}: {len(sites)} sites, {sum(1 for s in sites.values() if s['words'])} with words",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
