"""Golden fixtures: fixtures/<format>/NAME.in.<ext> against its expected files.

For every input, ``fix_source`` with safe fixes must give ``NAME.out.<ext>``
byte for byte and the diagnostic lines in ``NAME.txt``; with unsafe fixes it
must give ``NAME.unsafe.out.<ext>``, or ``NAME.out.<ext>`` when that file is
absent. ``pytest --update-golden`` rewrites the expected files instead, so a
change in behaviour shows up as a diff to review.

Files are handled as bytes (decoded the way ``autofix.disk.files`` decodes them),
so CRLF, a BOM and a missing final newline are compared exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from autofix.adapters import argv, dockerfile, manifest, srtslurm, yaml_config
from autofix.core.api import FixOptions, FixResult, fix_source
from autofix.report import diagnostic_line

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
FORMATS: dict[str, ModuleType] = {"yaml_config": yaml_config, "argv": argv, "manifest": manifest,
                                  "dockerfile": dockerfile, "srt_slurm": srtslurm}


@dataclass(frozen=True)
class Golden:
    """One fixture: ``<dir>/NAME.in.<ext>`` and the files expected from it."""

    dir: Path
    name: str
    ext: str

    @property
    def id(self) -> str:
        return f"{self.dir.name}/{self.name}"

    @property
    def fmt(self) -> ModuleType:
        return FORMATS[self.dir.name]

    @property
    def input(self) -> Path:
        return self.dir / f"{self.name}.in.{self.ext}"

    @property
    def out(self) -> Path:
        return self.dir / f"{self.name}.out.{self.ext}"

    @property
    def unsafe_out(self) -> Path:
        return self.dir / f"{self.name}.unsafe.out.{self.ext}"

    @property
    def txt(self) -> Path:
        return self.dir / f"{self.name}.txt"

    @property
    def path(self) -> str:
        """The input's path as diagnostics show it: relative to the repo root."""
        return self.input.relative_to(ROOT).as_posix()


def discover() -> list[Golden]:
    found = []
    for sub in sorted(FORMATS):
        for p in sorted((FIXTURES / sub).glob("*.in.*")):
            name, ext = p.name.split(".in.", 1)
            found.append(Golden(p.parent, name, ext))
    return found


GOLDEN = discover()
IDS = [g.id for g in GOLDEN]


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")  # BOM kept as U+FEFF, newlines untouched


def write(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8"))


def run(g: Golden, text: str | None = None, *, unsafe: bool = False) -> FixResult:
    return fix_source(read(g.input) if text is None else text, g.fmt, path=g.path, options=FixOptions(unsafe=unsafe))


def lines_of(result: FixResult) -> str:
    return "".join(diagnostic_line(d) + "\n" for d in result.diagnostics)


def code_of(line: str) -> str:
    """The rule code of a diagnostic line ``path:line:col: severity: CODE [*] message``."""
    return line.split(": ", 2)[2].split(" ", 1)[0]


@pytest.fixture
def update(request) -> bool:
    return bool(request.config.getoption("--update-golden"))


def test_fixtures_exist():
    assert len([g for g in GOLDEN if g.dir.name == "yaml_config"]) >= 6
    assert len([g for g in GOLDEN if g.dir.name == "argv"]) >= 6
    assert len([g for g in GOLDEN if g.dir.name == "manifest"]) >= 6
    assert len([g for g in GOLDEN if g.dir.name == "dockerfile"]) >= 6
    assert len([g for g in GOLDEN if g.dir.name == "srt_slurm"]) >= 4
    assert len(set(IDS)) == len(IDS)


@pytest.mark.parametrize("g", GOLDEN, ids=IDS)
def test_golden(g: Golden, update: bool):
    safe = run(g)
    unsafe = run(g, unsafe=True)
    if update:
        write(g.out, safe.output)
        write(g.txt, lines_of(safe))
        if unsafe.output != safe.output:
            write(g.unsafe_out, unsafe.output)
        elif g.unsafe_out.exists():
            g.unsafe_out.unlink()
        return
    assert safe.output.encode("utf-8") == g.out.read_bytes()
    assert lines_of(safe) == read(g.txt)
    expected_unsafe = g.unsafe_out if g.unsafe_out.exists() else g.out
    assert unsafe.output.encode("utf-8") == expected_unsafe.read_bytes()
    if g.unsafe_out.exists():
        assert g.unsafe_out.read_bytes() != g.out.read_bytes(), "NAME.unsafe.out is only kept when it differs"


@pytest.mark.parametrize("g", GOLDEN, ids=IDS)
def test_expected_output_is_stable(g: Golden):
    """Fixing an expected output again changes nothing (idempotence)."""
    for unsafe, path in ((False, g.out), (True, g.unsafe_out if g.unsafe_out.exists() else g.out)):
        text = read(path)
        assert run(g, text, unsafe=unsafe).output == text, f"{path.name} changes when fixed again"


@pytest.mark.parametrize("g", GOLDEN, ids=IDS)
def test_expected_output_keeps_only_what_txt_leaves(g: Golden):
    """An expected output has no violation left, except those NAME.txt shows without ``[*]``."""
    unfixed = sorted(code_of(line) for line in read(g.txt).splitlines() if " [*] " not in line)
    assert sorted(d.code for d in run(g, read(g.out)).diagnostics) == unfixed
    assert sorted(d.code for d in run(g).remaining) == unfixed
    unsafe_out = g.unsafe_out if g.unsafe_out.exists() else g.out
    left = sorted(d.code for d in run(g, unsafe=True).remaining)
    assert sorted(d.code for d in run(g, read(unsafe_out), unsafe=True).diagnostics) == left


@pytest.mark.parametrize("g", GOLDEN, ids=IDS)
def test_clean_input_is_left_alone(g: Golden):
    """No diagnostic: the output is the input, byte for byte."""
    result = run(g)
    if not result.diagnostics:
        assert g.out.read_bytes() == g.input.read_bytes()
        assert not g.unsafe_out.exists()
