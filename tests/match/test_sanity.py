"""Environment warnings an engineer checks first; each with a case that must stay quiet."""

from __future__ import annotations

from tests.conftest import ASSETS
from tracefix.env.environment import build_environment
from tracefix.logs.report import read_log
from tracefix.match.sanity import environment_warnings

SMI = ASSETS / "smi"


def warnings_for(freeze=None, smi=None, log=None):
    report = read_log(log) if log is not None else None
    env = build_environment(freeze=freeze, smi=(SMI / smi).read_text() if smi else None, report=report)
    return environment_warnings(env, report)


def test_log_with_freeze_and_smi_raises_three_warnings():
    found = warnings_for(log=ASSETS / "logs" / "log-with-freeze-and-smi.log")
    assert len(found) == 3
    assert found[0].startswith("torch 2.1.2+cu121 is built for CUDA 12.1, but driver 470.182.03 supports at most CUDA 11.4")
    assert "bf16" in found[1] and "compute capability 7.0" in found[1]
    assert found[2].startswith("numpy 2.0.1 is installed next to torch 2.1.2+cu121, pandas 2.0.3")


def test_torch_cuda_newer_than_driver():
    env = build_environment(freeze="torch==2.1.0+cu121", smi="| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    |")
    found = environment_warnings(env)          # no CUDA line: the driver table says 11.4
    assert len(found) == 1 and "supports at most CUDA 11.4: torch cannot use the GPUs" in found[0]
    found = warnings_for("torch==2.4.0+cu124", "table-8xA100.txt")        # driver supports 12.2: same major
    assert len(found) == 1 and "minor-version compatibility" in found[0]
    assert warnings_for("torch==2.1.0+cu118", "table-8xA100.txt") == []  # 11.8 <= 12.2


def test_cpu_torch_next_to_gpus():
    found = warnings_for("torch==2.1.0+cpu", "list-4xT4.txt")
    assert found == ["torch 2.1.0+cpu is a CPU-only build, but this machine has 4 GPU(s): install a CUDA build of torch."]
    assert warnings_for("torch==2.1.0+cpu") == []                          # no GPUs known: nothing to say


def test_bf16_only_when_the_log_mentions_it():
    log_bf16 = "python train.py --bf16 True\nRuntimeError: boom\n"
    assert any("bf16" in w for w in warnings_for(smi="list-4xT4.txt", log=log_bf16))
    assert warnings_for(smi="list-4xT4.txt", log="python train.py --fp16\nRuntimeError: boom\n") == []
    assert warnings_for(smi="table-8xA100.txt", log=log_bf16) == []        # A100 supports bf16


def test_numpy2_only_next_to_packages_built_for_numpy1():
    assert warnings_for("numpy==2.1.0\ntorch==2.4.0\npandas==2.2.2\n") == []
    found = warnings_for("numpy==2.0.0\nscipy==1.11.4\n")
    assert found == ["numpy 2.0.0 is installed next to scipy 1.11.4, built against numpy 1.x: install 'numpy<2' or upgrade them."]
    assert warnings_for("numpy==1.26.4\nscipy==1.11.4\n") == []


def test_nvml_mismatch_is_reported_with_a_hint():
    found = warnings_for(smi="nvml-mismatch.txt")
    assert len(found) == 1 and "Driver/library version mismatch" in found[0] and "reboot" in found[0]
