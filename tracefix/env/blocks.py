"""Finding environment blocks pasted inside a log: pip freeze / pip list / conda list, nvidia-smi
(table, -L, csv, -q, NVML failures), and torch collect_env / transformers env / accelerate env /
ds_report.

Users paste these after the error, or a CI job prints them first. This module only decides which
lines belong to which block; the parsers in `freeze`, `smi` and `collect_env` read them. Each
block kind is recognised by its first line and continues while lines still look like it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from tracefix.env import normalize

MAX_BLOCK_LINES = 3000
MAX_BLOCK_CHARS = 256 * 1024

_FREEZE = re.compile(r"^\s*(?:-e\s+\S+|[A-Za-z0-9][\w.\-]{0,200}(?:\[[^\]]{0,200}\])?\s*(?:===?\s*\S+|@\s+\S+))\s*$")
_ROW = re.compile(r"^[A-Za-z0-9_][\w.\-]{0,200}\s+\S+")
_KEY_VALUE = re.compile(r"^[A-Za-z][\w ()/.,+\-]{0,80}:(?:\s|$)")
_SMI_LIST = re.compile(r"^GPU \d+: .{1,200}\(UUID: ")
_MIG = re.compile(r"^MIG \S+\s+Device\s+\d+: \(UUID: ")
_SMI_CSV_HEADER = re.compile(r"^(?:index|name|gpu_name|timestamp|driver_version|pci\.bus_id|uuid|memory\.total)"
                             r"(?:\s*\[[^\]]*\])?\s*,\s*[a-z_.]+")
_HF_BULLET = re.compile(r"^- `?[\w\-]+`? version(?: \(GPU\?\))?: ")
_LIST_ROW = re.compile(r"^[A-Za-z0-9][\w.\-]{0,100}\s{2,}\d[\w.+!\-]{0,60}(?:\s{2,}\S.{0,400})?$")
_ERROR_GOES_ON = re.compile(r"^(?:[a-z(]|Make sure|This can also|NVML library version)")
# A report block survives this many lines it does not recognise (collect_env's GPU topology table).
_TOLERATED = {"collect_env": 16}
_SMI_QUERY_TOP = re.compile(r"^(?:Timestamp|Driver Version|CUDA Version|Attached GPUs|GPU [0-9A-Fa-f]{4,}:)")
_SMI_ERRORS = ("Failed to initialize NVML", "NVIDIA-SMI has failed", "No devices were found",
               "couldn't communicate with the NVIDIA driver", "Unable to determine the device handle")


@dataclass(frozen=True)
class Blocks:
    """The environment text found in a log; None where there was none."""

    freeze: str | None        # pip freeze, pip list or conda list lines
    smi: str | None           # nvidia-smi output, any of its forms
    collect_env: str | None   # collect_env, transformers/accelerate env, ds_report (concatenated)


def _start(text: str) -> str | None:
    """The block kind a line opens, if any."""
    s = text.strip()
    if "NVIDIA-SMI" in s and ("Driver Version" in s or s.startswith("|")):
        return "smi-table"
    if any(e in s for e in _SMI_ERRORS):
        return "smi-error"
    if "NVSMI LOG" in s:
        return "smi-query"
    if _SMI_LIST.match(s):
        return "smi-list"
    if (("memory.total" in s or "driver_version" in s) and "," in s) or _SMI_CSV_HEADER.match(s):
        return "smi-csv"
    if s.startswith(("Collecting environment information", "PyTorch version:")):
        return "collect_env"
    if "Copy-and-paste the text below" in s or _HF_BULLET.match(s):
        return "hf-env"
    if "DeepSpeed general environment info" in s or "DeepSpeed C++/CUDA extension op report" in s:
        return "ds_report"
    if s.startswith("# packages in environment") or re.match(r"^#\s*Name\s+Version\s+Build", s):
        return "conda"
    if re.match(r"^Package\s+Version\b", s):
        return "pip-list"
    if _FREEZE.match(s):
        return "freeze"
    if _LIST_ROW.match(s):
        return "rows"
    return None


def _continues(kind: str, text: str, blanks: int) -> bool:
    """Whether a line still belongs to an open block of `kind`."""
    s = text.strip()
    if not s:
        return blanks < (3 if kind in ("smi-query", "collect_env", "ds_report") else 1)
    if kind == "smi-table":
        return s[0] in "|+" or "NVIDIA-SMI" in s or s.startswith("Processes")
    if kind == "smi-query":
        return text[:1].isspace() or bool(_SMI_QUERY_TOP.match(s))
    if kind == "smi-list":
        return bool(_SMI_LIST.match(s) or _MIG.match(s))
    if kind == "smi-csv":
        return "," in s
    if kind == "smi-error":
        return bool(_ERROR_GOES_ON.match(s))
    if kind == "collect_env":
        return bool(_KEY_VALUE.match(s)) or s.startswith(("[pip", "[conda]", "Versions of relevant")) or text[:1].isspace()
    if kind == "hf-env":
        return s.startswith("- ") or text[:1].isspace()
    if kind == "ds_report":
        return "...." in s or s.startswith(("-", "[", "op name", "NOTE", "JIT", "DeepSpeed")) or _KEY_VALUE.match(s) is not None
    if kind == "rows":
        return bool(_LIST_ROW.match(s))
    if kind in ("conda", "pip-list"):
        return s.startswith("#") or bool(re.match(r"^-+\s+-+", s)) or bool(_ROW.match(s))
    return bool(_FREEZE.match(s))


_TARGET = {"smi-table": "smi", "smi-query": "smi", "smi-list": "smi", "smi-csv": "smi", "smi-error": "smi",
           "collect_env": "collect_env", "hf-env": "collect_env", "ds_report": "collect_env",
           "conda": "freeze", "pip-list": "freeze", "freeze": "freeze", "rows": "freeze"}


class Finder:
    """Feeds on cleaned log lines; `result()` gives the blocks found."""

    def __init__(self) -> None:
        self._kind: str | None = None
        self._lines: list[str] = []
        self._blanks = 0
        self._misses = 0
        self._found: dict[str, list[str]] = {"freeze": [], "smi": [], "collect_env": []}

    def feed(self, text: str) -> None:
        text = normalize.line(text)
        if self._kind is not None:
            if len(self._lines) < MAX_BLOCK_LINES and (_continues(self._kind, text, self._blanks) or self._tolerate(text)):
                self._blanks = self._blanks + 1 if not text.strip() else 0
                self._lines.append(text)
                return
            self._close()
        kind = _start(text) if text.strip() else None
        if kind is not None:
            self._kind, self._lines, self._blanks, self._misses = kind, [text], 0, 0

    def _tolerate(self, text: str) -> bool:
        """A line a block does not know, kept while the block allows a few and no other block starts."""
        if not text.strip() or self._misses >= _TOLERATED.get(self._kind, 0) or _start(text) is not None:
            return False
        self._misses += 1
        return True

    def gap(self) -> None:
        self._close()

    def result(self) -> Blocks:
        self._close()
        joined = {k: "\n".join(v)[:MAX_BLOCK_CHARS] or None for k, v in self._found.items()}
        return Blocks(joined["freeze"], joined["smi"], joined["collect_env"])

    def _close(self) -> None:
        kind, lines = self._kind, [line for line in self._lines]
        self._kind, self._lines = None, []
        if kind is None:
            return
        while lines and not lines[-1].strip():
            lines.pop()
        if (kind == "freeze" and len(lines) < 2) or (kind == "rows" and len(lines) < 3):
            return      # one `x==1.0` line in prose is not a pasted freeze, nor two aligned words a list
        target = self._found[_TARGET[kind]]
        if sum(len(t) for t in target) < MAX_BLOCK_CHARS:
            target.extend(lines)


def find(lines: Iterable[str]) -> Blocks:
    """The blocks in already-cleaned lines.

    >>> find(["oops", "torch==2.1.0+cu118", "numpy==1.26.4", "done"]).freeze
    'torch==2.1.0+cu118\\nnumpy==1.26.4'
    """
    finder = Finder()
    for line in lines:
        finder.feed(line)
    return finder.result()
