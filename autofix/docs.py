"""Rule documentation rendered from the rule docstrings (``explain``, docs/rules.md)."""

from __future__ import annotations

import inspect

from autofix.rules import Rule

HEADINGS = ("## What it does", "## Why SGLang refuses it", "## Example", "Use instead", "## Fix safety", "## SGLang source")
# a rule whose input SGLang accepts (``refuses=False``) says why it matters instead
WHY_IT_MATTERS = "## Why it matters"


def headings(rule: Rule) -> tuple[str, ...]:
    """The headings ``rule``'s docstring has, in order."""
    if rule.refuses:
        return HEADINGS
    return (HEADINGS[0], WHY_IT_MATTERS, *HEADINGS[2:])


def render_rule(rule: Rule) -> str:
    """Markdown for one rule: a title line, then its docstring body."""
    body = inspect.cleandoc(rule.doc)
    first, _, rest = body.partition("\n")
    return f"# {rule.code} {rule.name}\n\n{first}\n{rest}\n"


def render_all(rules) -> str:
    """``docs/rules.md``: a table of the rules, then each rule's page."""
    lines = ["# Rules", "", "Generated from the rule docstrings by `python scripts/gen_docs.py`.", "",
             "| code | name | summary |", "|---|---|---|"]
    lines += [f"| [{r.code}](#{r.code.lower()}-{r.name}) | `{r.name}` | {r.summary} |" for r in rules]
    lines.append("")
    for r in rules:
        lines += [render_rule(r).replace("\n## ", "\n### ").replace("# ", "## ", 1)]
    return "\n".join(lines)
