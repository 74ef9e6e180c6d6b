"""Two data tables: GPU name -> compute capability, and driver version -> the newest CUDA it runs.

Sources:
- Compute capabilities: NVIDIA, "CUDA GPUs - Compute Capability", https://developer.nvidia.com/cuda-gpus
  (data-center, workstation, GeForce RTX/GTX and TITAN lines listed there).
- Driver -> CUDA: NVIDIA CUDA Toolkit Release Notes, Table 3 "CUDA Toolkit and Corresponding Driver
  Versions" (minimum Linux x86_64 driver per toolkit GA release),
  https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html
  The newest CUDA a driver supports is the newest toolkit whose minimum driver it meets; this is what
  nvidia-smi prints as "CUDA Version", and the table is only used when that line is missing.

NOTE: Windows drivers are numbered differently (e.g. R535 ships as 537.xx); the table is for Linux,
which is where distributed training runs. Versions compare with `packaging`, never as strings.
"""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

# Most specific first: "RTX 6000 Ada" before "RTX 6000", "A100" never matches "A10" (word bounds).
_CC: tuple[tuple[str, str], ...] = (
    # data center
    (r"\bGB?200\b|\bB[12]00\b", "10.0"),
    (r"\bGH200\b|\bH(?:100|200|800|20)\b", "9.0"),
    (r"\bL40S?\b|\bL4\b|\bL20\b|RTX\s*(?:[2-6]000|6000)\s*Ada", "8.9"),
    (r"\bA100\b|\bA800\b|\bA30\b", "8.0"),
    (r"\bA40\b|\bA10G?\b|\bA16\b|\bA2\b|RTX\s*A[2-6]000|\bA[2-6]000\b", "8.6"),
    (r"\bT4\b|TITAN\s*RTX|Quadro\s*RTX\s*[3-8]000|\bRTX\s*[4-8]000\b|\bT[46]00\b|\bT1000\b", "7.5"),
    (r"\bV100S?\b|TITAN\s*V\b|Quadro\s*GV100", "7.0"),
    (r"\bP100\b|Quadro\s*GP100", "6.0"),
    (r"\bP40\b|\bP4\b|\bP6000\b|\bP5000\b|TITAN\s*Xp|TITAN\s*X\s*\(Pascal\)", "6.1"),
    (r"\bM60\b|\bM40\b|GTX\s*TITAN\s*X\b|\bM6000\b", "5.2"),
    (r"\bK80\b", "3.7"),
    (r"\bK40\b|\bK20X?\b", "3.5"),
    # GeForce
    (r"RTX\s*50[5-9]0", "12.0"),
    (r"RTX\s*40[5-9]0", "8.9"),
    (r"RTX\s*30[5-9]0", "8.6"),
    (r"RTX\s*20[6-8]0|GTX\s*16[5-6]0", "7.5"),
    (r"GTX\s*10[5-8]0|\bTITAN\s*X\b", "6.1"),
    (r"GTX\s*9[5-8]0", "5.2"),
    (r"GTX\s*750", "5.0"),
)
_CC_COMPILED = tuple((re.compile(p, re.IGNORECASE), cc) for p, cc in _CC)

# (CUDA toolkit, minimum Linux driver of its GA release), newest first.
DRIVER_FOR_CUDA: tuple[tuple[str, str], ...] = (
    ("13.0", "580.65.06"), ("12.9", "575.51.03"), ("12.8", "570.26"), ("12.6", "560.28.03"),
    ("12.5", "555.42.02"), ("12.4", "550.54.14"), ("12.3", "545.23.06"), ("12.2", "535.54.03"),
    ("12.1", "530.30.02"), ("12.0", "525.60.13"), ("11.8", "520.61.05"), ("11.7", "515.43.04"),
    ("11.6", "510.39.01"), ("11.5", "495.29.05"), ("11.4", "470.42.01"), ("11.3", "465.19.01"),
    ("11.2", "460.27.03"), ("11.1", "455.23"), ("11.0", "450.36.06"), ("10.2", "440.33"),
    ("10.1", "418.39"), ("10.0", "410.48"), ("9.2", "396.26"), ("9.1", "390.46"), ("9.0", "384.81"),
    ("8.0", "375.26"),
)


def compute_capability(gpu_name: str | None) -> str | None:
    """Compute capability of a GPU by its marketing name; None for a name not in the table.

    >>> compute_capability("NVIDIA A100-SXM4-80GB"), compute_capability("Tesla T4"), compute_capability("NVIDIA A10")
    ('8.0', '7.5', '8.6')
    """
    if not gpu_name:
        return None
    name = gpu_name[:200]
    return next((cc for pattern, cc in _CC_COMPILED if pattern.search(name)), None)


def max_cuda_for_driver(driver: str | None) -> str | None:
    """The newest CUDA toolkit a Linux driver supports.

    >>> max_cuda_for_driver("535.104.05"), max_cuda_for_driver("470.82.01"), max_cuda_for_driver("300.1")
    ('12.2', '11.4', None)
    """
    try:
        found = Version(driver or "")
    except InvalidVersion:
        return None
    return next((cuda for cuda, minimum in DRIVER_FOR_CUDA if found >= Version(minimum)), None)
