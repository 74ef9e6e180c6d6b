"""`tracefix env` as a user runs it: a real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ASSETS, ROOT

REPORTS = ASSETS / "env-reports"


def _run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tracefix", "env", *args], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "HF_HUB_OFFLINE": "1", "NO_COLOR": "1"}, timeout=120)


def test_text_view_of_a_report_on_stdin():
    done = _run(stdin=(REPORTS / "collect_env" / "ogx-1798-8xh100.txt").read_text())
    assert done.returncode == 0, done.stderr
    assert "GPUs: 8 (collect_env): 8 x NVIDIA H100" in done.stdout
    assert "Driver: 535.154.05" in done.stdout and "torch: 2.6.0+cu124    built for CUDA: 12.4" in done.stdout


def test_sanity_warning_is_shown_for_a_failed_nvidia_smi():
    done = _run(str(REPORTS / "smi-error" / "tinygrad-47-nvml-library-version.txt"))
    assert "nvidia-smi failed: Failed to initialize NVML: Driver/library version mismatch" in done.stdout
    assert "warning: nvidia-smi failed" in done.stdout and "Driver: unknown" in done.stdout


def test_empty_or_unreadable_input_is_one_error_line_and_exit_2(tmp_path):
    for done in (_run(stdin="  \n"), _run(str(tmp_path / "missing.txt"))):
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("Error: ") and done.stderr.count("\n") == 1
