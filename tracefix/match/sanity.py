"""Environment problems worth checking before any knowledge-base record, whatever the error.

These are the questions an engineer asks first: can this torch use this driver at all, is torch a
CPU build on a GPU machine, is bf16 asked of a GPU that lacks it, is numpy 2 installed next to
packages built against numpy 1. Each check only speaks when the input shows both sides.
"""

from __future__ import annotations

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from tracefix.env.environment import Environment

# First releases built against NumPy 2 (older ones fail with "A module that was compiled using NumPy
# 1.x cannot be run in NumPy 2.0"). Source: NumPy 2.0 ecosystem tracking issue,
# https://github.com/numpy/numpy/issues/26191, and each project's release notes.
NUMPY2_READY = {
    "torch": "2.3", "pandas": "2.2.2", "scipy": "1.13", "scikit-learn": "1.4.2", "matplotlib": "3.8.4",
    "pyarrow": "16.0", "numba": "0.60", "h5py": "3.11", "tensorflow": "2.17", "opencv-python": "4.10.0.84",
}
_BF16_WORDS = ("bf16", "bfloat16")


def _version(text: str | None) -> Version | None:
    try:
        return Version(text) if text else None
    except InvalidVersion:
        return None


def _cuda_vs_driver(env: Environment) -> str | None:
    built, supported = _version(env.torch_cuda), _version(env.cuda_version)
    if built is None or supported is None or built <= supported:
        return None
    torch = env.packages.get("torch", "torch")
    driver = f"driver {env.driver_version}" if env.driver_version else "the driver"
    if built.major > supported.major:
        return (f"torch {torch} is built for CUDA {env.torch_cuda}, but {driver} supports at most CUDA "
                f"{env.cuda_version}: torch cannot use the GPUs. Update the driver, or install a torch build "
                f"for CUDA {supported.major}.x.")
    return (f"torch {torch} is built for CUDA {env.torch_cuda}, newer than the CUDA {env.cuda_version} {driver} "
            f"supports; this usually works through CUDA minor-version compatibility, but not for kernels "
            f"compiled at run time (PTX JIT, Triton).")


def _cpu_torch(env: Environment) -> str | None:
    if env.torch_cuda != "cpu" or not (env.gpus or (env.gpu_count and env.gpu_count_source == "nvidia-smi")):
        return None
    torch = env.packages.get("torch", "")
    return (f"torch {torch} is a CPU-only build, but this machine has {env.gpu_count or len(env.gpus)} GPU(s): "
            f"install a CUDA build of torch.")


def _bf16(env: Environment, report) -> str | None:
    text = f"{getattr(getattr(report, 'root', None), 'message', '')}\n{getattr(report, 'excerpt', '')}".lower()
    if not getattr(report, "mentions_bf16", False) and not any(w in text for w in _BF16_WORDS):
        return None
    old = [g for g in env.gpus if g.compute_capability and _version(g.compute_capability) < Version("8.0")]
    if not old:
        return None
    return (f"the log uses bf16, but {old[0].name} has compute capability {old[0].compute_capability}; bf16 needs "
            f"8.0 or newer (Ampere): use fp16 instead.")


def _numpy2(env: Environment) -> str | None:
    numpy = env.version("numpy")
    if numpy is None or numpy.major < 2:
        return None
    old = []
    for name, ready in NUMPY2_READY.items():
        installed = env.version(name)
        if installed is not None and SpecifierSet(f"<{ready}").contains(installed, prereleases=True):
            old.append(f"{name} {env.packages[name]}")
    if not old:
        return None
    return (f"numpy {env.packages['numpy']} is installed next to {', '.join(old)}, built against numpy 1.x: "
            f"install 'numpy<2' or upgrade them.")


def _smi_failed(env: Environment) -> str | None:
    if not env.smi_error or "No devices were found" in env.smi_error:
        return None
    hint = ""
    if "mismatch" in env.smi_error:
        hint = " The loaded kernel module and the user-space driver differ (often after a driver update): reboot or reload the nvidia module."
    return f"nvidia-smi failed: {env.smi_error}.{hint}"


def environment_warnings(env: Environment, report=None) -> list[str]:
    """Record-independent problems, most basic first."""
    found = [_smi_failed(env), _cuda_vs_driver(env), _cpu_torch(env), _bf16(env, report) if report else None,
             _numpy2(env)]
    return [w for w in found if w]
