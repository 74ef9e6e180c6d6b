"""`nvidia-smi` output -> GPUs, driver version and the CUDA version the driver supports.

Four forms are read: the default table, `-L`, `--query-gpu=... --format=csv` (with or without
header and units) and `-q`. When nvidia-smi itself fails ("Failed to initialize NVML: Driver/library
version mismatch") that failure is the finding: it is kept in `error`, and the GPU count stays
unknown rather than zero.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tracefix.env import normalize

MAX_LINES = 20000
# Since R610 the header says "KMD Version" / "CUDA UMD Version"; the number after "NVIDIA-SMI" is
# the tool's own version and "NVML library version" the user-space library's: neither is the driver.
_DRIVER = re.compile(r"(?:Driver|KMD) Version\s*:?\s*(\d{2,4}(?:\.\d{1,4}){1,2})", re.IGNORECASE)
_CUDA = re.compile(r"CUDA (?:UMD )?Version\s*:?\s*(\d{1,2}\.\d{1,2})")
_ROW = re.compile(r"^\|\s*(\d{1,3})\s+(.{1,120}?)\s+(?:On|Off|WDDM|TCC)\s*\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.")
_MEMORY = re.compile(r"(\d{1,7})\s*MiB\s*/\s*(\d{1,7})\s*MiB")
_LIST = re.compile(r"GPU (\d{1,3}): (.{1,200}?)\s*\(UUID: [^)]{0,100}\)")
_QUERY_KEY = re.compile(r"^\s*([A-Za-z][\w .\-/]{0,60}?)\s*:\s*(.{0,300})$")
_ERRORS = ("Failed to initialize NVML", "NVIDIA-SMI has failed", "couldn't communicate with the NVIDIA driver",
           "Unable to determine the device handle", "nvidia-smi: command not found", "No devices were found")
# A failure message wrapped over lines goes on with these.
_ERROR_GOES_ON = re.compile(r"^(?:[a-z(]|Make sure|This can also|Please also)")
_CSV_FIELDS = {"name", "gpu_name", "index", "memory.total", "driver_version", "pci.bus_id", "uuid", "compute_cap",
               "timestamp", "temperature.gpu", "utilization.gpu"}
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
            return max(len(self.gpus), self.attached or 0)   # `-q -i 0` shows one of "Attached GPUs"
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
    """`-L`, one GPU a line or all joined on one; MIG devices under a GPU are not GPUs."""
    found = {}
    for line in lines:
        for m in _LIST.finditer(line):
            found.setdefault(int(m.group(1)), m.group(2).strip())
    return tuple(SmiGpu(i, name, None, None) for i, name in found.items())


def _csv_header(cells: list[str]) -> list[str] | None:
    names = [re.sub(r"\s*\[.*\]$", "", c).lower() for c in cells]
    return names if len(_CSV_FIELDS.intersection(names)) >= 1 and all(re.fullmatch(r"[a-z_.]+", n) for n in names) else None


def _csv(lines: list[str]) -> tuple[tuple[SmiGpu, ...], str | None]:
    """`--query-gpu ... --format=csv`, with or without header; in loop mode (`-l`) the same GPUs
    come again and again: one sample is kept (up to a repeated header, one row per index)."""
    rows = [[c.strip() for c in line.split(",")] for line in lines if "," in line]
    header_at = next((i for i, row in enumerate(rows) if _csv_header(row)), None)
    if header_at is not None:
        header, body = _csv_header(rows[header_at]), rows[header_at + 1:]
    elif rows and {"name", "memory.total", "driver_version"}.intersection(_guess_columns(rows[0])) - {"name"}:
        header, body = _guess_columns(rows[0]), rows      # noheader: only when a value besides a name fits
    else:
        return (), None
    gpus: dict[object, SmiGpu] = {}
    driver = None
    for row in body:
        if _csv_header(row) == header:
            break                          # the next sample of a loop
        if len(row) != len(header):
            continue                       # a command line, a timing line
        cell = dict(zip(header, row))
        driver = driver or cell.get("driver_version")
        gpu = _csv_gpu(cell)
        if gpu is not None:
            gpus.setdefault(gpu.index if gpu.index is not None else len(gpus), gpu)
    return tuple(gpus.values()), driver


def _csv_gpu(cell: dict[str, str]) -> SmiGpu | None:
    name = cell.get("name") or cell.get("gpu_name") or ""
    index = cell.get("index", "")
    if not name and not index.isdigit():
        return None
    cc = cell.get("compute_cap", "")
    return SmiGpu(int(index) if index.isdigit() else None, name,
                  _mib(cell["memory.total"]) if cell.get("memory.total") else None,
                  cc if re.fullmatch(r"\d{1,2}\.\d", cc) else None)


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
        if re.match(r"^\s*GPU [0-9A-Fa-f]{4,8}:", line):
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


def _formats(text: str) -> list[str]:
    """Every form present, best first (a paste often holds `-L` and the table, or a cut table)."""
    found = []
    if "NVSMI LOG" in text or re.search(r"(?m)^\s*Product Name\s*:", text):
        found.append("query")
    if _ROW.search(text) or re.search(r"(?m)^\|.*NVIDIA-SMI", text):
        found.append("table")
    if _LIST.search(text):
        found.append("list")
    if re.search(r"(?m)^[^|\n]*,", text) and (_GPU_WORDS.search(text) or any(f in text for f in _CSV_FIELDS)):
        found.append("csv")
    return found


def _error(lines: list[str]) -> str | None:
    """nvidia-smi's own failure, from where its message starts, with wrapped lines joined."""
    for i, line in enumerate(lines):
        hits = [line.find(e) for e in _ERRORS if e in line]
        if not hits:
            continue
        parts = [line[min(hits):].strip()]
        for after in lines[i + 1:i + 4]:
            if not after.strip() or not _ERROR_GOES_ON.match(after.strip()):
                break
            parts.append(after.strip())
        return " ".join(parts)[:500]
    return None


def _gpus_in(fmt: str, lines: list[str]) -> tuple[tuple[SmiGpu, ...], str | None, int | None]:
    if fmt == "table":
        return _table(lines), None, None
    if fmt == "list":
        return _listing(lines), None, None
    if fmt == "csv":
        gpus, driver = _csv([line for line in lines if "," in line])
        return gpus, driver, None
    gpus, attached = _query(lines)
    return gpus, None, attached


def parse(text: str | None) -> SmiReport:
    """Read nvidia-smi output in any of its forms.

    >>> parse("GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1)").gpus[0].name
    'NVIDIA A100-SXM4-80GB'
    """
    lines = normalize.lines(text, MAX_LINES)
    if not any(line.strip() for line in lines):
        return SmiReport("unknown", (), None, None, None)
    joined = "\n".join(lines)
    error = _error(lines)
    attached = 0 if error and "No devices were found" in error else None
    fmt, gpus, driver = "unknown", (), None
    for candidate in _formats(joined):
        found, found_driver, found_attached = _gpus_in(candidate, lines)
        driver = driver or found_driver
        attached = found_attached if found_attached is not None else attached
        if fmt == "unknown" or len(found) > len(gpus):
            fmt, gpus = candidate, found
    if error and not gpus:
        fmt = "error"
    head = "\n".join(lines[:200])
    return SmiReport(fmt, gpus, _first(_DRIVER, head) or driver, _first(_CUDA, head), error, attached)
