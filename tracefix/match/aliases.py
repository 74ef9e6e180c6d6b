"""Distribution names that are one project: `lightning` and `pytorch-lightning`, `torch` and conda's `pytorch`.

A record may name either spelling and the environment may have either installed; a version check
is about the project, so it is made on whichever is installed. Names are compared canonicalised
(PEP 503), so `flash_attn` / `flash-attn` and the import name `pytorch_lightning` need no entry.
A trailing `*` stands for a family of builds of one project (`bitsandbytes-cuda117`, `cupy-cuda12x`).
Every group shares version numbers across its names, which is what makes one range fit them all.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from packaging.utils import canonicalize_name

# The first name of a group is the one shown in check texts; conda's names come after pip's.
_GROUPS: tuple[tuple[str, ...], ...] = (
    ("lightning", "pytorch-lightning"),
    ("torch", "pytorch"),
    ("flash-attn",),
    ("bitsandbytes", "bitsandbytes-cuda*"),
    ("tensorflow", "tensorflow-gpu", "tensorflow-cpu"),
    ("opencv-python", "opencv-python-headless", "opencv-contrib-python", "opencv-contrib-python-headless", "py-opencv"),
    ("onnxruntime", "onnxruntime-gpu"),
    ("faiss-cpu", "faiss-gpu", "faiss"),
    ("cupy", "cupy-cuda*"),
    ("paddlepaddle", "paddlepaddle-gpu"),
    ("mxnet", "mxnet-cu*"),
    ("nvidia-nccl-cu12", "nvidia-nccl-cu11", "nccl"),
)
# Per-CUDA builds that stopped getting releases (bitsandbytes-cuda* ends at 0.26): upgrades go to the main name.
_RETIRED = ("bitsandbytes-cuda*",)


def _group_of(name: str) -> tuple[str, ...] | None:
    canonical = canonicalize_name(name)
    return next((g for g in _GROUPS if any(fnmatchcase(canonical, pattern) for pattern in g)), None)


def project_of(name: str) -> str:
    """The project a distribution belongs to, named by its group's first name (else the name itself)."""
    group = _group_of(name)
    return group[0] if group else canonicalize_name(name)


def names_of(name: str) -> tuple[str, ...]:
    """Every name of the project `name` belongs to (patterns kept as `bitsandbytes-cuda*`)."""
    return _group_of(name) or (canonicalize_name(name),)


def installed(packages: dict[str, str], name: str) -> list[tuple[str, str]]:
    """(distribution, version) for each installed distribution of `name`'s project, in the input's order."""
    project = project_of(name)
    return [(dist, version) for dist, version in packages.items() if project_of(dist) == project]


def install_name(dist: str) -> str:
    """The name to install a newer release under: the installed distribution, unless its line is retired."""
    canonical = canonicalize_name(dist)
    return project_of(canonical) if any(fnmatchcase(canonical, pattern) for pattern in _RETIRED) else canonical
