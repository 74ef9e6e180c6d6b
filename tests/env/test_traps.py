"""Numbers a careless reader takes for the driver or the CUDA version, and the wrappers people paste
reports in. Report texts are from tests/assets/env-reports (real threads)."""

from __future__ import annotations

import pytest

from tests.conftest import ASSETS
from tracefix.env import log_versions, normalize, smi
from tracefix.env.environment import build_environment, from_text

REPORTS = ASSETS / "env-reports"


def test_nvidia_smi_tool_version_is_not_the_driver():
    # the tool prints its own version first; only "Driver Version" / "KMD Version" name the driver
    assert smi.parse("NVIDIA-SMI 610.43.02").driver_version is None
    assert smi.parse("NVIDIA System Management Interface -- v470.182.03").driver_version is None
    new_header = smi.parse((REPORTS / "smi-table" / "sglang-27487-kmd-b200.txt").read_text())
    assert (new_header.driver_version, new_header.cuda_version) == ("610.43.02", "13.3")


@pytest.mark.parametrize("found, cuda", [("11040", "11.4"), ("11000", "11.0"), ("12020", "12.2"), ("6050", "6.5")])
def test_found_version_in_torch_driver_check_is_a_cuda_version(found, cuda):
    assert log_versions.cuda_from_found_version(found) == cuda


def test_found_version_11040_gives_cuda_11_4_not_a_driver():
    env = from_text((REPORTS / "log-versions" / "seqnet-36-found-11040.txt").read_text())
    assert (env.cuda_version, env.driver_version) == ("11.4", None)


@pytest.mark.parametrize("name", ["tinygrad-47-nvml-library-version.txt", "intel-llvm-17614-ci-section.txt"])
def test_nvml_library_version_is_not_the_running_driver(name):
    env = from_text((REPORTS / "smi-error" / name).read_text())
    assert env.driver_version is None and env.smi_error == "Failed to initialize NVML: Driver/library version mismatch"


def test_wrapped_quoted_failure_is_read_whole():
    env = from_text((REPORTS / "smi-error" / "nvidia-docker-988-quoted-wrapped.txt").read_text())
    assert env.smi_error.endswith("Make sure that the latest NVIDIA driver is installed and running.")


def test_fullwidth_colon_quote_and_indent_are_undone_once():
    assert normalize.lines("  > GPU 0：NVIDIA A100\n  > GPU 1：NVIDIA A100") == ["GPU 0: NVIDIA A100", "GPU 1: NVIDIA A100"]
    env = build_environment(collect_env="> GPU models and configuration：\n> GPU 0：NVIDIA A100\n> GPU 1：NVIDIA A100")
    assert env.gpu_count == 2 and {g.name for g in env.gpus} == {"NVIDIA A100"}


def test_ds_report_placeholder_zero_is_not_a_version():
    env = from_text((REPORTS / "ds_report" / "deepspeed-6762-before.txt").read_text())
    assert env.packages["torch"] == "2.3.0+cu121" and env.torch_cuda == "12.1"
    assert "0.0" not in env.packages.values()


def test_invalid_distribution_is_not_the_package():
    env = from_text((REPORTS / "freeze" / "pip-9235-invalid-dist.txt").read_text())
    assert "pandas" not in env.packages and env.packages["numpy"] == "1.19.4"
