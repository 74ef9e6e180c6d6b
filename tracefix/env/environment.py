"""The environment a log ran in: packages, GPUs, driver, CUDA, merged from every input given.

Inputs, strongest first: the texts passed separately (`--freeze`, `--smi`, a collect_env file),
then the blocks found pasted inside the log, then the log itself (versions it prints, used only for
packages no report states; its world size, as a guess at the GPU count). Each fact says where it
came from when that matters (`package_sources`, `gpu_count_source`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tracefix.env import collect_env as collect_env_parser
from tracefix.env import freeze as freeze_parser
from tracefix.env import hardware
from tracefix.env import log_versions as log_versions_parser
from tracefix.env import oom
from tracefix.env import smi as smi_parser
from tracefix.env.freeze import SkippedLine

_LOCAL_CUDA = re.compile(r"^cu(\d{2,3})$")
_CONDA_CUDA = re.compile(r"cuda(\d{1,2})\.?(\d)")


@dataclass(frozen=True)
class Gpu:
    """One GPU."""

    name: str
    memory_mib: int | None
    compute_capability: str | None   # "8.0"; from nvidia-smi's compute_cap, else the name table


@dataclass(frozen=True)
class Environment:
    """Everything known about where the failing job ran; None / empty = could not tell."""

    packages: dict[str, str]              # canonical name -> version as given ("2.1.0+cu118")
    gpus: tuple[Gpu, ...]
    gpu_count: int | None
    gpu_count_source: str | None          # "nvidia-smi" | "given" | "log"
    driver_version: str | None
    cuda_version: str | None              # the newest CUDA the driver supports
    torch_cuda: str | None                # CUDA torch was built for ("12.1"); "cpu" for a CPU build
    skipped: tuple[SkippedLine, ...] = ()
    smi_error: str | None = None          # nvidia-smi's own failure ("Failed to initialize NVML: ...")
    sources: tuple[str, ...] = field(default=())   # what was read: "pip freeze (212 packages)", ...
    package_sources: dict[str, str] = field(default_factory=dict)  # name -> "pip freeze" | "conda list" | "hf env" | "log" ...
    oom_spare_gib: float | None = None    # GiB still free beyond the request torch's OOM message says failed

    def version(self, name: str) -> Version | None:
        """The installed version of a package, or None when absent or unparseable."""
        raw = self.packages.get(canonicalize_name(name))
        try:
            return Version(raw) if raw else None
        except InvalidVersion:
            return None


def torch_cuda_from(version: str | None, build: str | None = None) -> str | None:
    """"2.1.0+cu121" -> "12.1"; "+cpu" -> "cpu"; a conda build string "py3.10_cuda11.8_..." -> "11.8"."""
    try:
        local = Version(version).local if version else None
    except InvalidVersion:
        local = None
    if local:
        m = _LOCAL_CUDA.match(local)
        if m:
            digits = m.group(1)
            return f"{digits[:-1]}.{digits[-1]}"
        if local == "cpu":
            return "cpu"
    if build:
        m = _CONDA_CUDA.search(build)
        if m:
            return f"{m.group(1)}.{m.group(2)}"
        if build.startswith("cpu") or "_cpu_" in build:
            return "cpu"
    return None


def _first(*values):
    return next((v for v in values if v is not None), None)


def build_environment(freeze: str | None = None, smi: str | None = None, report=None, gpu_count: int | None = None,
                      collect_env: str | None = None) -> Environment:
    """Merge separate inputs with the blocks pasted in the log (`report`); separate inputs win.

    >>> env = build_environment(freeze="torch==2.1.0+cu118", smi="GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1)")
    >>> env.torch_cuda, env.gpu_count, env.gpus[0].compute_capability, env.package_sources["torch"]
    ('11.8', 1, '8.0', 'pip freeze')
    """
    embedded = freeze_parser.parse(getattr(report, "freeze_text", None)) if freeze else None
    frozen = freeze_parser.parse(freeze or getattr(report, "freeze_text", None))
    smi_report = smi_parser.parse(smi or getattr(report, "smi_text", None))
    collected = collect_env_parser.parse(collect_env or getattr(report, "collect_env_text", None))
    logged = log_versions_parser.parse(getattr(report, "excerpt", None))
    packages, origin = _packages(frozen, embedded, collected, logged)
    torch_build = next((p.build for p in frozen.packages if p.name == "torch"), None)
    gpus = _gpus(smi_report, collected)
    count, source = _count(smi_report, collected, gpu_count, getattr(report, "world_size", None))
    driver = _first(smi_report.driver_version, collected.driver_version)
    return Environment(
        packages=packages, gpus=gpus, gpu_count=count, gpu_count_source=source, driver_version=driver,
        cuda_version=_first(smi_report.cuda_version, logged.driver_cuda, hardware.max_cuda_for_driver(driver)),
        torch_cuda=_first(torch_cuda_from(packages.get("torch"), torch_build), collected.torch_cuda),
        skipped=frozen.skipped, smi_error=smi_report.error if not smi_report.gpus else None,
        sources=_sources(frozen, smi_report, collected, logged, sum(v == "log" for v in origin.values())),
        package_sources=origin, oom_spare_gib=oom.spare_gib(getattr(report, "excerpt", None)),
    )


def _packages(frozen, embedded, collected, logged) -> tuple[dict[str, str], dict[str, str]]:
    """Every stated version, strongest last so it wins; versions the log prints only fill gaps."""
    packages: dict[str, str] = {}
    origin: dict[str, str] = {}
    sources = dict(collected.package_sources)
    layers = [(dict(collected.packages), lambda name: sources.get(name, "collect_env"))]
    if embedded:
        layers.append((embedded.as_dict(), lambda name: embedded.format))
    layers.append((frozen.as_dict(), lambda name: frozen.format))
    for layer, label in layers:
        for name, version in layer.items():
            packages[name], origin[name] = version, label(name)
    for name, version in logged.packages:
        if name not in packages:
            packages[name], origin[name] = version, "log"
    return packages, origin


def _gpus(report: smi_parser.SmiReport, collected: collect_env_parser.CollectedEnv) -> tuple[Gpu, ...]:
    if report.gpus:
        return tuple(Gpu(g.name, g.memory_mib, g.compute_capability or hardware.compute_capability(g.name))
                     for g in report.gpus)
    return tuple(Gpu(name, None, hardware.compute_capability(name)) for name in collected.gpus)


def _count(report: smi_parser.SmiReport, collected: collect_env_parser.CollectedEnv, given: int | None,
           world_size: int | None) -> tuple[int | None, str | None]:
    """nvidia-smi's count, else the caller's, else collect_env's list, else (a guess) the log's world size."""
    if report.gpu_count is not None:
        return report.gpu_count, "nvidia-smi"
    if given is not None:
        return given, "given"
    if collected.gpu_count:
        return collected.gpu_count, "collect_env"
    if world_size:
        return world_size, "log"
    return None, None


def _sources(frozen, smi_report, collected, logged, from_log: int) -> tuple[str, ...]:
    out = []
    if frozen.packages or frozen.skipped:
        out.append(f"{frozen.format} ({len(frozen.packages)} packages, {len(frozen.skipped)} lines skipped)")
    if smi_report.format != "unknown":
        out.append(f"nvidia-smi {smi_report.format} ({len(smi_report.gpus)} GPUs)")
    out.extend(collected.formats)
    if from_log:
        out.append(f"versions printed in the log ({from_log} packages)")
    if logged.driver_cuda:
        out.append(f"torch's driver check (CUDA {logged.driver_cuda})")
    return tuple(out)


def environment_dict(env: Environment) -> dict:
    """The environment as plain JSON-ready data (the `tracefix env --json` shape)."""
    return {
        "packages": dict(env.packages), "package_sources": dict(env.package_sources),
        "gpus": [{"name": g.name, "memory_mib": g.memory_mib, "compute_capability": g.compute_capability} for g in env.gpus],
        "gpu_count": env.gpu_count, "gpu_count_source": env.gpu_count_source, "driver_version": env.driver_version,
        "cuda_version": env.cuda_version, "torch_cuda": env.torch_cuda, "smi_error": env.smi_error,
        "oom_spare_gib": env.oom_spare_gib,
        "sources": list(env.sources), "skipped": [{"text": s.text, "reason": s.reason} for s in env.skipped],
    }


def from_text(text: str | bytes | None, freeze: str | None = None, smi: str | None = None,
              gpu_count: int | None = None) -> Environment:
    """The environment in a pasted log or report, as `tracefix env` reads it: the same path as a match."""
    from tracefix.logs.report import read_log   # the log reader imports this package's block finder

    return build_environment(freeze=freeze, smi=smi, report=read_log(text or ""), gpu_count=gpu_count)
