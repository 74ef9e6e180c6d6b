"""nvidia-smi in every form it is pasted in, one asset per form."""

from __future__ import annotations

import pytest

from tests.conftest import ASSETS
from tracefix.env import smi

SMI = ASSETS / "smi"

# asset, format, GPU count, first GPU name, its memory (MiB), driver, CUDA, error
CASES = [
    ("table-8xA100.txt", "table", 8, "NVIDIA A100-SXM4-80GB", 81920, "535.104.05", "12.2", None),
    ("table-old-driver-no-cuda-line.txt", "table", 1, "GeForce GTX 1080", 8116, "410.48", None, None),
    ("list-4xT4.txt", "list", 4, "Tesla T4", None, None, None, None),
    ("csv-header.txt", "csv", 2, "NVIDIA GeForce RTX 4090", 24564, "550.54.15", None, None),
    ("csv-noheader-nounits.txt", "csv", 2, "NVIDIA H100 80GB HBM3", None, "550.90.07", None, None),
    ("query-2xV100.txt", "query", 2, "Tesla V100-SXM2-16GB", 16384, "525.147.05", "12.0", None),
    ("nvml-mismatch.txt", "error", None, None, None, None, None, "Failed to initialize NVML: Driver/library version mismatch"),
    ("driver-not-loaded.txt", "error", None, None, None, None, None,
     "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."),
    ("no-devices.txt", "error", 0, None, None, None, None, "No devices were found"),
]


@pytest.mark.parametrize("name, fmt, count, gpu, memory, driver, cuda, error", CASES, ids=[c[0] for c in CASES])
def test_smi_forms(name, fmt, count, gpu, memory, driver, cuda, error):
    report = smi.parse((SMI / name).read_text())
    assert report.format == fmt
    assert report.gpu_count == count
    assert (report.gpus[0].name if report.gpus else None) == gpu
    assert (report.gpus[0].memory_mib if report.gpus else None) == memory
    assert (report.driver_version, report.cuda_version, report.error) == (driver, cuda, error)


def test_csv_compute_cap_column_is_used():
    report = smi.parse((SMI / "csv-header.txt").read_text())
    assert [g.compute_capability for g in report.gpus] == ["8.9", "8.9"]
    assert [g.index for g in report.gpus] == [0, 1]


def test_header_line_alone():
    report = smi.parse("NVIDIA-SMI 535.161.08             Driver Version: 535.161.08   CUDA Version: 12.2")
    assert (report.driver_version, report.cuda_version, report.gpu_count) == ("535.161.08", "12.2", None)


def test_bar1_total_is_not_the_gpu_memory():
    report = smi.parse((SMI / "query-2xV100.txt").read_text())
    assert [g.memory_mib for g in report.gpus] == [16384, 16384]
