"""Write docs/rules.md from the rule docstrings: python scripts/gen_docs.py"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's autofix, not an installed one

from autofix.explain.rule_docs import pipeline_steps, render_all  # noqa: E402
from autofix.rules import RULES  # noqa: E402

if __name__ == "__main__":
    out = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
    out.write_text(render_all(RULES, pipeline_steps()), encoding="utf-8")
    print(f"wrote {out}")
