"""Versions a log prints about itself, for when no pip freeze or report was given.

Read: DeepSpeed's start-up line (`DeepSpeed info: version=0.12.3, ...`), package versions in
install paths (`.../deepspeed-0.12.3-py3.10.egg/...`, `torch-2.1.0+cu118.dist-info`), pip's
conflict warnings (`... but you have transformers 4.31.0`), banners that print a known package and
its version alone (`torch 2.1.0+cu118`, `transformers version: 4.36.2`), `pip show` output (a `Name:`
line and the `Version:` line under it; any package, since the user chose to show it), and the CUDA version
torch's driver check prints (`found version 11040` is CUDA 11.4: 1000 * major + 10 * minor).
Lines that ask for a version (`requires torch>=2.1`, `pip install torch==2.1.0`) are not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

MAX_LINES = 50000
_VERSION = r"v?(\d{1,4}(?:\.\d{1,6}){1,3}(?:(?:a|b|rc|\.post|\.dev)\d{1,10})*(?:\+[A-Za-z0-9.]{1,40})?)"
# Packages whose version decides known issues; a bare "<name> <version>" banner is read only for these.
KNOWN = ("torch", "deepspeed", "transformers", "accelerate", "pytorch-lightning", "lightning", "vllm", "peft",
         "trl", "flash-attn", "xformers", "bitsandbytes", "triton", "numpy", "megatron-core", "torchvision",
         "apex", "nccl")
_NAMES = "|".join(sorted({re.escape(n) for k in KNOWN for n in (k, k.replace("-", "_"))}, key=len, reverse=True))
_PATTERNS = (
    re.compile(r"DeepSpeed info: version=" + _VERSION.replace("v?", "")),
    re.compile(r"[/\\]([A-Za-z][\w.]{0,60}?)-" + _VERSION.replace("v?", "") + r"-py\d\.\d{1,2}(?:-[\w.]+)?\.egg\b"),
    re.compile(r"\b([A-Za-z][\w.]{0,60}?)-" + _VERSION.replace("v?", "") + r"\.dist-info\b"),
    re.compile(r"\bbut you have (" + _NAMES + r") " + _VERSION, re.IGNORECASE),
    re.compile(r"^\W{0,4}(" + _NAMES + r")(?: version)?\s*(?:[:=]\s*|\s)" + _VERSION + r"\s*$", re.IGNORECASE),
)
_ASKS = re.compile(r"require|install|upgrade|>=|<=|~=|!=|[<>]\s*\d|please use|expected", re.IGNORECASE)
_SHOW_NAME = re.compile(r"^\s*Name:\s*([A-Za-z0-9][A-Za-z0-9._-]{0,100})\s*$")
_SHOW_VERSION = re.compile(r"^\s*Version:\s*" + _VERSION.replace("v?", "") + r"\s*$")
_FOUND_CUDA = re.compile(r"driver on your system is too old \(found version (\d{4,5})\)")


@dataclass(frozen=True)
class LogVersions:
    """What the log said about its own environment."""

    packages: tuple[tuple[str, str], ...]   # (canonical name, version), first mention wins
    driver_cuda: str | None                 # CUDA the driver supports, from torch's "found version" check


def _valid(version: str) -> bool:
    try:
        Version(version)
    except InvalidVersion:
        return False
    return True


def _packages_in(line: str) -> list[tuple[str, str]]:
    found = []
    for i, pattern in enumerate(_PATTERNS):
        for m in pattern.finditer(line):
            name, version = ("deepspeed", m.group(1)) if i == 0 else (m.group(1), m.group(2))
            if _valid(version):
                found.append((canonicalize_name(name), version))
    return found


def cuda_from_found_version(number: str) -> str:
    """torch's driver check prints the CUDA driver API version as one number.

    >>> cuda_from_found_version("11040"), cuda_from_found_version("6050"), cuda_from_found_version("12020")
    ('11.4', '6.5', '12.2')
    """
    value = int(number)
    return f"{value // 1000}.{value % 1000 // 10}"


def parse(text: str | None) -> LogVersions:
    """Versions printed in a log.

    >>> parse("[INFO] DeepSpeed info: version=0.12.3, git-hash=unknown, git-branch=unknown").packages
    (('deepspeed', '0.12.3'),)
    """
    packages: dict[str, str] = {}
    cuda = None
    shown = None  # the package a `pip show` block named on the line before
    for line in (text or "").splitlines()[:MAX_LINES]:
        line = line[:2000]
        shown_version = _SHOW_VERSION.match(line) if shown else None
        if shown_version and _valid(shown_version.group(1)):
            packages.setdefault(canonicalize_name(shown), shown_version.group(1))
        shown_name = _SHOW_NAME.match(line)
        shown = shown_name.group(1) if shown_name else None
        if cuda is None and "found version" in line:
            m = _FOUND_CUDA.search(line)
            cuda = cuda_from_found_version(m.group(1)) if m else None
        if _ASKS.search(line) and "but you have" not in line:
            continue
        for name, version in _packages_in(line):
            packages.setdefault(name, version)
    return LogVersions(tuple(packages.items()), cuda)
