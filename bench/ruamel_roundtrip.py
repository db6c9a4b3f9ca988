"""Why autofix edits bytes instead of round-tripping YAML: what a ruamel.yaml round trip does to real files.

    pip install ruamel.yaml          # not a dependency of autofix; only this measurement uses it
    python bench/ruamel_roundtrip.py [DIR]     # default: ../shared/realworld

Loads every ``*.yaml``/``*.yml`` under DIR with ruamel.yaml's round-trip loader (quotes preserved) and dumps
it back *without changing anything*, then counts the files and diff lines that changed anyway, and the files
it refuses to load that PyYAML (SGLang's loader) reads. autofix's edits change only the bytes of the fixed
settings: an unchanged file stays byte for byte (``tests/property/test_fix_properties.py``, property 5).
"""

from __future__ import annotations

import difflib
import io
import sys
from pathlib import Path

import yaml
from ruamel.yaml import YAML, __version__

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    top = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "realworld"
    paths = sorted(p for p in top.rglob("*") if p.suffix in (".yaml", ".yml"))
    rt = YAML()
    rt.preserve_quotes = True
    changed = lines = refused = 0
    for path in paths:
        src = path.read_text(encoding="utf-8")
        try:
            data = rt.load(src)
        except Exception:  # noqa: BLE001 - counted: ruamel refuses what PyYAML reads
            yaml.safe_load(src)  # SGLang's loader reads it (raises if not: then the file is bad for both)
            refused += 1
            continue
        buf = io.StringIO()
        rt.dump(data, buf)
        out = buf.getvalue()
        if out != src:
            changed += 1
            lines += sum(1 for line in difflib.unified_diff(src.splitlines(), out.splitlines(), lineterm="", n=0)
                         if line[:1] in "+-" and not line.startswith(("+++", "---")))
    print(f"ruamel.yaml {__version__}: {len(paths)} files; an unchanged round trip rewrote {changed} of them "
          f"({lines} diff lines) and refused {refused} that PyYAML reads")


if __name__ == "__main__":
    main()
