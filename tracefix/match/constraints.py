"""`check(record, env) -> Verdict`: is this environment in the record's affected range?

Every requirement of a record becomes one `Check` that `holds`, `fails` or is `unknown` (the
package or fact is not in the input). The verdict: any check fails -> "not-affected"; all hold (and
there is at least one) -> "affected"; otherwise "unknown". All version logic goes through
`packaging`, with `prereleases=True` passed explicitly (see the style guide's note on packaging 26).

How each range reads:
- `affected`: holds when the installed version is in the range.
- `fixed`: the versions carrying the fix, so an installed version in the range fails the check.
- `works`: versions known to work, read like `fixed`: inside the range, the issue does not occur.
- `environment`: `gpus` compares the GPU count; `compute_capability` holds when ANY GPU satisfies the
  condition (a bug that needs an sm_75 card shows up as soon as one takes part; for a homogeneous
  machine any/min/max agree); `driver` compares the driver version; `cuda` compares the CUDA torch
  was built for, or, when that is unknown, the newest CUDA the driver supports.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from tracefix.env.environment import Environment
from tracefix.kb.conditions import parse_condition

HOLDS, FAILS, UNKNOWN = "holds", "fails", "unknown"
_OPS = {"==": operator.eq, "!=": operator.ne, "<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt}


@dataclass(frozen=True)
class Check:
    """One requirement of a record, tested against the environment."""

    requirement: str       # e.g. "deepspeed>0.14.0", "deepspeed not in fixed >=0.14.1", "gpus>=2"
    found: str | None      # what the environment has ("0.14.2", "4 (nvidia-smi)"); None when absent
    result: str            # holds | fails | unknown


@dataclass(frozen=True)
class Verdict:
    """The record's verdict for this environment and the checks behind it."""

    verdict: str                  # affected | not-affected | unknown
    checks: tuple[Check, ...]


def _contains(spec: str, version: Version) -> bool | None:
    try:
        return SpecifierSet(spec).contains(version, prereleases=True)
    except InvalidSpecifier:
        return None


def _version_check(requirement: str, env: Environment, name: str, spec: str, inside_holds: bool) -> Check:
    raw = env.packages.get(name)
    installed = env.version(name)
    if installed is None:
        return Check(requirement, raw, UNKNOWN)
    inside = _contains(spec, installed)
    if inside is None:
        return Check(requirement, raw, UNKNOWN)
    return Check(requirement, raw, HOLDS if inside == inside_holds else FAILS)


def _compare_versions(found: str | None, op: str, value: str) -> str:
    try:
        return HOLDS if SpecifierSet(f"{op}{value}").contains(Version(found or ""), prereleases=True) else FAILS
    except (InvalidVersion, InvalidSpecifier):
        return UNKNOWN


def _gpus(env: Environment, op: str, value: str) -> Check:
    if env.gpu_count is None:
        return Check(f"gpus{op}{value}", None, UNKNOWN)
    found = f"{env.gpu_count} ({env.gpu_count_source})" if env.gpu_count_source else str(env.gpu_count)
    return Check(f"gpus{op}{value}", found, HOLDS if _OPS[op](env.gpu_count, int(value)) else FAILS)


def _compute_capability(env: Environment, op: str, value: str) -> Check:
    known = [g.compute_capability for g in env.gpus if g.compute_capability]
    requirement = f"compute_capability{op}{value}"
    if not known:
        return Check(requirement, None, UNKNOWN)
    results = {_compare_versions(cc, op, value) for cc in known}
    result = HOLDS if HOLDS in results else (FAILS if results == {FAILS} else UNKNOWN)
    return Check(requirement, ", ".join(dict.fromkeys(known)), result)


def _driver(env: Environment, op: str, value: str) -> Check:
    found = env.driver_version
    return Check(f"driver{op}{value}", found, _compare_versions(found, op, value) if found else UNKNOWN)


def _cuda(env: Environment, op: str, value: str) -> Check:
    requirement = f"cuda{op}{value}"
    if env.torch_cuda == "cpu":
        return Check(requirement, "cpu (torch built without CUDA)", FAILS)
    if env.torch_cuda:
        return Check(requirement, f"{env.torch_cuda} (torch build)", _compare_versions(env.torch_cuda, op, value))
    if env.cuda_version:
        return Check(requirement, f"{env.cuda_version} (driver)", _compare_versions(env.cuda_version, op, value))
    return Check(requirement, None, UNKNOWN)


_ENV_CHECKS = {"gpus": _gpus, "compute_capability": _compute_capability, "driver": _driver, "cuda": _cuda}


def checks(record, env: Environment) -> list[Check]:
    """Every check for a record, in the order: affected, fixed, works, environment."""
    out = [_version_check(f"{name}{spec}", env, name, spec, True) for name, spec in record.affected.items()]
    out += [_version_check(f"{name} not in fixed {spec}", env, name, spec, False) for name, spec in record.fixed.items()]
    out += [_version_check(f"{name} not in working {spec}", env, name, spec, False) for name, spec in record.works.items()]
    for condition in record.environment:
        try:
            key, op, value = parse_condition(condition)
        except ValueError:
            out.append(Check(condition, None, UNKNOWN))
            continue
        out.append(_ENV_CHECKS[key](env, op, value))
    return out


def verdict_of(found: list[Check]) -> str:
    results = {c.result for c in found}
    if FAILS in results:
        return "not-affected"
    if found and results == {HOLDS}:
        return "affected"
    return "unknown"


def check(record, env: Environment) -> Verdict:
    """The verdict for one record.

    A record with no ranges and no conditions is "unknown": nothing says whether it applies.
    """
    found = checks(record, env)
    return Verdict(verdict_of(found), tuple(found))
