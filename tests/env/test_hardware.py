"""The two data tables: compute capability by GPU name, newest CUDA by driver."""

from __future__ import annotations

import pytest

from tracefix.env.hardware import compute_capability, max_cuda_for_driver


@pytest.mark.parametrize("name, cc", [
    ("NVIDIA A100-SXM4-80GB", "8.0"), ("NVIDIA A10", "8.6"), ("NVIDIA A10G", "8.6"), ("NVIDIA H100 80GB HBM3", "9.0"),
    ("NVIDIA H800", "9.0"), ("NVIDIA L4", "8.9"), ("NVIDIA L40S", "8.9"), ("Tesla T4", "7.5"), ("Tesla V100-SXM2...", "7.0"),
    ("Tesla P100-PCIE-16GB", "6.0"), ("Tesla P40", "6.1"), ("Tesla K80", "3.7"), ("NVIDIA GeForce RTX 4090", "8.9"),
    ("NVIDIA GeForce RTX 3090 Ti", "8.6"), ("GeForce RTX 2080 Ti", "7.5"), ("NVIDIA GeForce GTX 1660 SUPER", "7.5"),
    ("GeForce GTX 1080", "6.1"), ("NVIDIA TITAN Xp", "6.1"), ("NVIDIA RTX A6000", "8.6"), ("NVIDIA RTX 6000 Ada Generation", "8.9"),
    ("Quadro RTX 8000", "7.5"), ("NVIDIA GeForce RTX 5090", "12.0"), ("NVIDIA B200", "10.0"),
    ("Some Future GPU", None), ("", None), (None, None),
])
def test_compute_capability(name, cc):
    assert compute_capability(name) == cc


@pytest.mark.parametrize("driver, cuda", [
    ("535.104.05", "12.2"), ("535.54.03", "12.2"), ("525.60.13", "12.0"), ("525.60.12", "11.8"), ("470.82.01", "11.4"),
    ("550.54.15", "12.4"), ("560.35.03", "12.6"), ("570.86.10", "12.8"), ("418.67", "10.1"), ("410.48", "10.0"),
    ("300.1", None), ("not a driver", None), (None, None),
])
def test_max_cuda_for_driver(driver, cuda):
    assert max_cuda_for_driver(driver) == cuda
