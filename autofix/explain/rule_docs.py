"""Rule documentation rendered from the rule docstrings (``explain``, docs/rules.md)."""

from __future__ import annotations

import inspect

from autofix.pipeline.items import Derivation
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


def section(rule: Rule, heading: str) -> str:
    """The text under ``heading`` (``## Fix safety``) in ``rule``'s docstring, up to the next heading; "" if
    it has none."""
    body = inspect.cleandoc(rule.doc)
    _, found, rest = body.partition(f"\n{heading}\n")
    return rest.split("\n## ", 1)[0].strip() if found else ""


def rule_record(rule: Rule) -> dict:
    """One rule as data (``autofix rules --output-format json``): code, name, severity (``error`` when SGLang
    refuses the input, else ``warning``), summary, sglang_source, step (a pipeline rule's or override's step id,
    else None) and fix_safety (the ``## Fix safety`` section)."""
    position = getattr(rule, "position", None)
    return {"code": rule.code, "name": rule.name, "severity": "error" if rule.refuses else "warning",
            "summary": rule.summary, "sglang_source": rule.at,
            "step": position.step if position else None, "fix_safety": section(rule, "## Fix safety")}


def render_all(rules, steps=()) -> str:
    """``docs/rules.md``: a table of the rules, the pipeline steps with their derivations and rules (``steps``:
    ``(Step, items)`` pairs in order), then each rule's page."""
    lines = ["# Rules", "", "Generated from the rule docstrings by `python scripts/gen_docs.py`.", "",
             "| code | name | severity | summary |", "|---|---|---|---|"]
    lines += [f"| [{r.code}](#{r.code.lower()}-{r.name}) | `{r.name}` | {'error' if r.refuses else 'warning'} | "
              f"{r.summary} |" for r in rules]
    lines.append("")
    if steps:
        lines += ["## Pipeline steps", "",
                  "SGLang's resolution steps that autofix models, in SGLang's order, each with what it declares "
                  "(derivations) and checks (rules), at the SGLang line each mirrors.", ""]
        for step, items in steps:
            lines.append(f"- `{step.id}` (`{step.module}:{step.line}`)")
            for it in items:
                where = it.position.at + (f", via line {it.position.via}" if it.position.via else "")
                if isinstance(it, Derivation):
                    tag = f" — warns as [{it.code}](#{it.code.lower()}-{it.name})" if it.code else ""
                    lines.append(f"  - declares {', '.join(f'`{d}`' for d in it.writes)} (`{where}`): "
                                 f"{it.summary}{tag}")
                else:
                    lines.append(f"  - checks [{it.code}](#{it.code.lower()}-{it.name}) (`{where}`)")
        lines.append("")
    for r in rules:
        lines += [render_rule(r).replace("\n## ", "\n### ").replace("# ", "## ", 1)]
    return "\n".join(lines)


def pipeline_steps() -> list[tuple]:
    """``(Step, items)`` for each SGLang step that holds a derivation or a rule, in pipeline order."""
    from autofix.pipeline.run import order
    from autofix.rules import SETTINGS
    from autofix.schema import load

    schema = load()
    by_step: dict[str, list] = {}
    for it in order(SETTINGS, schema):
        by_step.setdefault(it.position.step, []).append(it)
    return [(s, by_step[s.id]) for s in schema.steps if s.id in by_step]
