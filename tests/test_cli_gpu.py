"""--gpu and --gpus-per-node: the hardware every launch runs on; bad values exit 2 with one clear error."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from autofix.cli.commands import app
from autofix.pipeline.facts import GPUS, NO_FACTS, Facts, HardwareError, hardware, parse_gpu

# RUN003 reads the platform: on CUDA, MXFP8 MoE does not run on triton (SGLang runs flashinfer_trtllm and
# says so); ROCm takes triton. Without --gpu the platform is unknown and autofix says nothing.
MXFP8_TRITON = "quantization: mxfp8\nmoe-runner-backend: triton\n"


def run(*args, input=None):
    return CliRunner().invoke(app, list(args), input=input, prog_name="autofix")


def error_text(r) -> str:
    """The usage error, its box and line wrapping taken out."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", r.stderr).split())


@pytest.fixture
def cfg(tmp_path):
    p = tmp_path / "config.yaml"
    p.write_text(MXFP8_TRITON)
    return p


def test_without_gpu_a_hardware_check_stays_silent(cfg):
    r = run(str(cfg))
    assert r.exit_code == 0, r.stderr
    assert "RUN003" not in r.stdout


@pytest.mark.parametrize("gpu", ["h200", "8xh200", "8XH200", "b200", "a100", "gb200"])
def test_with_an_nvidia_gpu_the_check_decides(cfg, gpu):
    r = run(str(cfg), "--gpu", gpu)
    assert r.exit_code == 1
    assert "RUN003 [*] --moe-runner-backend triton is ignored: --quantization mxfp8 makes it flashinfer_trtllm" \
        in r.stdout


@pytest.mark.parametrize("gpu", ["mi300x", "8xmi355x"])
def test_on_rocm_the_same_launch_is_clean(cfg, gpu):
    r = run(str(cfg), "--gpu", gpu)
    assert r.exit_code == 0, r.stderr


def test_write_with_gpu_applies_the_hardware_fix(cfg):
    r = run(str(cfg), "--gpu", "h200", "--write")
    assert r.exit_code == 0, r.stderr
    assert cfg.read_text() == "quantization: mxfp8\nmoe-runner-backend: flashinfer_trtllm\n"


def test_gpu_applies_to_every_launch_of_every_file(tmp_path):
    (tmp_path / "a.yaml").write_text(MXFP8_TRITON)
    (tmp_path / "serve.sh").write_text(
        "python -m sglang.launch_server --model-path m --quantization mxfp8 --moe-runner-backend triton\n"
        "python -m sglang.launch_server --model-path m --quantization mxfp8 --moe-runner-backend triton --tp 2\n")
    r = run(str(tmp_path), "--gpu", "h100")
    assert r.exit_code == 1
    assert r.stdout.count("RUN003") == 3


def test_gpu_on_stdin(cfg):
    r = run("-", "--gpu", "h200", "--stdin-filename", "config.yaml", input=MXFP8_TRITON)
    assert r.exit_code == 1
    assert "config.yaml:2:1: warning: RUN003" in r.stderr  # stdin: stdout carries the diff only
    assert "+moe-runner-backend: flashinfer_trtllm" in r.stdout


@pytest.mark.parametrize("args, param, message", [
    (["--gpu", "rtx4090"], "--gpu", "unknown GPU 'rtx4090'; known: a100, h100, h200, b200, gb200, mi300x, mi355x"),
    (["--gpu", "0xh200"], "--gpu", "'0xh200': the GPU count must be at least 1"),
    (["--gpu", "8x"], "--gpu", "'8x' is not NAME or COUNTxNAME (e.g. h200 or 8xh200)"),
    (["--gpu", "h200,b200"], "--gpu", "is not NAME or COUNTxNAME"),
    (["--gpu", ""], "--gpu", "is not NAME or COUNTxNAME"),
    (["--gpu", "8xh200", "--gpus-per-node", "4"], "--gpus-per-node", "4, but --gpu 8xh200 says 8 GPUs per node"),
    (["--gpus-per-node", "0"], "--gpus-per-node", "must be at least 1, not 0"),
    (["--gpu", "h200", "--gpus-per-node", "-2"], "--gpus-per-node", "must be at least 1, not -2"),
])
def test_a_bad_hardware_value_exits_2_with_one_clear_error(cfg, args, param, message):
    r = run(str(cfg), *args)
    assert r.exit_code == 2
    shown = error_text(r)
    assert f"Invalid value for {param}: " in shown and message in shown, shown
    assert cfg.read_text() == MXFP8_TRITON  # nothing checked, nothing written


def test_gpus_per_node_that_is_not_a_number_exits_2(cfg):
    r = run(str(cfg), "--gpus-per-node", "eight")
    assert r.exit_code == 2


def test_help_lists_the_hardware_options():
    r = run("check", "--help")
    assert r.exit_code == 0
    shown = " ".join(re.sub(r"[│╭╮╰╯─]", " ", r.stdout).split())
    assert "--gpu" in shown and "--gpus-per-node" in shown
    assert f"one of {', '.join(GPUS)})" in shown  # the help's list is the table's (cli.py imports no table)


# the one parsing function the command line (and, later, a config file) calls

def test_hardware_unset_knows_nothing():
    assert hardware(None) is NO_FACTS


@pytest.mark.parametrize("gpu, per_node, name, count", [
    ("h200", None, "h200", None), ("8xh200", None, "h200", 8), ("h200", 4, "h200", 4), ("4xb200", 4, "b200", 4),
    (" 2xA100 ", None, "a100", 2)])
def test_hardware_gives_the_gpu_facts_and_the_count(gpu, per_node, name, count):
    facts = hardware(gpu, per_node)
    assert facts == Facts.for_gpu(name, count)
    assert facts.get("gpu.memory_mib") == GPUS[name]["gpu.memory_mib"]


def test_gpus_per_node_alone_gives_only_the_count():
    assert dict(hardware(None, 8).known) == {"gpu.count": 8}


def test_parse_gpu_errors_name_their_option():
    with pytest.raises(HardwareError) as exc:
        hardware("8xh200", 2)
    assert exc.value.param == "--gpus-per-node"
    with pytest.raises(HardwareError) as exc:
        parse_gpu("v100")
    assert exc.value.param == "--gpu"


def test_an_error_that_needs_the_gpu_is_reported_only_with_it(tmp_path):
    # RUN010 (SGLang refuses it on a B200: the oracle's case RUN010-nvfp4-online-deepep); it reads the runner
    # the quantization resolves on the platform (is_sm100), unknown without --gpu
    script = tmp_path / "serve.sh"
    script.write_text("python -m sglang.launch_server --model-path m --moe-runner-backend flashinfer_cutedsl "
                      "--tp-size 8 --quantization nvfp4_online --moe-a2a-backend deepep\n")
    assert run(str(script)).exit_code == 0
    r = run(str(script), "--gpu", "8xb200")
    assert r.exit_code == 1
    assert ": error: RUN010 " in r.stdout
