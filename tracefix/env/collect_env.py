"""Environment reports printed by the tools themselves -> packages, torch's CUDA, driver, GPUs.

Read: `python -m torch.utils.collect_env`, `transformers env` / `transformers-cli env`,
`accelerate env`, and the `ds_report` general-info section. They overlap; every field they share is
taken from the first report that gives it. Unknown keys are ignored, never an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tracefix.env import freeze, normalize

MAX_LINES = 5000
_KEY = re.compile(r"^\s*(?:-\s+)?`?([A-Za-z][\w .\-/()?]{0,80}?)`?\s*:\s*(.{0,500})$")
_DOTS = re.compile(r"^\s*([a-z][\w ]{0,60}?)\s*\.{3,}\s*(.{0,500})$")
_HF_VERSION = re.compile(r"^([\w\-]+?) version(?: \(GPU\?\))?$", re.IGNORECASE)
_GPU = re.compile(r"GPU (\d{1,3}): ([^\n]{1,200}?)(?=\s*(?:GPU \d{1,3}:|$))")
# "<Tool> version: x" lines that name no Python package (or one read elsewhere).
_NOT_PACKAGES = {"python", "gcc", "clang", "cmake", "libc", "os", "nccl", "cudnn", "cuda", "rocm", "hip", "miopen",
                 "nvidia", "kernel", "nvcc", "pytorch", "platform", "driver"}
_TOOL_VERSION = re.compile(r"^([A-Za-z][\w\-]{0,40}) [Vv]ersion$")
_NAMES = {"pytorch": "torch", "huggingface_hub": "huggingface-hub", "python": None, "numpy": "numpy",
          "tensorflow": None, "flax": None, "jax": None, "jaxlib": None}


@dataclass(frozen=True)
class CollectedEnv:
    """What the report(s) said; None / () where they did not say."""

    formats: tuple[str, ...]                 # "collect_env", "hf-env", "ds_report" as found
    packages: tuple[tuple[str, str], ...]    # (canonical name, version), first mention wins
    torch_cuda: str | None                   # "12.1", or "cpu" for a CPU-only build
    driver_version: str | None
    gpus: tuple[str, ...]                    # GPU names, one per GPU listed ("GPU type" names one kind)
    gpu_count: int | None = None             # GPUs listed as "GPU n: ..."; None when only a type is named
    package_sources: tuple[tuple[str, str], ...] = ()   # (name, "collect_env" | "hf env" | "ds_report")


def _valid(version: str) -> str | None:
    try:
        Version(version)
    except InvalidVersion:
        return None
    return version


class _Reader:
    def __init__(self) -> None:
        self.formats: list[str] = []
        self.packages: dict[str, str] = {}
        self.sources: dict[str, str] = {}
        self.source = "collect_env"
        self.torch_cuda: str | None = None
        self.driver: str | None = None
        self.gpus: dict[int, str] = {}
        self.gpu_type: str | None = None
        self.in_gpus = False

    def add(self, name: str, version: str) -> None:
        version = version.split()[0].rstrip(",") if version.split() else ""
        if _valid(version):
            self.packages.setdefault(canonicalize_name(name), version)
            self.sources.setdefault(canonicalize_name(name), self.source)

    def cuda(self, value: str) -> None:
        value = value.strip()
        if self.torch_cuda is None:
            if value in ("None", "N/A") or value.lower().startswith("none"):
                self.torch_cuda = "cpu"
            elif re.fullmatch(r"\d{1,2}\.\d{1,2}(?:\.\d+)?", value):
                self.torch_cuda = ".".join(value.split(".")[:2])

    def line(self, text: str) -> None:
        text = text.replace("`", "")
        stripped = text.strip()
        if stripped.startswith(("[pip", "[conda]")):
            item = freeze.parse_line(stripped.split("]", 1)[1], "conda list" if stripped.startswith("[conda]") else "pip freeze")
            if isinstance(item, freeze.Package):
                self.source = "collect_env"
                self.add(item.name, item.version)
            return
        if self.in_gpus and stripped.startswith("GPU "):
            self._gpus(stripped)
            return
        self.in_gpus = False
        m = _DOTS.match(text)
        if m:
            self._ds(m.group(1).strip(), m.group(2).strip())
            return
        m = _KEY.match(text)
        if m:
            self._key(m.group(1).strip(), m.group(2).strip(), text.lstrip().startswith("-"))

    def _key(self, key: str, value: str, hf: bool) -> None:
        mark = "hf-env" if hf else "collect_env"
        self.source = "hf env" if hf else "collect_env"
        if mark not in self.formats and ("version" in key.lower() or key.startswith(("CUDA", "GPU"))):
            self.formats.append(mark)
        if key == "PyTorch version":
            self.add("torch", value)
        elif key == "CUDA used to build PyTorch":
            self.cuda(value)
        elif key in ("Nvidia driver version", "NVIDIA driver version"):
            self.driver = self.driver or (value.split()[0] if value.split() else None)
        elif key == "GPU models and configuration":
            self.in_gpus = True
            self._gpus(value)
        elif key == "GPU type":
            self.gpu_type = self.gpu_type or value.strip() or None
        elif hf:
            m = _HF_VERSION.match(key)
            if m:
                name = _NAMES.get(m.group(1).lower(), m.group(1))
                if name:
                    self.add(name, value)
        else:
            self._tool_version(key, value)

    def _gpus(self, text: str) -> None:
        for index, name in _GPU.findall(text):
            self.gpus.setdefault(int(index), name.strip())

    def _tool_version(self, key: str, value: str) -> None:
        """`vLLM Version: 0.7.3`, `ScaleLLM version: 0.1.8.post1`: packages that print their own line."""
        m = _TOOL_VERSION.match(key)
        if m and m.group(1).lower() not in _NOT_PACKAGES:
            self.add(m.group(1), value)

    def _ds(self, key: str, value: str) -> None:
        if "ds_report" not in self.formats:
            self.formats.append("ds_report")
        self.source = "ds_report"
        if key == "torch version":
            self.add("torch", value)
        elif key == "deepspeed info":
            self.add("deepspeed", value)
        elif key == "torch cuda version":
            self.cuda(value)


def parse(text: str | None) -> CollectedEnv:
    """Read collect_env / transformers env / accelerate env / ds_report output.

    >>> env = parse("PyTorch version: 2.1.0+cu121\\nCUDA used to build PyTorch: 12.1\\n[pip3] numpy==1.26.4")
    >>> env.packages, env.torch_cuda
    ((('torch', '2.1.0+cu121'), ('numpy', '1.26.4')), '12.1')
    """
    reader = _Reader()
    for line in normalize.lines(text, MAX_LINES):
        reader.line(line)
    gpus = tuple(name for name in reader.gpus.values() if name)
    if not gpus and reader.gpu_type and reader.gpu_type.lower() not in ("none", "n/a", "cpu"):
        gpus = (reader.gpu_type,)
    return CollectedEnv(tuple(reader.formats), tuple(reader.packages.items()), reader.torch_cuda, reader.driver, gpus,
                        len(reader.gpus) or None, tuple(reader.sources.items()))
