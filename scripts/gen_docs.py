"""Write docs/rules.md from the rule docstrings: python scripts/gen_docs.py"""

from pathlib import Path

from autofix.docs import pipeline_steps, render_all
from autofix.rules import RULES

if __name__ == "__main__":
    out = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
    out.write_text(render_all(RULES, pipeline_steps()), encoding="utf-8")
    print(f"wrote {out}")
