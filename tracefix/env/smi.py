"""`nvidia-smi` output -> GPUs, driver version and the CUDA version the driver supports.

Four forms are read: the default table, `-L`, `--query-gpu=... --format=csv` (with or without
header and units) and `-q`. When nvidia-smi itself fails ("Failed to initialize NVML: Driver/library
version mismatch") that failure is the finding: it is kept in `error`, and the GPU count stays
unknown rather than zero.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_LINES = 20000
_DRIVER = re.compile(r"Driver Version\s*:?\s*(\d{2,4}(?:\.\d{1,4}){1,2})")
_CUDA = re.compile(r"CUDA Version\s*:?\s*(\d{1,2}\.\d{1,2})")
_ROW = re.compile(r"^\|\s*(\d{1,3})\s+(.{1,120}?)\s+(?:On|Off|WDDM|TCC)\s*\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.")
_MEMORY = re.compile(r"(\d{1,7})\s*MiB\s*/\s*(\d{1,7})\s*MiB")
_LIST = re.compile(r"^GPU (\d{1,3}): (.{1,200}?)\s*\(UUID: ")
_QUERY_KEY = re.compile(r"^\s*([A-Za-z][\w .\-/]{0,60}?)\s*:\s*(.{0,300})$")
_ERRORS = ("Failed to initialize NVML", "NVIDIA-SMI has failed", "couldn't communicate with the NVIDIA driver",
           "nvidia-smi: command not found", "No devices were found")
_GPU_WORDS = re.compile(r"NVIDIA|Tesla|GeForce|Quadro|TITAN|RTX|GTX|\b[AHLBTVPK]\d{1,3}\b")


@dataclass(frozen=True)
class SmiGpu:
    """One GPU as nvidia-smi listed it."""

    index: int | None
    name: str
    memory_mib: int | None          # total framebuffer memory
    compute_capability: str | None  # only the csv `compute_cap` field gives it directly


@dataclass(frozen=True)
class SmiReport:
    """What an nvidia-smi output said; None / () where it did not say."""

    format: str                     # "table" | "list" | "csv" | "query" | "error" | "unknown"
    gpus: tuple[SmiGpu, ...]
    driver_version: str | None
    cuda_version: str | None        # the "CUDA Version" nvidia-smi prints: the most the driver supports
    error: str | None               # nvidia-smi's own failure message
    attached: int | None = None     # "Attached GPUs" (-q) or 0 for "No devices were found"

    @property
    def gpu_count(self) -> int | None:
        """GPUs seen; None when nvidia-smi failed or listed none it could read."""
        if self.gpus:
            return len(self.gpus)
        return self.attached


def _first(pattern: re.Pattern[str], text: str) -> str | None:
    m = pattern.search(text)
    return m.group(1) if m else None


def _mib(value: str) -> int | None:
    m = re.search(r"(\d{1,7})(?:\s*MiB)?", value)
    return int(m.group(1)) if m else None


def _table(lines: list[str]) -> tuple[SmiGpu, ...]:
    gpus: list[SmiGpu] = []
    pending: tuple[int, str] | None = None
    for line in lines:
        m = _ROW.match(line.strip())
        if m:
            if pending:
                gpus.append(SmiGpu(pending[0], pending[1], None, None))
            pending = (int(m.group(1)), m.group(2).strip())
            continue
        mem = _MEMORY.search(line) if pending else None
        if pending and mem:
            gpus.append(SmiGpu(pending[0], pending[1], int(mem.group(2)), None))
            pending = None
    if pending:
        gpus.append(SmiGpu(pending[0], pending[1], None, None))
    return tuple(gpus)


def _listing(lines: list[str]) -> tuple[SmiGpu, ...]:
    return tuple(SmiGpu(int(m.group(1)), m.group(2), None, None) for m in map(_LIST.match, lines) if m)


def _csv(lines: list[str]) -> tuple[tuple[SmiGpu, ...], str | None]:
    rows = [[c.strip() for c in line.split(",")] for line in lines if "," in line]
    if not rows:
        return (), None
    header = [re.sub(r"\s*\[.*\]$", "", c).lower() for c in rows[0]]
    if "name" in header or "memory.total" in header or "driver_version" in header:
        body = rows[1:]
    else:
        header, body = _guess_columns(rows[0]), rows
    gpus, driver = [], None
    for row in body:
        cell = dict(zip(header, row))
        driver = driver or cell.get("driver_version")
        if cell.get("name"):
            index = cell.get("index", "")
            gpus.append(SmiGpu(int(index) if index.isdigit() else None, cell["name"],
                               _mib(cell["memory.total"]) if cell.get("memory.total") else None,
                               cell.get("compute_cap") if re.fullmatch(r"\d{1,2}\.\d", cell.get("compute_cap", "")) else None))
    return tuple(gpus), driver


def _guess_columns(row: list[str]) -> list[str]:
    """Column names for `--format=csv,noheader`, from what the values look like."""
    names = []
    for value in row:
        if _GPU_WORDS.search(value) and not re.fullmatch(r"[\d.\s]+(MiB)?", value):
            names.append("name")
        elif re.fullmatch(r"\d{1,7}\s*MiB", value):
            names.append("memory.total" if "memory.total" not in names else "other")
        elif re.fullmatch(r"\d{3}\.\d{1,3}(?:\.\d{1,3})?", value):
            names.append("driver_version")
        elif re.fullmatch(r"\d{1,2}\.\d", value):
            names.append("compute_cap")
        elif re.fullmatch(r"\d{1,3}", value) and "index" not in names:
            names.append("index")
        else:
            names.append("other")
    return names


def _query(lines: list[str]) -> tuple[tuple[SmiGpu, ...], int | None]:
    gpus: list[SmiGpu] = []
    name, memory, in_fb, attached = None, None, False, None
    for line in lines:
        if re.match(r"^GPU [0-9A-Fa-f]{4,8}:", line):
            if name:
                gpus.append(SmiGpu(len(gpus), name, memory, None))
            name, memory, in_fb = None, None, False
            continue
        m = _QUERY_KEY.match(line)
        if not m:
            in_fb = line.strip() == "FB Memory Usage" or (in_fb and not line.strip().endswith("Usage"))
            continue
        key, value = m.group(1).strip(), m.group(2).strip()
        if key == "Attached GPUs" and value.isdigit():
            attached = int(value)
        elif key == "Product Name":
            name = value
        elif key == "Total" and in_fb and memory is None:
            memory = _mib(value)
            in_fb = False
    if name:
        gpus.append(SmiGpu(len(gpus), name, memory, None))
    return tuple(gpus), attached


def _format(text: str) -> str:
    if "NVSMI LOG" in text or re.search(r"(?m)^\s*Product Name\s*:", text):
        return "query"
    if _ROW.search(text) or re.search(r"(?m)^\|.*NVIDIA-SMI", text):
        return "table"
    if re.search(r"(?m)^GPU \d+: .*\(UUID: ", text):
        return "list"
    if re.search(r"(?m)^[^|\n]*,", text) and (_GPU_WORDS.search(text) or "memory.total" in text or "driver_version" in text):
        return "csv"
    return "unknown"


def parse(text: str | None) -> SmiReport:
    """Read nvidia-smi output in any of its forms.

    >>> parse("GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1)").gpus[0].name
    'NVIDIA A100-SXM4-80GB'
    """
    if not text or not text.strip():
        return SmiReport("unknown", (), None, None, None)
    lines = text.splitlines()[:MAX_LINES]
    lines = [line[:2000] for line in lines]
    error = next((line.strip() for line in lines if any(e in line for e in _ERRORS)), None)
    attached = 0 if error and "No devices were found" in error else None
    fmt, driver = _format(text), None
    gpus: tuple[SmiGpu, ...] = ()
    if fmt == "table":
        gpus = _table(lines)
    elif fmt == "list":
        gpus = _listing(lines)
    elif fmt == "csv":
        gpus, driver = _csv([line for line in lines if "," in line])
    elif fmt == "query":
        gpus, attached = _query(lines)
    if error and not gpus:
        fmt = "error"
    head = "\n".join(lines[:200])
    return SmiReport(fmt, gpus, _first(_DRIVER, head) or driver, _first(_CUDA, head), error,
                     attached if attached is not None else None)
