"""`pip freeze`, `pip list` and `conda list` output -> packages with versions.

Names are canonicalised once here (`PyTorch-Lightning` and `pytorch_lightning` are one package),
versions are checked with `packaging` and kept as given (`2.1.0+cu118` keeps its local part, which
says which CUDA torch was built for). A line that cannot be read becomes a `SkippedLine` with the
reason, never an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

MAX_LINES = 20000
_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._\-]{0,200}[A-Za-z0-9])?"
_PINNED = re.compile(rf"^({_NAME})\s*(?:\[[^\]]{{0,200}}\])?\s*===?\s*([^\s;#]{{1,200}})")
_URL = re.compile(rf"^({_NAME})\s*(?:\[[^\]]{{0,200}}\])?\s*@\s*(\S{{1,2000}})")
_ROW = re.compile(rf"^({_NAME})\s+(\S{{1,200}})(?:\s+(\S{{1,300}}))?(?:\s+(\S{{1,300}}))?\s*$")
_WHEEL = re.compile(r"([A-Za-z0-9_.]+)-(\d[^-/]*?)(?:-[^/]*)?\.(?:whl|tar\.gz|zip)$")
# conda package names that are another name on PyPI.
_CONDA_NAMES = {"pytorch": "torch", "pytorch-lightning": "pytorch-lightning", "py-opencv": "opencv-python"}


@dataclass(frozen=True)
class Package:
    """One installed package."""

    name: str                 # canonical (PEP 503) name
    version: str              # as given, e.g. "2.1.0+cu118"; always parses as a packaging Version
    build: str | None = None  # conda build string ("py3.10_cuda11.8_cudnn8.7.0_0"), which names the CUDA


@dataclass(frozen=True)
class SkippedLine:
    """A line that was not read as a package, and why."""

    text: str
    reason: str


@dataclass(frozen=True)
class Freeze:
    """What one freeze / list text held."""

    format: str                      # "pip freeze" | "pip list" | "conda list" | "empty"
    packages: tuple[Package, ...]
    skipped: tuple[SkippedLine, ...]

    def as_dict(self) -> dict[str, str]:
        """canonical name -> version; the first mention wins (pip lists each package once)."""
        out: dict[str, str] = {}
        for p in self.packages:
            out.setdefault(p.name, p.version)
        return out


def _version(text: str) -> str | None:
    try:
        Version(text)
    except InvalidVersion:
        return None
    return text


def _from_url(name: str, url: str) -> Package | SkippedLine:
    """`torch @ file:///tmp/torch-2.1.0%2Bcu118-cp310-...whl` keeps its version in the file name."""
    m = _WHEEL.search(unquote(url.split("#")[0]))
    version = _version(m.group(2)) if m else None
    if version:
        return Package(canonicalize_name(name), version)
    return SkippedLine(f"{name} @ {url}", "direct reference without a version (VCS, local directory or build URL)")


def parse_line(line: str, fmt: str) -> Package | SkippedLine | None:
    """One line; None for lines that carry nothing (blank, comment, header, separator)."""
    text = line.strip()
    if not text or text.startswith("#") or re.match(r"^-{3,}(\s+-{3,})*$", text) or re.match(r"^Package\s+Version", text):
        return None
    if text.startswith(("-e ", "--editable")):
        return SkippedLine(text[:300], "editable install: no version")
    if text.startswith("-") or text.startswith("$"):
        return SkippedLine(text[:300], "not a package line")
    m = _PINNED.match(text)
    if m:
        version = _version(m.group(2))
        if version is None:
            return SkippedLine(text[:300], f"invalid version {m.group(2)!r}")
        return Package(canonicalize_name(m.group(1)), version)
    m = _URL.match(text)
    if m:
        return _from_url(m.group(1), m.group(2))
    m = _ROW.match(text)
    if m and _version(m.group(2)):
        name, build = m.group(1).lower(), m.group(3)
        conda = fmt == "conda list" or bool(build and not build.startswith(("/", "\\")) and fmt != "pip list")
        if conda:
            name = _CONDA_NAMES.get(name, name)
        return Package(canonicalize_name(name), m.group(2), build if conda else None)
    return SkippedLine(text[:300], "not a package line")


def detect_format(text: str) -> str:
    head = text[:4000]
    if "# packages in environment" in head or re.search(r"(?m)^#\s*Name\s+Version\s+Build", head):
        return "conda list"
    if re.search(r"(?m)^\s*Package\s+Version\b", head):
        return "pip list"
    return "pip freeze" if text.strip() else "empty"


def parse(text: str | None) -> Freeze:
    """Read a pip freeze, pip list or conda list.

    >>> f = parse("PyTorch-Lightning==2.0.1\\ntorch==2.1.0+cu118\\n-e git+https://x/y.git#egg=y")
    >>> f.as_dict(), f.skipped[0].reason
    ({'pytorch-lightning': '2.0.1', 'torch': '2.1.0+cu118'}, 'editable install: no version')
    """
    if not text:
        return Freeze("empty", (), ())
    fmt = detect_format(text)
    packages: list[Package] = []
    skipped: list[SkippedLine] = []
    for line in text.splitlines()[:MAX_LINES]:
        item = parse_line(line[:2000], fmt)
        if isinstance(item, Package):
            packages.append(item)
        elif isinstance(item, SkippedLine):
            skipped.append(item)
    return Freeze(fmt, tuple(packages), tuple(skipped))
