#!/usr/bin/env python
"""Print autofix's package map: per package, what it owns (its docstring's first line), its modules and
lines, and its largest module; then the largest module of all.

    .venv/bin/python scripts/package_map.py            # a Markdown table
    .venv/bin/python scripts/package_map.py --owns     # only the package and what it owns (docs/architecture.md)

Packages are the directories of ``autofix/`` with an ``__init__.py`` (``rules`` counted with its sub-packages);
lines are physical lines of ``.py`` files.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "autofix"


def owns(package: Path) -> str:
    """The first sentence of ``package``'s docstring."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    return doc.split("\n\n")[0].replace("\n", " ").strip()


def lines(path: Path) -> int:
    with path.open(encoding="utf-8") as f:
        return sum(1 for _ in f)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--owns", action="store_true", help="only the package and what it owns")
    args = parser.parse_args()
    packages = sorted(p for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    if args.owns:
        for p in packages:
            print(f"- `autofix/{p.name}/`: {owns(p)}")
        return
    print("| package | owns | modules | lines | largest module |")
    print("|---|---|---:|---:|---|")
    everything = []
    for p in packages:
        sizes = sorted(((lines(f), f) for f in p.rglob("*.py")), reverse=True)
        everything += sizes
        top = sizes[0]
        print(f"| `{p.name}/` | {owns(p)} | {len(sizes)} | {sum(n for n, _ in sizes)} | "
              f"`{top[1].relative_to(ROOT)}` ({top[0]}) |")
    top = max(everything)
    print(f"\nlargest module: `{top[1].relative_to(ROOT)}`, {top[0]} lines; "
          f"{len(everything)} modules, {sum(n for n, _ in everything)} lines")


if __name__ == "__main__":
    main()
