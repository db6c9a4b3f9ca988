"""SGLang's verdicts on ``--config`` files written in another encoding than UTF-8, and autofix's (issue 29, third
round; tests/test_encodings.py).

SGLang reads the file with ``open(path)`` (the locale's encoding: UTF-8) and ``yaml.safe_load``
(``server_args_config_parser.py:140-141``): a UTF-8 byte order mark is no character of YAML's, and the config is
read as without it; a UTF-16 or UTF-32 text without a mark decodes as UTF-8, and YAML refuses its zero bytes (a
``ReaderError`` at line 141). The oracle's check.py reads the file as UTF-8 text itself before SGLang does, so a
text that does not decode (a mark of UTF-16 or UTF-32, Latin-1) stops there and cannot be asked; SGLang's own
read of it, in ``yaml.safe_load`` at line 141, raises the same ``UnicodeDecodeError``.
"""

from __future__ import annotations

import codecs

import pytest

from autofix.adapters import argv as shell
from autofix.cli.config_files import on_disk
from autofix.core.api import fix_source
from autofix.disk import files
from harness.oracle.oracle import run_batch, verdict
from tests.oracle import requires_oracle
from tests.test_encodings import CONFIG

pytestmark = [pytest.mark.oracle, requires_oracle]
EP004 = "sglang/srt/arg_groups/parallel_hook.py:791"
YAML_ERROR = "sglang/srt/utils/server_args_config_parser.py:141"
CASES = {  # id: (the file's bytes, SGLang's recorded verdict)
    "utf-8": (CONFIG.encode(), EP004),
    "utf-8-bom": (codecs.BOM_UTF8 + CONFIG.encode(), EP004),
    "utf-16le": (CONFIG.encode("utf-16-le"), YAML_ERROR),
    "utf-16be": (CONFIG.encode("utf-16-be"), YAML_ERROR),
    "utf-32le": (CONFIG.encode("utf-32-le"), YAML_ERROR),
    "utf-32be": (CONFIG.encode("utf-32-be"), YAML_ERROR),
}


@pytest.fixture(scope="module")
def answers(tmp_path_factory) -> dict[str, dict]:
    given = tmp_path_factory.mktemp("encodings")
    for name, (data, _) in CASES.items():
        (given / f"{name}.yaml").write_bytes(data)
    return {a["id"]: a for a in run_batch([{"id": name, "argv": ["--config", str(given / f"{name}.yaml")]}
                                           for name in CASES])}


@pytest.mark.parametrize("name", CASES)
def test_sglang_reads_the_file_as_recorded_and_autofix_agrees(name, answers, tmp_path):
    data, expected = CASES[name]
    assert verdict(answers[name]) == expected, answers[name].get("message")
    (tmp_path / "c.yaml").write_bytes(data)
    script = tmp_path / "s.sh"
    script.write_text("python -m sglang.launch_server --config c.yaml\n")
    result = fix_source(script.read_text(), shell, path=str(script), config_reader=on_disk(files.FileSet().read_config))
    if expected == YAML_ERROR:  # refused at start-up: an error naming the file, nothing of it known
        [error] = result.errors
        assert (error.path, error.line) == (str(tmp_path / "c.yaml"), 1) and result.others == ()
    else:
        assert result.errors == () and [d.code for d in result.others[0].diagnostics] == ["EP004"]
