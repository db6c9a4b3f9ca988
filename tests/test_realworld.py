"""The real recipes of ../shared/realworld: read without error, untouched where no fix applies.

Every file is read by the adapter ``detect`` picks, checked, and fixed in
memory. A file with no violation must come back byte for byte; a fixed file
must read back clean, and every byte outside the edited lines must stay.
The oracle's verdict on the fixed launches is measured by
``scripts/realworld.py`` (see the README), not here.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from autofix.adapters import detect
from autofix.core.api import fix_source
from autofix.disk.encoding import decode
from autofix.schema import load

REALWORLD = Path(os.environ.get("AUTOFIX_REALWORLD", Path(__file__).resolve().parents[1].parent / "shared" / "realworld"))
FILES = sorted(p for p in REALWORLD.rglob("*") if p.is_file() and p.name != "README.md") if REALWORLD.exists() else []

pytestmark = pytest.mark.skipif(not FILES, reason=f"reads the production recipes of the project's shared folder, not "
                                f"here ({REALWORLD}): set AUTOFIX_REALWORLD to a copy of them")


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_read_and_written_back(path: Path):
    text = decode(path.read_bytes(), str(path))
    fmt = detect(str(path), text)
    assert fmt is not None and fmt.NAME == "srt-slurm", f"{path.name}: detected as {fmt and fmt.NAME}"
    result = fix_source(text, fmt, path=path.name)
    if not result.diagnostics:
        assert result.output == text
        return
    # what is left is what a sweep's variants need fixed differently in one shared key: SGLang only warns
    assert all(not d.violation.refuses for d in result.remaining), [d.violation.message for d in result.remaining]
    assert not result.remaining or any("fix it by hand" in c for c in result.conflicts)
    assert not any(d.fixable for d in result.remaining)  # --write fixed all it could: none is `[*]`
    again = fix_source(result.output, fmt, path=path.name)
    assert again.output == result.output  # fixed text is read back and written back byte for byte
    assert [d.code for d in again.diagnostics] == [d.code for d in result.remaining]
    # every byte outside the SGLang mappings stays
    inside = [range(launch.ctx.root.start_mark.index, launch.ctx.root.end_mark.index + 1)
              for launch in fmt.read(text, path.name, load())]
    matcher = difflib.SequenceMatcher(None, text, result.output, autojunk=False)
    for tag, a, b, _, _ in matcher.get_opcodes():
        if tag != "equal":
            assert any(a in r and b in r for r in inside), f"{tag} at {a}:{b} ({text[a:b]!r}) is outside the launches"


def test_every_recipe_launch_is_found():
    """84 recipes with a backend.sglang_config hold 159 launches; the sweep recipe 36: its base's 2 roles
    and 2 roles for each of its 17 variants (zip_override sections of 4, 6, 4 and 3)."""
    if not FILES:
        pytest.skip("no realworld files")
    counts = {}
    for path in FILES:
        text = decode(path.read_bytes(), str(path))
        counts[path.name] = fix_source(text, detect(str(path), text), path=path.name).launches
    assert sum(counts.values()) == 195
    assert counts["glm5__gb200-fp4__glm5-mtp.yaml"] == 36
