"""Blocks pasted in logs, and the Environment merged from every input."""

from __future__ import annotations

import pytest

from tests.conftest import ASSETS
from tracefix.env import blocks
from tracefix.env.environment import build_environment, torch_cuda_from
from tracefix.logs.report import read_log

SMI = ASSETS / "smi"


def test_log_with_freeze_and_smi_gives_a_full_environment():
    report = read_log(ASSETS / "logs" / "log-with-freeze-and-smi.log")
    env = build_environment(report=report)
    assert env.packages["torch"] == "2.1.2+cu121" and env.packages["pytorch-lightning"] == "2.2.1"
    assert (env.gpu_count, env.gpu_count_source) == (2, "nvidia-smi")
    assert [g.compute_capability for g in env.gpus] == ["7.0", "7.0"]
    assert (env.driver_version, env.cuda_version, env.torch_cuda) == ("470.182.03", "11.4", "12.1")
    assert str(env.version("torch")) == "2.1.2+cu121" and env.version("PyTorch_Lightning").major == 2


def test_separate_inputs_win_over_embedded_blocks():
    report = read_log(ASSETS / "logs" / "log-with-freeze-and-smi.log")
    env = build_environment(freeze="torch==2.3.0+cu118\n", smi=(SMI / "list-4xT4.txt").read_text(), report=report)
    assert env.packages["torch"] == "2.3.0+cu118" and env.torch_cuda == "11.8"
    assert env.packages["vllm"] == "0.4.3"             # still known from the embedded freeze
    assert env.gpu_count == 4 and env.gpus[0].compute_capability == "7.5"


@pytest.mark.parametrize("smi, given, log, expected", [
    ("list-4xT4.txt", 2, "--nproc_per_node=8", (4, "nvidia-smi")),
    (None, 2, "--nproc_per_node=8", (2, "given")),
    (None, None, "torchrun --nproc_per_node=8 train.py", (8, "log")),
    ("nvml-mismatch.txt", None, "", (None, None)),
    ("no-devices.txt", 3, "", (0, "nvidia-smi")),
])
def test_gpu_count_sources(smi, given, log, expected):
    env = build_environment(smi=(SMI / smi).read_text() if smi else None, report=read_log(log), gpu_count=given)
    assert (env.gpu_count, env.gpu_count_source) == expected


def test_driver_table_fills_missing_cuda_line():
    env = build_environment(smi=(SMI / "table-old-driver-no-cuda-line.txt").read_text())
    assert (env.driver_version, env.cuda_version) == ("410.48", "10.0")
    assert env.gpus[0].compute_capability == "6.1"


def test_nvml_failure_is_kept():
    env = build_environment(smi=(SMI / "nvml-mismatch.txt").read_text())
    assert env.smi_error == "Failed to initialize NVML: Driver/library version mismatch" and env.gpus == ()


@pytest.mark.parametrize("version, build, cuda", [
    ("2.1.0+cu118", None, "11.8"), ("2.5.1+cu124", None, "12.4"), ("2.1.0+cpu", None, "cpu"), ("2.1.0", None, None),
    ("2.0.1", "py3.10_cuda11.8_cudnn8.7.0_0", "11.8"), ("2.0.1", "cpu_py310h0f2a0d2_0", "cpu"), ("junk", None, None),
])
def test_torch_cuda_from(version, build, cuda):
    assert torch_cuda_from(version, build) == cuda


def test_conda_list_gives_torch_cuda():
    env = build_environment(freeze=(ASSETS / "freeze" / "conda-list.txt").read_text())
    assert env.packages["torch"] == "2.0.1" and env.torch_cuda == "11.8"


def test_skipped_freeze_lines_are_reported():
    env = build_environment(freeze=(ASSETS / "freeze" / "pip-freeze-mixed.txt").read_text())
    assert len(env.skipped) == 4 and env.sources[0].startswith("pip freeze (")


def test_blocks_find_each_kind_and_ignore_prose():
    lines = ["run with torch==2.1.0 please", "", "GPU 0: Tesla T4 (UUID: GPU-1)", "GPU 1: Tesla T4 (UUID: GPU-2)", "done",
             "Package    Version", "---------- -------", "torch      2.1.0", "numpy      1.26.4", "", "bye"]
    found = blocks.find(lines)
    assert found.smi == "GPU 0: Tesla T4 (UUID: GPU-1)\nGPU 1: Tesla T4 (UUID: GPU-2)"
    assert found.freeze.splitlines()[-1] == "numpy      1.26.4" and "please" not in found.freeze
    assert found.collect_env is None
