"""LoRA fixes write list values (`--lora-target-modules`): every adapter writes all the words of the option."""

from __future__ import annotations

import pytest

from autofix.adapters import argv, dockerfile, yaml_config
from autofix.core.api import FixOptions, fix_source

LAUNCH = "python3 -m sglang.launch_server --model-path m --enable-lora --max-lora-rank 16 "
CMD = 'FROM x\nCMD ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--enable-lora"{}]\n'


@pytest.mark.parametrize("fmt, text, fixed", [
    (argv, LAUNCH + "--lora-target-modules all q_proj\n", LAUNCH + "--lora-target-modules all\n"),  # LORA008, safe
    (argv, LAUNCH + "--lora-target-modules\n", LAUNCH + "--lora-target-modules all\n"),  # LORA009 on an empty list
    (argv, "python3 -m sglang.launch_server --model-path m --enable-lora\n",
     "python3 -m sglang.launch_server --model-path m --enable-lora --max-lora-rank 16 --lora-target-modules all\n"),
    (dockerfile, CMD.format(', "--max-lora-rank", "16", "--lora-target-modules", "all", "q_proj"'),
     CMD.format(', "--max-lora-rank", "16", "--lora-target-modules", "all"')),
    (dockerfile, CMD.format(""), CMD.format(', "--max-lora-rank", "16", "--lora-target-modules", "all"')),
    (yaml_config, "enable-lora: true\nmax-lora-rank: 16\nlora-target-modules: [all, q_proj]\n",
     "enable-lora: true\nmax-lora-rank: 16\nlora-target-modules: [all]\n"),
])
def test_a_list_fix_writes_every_word(fmt, text, fixed):
    result = fix_source(text, fmt, options=FixOptions(unsafe=True))
    assert result.output == fixed
    assert fix_source(result.output, fmt).diagnostics == ()
