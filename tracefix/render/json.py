"""MatchResult -> the `--json` / `POST /v1/match` object. This shape is a contract: add, never rename."""

from __future__ import annotations

from dataclasses import asdict

from tracefix.logs.advice import launcher_advice
from tracefix.match.result import Match, MatchResult


def render(result: MatchResult) -> dict:
    return {"query": _query(result), "environment": _environment(result), "matches": [_match(m) for m in result.matches],
            # What to do when the log shows only a launcher's summary (empty otherwise).
            "advice": list(launcher_advice(result.report))}


def _query(result: MatchResult) -> dict:
    report, root = result.report, result.report.root
    return {
        "exception": root.exception if root else None,
        "message": root.message if root else None,
        "signature": root.signature if root else None,
        "packages": list(report.packages),
        "root_rank": report.root_rank,
        "kind": root.kind if root else None,
        "frames": [asdict(f) for f in root.frames] if root else [],
        "world_size": report.world_size,
        "launcher": _launcher(report.launcher),
    }


def _launcher(seen) -> dict | None:
    """What the launcher's summary said: failing ranks (first failure first), hosts, exit code..."""
    if seen is None:
        return None
    return {"name": seen.launcher, "ranks": list(seen.ranks), "hosts": list(seen.hosts), "exitcode": seen.exitcode,
            "signal": seen.signal, "error_files": list(seen.error_files), "only_summary": seen.only}


def _environment(result: MatchResult) -> dict:
    env = result.environment
    return {
        "packages": dict(env.packages),
        "gpus": [{"name": g.name, "memory_mib": g.memory_mib, "compute_capability": g.compute_capability} for g in env.gpus],
        "driver_version": env.driver_version,
        "cuda_version": env.cuda_version,
        "torch_cuda": env.torch_cuda,
        "warnings": list(result.warnings),
        "gpu_count": env.gpu_count,
        "oom_spare_gib": env.oom_spare_gib,
    }


def _match(m: Match) -> dict:
    return {
        "id": m.id,
        "title": m.title,
        "score": m.score,
        "confident": m.confident,
        "verdict": m.verdict,
        "checks": [{"requirement": c.requirement, "found": c.found, "result": c.result} for c in m.checks],
        "why": list(m.why),
        "cause": m.cause,
        "fix": m.fix,
        "source": m.source,
        "commands": list(m.commands),
        "references": list(m.references),
        # For a generic record: the specific records of its family and what in a log points to each.
        "specific": [{"id": s.id, "title": s.title, "look_for": list(s.signs)} for s in m.specific],
    }
